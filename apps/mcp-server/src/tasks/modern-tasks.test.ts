/**
 * Tasks end to end: the built server over Streamable HTTP at protocol revision 2026-07-28, driven
 * by the SDK's v2 client and the Tasks extension's own requester session
 * (`@modelcontextprotocol/ext-tasks/client`), against a sandbox on loopback whose clock stands
 * still until the test moves it (a VM boots only then). A task started by `vm-create` is handed
 * off by its client, which goes away; a new client resumes the task id and sees it to the end.
 * With --redis, the replica running a task is killed mid-wait and another finishes it.
 */
import type { ChildProcess } from 'node:child_process';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { type RedisServer, startRedisServer } from '@cloudcall/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createTaskSessionEndpointId,
  createTaskSessionFromClient,
  type JsonRpcResponse,
  type SerializedTaskReference,
  type TaskEnabledSession,
} from '@modelcontextprotocol/ext-tasks/client';
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killAll, startHttp, waitForOutput } from '../testing/process.js';
import { until, VM_ARGS } from '../testing/tasks.js';

const MODERN = '2026-07-28';
const LONG = 120_000;
const CLIENT_INFO = { name: 'cloudcall-test', version: '1.0.0' };

let sandbox: Sandbox;
beforeAll(async () => {
  // Sandbox time stands still: the VM boots when the test says.
  const started = Date.now();
  sandbox = await startSandbox({ now: () => started });
});
afterAll(() => sandbox?.close());

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  killAll();
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
  cleanup = [];
});

/**
 * The requests the extension's session sends itself (tools/call and tasks/*, whose task shapes the
 * SDK's client does not decode): JSON-RPC over HTTP with the headers 2026-07-28 wants.
 */
function rawDispatch(url: string) {
  let id = 0;
  return async (request: JsonValue, options?: { signal?: AbortSignal }): Promise<JsonRpcResponse> => {
    const { method, params } = request as { method: string; params?: Record<string, unknown> };
    const name = method === 'tools/call' ? params?.name : params?.taskId;
    const rpcId = `raw-${++id}`;
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: rpcId, ...(request as object) }),
      ...(options?.signal ? { signal: options.signal } : {}),
    });
    const text = await response.text();
    // A JSON answer, or the answer among a stream's events.
    const messages = (response.headers.get('content-type') ?? '').includes('text/event-stream')
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => JSON.parse(line.slice(5)))
      : [JSON.parse(text)];
    const answer = messages.find((message) => message.id === rpcId);
    if (!answer) throw new Error(`no answer to ${method} (HTTP ${response.status}): ${text}`);
    return 'error' in answer
      ? { kind: 'error', error: answer.error }
      : { kind: 'result', result: answer.result };
  };
}

/** A new 2026-07-28 client on `url` and the extension's session over it; closed after the test. */
async function taskSession(url: string): Promise<{ client: Client; session: TaskEnabledSession }> {
  const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const session = createTaskSessionFromClient(client, {
    // The same id for every client of this service: a reference handed off by one is resumed by another.
    endpointId: await createTaskSessionEndpointId('cloudcall-test', { service: 'tasks' }),
    rawDispatch: rawDispatch(url),
    v2RequestFraming: { protocolVersion: MODERN, clientInfo: CLIENT_INFO, clientCapabilities: {} },
  });
  cleanup.push(async () => {
    await session.close();
    await client.close();
  });
  return { client, session };
}

const server = (extra: string[] = []) =>
  startHttp(
    ['--transport', 'http', '--port', '0', '--api-url', sandbox.url, '--families', 'account,vms', ...extra],
    {
      DIGITALOCEAN_ACCESS_TOKEN: 'test-token',
    },
  );

const vmsNamed = async (name: string) => {
  const response = await fetch(`${sandbox.url}/v2/droplets?per_page=200`, {
    headers: { authorization: 'Bearer any' },
  });
  const { droplets } = (await response.json()) as { droplets: { id: number; name: string }[] };
  return droplets.filter((droplet) => droplet.name === name);
};

type Droplet = { droplet: { id: number; name: string; status: string } };

describe('tasks over HTTP at 2026-07-28', () => {
  it(
    'vm-create answers a task; its client hands it off and goes away; a new client resumes it to the active VM',
    async () => {
      const { url } = await server();
      const creates = await sandbox.watchRequests({ method: 'POST', path: '/v2/droplets' });
      let reference: SerializedTaskReference | undefined;
      {
        const { client, session } = await taskSession(url);
        expect(client.getServerCapabilities()?.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
        const execution = await session.callTool('vm-create', { Name: 'e2e-task', ...VM_ARGS });
        if (execution.kind !== 'task') throw new Error('vm-create was answered without a task');
        await execution.handoff((serialized) => {
          reference = serialized;
        });
        // Handed off, the execution is no longer the session's: closing the session must not
        // cancel it (it would, were the session closed before the execution let go).
        await execution.result().catch(() => undefined);
        await session.close();
        await client.close();
      }
      expect(reference).toMatchObject({ generation: 'v2', originalOperation: 'tools/call' });

      const { session } = await taskSession(url);
      const task = session.task((reference as SerializedTaskReference).taskId);
      // The new client sees the VM's name and state, as a host would draw them.
      let last: unknown;
      const waiting = await until(async () => {
        const view = await task.snapshot();
        last = view;
        return view.statusMessage?.includes('→ active') ? view : undefined;
      }).catch((error: Error) => {
        throw new Error(`${error.message}: ${JSON.stringify(last)}`);
      });
      expect(waiting.status).toBe('working');
      expect(waiting.statusMessage).toMatch(/^\d+%: vm e2e-task: new → active \(/);
      expect(waiting.suggestedPollIntervalMs).toBe(4_500);

      const resumed = await session.resumeTask(reference as SerializedTaskReference);
      await sandbox.advanceClock(5_000);
      const { outcome } = await resumed.settle();
      expect(outcome.status).toBe('completed');
      const result = (outcome as unknown as { result: { structuredContent: Droplet; isError?: boolean } })
        .result;
      expect(result.isError).not.toBe(true);
      expect(result.structuredContent.droplet).toMatchObject({ name: 'e2e-task', status: 'active' });
      expect(await sandbox.matchedRequests(creates)).toBe(1);
      expect(await vmsNamed('e2e-task')).toHaveLength(1);
    },
    LONG,
  );

  it(
    'a cancelled task is cancelled within a second and polls no more; the VM its request made stays',
    async () => {
      const { url } = await server();
      const { session } = await taskSession(url);
      const execution = await session.callTool('vm-create', { Name: 'e2e-cancel', ...VM_ARGS });
      if (execution.kind !== 'task') throw new Error('vm-create was answered without a task');
      const taskId = execution.handle.taskId;
      const task = session.task(taskId);
      await until(async () => (await task.snapshot()).statusMessage?.includes('→ active'));
      const [vm] = await vmsNamed('e2e-cancel');
      const polls = await sandbox.watchRequests({ method: 'GET', path: `/v2/droplets/${vm?.id}` });
      const asked = Date.now();
      await session.cancelTask(taskId);
      const cancelled = await until(async () => {
        const view = await task.snapshot();
        return view.status === 'cancelled' ? view : undefined;
      }, 1_000);
      expect(Date.now() - asked).toBeLessThan(1_000);
      expect(cancelled.statusMessage).toMatch(/request was already sent and is not undone/);
      // Uncancelled, the wait would poll again within this time (its pauses grow from 1 s).
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(await sandbox.matchedRequests(polls)).toBe(0);
      expect(await vmsNamed('e2e-cancel')).toHaveLength(1);
    },
    LONG,
  );

  it(
    'a destructive call asks to confirm in its answer first (no task yet); the confirmed retry is the task',
    async () => {
      const { url } = await server();
      const plain = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: MODERN } } });
      cleanup.push(() => plain.close());
      await plain.connect(new StreamableHTTPClientTransport(new URL(url)));
      const made = await plain.callTool({ name: 'vm-create', arguments: { Name: 'e2e-off', ...VM_ARGS } });
      const id = (made.structuredContent as Droplet).droplet.id;
      await sandbox.advanceClock(5_000);
      const actions = await sandbox.watchRequests({ method: 'POST', path: `/v2/droplets/${id}/actions` });
      const dispatch = rawDispatch(url);
      const envelope = {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
        'io.modelcontextprotocol/clientCapabilities': {
          elicitation: { form: {} },
          extensions: { 'io.modelcontextprotocol/tasks': {} },
        },
      };
      const asked = await dispatch({
        method: 'tools/call',
        params: { name: 'power-off-vm', arguments: { ID: id }, _meta: envelope },
      });
      expect(asked.kind).toBe('result');
      const question = (
        asked as unknown as { result: { resultType: string; requestState: string; inputRequests: object } }
      ).result;
      expect(question.resultType).toBe('input_required');
      expect(JSON.stringify(question.inputRequests)).toContain('type e2e-off.');
      expect(await sandbox.matchedRequests(actions)).toBe(0);
      const confirmed = await dispatch({
        method: 'tools/call',
        params: {
          name: 'power-off-vm',
          arguments: { ID: id },
          _meta: envelope,
          requestState: question.requestState,
          inputResponses: { confirm: { action: 'accept', content: { confirm: 'e2e-off' } } },
        },
      });
      const task = (confirmed as unknown as { result: { resultType: string; taskId: string } }).result;
      expect(task.resultType).toBe('task');
      const { session } = await taskSession(url);
      const controller = session.task(task.taskId as never);
      await until(async () => (await controller.snapshot()).statusMessage?.includes('power_off'));
      await sandbox.advanceClock(5_000);
      const outcome = await controller.result();
      expect(outcome.status).toBe('completed');
      expect(JSON.stringify(outcome)).toContain('"status":"completed"');
      expect(await sandbox.matchedRequests(actions)).toBe(1);
    },
    LONG,
  );

  it(
    '--tasks-per-caller 1: a second task while one works is refused, nothing sent; once the first ends, one more starts',
    async () => {
      const { url } = await server(['--tasks-per-caller', '1', '--task-keep', '60']);
      const creates = await sandbox.watchRequests({ method: 'POST', path: '/v2/droplets' });
      const { session } = await taskSession(url);
      const first = await session.callTool('vm-create', { Name: 'bound-a', ...VM_ARGS });
      if (first.kind !== 'task') throw new Error('vm-create was answered without a task');
      await until(async () => (await sandbox.matchedRequests(creates)) === 1);

      const second = await session.callTool('vm-create', { Name: 'bound-b', ...VM_ARGS });
      if (second.kind === 'task') throw new Error('a second task was started past the bound');
      const refused = JSON.stringify(await second.result());
      expect(refused).toContain('vm-create was not started: this caller already has 1 tasks working');
      expect(refused).toContain('(1). Nothing was sent.');
      expect(await sandbox.matchedRequests(creates)).toBe(1);
      expect(await vmsNamed('bound-b')).toHaveLength(0);

      await session.cancelTask(first.handle.taskId);
      await until(async () => (await session.task(first.handle.taskId).snapshot()).status === 'cancelled');
      const third = await session.callTool('vm-create', { Name: 'bound-c', ...VM_ARGS });
      expect(third.kind).toBe('task');
      await until(async () => (await sandbox.matchedRequests(creates)) === 2);
    },
    LONG,
  );

  it('refuses a bound or a keeping time that is not a whole number, at start', async () => {
    for (const [flag, value] of [
      ['--tasks-per-caller', '0'],
      ['--tasks-per-caller', 'many'],
      ['--task-keep', '1.5'],
    ]) {
      const started = server([flag as string, value as string]);
      await expect(started, `${flag} ${value}`).rejects.toThrow(
        new RegExp(`${flag} must be a whole number of (tasks|seconds), at least 1, not ${value}`),
      );
    }
  });

  it(
    'a client that did not declare the extension gets the call answered as before, and no task methods',
    async () => {
      const { url } = await server();
      const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: MODERN } } });
      cleanup.push(() => client.close());
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const made = await client.callTool({ name: 'vm-create', arguments: { Name: 'e2e-plain', ...VM_ARGS } });
      expect(made.isError).not.toBe(true);
      expect((made.structuredContent as Droplet).droplet).toMatchObject({ name: 'e2e-plain', status: 'new' });
      const refused = await rawDispatch(url)({
        method: 'tasks/get',
        params: {
          taskId: 'any',
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      });
      expect(refused).toMatchObject({ kind: 'error', error: { code: -32021 } });
    },
    LONG,
  );
});

describe('tasks across replicas with --redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis?.stop());

  it(
    'the replica running a task is killed mid-wait; another takes it over, resumes only the wait, and one VM is made',
    async () => {
      const a = await server(['--redis', redis.url]);
      const b = await server(['--redis', redis.url]);
      const creates = await sandbox.watchRequests({ method: 'POST', path: '/v2/droplets' });
      const { session } = await taskSession(a.url);
      const execution = await session.callTool('vm-create', { Name: 'e2e-relay', ...VM_ARGS });
      if (execution.kind !== 'task') throw new Error('vm-create was answered without a task');
      const taskId = execution.handle.taskId;
      // B reads the task from Redis: A has the platform's answer and waits.
      const { session: onB } = await taskSession(b.url);
      await until(async () => (await onB.task(taskId).snapshot()).statusMessage?.includes('→ active'));
      (a.child as ChildProcess).kill('SIGKILL');
      // Once A's lease lapses (15 s), B takes the task over, on this poll or in its sweep.
      await waitForOutput(
        b.output,
        new RegExp(`task ${taskId}: taken over \\(vm-create\\), resuming its wait`),
        30_000,
      );
      await sandbox.advanceClock(5_000);
      const done = await until(async () => {
        const view = await onB.task(taskId).snapshot();
        return view.status === 'working' ? undefined : view;
      }, 30_000);
      expect(done.status).toBe('completed');
      const outcome = await onB.task(taskId).result();
      expect(outcome.status).toBe('completed');
      expect(
        (outcome as unknown as { result: { structuredContent: Droplet } }).result.structuredContent.droplet,
      ).toMatchObject({
        name: 'e2e-relay',
        status: 'active',
      });
      expect(await sandbox.matchedRequests(creates)).toBe(1);
      expect(await vmsNamed('e2e-relay')).toHaveLength(1);
    },
    LONG,
  );
});
