/**
 * The platform's request budget, as its `ratelimit-*` headers tell it: how many requests the
 * token may still make, of how many, until when. The client keeps the last one it saw
 * (`ApiClient.rateLimit`); apps add a note to results when the budget runs low, and pollers
 * space their requests so the rest of the budget lasts until the reset.
 */

export interface RateLimit {
  /** Requests allowed per window (`ratelimit-limit`). */
  limit: number;
  /** Requests left in the window (`ratelimit-remaining`). */
  remaining: number;
  /** When the window resets, in seconds since the epoch (`ratelimit-reset`). */
  reset: number;
}

/** Below this share of the limit, the budget is low. */
export const LOW_RATE_LIMIT_SHARE = 0.1;

/** Whether less than 10% of the budget is left. */
export function rateLimitLow(rate: RateLimit | undefined): boolean {
  return rate !== undefined && rate.limit > 0 && rate.remaining < rate.limit * LOW_RATE_LIMIT_SHARE;
}

/**
 * A one-line note for results when the budget is low, such as
 * `API rate limit low: 312 of 5000 requests left until 14:05:00Z`; undefined otherwise.
 */
export function rateLimitNote(rate: RateLimit | undefined): string | undefined {
  if (!rate || !rateLimitLow(rate)) return undefined;
  const until = new Date(rate.reset * 1000).toISOString().slice(11, 19);
  return `API rate limit low: ${rate.remaining} of ${rate.limit} requests left until ${until}Z`;
}

/**
 * The spacing, in milliseconds, that makes a low budget last until its reset: a poller that waits
 * at least this long between requests never runs the budget out. 0 when the budget is not low
 * or its reset has passed (the next answer brings a fresh budget).
 */
export function rateLimitSpacing(rate: RateLimit | undefined, now: number = Date.now()): number {
  if (!rate || !rateLimitLow(rate)) return 0;
  const untilReset = rate.reset * 1000 - now;
  if (untilReset <= 0) return 0;
  return Math.ceil(untilReset / Math.max(1, rate.remaining));
}

/** Reads the three headers; undefined unless all three are there and are whole numbers. */
export function rateLimitFromHeaders(
  headers: Record<string, string | string[] | undefined>,
): RateLimit | undefined {
  const read = (name: string) => {
    const raw = headers[name];
    const text = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    return text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : undefined;
  };
  const limit = read('ratelimit-limit');
  const remaining = read('ratelimit-remaining');
  const reset = read('ratelimit-reset');
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  return { limit, remaining, reset };
}
