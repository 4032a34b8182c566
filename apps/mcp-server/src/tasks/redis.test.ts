/**
 * Tasks kept in a real redis-server and shared by replicas: two task services, each with its own
 * connection and tool runner, against one sandbox on loopback. A replica "dies" by losing its
 * connection and stopping its runs at once, without finishing them or giving its leases back;
 * the other must finish its tasks without ever sending the create again (the sandbox counts the
 * VMs), or, when the create's answer was never recorded, say the outcome is unknown.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient } from '@cloudcall/core';
import { type RedisConnection, redisConnection } from '@cloudcall/guard/redis';
import { SANDBOX_TOKEN, type SandboxConnection } from '@cloudcall/sandbox';
import { freePort, type RedisServer, startRedisServer } from '@cloudcall/testing';
import type { DetailedTaskV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { frozenSandbox, type Replica, replica, startRun, until, VM_ARGS } from '../testing/tasks.js';
import { createToolCall } from '../tool-call.js';
import type { TaskRecord } from './record.js';
import { redisTaskStore, TaskStoreError } from './redis-store.js';
import { createTaskService, TaskNotFound } from './service.js';
import { toolTaskService } from './start.js';

let redis: RedisServer;
let sandbox: SandboxConnection;
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  [redis, sandbox] = await Promise.all([startRedisServer(), frozenSandbox()]);
});
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
  // A task a test left working (its replica closed) is no other test's to take over.
  const flush = redisConnection({ url: redis.url });
  await flush.command(['FLUSHALL']);
  await flush.close();
});
afterAll(async () => {
  await Promise.all([redis?.stop(), sandbox?.close()]);
});

/** Leases short enough that a takeover comes within the test, beats as in production. */
const TIMING = { leaseMs: 1_000, beatMs: 100, sweepMs: 0 };

function connect(url = redis.url): RedisConnection {
  const connection = redisConnection({ url, timeoutMs: 1_000 });
  cleanup.push(() => connection.close());
  return connection;
}

/** A replica on its own connection to the shared Redis; `die` ends it as a crash would. */
function open(options: Omit<Parameters<typeof replica>[0], 'sandbox' | 'store'> = {}) {
  const connection = connect();
  const resumed: TaskRecord[] = [];
  const one = replica({
    sandbox,
    store: redisTaskStore(connection),
    timing: TIMING,
    onResume: (record) => resumed.push(record),
    ...options,
  });
  cleanup.push(() => one.service.close());
  return {
    ...one,
    resumed,
    /** Gone at once: no more writes, no lease given back, its runs stopped where they were. */
    async die() {
      await connection.close();
      await one.service.close();
    },
  };
}

const vmsNamed = async (name: string) => {
  const { droplets } = await sandbox.client.request<{ droplets: { id: number; name: string }[] }>({
    method: 'GET',
    path: '/v2/droplets',
    query: { per_page: 200 },
  });
  return droplets.filter((droplet) => droplet.name === name);
};

/** The task once its status says it waits for its VM (the create's answer is in). */
const waiting = async (one: Replica, caller: string, taskId: string) => {
  let last: unknown;
  try {
    return await until(async () => {
      const task = await one.service.get(caller, taskId);
      last = task;
      return task.statusMessage?.includes('→ active') ? task : undefined;
    }, 20_000);
  } catch {
    throw new Error(`the task never waited for its VM: ${JSON.stringify(last)}\n${one.log()}`);
  }
};

const settled = (one: Replica, caller: string, taskId: string) =>
  until(
    async () => {
      const task = await one.service.get(caller, taskId);
      return task.status === 'working' ? undefined : task;
    },
    10_000,
    'the end of the task',
  );

const resultOf = (task: DetailedTaskV2) =>
  (task as Extract<DetailedTaskV2, { status: 'completed' }>).result as {
    isError?: boolean;
    structuredContent: { droplet: { id: number; name: string; status: string } };
  };

describe('a replica that dies while waiting', () => {
  it('has its task resumed by another on tasks/get: only the wait, so one VM, and the task completes', async () => {
    const a = open();
    const b = open();
    const creates = await sandbox.sandbox.watchRequests({ method: 'POST', path: '/v2/droplets' });
    const taskId = await a.startTask('alice', 'vm-create', { Name: 'relay-web', ...VM_ARGS });
    await waiting(a, 'alice', taskId);
    const [vm] = await vmsNamed('relay-web');
    await a.die();
    // Its lease still holds: B reads the task, does not take it.
    const early = await b.service.get('alice', taskId);
    expect(early.status).toBe('working');
    expect(b.resumed).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, TIMING.leaseMs + 100));
    // The lease lapsed: the next tasks/get, on B, takes it over.
    await b.service.get('alice', taskId);
    expect(b.resumed).toHaveLength(1);
    expect(b.resumed[0]?.remaining).toMatchObject({ kind: 'vm', targets: [{ ID: String(vm?.id) }] });
    expect(b.log()).toMatch(`task ${taskId}: taken over (vm-create), resuming its wait`);
    await until(() => b.sleeping() > 0, 5_000, "B's wait");
    await sandbox.sandbox.advanceClock(5_000);
    const done = await settled(b, 'alice', taskId);
    expect(done.status).toBe('completed');
    expect(resultOf(done).structuredContent.droplet).toMatchObject({
      id: vm?.id,
      name: 'relay-web',
      status: 'active',
    });
    // A third replica reads the same outcome.
    const c = open();
    expect((await c.service.get('alice', taskId)).status).toBe('completed');
    expect(await sandbox.sandbox.matchedRequests(creates)).toBe(1);
    expect(await vmsNamed('relay-web')).toHaveLength(1);
  });

  it('has its task taken over by a sweep, with no request from its caller', async () => {
    const a = open();
    const b = open({ sweep: true, timing: { ...TIMING, sweepMs: 150 } });
    const creates = await sandbox.sandbox.watchRequests({ method: 'POST', path: '/v2/droplets' });
    const taskId = await a.startTask('alice', 'vm-create', { Name: 'swept-web', ...VM_ARGS });
    await waiting(a, 'alice', taskId);
    await a.die();
    await until(() => b.resumed.length === 1, 5_000, 'the sweep');
    await until(() => b.sleeping() > 0, 5_000, "B's wait");
    await sandbox.sandbox.advanceClock(5_000);
    expect((await settled(b, 'alice', taskId)).status).toBe('completed');
    expect(await sandbox.sandbox.matchedRequests(creates)).toBe(1);
    expect(await vmsNamed('swept-web')).toHaveLength(1);
  });
});

describe('what else a takeover does', () => {
  it('runs a wait task again whole: it only reads', async () => {
    const a = open();
    const b = open();
    const made = await a.call('alice', 'vm-create', { Name: 'rerun-web', ...VM_ARGS }, false);
    const id = (made.structuredContent as { droplet: { id: number } }).droplet.id;
    const taskId = await a.startTask('alice', 'wait', { Kind: 'vm', ID: id });
    await waiting(a, 'alice', taskId);
    await a.die();
    await new Promise((resolve) => setTimeout(resolve, TIMING.leaseMs + 100));
    await b.service.get('alice', taskId);
    expect(b.resumed[0]?.rerunArgs).toEqual({ Kind: 'vm', ID: id });
    expect(b.log()).toMatch(`task ${taskId}: taken over (wait), running it again`);
    await until(() => b.sleeping() > 0, 5_000, "B's wait");
    await sandbox.sandbox.advanceClock(5_000);
    const done = await settled(b, 'alice', taskId);
    expect(resultOf(done).structuredContent.droplet).toMatchObject({ id, status: 'active' });
  });

  it('keeps the outcome of a task whose end came while Redis did not answer', async () => {
    const a = open({ timing: { ...TIMING, leaseMs: 10_000 } });
    const taskId = await a.startTask('alice', 'vm-create', { Name: 'late-web', ...VM_ARGS });
    await waiting(a, 'alice', taskId);
    // Redis stops answering just as the VM becomes active and the wait ends.
    redis.pause();
    try {
      await sandbox.sandbox.advanceClock(5_000);
      await until(() => a.log().includes('leases not renewed'), 10_000, 'a failed beat');
      await until(() => a.sleeping() === 0, 10_000, 'the end of the wait');
    } finally {
      redis.resume();
    }
    const done = await settled(a, 'alice', taskId);
    expect(done.status).toBe('completed');
    expect(resultOf(done).structuredContent.droplet).toMatchObject({ name: 'late-web', status: 'active' });
  });
});

/**
 * A proxy to the sandbox that serves POST /v2/droplets but never answers it: the VM is made, and
 * the replica that asked never learns it.
 */
async function answerLosingProxy(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  const held = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', target);
    const upstream = httpRequest(url, { method: req.method, headers: req.headers }, (answer) => {
      if (req.method === 'POST' && url.pathname === '/v2/droplets') {
        answer.resume();
        held.add(res);
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('a replica that dies before the create was answered', () => {
  it('leaves its task failed, saying the outcome is unknown and how to check, and nothing is sent again', async () => {
    const proxy = await answerLosingProxy(sandbox.sandbox.url);
    cleanup.push(proxy.close);
    const lossy = new ApiClient({ token: SANDBOX_TOKEN, baseUrl: proxy.url });
    cleanup.push(() => lossy.close());
    const a = open({ client: lossy });
    const b = open({ sweep: true, timing: { ...TIMING, sweepMs: 150 } });
    const creates = await sandbox.sandbox.watchRequests({ method: 'POST', path: '/v2/droplets' });
    const taskId = await a.startTask('alice', 'vm-create', { Name: 'lost-web', ...VM_ARGS });
    // The platform made the VM; A waits for an answer that never comes.
    await until(async () => (await vmsNamed('lost-web')).length === 1, 5_000, 'the VM');
    expect((await b.service.get('alice', taskId)).statusMessage).toBe(
      'vm-create: sending the request to the platform',
    );
    await a.die();
    const failed = await settled(b, 'alice', taskId);
    const message =
      "The server running vm-create stopped before the platform's answer to it was recorded, so whether it took effect is unknown. It is not sent again: check with vm-list before calling vm-create again.";
    expect(failed).toMatchObject({
      status: 'failed',
      statusMessage: message,
      error: { code: -32603, message },
    });
    expect(b.resumed).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await sandbox.sandbox.matchedRequests(creates)).toBe(1);
    expect(await vmsNamed('lost-web')).toHaveLength(1);
  });
});

describe('cancel across replicas', () => {
  it('stops the run on the replica holding it within a second, when asked on another', async () => {
    const a = open();
    const b = open();
    const taskId = await a.startTask('alice', 'vm-create', { Name: 'far-cancel', ...VM_ARGS });
    await waiting(a, 'alice', taskId);
    expect(a.sleeping()).toBeGreaterThan(0);
    const asked = Date.now();
    await b.service.cancel('alice', taskId);
    expect((await b.service.get('alice', taskId)).status).toBe('cancelled');
    await until(() => a.sleeping() === 0, 1_000, "A's wait stopping");
    expect(Date.now() - asked).toBeLessThan(1_000);
    await new Promise((resolve) => setTimeout(resolve, 2 * TIMING.beatMs));
    // A wrote nothing over the cancel, and nobody takes a cancelled task over.
    const after = await a.service.get('alice', taskId);
    expect(after.status).toBe('cancelled');
    expect(after.statusMessage).toMatch(
      /^Cancelled: stopped waiting for vm \d+\. vm-create's request was already sent and is not undone/,
    );
    expect(b.resumed).toHaveLength(0);
  });
});

describe('what the replicas share', () => {
  it("holds a caller's bound across replicas", async () => {
    const a = open({ limits: { workingPerCaller: 1 } });
    const b = open({ limits: { workingPerCaller: 1 } });
    await a.startTask('gina', 'vm-create', { Name: 'shared-bound-1', ...VM_ARGS });
    const refused = await b.call('gina', 'vm-create', { Name: 'shared-bound-2', ...VM_ARGS });
    expect(refused).toMatchObject({ isError: true, structuredContent: { error_id: 'too_many_tasks' } });
    expect(await vmsNamed('shared-bound-2')).toHaveLength(0);
  });

  it('keeps tasks from other callers apart on every replica', async () => {
    const a = open();
    const b = open();
    const taskId = await a.startTask('alice', 'vm-create', { Name: 'apart-web', ...VM_ARGS });
    await expect(b.service.get('mallory', taskId)).rejects.toThrow(TaskNotFound);
    await expect(b.service.cancel('mallory', taskId)).rejects.toThrow(TaskNotFound);
    expect((await b.service.get('alice', taskId)).status).toBe('working');
  });

  it('forgets a task when its TTL passes (Redis expires it)', async () => {
    const connection = connect();
    const store = redisTaskStore(connection);
    const service = createTaskService({
      store,
      resume: async () => ({ content: [] }),
      sweep: false,
      timing: TIMING,
      limits: { keepMs: 400 },
    });
    cleanup.push(() => service.close());
    const seed = await startRun(service, {
      caller: 'hank',
      plan: { kind: 'vm', waitSeconds: 0 },
      run: async () => ({ content: [{ type: 'text', text: 'done' }] }),
    });
    expect(seed.ttlMs).toBe(400);
    await until(async () => (await service.get('hank', seed.taskId)).status === 'completed', 300);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await expect(service.get('hank', seed.taskId)).rejects.toThrow(TaskNotFound);
    expect(await connection.command(['EXISTS', `cloudcall:task:${seed.taskId}`])).toBe(0);
  });

  it('keeps one outcome when a finish and a cancel race: the first lands, the second changes nothing', async () => {
    const connection = connect();
    const store = redisTaskStore(connection);
    const now = Date.now();
    const record: TaskRecord = {
      taskId: `race-${now}`,
      caller: 'ivan',
      tool: 'vm-create',
      kind: 'vm',
      status: 'working',
      statusMessage: 'sending',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 60_000,
      pollIntervalMs: 4_500,
    };
    expect(await store.create(record, 'replica-a', 1_000, 1)).toEqual({ created: true });
    // The caller's one place is taken.
    expect(await store.create({ ...record, taskId: `race-${now}-2` }, 'replica-a', 1_000, 1)).toEqual({
      created: false,
      working: 1,
    });
    const result = {
      content: [{ type: 'text', text: '{"droplet":{}}' }],
      structuredContent: { droplet: {} },
    };
    const key = { taskId: record.taskId, caller: 'ivan' };
    const [finished, cancelled] = await Promise.all([
      store.update(key, { status: 'completed', result }),
      store.update(key, { status: 'cancelled', statusMessage: 'Cancelled' }),
    ]);
    expect(finished?.status).toBe('completed');
    expect(cancelled).toMatchObject({ status: 'completed', result, statusMessage: 'sending' });
    // Finished, it no longer counts against its caller, and no replica may claim it.
    expect(await store.create({ ...record, taskId: `race-${now}-3` }, 'replica-a', 1_000, 1)).toEqual({
      created: true,
    });
    expect(await store.claim(record.taskId, 'replica-b', 1_000)).toBe(false);
    // Empty arrays survive the round trip (a result with no content, a wait with no targets).
    await store.update(
      { taskId: `race-${now}-3`, caller: 'ivan' },
      { remaining: { kind: 'vm', targets: [], deadline: 1 } },
    );
    expect((await store.read(`race-${now}-3`))?.remaining).toEqual({ kind: 'vm', targets: [], deadline: 1 });
  });

  it('is what toolTaskService makes on the --redis connection, and this process keeps them without one', async () => {
    const call = createToolCall({
      client: async () => sandbox.client,
      tools: [],
      version: '0',
      sandbox: true,
      log: () => {},
    });
    const shared = toolTaskService({ call, redis: connect() });
    const alone = toolTaskService({ call });
    cleanup.push(
      () => shared.close(),
      () => alone.close(),
    );
    expect(shared.where).toBe(redis.url.replace(/^/, 'Redis at '));
    expect(alone.where).toBe('this process');
    const seed = await startRun(shared, { caller: 'kim', run: () => new Promise(() => undefined) });
    expect(await connect().command(['HGET', `cloudcall:task:${seed.taskId}`, 'caller'])).toBe('"kim"');
  });

  it('refuses to start a task while Redis cannot be reached, saying so and sending nothing', async () => {
    const down = connect(`redis://127.0.0.1:${await freePort()}`);
    const one = replica({ sandbox, store: redisTaskStore(down), timing: TIMING });
    cleanup.push(() => one.service.close());
    const answer = await one.call('judy', 'vm-create', { Name: 'no-store', ...VM_ARGS });
    expect(answer).toMatchObject({
      isError: true,
      structuredContent: { error_id: 'task_store_unavailable' },
    });
    expect((answer.structuredContent as { message: string }).message).toMatch(
      /^vm-create was not started: tasks are kept in Redis at redis:\/\/127\.0\.0\.1:\d+, which cannot be reached/,
    );
    expect(await vmsNamed('no-store')).toHaveLength(0);
    await expect(one.service.get('judy', 'any')).rejects.toThrow(TaskStoreError);
  });
});
