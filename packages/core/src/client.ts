/**
 * The API client: undici with a keep-alive pool per base URL (or Node's own http modules, or any
 * dispatcher given), bearer auth, JSON bodies, timeouts, cancellation, retries with full-jitter
 * backoff, and one error type per failure kind.
 */
import { createRequire } from 'node:module';
import type { Dispatcher } from 'undici';
import {
  ApiError,
  CancelledError,
  InputError,
  NetworkError,
  redact,
  TimeoutError,
  UnexpectedResponseError,
} from './errors.js';
import { type RateLimit, rateLimitFromHeaders } from './rate-limit.js';
import {
  backoffDelay,
  defaultRetryOptions,
  IDEMPOTENT_METHODS,
  NOT_SENT_CODES,
  parseRetryAfter,
  RETRYABLE_STATUSES,
  type RetryOptions,
  realClock,
  type ToolClock,
} from './retry.js';

export { DEFAULT_BASE_URL } from './credentials.js';

import { DEFAULT_BASE_URL } from './credentials.js';
import { depthOf } from './depth.js';

/** This package's version, sent in the User-Agent. */
export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string })
  .version;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
export type QueryValue = string | number | boolean | undefined;

export interface ClientOptions {
  /** A personal access token. Sent only in the Authorization header; never logged or echoed. */
  token: string;
  /** The API origin (and optional path prefix). Default: https://api.digitalocean.com. */
  baseUrl?: string;
  /** Connections kept open to the API at most (the client's own pool). Default 16. */
  connections?: number;
  /**
   * What sends the client's requests when no `dispatcher` is given. `pool` (the default): undici's
   * keep-alive pool, for a process that sends many requests, such as a server. `node`: Node's own
   * http and https modules (keep-alive too), for a process that sends a few and exits, such as a
   * CLI command: they load in a fraction of undici's time. `socket`: HTTP/1.1 written on kept-alive
   * sockets and read with http-parser-js, for a process that is one client sending request after
   * request from its start, such as the stdio MCP server: it loads as quickly as `node`, and a
   * request costs far less processor time before V8 has optimised the code it runs. Retries,
   * timeouts, cancellation and errors are the same every way.
   */
  transport?: 'pool' | 'node' | 'socket';
  /** Milliseconds to establish a connection. Default 10 s. */
  connectTimeoutMs?: number;
  /** Milliseconds one attempt may take, from sending to the last byte of the body. Default 30 s. */
  responseTimeoutMs?: number;
  retry?: Partial<RetryOptions>;
  /** Words appended to `cloudcall/<version>` in the User-Agent, such as `cli/0.1.0`. */
  userAgentSuffix?: string;
  /**
   * What to send through instead of the client's own pool: an undici Dispatcher (tests use
   * undici's MockAgent), or anything else with its `request` (the sandbox answers in process).
   */
  dispatcher?: RequestDispatcher;
  /** Receives one event per attempt; handy for debug logs. Events carry no credentials. */
  onEvent?: (event: ClientEvent) => void;
  /**
   * The time deadlines are counted in and retry waits pass by (real time when absent): tests pass
   * one whose sleep returns at once, so backoff and `Retry-After` take no wall-clock time. Each
   * attempt's response timeout is a real timer, since it bounds real I/O.
   */
  clock?: ToolClock;
}

/**
 * What one call's client does around its requests (see `ApiClient.forCall`): the tool contract
 * keeps a read-only tool to reads, and the guard stands before every mutating request.
 */
export interface CallHooks {
  /** A read-only tool's name: the client refuses any request but GET or HEAD, sending nothing. */
  readOnly?: string;
  /**
   * Runs before each mutating request (any method but GET and HEAD) is sent, once per request
   * whatever its retries; throwing stops the request, which is then never sent.
   */
  beforeMutation?: (request: RequestOptions) => Promise<void> | void;
  /** Runs when a mutating request is over: its answer, or the error it ended with. */
  afterMutation?: (
    request: RequestOptions,
    outcome: { response: ApiResponse<unknown> } | { error: unknown },
  ) => void;
}

/** A read-only tool tried to send a request that changes something; it was not sent. */
export class ReadOnlyViolationError extends Error {
  override name = 'ReadOnlyViolationError';
  constructor(
    readonly tool: string,
    readonly method: string,
    readonly path: string,
  ) {
    super(`${tool} is a read-only tool but tried to send ${method} ${path}; it was not sent`);
  }
}

/**
 * What the client tells `onEvent`. `path` is below the base URL; `target` adds the query string.
 * A request's `body` is the value sent as JSON, for a tracer to show with its secrets masked
 * (`traceLine`); the token is in no event.
 */
export type ClientEvent =
  | { type: 'request'; method: string; path: string; target: string; attempt: number; body?: unknown }
  | {
      type: 'response';
      method: string;
      path: string;
      target: string;
      status: number;
      attempt: number;
      ms: number;
      rateLimit: RateLimit | undefined;
      requestId: string | undefined;
    }
  | { type: 'retry'; method: string; path: string; attempt: number; delayMs: number; reason: string };

export interface RequestOptions {
  method: HttpMethod;
  /** Path below the base URL, starting with `/v2/`. */
  path: string;
  query?: Record<string, QueryValue>;
  /** Sent as JSON when defined. */
  body?: unknown;
  signal?: AbortSignal | undefined;
  /**
   * When the call must be over, in milliseconds since the epoch on the client's clock: no retry waits past it (a
   * `Retry-After` that does not fit ends the call with the 429). The client's own deadline
   * (`retry.deadlineMs`) still applies when it is earlier.
   */
  deadline?: number | undefined;
  /**
   * The operation answers a success with no body (the API description says so): an empty 2xx is
   * then "no content". Otherwise only a 204 may be empty, and anything but JSON is an error.
   */
  noResponseBody?: boolean;
  /**
   * The operation answers text, not JSON (a cluster's kubeconfig, YAML): a 2xx body is answered
   * as the text it is. Errors are still read as the platform's JSON errors.
   */
  responseText?: boolean;
}

export interface ApiResponse<T> {
  status: number;
  /** Parsed JSON body; undefined for an empty body (such as 204 No Content). */
  data: T;
  /**
   * A DELETE whose earlier attempt failed (a 503, a lost connection) and whose retry found the
   * resource already gone (404): it is gone as asked, so this is a success with no body.
   */
  alreadyGone?: true;
  requestId: string | undefined;
  rateLimit: RateLimit | undefined;
}

/**
 * What the client sends each attempt through: the `request` of an undici Dispatcher, as the client
 * calls it. undici's own dispatchers (a Pool, an Agent, a MockAgent) have it; so can a transport
 * that answers without a network (the sandbox's in-process one). Handing the request to a
 * transport is all it does: retries, timeouts and errors stay the client's.
 */
export interface RequestDispatcher {
  request(options: DispatchRequest): Promise<DispatchResponse>;
}

/** One attempt, as the client hands it to its dispatcher. */
export interface DispatchRequest {
  origin: string;
  /** The path below the origin, with the base URL's prefix and the query string. */
  path: string;
  method: HttpMethod;
  /** Lower-case names. Holds the token (`authorization`): never log it. */
  headers: Record<string, string>;
  /** The JSON text sent, when there is a body. */
  body: string | undefined;
  /** Ends the attempt (its timeout, or the caller's cancel): `aborted` is then true. */
  signal: AttemptSignal;
  headersTimeout: number;
  bodyTimeout: number;
}

/** The answer to one attempt: what the client reads of undici's `ResponseData`. */
export interface DispatchResponse {
  statusCode: number;
  /** Lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  body: { text(): Promise<string> };
}

/**
 * What ends one attempt, for a transport that takes a `request` (Node's http, the in-process
 * sandbox): `abort` is emitted once, with `aborted` then true and `reason` why. An EventEmitter
 * fits; the client's own is lighter.
 */
export interface AttemptSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  once(event: 'abort', listener: () => void): unknown;
  off(event: 'abort', listener: () => void): unknown;
}

/** One attempt's answer, read whole. */
interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as UTF-8 text, a byte-order mark left out. */
  text: string;
}

/**
 * One attempt: sent with undici's `dispatch`, its answer read whole into `answer`, as undici's
 * `request` and then `body.text()` would read it (the same parsed headers, the same text), but
 * without the web of objects `request` makes for every request (an async resource, a readable
 * stream for the body, a promise for each step) that a body of a few hundred bytes does not need.
 *
 * It is also what stops the attempt (its timeout, or the caller's cancel): `abort` ends it with
 * that reason, before or after its answer has started, as undici's `request` ends one whose
 * `signal` aborts.
 */
class Attempt implements Dispatcher.DispatchHandler, AttemptSignal {
  aborted = false;
  reason: unknown;
  /** Who waits for `abort`: a transport that takes a `request` (none with undici's dispatch). */
  private listeners: (() => void)[] | undefined;
  readonly answer: Promise<Answer>;
  private settle!: { resolve(answer: Answer): void; reject(error: unknown): void };
  private controller: Dispatcher.DispatchController | undefined;
  private statusCode = 0;
  private headers: Answer['headers'] = {};
  private chunks: Buffer[] = [];
  private length = 0;

  constructor() {
    this.answer = new Promise<Answer>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason as Error);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  once(_event: 'abort', listener: () => void): this {
    this.listeners ??= [];
    this.listeners.push(listener);
    return this;
  }

  off(_event: 'abort', listener: () => void): this {
    const at = this.listeners?.indexOf(listener) ?? -1;
    if (at >= 0) this.listeners?.splice(at, 1);
    return this;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.aborted) controller.abort(this.reason as Error);
    else this.controller = controller;
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Answer['headers'],
  ): void {
    // An informational answer (1xx) comes before the real one.
    if (statusCode < 200) return;
    this.statusCode = statusCode;
    this.headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  onResponseEnd(): void {
    this.controller = undefined;
    const { chunks, length } = this;
    const whole = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
    // As undici's body.text(): a UTF-8 byte-order mark is not part of the text.
    const start = length > 2 && whole[0] === 0xef && whole[1] === 0xbb && whole[2] === 0xbf ? 3 : 0;
    this.settle.resolve({
      statusCode: this.statusCode,
      headers: this.headers,
      text: length ? whole.toString('utf8', start, length) : '',
    });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.controller = undefined;
    this.settle.reject(error);
  }
}

/**
 * Sends one attempt: with undici's `dispatch` where the dispatcher has it (a Pool, an Agent, a
 * MockAgent), else through its `request`, the attempt as its signal.
 */
function sendAttempt(
  dispatcher: RequestDispatcher,
  request: Omit<DispatchRequest, 'signal'>,
  attempt: Attempt,
): Promise<Answer> {
  const undici = dispatcher as RequestDispatcher & Partial<Pick<Dispatcher, 'dispatch'>>;
  if (typeof undici.dispatch === 'function') {
    undici.dispatch(request, attempt);
    return attempt.answer;
  }
  return dispatcher.request({ ...request, signal: attempt }).then(async (response) => ({
    statusCode: response.statusCode,
    headers: response.headers,
    text: await response.body.text(),
  }));
}

/** An attempt's timer: stops it with a timeout (module-level, so no closure per attempt). */
function timeUp(attempt: Attempt, timeout: number): void {
  attempt.abort(new Error(`no complete response within ${timeout} ms`));
}

export class ApiClient {
  readonly baseUrl: string;
  readonly userAgent: string;
  private readonly origin: string;
  private readonly prefix: string;
  private readonly token: string;
  /** Everything that must never reach an error, a log or a result: the token, URL credentials. */
  private readonly secrets: string[];
  private readonly retry: RetryOptions;
  private readonly responseTimeoutMs: number;
  private readonly connection: Connection;
  private readonly ownsDispatcher: boolean;
  private readonly onEvent: ((event: ClientEvent) => void) | undefined;
  /** The last request budget heard, shared with every client `forCall` makes of this one. */
  private readonly budget: { last: RateLimit | undefined };
  private readonly hooks: readonly CallHooks[];
  private readonly clock: ToolClock;

  /** `shared`: the connection pool of a `createClientFactory`, which this client does not own. */
  constructor(options: ClientOptions, shared?: Connection) {
    if (!options.token) throw new TypeError('An API token is required.');
    const url = new URL(options.baseUrl ?? DEFAULT_BASE_URL);
    this.token = options.token;
    this.secrets = [options.token, decodeURIComponent(url.password), decodeURIComponent(url.username)];
    // Credentials in the URL are never sent (the token is) and never shown.
    url.username = '';
    url.password = '';
    this.baseUrl = url.toString().replace(/\/$/, '');
    this.origin = url.origin;
    this.prefix = url.pathname.replace(/\/$/, '');
    this.retry = { ...defaultRetryOptions, ...options.retry };
    this.responseTimeoutMs = options.responseTimeoutMs ?? 30_000;
    this.userAgent = `cloudcall/${VERSION}${options.userAgentSuffix ? ` ${options.userAgentSuffix}` : ''}`;
    this.onEvent = options.onEvent;
    this.clock = options.clock ?? realClock;
    this.ownsDispatcher = !options.dispatcher && !shared;
    this.connection = shared ?? connectionTo(this.origin, options);
    this.hooks = [];
    this.budget = { last: undefined };
  }

  /**
   * This client for one call, with `hooks` around its requests (added to any it has): same token,
   * pool, retries and budget; closing it closes nothing. What the tool contract and the guard use
   * to see every request a tool sends, whatever its handler does.
   */
  forCall(hooks: CallHooks): ApiClient {
    // Every call makes one: this client with two fields of its own, not a new client (whose
    // options would be checked and its URL parsed again). Written once here, before anyone holds
    // the new client: the fields stay readonly outside.
    const client = Object.create(this) as ApiClient;
    Object.assign(client, { hooks: [...this.hooks, hooks], ownsDispatcher: false });
    return client;
  }

  /**
   * The request budget the platform told in its last answer that carried one (errors included),
   * or undefined before any did. See `rateLimitNote` and `rateLimitSpacing`.
   */
  get rateLimit(): RateLimit | undefined {
    return this.budget.last;
  }

  /** Sends a request and returns the parsed JSON body; throws the matching CloudcallError. */
  async request<T = unknown>(options: RequestOptions): Promise<T> {
    return (await this.send<T>(options)).data;
  }

  /**
   * Like `request`, with status, request id and rate-limit headers. A mutating request passes
   * the call's hooks first (`forCall`): a read-only call refuses it, a guard may stop it.
   */
  async send<T = unknown>(options: RequestOptions): Promise<ApiResponse<T>> {
    if (options.method === 'GET' || options.method === 'HEAD' || !this.hooks.length) {
      // `return await`: a turn of the event loop sooner than returning the exchange's promise.
      return await this.exchange<T>(options);
    }
    assertNormalPath(options.path);
    // Latest first (a plan's hook inside a read-only tool stops the request as a plan); every
    // hook must pass before anything is sent.
    for (const hook of [...this.hooks].reverse()) {
      if (hook.readOnly !== undefined)
        throw new ReadOnlyViolationError(hook.readOnly, options.method, options.path);
      await hook.beforeMutation?.(options);
    }
    let response: ApiResponse<T>;
    try {
      response = await this.exchange<T>(options);
    } catch (error) {
      for (const hook of this.hooks) hook.afterMutation?.(options, { error });
      throw error;
    }
    for (const hook of this.hooks) hook.afterMutation?.(options, { response });
    return response;
  }

  /** Sends one request, with its retries, and reads its answer. */
  private async exchange<T>(options: RequestOptions): Promise<ApiResponse<T>> {
    const method = options.method;
    assertNormalPath(options.path);
    const target = options.path + queryString(options.query);
    const path = this.prefix + target;
    const idempotent = IDEMPOTENT_METHODS.has(method);
    const started = this.clock.now();
    const deadline = Math.min(started + this.retry.deadlineMs, options.deadline ?? Number.POSITIVE_INFINITY);
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token}`,
      accept: options.responseText ? '*/*' : 'application/json',
      'user-agent': this.userAgent,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';

    // The failure that made us retry: what the caller hears if the deadline then passes.
    let lastFailure: Error | undefined;
    for (let attempt = 1; ; attempt++) {
      const remaining = deadline - this.clock.now();
      if (remaining <= 0) {
        throw (
          lastFailure ??
          new TimeoutError(
            `${method} ${options.path} gave up at its deadline, after ${this.clock.now() - started} ms`,
          )
        );
      }
      // One timer bounds the whole attempt, headers and body: a body dripping a byte a second
      // cannot hold the call past it.
      const timeout = Math.min(this.responseTimeoutMs, remaining);
      const current = new Attempt();
      const timing = setTimeout(timeUp, timeout, current, timeout);
      // The caller's cancel ends the attempt too: one listener, cheaper per request than a
      // signal combining both (AbortSignal.any), and removed when the attempt is over.
      const cancel = () => current.abort(options.signal?.reason);
      if (options.signal?.aborted) cancel();
      else options.signal?.addEventListener('abort', cancel, { once: true });
      // The attempt's own duration is measured in real time, whatever clock the deadlines use.
      const attemptStarted = Date.now();
      this.onEvent?.({ type: 'request', method, path: options.path, target, attempt, body: options.body });
      let response: Answer;
      let text: string;
      try {
        const dispatcher = this.connection.dispatcher ?? (await this.connection.open());
        response = await sendAttempt(
          dispatcher,
          { origin: this.origin, path, method, headers, body, headersTimeout: timeout, bodyTimeout: timeout },
          current,
        );
        text = this.redact(response.text);
      } catch (error) {
        if (options.signal?.aborted) throw new CancelledError();
        const failure = current.aborted
          ? new TimeoutError(
              `${method} ${this.origin}${options.path}: no complete response within ${timeout} ms`,
              { code: 'UND_ERR_BODY_TIMEOUT', cause: error },
            )
          : this.networkError(error, method, options.path);
        // A request that may have reached the server is repeated only when repeating is harmless.
        const retryable = idempotent || (failure.code !== undefined && NOT_SENT_CODES.has(failure.code));
        if (!retryable || attempt >= this.retry.maxAttempts) throw failure;
        const event = { method, path: options.path, attempt, reason: failure.message };
        lastFailure = failure;
        await this.beforeRetry(failure, backoffDelay(attempt, this.retry), deadline, event, options.signal);
        continue;
      } finally {
        clearTimeout(timing);
        options.signal?.removeEventListener('abort', cancel);
      }
      const status = response.statusCode;
      const rateLimit = rateLimitFromHeaders(response.headers);
      this.budget.last = rateLimit ?? this.budget.last;
      const headerRequestId = header(response.headers, 'x-request-id');
      const requestId = headerRequestId === undefined ? undefined : this.redact(headerRequestId);
      this.onEvent?.({
        type: 'response',
        method,
        path: options.path,
        target,
        status,
        attempt,
        ms: Date.now() - attemptStarted,
        rateLimit,
        requestId,
      });
      const contentType = header(response.headers, 'content-type') ?? '';
      if (status < 300) {
        const data = this.successBody(status, contentType, text, options, requestId);
        return { status, data: data as T, requestId, rateLimit };
      }
      if (status < 400) {
        const location = header(response.headers, 'location');
        throw new UnexpectedResponseError({
          status,
          id: 'unexpected_redirect',
          apiMessage: `the API answered with a redirect${location ? ` to ${this.redact(location)}` : ''}; cloudcall does not follow redirects (check --api-url)`,
          requestId,
          method,
          path: options.path,
          contentType,
        });
      }
      // The earlier attempt deleted it, and its answer was lost: gone, as asked.
      // (Not after a 429: the platform refused that attempt unread.)
      if (method === 'DELETE' && status === 404 && lastFailure !== undefined && !isStatus(lastFailure, 429)) {
        return { status, data: undefined as T, requestId, rateLimit, alreadyGone: true };
      }
      const retryAfterMs = parseRetryAfter(response.headers['retry-after'], this.clock.now());
      const error = this.apiError(status, text, requestId, method, options.path, retryAfterMs, attempt);
      if (!idempotent || !RETRYABLE_STATUSES.has(status) || attempt >= this.retry.maxAttempts) throw error;
      const delay = retryAfterMs ?? backoffDelay(attempt, this.retry);
      const event = { method, path: options.path, attempt, reason: `HTTP ${status}` };
      lastFailure = error;
      await this.beforeRetry(error, delay, deadline, event, options.signal);
    }
  }

  /**
   * The data of a 2xx answer. Only a 204, or an empty answer where the operation declares no body,
   * is "no content" (undefined); any other answer must be JSON, whole. A proxy's HTML page or a
   * cut-off body is an error, never a success.
   */
  private successBody(
    status: number,
    contentType: string,
    text: string,
    options: RequestOptions,
    requestId: string | undefined,
  ): unknown {
    const unexpected = (what: string) =>
      new UnexpectedResponseError({
        status,
        id: 'unexpected_response',
        apiMessage: `the API answered HTTP ${status} with ${what}`,
        requestId,
        method: options.method,
        path: options.path,
        contentType,
      });
    if (text === '') {
      if (status === 204 || options.noResponseBody) return undefined;
      throw unexpected(`an empty body (content type ${contentType || 'none'}), where JSON was expected`);
    }
    if (options.responseText) return text;
    if (!isJsonType(contentType)) {
      throw unexpected(`content type ${contentType || 'none'}, not JSON`);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw unexpected(`a body that is not valid JSON (content type ${contentType}; truncated?)`);
    }
    // Masking, printing and MCP's own serialisation walk results recursively: JSON nested
    // 100,000 deep would overflow the stack there, far from its cause.
    if (depthOf(data, MAX_RESPONSE_DEPTH) > MAX_RESPONSE_DEPTH) {
      throw unexpected(
        `JSON nested more than ${MAX_RESPONSE_DEPTH} levels deep (content type ${contentType})`,
      );
    }
    return data;
  }

  private redact(text: string): string {
    return redact(text, this.secrets);
  }

  /**
   * Waits before the next attempt, or throws `failure` when the wait would pass the deadline or
   * exceed the longest wait we accept (a long `Retry-After`): waiting then cannot succeed.
   */
  private async beforeRetry(
    failure: Error,
    delay: number,
    deadline: number,
    event: { method: string; path: string; attempt: number; reason: string },
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (delay > this.retry.maxDelayMs || this.clock.now() + delay >= deadline) throw failure;
    this.onEvent?.({ type: 'retry', ...event, delayMs: delay });
    await this.wait(delay, signal);
  }

  /** Closes the client's own connection pool. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.connection.close();
  }

  private async wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.clock.sleep(ms, signal);
    } catch {
      throw new CancelledError();
    }
  }

  private apiError(
    status: number,
    text: string,
    headerRequestId: string | undefined,
    method: string,
    path: string,
    retryAfterMs: number | undefined,
    attempts: number,
  ): ApiError {
    const data = parseJson(text);
    const body = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
    // Every string is redacted before it is cut, so no part of a secret survives the cut.
    const field = (value: unknown) => (typeof value === 'string' && value ? this.redact(value) : undefined);
    const apiMessage =
      field(body.message) ?? (truncate(text.trim(), 200) || `HTTP ${status} with no message`);
    return ApiError.from({
      status,
      id: truncate(field(body.id) ?? statusId(status), 100),
      apiMessage,
      requestId: truncate(field(body.request_id) ?? headerRequestId ?? '', 100) || undefined,
      method,
      path,
      retryAfterSeconds: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000),
      attempts,
    });
  }

  private networkError(error: unknown, method: string, path: string): NetworkError {
    const code = errorCode(error);
    const detail = this.redact(error instanceof Error ? error.message : String(error));
    const where = `${method} ${this.origin}${path}`;
    if (code === 'UND_ERR_CONNECT_TIMEOUT') {
      return new TimeoutError(`${where}: could not connect in time`, { code, cause: error });
    }
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return new TimeoutError(`${where}: no response in time`, { code, cause: error });
    }
    return new NetworkError(`${where}: ${detail}${code && !detail.includes(code) ? ` (${code})` : ''}`, {
      code,
      cause: error,
    });
  }
}

export function createClient(options: ClientOptions): ApiClient {
  return new ApiClient(options);
}

/** Clients for many callers' tokens that share one connection pool. */
export interface ClientFactory {
  /** A client sending `token`, and no other, over the shared pool; it has nothing to close. */
  client(token: string): ApiClient;
  /** Closes the shared pool (unless it came in as `dispatcher`). */
  close(): Promise<void>;
}

/**
 * For a server acting for many callers, each with their own token (an HTTP server passing each
 * request's bearer token through): one client per token or per request, all over one keep-alive
 * pool. A client never holds or sends any token but its own.
 */
export function createClientFactory(options: Omit<ClientOptions, 'token'>): ClientFactory {
  const origin = new URL(options.baseUrl ?? DEFAULT_BASE_URL).origin;
  // Many callers at once: a larger pool than one caller's client needs, unless told otherwise.
  const connection = connectionTo(origin, { ...options, connections: options.connections ?? 64 });
  return {
    client: (token) => new ApiClient({ ...options, token }, connection),
    close: () => connection.close(),
  };
}

/**
 * Where a client sends its requests: the dispatcher it was given, or its own keep-alive pool,
 * made with the first request. undici (or, for `transport: 'node'`, Node's http modules) is
 * imported then, so a process that never sends a request (an MCP server answering `tools/list`,
 * `cloudcall --help`) never loads it.
 */
interface Connection {
  /** The dispatcher once there is one. */
  readonly dispatcher: RequestDispatcher | undefined;
  /** The dispatcher, made (undici loaded) when there is none yet. */
  open(): Promise<RequestDispatcher>;
  /** Closes the pool, if one was made here (a dispatcher given in the options is the giver's). */
  close(): Promise<void>;
}

function connectionTo(
  origin: string,
  options: Pick<ClientOptions, 'connections' | 'connectTimeoutMs' | 'dispatcher' | 'transport'>,
): Connection {
  const given = options.dispatcher;
  if (given) return { dispatcher: given, open: async () => given, close: async () => undefined };
  type Owned = RequestDispatcher & { close(): Promise<void> };
  let pool: Owned | undefined;
  let opening: Promise<Owned> | undefined;
  const make = async (): Promise<Owned> =>
    options.transport === 'node'
      ? (await import('./node-http.js')).nodeDispatcher(origin, options)
      : options.transport === 'socket'
        ? (await import('./socket-http.js')).socketDispatcher(origin, options)
        : new (await import('undici')).Pool(origin, {
            connections: options.connections ?? 16,
            keepAliveTimeout: 30_000,
            connectTimeout: options.connectTimeoutMs ?? 10_000,
          });
  return {
    get dispatcher() {
      return pool;
    },
    open() {
      opening ??= make().then((made) => {
        pool = made;
        return made;
      });
      return opening;
    },
    async close() {
      await (pool ?? (await opening?.catch(() => undefined)))?.close();
    },
  };
}

function queryString(query: Record<string, QueryValue> | undefined): string {
  let params: URLSearchParams | undefined;
  for (const key in query) {
    if (!Object.hasOwn(query, key)) continue;
    const value = query[key];
    if (value === undefined) continue;
    params ??= new URLSearchParams();
    params.append(key, String(value));
  }
  const text = params?.toString();
  return text ? `?${text}` : '';
}

/**
 * Refuses a path with a dot segment (`.`, `..`, or percent-encoded as `%2e`): URL normalisation
 * would remove it and send the request somewhere else. Tools fill paths with `fillPath`, which
 * never makes one; this guards paths built by hand.
 */
function assertNormalPath(path: string): void {
  // A dot segment needs a `.` (or its escape, with `%`): most paths have neither.
  if (path.startsWith('/') && !path.includes('.') && !path.includes('%')) return;
  const segments = path.split(/[?#]/, 1)[0]?.split('/') ?? [];
  if (!path.startsWith('/') || segments.some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) {
    throw new InputError(
      `${JSON.stringify(path)} is not a normal absolute path (a dot segment would change which resource it names)`,
      'path',
    );
  }
}

/** Deeper than any answer of the platform's API (they nest a handful of levels). */
const MAX_RESPONSE_DEPTH = 64;

function isJsonType(contentType: string): boolean {
  const type = contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
}

/** Cuts text to `max` characters, marking the cut. */
function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function isStatus(error: Error, status: number): boolean {
  return error instanceof ApiError && error.status === status;
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR') return code;
    current = current.cause;
  }
  return undefined;
}

function statusId(status: number): string {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 422) return 'unprocessable_entity';
  if (status === 429) return 'too_many_requests';
  return status >= 500 ? 'server_error' : 'bad_request';
}
