/**
 * A task as the stores keep it, and what a store must do. A record holds what a replica needs to
 * answer tasks/get and to take the task over: never the call's arguments (a create's may hold a
 * password), except for a tool that only reads (`wait`), which is run again whole.
 */
import type { WaitKind } from '@cloudcall/core';
import type { TaskWaits } from '../tool-call.js';

export type TaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';

/** A JSON-RPC error, as a failed task carries it. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

export interface TaskRecord {
  /** A random UUID: the spec wants ids a third party cannot guess. */
  taskId: string;
  /** Who started it (http.ts callerOf: a key's name or a token's hash); only they see it. */
  caller: string;
  tool: string;
  /** What the call waits for: the TTL, the poll interval and the advice of a lost task come from it. */
  kind: WaitKind;
  status: TaskStatus;
  statusMessage: string;
  /** Real time, ms since the epoch. */
  createdAt: number;
  lastUpdatedAt: number;
  ttlMs: number;
  pollIntervalMs: number;
  /** A tool that only reads: its arguments, so that a replica taking the task over runs it again. */
  rerunArgs?: Record<string, unknown> | undefined;
  /** Set once the tool's answer is in: what is left (the wait), all a takeover resumes. */
  remaining?: TaskWaits | undefined;
  /** completed: the CallToolResult (an isError one too). */
  result?: Record<string, unknown> | undefined;
  /** failed: the JSON-RPC error. */
  error?: TaskError | undefined;
}

/** What a running task may change: its status and what goes with it. */
export type TaskChange = Partial<
  Pick<TaskRecord, 'status' | 'statusMessage' | 'lastUpdatedAt' | 'remaining' | 'result' | 'error'>
>;

/** A task as a change names it: its id, and its caller (Redis keeps a caller's tasks working). */
export type TaskKey = Pick<TaskRecord, 'taskId' | 'caller'>;

/** What one replica learns of the tasks it runs at each heartbeat. */
export interface TaskBeat {
  /** The task's status now, or undefined when it is gone (expired). */
  status: TaskStatus | undefined;
  /** Whether this replica still holds the task's lease (another one took it over otherwise). */
  held: boolean;
}

/**
 * Where tasks live: this process's memory (`memoryTaskStore`), or Redis, shared by the replicas
 * (`redisTaskStore`). Every change is conditional on the task still working, so a cancel and a
 * finish racing on two replicas leave one outcome, whichever came first.
 */
export interface TaskStore {
  /** `this process` or `Redis at redis://host:port`: for logs and errors. */
  readonly where: string;
  /**
   * Records a new task, leased to `owner` for `leaseMs`, unless its caller already has `most`
   * tasks working: `{ created: false, working }` then, and nothing is recorded. Settles once a
   * read of the task would find it (the spec's "durably created").
   */
  create(
    record: TaskRecord,
    owner: string,
    leaseMs: number,
    most: number,
  ): Promise<{ created: true } | { created: false; working: number }>;
  /** How many tasks `caller` has working now. */
  working(caller: string): Promise<number>;
  /** The task, or undefined when there is none (never made, or expired). */
  read(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Applies `change` when the task is still working, and answers the record as it is after it
   * (changed or not); undefined when the task is gone.
   */
  update(task: TaskKey, change: TaskChange): Promise<TaskRecord | undefined>;
  /** Takes the lease of a task no replica holds (none did, or its holder stopped renewing it). */
  claim(taskId: string, owner: string, leaseMs: number): Promise<boolean>;
  /**
   * Renews the leases `owner` holds on `taskIds` (taking again one that lapsed while no one took
   * it), and says how each task stands.
   */
  beat(taskIds: readonly string[], owner: string, leaseMs: number): Promise<TaskBeat[]>;
  /** Gives a lease back (the run ended), when `owner` holds it. */
  release(taskId: string, owner: string): Promise<void>;
  /** Tasks still working whose lease no replica holds: what a sweep takes over. */
  orphans(): Promise<string[]>;
  close(): Promise<void>;
}

export const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);
