/**
 * The client over https, through each of its transports (undici's pool, Node's https, plain TLS
 * sockets), against a loopback server with a certificate made for the test (openssl): a server
 * whose certificate the machine does not trust gets no request, and one it trusts (through
 * NODE_EXTRA_CA_CERTS, in a process of its own, as a user's machine would) is asked by name
 * (SNI), answered, and its connection kept for the next request.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from './client.js';
import { NetworkError } from './errors.js';

const run = promisify(execFile);
const TOKEN = 'dop_v1_tls_transport_secret_0123456789';
const TRANSPORTS = ['pool', 'node', 'socket'] as const;

let dir: string;
let server: Server;
let url: string;
const seen: { path: string; servername: string | false | null; connection: number }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cloudcall-tls-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  await run('openssl', [
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
    ...['-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'],
    ...['-addext', 'subjectAltName=DNS:localhost'],
  ]);
  const connections = new WeakMap<object, number>();
  let count = 0;
  server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const socket = req.socket as TLSSocket;
    if (!connections.has(socket)) connections.set(socket, ++count);
    seen.push({
      path: req.url ?? '',
      servername: socket.servername,
      connection: connections.get(socket) ?? 0,
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://localhost:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server?.closeAllConnections();
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.each(TRANSPORTS)('the client over https through its %s transport', (transport) => {
  it('sends nothing to a server whose certificate is not trusted, and names the reason', async () => {
    const before = seen.length;
    const client = new ApiClient({
      token: TOKEN,
      baseUrl: url,
      transport,
      retry: { maxAttempts: 1 },
    });
    try {
      const error = await client.request({ method: 'GET', path: '/v2/account' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetworkError);
      expect(String((error as Error).message)).toMatch(/certificate/i);
      expect(String((error as Error).message)).not.toContain(TOKEN);
    } finally {
      await client.close();
    }
    expect(seen.length).toBe(before);
  });

  it('asks a trusted server by name, gets its answers, and keeps the connection for the next', async () => {
    const script = join(dir, `client-${transport}.mjs`);
    const core = pathToFileURL(fileURLToPath(new URL('../dist/index.js', import.meta.url))).href;
    writeFileSync(
      script,
      `import { ApiClient } from ${JSON.stringify(core)};
const client = new ApiClient({ token: ${JSON.stringify(TOKEN)}, baseUrl: process.argv[2], transport: ${JSON.stringify(transport)} });
const answers = [];
for (const path of ['/v2/one', '/v2/two']) answers.push(await client.request({ method: 'GET', path }));
await client.close();
process.stdout.write(JSON.stringify(answers));
`,
    );
    const before = seen.length;
    const { stdout } = await run(process.execPath, [script, url], {
      env: { PATH: process.env.PATH ?? '', NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') },
    });
    expect(JSON.parse(stdout)).toEqual([{ path: '/v2/one' }, { path: '/v2/two' }]);
    const mine = seen.slice(before);
    expect(mine.map((entry) => [entry.path, entry.servername])).toEqual([
      ['/v2/one', 'localhost'],
      ['/v2/two', 'localhost'],
    ]);
    // One connection for both, kept alive between them; undici's pool may open a second when the
    // next request comes before it has seen the first answer's end.
    const connections = new Set(mine.map((entry) => entry.connection)).size;
    if (transport === 'pool') expect(connections).toBeLessThanOrEqual(2);
    else expect(connections).toBe(1);
  });
});
