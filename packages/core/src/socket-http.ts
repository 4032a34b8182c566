/**
 * The client's `transport: 'socket'`: each request written as HTTP/1.1 on a kept-alive `node:net`
 * (or, for an https origin, `node:tls`) socket, its answer read with http-parser-js, one request
 * at a time on each connection. For a process that is one client sending request after request
 * (the stdio MCP server): Node's http module builds a request object, an answer stream and their
 * listeners for every request, which costs a call about a third of its processor time while V8
 * has not yet optimised that code (docs/benchmark.md, eighth pass); here a request is one write
 * and its answer the parser's callbacks.
 *
 * It takes the client's attempts as undici's `dispatch` does (the attempt is the handler: no
 * promise, stream or listener of its own per request), and holds to what the client asks of any
 * dispatcher: an aborted attempt ends at once, a connection not made in time fails with the code
 * the client knows a connect timeout by, a connection that closes before its answer is complete
 * fails with ECONNRESET, and `close` ends every connection.
 */
import type { Socket } from 'node:net';
import { HTTPParser } from 'http-parser-js';
import type { Dispatcher } from 'undici';
import type { DispatchRequest, DispatchResponse, RequestDispatcher } from './client.js';

/** The code undici gives a connection not made in time: the client's name for it (retry.ts). */
const CONNECT_TIMEOUT = 'UND_ERR_CONNECT_TIMEOUT';

/** What a request needs besides its signal: the client's attempt when it goes through `dispatch`. */
export type SocketRequest = Omit<DispatchRequest, 'signal'>;

export interface SocketDispatcher extends RequestDispatcher {
  /** Sends `request`, telling `handler` of its answer as undici's dispatch does. */
  dispatch(request: SocketRequest, handler: Dispatcher.DispatchHandler): boolean;
  /** Closes every connection; requests waiting for one fail. */
  close(): Promise<void>;
}

/**
 * How long a connection is kept idle at the most, as the `pool` transport keeps undici's; less when
 * the server's `Keep-Alive: timeout=N` says it closes sooner (a second before it does). A request
 * written on a connection the server is closing could not be known unsent: a POST would fail.
 */
const IDLE_MS = 30_000;

/** A header value or path that would end its line early (CR, LF, NUL): refused, never sent. */
const LINE_BREAKING = /[\r\n\0]/;
/** What Node's http module refuses in a request's path: anything but visible Latin-1. */
const BAD_PATH = /[^\u0021-\u00ff]/;

/**
 * One request on its way: what it sends, who hears its answer, and the controller that handler
 * gets (`abort` stops the request). One object a request, its methods shared.
 */
class Exchange implements Dispatcher.DispatchController {
  aborted = false;
  reason: Error | null = null;
  readonly paused = false;
  /** Set once the handler has heard the end or an error: nothing more is told. */
  done = false;
  /** The status of the answer being read, 0 while none (an informational 1xx is not one). */
  status = 0;
  /** The connection reading its answer, once it has one. */
  connection: Connection | undefined;
  head = '';

  constructor(
    readonly body: string | undefined,
    readonly handler: Dispatcher.DispatchHandler,
    /** An answer to HEAD has no body, whatever its content-length says. */
    readonly headOnly: boolean,
    private readonly stop: (exchange: Exchange, reason: Error) => void,
  ) {}

  abort(reason: Error): void {
    if (this.aborted || this.done) return;
    this.aborted = true;
    this.reason = reason;
    this.stop(this, reason ?? new Error('The request was aborted.'));
  }

  pause(): void {}

  resume(): void {}

  /** Tells the handler of the end (no error) or of `error`, once. */
  finish(error?: unknown): void {
    if (this.done) return;
    this.done = true;
    if (error === undefined) this.handler.onResponseEnd?.(this, {});
    else this.handler.onResponseError?.(this, error as Error);
  }
}

/** A connection and its parser, with the exchange it is reading the answer to. */
interface Connection {
  socket: Socket;
  parser: InstanceType<typeof HTTPParser>;
  current: Exchange | undefined;
  /** Whether the answer being read lets the connection serve the next request. */
  keepAlive: boolean;
  /** How long it may wait idle after this answer (see IDLE_MS). */
  idleMs: number;
  /** Ends it once it has been idle for idleMs. */
  idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** The timer that fails the connection if it is not made in time. */
  connecting: ReturnType<typeof setTimeout>;
  /** The exchange whose answer the parser has just read whole, told once the parser returns. */
  answered: Exchange | undefined;
  /** The server sent an answer nobody asked for: the connection is not to be trusted. */
  unasked: boolean;
}

/**
 * A dispatcher to `origin` over plain sockets: `connections` at most (16 by default), kept alive
 * between requests; a request waits for one when all are busy. Only the module the origin needs
 * loads (`node:tls` for https).
 */
export async function socketDispatcher(
  origin: string,
  options: { connections?: number | undefined; connectTimeoutMs?: number | undefined } = {},
): Promise<SocketDispatcher> {
  const url = new URL(origin);
  const secure = url.protocol === 'https:';
  const net = await import('node:net');
  const tls = secure ? await import('node:tls') : undefined;
  // `[::1]` in a URL is `::1` to the resolver.
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || (secure ? 443 : 80));
  const hostHeader = url.host;
  const maxConnections = options.connections ?? 16;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const idle: Connection[] = [];
  const open = new Set<Connection>();
  const queue: Exchange[] = [];
  let closed = false;

  /** Ends a connection; the exchange it was answering, if any, fails with `error`. */
  const drop = (connection: Connection, error: Error) => {
    open.delete(connection);
    const at = idle.indexOf(connection);
    if (at !== -1) idle.splice(at, 1);
    const { current } = connection;
    connection.current = undefined;
    clearTimeout(connection.connecting);
    clearTimeout(connection.idleTimer);
    connection.socket.destroy();
    current?.finish(error);
    next();
  };

  const connect = (): Connection => {
    const socket: Socket = tls
      ? tls.connect({
          host: hostname,
          port,
          // SNI takes a name, never an address.
          servername: net.isIP(hostname) ? undefined : hostname,
          ALPNProtocols: ['http/1.1'],
        })
      : net.connect({ host: hostname, port });
    socket.setNoDelay(true);
    const parser = new HTTPParser(HTTPParser.RESPONSE);
    // A connection must be made in time (its TLS handshake included).
    const connecting = setTimeout(() => {
      const error = new Error(`Connect Timeout Error (attempted ${origin}, timeout ${connectTimeoutMs} ms)`);
      drop(connection, Object.assign(error, { code: CONNECT_TIMEOUT }));
    }, connectTimeoutMs);
    const connection: Connection = {
      socket,
      parser,
      current: undefined,
      keepAlive: false,
      idleMs: IDLE_MS,
      idleTimer: undefined,
      connecting,
      answered: undefined,
      unasked: false,
    };
    open.add(connection);
    socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connecting));
    parser[HTTPParser.kOnHeadersComplete] = (info) => {
      const exchange = connection.current;
      if (!exchange) {
        connection.unasked = true;
        return 1;
      }
      // An informational answer (1xx) comes before the real one, which the parser reads next.
      if (info.statusCode < 200) return;
      exchange.status = info.statusCode;
      connection.keepAlive = info.shouldKeepAlive;
      connection.idleMs = idleFor(info.headers);
      if (connection.idleMs <= 0) connection.keepAlive = false;
      if (!exchange.done)
        exchange.handler.onResponseStart?.(
          exchange,
          info.statusCode,
          headerObject(info.headers),
          info.statusMessage,
        );
      return exchange.headOnly ? 1 : undefined;
    };
    parser[HTTPParser.kOnBody] = (chunk, offset, length) => {
      const exchange = connection.current;
      if (exchange && !exchange.done)
        exchange.handler.onResponseData?.(exchange, chunk.subarray(offset, offset + length));
    };
    parser[HTTPParser.kOnMessageComplete] = () => {
      const exchange = connection.current;
      if (!exchange || exchange.status === 0) return; // the end of a 1xx, or of an unasked answer
      // Told once the parser has read the rest of what came: more bytes after the answer would
      // belong to no request, and must not reach the next one sent on this connection.
      connection.current = undefined;
      connection.answered = exchange;
    };
    socket.on('data', (chunk: Buffer) => {
      if (!connection.current) {
        // Bytes nobody asked for: the connection cannot be trusted with another request.
        drop(connection, closedEarly());
        return;
      }
      const parsed = connection.parser.execute(chunk);
      answered(connection, parsed instanceof Error ? parsed : undefined);
    });
    socket.on('end', () => {
      // An answer without a length ends with its connection.
      if (connection.current) connection.parser.finish();
      answered(connection, undefined);
      drop(connection, closedEarly());
    });
    socket.on('error', (error) => drop(connection, error));
    socket.on('close', () => drop(connection, closedEarly()));
    return connection;
  };

  /**
   * After the parser has read what came: the answer it completed goes to its handler, and the
   * connection serves the next request, unless it is to close (its answer said so, a parse
   * error, bytes nobody asked for), when it is dropped.
   */
  const answered = (connection: Connection, error: Error | undefined) => {
    const exchange = connection.answered;
    connection.answered = undefined;
    if (error || connection.unasked) {
      drop(connection, error ?? closedEarly());
    } else if (exchange) {
      if (connection.keepAlive && !closed) {
        idle.push(connection);
        connection.idleTimer = setTimeout(() => {
          const at = idle.indexOf(connection);
          if (at === -1) return;
          idle.splice(at, 1);
          open.delete(connection);
          connection.socket.destroy();
        }, connection.idleMs);
        // An idle connection keeps no process alive.
        connection.idleTimer.unref();
      } else {
        open.delete(connection);
        connection.socket.end();
      }
    }
    if (exchange) {
      exchange.connection = undefined;
      exchange.finish();
      next();
    }
  };

  /** Sends the next waiting request on a free connection, or a new one. */
  const next = () => {
    while (queue.length && !closed) {
      // A request stopped while it waited is not sent.
      if ((queue[0] as Exchange).done) {
        queue.shift();
        continue;
      }
      let connection = idle.pop();
      if (connection) clearTimeout(connection.idleTimer);
      else {
        if (open.size >= maxConnections) return;
        connection = connect();
      }
      send(connection, queue.shift() as Exchange);
    }
  };

  const send = (connection: Connection, exchange: Exchange) => {
    connection.current = exchange;
    exchange.connection = connection;
    connection.keepAlive = false;
    connection.parser.reinitialize(HTTPParser.RESPONSE);
    connection.socket.write(exchange.body === undefined ? exchange.head : exchange.head + exchange.body);
  };

  /** An exchange stopped before its answer is in: its connection, mid-answer, serves no other. */
  const stop = (exchange: Exchange, reason: Error) => {
    const { connection } = exchange;
    exchange.finish(reason);
    if (connection) drop(connection, closedEarly());
  };

  const dispatch = (request: SocketRequest, handler: Dispatcher.DispatchHandler): boolean => {
    const exchange = new Exchange(request.body, handler, request.method === 'HEAD', stop);
    handler.onRequestStart?.(exchange, {});
    if (exchange.done) return true;
    if (closed) {
      exchange.finish(closedError());
      return true;
    }
    try {
      exchange.head = requestHead(request, hostHeader);
    } catch (error) {
      exchange.finish(error);
      return true;
    }
    queue.push(exchange);
    next();
    return true;
  };

  return {
    dispatch,
    request: (request) => requestThrough(dispatch, request),
    close: async () => {
      closed = true;
      for (const connection of [...open]) drop(connection, closedError());
      for (const exchange of queue.splice(0)) exchange.finish(closedError());
    },
  };
}

/** The request line and headers, as Node's http module would refuse or send them. */
function requestHead(request: SocketRequest, host: string): string {
  if (BAD_PATH.test(request.path)) {
    throw Object.assign(new TypeError('Request path contains unescaped characters'), {
      code: 'ERR_UNESCAPED_CHARACTERS',
    });
  }
  let head = `${request.method} ${request.path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const name in request.headers) {
    const value = request.headers[name] as string;
    if (LINE_BREAKING.test(name) || LINE_BREAKING.test(value)) {
      // The value is never shown: it may be the token.
      throw Object.assign(new TypeError(`Invalid character in header content ["${name}"]`), {
        code: 'ERR_INVALID_CHAR',
      });
    }
    head += `${name}: ${value}\r\n`;
  }
  const { body, method } = request;
  if (body !== undefined) head += `content-length: ${Buffer.byteLength(body)}\r\n`;
  else if (method === 'POST' || method === 'PUT' || method === 'PATCH') head += 'content-length: 0\r\n';
  return `${head}\r\n`;
}

/** How long a connection may wait idle after an answer with these headers (IDLE_MS, or less). */
function idleFor(list: string[]): number {
  for (let i = 0; i < list.length; i += 2) {
    if ((list[i] as string).toLowerCase() !== 'keep-alive') continue;
    const seconds = /(?:^|[\s,])timeout\s*=\s*(\d+)/i.exec(list[i + 1] as string)?.[1];
    if (seconds !== undefined) return Math.min(IDLE_MS, Number(seconds) * 1000 - 1000);
  }
  return IDLE_MS;
}

/** The parser's flat list of names and values as an object of lower-case names, as undici gives. */
function headerObject(list: string[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (let i = 0; i < list.length; i += 2) {
    const name = (list[i] as string).toLowerCase();
    const value = list[i + 1] as string;
    const seen = headers[name];
    if (seen === undefined) headers[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else headers[name] = [seen, value];
  }
  return headers;
}

function closedEarly(): Error {
  return Object.assign(new Error('other side closed'), { code: 'ECONNRESET' });
}

function closedError(): Error {
  return Object.assign(new Error('The client is closed.'), { code: 'UND_ERR_DESTROYED' });
}

/**
 * `request` (the client's other way in, with a signal) over `dispatch`: the answer read whole,
 * the signal's abort ending the request.
 */
function requestThrough(
  dispatch: SocketDispatcher['dispatch'],
  request: DispatchRequest,
): Promise<DispatchResponse> {
  return new Promise((resolve, reject) => {
    const { signal, ...rest } = request;
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    let statusCode = 0;
    let headers: DispatchResponse['headers'] = {};
    const chunks: Buffer[] = [];
    let controller: Dispatcher.DispatchController | undefined;
    const onAbort = () => controller?.abort(signal.reason as Error);
    signal.once('abort', onAbort);
    dispatch(rest, {
      onRequestStart(started) {
        controller = started;
      },
      onResponseStart(_controller, status, answerHeaders) {
        statusCode = status;
        headers = answerHeaders as DispatchResponse['headers'];
      },
      onResponseData(_controller, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        signal.off('abort', onAbort);
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ statusCode, headers, body: { text: async () => text } });
      },
      onResponseError(_controller, error) {
        signal.off('abort', onAbort);
        reject(signal.aborted ? signal.reason : error);
      },
    });
  });
}
