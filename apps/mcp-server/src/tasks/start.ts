/**
 * The task service as a server process makes it: on the --redis connection when there is one
 * (shared by the replicas), else in this process; resuming through the process's tool runner.
 */
import type { RedisConnection } from '@cloudcall/guard/redis';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { ToolCall } from '../tool-call.js';
import { memoryTaskStore } from './memory-store.js';
import { redisTaskStore } from './redis-store.js';
import { createTaskService, type TaskLimits, type TaskService } from './service.js';
import { toolTaskResume } from './tool-tasks.js';

export function toolTaskService(options: {
  /** The process's tool runner (createToolCall). */
  call: ToolCall;
  /** The process's --redis connection; none: tasks live in this process. */
  redis?: RedisConnection | undefined;
  /**
   * --auth token-passthrough: each caller's token comes with its requests, so a task is taken
   * over only by its caller's next tasks/get, never by a sweep.
   */
  tokenFromRequest?: boolean | undefined;
  limits?: Partial<TaskLimits> | undefined;
  log?: ((line: string) => void) | undefined;
}): TaskService<AuthInfo> {
  return createTaskService<AuthInfo>({
    store: options.redis ? redisTaskStore(options.redis) : memoryTaskStore(),
    resume: toolTaskResume(options.call),
    // Without Redis no other process shares the tasks: there is nothing to sweep for.
    sweep: options.redis !== undefined && !options.tokenFromRequest,
    limits: options.limits,
    log: options.log,
  });
}
