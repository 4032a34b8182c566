/**
 * A loopback stand-in for the platform API that answers at once, so a benchmark measures the apps
 * and not an emulator: the sandbox keeps state, locks and validates, which is work a real API does
 * elsewhere. It answers the one read the benchmark calls, as the platform shapes it.
 */
import { createServer } from 'node:http';

const SSH_KEYS = [
  {
    id: 512189,
    fingerprint: '3b:16:bf:e4:8b:00:8b:b8:59:8c:a9:d3:f0:19:45:fa',
    public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFm0m5hWYlC8j7z2kQ6x3a9zOeM8n0Q7s1Yt2bW4cXvR bench@one',
    name: 'bench-one',
  },
  {
    id: 512190,
    fingerprint: 'a1:07:5f:2c:9e:44:10:be:73:d2:88:4a:6c:e1:90:3f',
    public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKq8v1Zp3rT6uW9yB2cE5fH8jL1nQ4sV7xA0dG3kM6pS bench@two',
    name: 'bench-two',
  },
];

/** Serves GET /v2/account/keys on 127.0.0.1 (a free port); anything else is the platform's 404. */
export async function startStandIn() {
  const counts = { keys: 0, other: 0, unauthorized: 0 };
  const keys = JSON.stringify({ ssh_keys: SSH_KEYS, links: {}, meta: { total: SSH_KEYS.length } });
  const server = createServer((request, response) => {
    // The platform's budget headers, far from low, so no client slows down to spare it.
    const headers = {
      'content-type': 'application/json; charset=utf-8',
      'ratelimit-limit': '5000',
      'ratelimit-remaining': '4999',
      'ratelimit-reset': String(Math.floor(Date.now() / 1000) + 60),
    };
    const path = (request.url ?? '').split('?')[0];
    if (!/^Bearer \S+$/.test(request.headers.authorization ?? '')) {
      counts.unauthorized++;
      response.writeHead(401, headers);
      response.end('{"id":"unauthorized","message":"Unable to authenticate you."}');
    } else if (request.method === 'GET' && path === '/v2/account/keys') {
      counts.keys++;
      response.writeHead(200, headers);
      response.end(keys);
    } else {
      counts.other++;
      response.writeHead(404, headers);
      response.end('{"id":"not_found","message":"The resource you were accessing could not be found."}');
    }
    // Bodies are never needed; reading them keeps keep-alive connections reusable.
    request.resume();
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
