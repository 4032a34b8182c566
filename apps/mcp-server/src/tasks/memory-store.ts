/**
 * Tasks in this process's memory: the store without --redis. A task survives its client going
 * away (the process keeps running it and keeps its result until its TTL), not the process.
 * Records are copied in and out, as Redis's would be, so no caller changes one behind the store.
 */
import { type TaskBeat, type TaskRecord, type TaskStore, TERMINAL } from './record.js';

/** How often expired tasks are looked for, at most (on the next create). */
const PURGE_EVERY_MS = 60_000;

export function memoryTaskStore(options: { now?: () => number } = {}): TaskStore {
  const now = options.now ?? Date.now;
  const tasks = new Map<string, TaskRecord>();
  const leases = new Map<string, { owner: string; until: number }>();
  /** The tasks each caller has working. */
  const working = new Map<string, Set<string>>();
  let purged = now();

  const forget = (record: TaskRecord) => {
    tasks.delete(record.taskId);
    leases.delete(record.taskId);
    stopWorking(record);
  };
  const stopWorking = (record: TaskRecord) => {
    const ids = working.get(record.caller);
    ids?.delete(record.taskId);
    if (ids?.size === 0) working.delete(record.caller);
  };
  const live = (taskId: string): TaskRecord | undefined => {
    const record = tasks.get(taskId);
    if (record && record.createdAt + record.ttlMs <= now()) {
      forget(record);
      return undefined;
    }
    return record;
  };
  const leaseHolder = (taskId: string): string | undefined => {
    const lease = leases.get(taskId);
    if (lease && lease.until <= now()) leases.delete(taskId);
    return leases.get(taskId)?.owner;
  };

  return {
    where: 'this process',
    async create(record, owner, leaseMs, most) {
      if (now() - purged >= PURGE_EVERY_MS) {
        purged = now();
        for (const id of [...tasks.keys()]) live(id);
      }
      const ids = working.get(record.caller) ?? new Set<string>();
      for (const id of ids) live(id);
      if (ids.size >= most) return { created: false, working: ids.size };
      tasks.set(record.taskId, structuredClone(record));
      leases.set(record.taskId, { owner, until: now() + leaseMs });
      working.set(record.caller, ids.add(record.taskId));
      return { created: true };
    },
    async working(caller) {
      const ids = working.get(caller);
      for (const id of ids ?? []) live(id);
      return working.get(caller)?.size ?? 0;
    },
    async read(taskId) {
      const record = live(taskId);
      return record && structuredClone(record);
    },
    async update({ taskId }, change) {
      const record = live(taskId);
      if (!record) return undefined;
      if (record.status === 'working') {
        Object.assign(record, structuredClone(change));
        if (TERMINAL.has(record.status)) stopWorking(record);
      }
      return structuredClone(record);
    },
    async claim(taskId, owner, leaseMs) {
      if (live(taskId)?.status !== 'working' || leaseHolder(taskId) !== undefined) return false;
      leases.set(taskId, { owner, until: now() + leaseMs });
      return true;
    },
    async beat(taskIds, owner, leaseMs): Promise<TaskBeat[]> {
      return taskIds.map((taskId) => {
        const status = live(taskId)?.status;
        const holder = leaseHolder(taskId);
        // A lease that lapsed with nobody taking it (this replica was slow to beat) is taken again.
        const held = holder === owner || (holder === undefined && status === 'working');
        if (held) leases.set(taskId, { owner, until: now() + leaseMs });
        return { status, held };
      });
    },
    async release(taskId, owner) {
      if (leaseHolder(taskId) === owner) leases.delete(taskId);
    },
    async orphans() {
      return [...tasks.keys()].filter(
        (taskId) => live(taskId)?.status === 'working' && leaseHolder(taskId) === undefined,
      );
    },
    async close() {
      tasks.clear();
      leases.clear();
      working.clear();
    },
  };
}
