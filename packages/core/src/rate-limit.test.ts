import { describe, expect, it } from 'vitest';
import { rateLimitLow, rateLimitNote, rateLimitSpacing } from './rate-limit.js';

// 2030-03-17T14:05:00Z
const RESET = Date.UTC(2030, 2, 17, 14, 5, 0) / 1000;

describe('rate-limit helpers', () => {
  it('calls a budget low below 10% of the limit, and only then', () => {
    expect(rateLimitLow(undefined)).toBe(false);
    expect(rateLimitLow({ limit: 5000, remaining: 500, reset: RESET })).toBe(false);
    expect(rateLimitLow({ limit: 5000, remaining: 499, reset: RESET })).toBe(true);
    expect(rateLimitLow({ limit: 0, remaining: 0, reset: RESET })).toBe(false);
  });

  it('writes a note with what is left and until when, only when low', () => {
    expect(rateLimitNote({ limit: 5000, remaining: 312, reset: RESET })).toBe(
      'API rate limit low: 312 of 5000 requests left until 14:05:00Z',
    );
    expect(rateLimitNote({ limit: 5000, remaining: 4000, reset: RESET })).toBeUndefined();
    expect(rateLimitNote(undefined)).toBeUndefined();
  });

  it('spaces requests so a low budget lasts until its reset', () => {
    const now = RESET * 1000 - 100_000;
    expect(rateLimitSpacing({ limit: 5000, remaining: 10, reset: RESET }, now)).toBe(10_000);
    expect(rateLimitSpacing({ limit: 5000, remaining: 0, reset: RESET }, now)).toBe(100_000);
    expect(rateLimitSpacing({ limit: 5000, remaining: 4000, reset: RESET }, now)).toBe(0);
    expect(rateLimitSpacing({ limit: 5000, remaining: 10, reset: RESET }, RESET * 1000 + 1)).toBe(0);
  });
});
