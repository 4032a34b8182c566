/**
 * What only the client's plain-socket transport (`transport: 'socket'`) must do itself, where
 * Node's http module or undici did it before: read every way HTTP/1.1 frames an answer, keep a
 * connection only while the server does, queue requests past its connection limit, and refuse to
 * write a request line or header that would break its line. node-http.test.ts holds the promises
 * it shares with the `node` transport (retries, timeouts, cancellation, errors).
 */

import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, type ClientOptions } from './client.js';
import { NetworkError } from './errors.js';
import { socketDispatcher } from './socket-http.js';

const TOKEN = 'dop_v1_socket_transport_secret_0123456789';
const servers: Server[] = [];
const clients: ApiClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const server of servers.splice(0)) {
    if ('closeAllConnections' in server) (server as { closeAllConnections(): void }).closeAllConnections();
    server.close();
  }
});

function client(url: string, options: Partial<ClientOptions> = {}): ApiClient {
  const made = new ApiClient({
    token: TOKEN,
    baseUrl: url,
    transport: 'socket',
    clock: { now: Date.now, sleep: async () => undefined },
    ...options,
  });
  clients.push(made);
  return made;
}

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A TCP server that answers each request (its head, and its body by its length) with `answers[i]`, bytes as
 * given (the last repeats), then closes the connection when `close` says so; the requests' heads
 * and the connections it saw.
 */
async function raw(answers: (string | ((socket: Socket) => void))[], close = false) {
  const heads: string[] = [];
  const connections: Socket[] = [];
  const url = await listen(
    createTcpServer((socket) => {
      connections.push(socket);
      socket.on('error', () => undefined);
      let buffered = '';
      socket.on('data', (chunk) => {
        buffered += chunk.toString('latin1');
        let end = buffered.indexOf('\r\n\r\n');
        while (end !== -1) {
          const head = buffered.slice(0, end);
          // A request's body (by its content-length) is not the next request's head.
          const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
          if (buffered.length < end + 4 + length) return;
          heads.push(head);
          buffered = buffered.slice(end + 4 + length);
          const answer = answers[Math.min(heads.length - 1, answers.length - 1)];
          if (typeof answer === 'function') answer(socket);
          else socket.write(answer ?? '');
          if (close) socket.end();
          end = buffered.indexOf('\r\n\r\n');
        }
      });
    }),
  );
  return { url, heads, connections };
}

const JSON_HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n';

describe("the client's socket transport", () => {
  it('reads a chunked answer, an answer after a 1xx, and one whose end is its connection closing', async () => {
    const chunked = await raw([
      `${JSON_HEAD}transfer-encoding: chunked\r\n\r\n5\r\n{"a":\r\n4\r\n[1,2\r\n3\r\n]}\n\r\n0\r\n\r\n`,
    ]);
    const c = client(chunked.url);
    expect(await c.request({ method: 'GET', path: '/v2/x' })).toEqual({ a: [1, 2] });
    // The connection stayed open for the next request.
    expect(await c.request({ method: 'GET', path: '/v2/y' })).toEqual({ a: [1, 2] });
    expect(chunked.connections).toHaveLength(1);

    const early = await raw([
      `HTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n${JSON_HEAD}content-length: 8\r\n\r\n{"b":2}\n`,
    ]);
    expect(await client(early.url).request({ method: 'GET', path: '/v2/x' })).toEqual({ b: 2 });

    const untilClose = await raw([`${JSON_HEAD}connection: close\r\n\r\n{"c":3}`], true);
    const d = client(untilClose.url);
    expect(await d.request({ method: 'GET', path: '/v2/x' })).toEqual({ c: 3 });
    // That connection is gone: the next request opens another.
    expect(await d.request({ method: 'GET', path: '/v2/x' })).toEqual({ c: 3 });
    expect(untilClose.connections).toHaveLength(2);
  });

  it("keeps an idle connection only until a second before the server's Keep-Alive timeout", async () => {
    const answer = (timeout: number) =>
      `${JSON_HEAD}keep-alive: timeout=${timeout}\r\ncontent-length: 2\r\n\r\n{}`;
    // timeout=2: kept a second, then closed by the client (the server sees its end), never reused.
    const short = await raw([answer(2)]);
    const c = client(short.url);
    expect(await c.request({ method: 'GET', path: '/v2/x' })).toEqual({});
    expect(await c.request({ method: 'GET', path: '/v2/x' })).toEqual({});
    expect(short.connections).toHaveLength(1);
    const first = short.connections[0] as Socket;
    await new Promise((resolve) => first.once('close', resolve));
    expect(await c.request({ method: 'GET', path: '/v2/x' })).toEqual({});
    expect(short.connections).toHaveLength(2);

    // timeout=1: no time to keep it at all; each request has its own connection.
    const none = await raw([answer(1)]);
    const d = client(none.url);
    expect(await d.request({ method: 'GET', path: '/v2/x' })).toEqual({});
    expect(await d.request({ method: 'GET', path: '/v2/x' })).toEqual({});
    expect(none.connections).toHaveLength(2);
  });

  it('reads no body for HEAD or 204, and keeps repeated headers', async () => {
    const api = await raw([
      'HTTP/1.1 200 OK\r\ncontent-length: 50\r\nx-request-id: head-1\r\n\r\n',
      'HTTP/1.1 204 No Content\r\nx-request-id: a\r\nx-request-id: b\r\n\r\n',
      `${JSON_HEAD}content-length: 2\r\n\r\n{}`,
    ]);
    const c = client(api.url);
    const head = await c.send({ method: 'HEAD', path: '/v2/x', noResponseBody: true });
    expect(head).toMatchObject({ status: 200, requestId: 'head-1' });
    const deleted = await c.send({ method: 'DELETE', path: '/v2/x/1' });
    // Both values came through; the client takes the first.
    expect(deleted).toMatchObject({ status: 204, requestId: 'a' });
    // The answers above ended where they should: the next one on the same connection is whole.
    expect(await c.request({ method: 'GET', path: '/v2/x' })).toEqual({});
    expect(api.connections).toHaveLength(1);
  });

  it('writes the request as Node would: host, headers, a length for every body (none for a GET)', async () => {
    const api = await raw([`${JSON_HEAD}content-length: 2\r\n\r\n{}`]);
    const c = client(`${api.url}/base`);
    await c.request({ method: 'POST', path: '/v2/keys', body: { name: 'é' } });
    await c.request({ method: 'GET', path: '/v2/keys', query: { page: 2 } });
    const [post, get] = api.heads;
    const port = new URL(api.url).port;
    expect(post?.split('\r\n')[0]).toBe('POST /base/v2/keys HTTP/1.1');
    expect(post).toContain(`\r\nhost: 127.0.0.1:${port}\r\n`);
    expect(post).toContain(`\r\nauthorization: Bearer ${TOKEN}\r\n`);
    expect(post).toMatch(new RegExp(`\r\ncontent-length: ${Buffer.byteLength('{"name":"é"}')}(\r\n|$)`));
    expect(get?.split('\r\n')[0]).toBe('GET /base/v2/keys?page=2 HTTP/1.1');
    expect(get).not.toMatch(/content-length/i);
  });

  it('refuses a header value that would break its line, sending nothing and showing no token', async () => {
    const api = await raw([`${JSON_HEAD}content-length: 2\r\n\r\n{}`]);
    const injected = `${TOKEN}\r\nx-evil: 1`;
    const error = await client(api.url, { token: injected })
      .request({ method: 'GET', path: '/v2/x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).not.toContain(TOKEN);
    expect(JSON.stringify(error)).not.toContain(TOKEN);
    expect(api.heads).toHaveLength(0);
  });

  it('fails an answer that is not HTTP, and a connection that talks out of turn', async () => {
    const garbage = await raw(['SMTP ready\r\n\r\n']);
    const error = await client(garbage.url, { retry: { maxAttempts: 1 } })
      .request({ method: 'GET', path: '/v2/x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);

    // Two answers to one request: the second arrives with no request waiting, and the connection
    // is dropped rather than handing it to the next request.
    const twice = await raw([
      `${JSON_HEAD}content-length: 7\r\n\r\n{"n":1}${JSON_HEAD}content-length: 7\r\n\r\n{"n":2}`,
    ]);
    const c = client(twice.url);
    expect(await c.request({ method: 'GET', path: '/v2/x' })).toEqual({ n: 1 });
    expect(await c.request({ method: 'GET', path: '/v2/x' })).toEqual({ n: 1 });
    expect(twice.connections).toHaveLength(2);
  });

  it('holds requests past its connection limit until a connection is free, in order', async () => {
    const order: string[] = [];
    let connections = 0;
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      order.push(req.url ?? '');
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ url: req.url }));
      }, 20);
    });
    server.on('connection', () => connections++);
    const url = await listen(server);
    const c = client(url, { connections: 1 });
    const answers = await Promise.all(
      ['/v2/a', '/v2/b', '/v2/c'].map((path) => c.request({ method: 'GET', path })),
    );
    expect(answers).toEqual([{ url: '/v2/a' }, { url: '/v2/b' }, { url: '/v2/c' }]);
    expect(order).toEqual(['/v2/a', '/v2/b', '/v2/c']);
    expect(connections).toBe(1);
  });

  it('fails what is waiting or in flight once closed, and sends nothing after', async () => {
    const api = await raw([() => undefined]);
    const dispatcher = await socketDispatcher(api.url, { connections: 1 });
    const heard: string[] = [];
    const handler = (name: string) => ({
      onResponseError: (_controller: unknown, error: Error) => heard.push(`${name}: ${error.message}`),
      onResponseEnd: () => heard.push(`${name}: answered`),
    });
    const request = { origin: api.url, method: 'GET' as const, body: undefined, headers: {} };
    dispatcher.dispatch({ ...request, path: '/v2/a', headersTimeout: 1000, bodyTimeout: 1000 }, handler('a'));
    dispatcher.dispatch({ ...request, path: '/v2/b', headersTimeout: 1000, bodyTimeout: 1000 }, handler('b'));
    await expect.poll(() => api.heads.length).toBe(1);
    await dispatcher.close();
    dispatcher.dispatch({ ...request, path: '/v2/c', headersTimeout: 1000, bodyTimeout: 1000 }, handler('c'));
    expect(heard).toEqual([
      'a: The client is closed.',
      'b: The client is closed.',
      'c: The client is closed.',
    ]);
    expect(api.heads).toHaveLength(1);
  });

  it("answers through `request` too, the client's way in with a signal, which stops it", async () => {
    const api = await raw([`${JSON_HEAD}content-length: 7\r\n\r\n{"r":1}`, () => undefined]);
    const dispatcher = await socketDispatcher(api.url);
    const signal = () => Object.assign(new EventEmitter(), { aborted: false, reason: undefined as unknown });
    const base = { origin: api.url, path: '/v2/x', method: 'GET' as const, body: undefined, headers: {} };
    const timeouts = { headersTimeout: 1000, bodyTimeout: 1000 };
    const answer = await dispatcher.request({ ...base, ...timeouts, signal: signal() });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(await answer.body.text()).toBe('{"r":1}');

    // The second answer never comes: aborting the signal ends the request with its reason.
    const stopping = signal();
    const pending = dispatcher.request({ ...base, ...timeouts, signal: stopping });
    await expect.poll(() => api.heads.length).toBe(2);
    stopping.aborted = true;
    stopping.reason = new Error('stopped by the caller');
    stopping.emit('abort');
    await expect(pending).rejects.toThrow('stopped by the caller');
    // Its connection, mid-answer, was closed.
    await expect.poll(() => api.connections[0]?.destroyed).toBe(true);
    await dispatcher.close();
  });
});
