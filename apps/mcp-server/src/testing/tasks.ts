/**
 * Test harness for tasks: a "replica" is what one server process has for them, the process's
 * tool runner (tool-call.ts, against the sandbox on loopback, waiting on the sandbox clock) and a
 * task service on a store; several replicas share one store (one redis-server) and one sandbox.
 *
 *   const sandbox = await frozenSandbox();
 *   const one = replica({ sandbox, store: memoryTaskStore() });
 *   const seed = await one.startTask('alice', 'vm-create', { Name: 'web', ... });
 *   await sandbox.sandbox.advanceClock(5_000);   // the VM boots, the wait ends
 */
import type { ApiClient, ToolClock } from '@cloudcall/core';
import { connectSandbox, type SandboxConnection } from '@cloudcall/sandbox';
import type { TaskV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { LISTING } from '../listing.generated.js';
import type { McpServerOptions } from '../server.js';
import type { TaskRecord, TaskStore } from '../tasks/record.js';
import {
  createTaskService,
  type TaskLimits,
  type TaskPlan,
  type TaskRun,
  type TaskService,
  type TaskTiming,
} from '../tasks/service.js';
import { toolTaskResume } from '../tasks/tool-tasks.js';
import { startToolTask } from '../tasks/wire.js';
import { type CallExtra, createToolCall } from '../tool-call.js';
import { UBUNTU } from './client.js';

/** The per-request capabilities of a client that declared the Tasks extension. */
export const DECLARES_TASKS = {
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};

/** A VM's arguments but its name, as createSandboxVm gives them. */
export const VM_ARGS = { Size: 's-1vcpu-1gb', ImageID: UBUNTU, Region: 'nyc3' };

/**
 * A sandbox whose real clock stands still: sandbox time moves only when a test says
 * (`advanceClock`), so a VM boots when the test wants, however slow the machine.
 */
export function frozenSandbox(): Promise<SandboxConnection> {
  const started = Date.now();
  return connectSandbox({ now: () => started });
}

export interface Replica {
  service: TaskService<CallExtra['authInfo']>;
  /** Waits sleeping now on the clock: 0 once every wait stopped. */
  sleeping(): number;
  /** What it logged. */
  log(): string;
  /**
   * tools/call as the modern path would run it for a client declaring the extension: the
   * CreateTaskResult or a CallToolResult. The request is answered, then its client goes away:
   * its signal is aborted, which must not stop the task.
   */
  call(
    caller: string,
    name: string,
    args: Record<string, unknown>,
    declares?: boolean,
  ): Promise<Record<string, unknown>>;
  /** `call`, expecting a task: its id. */
  startTask(caller: string, name: string, args: Record<string, unknown>): Promise<string>;
}

export function replica(options: {
  sandbox: SandboxConnection;
  store: TaskStore;
  /** The API client: the sandbox's by default. */
  client?: ApiClient;
  timing?: Partial<TaskTiming>;
  limits?: Partial<TaskLimits>;
  sweep?: boolean;
  /** Real time for the service (createdAt): the store's own, when a test moves it. */
  now?: () => number;
  /** Told of each takeover's resume, before it runs. */
  onResume?: (record: TaskRecord) => void;
}): Replica {
  let lines = '';
  const log = (line: string) => {
    lines += `${line}\n`;
  };
  let sleeping = 0;
  const clock: ToolClock = {
    now: options.sandbox.clock.now,
    sleep: async (ms, signal) => {
      sleeping++;
      try {
        await options.sandbox.clock.sleep(ms, signal);
      } finally {
        sleeping--;
      }
    },
  };
  const api = Promise.resolve(options.client ?? options.sandbox.client);
  const serverOptions: McpServerOptions = {
    client: () => api,
    clock,
    tools: LISTING.tools.filter((tool) => tool.family === 'vms' || tool.family === 'account'),
    version: '0',
    sandbox: true,
    log,
  };
  const call = createToolCall(serverOptions);
  const resume = toolTaskResume(call);
  const service = createTaskService<CallExtra['authInfo']>({
    store: options.store,
    resume: (record, context, auth) => {
      options.onResume?.(record);
      return resume(record, context, auth);
    },
    sweep: options.sweep ?? false,
    timing: options.timing,
    limits: options.limits,
    now: options.now,
    log,
  });
  let ids = 0;
  const callTool = async (caller: string, name: string, args: Record<string, unknown>, declares = true) => {
    const request = new AbortController();
    const extra: CallExtra = {
      signal: request.signal,
      requestId: ++ids,
      sendNotification: async () => undefined,
      authInfo: { token: '', clientId: caller, scopes: [] },
    };
    const params = { name, arguments: args, ...(declares ? { _meta: DECLARES_TASKS } : {}) };
    const listed = serverOptions.tools.find((tool) => tool.name === name);
    try {
      const answer = await startToolTask({ service, call, listed, params, extra, caller });
      return (answer ?? (await call(params, extra))) as Record<string, unknown>;
    } finally {
      // The answer is sent; the client disconnects.
      request.abort();
    }
  };
  return {
    service,
    sleeping: () => sleeping,
    log: () => lines,
    call: callTool,
    async startTask(caller, name, args) {
      const answer = await callTool(caller, name, args);
      if (answer.resultType !== 'task') {
        throw new Error(`${name} was not started as a task: ${JSON.stringify(answer as CallToolResult)}`);
      }
      return answer.taskId as string;
    },
  };
}

type Falsy = undefined | null | false;

/** Polls `check` every 20 ms until it answers something truthy, or fails after `ms`. */
export async function until<T>(
  check: () => Promise<T | Falsy> | T | Falsy,
  ms = 10_000,
  what = 'the condition',
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as T;
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A task of `run` started on a service directly, as a call that sends its request at once: its
 * seed Task (fails when the run ended before it was recorded).
 */
export async function startRun(
  service: TaskService<unknown> | TaskService<undefined> | TaskService<CallExtra['authInfo']>,
  input: { caller: string; plan?: TaskPlan; run: TaskRun },
): Promise<TaskV2> {
  const started = await (service as TaskService<unknown>).start({
    caller: input.caller,
    tool: 'vm-create',
    plan: input.plan ?? { kind: 'vm', waitSeconds: 300 },
    run: async (context) => {
      await context.sending();
      return input.run(context);
    },
  });
  if (!('task' in started)) throw new Error(`answered without a task: ${JSON.stringify(started.answer)}`);
  return started.task;
}
