/**
 * How the sandbox answers one request, whatever carried it: HTTP on loopback (server.ts) or a
 * client in the same process (in-process.ts). Bearer auth, request ids, rate-limit headers,
 * faults, routing, the world's transactions and the platform's error bodies are all here, so the
 * two ways in answer alike; each transport only reads the request and sends the answer.
 */
import type { IncomingHttpHeaders } from 'node:http';
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

/** What the sandbox is, whichever way requests reach it. */
export interface SandboxCoreOptions {
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
   * Which bearer tokens are taken (default: any, as befits an offline stand-in). For tests whose
   * tokens come from a real authorization server: a token it refuses gets the platform's 401.
   */
  acceptToken?: (token: string) => boolean | Promise<boolean>;
}

/**
 * What every sandbox offers besides answering requests: its world, and the clock, faults and
 * request budget that tests set. All of it is kept in the world, so whichever process answers a
 * request on the same state file sees it.
 */
export interface SandboxControls {
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
}

/** One request as a transport hands it to the sandbox, and how to answer it. */
export interface Exchange {
  method: string;
  /** The request target exactly as received (path and query). */
  target: string;
  /** Names in lower case. */
  headers: IncomingHttpHeaders;
  /** Who sent it: requests without a token share one budget per address. */
  remoteAddress: string | undefined;
  /** The body, or undefined when it is larger than BODY_LIMIT (then `tooLarge` sends the 413). */
  readBody(): Promise<Buffer | undefined>;
  /**
   * Sends the 413 for a body over the limit with `send`, now or once the rest of the body has come
   * (it may add headers, such as `connection: close`, before sending).
   */
  tooLarge(send: () => void, headers: Record<string, string>): void;
  /** Sends the answer: a JSON value, a FileBody or nothing (undefined). */
  send(status: number, body: unknown, headers: Record<string, string>): void;
  /** Ends an exchange whose answer failed half-way (HTTP destroys the socket). */
  abort(): void;
}

/** Answers one exchange; never rejects (a failure is the platform's 500). */
export type Responder = (exchange: Exchange) => void;

/** The world of a sandbox, opened (the state file checked and created when missing). */
export async function openStore(options: SandboxCoreOptions): Promise<Store<World>> {
  const clock = options.now ?? Date.now;
  const store = new Store<World>({
    path: options.statePath,
    seed: () => seedWorld(clock()),
    upgrade: upgradeWorld,
  });
  await store.open();
  return store;
}

/** The controls of a sandbox over `store`. */
export function sandboxControls(store: Store<World>, now: () => number = Date.now): SandboxControls {
  return {
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
    setRateLimit: (setting) => store.write((world) => setRateLimit(world.faults, setting, now())),
  };
}

/**
 * The sandbox's answers over `store`. `baseUrl` gives the URL its answers' links start with (known
 * to a server only once it listens).
 */
export function createResponder(
  store: Store<World>,
  options: SandboxCoreOptions,
  baseUrl: () => string,
): Responder {
  const clock = options.now ?? Date.now;
  const router = sandboxRouter();
  const requestsByToken = new Map<string, { windowStart: number; count: number }>();

  async function handle(
    exchange: Exchange,
    requestId: string,
    headers: Record<string, string>,
    answer: (status: number, body: unknown, logged: string) => void,
  ): Promise<void> {
    const { method, target: raw } = exchange;
    const refuse = (error: HttpError, logged: string) =>
      answer(error.status, errorBody(requestId, error.id, error.message), logged);
    // Every request counts, refused ones included, and every answer tells the budget.
    const token = /^Bearer\s+(\S+)$/i.exec(exchange.headers.authorization ?? '')?.[1];
    // Unauthenticated requests share one budget per client address (a token never holds a space).
    const bucket = token ?? `anonymous ${exchange.remoteAddress ?? ''}`;
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

    const bytes = await exchange.readBody();
    if (bytes === undefined) {
      exchange.tooLarge(() => refuse(tooLarge(), path), headers);
      return;
    }

    // App Platform's log URLs carry a token of their own, not the API's (apps-logs.ts).
    if (path.startsWith('/sandbox/apps/')) {
      const logs = await import('./routes/apps-logs.js');
      if (logs.isLogPath(path)) {
        try {
          if (method !== 'GET' && method !== 'HEAD') {
            throw new HttpError(405, 'method_not_allowed', `${method} is not allowed on a log URL.`);
          }
          if (path.endsWith('/live')) {
            // Served as a WebSocket by the HTTP server (live-logs.ts); a plain GET cannot stream it.
            throw new HttpError(426, 'upgrade_required', 'A live log URL is read as a WebSocket.');
          }
          const { lines } = await store.read((world) =>
            logs.logLinesAt(world, path, query, clock() + world.clockOffsetMs),
          );
          const text = lines.map((line) => `${line.text}\n`).join('');
          const name = path.split('/').pop() ?? 'logs.log';
          answer(200, new FileBody('text/plain; charset=utf-8', name, Buffer.from(text)), path);
        } catch (error) {
          if (!(error instanceof HttpError)) throw error;
          refuse(error, path);
        }
        return;
      }
    }
    const body = bytes.toString('utf8');

    if (!token || (options.acceptToken && !(await options.acceptToken(token)))) {
      answer(401, errorBody(requestId, 'unauthorized', 'Unable to authenticate you.'), path);
      return;
    }

    let fault: FaultRule | undefined;
    try {
      fault = headerFault(exchange.headers[FAULT_HEADER]);
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
    // HEAD is a GET answered without its body (the transport leaves the body of a HEAD answer out).
    const reads = method === 'GET' || method === 'HEAD';
    const found = await router.resolve(method === 'HEAD' ? 'GET' : method, path);
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
          baseUrl: baseUrl(),
          path,
          headers: exchange.headers,
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

  return (exchange) => {
    const requestId = newRequestId();
    const { method, target } = exchange;
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
      exchange.send(status, body, headers);
    };
    handle(exchange, requestId, headers, answer).catch((error: unknown) => {
      options.log?.(`sandbox: internal error: ${error instanceof Error ? error.message : String(error)}`);
      if (!answered) {
        // A state file that cannot be used says which and why; anything else stays internal.
        const message = error instanceof StateFileError ? error.message : 'Internal sandbox error.';
        answer(500, errorBody(requestId, 'server_error', message), JSON.stringify(target));
      } else exchange.abort();
    });
  };
}

export function errorBody(requestId: string, id: string, message: string) {
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

/**
 * A request id in the platform's form, a version 4 UUID: unique, not secret, so drawn from
 * Math.random. node:crypto's randomUUID would load crypto (and Node's stream modules with it) for
 * every CLI command answered by the sandbox in process, which otherwise needs neither.
 */
export function newRequestId(): string {
  const hex = (digits: number) =>
    Math.floor(Math.random() * 16 ** digits)
      .toString(16)
      .padStart(digits, '0');
  const variant = (8 + Math.floor(Math.random() * 4)).toString(16);
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${variant}${hex(3)}-${hex(12)}`;
}
