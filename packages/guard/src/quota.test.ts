/**
 * Quotas per caller. The two counters, in this process's memory and in a real redis-server on a
 * free loopback port, give the same answers to the same takes (windows that fill, a refused take
 * that counts nothing, a window that resets); Redis counters standing for 3 replicas racing for a
 * caller's last units overshoot by none; a Redis that is down, never there or hung fails a take
 * quickly with an error naming it, and one that comes back is used again. Then the guard with a
 * quota against the sandbox: what it refuses is not sent and not counted, deletes count as writes
 * too, each caller has its own counts, and refusals are audited.
 */
import { mkdtempSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiCallTool } from '@cloudcall/api';
import type { AnyTool } from '@cloudcall/core';
import { freePort, type RedisServer, startRedisServer } from '@cloudcall/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuditLogError,
  describeLimit,
  GuardRefusal,
  guardedRun,
  memoryCounter,
  openAuditLog,
  parseQuota,
  parseRule,
  type Quota,
  type QuotaCounter,
  QuotaExceeded,
  QuotaStoreError,
  QuotaUnavailable,
  type QuotaWindow,
  quotaWindow,
  readAudit,
} from './index.js';
import { redisConnection, redisCounter } from './redis.js';
import { tool, useSandbox } from './testing/sandbox.js';

const HOUR = 3_600_000;
/**
 * 10:20 UTC on a day: inside an hour window, 40 minutes before it ends. In the future: Redis
 * expires a window's key by its own clock, at the window's end (and a margin).
 */
const T0 = Date.UTC(2099, 4, 1, 10, 20);

let redis: RedisServer;
const counters: QuotaCounter[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const counter of counters) await counter.close();
  await redis?.stop();
});

function newRedisCounter(url = redis.url, timeoutMs = 1000): QuotaCounter {
  const counter = redisCounter({ url, timeoutMs });
  counters.push(counter);
  return counter;
}

describe('--quota', () => {
  it('reads KIND=N/PERIOD limits, and refuses anything else saying how to write one', () => {
    expect(parseQuota('writes=30/hour, deletes=5/minute,writes=1000/day')).toEqual([
      { kind: 'writes', count: 30, period: 'hour' },
      { kind: 'deletes', count: 5, period: 'minute' },
      { kind: 'writes', count: 1000, period: 'day' },
    ]);
    expect(parseQuota('deletes=0/day').map(describeLimit)).toEqual(['deletes=0/day']);
    for (const wrong of ['writes=30', 'reads=3/hour', 'writes=3/week', 'writes=-1/hour', 'writes=1.5/hour']) {
      expect(() => parseQuota(wrong), wrong).toThrow(/--quota: .* is not a limit; write KIND=N\/PERIOD/);
    }
    expect(() => parseQuota(' , ')).toThrow('--quota needs at least one limit');
    expect(() => parseQuota('writes=3/hour,writes=4/hour')).toThrow('--quota gives writes per hour twice');
  });

  it('windows are aligned to the period, per caller and kind', () => {
    const limit = { kind: 'writes' as const, count: 3, period: 'hour' as const };
    const window = quotaWindow(limit, 'token:abc', T0);
    expect(window).toEqual({
      key: `cloudcall:quota:token:abc:writes/hour:${Date.UTC(2099, 4, 1, 10)}`,
      limit: 3,
      resetsAt: Date.UTC(2099, 4, 1, 11),
    });
    expect(quotaWindow(limit, 'token:abc', Date.UTC(2099, 4, 1, 10, 59, 59, 999))).toEqual(window);
    expect(quotaWindow(limit, 'token:abc', Date.UTC(2099, 4, 1, 11)).key).not.toBe(window.key);
    expect(quotaWindow(limit, 'alice', T0).key).not.toBe(window.key);
    expect(quotaWindow({ ...limit, period: 'day' }, 'alice', T0).resetsAt).toBe(Date.UTC(2099, 4, 2));
  });
});

describe('the memory and the Redis counter', () => {
  /** A script of takes and give-backs; each counter's answers are compared with the same list. */
  async function script(counter: QuotaCounter, caller: string) {
    const answers: unknown[] = [];
    const writes = { kind: 'writes' as const, count: 3, period: 'hour' as const };
    const deletes = { kind: 'deletes' as const, count: 1, period: 'minute' as const };
    const w = (now: number) => quotaWindow(writes, caller, now);
    const d = (now: number) => quotaWindow(deletes, caller, now);
    const take = async (windows: QuotaWindow[], now: number) =>
      answers.push(await counter.take(windows, now));
    await take([w(T0)], T0); // a write
    await take([w(T0), d(T0)], T0); // a delete: a write too
    await take([w(T0), d(T0)], T0); // a second delete this minute: refused, nothing counted
    await take([w(T0)], T0); // so the third write still fits
    await take([w(T0)], T0); // a fourth does not
    await counter.giveBack([w(T0)]); // one not sent after all
    await take([w(T0)], T0 + 1);
    await take([w(T0 + HOUR), d(T0 + HOUR)], T0 + HOUR); // the next hour: both windows anew
    await take([w(T0 + HOUR)], T0 + HOUR);
    return answers;
  }
  const expected = [
    { taken: true, used: [0] },
    { taken: true, used: [1, 0] },
    { taken: false, used: [2, 1] },
    { taken: true, used: [2] },
    { taken: false, used: [3] },
    { taken: true, used: [2] },
    { taken: true, used: [0, 0] },
    { taken: true, used: [1] },
  ];

  it('give the same answers: windows fill, a refused take counts nothing, deletes count as writes, a window resets', async () => {
    const memory = await script(memoryCounter(), 'alice');
    const inRedis = await script(newRedisCounter(), 'alice');
    expect(memory).toEqual(expected);
    expect(inRedis).toEqual(memory);
  });

  it('in Redis, 3 counters (3 replicas) racing for 60 takes of a 30-unit window give exactly 30', async () => {
    const replicas = [newRedisCounter(), newRedisCounter(), newRedisCounter()];
    const window = quotaWindow({ kind: 'writes', count: 30, period: 'hour' }, 'racer', T0);
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, n) => (replicas[n % 3] as QuotaCounter).take([window], T0)),
    );
    expect(results.filter((result) => result.taken)).toHaveLength(30);
    // Each take saw a different count below the limit: no two got the same unit.
    const units = results.filter((result) => result.taken).map((result) => result.used[0]);
    expect(new Set(units)).toEqual(new Set(Array.from({ length: 30 }, (_, n) => n)));
    // The key ends with its window (and a margin), not before.
    const client = newRedisCounter();
    expect(await client.take([{ ...window, limit: 31 }], T0)).toEqual({ taken: true, used: [30] });
  });

  it('in memory, windows that have ended are forgotten', async () => {
    const counter = memoryCounter();
    const limit = { kind: 'writes' as const, count: 1, period: 'minute' as const };
    expect(await counter.take([quotaWindow(limit, 'a', T0)], T0)).toEqual({ taken: true, used: [0] });
    expect(await counter.take([quotaWindow(limit, 'a', T0)], T0)).toEqual({ taken: false, used: [1] });
    // The same key read after its end (a clock that went back a little is not a new window).
    expect(await counter.take([quotaWindow(limit, 'a', T0)], T0 + 60_000)).toEqual({
      taken: true,
      used: [0],
    });
  });
});

describe('a Redis counter on a connection the process shares', () => {
  it('counts there, and closing it leaves the connection to its owner', async () => {
    const connection = redisConnection({ url: redis.url });
    try {
      const counter = redisCounter({ connection });
      const window = quotaWindow({ kind: 'writes', count: 1, period: 'hour' }, 'shared-caller', T0);
      expect((await counter.take([window], T0)).taken).toBe(true);
      expect((await counter.take([window], T0)).taken).toBe(false);
      await counter.close();
      // Still the owner's: another user of it (spent answers, tasks) goes on.
      expect(await connection.command(['GET', window.key])).toBe('1');
    } finally {
      await connection.close();
    }
  });
});

describe('a Redis counter that cannot be reached', () => {
  it('refuses a URL that is not redis:// or rediss://', () => {
    expect(() => redisCounter({ url: 'http://127.0.0.1:6379' })).toThrow(
      '--redis must be a redis:// or rediss:// URL, not http://...',
    );
    expect(() => redisCounter({ url: 'not a url' })).toThrow('--redis must be a URL such as redis://');
  });

  it('fails a take within its timeout, naming Redis (without the password), when nothing listens', async () => {
    const port = await freePort();
    const counter = newRedisCounter(`redis://user:s3cret@127.0.0.1:${port}`, 500);
    const window = quotaWindow({ kind: 'writes', count: 5, period: 'hour' }, 'x', T0);
    const started = Date.now();
    const failed = await counter.take([window], T0).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(QuotaStoreError);
    expect(String((failed as Error).message)).toMatch(
      new RegExp(`^Redis at redis://127\\.0\\.0\\.1:${port}, which cannot be reached \\(.*ECONNREFUSED`),
    );
    expect((failed as Error).message).not.toContain('s3cret');
    expect(Date.now() - started).toBeLessThan(1500);
    // Once it knows, at once: without waiting out its 500 ms again.
    const again = Date.now();
    await expect(counter.take([window], T0)).rejects.toThrow(/which cannot be reached/);
    expect(Date.now() - again).toBeLessThan(500);
  });

  it('reconnects with waits growing to 2 s, not once per take: no storm of connections', async () => {
    // A server that takes each connection and drops it at once, counting them.
    let connections = 0;
    const dropper = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => dropper.listen(0, '127.0.0.1', resolve));
    const { port } = dropper.address() as AddressInfo;
    try {
      const counter = newRedisCounter(`redis://127.0.0.1:${port}`, 300);
      const window = quotaWindow({ kind: 'writes', count: 5, period: 'hour' }, 'z', T0);
      const started = Date.now();
      while (Date.now() - started < 3000) {
        await expect(counter.take([window], T0)).rejects.toThrow(QuotaStoreError);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await counter.close();
      // About 100 takes in 3 s; waits of 0.1, 0.2, 0.4, 0.8, 1.6 and 2 s (each ±25 %) between attempts.
      expect(connections).toBeGreaterThanOrEqual(3);
      expect(connections).toBeLessThanOrEqual(8);
    } finally {
      await new Promise((resolve) => dropper.close(resolve));
    }
  });

  it('fails while Redis is down and counts again once it is back; a hung Redis times out', async () => {
    const own = await startRedisServer();
    const states: string[] = [];
    const counter = redisCounter({ url: own.url, timeoutMs: 400, onState: (state) => states.push(state) });
    counters.push(counter);
    const window = quotaWindow({ kind: 'writes', count: 5, period: 'hour' }, 'y', T0);
    try {
      expect(await counter.take([window], T0)).toEqual({ taken: true, used: [0] });
      own.pause();
      await expect(counter.take([window], T0)).rejects.toThrow(
        `Redis at ${own.url}, which did not answer within 400 ms`,
      );
      own.resume();
      await own.stop();
      // The connection's end is seen, then each take fails at once.
      await expect.poll(() => states).toEqual(['down']);
      const started = Date.now();
      await expect(counter.take([window], T0)).rejects.toThrow(/which cannot be reached/);
      // Without waiting out its 400 ms.
      expect(Date.now() - started).toBeLessThan(400);
      // Back on the same port (its counts gone: nothing was persisted): counted again.
      const back = await startRedisServer({ port: own.port });
      try {
        await expect.poll(() => states, { timeout: 5000 }).toEqual(['down', 'up']);
        expect(await counter.take([window], T0)).toEqual({ taken: true, used: [0] });
      } finally {
        await back.stop();
      }
    } finally {
      await own.stop();
    }
  });
});

describe('the guard with a quota', () => {
  const sandbox = useSandbox();
  const { mutating } = sandbox;
  const dir = mkdtempSync(join(tmpdir(), 'cloudcall-quota-'));
  const run = (name: string, args: object, caller: string, quota: Quota, extra: object = {}) =>
    guardedRun(
      name === 'api-call' ? (apiCallTool as AnyTool) : tool(name),
      args,
      { client: sandbox.connection.client },
      { frontEnd: 'mcp', caller, unconfirmed: 'run', quota, ...extra },
    );

  it('refuses the write past the limit before it is sent, naming the quota and its reset, and audits it', async () => {
    const audit = openAuditLog(join(dir, 'writes.log'));
    let now = Date.UTC(2099, 4, 1, 10, 59, 30);
    const quota: Quota = { limits: parseQuota('writes=2/hour'), counter: memoryCounter(), now: () => now };
    await run('tag-create', { Name: 'q-1' }, 'alice', quota, { audit });
    await run('tag-create', { Name: 'q-2' }, 'alice', quota, { audit });
    sandbox.seen.length = 0;
    const refused = run('tag-create', { Name: 'q-3' }, 'alice', quota, { audit });
    await expect(refused).rejects.toThrow(QuotaExceeded);
    await expect(refused).rejects.toThrow(
      'tag-create refused: caller alice has used its quota of 2 writes per hour (writes=2/hour); it resets at 2099-05-01T11:00:00.000Z, in 30 s. Nothing was sent.',
    );
    const error = (await refused.catch((caught: unknown) => caught)) as QuotaExceeded;
    expect(error).toBeInstanceOf(GuardRefusal);
    expect(error).toMatchObject({ retryAfterSeconds: 30, reason: 'quota writes=2/hour', outcome: 'refused' });
    expect(error.resetsAt.toISOString()).toBe('2099-05-01T11:00:00.000Z');
    expect(mutating()).toEqual([]);
    // Another caller has its own count.
    await run('tag-create', { Name: 'q-bob' }, 'bob', quota, { audit });
    expect(mutating()).toEqual(['POST /v2/tags']);
    // The next hour, alice writes again.
    now += 30_000;
    await run('tag-create', { Name: 'q-3' }, 'alice', quota, { audit });
    expect(
      (await readAudit(audit.path)).entries.map((entry) => [entry.caller, entry.outcome, entry.reason]),
    ).toEqual([
      ['alice', 'ok', undefined],
      ['alice', 'ok', undefined],
      ['alice', 'refused', 'quota writes=2/hour'],
      ['bob', 'ok', undefined],
      ['alice', 'ok', undefined],
    ]);
  });

  it('counts a delete as a write and a delete; reads are not counted', async () => {
    const quota: Quota = {
      limits: parseQuota('writes=4/hour,deletes=1/minute'),
      counter: memoryCounter(),
      now: () => T0,
    };
    for (const name of ['q-d1', 'q-d2']) await run('tag-create', { Name: name }, 'carol', quota);
    await run('tag-get', { Name: 'q-d1' }, 'carol', quota);
    await run('tag-list', {}, 'carol', quota);
    await run('tag-delete', { Name: 'q-d1' }, 'carol', quota);
    // A second delete this minute is over deletes=1/minute (and, refused, counts as no write)...
    await expect(run('tag-delete', { Name: 'q-d2' }, 'carol', quota)).rejects.toThrow(
      /caller carol has used its quota of 1 deletes per minute \(deletes=1\/minute\); it resets at 2099-05-01T10:21:00\.000Z, in 60 s/,
    );
    // ...so one write is left: the delete took the third.
    await run('tag-create', { Name: 'q-d3' }, 'carol', quota);
    await expect(run('tag-create', { Name: 'q-d4' }, 'carol', quota)).rejects.toThrow(
      /quota of 4 writes per hour \(writes=4\/hour\); it resets at 2099-05-01T11:00:00\.000Z, in 2400 s/,
    );
    // Both full: the refusal names the one that frees last.
    await expect(run('tag-delete', { Name: 'q-d2' }, 'carol', quota)).rejects.toThrow(/\(writes=4\/hour\)/);
    expect(mutating()).toEqual(['POST /v2/tags', 'POST /v2/tags', 'DELETE /v2/tags/q-d1', 'POST /v2/tags']);
  });

  it('a generic call counts only its mutating requests, as the model decides what destroys', async () => {
    const quota: Quota = { limits: parseQuota('deletes=1/hour'), counter: memoryCounter(), now: () => T0 };
    const apiCall = (method: string, path: string, body?: object) =>
      run('api-call', { Method: method, Path: path, ...(body ? { Body: body } : {}) }, 'dave', quota);
    await apiCall('POST', '/v2/tags', { name: 'q-g1' });
    await apiCall('POST', '/v2/tags', { name: 'q-g2' });
    await apiCall('GET', '/v2/tags/q-g1');
    await apiCall('DELETE', '/v2/tags/q-g1');
    await expect(apiCall('DELETE', '/v2/tags/q-g2')).rejects.toThrow(/quota of 1 deletes per hour/);
    expect(mutating()).toEqual(['POST /v2/tags', 'POST /v2/tags', 'DELETE /v2/tags/q-g1']);
  });

  it('does not count what a rule refuses, what is declined, or what the audit log could not record', async () => {
    const quota: Quota = { limits: parseQuota('writes=1/hour'), counter: memoryCounter(), now: () => T0 };
    await run('tag-create', { Name: 'q-prod' }, 'erin', { ...quota, counter: memoryCounter() });
    const rules = [parseRule('tag:q-prod', '--protect')];
    await expect(run('tag-delete', { Name: 'q-prod' }, 'erin', quota, { rules })).rejects.toThrow(
      /protected by rule tag:q-prod/,
    );
    await expect(
      run('tag-delete', { Name: 'q-prod' }, 'erin', quota, { confirm: async () => 'decline' }),
    ).rejects.toThrow(/was declined/);
    await expect(
      run('tag-create', { Name: 'q-full' }, 'erin', quota, { audit: openAuditLog('/dev/full') }),
    ).rejects.toThrow(AuditLogError);
    expect(mutating()).toEqual(['POST /v2/tags']);
    // The one write of the hour is still there to take.
    await run('tag-create', { Name: 'q-last' }, 'erin', quota);
    await expect(run('tag-create', { Name: 'q-over' }, 'erin', quota)).rejects.toThrow(QuotaExceeded);
  });

  it('sends nothing when the counts cannot be kept, saying so; reads go on', async () => {
    const port = await freePort();
    const counter = newRedisCounter(`redis://127.0.0.1:${port}`, 300);
    const audit = openAuditLog(join(dir, 'down.log'));
    const quota: Quota = { limits: parseQuota('writes=100/hour'), counter };
    const refused = run('tag-create', { Name: 'q-down' }, 'frank', quota, { audit });
    await expect(refused).rejects.toThrow(QuotaUnavailable);
    await expect(refused).rejects.toThrow(
      new RegExp(
        `^tag-create was not sent: quotas are counted in Redis at redis://127\\.0\\.0\\.1:${port}, which cannot be reached \\(.*\\)\\. Requests that change something are refused until it answers again; reads go on\\. Nothing was sent\\.$`,
      ),
    );
    const started = Date.now();
    await run('tag-list', {}, 'frank', quota);
    await run('api-call', { Method: 'GET', Path: '/v2/tags' }, 'frank', quota);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(mutating()).toEqual([]);
    expect((await readAudit(audit.path)).entries.map((entry) => [entry.outcome, entry.reason])).toEqual([
      ['refused', 'quota unavailable'],
    ]);
  });
});
