/**
 * A connection reset after the server has read the whole request: the client sees ECONNRESET, and
 * the request may well have been carried out. Only an idempotent request may be sent again; a POST
 * or PATCH is sent once and its failure reported, or a create would be done up to four times.
 * The server is a plain TCP listener on loopback that reads each HTTP request to the end of its
 * body, counts it, and answers with a reset (RST) instead of a response. A refused connection is
 * the other case: nothing was sent, so even a POST is tried again.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, type HttpMethod } from './client.js';
import { NetworkError } from './errors.js';
import type { ToolClock } from './retry.js';

const TOKEN = 'dop_v1_reset_test_token_0123456789abcdef';

interface Received {
  method: string;
  path: string;
  body: string;
}

/** Reads one HTTP/1.1 request at a time from `socket`; calls `onRequest` once each is whole. */
function readRequests(socket: Socket, onRequest: (request: Received) => void): void {
  let buffered = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      const headEnd = buffered.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = buffered.subarray(0, headEnd).toString('latin1');
      const length = Number(/^content-length:\s*(\d+)\s*$/im.exec(head)?.[1] ?? 0);
      if (buffered.length < headEnd + 4 + length) return;
      const [method = '', path = ''] = head.split('\r\n', 1)[0]?.split(' ') ?? [];
      const body = buffered.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
      buffered = buffered.subarray(headEnd + 4 + length);
      onRequest({ method, path, body });
    }
  });
  // The client sees the reset; this side only needs not to throw on it.
  socket.on('error', () => undefined);
}

const servers: Server[] = [];
const clients: ApiClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(
    servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
  );
});

/** A loopback server that resets every connection as soon as it has read a whole request. */
async function resettingServer(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((socket) => {
    readRequests(socket, (request) => {
      received.push(request);
      socket.resetAndDestroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { url: `http://127.0.0.1:${address.port}`, received };
}

/** Backoff waits pass at once (and are noted), so four attempts take no wall-clock time. */
function instantClock(): ToolClock & { slept: number[] } {
  let now = 1_700_000_000_000;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

function clientOf(url: string, clock: ToolClock): ApiClient {
  const client = new ApiClient({ token: TOKEN, baseUrl: url, clock });
  clients.push(client);
  return client;
}

describe('a connection reset after the server read the request', () => {
  it.each(['POST', 'PATCH'] as const)('sends a %s once and reports ECONNRESET', async (method) => {
    const api = await resettingServer();
    const clock = instantClock();
    const error = await clientOf(api.url, clock)
      .request({ method, path: '/v2/droplets', body: { name: 'web-1' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('ECONNRESET');
    expect((error as Error).message).toContain(`${method} ${api.url}/v2/droplets`);
    expect((error as Error).message).not.toContain(TOKEN);
    // The server read it whole, once: a retry would have created a second droplet.
    expect(api.received).toEqual([{ method, path: '/v2/droplets', body: '{"name":"web-1"}' }]);
    expect(clock.slept).toEqual([]);
  });

  it.each(['GET', 'PUT', 'DELETE', 'HEAD'] as const)(
    'sends an idempotent %s again, up to the attempts allowed',
    async (method: HttpMethod) => {
      const api = await resettingServer();
      const clock = instantClock();
      const body = method === 'PUT' ? { name: 'web-1' } : undefined;
      const error = await clientOf(api.url, clock)
        .request({ method, path: '/v2/droplets/7', body })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as NetworkError).code).toBe('ECONNRESET');
      expect(api.received.map((request) => request.method)).toEqual([method, method, method, method]);
      expect(clock.slept).toHaveLength(3);
    },
  );
});

describe('a refused connection', () => {
  it('sends a POST again, since nothing reached the server', async () => {
    // A port that was free a moment ago: the first attempt is refused, and the backoff's sleep
    // starts a server there, which the second attempt reaches.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const address = probe.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const received: Received[] = [];
    const clock = instantClock();
    const sleep = clock.sleep;
    clock.sleep = async (ms, signal) => {
      await sleep(ms, signal);
      if (servers.length) return;
      const server = createServer((socket) => {
        readRequests(socket, (request) => {
          received.push(request);
          socket.end(
            'HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{"id":"k1"}',
          );
        });
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(address.port, '127.0.0.1', resolve));
    };
    const answer = await clientOf(`http://127.0.0.1:${address.port}`, clock).request({
      method: 'POST',
      path: '/v2/account/keys',
      body: { name: 'k' },
    });
    expect(answer).toEqual({ id: 'k1' });
    expect(received).toEqual([{ method: 'POST', path: '/v2/account/keys', body: '{"name":"k"}' }]);
    expect(clock.slept).toHaveLength(1);
  });
});
