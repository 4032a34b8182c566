/**
 * The client over Node's own http and https modules (`transport: 'node'`, what a CLI command
 * uses) and over plain sockets (`transport: 'socket'`, the stdio MCP server's): the same requests,
 * answers, retries, timeouts, cancellation and errors as over undici's pool, against real servers
 * on loopback; and undici never loaded. socket-http.test.ts has what only plain sockets must do.
 */
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, type ClientEvent, type ClientOptions } from './client.js';
import {
  CancelledError,
  NetworkError,
  ServerApiError,
  TimeoutError,
  UnexpectedResponseError,
} from './errors.js';

const TOKEN = 'dop_v1_node_transport_secret_0123456789';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  port: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const servers: (Server | TcpServer)[] = [];
const clients: ApiClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const server of servers.splice(0)) {
    if ('closeAllConnections' in server) server.closeAllConnections();
    server.close();
  }
});

/** A loopback API answering with the handlers in order (the last repeats); what it saw, and the connections it closed. */
async function standIn(...handlers: Handler[]) {
  const seen: Seen[] = [];
  const closed: number[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const port = req.socket.remotePort ?? 0;
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, port });
      handlers[Math.min(seen.length - 1, handlers.length - 1)]?.(req, res);
    });
  });
  server.on('connection', (socket) => {
    const port = socket.remotePort ?? 0;
    socket.on('close', () => closed.push(port));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, closed, server };
}

function clientOver(
  transport: 'node' | 'socket',
  url: string,
  options: Partial<ClientOptions> = {},
): ApiClient {
  const made = new ApiClient({
    token: TOKEN,
    baseUrl: url,
    transport,
    // Retries wait no real time.
    clock: { now: Date.now, sleep: async () => undefined },
    ...options,
  });
  clients.push(made);
  return made;
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

// Node's http module (`node`, a CLI command's) and plain sockets read with http-parser-js
// (`socket`, the stdio MCP server's): the same promises, each held to them.
describe.each(['node', 'socket'] as const)('the client over its %s transport', (transport) => {
  const client = (url: string, options: Partial<ClientOptions> = {}) => clientOver(transport, url, options);

  it('sends auth, JSON, the user agent and the query, below the base path, over one kept-alive connection', async () => {
    const api = await standIn(
      json(
        200,
        { ok: 1 },
        {
          'x-request-id': 'req-1',
          'ratelimit-limit': '5000',
          'ratelimit-remaining': '4999',
          'ratelimit-reset': '2000000000',
        },
      ),
    );
    const c = client(`${api.url}/prefix`, { userAgentSuffix: 'cli/9.9.9' });
    expect(
      await c.request({
        method: 'POST',
        path: '/v2/account/keys',
        body: { name: 'é' },
        query: { a: 1, b: undefined },
      }),
    ).toEqual({ ok: 1 });
    const response = await c.send({ method: 'GET', path: '/v2/account' });
    expect(response).toMatchObject({ status: 200, requestId: 'req-1', rateLimit: { remaining: 4999 } });
    const [post, get] = api.seen;
    expect(post).toMatchObject({ method: 'POST', url: '/prefix/v2/account/keys?a=1', body: '{"name":"é"}' });
    expect(post?.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength('{"name":"é"}')),
    });
    expect(post?.headers['user-agent']).toMatch(/^cloudcall\/\S+ cli\/9\.9\.9$/);
    expect(get?.headers['content-length']).toBeUndefined();
    expect(get?.port).toBe(post?.port);
    // Closing the client closes its connection, so a command's process can exit.
    await c.close();
    await expect.poll(() => api.closed).toContain(post?.port);
  });

  it('retries an idempotent request through 503s, never a POST the server has seen', async () => {
    const api = await standIn(
      json(503, { id: 'unavailable', message: 'x' }),
      json(503, { id: 'unavailable', message: 'x' }),
      json(200, { done: true }),
    );
    expect(await client(api.url).request({ method: 'PUT', path: '/v2/x', body: {} })).toEqual({ done: true });
    expect(api.seen).toHaveLength(3);

    const once = await standIn(json(503, { id: 'unavailable', message: 'x' }));
    const error = await client(once.url)
      .request({ method: 'POST', path: '/v2/x', body: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerApiError);
    expect(once.seen).toHaveLength(1);
  });

  it('maps a refused connection to a NetworkError, retried even for a POST (nothing was sent)', async () => {
    const api = await standIn(json(200, {}));
    await new Promise<void>((resolve) => api.server.close(() => resolve()));
    const events: ClientEvent[] = [];
    const error = await client(api.url, { onEvent: (event) => events.push(event), retry: { maxAttempts: 3 } })
      .request({ method: 'POST', path: '/v2/droplets', body: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('ECONNREFUSED');
    expect((error as Error).message).not.toContain(TOKEN);
    expect(events.filter((event) => event.type === 'request')).toHaveLength(3);
  });

  it('gives up on a connection not made in time (a TLS handshake never answered), retrying it as never sent', async () => {
    // A TCP server that accepts and never speaks: the TLS handshake of https:// never ends.
    const accepted: number[] = [];
    const silent = createTcpServer((socket) => {
      accepted.push(socket.remotePort ?? 0);
      socket.on('error', () => undefined);
    });
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const started = Date.now();
    const error = await client(url, { connectTimeoutMs: 200, retry: { maxAttempts: 2 } })
      .request({ method: 'POST', path: '/v2/droplets', body: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).code).toBe('UND_ERR_CONNECT_TIMEOUT');
    expect((error as Error).message).toMatch(/could not connect in time/);
    expect(accepted).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('never retries a POST whose connection dropped after the server read it; retries a GET', async () => {
    const post = await standIn((req) => req.socket.destroy());
    const error = await client(post.url)
      .request({ method: 'POST', path: '/v2/x', body: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(post.seen).toHaveLength(1);

    const get = await standIn((req) => req.socket.destroy(), json(200, { ok: true }));
    expect(await client(get.url).request({ method: 'GET', path: '/v2/x' })).toEqual({ ok: true });
    expect(get.seen).toHaveLength(2);
  });

  it('bounds the whole exchange: no answer, or a body dripping a byte at a time, times out', async () => {
    const silent = await standIn(() => undefined);
    const none = await client(silent.url, { responseTimeoutMs: 200, retry: { maxAttempts: 1 } })
      .request({ method: 'GET', path: '/v2/x' })
      .catch((e: unknown) => e);
    expect(none).toBeInstanceOf(TimeoutError);

    const dripping = await standIn((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const drip = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(drip));
    });
    const error = await client(dripping.url, { responseTimeoutMs: 300, retry: { maxAttempts: 1 } })
      .request({ method: 'GET', path: '/v2/x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toMatch(/no complete response within 300 ms/);
    // The attempt's connection was closed, not left to drip.
    await expect.poll(() => dripping.closed.length).toBe(1);
  });

  it('cancels a request in flight and closes its connection', async () => {
    const controller = new AbortController();
    const api = await standIn(() => controller.abort());
    const error = await client(api.url)
      .request({ method: 'GET', path: '/v2/x', signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CancelledError);
    await expect.poll(() => api.closed.length).toBe(1);
  });

  it('reports a body cut short, and a redirect without following it', async () => {
    const cut = await standIn((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"droplet": {');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const error = await client(cut.url, { retry: { maxAttempts: 1 } })
      .request({ method: 'GET', path: '/v2/x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);

    const moved = await standIn((_req, res) => {
      res.writeHead(301, { location: '/elsewhere', 'content-type': 'text/html' });
      res.end('moved');
    });
    const redirect = await client(moved.url)
      .request({ method: 'GET', path: '/v2/x' })
      .catch((e: unknown) => e);
    expect(redirect).toBeInstanceOf(UnexpectedResponseError);
    expect(moved.seen).toHaveLength(1);
  });

  it('loads neither undici nor anything of it, in a fresh process', async () => {
    const api = await standIn(json(200, { ok: true }));
    const script = `
      const { createRequire } = await import('node:module');
      const { createClient } = await import(process.argv[1]);
      const client = createClient({ token: 'token-a', baseUrl: process.argv[2], transport: process.argv[3] });
      const answer = await client.request({ method: 'GET', path: '/v2/account' });
      await client.close();
      const undici = Object.keys(createRequire(import.meta.url).cache).filter((file) => /[\\\\/]undici[\\\\/]/.test(file));
      process.stdout.write(JSON.stringify({ answer, undici, internal: process.moduleLoadList.includes('NativeModule internal/deps/undici/undici') }));
    `;
    const dist = new URL('../dist/index.js', import.meta.url).href;
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--input-type=module',
      '-e',
      script,
      dist,
      api.url,
      transport,
    ]);
    expect(JSON.parse(stdout)).toEqual({ answer: { ok: true }, undici: [], internal: false });
  });
});
