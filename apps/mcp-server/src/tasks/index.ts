/**
 * Tasks (the MCP extension `io.modelcontextprotocol/tasks`) for the long tool calls: what the
 * server's 2026-07-28 path wires in. `createTaskService` with a store (`memoryTaskStore`, or
 * `redisTaskStore` on the process's --redis connection), `startToolTask` first in tools/call, and
 * `handleTaskRequest` for tasks/get, tasks/update and tasks/cancel.
 */
export { memoryTaskStore } from './memory-store.js';
export type { TaskRecord, TaskStatus, TaskStore } from './record.js';
export { redisTaskStore, TaskStoreError } from './redis-store.js';
export {
  createTaskService,
  DEFAULT_TASK_LIMITS,
  DEFAULT_TASK_TIMING,
  type TaskLimits,
  TaskNotFound,
  type TaskPlan,
  TaskRefusal,
  type TaskRun,
  type TaskRunContext,
  type TaskService,
  type TaskServiceOptions,
  type TaskTiming,
} from './service.js';
export { toolTaskService } from './start.js';
export { planTask, toolTaskResume, toolTaskRun } from './tool-tasks.js';
export {
  createTaskResult,
  declaresTasks,
  emptyResult,
  getTaskResult,
  handleTaskRequest,
  missingTasksCapability,
  startToolTask,
  TASK_METHODS,
  TASK_PARAMS,
  TASKS_CAPABILITY,
  TASKS_EXTENSION,
  type TaskMethod,
  TaskProtocolError,
  taskRequest,
} from './wire.js';
