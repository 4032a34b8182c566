/**
 * The API client: undici with a keep-alive pool per base URL, bearer auth, JSON bodies, timeouts,
 * cancellation, retries with full-jitter backoff, and one error type per failure kind.
 */
import { createRequire } from 'node:module';
import { type Dispatcher, Pool, request as undiciRequest } from 'undici';
import { ApiError, CancelledError, NetworkError, redact, TimeoutError } from './errors.js';
import {
  backoffDelay,
  defaultRetryOptions,
  IDEMPOTENT_METHODS,
  NOT_SENT_CODES,
  parseRetryAfter,
  RETRYABLE_STATUSES,
  type RetryOptions,
  sleep,
} from './retry.js';

export const DEFAULT_BASE_URL = 'https://api.digitalocean.com';

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
  /** Milliseconds to establish a connection. Default 10 s. */
  connectTimeoutMs?: number;
  /** Milliseconds to wait for response headers, and between body chunks. Default 30 s. */
  responseTimeoutMs?: number;
  retry?: Partial<RetryOptions>;
  /** Words appended to `cloudcall/<version>` in the User-Agent, such as `cli/0.1.0`. */
  userAgentSuffix?: string;
  /** A dispatcher to send through instead of the client's own pool (tests use undici's MockAgent). */
  dispatcher?: Dispatcher;
  /** Receives one event per attempt; handy for debug logs. Events carry no credentials. */
  onEvent?: (event: ClientEvent) => void;
}

export type ClientEvent =
  | { type: 'response'; method: string; path: string; status: number; attempt: number; ms: number }
  | { type: 'retry'; method: string; path: string; attempt: number; delayMs: number; reason: string };

export interface RequestOptions {
  method: HttpMethod;
  /** Path below the base URL, starting with `/v2/`. */
  path: string;
  query?: Record<string, QueryValue>;
  /** Sent as JSON when defined. */
  body?: unknown;
  signal?: AbortSignal;
}

export interface ApiResponse<T> {
  status: number;
  /** Parsed JSON body; undefined for an empty body (such as 204 No Content). */
  data: T;
  requestId: string | undefined;
  rateLimit: { limit: number; remaining: number; reset: number } | undefined;
}

export class ApiClient {
  readonly baseUrl: string;
  readonly userAgent: string;
  private readonly origin: string;
  private readonly prefix: string;
  private readonly token: string;
  private readonly retry: RetryOptions;
  private readonly responseTimeoutMs: number;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly onEvent: ((event: ClientEvent) => void) | undefined;

  constructor(options: ClientOptions) {
    if (!options.token) throw new TypeError('An API token is required.');
    const url = new URL(options.baseUrl ?? DEFAULT_BASE_URL);
    this.baseUrl = url.toString().replace(/\/$/, '');
    this.origin = url.origin;
    this.prefix = url.pathname.replace(/\/$/, '');
    this.token = options.token;
    this.retry = { ...defaultRetryOptions, ...options.retry };
    this.responseTimeoutMs = options.responseTimeoutMs ?? 30_000;
    this.userAgent = `cloudcall/${VERSION}${options.userAgentSuffix ? ` ${options.userAgentSuffix}` : ''}`;
    this.onEvent = options.onEvent;
    this.ownsDispatcher = !options.dispatcher;
    this.dispatcher =
      options.dispatcher ??
      new Pool(this.origin, {
        connections: 16,
        keepAliveTimeout: 30_000,
        connectTimeout: options.connectTimeoutMs ?? 10_000,
      });
  }

  /** Sends a request and returns the parsed JSON body; throws the matching CloudcallError. */
  async request<T = unknown>(options: RequestOptions): Promise<T> {
    return (await this.send<T>(options)).data;
  }

  /** Like `request`, with status, request id and rate-limit headers. */
  async send<T = unknown>(options: RequestOptions): Promise<ApiResponse<T>> {
    const method = options.method;
    const path = this.prefix + options.path + queryString(options.query);
    const idempotent = IDEMPOTENT_METHODS.has(method);
    const started = Date.now();
    const deadline = started + this.retry.deadlineMs;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token}`,
      accept: 'application/json',
      'user-agent': this.userAgent,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';

    // The failure that made us retry: what the caller hears if the deadline then passes.
    let lastFailure: Error | undefined;
    for (let attempt = 1; ; attempt++) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw (
          lastFailure ??
          new TimeoutError(`${method} ${options.path} gave up after ${this.retry.deadlineMs} ms`)
        );
      }
      const timeout = Math.min(this.responseTimeoutMs, remaining);
      const attemptStarted = Date.now();
      let response: Dispatcher.ResponseData;
      let text: string;
      try {
        response = await undiciRequest(this.origin + path, {
          dispatcher: this.dispatcher,
          method,
          headers,
          body,
          signal: options.signal,
          headersTimeout: timeout,
          bodyTimeout: timeout,
        });
        text = await response.body.text();
      } catch (error) {
        if (options.signal?.aborted) throw new CancelledError();
        const failure = this.networkError(error, method, options.path);
        // A request that may have reached the server is repeated only when repeating is harmless.
        const retryable = idempotent || (failure.code !== undefined && NOT_SENT_CODES.has(failure.code));
        if (!retryable || attempt >= this.retry.maxAttempts) throw failure;
        const event = { method, path: options.path, attempt, reason: failure.message };
        lastFailure = failure;
        await this.beforeRetry(failure, backoffDelay(attempt, this.retry), deadline, event, options.signal);
        continue;
      }
      const status = response.statusCode;
      this.onEvent?.({
        type: 'response',
        method,
        path: options.path,
        status,
        attempt,
        ms: Date.now() - attemptStarted,
      });
      const requestId = header(response.headers, 'x-request-id');
      const data = parseJson(text);
      if (status < 400) {
        return { status, data: data as T, requestId, rateLimit: rateLimitOf(response.headers) };
      }
      const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
      const error = this.apiError(status, data, text, requestId, method, options.path, retryAfterMs);
      if (!idempotent || !RETRYABLE_STATUSES.has(status) || attempt >= this.retry.maxAttempts) throw error;
      const delay = retryAfterMs ?? backoffDelay(attempt, this.retry);
      const event = { method, path: options.path, attempt, reason: `HTTP ${status}` };
      lastFailure = error;
      await this.beforeRetry(error, delay, deadline, event, options.signal);
    }
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
    if (delay > this.retry.maxDelayMs || Date.now() + delay >= deadline) throw failure;
    this.onEvent?.({ type: 'retry', ...event, delayMs: delay });
    await this.wait(delay, signal);
  }

  /** Closes the client's own connection pool. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private async wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await sleep(ms, signal);
    } catch {
      throw new CancelledError();
    }
  }

  private apiError(
    status: number,
    data: unknown,
    text: string,
    headerRequestId: string | undefined,
    method: string,
    path: string,
    retryAfterMs: number | undefined,
  ): ApiError {
    const body = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
    const apiMessage =
      typeof body.message === 'string' && body.message
        ? body.message
        : text.trim().slice(0, 200) || `HTTP ${status} with no message`;
    return ApiError.from({
      status,
      id: typeof body.id === 'string' ? body.id : statusId(status),
      apiMessage: redact(apiMessage, [this.token]),
      requestId: typeof body.request_id === 'string' ? body.request_id : headerRequestId,
      method,
      path,
      retryAfterSeconds: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000),
    });
  }

  private networkError(error: unknown, method: string, path: string): NetworkError {
    const code = errorCode(error);
    const detail = redact(error instanceof Error ? error.message : String(error), [this.token]);
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

function queryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
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

function rateLimitOf(
  headers: Record<string, string | string[] | undefined>,
): ApiResponse<unknown>['rateLimit'] {
  const limit = header(headers, 'ratelimit-limit');
  const remaining = header(headers, 'ratelimit-remaining');
  const reset = header(headers, 'ratelimit-reset');
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  return { limit: Number(limit), remaining: Number(remaining), reset: Number(reset) };
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
