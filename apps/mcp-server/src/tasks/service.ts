/**
 * The task service: long tool calls (a create and the wait for what it started) run as tasks of
 * the Tasks extension (`io.modelcontextprotocol/tasks`). `start` records a task and answers its
 * seed before the call goes on in the background; `get`, `cancel` and `update` answer tasks/get,
 * tasks/cancel and tasks/update for the caller who started it (anyone else is told it does not
 * exist). The call's progress is the task's statusMessage.
 *
 * With a store shared by replicas (Redis), the replica running a task holds a lease on it and
 * renews it (`beat`); a replica that finds a working task whose lease lapsed (on tasks/get, or in
 * a periodic sweep) takes it over. The tool's request is never sent again: once its answer is in,
 * what is left (the wait: kind and ids) is recorded, and a takeover resumes only that wait. A
 * task whose replica stopped before the answer was recorded ends `failed`, saying the outcome is
 * unknown and how to find out; a tool that only reads (`wait`) is run again whole.
 */
import { randomUUID } from 'node:crypto';
import type { ToolProgress, WaitKind } from '@cloudcall/core';
import { type ErrorReport, showControls } from '@cloudcall/core/internal';
import { TYPICAL_SECONDS, WAIT_KINDS } from '@cloudcall/wait';
import type { DetailedTaskV2, TaskV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ShareRefusal } from '../fair-share.js';
import type { TaskWaits } from '../tool-call.js';
import {
  type TaskChange,
  type TaskError,
  type TaskKey,
  type TaskRecord,
  type TaskStore,
  TERMINAL,
} from './record.js';

/** What a task's run is given: how it is stopped, where its progress goes, how it records its answer. */
export interface TaskRunContext {
  /**
   * Aborted by tasks/cancel (on any replica), or when this replica gives the task up; before the
   * task is recorded, by the request's own signal (its client went away: nothing was sent).
   */
  signal: AbortSignal;
  /**
   * The call is about to send a request that changes something: the task is recorded first
   * (settling once tasks/get would find it), and the tools/call is answered with it. Throws a
   * TaskRefusal when it cannot be recorded: the request is then not sent.
   */
  sending(): Promise<void>;
  /** A progress report: the task's statusMessage. */
  progress(update: ToolProgress): void;
  /** The tool's answer is in: what is left is recorded before the run goes on to wait for it. */
  started(remaining: TaskWaits): Promise<void>;
}

/** A task's work: the tool call and its wait, answering the call's result. */
export type TaskRun = (context: TaskRunContext) => Promise<CallToolResult>;

/** How a call runs as a task (tasks/plan.ts decides it from the tool's definition). */
export interface TaskPlan {
  /** What it waits for. */
  kind: WaitKind;
  /** The longest its wait lasts: the TTL covers it. */
  waitSeconds: number;
  /** A tool that only reads (`wait`): its arguments, run again whole by a replica taking it over. */
  rerunArgs?: Record<string, unknown> | undefined;
}

export interface TaskLimits {
  /** Tasks one caller may have working at once; past it, a call is refused (default 10). */
  workingPerCaller: number;
  /** How long a task is kept after its wait's longest time, for its caller to fetch (default 1 h). */
  keepMs: number;
}

export interface TaskTiming {
  /** How long a lease lasts without a heartbeat: how soon another replica takes a task over. */
  leaseMs: number;
  /** How often a replica renews its leases and looks for cancels made elsewhere. */
  beatMs: number;
  /** How often a replica looks for tasks no replica holds; 0: never (only tasks/get takes over). */
  sweepMs: number;
}

export const DEFAULT_TASK_LIMITS: TaskLimits = { workingPerCaller: 10, keepMs: 3_600_000 };
// A cancel made on another replica lands within a beat: well under the second the issue allows.
export const DEFAULT_TASK_TIMING: TaskTiming = { leaseMs: 15_000, beatMs: 250, sweepMs: 5_000 };

export interface TaskServiceOptions<Auth> {
  store: TaskStore;
  /**
   * Runs what is left of a task taken over from a replica that stopped: the wait it recorded
   * (`record.remaining`), or the whole call for a tool that only reads (`record.rerunArgs`).
   * `auth` is the credentials of the tasks/get that found it, undefined in a sweep.
   */
  resume(record: TaskRecord, context: TaskRunContext, auth: Auth | undefined): Promise<CallToolResult>;
  /**
   * Whether tasks may be resumed with no request of their caller's (a sweep): true when calls use
   * the server's own token; false when each caller brings theirs (--auth token-passthrough), when
   * only the caller's next tasks/get takes a task over.
   */
  sweep: boolean;
  limits?: Partial<TaskLimits>;
  timing?: Partial<TaskTiming>;
  /** Real time (ms since the epoch), for createdAt and lastUpdatedAt. */
  now?: () => number;
  log?: (line: string) => void;
}

export interface TaskService<Auth> {
  /** Where tasks are kept, for logs. */
  readonly where: string;
  /**
   * Runs `run` and makes it a task when it is about to send its request (`sending`; a tool that
   * only reads, at once): answers the seed Task once tasks/get would find it, while the call goes
   * on in the background. A call that ends before (invalid arguments, a refusal, a question to
   * confirm) answers its own result, and no task is made. Throws a TaskRefusal past the caller's
   * bound, or while the store cannot be reached (nothing is sent then).
   */
  start(input: {
    caller: string;
    tool: string;
    plan: TaskPlan;
    run: TaskRun;
    /** The tools/call request's signal: it stops the call only until the task is recorded. */
    signal?: AbortSignal | undefined;
  }): Promise<StartOutcome>;
  /** tasks/get: throws TaskNotFound for a task that is not the caller's, or gone. */
  get(caller: string, taskId: string, auth?: Auth): Promise<DetailedTaskV2>;
  /** tasks/cancel: a working task is cancelled, and its run stopped within a beat; a finished one is left. */
  cancel(caller: string, taskId: string): Promise<void>;
  /** tasks/update: no task here asks for input, so there is nothing to answer (the spec: ignored). */
  update(caller: string, taskId: string): Promise<void>;
  /** Takes over the tasks no replica holds (what the periodic sweep does); answers how many. */
  sweep(): Promise<number>;
  /**
   * Stops: this replica's runs stop and their leases are given back, so that another replica
   * takes them over at once (their tasks stay working). The store is the caller's to close.
   */
  close(): Promise<void>;
}

/** A task that is not the caller's, was never made, or is gone: what every other caller is told too. */
export class TaskNotFound extends Error {
  constructor() {
    super('Task not found: no task of yours has this id (it may have expired)');
    this.name = 'TaskNotFound';
  }
}

/** What `start` answers: the task, or the call's own answer when it ended before it was one. */
export type StartOutcome = { task: TaskV2 } | { answer: CallToolResult };

/**
 * A call not started as a task, nothing sent (past the caller's bound, or no store to keep it):
 * `report` is the error result's facts. A ShareRefusal, so that the tool runner answers it as such
 * when it stops a request about to be sent.
 */
export class TaskRefusal extends ShareRefusal {
  constructor(report: ErrorReport) {
    super(report);
    this.name = 'TaskRefusal';
  }
}

/** What the run of one task on this replica holds. */
interface LocalRun {
  key: TaskKey;
  controller: AbortController;
  /** This replica gave the task up (closing, or another replica holds it): it writes nothing more. */
  dropped: boolean;
  /** Its writes, one after the other, so a late progress report never lands after the end. */
  writes: Promise<unknown>;
}

export function createTaskService<Auth>(options: TaskServiceOptions<Auth>): TaskService<Auth> {
  const { store } = options;
  const limits = { ...DEFAULT_TASK_LIMITS, ...options.limits };
  const timing = { ...DEFAULT_TASK_TIMING, ...options.timing };
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => undefined);
  /** This replica, as its leases name it. */
  const owner = randomUUID();
  const local = new Map<string, LocalRun>();
  let closed = false;

  /** The caller's task, or TaskNotFound: another caller's is not found either (never "not yours"). */
  const owned = async (caller: string, taskId: string): Promise<TaskRecord> => {
    const record = typeof taskId === 'string' && taskId.length <= 100 ? await store.read(taskId) : undefined;
    if (!record || record.caller !== caller) throw new TaskNotFound();
    return record;
  };

  /**
   * Runs `run` for a task: one this replica holds the lease of (`record` made), or, from `start`,
   * one recorded only once the call is about to send its request (`begin`). Its outcome is
   * written when it ends; `early` hears of a call that ended before it was ever recorded.
   */
  const launch = (
    record: TaskRecord,
    run: TaskRun,
    begin?: {
      /** Records the task; throws a TaskRefusal when it cannot be. */
      create: () => Promise<void>;
      /** The task is recorded and this replica runs it: the call may be answered with it. */
      created: () => void;
      /** The call ended with nothing sent, so no task: its answer, or what it threw. */
      early: (outcome: { answer: CallToolResult } | { error: unknown }) => void;
      /** The request's own signal: it stops the call only until the task is recorded. */
      signal?: AbortSignal | undefined;
    },
  ) => {
    const key = { taskId: record.taskId, caller: record.caller };
    const entry: LocalRun = {
      key,
      controller: new AbortController(),
      dropped: false,
      writes: Promise.resolve(),
    };
    let made = !begin;
    let making: Promise<void> | undefined;
    const stopEarly = () => {
      if (!made) entry.controller.abort();
    };
    if (begin?.signal?.aborted) stopEarly();
    begin?.signal?.addEventListener('abort', stopEarly, { once: true });
    const makeTask = async () => {
      await begin?.create();
      // Before the call is answered: its client may go away as soon as it is, and must not stop it.
      made = true;
      begin?.signal?.removeEventListener('abort', stopEarly);
      local.set(record.taskId, entry);
      begin?.created();
    };
    if (made) local.set(record.taskId, entry);
    const write = (change: TaskChange): Promise<TaskRecord | undefined> => {
      const done = entry.writes.then(() =>
        entry.dropped || !made ? undefined : store.update(key, { ...change, lastUpdatedAt: now() }),
      );
      entry.writes = done.catch(() => undefined);
      return done;
    };
    let lastProgress: string | undefined;
    const context: TaskRunContext = {
      signal: entry.controller.signal,
      sending() {
        making ??= makeTask();
        return making;
      },
      progress(update) {
        lastProgress = update.message;
        if (entry.controller.signal.aborted || !made) return;
        write({ statusMessage: progressMessage(update) }).catch((error: unknown) =>
          log(`task ${record.taskId}: progress not recorded: ${messageOf(error)}`),
        );
      },
      async started(remaining) {
        try {
          await write({ remaining, statusMessage: startedMessage(record.tool, remaining) });
        } catch (error) {
          // The wait goes on here; only a takeover would need the record, and it says so.
          log(`task ${record.taskId}: what is left of ${record.tool} not recorded: ${messageOf(error)}`);
        }
      },
    };
    void (async () => {
      let outcome: TaskChange;
      let answer: CallToolResult | undefined;
      let thrown: unknown;
      try {
        answer = await run(context);
        outcome = {
          status: 'completed',
          result: answer,
          statusMessage: completedMessage(record.tool, answer, lastProgress),
        };
      } catch (error) {
        thrown = error;
        const failure = rpcErrorOf(error);
        outcome = {
          status: 'failed',
          error: failure,
          statusMessage: `${record.tool} failed: ${failure.message}`,
        };
      }
      if (!made) {
        begin?.signal?.removeEventListener('abort', stopEarly);
        begin?.early(answer ? { answer } : { error: thrown });
        return;
      }
      // Cancelled (the store says so already) or given up (another replica writes it): no outcome here.
      if (!entry.controller.signal.aborted) await finish(record, write, outcome);
      local.delete(record.taskId);
      if (!entry.dropped) {
        await store.release(record.taskId, owner).catch(() => undefined);
      }
    })();
  };

  /** The outcome, written again a few times while the store cannot be reached. */
  const finish = async (
    record: TaskRecord,
    write: (change: TaskChange) => Promise<unknown>,
    outcome: TaskChange,
  ) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await write(outcome);
        return;
      } catch (error) {
        if (attempt === FINISH_ATTEMPTS - 1 || closed) {
          log(
            `task ${record.taskId}: its outcome (${outcome.status}) could not be recorded: ${messageOf(error)}`,
          );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt));
      }
    }
  };

  /** A working task no replica holds, whose lease this replica just took: resume it, or end it. */
  const takeOver = async (record: TaskRecord, auth: Auth | undefined): Promise<TaskRecord> => {
    if (record.remaining || record.rerunArgs) {
      log(
        `task ${record.taskId}: taken over (${record.tool}), ${record.remaining ? 'resuming its wait' : 'running it again'}`,
      );
      launch(record, (context) => options.resume(record, context, auth));
      return record;
    }
    const key = { taskId: record.taskId, caller: record.caller };
    const failed = await store.update(key, {
      status: 'failed',
      statusMessage: lostMessage(record),
      error: { code: INTERNAL_ERROR, message: lostMessage(record) },
      lastUpdatedAt: now(),
    });
    await store.release(record.taskId, owner).catch(() => undefined);
    log(
      `task ${record.taskId}: its replica stopped before ${record.tool}'s answer was recorded; failed, not sent again`,
    );
    return failed ?? record;
  };

  /** Renews this replica's leases, and stops the runs cancelled elsewhere or taken over. */
  const beat = async () => {
    const ids = [...local.keys()];
    if (ids.length === 0) return;
    let beats: Awaited<ReturnType<TaskStore['beat']>>;
    try {
      beats = await store.beat(ids, owner, timing.leaseMs);
    } catch (error) {
      log(`tasks: leases not renewed: ${messageOf(error)}`);
      return;
    }
    ids.forEach((taskId, at) => {
      const entry = local.get(taskId);
      const state = beats[at];
      if (!entry || !state) return;
      if (state.status !== 'working') entry.controller.abort();
      else if (!state.held) {
        log(`task ${taskId}: another replica holds it now; stopping here`);
        entry.dropped = true;
        entry.controller.abort();
      }
    });
  };
  const sweep = async (): Promise<number> => {
    let taken = 0;
    for (const taskId of await store.orphans()) {
      if (closed || local.has(taskId)) continue;
      const record = await store.read(taskId);
      if (record?.status !== 'working') continue;
      if (!(await store.claim(taskId, owner, timing.leaseMs))) continue;
      await takeOver(record, undefined);
      taken++;
    }
    return taken;
  };
  let beating = false;
  const beatTimer = setInterval(() => {
    if (beating) return;
    beating = true;
    beat().finally(() => {
      beating = false;
    });
  }, timing.beatMs);
  beatTimer.unref();
  let sweeping = false;
  const sweepTimer =
    options.sweep && timing.sweepMs > 0
      ? setInterval(() => {
          if (sweeping) return;
          sweeping = true;
          sweep()
            .catch((error: unknown) => log(`tasks: sweep failed: ${messageOf(error)}`))
            .finally(() => {
              sweeping = false;
            });
        }, timing.sweepMs)
      : undefined;
  sweepTimer?.unref();

  return {
    where: store.where,
    async start({ caller, tool, plan, run, signal }) {
      if (closed) throw new Error('the task service is closed');
      const most = limits.workingPerCaller;
      // Checked ahead, so that a caller past its bound is refused before anything else (the
      // guard's question, its quota); checked again, atomically, when the task is recorded.
      const working = await store.working(caller).catch((error: unknown) => {
        throw storeRefusal(tool, error);
      });
      if (working >= most) throw tooManyTasks(tool, working, most);
      const at = now();
      const record: TaskRecord = {
        taskId: randomUUID(),
        caller,
        tool,
        kind: plan.kind,
        status: 'working',
        statusMessage: plan.rerunArgs ? `${tool}: starting` : `${tool}: sending the request to the platform`,
        createdAt: at,
        lastUpdatedAt: at,
        ttlMs: plan.waitSeconds * 1000 + limits.keepMs,
        pollIntervalMs: pollIntervalFor(plan.kind),
        ...(plan.rerunArgs ? { rerunArgs: plan.rerunArgs } : {}),
      };
      const create = async () => {
        const made = await store.create(record, owner, timing.leaseMs, most).catch((error: unknown) => {
          throw storeRefusal(tool, error);
        });
        if (!made.created) throw tooManyTasks(tool, made.working, most);
      };
      // A tool that only reads is recorded at once: nothing it does is lost if it runs again.
      if (plan.rerunArgs) {
        await create();
        launch(record, run);
        return { task: taskOf(record) };
      }
      // Any other, when it is about to send its request: what ends it before (invalid arguments,
      // a refusal, a question to confirm) is answered as the call's own answer, with no task.
      return new Promise<StartOutcome>((resolve, reject) => {
        launch(record, run, {
          create,
          created: () => resolve({ task: taskOf(record) }),
          early: (outcome) => ('answer' in outcome ? resolve(outcome) : reject(outcome.error)),
          signal,
        });
      });
    },
    async get(caller, taskId, auth) {
      let record = await owned(caller, taskId);
      if (
        record.status === 'working' &&
        !local.has(taskId) &&
        !closed &&
        (await store.claim(taskId, owner, timing.leaseMs))
      ) {
        record = await takeOver(record, auth);
      }
      return detailedOf(record);
    },
    async cancel(caller, taskId) {
      const record = await owned(caller, taskId);
      if (TERMINAL.has(record.status)) return;
      await store.update(
        { taskId, caller },
        { status: 'cancelled', statusMessage: cancelledMessage(record), lastUpdatedAt: now() },
      );
      // Here at once; on the replica running it, at its next beat.
      local.get(taskId)?.controller.abort();
    },
    async update(caller, taskId) {
      await owned(caller, taskId);
    },
    sweep,
    async close() {
      closed = true;
      clearInterval(beatTimer);
      if (sweepTimer) clearInterval(sweepTimer);
      const runs = [...local.values()];
      for (const entry of runs) {
        entry.dropped = true;
        entry.controller.abort();
      }
      await Promise.all(runs.map((entry) => store.release(entry.key.taskId, owner).catch(() => undefined)));
    },
  };
}

/** JSON-RPC's Internal error: what a failed task carries when no other code fits. */
const INTERNAL_ERROR = -32603;

/** How many times the end of a task is written while the store cannot be reached. */
const FINISH_ATTEMPTS = 5;

/**
 * How often a client should poll: a tenth of how long the platform usually takes (a VM's 45 s:
 * every 4.5 s), between 2 s and 15 s, the wait's own longest pause between polls.
 */
export function pollIntervalFor(kind: WaitKind): number {
  return Math.min(15_000, Math.max(2_000, TYPICAL_SECONDS[kind] * 100));
}

/** The Task of a record, as CreateTaskResult and tasks/get carry it. */
export function taskOf(record: TaskRecord): TaskV2 {
  return {
    taskId: record.taskId,
    status: record.status,
    statusMessage: record.statusMessage,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
  };
}

/** The DetailedTask of a record: with its result when completed, its error when failed. */
export function detailedOf(record: TaskRecord): DetailedTaskV2 {
  const task = taskOf(record);
  switch (record.status) {
    case 'completed':
      return { ...task, status: 'completed', result: (record.result ?? { content: [] }) as never };
    case 'failed':
      return {
        ...task,
        status: 'failed',
        error: (record.error ?? { code: INTERNAL_ERROR, message: record.statusMessage }) as never,
      };
    case 'cancelled':
      return { ...task, status: 'cancelled' };
    default:
      return { ...task, status: 'working' };
  }
}

/** A wait's report as a status line: how far along (as a share of the usual time), then the wait's line. */
function progressMessage(update: ToolProgress): string {
  const share = update.total ? Math.floor((100 * update.progress) / update.total) : undefined;
  const line = showControls(update.message);
  return share === undefined ? line : `${share}%: ${line}`;
}

function startedMessage(tool: string, remaining: TaskWaits): string {
  if (remaining.targets.length === 0) return `${tool}: the platform answered; nothing to wait for`;
  const what = remaining.targets.map((target) => `${remaining.kind} ${target.Name ?? target.ID}`).join(', ');
  return `${tool}: the platform accepted it; waiting for ${showControls(what)} to be ${WAIT_KINDS[remaining.kind].ready}`;
}

function completedMessage(tool: string, result: CallToolResult, lastProgress: string | undefined): string {
  const first = result.content?.[0];
  const text = first?.type === 'text' ? first.text.split('\n')[0] : undefined;
  if (result.isError) return `${tool} ended with an error: ${showControls(text ?? 'see the result')}`;
  return lastProgress ? showControls(lastProgress) : `${tool}: done`;
}

/**
 * A cancel's status line: the wait stops; a request already sent is not undone, and before its
 * answer came it may or may not have reached the platform.
 */
function cancelledMessage(record: TaskRecord): string {
  const from = WAIT_KINDS[record.kind].from;
  if (record.rerunArgs) return `Cancelled: ${record.tool} stopped. It only read; nothing was changed.`;
  if (!record.remaining) {
    return `Cancelled while ${record.tool}'s request was being sent: it may have reached the platform, which would go on with it (a request sent is not undone). Check with ${from} before calling ${record.tool} again.`;
  }
  const what = record.remaining.targets.map(
    (target) => `${record.remaining?.kind} ${target.Name ?? target.ID}`,
  );
  return showControls(
    `Cancelled: stopped waiting${what.length ? ` for ${what.join(', ')}` : ''}. ${record.tool}'s request was already sent and is not undone: the platform goes on with it. Check it with ${from}, or wait for it again with the wait tool.`,
  );
}

/** A task whose replica stopped before the tool's answer was recorded: the outcome is unknown. */
function lostMessage(record: TaskRecord): string {
  return `The server running ${record.tool} stopped before the platform's answer to it was recorded, so whether it took effect is unknown. It is not sent again: check with ${WAIT_KINDS[record.kind].from} before calling ${record.tool} again.`;
}

/** The store failing when a task was to be recorded: refused, nothing sent. */
function storeRefusal(tool: string, error: unknown): TaskRefusal {
  return new TaskRefusal({
    message: `${tool} was not started: ${messageOf(error)}. Nothing was sent.`,
    error_id: 'task_store_unavailable',
    retryable: true,
    hint: 'Try again later, or ask the person running this server to bring its task store (Redis) back.',
  });
}

/** A caller past its bound: refused before anything is sent. */
function tooManyTasks(tool: string, working: number, most: number): TaskRefusal {
  return new TaskRefusal({
    message: `${tool} was not started: this caller already has ${working} tasks working on this server, the most one caller may have at once (${most}). Nothing was sent.`,
    error_id: 'too_many_tasks',
    retryable: true,
    hint: 'Let one of your tasks finish (tasks/get shows it) or cancel one (tasks/cancel), then call again.',
  });
}

/** A failure as the JSON-RPC error a failed task carries: an MCP error's own code, else Internal error. */
function rpcErrorOf(error: unknown): TaskError {
  const { code, message, data } = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof code === 'number' && Number.isInteger(code) && typeof message === 'string') {
    return data === undefined ? { code, message } : { code, message, data };
  }
  return { code: INTERNAL_ERROR, message: `Internal error: ${messageOf(error)}` };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
