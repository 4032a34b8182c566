/**
 * The client's `transport: 'node'`: its requests sent with Node's own http and https modules,
 * over keep-alive connections, instead of undici's pool. For a process that sends a few requests
 * and exits (a CLI command): Node's modules load in a fraction of the time undici takes (which
 * requires http2, WebAssembly and web streams at load). What the client asks of any dispatcher
 * holds: the attempt's signal ends it, a connection not made in time fails with the code the
 * client knows a connect timeout by, and the answer is read whole before it is handed back.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { DispatchResponse, RequestDispatcher } from './client.js';

/** The code undici gives a connection not made in time: the client's name for it (retry.ts). */
const CONNECT_TIMEOUT = 'UND_ERR_CONNECT_TIMEOUT';

export interface NodeDispatcher extends RequestDispatcher {
  /** Closes every connection, idle or not. */
  close(): Promise<void>;
}

/**
 * A dispatcher to `origin` over Node's http or https module: only the one the origin needs loads
 * (https brings tls and crypto, which a plain-http origin such as the sandbox never uses).
 */
export async function nodeDispatcher(
  origin: string,
  options: { connections?: number | undefined; connectTimeoutMs?: number | undefined } = {},
): Promise<NodeDispatcher> {
  const url = new URL(origin);
  const secure = url.protocol === 'https:';
  const { Agent, request: send } = secure ? await import('node:https') : await import('node:http');
  const agent = new Agent({
    keepAlive: true,
    maxSockets: options.connections ?? 16,
  });
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  // `[::1]` in a URL is `::1` to the resolver.
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let closed = false;
  return {
    request: (request) =>
      new Promise<DispatchResponse>((resolve, reject) => {
        const { signal } = request;
        if (signal.aborted) {
          reject(signal.reason);
          return;
        }
        if (closed) {
          reject(Object.assign(new Error('The client is closed.'), { code: 'UND_ERR_DESTROYED' }));
          return;
        }
        const headers: Record<string, string> = { ...request.headers };
        if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
        let connectTimer: ReturnType<typeof setTimeout> | undefined;
        let settled = false;
        const settle = () => {
          settled = true;
          clearTimeout(connectTimer);
          signal.off('abort', onAbort);
        };
        const fail = (error: unknown) => {
          if (settled) return;
          settle();
          req.destroy();
          reject(error);
        };
        const onAbort = () => fail(signal.reason);
        const req = send({
          protocol: url.protocol,
          hostname,
          port: url.port,
          path: request.path,
          method: request.method,
          headers,
          agent,
        });
        signal.once('abort', onAbort);
        req.once('socket', (socket: Socket) => {
          // A kept-alive connection is made already; a new one (its TLS handshake included) must be
          // made in time.
          if (!socket.connecting) return;
          connectTimer = setTimeout(() => {
            const error = new Error(
              `Connect Timeout Error (attempted ${origin}, timeout ${connectTimeoutMs} ms)`,
            );
            fail(Object.assign(error, { code: CONNECT_TIMEOUT }));
          }, connectTimeoutMs);
          socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
        });
        req.once('error', fail);
        req.once('response', (response: IncomingMessage) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.once('error', fail);
          // Closed before its end: the body was cut short (the server went away mid-answer).
          response.once('close', () => {
            if (!response.complete)
              fail(Object.assign(new Error('other side closed'), { code: 'ECONNRESET' }));
          });
          response.once('end', () => {
            if (settled) return;
            settle();
            const text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString(
              'utf8',
            );
            resolve({
              statusCode: response.statusCode ?? 0,
              headers: response.headers,
              body: { text: async () => text },
            });
          });
        });
        req.end(request.body);
      }),
    close: async () => {
      closed = true;
      agent.destroy();
    },
  };
}
