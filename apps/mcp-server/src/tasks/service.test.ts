/**
 * Tasks in one process (the memory store), through the real tool runner against the sandbox on
 * loopback, whose clock the tests move forward to finish provisioning. Each task's tools/call
 * request is answered and its client gone (its signal aborted) before the task goes on.
 */
import type { SandboxConnection } from '@cloudcall/sandbox';
import type { DetailedTaskV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LISTING } from '../listing.generated.js';
import { frozenSandbox, type Replica, replica, startRun, until, VM_ARGS } from '../testing/tasks.js';
import { memoryTaskStore } from './memory-store.js';
import { createTaskService, TaskNotFound, TaskRefusal } from './service.js';
import { planTask } from './tool-tasks.js';

let sandbox: SandboxConnection;
const opened: Replica[] = [];

beforeAll(async () => {
  sandbox = await frozenSandbox();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((one) => one.service.close()));
});
afterAll(async () => {
  await sandbox?.close();
});

function open(
  options: Omit<Parameters<typeof replica>[0], 'sandbox' | 'store'> & { now?: () => number } = {},
) {
  const one = replica({ sandbox, store: memoryTaskStore({ now: options.now }), ...options });
  opened.push(one);
  return one;
}

const vmsNamed = async (name: string) => {
  const { droplets } = await sandbox.client.request<{ droplets: { name: string }[] }>({
    method: 'GET',
    path: '/v2/droplets',
    query: { per_page: 200 },
  });
  return droplets.filter((droplet) => droplet.name === name).length;
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

describe('a vm-create task', () => {
  it('answers a task id at once and completes after its client went away, with the active VM', async () => {
    const one = open();
    const creates = await sandbox.sandbox.watchRequests({ method: 'POST', path: '/v2/droplets' });
    const seed = await one.call('alice', 'vm-create', { Name: 'task-web', ...VM_ARGS });
    expect(seed).toMatchObject({
      resultType: 'task',
      status: 'working',
      taskId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      // A VM usually takes 45 s: poll every 4.5 s; kept for the 300 s wait and an hour more.
      pollIntervalMs: 4_500,
      ttlMs: 300_000 + 3_600_000,
    });
    const taskId = seed.taskId as string;
    const working = await waiting(one, 'alice', taskId);
    // What a host shows: how far along, the VM's name and its status.
    expect(working.statusMessage).toMatch(
      /^0%: vm task-web: new → active \(0 s, usually about 45 s, gives up at 300 s\)$/,
    );
    expect(working.status).toBe('working');
    await sandbox.sandbox.advanceClock(5_000);
    const done = await until(async () => {
      const task = await one.service.get('alice', taskId);
      return task.status === 'working' ? undefined : task;
    });
    expect(done.status).toBe('completed');
    const result = (done as Extract<DetailedTaskV2, { status: 'completed' }>).result as {
      structuredContent: { droplet: { name: string; status: string } };
      isError?: boolean;
    };
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent.droplet).toMatchObject({ name: 'task-web', status: 'active' });
    expect(done.statusMessage).toMatch(/^vm task-web: active after \d+ s$/);
    expect(await sandbox.sandbox.matchedRequests(creates)).toBe(1);
    expect(await vmsNamed('task-web')).toBe(1);
  });

  it('is cancelled within a second: the wait stops polling, the VM stays, and the status says so', async () => {
    const one = open();
    const taskId = await one.startTask('alice', 'vm-create', { Name: 'task-cancel', ...VM_ARGS });
    await waiting(one, 'alice', taskId);
    const vm = await until(async () => {
      const { droplets } = await sandbox.client.request<{ droplets: { id: number; name: string }[] }>({
        method: 'GET',
        path: '/v2/droplets',
        query: { per_page: 200 },
      });
      return droplets.find((droplet) => droplet.name === 'task-cancel');
    });
    const polls = await sandbox.sandbox.watchRequests({ method: 'GET', path: `/v2/droplets/${vm.id}` });
    const asked = Date.now();
    await one.service.cancel('alice', taskId);
    const cancelled = await one.service.get('alice', taskId);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.statusMessage).toBe(
      `Cancelled: stopped waiting for vm ${vm.id}. vm-create's request was already sent and is not undone: the platform goes on with it. Check it with vm-list, or wait for it again with the wait tool.`,
    );
    await until(() => one.sleeping() === 0, 1_000, 'the wait stopping');
    expect(Date.now() - asked).toBeLessThan(1_000);
    // Had it not stopped, the wait would poll again within this much sandbox time.
    await sandbox.sandbox.advanceClock(20_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await sandbox.sandbox.matchedRequests(polls)).toBe(0);
    expect((await one.service.get('alice', taskId)).status).toBe('cancelled');
    await expect(vmsNamed('task-cancel')).resolves.toBe(1);
    // A second cancel of a cancelled task is acknowledged and changes nothing.
    await one.service.cancel('alice', taskId);
    expect((await one.service.get('alice', taskId)).statusMessage).toBe(cancelled.statusMessage);
  });

  it("is another caller's to neither read, cancel nor update: not found, as for no task at all", async () => {
    const one = open();
    const taskId = await one.startTask('alice', 'vm-create', { Name: 'task-mine', ...VM_ARGS });
    await waiting(one, 'alice', taskId);
    for (const attempt of [
      () => one.service.get('bob', taskId),
      () => one.service.cancel('bob', taskId),
      () => one.service.update('bob', taskId),
      () => one.service.get('', taskId),
      () => one.service.get('alice', taskId.toUpperCase()),
      () => one.service.get('alice', `${taskId} `),
    ]) {
      await expect(attempt()).rejects.toThrow(TaskNotFound);
    }
    const none = await one.service
      .get('bob', '00000000-0000-4000-8000-000000000000')
      .catch((error: Error) => error);
    const other = await one.service.get('bob', taskId).catch((error: Error) => error);
    expect(other).toBeInstanceOf(TaskNotFound);
    expect((other as Error).message).toBe((none as Error).message);
    // Bob's cancel changed nothing: Alice's task still runs and completes.
    await sandbox.sandbox.advanceClock(5_000);
    await until(async () => (await one.service.get('alice', taskId)).status === 'completed');
  });

  it('ends with the tool error as a completed task (isError), not a failed one', async () => {
    const one = open();
    const taskId = await one.startTask('alice', 'vm-create', {
      Name: 'task-bad',
      ...VM_ARGS,
      Size: 'no-such-size',
    });
    const done = await until(async () => {
      const task = await one.service.get('alice', taskId);
      return task.status === 'working' ? undefined : task;
    });
    expect(done.status).toBe('completed');
    const result = (done as Extract<DetailedTaskV2, { status: 'completed' }>).result as {
      isError: boolean;
      structuredContent: { status: number };
    };
    expect(result.isError).toBe(true);
    expect(result.structuredContent.status).toBe(422);
    expect(done.statusMessage).toMatch(/^vm-create ended with an error: /);
    expect(await vmsNamed('task-bad')).toBe(0);
  });
});

describe('a wait task', () => {
  it('waits for what it names and completes with it; cancelled, it says it only read', async () => {
    const one = open();
    const made = await one.call('olga', 'vm-create', { Name: 'task-waited', ...VM_ARGS }, false);
    const id = (made.structuredContent as { droplet: { id: number } }).droplet.id;
    const waited = await one.startTask('olga', 'wait', { Kind: 'vm', ID: id });
    const other = await one.startTask('olga', 'wait', { Kind: 'vm', ID: id });
    const seed = await one.service.get('olga', waited);
    // The wait's own time, 300 s by default, and an hour to fetch the result.
    expect(seed.ttlMs).toBe(300_000 + 3_600_000);
    await until(async () => (await one.service.get('olga', waited)).statusMessage?.includes('→ active'));
    await one.service.cancel('olga', other);
    expect((await one.service.get('olga', other)).statusMessage).toBe(
      'Cancelled: wait stopped. It only read; nothing was changed.',
    );
    await sandbox.sandbox.advanceClock(5_000);
    const done = await until(async () => {
      const task = await one.service.get('olga', waited);
      return task.status === 'working' ? undefined : task;
    });
    expect(done.status).toBe('completed');
    expect(
      (done as unknown as { result: { structuredContent: unknown } }).result.structuredContent,
    ).toMatchObject({
      droplet: { id, status: 'active' },
    });
  });
});

describe('the service alone', () => {
  const plan = { kind: 'vm' as const, waitSeconds: 300 };
  const service = () => {
    const store = memoryTaskStore();
    const made = createTaskService({ store, resume: async () => ({ content: [] }), sweep: false });
    return { store, service: made };
  };

  it('answers a call whose client went away before it sent anything with its own answer, and keeps no task', async () => {
    const { store, service: tasks } = service();
    const request = new AbortController();
    request.abort();
    let stopped = false;
    const outcome = await tasks.start({
      caller: 'pat',
      tool: 'vm-create',
      plan,
      signal: request.signal,
      run: async (context) => {
        stopped = context.signal.aborted;
        return { content: [{ type: 'text', text: 'The request was cancelled.' }], isError: true };
      },
    });
    expect(stopped).toBe(true);
    expect(outcome).toEqual({
      answer: { content: [{ type: 'text', text: 'The request was cancelled.' }], isError: true },
    });
    expect(await store.working('pat')).toBe(0);
    await tasks.close();
  });

  it('says when the answer yields nothing to wait for, and refuses to start once closed', async () => {
    const { service: tasks } = service();
    let finish: () => void = () => undefined;
    const seed = await startRun(tasks, {
      caller: 'pat',
      run: async (context) => {
        await context.started({ kind: 'vm', targets: [], deadline: 0 });
        await new Promise<void>((resolve) => {
          finish = resolve;
        });
        return { content: [] };
      },
    });
    await until(async () =>
      (await tasks.get('pat', seed.taskId)).statusMessage?.includes('nothing to wait for'),
    );
    expect((await tasks.get('pat', seed.taskId)).statusMessage).toBe(
      'vm-create: the platform answered; nothing to wait for',
    );
    finish();
    await tasks.close();
    await expect(startRun(tasks, { caller: 'pat', run: async () => ({ content: [] }) })).rejects.toThrow(
      'the task service is closed',
    );
  });
});

describe("a caller's bound", () => {
  it('refuses a task past the tasks a caller has working, clearly and sending nothing; others are not held to it', async () => {
    const one = open({ limits: { workingPerCaller: 2 } });
    const creates = await sandbox.sandbox.watchRequests({ method: 'POST', path: '/v2/droplets' });
    const first = await one.startTask('carol', 'vm-create', { Name: 'bound-1', ...VM_ARGS });
    await one.startTask('carol', 'vm-create', { Name: 'bound-2', ...VM_ARGS });
    const refused = await one.call('carol', 'vm-create', { Name: 'bound-3', ...VM_ARGS });
    expect(refused).toMatchObject({
      isError: true,
      structuredContent: {
        error_id: 'too_many_tasks',
        retryable: true,
        message:
          'vm-create was not started: this caller already has 2 tasks working on this server, the most one caller may have at once (2). Nothing was sent.',
      },
    });
    expect(await vmsNamed('bound-3')).toBe(0);
    // Another caller is not counted with this one.
    await one.startTask('dave', 'vm-create', { Name: 'bound-dave', ...VM_ARGS });
    // A task that ends frees its place.
    await one.service.cancel('carol', first);
    await one.startTask('carol', 'vm-create', { Name: 'bound-4', ...VM_ARGS });
    await until(async () => (await sandbox.sandbox.matchedRequests(creates)) === 4, 5_000, 'four creates');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await sandbox.sandbox.matchedRequests(creates)).toBe(4);
  });

  it('is a TaskRefusal from the service, which records nothing', async () => {
    const store = memoryTaskStore();
    const service = createTaskService({
      store,
      resume: async () => ({ content: [] }),
      sweep: false,
      limits: { workingPerCaller: 1 },
    });
    try {
      const never = () => new Promise<never>(() => undefined);
      await startRun(service, { caller: 'x', run: never });
      let ran = false;
      const second = service.start({
        caller: 'x',
        tool: 'vm-create',
        plan: { kind: 'vm', waitSeconds: 60 },
        run: async () => {
          ran = true;
          return { content: [] };
        },
      });
      await expect(second).rejects.toThrow(TaskRefusal);
      await expect(second).rejects.toMatchObject({ report: { error_id: 'too_many_tasks' } });
      expect(ran).toBe(false);
    } finally {
      await service.close();
    }
  });
});

describe('expiry', () => {
  it('forgets a task once its TTL has passed, finished or not', async () => {
    let now = Date.now();
    const one = open({ now: () => now });
    const taskId = await one.startTask('erin', 'vm-create', { Name: 'task-ttl', ...VM_ARGS });
    const seed = await one.service.get('erin', taskId);
    now += (seed.ttlMs as number) - 1;
    expect((await one.service.get('erin', taskId)).taskId).toBe(taskId);
    now += 1;
    await expect(one.service.get('erin', taskId)).rejects.toThrow(TaskNotFound);
  });
});

describe('which calls become tasks', () => {
  const listed = (name: string) => LISTING.tools.find((tool) => tool.name === name);
  it.each([
    ['vm-create', 'vm'],
    ['resize-vm', 'action'],
    ['snapshot-vm', 'action'],
    ['db-cluster-create', 'database'],
    ['db-cluster-migrate-region', 'database'],
    ['kubernetes-cluster-create', 'kubernetes-cluster'],
    ['app-create-deployment', 'app-deployment'],
  ])('%s, waiting for its %s', async (name, kind) => {
    const plan = await planTask(listed(name), {});
    expect(plan).toMatchObject({ kind });
    expect(plan).not.toHaveProperty('rerunArgs');
  });

  it.each(['vm-list', 'vm-get', 'vm-delete', 'db-cluster-list', 'key-create'])('not %s', async (name) => {
    expect(await planTask(listed(name), {})).toBeUndefined();
  });

  it('the wait tool when its arguments parse, run again whole by a takeover, for as long as it asks', async () => {
    expect(
      await planTask(listed('wait'), { Kind: 'database', ID: 'c0ffee00-0000-4000-8000-000000000000' }),
    ).toEqual({
      kind: 'database',
      waitSeconds: 300,
      rerunArgs: { Kind: 'database', ID: 'c0ffee00-0000-4000-8000-000000000000' },
    });
    expect(await planTask(listed('wait'), { Kind: 'vm', ID: '7', TimeoutSeconds: 1200 })).toMatchObject({
      waitSeconds: 1200,
    });
    expect(await planTask(listed('wait'), { Kind: 'vm', ID: 'not-an-id' })).toBeUndefined();
    expect(await planTask(undefined, {})).toBeUndefined();
  });

  it('not for a call that ends before it sends anything: invalid arguments are its own answer, and no task is kept', async () => {
    const one = open({ limits: { workingPerCaller: 1 } });
    const answer = await one.call('gail', 'vm-create', { Name: 'task-invalid', ...VM_ARGS, Region: 7 });
    expect(answer.resultType).toBeUndefined();
    expect(answer).toMatchObject({ isError: true, structuredContent: { error_id: 'invalid_arguments' } });
    // Nothing was recorded: the caller's one place is free.
    await one.startTask('gail', 'vm-create', { Name: 'task-valid', ...VM_ARGS });
  });

  it('only for a request that declared the extension: otherwise the call is answered as before', async () => {
    const one = open();
    const plain = await one.call('frank', 'vm-create', { Name: 'task-plain', ...VM_ARGS }, false);
    expect(plain.resultType).toBeUndefined();
    expect(plain.structuredContent).toMatchObject({ droplet: { name: 'task-plain', status: 'new' } });
    expect(JSON.stringify(plain.content)).toContain(
      'Next: this is not ready yet. To block until it is, call wait',
    );
    // A tool that is no long operation is answered at once, declared or not.
    const list = await one.call('frank', 'vm-list', {});
    expect(list.resultType).toBeUndefined();
    expect(list.structuredContent).toHaveProperty('droplets');
  });
});
