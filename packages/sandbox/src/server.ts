/**
 * The sandbox HTTP server: the platform API v2 on loopback, with bearer auth, request ids,
 * rate-limit headers, the platform's error bodies and pagination, over a persistent world.
 */
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { readBody } from '@cloudcall/core/internal';
import { FileBody } from './http.js';
import { BODY_LIMIT } from './limits.js';
import {
  createResponder,
  type Exchange,
  errorBody,
  openStore,
  type SandboxControls,
  type SandboxCoreOptions,
  sandboxControls,
} from './respond.js';

export type { SandboxRequestInfo } from './respond.js';

export interface SandboxOptions extends SandboxCoreOptions {
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /**
   * How long the rest of a refused (413) body may keep coming before the sandbox answers and cuts
   * the sender off. Default 5 s; a test sending hundreds of MB on a busy machine may need longer.
   */
  refusedBodyLingerMs?: number;
}

/** The sandbox served over HTTP on loopback. */
export interface Sandbox extends SandboxControls {
  /** Base URL to give the API client, such as http://127.0.0.1:41234. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * How long the rest of a refused (413) body may keep coming. The 413 waits for the body to end:
 * node closes a `Connection: close` request's socket as soon as the answer is written, and closing
 * a socket with unread data makes the kernel reset the connection, which can destroy the answer
 * before the client reads it. A client still sending after this long gets the 413 and is cut off.
 */
const LINGER_MS = 5_000;

/** Starts the sandbox and resolves once it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const lingerMs = options.refusedBodyLingerMs ?? LINGER_MS;
  const store = await openStore(options);
  let baseUrl = '';
  const respond = createResponder(store, options, () => baseUrl);

  const onRequestEvent = (req: IncomingMessage, res: ServerResponse) =>
    respond(httpExchange(req, res, lingerMs));
  const server: Server = createServer(onRequestEvent);
  // Idle connections stay open longer than a client's keep-alive guess (undici takes the server's
  // hint less one second): a loaded machine could otherwise reuse a socket the server is closing,
  // and a request that is not repeated (a POST) would fail with ECONNRESET.
  server.keepAliveTimeout = 65_000;
  // Without this listener node answers `Expect: 100-continue` itself; with it, an oversized body
  // is refused before the client sends it.
  server.on('checkContinue', onRequestEvent);
  // App Platform's live log URLs are WebSockets (live-logs.ts, loaded by the first one).
  const streams = new Set<Duplex>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    const clock = options.now ?? Date.now;
    void import('./live-logs.js')
      .then(({ serveLiveLogs }) => serveLiveLogs(req, socket, store, clock, streams))
      .catch((error: unknown) => {
        options.log?.(`sandbox: live logs: ${error instanceof Error ? error.message : String(error)}`);
        socket.destroy();
      });
  });
  server.on('clientError', (error: NodeJS.ErrnoException & { reason?: string }, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, id] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'request_header_fields_too_large']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'request_timeout']
          : [400, 'bad_request'];
    const requestId = randomUUID();
    const text = JSON.stringify(
      errorBody(requestId, id, `The request is not valid HTTP: ${error.reason ?? error.message}.`),
    );
    options.log?.(`sandbox: unreadable request -> ${status} (${error.code ?? 'error'})`);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(text)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${text}`,
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  baseUrl = `http://${host}:${address.port}`;

  return {
    ...sandboxControls(store, options.now),
    url: baseUrl,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        // Upgraded sockets are no longer the server's connections: a stream still open ends here.
        for (const socket of streams) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * One HTTP request as the sandbox serves it. A body over the limit is refused before it is read
 * when its length says so, and before it is sent when the client waits for `100 Continue`.
 */
function httpExchange(req: IncomingMessage, res: ServerResponse, lingerMs: number): Exchange {
  const expectsContinue = /^100-continue$/i.test(req.headers.expect ?? '');
  let continued = false;
  return {
    method: req.method ?? 'GET',
    target: req.url ?? '',
    headers: req.headers,
    remoteAddress: req.socket.remoteAddress,
    async readBody() {
      if (Number(req.headers['content-length'] ?? 0) > BODY_LIMIT) return undefined;
      if (expectsContinue) {
        res.writeContinue();
        continued = true;
      }
      return readBody(req, BODY_LIMIT);
    },
    tooLarge(send, headers) {
      if (expectsContinue && !continued) {
        // The client waits for 100 Continue before sending the body: refuse now and close.
        headers.connection = 'close';
        send();
      } else {
        afterRestOfBody(req, headers, send, lingerMs);
      }
    },
    send: (status, body, headers) => send(res, status, body, headers),
    abort: () => res.destroy(),
  };
}

/**
 * Reads the rest of a refused body and drops it (never keeping any), then calls `answer`: once the
 * body ends, or after `lingerMs` (LINGER_MS by default) with `connection: close` for a client that is still sending.
 */
function afterRestOfBody(
  req: IncomingMessage,
  headers: Record<string, string>,
  answer: () => void,
  lingerMs: number,
): void {
  req.removeAllListeners('data');
  req.resume();
  if (req.complete) {
    answer();
    return;
  }
  const timer = setTimeout(() => {
    headers.connection = 'close';
    answer();
  }, lingerMs);
  const done = () => {
    clearTimeout(timer);
    answer();
  };
  // 'close' without 'end': the client went away; answering is then harmless and reports the request.
  req.once('end', done);
  req.once('close', done);
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  if (status === 204 || body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  if (body instanceof FileBody) {
    res.writeHead(status, {
      ...headers,
      'content-type': body.contentType,
      // The name is ours (ASCII, no quotes), so it needs no RFC 5987 encoding.
      'content-disposition': `attachment; filename="${body.filename}"`,
      'content-length': String(body.data.length),
    });
    res.end(body.data);
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}
