/**
 * What every task store promises the service, held to each of them: this process's memory (its
 * clock moved by the test) and a real redis-server (real time, short leases and TTLs).
 */
import { type RedisConnection, redisConnection } from '@cloudcall/guard/redis';
import { type RedisServer, startRedisServer } from '@cloudcall/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { memoryTaskStore } from './memory-store.js';
import type { TaskRecord, TaskStore } from './record.js';
import { redisTaskStore } from './redis-store.js';

let redis: RedisServer;
let connection: RedisConnection;
beforeAll(async () => {
  redis = await startRedisServer();
  connection = redisConnection({ url: redis.url, timeoutMs: 1_000 });
});
afterEach(async () => {
  await connection.command(['FLUSHALL']);
});
afterAll(async () => {
  await connection?.close();
  await redis?.stop();
});

/** A store, and how to let `ms` pass for it. */
interface Subject {
  store: TaskStore;
  pass(ms: number): Promise<void>;
}

const subjects: [string, () => Subject][] = [
  [
    'memory',
    () => {
      let offset = 0;
      const store = memoryTaskStore({ now: () => Date.now() + offset });
      return {
        store,
        pass: async (ms) => {
          offset += ms;
        },
      };
    },
  ],
  [
    'redis',
    () => ({
      store: redisTaskStore(connection),
      pass: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    }),
  ],
];

let serial = 0;
function record(change: Partial<TaskRecord> = {}): TaskRecord {
  const now = Date.now();
  return {
    taskId: `task-${++serial}-${now}`,
    caller: 'alice',
    tool: 'vm-create',
    kind: 'vm',
    status: 'working',
    statusMessage: 'vm-create: sending the request to the platform',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 60_000,
    pollIntervalMs: 4_500,
    ...change,
  };
}

describe.each(subjects)('the %s task store', (_, make) => {
  it('keeps a record as it was given, empty lists and nested results included', async () => {
    const { store } = make();
    const task = record({
      remaining: { kind: 'vm', targets: [], deadline: 12 },
      rerunArgs: { Kind: 'vm', ID: '7' },
    });
    expect(await store.create(task, 'a', 1_000, 5)).toEqual({ created: true });
    expect(await store.read(task.taskId)).toEqual(task);
    const result = { content: [], structuredContent: { droplet: { id: 7, tags: [], networks: { v4: [] } } } };
    const after = await store.update(task, { status: 'completed', result, statusMessage: 'done' });
    expect(after).toEqual({ ...task, status: 'completed', result, statusMessage: 'done' });
    expect(await store.read('no-such-task')).toBeUndefined();
    expect(
      await store.update({ taskId: 'no-such-task', caller: 'alice' }, { statusMessage: 'x' }),
    ).toBeUndefined();
  });

  it("counts a caller's tasks working, refuses one past the bound, and frees a place when one ends", async () => {
    const { store } = make();
    const first = record();
    expect(await store.create(first, 'a', 1_000, 2)).toEqual({ created: true });
    expect(await store.create(record(), 'a', 1_000, 2)).toEqual({ created: true });
    const refused = record();
    expect(await store.create(refused, 'a', 1_000, 2)).toEqual({ created: false, working: 2 });
    expect(await store.read(refused.taskId)).toBeUndefined();
    expect(await store.working('alice')).toBe(2);
    // Another caller is counted apart.
    expect(await store.create(record({ caller: 'bob' }), 'a', 1_000, 2)).toEqual({ created: true });
    await store.update(first, { status: 'cancelled' });
    expect(await store.working('alice')).toBe(1);
    expect(await store.create(record(), 'a', 1_000, 2)).toEqual({ created: true });
  });

  it('changes only a task still working: a finish after a cancel (or the reverse) changes nothing', async () => {
    const { store } = make();
    const task = record();
    await store.create(task, 'a', 1_000, 5);
    await store.update(task, { status: 'cancelled', statusMessage: 'Cancelled' });
    const late = await store.update(task, {
      status: 'completed',
      statusMessage: 'done',
      result: { content: [] },
    });
    expect(late).toMatchObject({ status: 'cancelled', statusMessage: 'Cancelled' });
    expect(late?.result).toBeUndefined();
  });

  it('forgets a task at the end of its TTL, and no longer counts it', async () => {
    const { store, pass } = make();
    const task = record({ ttlMs: 300 });
    await store.create(task, 'a', 1_000, 1);
    expect(await store.read(task.taskId)).toBeDefined();
    await pass(450);
    expect(await store.read(task.taskId)).toBeUndefined();
    expect(await store.working('alice')).toBe(0);
    expect(await store.orphans()).not.toContain(task.taskId);
    expect(await store.create(record(), 'a', 1_000, 1)).toEqual({ created: true });
  });

  it('leases: held by its creator, renewed by its beat, claimed by another only once it lapsed', async () => {
    const { store, pass } = make();
    const task = record();
    await store.create(task, 'a', 300, 5);
    expect(await store.claim(task.taskId, 'b', 300)).toBe(false);
    expect(await store.orphans()).not.toContain(task.taskId);
    // A beats: the lease holds past its first term.
    await pass(200);
    expect(await store.beat([task.taskId], 'a', 300)).toEqual([{ status: 'working', held: true }]);
    await pass(200);
    expect(await store.claim(task.taskId, 'b', 300)).toBe(false);
    // A stops beating: the lease lapses, the task is an orphan, B claims it, and A learns so.
    await pass(400);
    expect(await store.orphans()).toContain(task.taskId);
    expect(await store.claim(task.taskId, 'b', 300)).toBe(true);
    expect(await store.claim(task.taskId, 'c', 300)).toBe(false);
    expect(await store.orphans()).not.toContain(task.taskId);
    expect(await store.beat([task.taskId], 'a', 300)).toEqual([{ status: 'working', held: false }]);
    // A release by someone else changes nothing; B's own gives it up.
    await store.release(task.taskId, 'a');
    expect(await store.claim(task.taskId, 'c', 300)).toBe(false);
    await store.release(task.taskId, 'b');
    expect(await store.claim(task.taskId, 'c', 300)).toBe(true);
  });

  it('a lease that lapsed with no one taking it is taken again by its holder’s beat', async () => {
    const { store, pass } = make();
    const task = record();
    await store.create(task, 'a', 200, 5);
    await pass(350);
    expect(await store.beat([task.taskId], 'a', 200)).toEqual([{ status: 'working', held: true }]);
    expect(await store.claim(task.taskId, 'b', 200)).toBe(false);
  });

  it('a finished task is nobody’s to claim, no orphan, and its beat says how it ended', async () => {
    const { store, pass } = make();
    const task = record();
    await store.create(task, 'a', 200, 5);
    await store.update(task, { status: 'failed', error: { code: -32603, message: 'x' } });
    await pass(350);
    expect(await store.claim(task.taskId, 'b', 200)).toBe(false);
    expect(await store.orphans()).not.toContain(task.taskId);
    expect(await store.beat([task.taskId, 'gone'], 'a', 200)).toEqual([
      { status: 'failed', held: false },
      { status: undefined, held: false },
    ]);
    expect(await store.beat([], 'a', 200)).toEqual([]);
  });
});
