/**
 * The Tasks extension's wire, apart from any SDK: the per-request capability, the params of the
 * three methods checked with the extension's schemas, and results that the extension's own
 * schemas (`@modelcontextprotocol/ext-tasks/core/v2`, what its client decodes with) accept.
 */
import {
  CancelTaskResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  UpdateTaskResultV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { afterEach, describe, expect, it } from 'vitest';
import { DECLARES_TASKS, startRun, until } from '../testing/tasks.js';
import { memoryTaskStore } from './memory-store.js';
import type { TaskRecord } from './record.js';
import { TaskStoreError } from './redis-store.js';
import { createTaskService, detailedOf, TaskNotFound, type TaskService, taskOf } from './service.js';
import {
  createTaskResult,
  declaresTasks,
  getTaskResult,
  handleTaskRequest,
  protocolErrorOf,
  TaskProtocolError,
  taskRequest,
} from './wire.js';

const declared = (params: Record<string, unknown>) => ({ ...params, _meta: DECLARES_TASKS });

const at = Date.parse('2026-08-01T10:00:00.000Z');
const record = (change: Partial<TaskRecord> = {}): TaskRecord => ({
  taskId: '786512e2-9e0d-44bd-8f29-789f320fe840',
  caller: 'alice',
  tool: 'vm-create',
  kind: 'vm',
  status: 'working',
  statusMessage: '12%: vm web-1: new → active (6 s, usually about 45 s, gives up at 300 s)',
  createdAt: at,
  lastUpdatedAt: at + 6_000,
  ttlMs: 3_900_000,
  pollIntervalMs: 4_500,
  ...change,
});

/** The JSON-RPC error a call threw, or fails when it did not. */
async function refusal(run: () => unknown): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(TaskProtocolError);
    const { code, message, data } = error as TaskProtocolError;
    return data === undefined ? { code, message } : { code, message, data };
  }
  throw new Error('answered; a JSON-RPC error was expected');
}

describe('the per-request capability', () => {
  it('is the extension in this request’s _meta, as an empty object', () => {
    expect(declaresTasks(declared({ name: 'vm-create' }))).toBe(true);
    const capabilities = (extensions: unknown) => ({
      _meta: { 'io.modelcontextprotocol/clientCapabilities': { extensions } },
    });
    for (const params of [
      undefined,
      {},
      { name: 'vm-create' },
      { _meta: {} },
      // Declared at the top level or under another key: not this request's capability.
      { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
      { _meta: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
      capabilities({ 'io.modelcontextprotocol/task': {} }),
      // Malformed settings: the schema wants {}.
      capabilities({ 'io.modelcontextprotocol/tasks': null }),
      capabilities({ 'io.modelcontextprotocol/tasks': true }),
      capabilities({ 'io.modelcontextprotocol/tasks': { poll: true } }),
      capabilities(['io.modelcontextprotocol/tasks']),
    ]) {
      expect(declaresTasks(params), JSON.stringify(params)).toBe(false);
    }
  });
});

describe('task request params', () => {
  it('answer the task id when well formed and declared', () => {
    expect(taskRequest('tasks/get', declared({ taskId: 'abc' }))).toEqual({ taskId: 'abc' });
    expect(taskRequest('tasks/cancel', declared({ taskId: 'abc' }))).toEqual({ taskId: 'abc' });
    expect(taskRequest('tasks/update', declared({ taskId: 'abc', inputResponses: {} }))).toEqual({
      taskId: 'abc',
    });
  });

  it('are refused -32021, naming the extension, when the request did not declare it', async () => {
    expect(await refusal(() => taskRequest('tasks/get', { taskId: 'abc' }))).toEqual({
      code: -32021,
      message: 'Missing required client capability',
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    });
  });

  it.each([
    [
      'tasks/get',
      {},
      'Invalid params for tasks/get: taskId: Invalid input: expected string, received undefined',
    ],
    [
      'tasks/get',
      { taskId: 7 },
      'Invalid params for tasks/get: taskId: Invalid input: expected string, received number',
    ],
    [
      'tasks/cancel',
      { taskId: null },
      'Invalid params for tasks/cancel: taskId: Invalid input: expected string, received null',
    ],
    [
      'tasks/update',
      { taskId: 'abc' },
      'Invalid params for tasks/update: inputResponses: Invalid input: expected record, received undefined',
    ],
  ] as const)('are refused -32602 naming the field: %s %j', async (method, params, message) => {
    expect(await refusal(() => taskRequest(method, declared(params)))).toEqual({ code: -32602, message });
  });
});

describe('results', () => {
  it('CreateTaskResult: the seed task with resultType "task", as the extension’s schema reads it', () => {
    const answer = createTaskResult(taskOf(record()));
    expect(answer).toEqual({
      resultType: 'task',
      taskId: '786512e2-9e0d-44bd-8f29-789f320fe840',
      status: 'working',
      statusMessage: '12%: vm web-1: new → active (6 s, usually about 45 s, gives up at 300 s)',
      createdAt: '2026-08-01T10:00:00.000Z',
      lastUpdatedAt: '2026-08-01T10:00:06.000Z',
      ttlMs: 3_900_000,
      pollIntervalMs: 4_500,
    });
    expect(CreateTaskResultV2Schema.parse(answer)).toEqual(answer);
  });

  const result = {
    content: [{ type: 'text', text: '{"droplet":{"id":7}}' }],
    structuredContent: { droplet: { id: 7 } },
  };
  it.each([
    ['working', {}, {}],
    ['completed', { result }, { result: { resultType: 'complete', ...result } }],
    [
      'completed',
      { result: { content: [{ type: 'text', text: 'Timed out' }], isError: true } },
      { result: { resultType: 'complete', content: [{ type: 'text', text: 'Timed out' }], isError: true } },
    ],
    ['failed', { error: { code: -32603, message: 'lost' } }, { error: { code: -32603, message: 'lost' } }],
    ['cancelled', {}, {}],
  ] as const)(
    'tasks/get of a %s task: resultType "complete", its payload, valid for the extension',
    (status, change, payload) => {
      const answer = getTaskResult(detailedOf(record({ status, ...change })));
      expect(answer).toMatchObject({ resultType: 'complete', status, ...payload });
      expect(GetTaskResultV2Schema.safeParse(answer).success).toBe(true);
      // Nothing of the record beyond the Task and its payload: no caller, no arguments, no lease.
      expect(Object.keys(answer).sort()).toEqual(
        [
          'createdAt',
          'lastUpdatedAt',
          'pollIntervalMs',
          'resultType',
          'status',
          'statusMessage',
          'taskId',
          'ttlMs',
          ...Object.keys(payload),
        ].sort(),
      );
    },
  );

  it('errors of the service: not found is -32602 in the spec’s words, the store’s is -32603 saying where', () => {
    expect({ ...protocolErrorOf(new TaskNotFound(), 'tasks/cancel') }).toMatchObject({ code: -32602 });
    expect(protocolErrorOf(new TaskNotFound(), 'tasks/cancel').message).toBe(
      'Failed to cancel task: Task not found',
    );
    const down = protocolErrorOf(
      new TaskStoreError('tasks are kept in Redis at redis://r:6379, which cannot be reached'),
      'tasks/get',
    );
    expect([down.code, down.message]).toEqual([
      -32603,
      'tasks are kept in Redis at redis://r:6379, which cannot be reached',
    ]);
  });
});

describe('handleTaskRequest', () => {
  let service: TaskService<undefined> | undefined;
  afterEach(async () => {
    await service?.close();
  });

  it('answers get, cancel and update for the caller, and the same -32602 to anyone else as for no task', async () => {
    service = createTaskService<undefined>({
      store: memoryTaskStore(),
      resume: async () => ({ content: [] }),
      sweep: false,
    });
    let finish: (value: { content: [] }) => void = () => undefined;
    const seed = await startRun(service, {
      caller: 'alice',
      run: () => new Promise((resolve) => (finish = resolve)),
    });
    const params = declared({ taskId: seed.taskId });
    const got = await handleTaskRequest(service, 'tasks/get', params, 'alice');
    expect(got).toMatchObject({ resultType: 'complete', status: 'working', taskId: seed.taskId });
    expect(GetTaskResultV2Schema.safeParse(got).success).toBe(true);
    const update = await handleTaskRequest(
      service,
      'tasks/update',
      declared({ taskId: seed.taskId, inputResponses: { x: { action: 'accept' } } }),
      'alice',
    );
    expect(UpdateTaskResultV2Schema.parse(update)).toEqual({ resultType: 'complete' });

    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update'] as const) {
      const extra = method === 'tasks/update' ? { inputResponses: {} } : {};
      const theirs = await refusal(() =>
        handleTaskRequest(
          service as TaskService<undefined>,
          method,
          declared({ taskId: seed.taskId, ...extra }),
          'bob',
        ),
      );
      const none = await refusal(() =>
        handleTaskRequest(
          service as TaskService<undefined>,
          method,
          declared({ taskId: 'no-such-task', ...extra }),
          'bob',
        ),
      );
      expect(theirs.code).toBe(-32602);
      expect(theirs).toEqual(none);
    }
    expect(
      (
        await refusal(() =>
          handleTaskRequest(service as TaskService<undefined>, 'tasks/get', declared({ taskId: 'x' }), 'bob'),
        )
      ).message,
    ).toBe('Failed to retrieve task: Task not found');

    const cancelled = await handleTaskRequest(service, 'tasks/cancel', params, 'alice');
    expect(CancelTaskResultV2Schema.parse(cancelled)).toEqual({ resultType: 'complete' });
    expect(await handleTaskRequest(service, 'tasks/get', params, 'alice')).toMatchObject({
      status: 'cancelled',
    });
    // The run ending after the cancel changes nothing.
    finish({ content: [] });
    await until(() => true);
    expect(await handleTaskRequest(service, 'tasks/get', params, 'alice')).toMatchObject({
      status: 'cancelled',
    });
  });

  it('fails a task with the JSON-RPC error its run threw, and an unexpected failure as -32603', async () => {
    service = createTaskService<undefined>({
      store: memoryTaskStore(),
      resume: async () => ({ content: [] }),
      sweep: false,
    });
    const protocol = Object.assign(new Error('Unknown tool vm-creat'), {
      code: -32602,
      data: { error_id: 'unknown_tool' },
    });
    const a = await startRun(service, { caller: 'alice', run: async () => Promise.reject(protocol) });
    const b = await startRun(service, {
      caller: 'alice',
      run: async () => Promise.reject(new TypeError('boom')),
    });
    const ended = (taskId: string) =>
      until(async () => {
        const task = await handleTaskRequest(
          service as TaskService<undefined>,
          'tasks/get',
          declared({ taskId }),
          'alice',
        );
        return (task as { status: string }).status === 'failed' ? task : undefined;
      });
    const first = await ended(a.taskId);
    expect(first).toMatchObject({
      status: 'failed',
      error: { code: -32602, message: 'Unknown tool vm-creat', data: { error_id: 'unknown_tool' } },
      statusMessage: 'vm-create failed: Unknown tool vm-creat',
    });
    expect(GetTaskResultV2Schema.safeParse(first).success).toBe(true);
    expect(await ended(b.taskId)).toMatchObject({ error: { code: -32603, message: 'Internal error: boom' } });
  });
});
