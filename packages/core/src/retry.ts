/**
 * Retry policy: which failures are worth another attempt, and how long to wait before it.
 * Full-jitter exponential backoff (a random wait between zero and the capped exponential step)
 * spreads retries from many clients instead of synchronising them.
 */

export interface RetryOptions {
  /** Attempts in all, the first included. 1 disables retries. */
  maxAttempts: number;
  /** The first backoff step in milliseconds; each further step doubles it. */
  baseDelayMs: number;
  /** No single wait is longer than this, `Retry-After` included. */
  maxDelayMs: number;
  /** No call, its retries and waits included, lasts longer than this. */
  deadlineMs: number;
}

export const defaultRetryOptions: RetryOptions = {
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  deadlineMs: 60_000,
};

/** Methods whose repetition has the effect of a single call. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** Statuses that mean "try again": rate limited, or a transient server fault. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/**
 * Network error codes raised before a request could reach the server: retrying them is safe for
 * every method, POST included.
 */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The full-jitter wait before attempt `attempt + 1` (attempt counts from 1). */
export function backoffDelay(
  attempt: number,
  options: RetryOptions,
  random: () => number = Math.random,
): number {
  const step = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * step);
}

/**
 * Reads a `Retry-After` header (delta seconds or an HTTP date) into milliseconds; undefined when
 * absent or unreadable.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text.trim())) return Math.round(Number(text.trim()) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * The time a tool or the API client waits by. Tests pass one that moves a sandbox clock (or a
 * counter) instead of sleeping.
 */
export interface ToolClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Sleeps, waking early with the signal's reason when it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Real time: `Date.now` and `sleep`. */
export const realClock: ToolClock = { now: () => Date.now(), sleep };
