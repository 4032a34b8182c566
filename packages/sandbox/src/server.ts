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
import {
  addRule,
  FAULT_HEADER,
  FaultHeaderError,
  type FaultRule,
  faultAnswer,
  headerFault,
  RATE_LIMIT,
  type RateLimitSetting,
  type RequestMatch,
  type SandboxFault,
  setRateLimit,
  takeFault,
} from './faults.js';
import { badRequest, FileBody, HttpError, type SandboxRequest } from './http.js';
import { BODY_LIMIT, checkFieldLimits } from './limits.js';
import { sandboxRouter } from './routes/index.js';
import { StateFileError, Store } from './store.js';
import { parseTarget } from './target.js';
import { seedWorld, upgradeWorld, type World } from './world.js';

/** What `SandboxOptions.onRequest` is told about each request. */
export interface SandboxRequestInfo {
  method: string;
  /** The request target exactly as received (path and query), before any parsing. */
  target: string;
  /** The status answered. */
  status: number;
  /**
   * The body answered, as the JSON value sent (undefined when none): for tests that validate every
   * answer a client receives. It holds what the answer holds, secrets included; never log it.
   */
  body: unknown;
}

export interface SandboxOptions {
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Save the world to this JSON file, shared with other processes using the same file. */
  statePath?: string | undefined;
  /** The real clock; tests may replace it. The world's own offset is added to it. */
  now?: () => number;
  /** Receives one line per request, without credentials. */
  log?: (line: string) => void;
  /**
   * Called once per request, just before the answer is sent (so a client that has its answer can
   * count on it), with the raw request target and the status. For tests that check what reaches
   * the API. A request the HTTP parser cannot read (raw control characters, say) is answered 400
   * without reaching it. An exception it throws is logged, not answered.
   */
  onRequest?: (info: SandboxRequestInfo) => void;
  /**
   * How long the rest of a refused (413) body may keep coming before the sandbox answers and cuts
   * the sender off. Default 5 s; a test sending hundreds of MB on a busy machine may need longer.
   */
  refusedBodyLingerMs?: number;
}

export interface Sandbox {
  /** Base URL to give the API client, such as http://127.0.0.1:41234. */
  url: string;
  port: number;
  store: Store<World>;
  /** Moves the sandbox clock forward (persisted: other processes see it too). */
  advanceClock(ms: number): Promise<void>;
  /**
   * Answers the next `times` (default 1) matching requests with a fault instead of serving them:
   * a 429 by default, with the platform's error body, `Retry-After` when given and an empty
   * request budget. Persisted like the clock, so whichever process on the same state file
   * answers the request meets the fault, once. Resolves to the rule's id (see `matchedRequests`).
   * A single request can also ask for a fault itself with the `x-sandbox-fault` header
   * (`429` or `503; retry-after=2`). With `afterServing`, the request is served first and its
   * answer replaced by the fault (a change made whose answer was lost).
   */
  injectFault(fault: SandboxFault): Promise<number>;
  /** Counts matching requests without answering any fault; resolves to the rule's id. */
  watchRequests(match: RequestMatch): Promise<number>;
  /** Requests that matched a rule (of injectFault or watchRequests) since it was set, in any process. */
  matchedRequests(id: number): Promise<number>;
  /** Removes every rule. */
  clearFaults(): Promise<void>;
  /**
   * Reports this request budget (`ratelimit-*` headers) on every answer instead of the counted
   * one, in every process on the state file, until called with undefined.
   */
  setRateLimit(setting: RateLimitSetting | undefined): Promise<void>;
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
  const clock = options.now ?? Date.now;
  const lingerMs = options.refusedBodyLingerMs ?? LINGER_MS;
  const store = new Store<World>({
    path: options.statePath,
    seed: () => seedWorld(clock()),
    upgrade: upgradeWorld,
  });
  await store.open();
  const router = sandboxRouter();
  const requestsByToken = new Map<string, { windowStart: number; count: number }>();
  let baseUrl = '';

  const server: Server = createServer(onRequestEvent);
  // Idle connections stay open longer than a client's keep-alive guess (undici takes the server's
  // hint less one second): a loaded machine could otherwise reuse a socket the server is closing,
  // and a request that is not repeated (a POST) would fail with ECONNRESET.
  server.keepAliveTimeout = 65_000;
  // Without this listener node answers `Expect: 100-continue` itself; with it, an oversized body
  // is refused before the client sends it.
  server.on('checkContinue', onRequestEvent);
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

  function onRequestEvent(req: IncomingMessage, res: ServerResponse): void {
    const requestId = randomUUID();
    const method = req.method ?? 'GET';
    const target = req.url ?? '';
    // Filled in by `handle` as it goes, so that a 500 still carries the request id and rate limits.
    const headers: Record<string, string> = { 'x-request-id': requestId };
    let answered = false;
    const answer = (status: number, body: unknown, logged: string) => {
      if (answered) return;
      answered = true;
      options.log?.(`sandbox: ${method} ${logged} -> ${status}`);
      try {
        options.onRequest?.({ method, target, status, body });
      } catch (error) {
        options.log?.(`sandbox: onRequest threw: ${error instanceof Error ? error.message : String(error)}`);
      }
      send(res, status, body, headers);
    };
    handle(req, res, requestId, headers, answer).catch((error: unknown) => {
      options.log?.(`sandbox: internal error: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) {
        // A state file that cannot be used says which and why; anything else stays internal.
        const message = error instanceof StateFileError ? error.message : 'Internal sandbox error.';
        answer(500, errorBody(requestId, 'server_error', message), JSON.stringify(target));
      } else res.destroy();
    });
  }

  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    headers: Record<string, string>,
    answer: (status: number, body: unknown, logged: string) => void,
  ): Promise<void> {
    const method = req.method ?? 'GET';
    const raw = req.url ?? '';
    const refuse = (error: HttpError, logged: string) =>
      answer(error.status, errorBody(requestId, error.id, error.message), logged);
    // Every request counts, refused ones included, and every answer tells the budget.
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    // Unauthenticated requests share one budget per client address (a token never holds a space).
    const bucket = token ?? `anonymous ${req.socket.remoteAddress ?? ''}`;
    Object.assign(headers, rateLimitHeaders(requestsByToken, bucket, clock()));

    let path: string;
    let query: URLSearchParams;
    try {
      ({ path, query } = parseTarget(raw));
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      // Quoted: a refused target may hold what a log line should not.
      refuse(error, JSON.stringify(raw.length > 200 ? `${raw.slice(0, 200)}...` : raw));
      return;
    }

    const expectsContinue = /^100-continue$/i.test(req.headers.expect ?? '');
    const tooLargeAnswer = () => refuse(tooLarge(), path);
    if (Number(req.headers['content-length'] ?? 0) > BODY_LIMIT) {
      if (expectsContinue) {
        // The client waits for 100 Continue before sending the body: refuse now and close.
        headers.connection = 'close';
        tooLargeAnswer();
      } else {
        afterRestOfBody(req, headers, tooLargeAnswer, lingerMs);
      }
      return;
    }
    if (expectsContinue) res.writeContinue();
    const bytes = await readBody(req, BODY_LIMIT);
    if (bytes === undefined) {
      afterRestOfBody(req, headers, tooLargeAnswer, lingerMs);
      return;
    }
    const body = bytes.toString('utf8');

    if (!token) {
      answer(401, errorBody(requestId, 'unauthorized', 'Unable to authenticate you.'), path);
      return;
    }

    let fault: FaultRule | undefined;
    try {
      fault = headerFault(req.headers[FAULT_HEADER]);
    } catch (error) {
      if (!(error instanceof FaultHeaderError)) throw error;
      refuse(badRequest(error.message), path);
      return;
    }
    fault ??= await takeFault(store, method, path);
    const budget = await store.read((world) => world.faults.rateLimit);
    if (budget) {
      headers['ratelimit-limit'] = String(budget.limit);
      headers['ratelimit-remaining'] = String(budget.remaining);
      headers['ratelimit-reset'] = String(budget.reset);
    }
    if (fault && !fault.afterServing) {
      const faulted = faultAnswer(fault, requestId, clock(), headers);
      Object.assign(headers, faulted.headers);
      answer(faulted.status, faulted.body, raw);
      return;
    }

    let status = 404;
    let replyBody: unknown;
    // HEAD is a GET answered without its body (Node leaves the body of a HEAD answer out).
    const reads = method === 'GET' || method === 'HEAD';
    const found = router.match(method === 'HEAD' ? 'GET' : method, path);
    if (!found.route && !found.pathKnown) {
      // A path that is no operation of the platform (each one has a route, hand or generic): a 404
      // as the platform's, saying so.
      replyBody = errorBody(
        requestId,
        'not_found',
        `The resource you were accessing could not be found: the sandbox does not emulate ${method} ${path}.`,
      );
    } else if (!found.route) {
      status = 405;
      replyBody = errorBody(requestId, 'method_not_allowed', `${method} is not allowed on ${path}.`);
    } else {
      const { route, params } = found;
      try {
        const parsed = parseBody(body);
        checkFieldLimits(parsed, { lengths: route.operationId === undefined && !route.ownLengths });
        const request: Omit<SandboxRequest, 'now'> = {
          method,
          params,
          query,
          body: parsed,
          baseUrl,
          path,
          headers: req.headers,
        };
        const { prepare } = route;
        const prepared = prepare
          ? await store.read((world) => prepare({ ...request, now: clock() + world.clockOffsetMs }, world))
          : undefined;
        const run = (world: World) =>
          route.handler({ ...request, now: clock() + world.clockOffsetMs, prepared }, world);
        const reply = reads ? await store.read(run) : await store.write(run);
        status = reply.status ?? 200;
        replyBody = reply.body;
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        status = error.status;
        replyBody = { ...errorBody(requestId, error.id, error.message), ...error.extra };
      }
    }
    if (fault) {
      // Served, and its answer lost: the fault goes back instead.
      const faulted = faultAnswer(fault, requestId, clock(), headers);
      Object.assign(headers, faulted.headers);
      answer(faulted.status, faulted.body, raw);
      return;
    }
    answer(status, replyBody, raw);
  }

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
    url: baseUrl,
    port: address.port,
    store,
    advanceClock: (ms: number) =>
      store.write((world) => {
        world.clockOffsetMs += ms;
      }),
    injectFault: (fault) => store.write((world) => addRule(world.faults, fault)),
    watchRequests: (match) => store.write((world) => addRule(world.faults, { ...match, times: 0 })),
    matchedRequests: (id) =>
      store.read((world) => world.faults.rules.find((rule) => rule.id === id)?.matched ?? 0),
    clearFaults: () =>
      store.write((world) => {
        world.faults.rules = [];
      }),
    setRateLimit: (setting) => store.write((world) => setRateLimit(world.faults, setting, clock())),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function errorBody(requestId: string, id: string, message: string) {
  return { id, message, request_id: requestId };
}

function tooLarge(): HttpError {
  return new HttpError(
    413,
    // The platform's ids are the status's reason phrase in snake case (404 not_found...).
    'payload_too_large',
    `The request body is larger than ${BODY_LIMIT} bytes (1 MiB), the most the sandbox accepts.`,
  );
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

function parseBody(raw: string): Record<string, unknown> {
  if (raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw badRequest('The request body is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw badRequest('The request body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}

/** The platform's hourly request budget per token, told in `ratelimit-*` headers. */
function rateLimitHeaders(
  counts: Map<string, { windowStart: number; count: number }>,
  token: string,
  now: number,
): Record<string, string> {
  const hour = 3_600_000;
  let entry = counts.get(token);
  if (!entry || now - entry.windowStart >= hour) {
    entry = { windowStart: now, count: 0 };
    counts.set(token, entry);
  }
  entry.count++;
  return {
    'ratelimit-limit': String(RATE_LIMIT),
    'ratelimit-remaining': String(Math.max(0, RATE_LIMIT - entry.count)),
    'ratelimit-reset': String(Math.ceil((entry.windowStart + hour) / 1000)),
  };
}
