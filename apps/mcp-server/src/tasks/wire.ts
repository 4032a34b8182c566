/**
 * The Tasks extension on the wire (`io.modelcontextprotocol/tasks`, protocol revision
 * 2026-07-28), apart from any SDK: which requests declared the extension, the params of
 * tasks/get, tasks/update and tasks/cancel checked with the extension's own schemas
 * (`@modelcontextprotocol/ext-tasks/core/v2`), and the results' shapes. A server registers
 * `handleTaskRequest` for the three methods and calls `startToolTask` first in tools/call; a
 * TaskProtocolError is the JSON-RPC error to answer (its code, message and data).
 */
import {
  CancelTaskRequestV2Schema,
  type CreateTaskResultV2,
  type DetailedTaskV2,
  GetTaskRequestV2Schema,
  type GetTaskResultV2,
  hasTaskClientCapabilityV2,
  TASKS_EXTENSION_ID_V2,
  type TaskV2,
  UpdateTaskRequestV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import type { CallToolRequestParams, CallToolResult } from '@modelcontextprotocol/server';
import { type CallExtra, failure, type ToolCall } from '../tool-call.js';
import type { ToolData } from '../tool-data.js';
import { TaskStoreError } from './redis-store.js';
import { TaskNotFound, TaskRefusal, type TaskService } from './service.js';
import { planTask, toolTaskRun } from './tool-tasks.js';

export const TASKS_EXTENSION = TASKS_EXTENSION_ID_V2;

/** What a server declares (`capabilities.extensions`) to say it makes tasks. */
export const TASKS_CAPABILITY = { [TASKS_EXTENSION_ID_V2]: {} } as const;

export type TaskMethod = 'tasks/get' | 'tasks/update' | 'tasks/cancel';
export const TASK_METHODS: readonly TaskMethod[] = ['tasks/get', 'tasks/update', 'tasks/cancel'];

/**
 * Each method's params as the extension's schema has them, with `_meta` (and anything else) kept:
 * the per-request capabilities travel in `_meta`, which the extension's own object would drop.
 */
export const TASK_PARAMS = {
  'tasks/get': GetTaskRequestV2Schema.shape.params.loose(),
  'tasks/update': UpdateTaskRequestV2Schema.shape.params.loose(),
  'tasks/cancel': CancelTaskRequestV2Schema.shape.params.loose(),
} as const;

/** JSON-RPC errors the extension names. */
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

/** A JSON-RPC error to answer a task request with. */
export class TaskProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'TaskProtocolError';
  }
}

/**
 * Whether a request declared the extension in its own capabilities
 * (`_meta["io.modelcontextprotocol/clientCapabilities"].extensions`): only such a tools/call may
 * be answered with a task, and only such a client may ask about one. What it declared at
 * initialize or on another request does not count.
 */
export function declaresTasks(params: unknown): boolean {
  return hasTaskClientCapabilityV2(params);
}

/** The -32021 answer to a task request that did not declare the extension. */
export function missingTasksCapability(): TaskProtocolError {
  return new TaskProtocolError(MISSING_REQUIRED_CLIENT_CAPABILITY, 'Missing required client capability', {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID_V2]: {} } },
  });
}

/**
 * The params of a task request, checked: the extension declared on it (-32021 otherwise) and the
 * shape its schema gives (-32602 naming the field otherwise). Answers the task id.
 */
export function taskRequest(method: TaskMethod, params: unknown): { taskId: string } {
  if (!declaresTasks(params)) throw missingTasksCapability();
  const parsed = TASK_PARAMS[method].safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'params';
    throw new TaskProtocolError(
      INVALID_PARAMS,
      `Invalid params for ${method}: ${where}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return { taskId: parsed.data.taskId };
}

/** A tools/call answered with a task: the seed Task, `resultType: "task"`. */
export function createTaskResult(task: TaskV2): CreateTaskResultV2 {
  return { resultType: 'task', ...task };
}

/**
 * tasks/get's answer: the task as it stands, `resultType: "complete"`. A completed task's result
 * is the CallToolResult the call would have answered, in 2026-07-28's shape (`resultType` too).
 */
export function getTaskResult(task: DetailedTaskV2): GetTaskResultV2 {
  if (task.status === 'completed') {
    return { ...task, result: { resultType: 'complete', ...task.result }, resultType: 'complete' };
  }
  return { ...task, resultType: 'complete' };
}

/** tasks/update's and tasks/cancel's answer: an empty acknowledgement. */
export function emptyResult(): { resultType: 'complete' } {
  return { resultType: 'complete' };
}

/** A failure of the service as the JSON-RPC error to answer (never a stack, never a secret). */
export function protocolErrorOf(error: unknown, method: string): TaskProtocolError {
  if (error instanceof TaskProtocolError) return error;
  if (error instanceof TaskNotFound) {
    return new TaskProtocolError(INVALID_PARAMS, `Failed to ${verbOf(method)} task: Task not found`);
  }
  if (error instanceof TaskStoreError) return new TaskProtocolError(INTERNAL_ERROR, error.message);
  return new TaskProtocolError(
    INTERNAL_ERROR,
    `Internal error: ${error instanceof Error ? error.message : String(error)}`,
  );
}

function verbOf(method: string): string {
  if (method === 'tasks/cancel') return 'cancel';
  if (method === 'tasks/update') return 'update';
  return 'retrieve';
}

/**
 * tasks/get, tasks/update or tasks/cancel for `caller` (http.ts callerOf), with `auth` the
 * request's credentials (what a takeover runs with). Throws a TaskProtocolError to answer.
 */
export async function handleTaskRequest<Auth>(
  service: TaskService<Auth>,
  method: TaskMethod,
  params: unknown,
  caller: string,
  auth?: Auth,
): Promise<GetTaskResultV2 | { resultType: 'complete' }> {
  const { taskId } = taskRequest(method, params);
  try {
    if (method === 'tasks/get') return getTaskResult(await service.get(caller, taskId, auth));
    if (method === 'tasks/cancel') await service.cancel(caller, taskId);
    // No task here asks for input: responses to keys never issued are ignored, as the spec says.
    else await service.update(caller, taskId);
    return emptyResult();
  } catch (error) {
    throw protocolErrorOf(error, method);
  }
}

/**
 * tools/call as a task, when it becomes one: the request declared the extension and the tool is a
 * long operation (`planTask`). Answers the CreateTaskResult once the task is recorded, which is
 * when the call is about to send its request; the call's own answer when it ended before (invalid
 * arguments, a refusal, a question to confirm: what the spec wants resolved before a task); an
 * error result when the caller is past its bound or the store cannot be reached; or undefined:
 * not a task, run the call as usual.
 */
export async function startToolTask(input: {
  service: TaskService<CallExtra['authInfo']>;
  call: ToolCall;
  /** The tool as listed, or undefined for a tool not offered (the call answers that). */
  listed: ToolData | undefined;
  params: CallToolRequestParams;
  extra: CallExtra;
  caller: string;
}): Promise<CreateTaskResultV2 | CallToolResult | undefined> {
  const { service, call, listed, params, extra, caller } = input;
  if (!declaresTasks(params)) return undefined;
  const plan = await planTask(listed, params.arguments);
  if (!plan) return undefined;
  try {
    const started = await service.start({
      caller,
      tool: params.name,
      plan,
      run: toolTaskRun(call, params, extra),
      signal: extra.signal,
    });
    return 'task' in started ? createTaskResult(started.task) : started.answer;
  } catch (error) {
    if (error instanceof TaskRefusal) return failure(error.report);
    throw error;
  }
}
