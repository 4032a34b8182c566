/**
 * The retry policy's pieces on their own: the full-jitter backoff step, `Retry-After` in both of
 * its forms, and the sleep that a cancel cuts short.
 */
import { describe, expect, it } from 'vitest';
import { backoffDelay, defaultRetryOptions, parseRetryAfter, sleep } from './retry.js';

describe('backoffDelay', () => {
  const options = { ...defaultRetryOptions, baseDelayMs: 100, maxDelayMs: 1_000 };

  it('draws between zero and a step that doubles with each attempt', () => {
    const top = () => 0.999_999;
    expect(backoffDelay(1, options, top)).toBe(99);
    expect(backoffDelay(2, options, top)).toBe(199);
    expect(backoffDelay(3, options, top)).toBe(399);
    expect(backoffDelay(3, options, () => 0.5)).toBe(200);
    expect(backoffDelay(3, options, () => 0)).toBe(0);
  });

  it('never waits longer than the longest step', () => {
    expect(backoffDelay(5, options, () => 0.999_999)).toBe(999);
    expect(backoffDelay(50, options, () => 0.5)).toBe(500);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads delta seconds, whole or not, around spaces', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.25', now)).toBe(1_250);
    expect(parseRetryAfter(['2', '9'], now)).toBe(2_000);
  });

  it('reads an HTTP date as the time until then, never below zero', () => {
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  });

  it('gives undefined when absent, empty or unreadable', () => {
    for (const value of [undefined, '', '   ', 'soon', '2 seconds', '1.5x', [] as string[]]) {
      expect(parseRetryAfter(value, now), JSON.stringify(value)).toBeUndefined();
    }
  });
});

describe('sleep', () => {
  it('resolves after the time asked', async () => {
    const started = Date.now();
    await sleep(30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('rejects with the reason at once when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    const started = Date.now();
    await expect(sleep(60_000, controller.signal)).rejects.toThrow('gone');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('wakes early with the reason when the signal aborts, and stops listening once over', async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    setTimeout(() => controller.abort(new Error('cancelled by the caller')), 10);
    await expect(waiting).rejects.toThrow('cancelled by the caller');

    const added: string[] = [];
    const removed: string[] = [];
    const watched = {
      aborted: false,
      addEventListener: (type: string, _listener: unknown, options: unknown) =>
        added.push(`${type} ${JSON.stringify(options)}`),
      removeEventListener: (type: string) => removed.push(type),
    } as unknown as AbortSignal;
    await sleep(1, watched);
    expect(added).toEqual(['abort {"once":true}']);
    expect(removed).toEqual(['abort']);
  });
});
