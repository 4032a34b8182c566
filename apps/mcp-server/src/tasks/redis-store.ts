/**
 * Tasks in Redis (--redis), on the connection the process already has for its quotas
 * (`@cloudcall/guard/redis`), so that any replica answers tasks/get and a replica that stops is
 * taken over by another. Keys follow the quotas' (`cloudcall:quota:...`):
 *
 *   cloudcall:task:ID            hash: the record, a field per member (status as is, the rest JSON);
 *                                expires with the task's TTL
 *   cloudcall:task:ID:lease      the replica running it, renewed by its heartbeat (PX)
 *   cloudcall:tasks:working      every task working, scored by when it expires: what a sweep reads
 *   cloudcall:tasks:working:WHO  a caller's tasks working, likewise: what the per-caller bound counts
 *
 * Each change is one Lua script, which Redis runs atomically: a change lands only on a task still
 * working, so a cancel on one replica and a finish on another leave one outcome.
 */
import type { RedisConnection } from '@cloudcall/guard/redis';
import type { TaskBeat, TaskRecord, TaskStatus, TaskStore } from './record.js';

const PREFIX = 'cloudcall:task:';
const WORKING = 'cloudcall:tasks:working';
const taskKey = (taskId: string) => `${PREFIX}${taskId}`;
const leaseKey = (taskId: string) => `${PREFIX}${taskId}:lease`;
const callerKey = (caller: string) => `${WORKING}:${caller}`;

/**
 * KEYS: the task, its lease, its caller's working set, every working task.
 * ARGV: id, most, now, expiry, owner, lease ms, then the record's fields and values.
 * The caller's set keeps tasks that expired while working until now passes their score.
 */
const CREATE = `
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[3])
local working = redis.call('ZCARD', KEYS[3])
if working >= tonumber(ARGV[2]) then return {0, working} end
redis.call('HSET', KEYS[1], unpack(ARGV, 7))
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
redis.call('SET', KEYS[2], ARGV[5], 'PX', ARGV[6])
for i = 3, 4 do
  redis.call('ZADD', KEYS[i], ARGV[4], ARGV[1])
  local last = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
  redis.call('PEXPIREAT', KEYS[i], last[2])
end
return {1, working + 1}
`;

/** KEYS: a caller's working set. ARGV: now. */
const WORKING_COUNT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZCARD', KEYS[1])
`;

/**
 * KEYS: the task, its caller's working set, every working task. ARGV: id, the new status ('' for
 * none), then fields and values. Answers the record after it, or nothing when it is gone.
 */
const UPDATE = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {} end
if status == 'working' then
  if #ARGV > 2 then redis.call('HSET', KEYS[1], unpack(ARGV, 3)) end
  if ARGV[2] ~= '' and ARGV[2] ~= 'working' then
    redis.call('ZREM', KEYS[2], ARGV[1])
    redis.call('ZREM', KEYS[3], ARGV[1])
  end
end
return redis.call('HGETALL', KEYS[1])
`;

/** KEYS: the task, its lease. ARGV: owner, lease ms. */
const CLAIM = `
if redis.call('HGET', KEYS[1], 'status') ~= 'working' then return 0 end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0
`;

/**
 * KEYS: n leases, then their n tasks. ARGV: owner, lease ms. Answers held (1/0) and status per
 * task. A lease that lapsed with nobody taking it (this replica was slow to beat) is taken again.
 */
const BEAT = `
local n = #KEYS / 2
local out = {}
for i = 1, n do
  local held = 0
  local status = redis.call('HGET', KEYS[n + i], 'status') or ''
  local holder = redis.call('GET', KEYS[i])
  if holder == ARGV[1] or (not holder and status == 'working') then
    redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
    held = 1
  end
  out[2 * i - 1] = held
  out[2 * i] = status
end
return out
`;

/** KEYS: a lease. ARGV: owner. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
`;

/** KEYS: n leases, then their n tasks. Answers, per task, 1 when it is working and no one holds it. */
const ORPHANS = `
local n = #KEYS / 2
local out = {}
for i = 1, n do
  local lost = 0
  if redis.call('EXISTS', KEYS[i]) == 0 and redis.call('HGET', KEYS[n + i], 'status') == 'working' then lost = 1 end
  out[i] = lost
end
return out
`;

/** The most tasks a sweep looks at in one round; the next round gets the rest. */
const SWEEP_BATCH = 200;

/** Redis could not keep or read a task: the store's error, naming Redis (never its password). */
export class TaskStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TaskStoreError';
  }
}

export function redisTaskStore(connection: RedisConnection, options: { now?: () => number } = {}): TaskStore {
  const now = options.now ?? Date.now;
  const where = connection.where;
  /** Runs a script; a failure of Redis becomes a TaskStoreError saying where tasks are kept. */
  const run = async (text: string, keys: readonly string[], args: readonly string[]): Promise<unknown> => {
    try {
      return await connection.script(text, keys, args);
    } catch (error) {
      throw new TaskStoreError(`tasks are kept in ${(error as Error).message}`, { cause: error });
    }
  };
  const command = async (args: readonly string[]): Promise<unknown> => {
    try {
      return await connection.command(args);
    } catch (error) {
      throw new TaskStoreError(`tasks are kept in ${(error as Error).message}`, { cause: error });
    }
  };
  return {
    where,
    async create(record, owner, leaseMs, most) {
      const reply = await run(
        CREATE,
        [taskKey(record.taskId), leaseKey(record.taskId), callerKey(record.caller), WORKING],
        [
          record.taskId,
          String(most),
          String(now()),
          String(record.createdAt + record.ttlMs),
          owner,
          String(leaseMs),
          ...fieldsOf(record),
        ],
      );
      const [created, working] = Array.isArray(reply) ? reply.map(Number) : [];
      if (created === 1) return { created: true };
      if (created === 0 && working !== undefined) return { created: false, working };
      throw new TaskStoreError(
        `tasks are kept in ${where}, which answered a create with ${JSON.stringify(reply)}`,
      );
    },
    async working(caller) {
      const reply = await run(WORKING_COUNT, [callerKey(caller)], [String(now())]);
      return Number(reply);
    },
    async read(taskId) {
      return recordOf(await command(['HGETALL', taskKey(taskId)]));
    },
    async update(task, change) {
      return recordOf(
        await run(
          UPDATE,
          [taskKey(task.taskId), callerKey(task.caller), WORKING],
          [task.taskId, change.status ?? '', ...fieldsOf(change)],
        ),
      );
    },
    async claim(taskId, owner, leaseMs) {
      return Number(await run(CLAIM, [taskKey(taskId), leaseKey(taskId)], [owner, String(leaseMs)])) === 1;
    },
    async beat(taskIds, owner, leaseMs): Promise<TaskBeat[]> {
      if (taskIds.length === 0) return [];
      const reply = await run(
        BEAT,
        [...taskIds.map(leaseKey), ...taskIds.map(taskKey)],
        [owner, String(leaseMs)],
      );
      const flat = Array.isArray(reply) ? reply : [];
      return taskIds.map((_, at) => ({
        held: Number(flat[2 * at]) === 1,
        status: statusOf(flat[2 * at + 1]),
      }));
    },
    async release(taskId, owner) {
      await run(RELEASE, [leaseKey(taskId)], [owner]);
    },
    async orphans() {
      await command(['ZREMRANGEBYSCORE', WORKING, '-inf', String(now())]);
      const ids = await command(['ZRANGE', WORKING, '0', String(SWEEP_BATCH - 1)]);
      if (!Array.isArray(ids) || ids.length === 0) return [];
      const taskIds = ids.map(String);
      const reply = await run(ORPHANS, [...taskIds.map(leaseKey), ...taskIds.map(taskKey)], []);
      const lost = Array.isArray(reply) ? reply : [];
      return taskIds.filter((_, at) => Number(lost[at]) === 1);
    },
    // The connection is the process's (the quotas' too): whoever opened it closes it.
    async close() {},
  };
}

/** A record's members as hash fields and values: status as it is (the scripts compare it), the rest JSON. */
function fieldsOf(record: Partial<TaskRecord>): string[] {
  const pairs: string[] = [];
  for (const [field, value] of Object.entries(record)) {
    if (value === undefined) continue;
    pairs.push(field, field === 'status' ? String(value) : JSON.stringify(value));
  }
  return pairs;
}

/** A record from HGETALL's answer (a flat array in RESP2, a map in RESP3); undefined when empty. */
function recordOf(reply: unknown): TaskRecord | undefined {
  const entries: [string, unknown][] = Array.isArray(reply)
    ? Array.from({ length: Math.floor(reply.length / 2) }, (_, at) => [
        String(reply[2 * at]),
        reply[2 * at + 1],
      ])
    : reply instanceof Map
      ? [...reply.entries()].map(([key, value]) => [String(key), value])
      : typeof reply === 'object' && reply !== null
        ? Object.entries(reply)
        : [];
  if (entries.length === 0) return undefined;
  const record: Record<string, unknown> = {};
  for (const [field, value] of entries) {
    record[field] = field === 'status' ? String(value) : JSON.parse(String(value));
  }
  return record as unknown as TaskRecord;
}

function statusOf(value: unknown): TaskStatus | undefined {
  const text = value === undefined || value === null ? '' : String(value);
  return text === '' ? undefined : (text as TaskStatus);
}
