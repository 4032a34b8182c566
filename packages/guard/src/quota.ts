/**
 * Quotas per caller: how many mutating requests one caller may send in a minute, an hour or a
 * day. The guard counts every mutating request as a write and one that destroys (as it decides
 * for confirmation: the operation model) as a delete too, in fixed windows, before the request is
 * sent; a request over a quota is refused and not counted. Where the counts live is a
 * `QuotaCounter`: this process's memory (`memoryCounter`), or Redis (`@cloudcall/guard/redis`),
 * which replicas share.
 */
import { GuardRefusal } from './refusal.js';

export const QUOTA_KINDS = ['writes', 'deletes'] as const;
/** `writes`: every mutating request; `deletes`: those that destroy or replace something. */
export type QuotaKind = (typeof QUOTA_KINDS)[number];

/** Each period's length: windows are aligned to the epoch (an hour's resets on the hour, UTC). */
export const QUOTA_PERIODS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
export type QuotaPeriod = keyof typeof QUOTA_PERIODS;

/** At most `count` requests of `kind` per caller in each `period`. */
export interface QuotaLimit {
  kind: QuotaKind;
  count: number;
  period: QuotaPeriod;
}

/** One caller's window of one limit: where its count is kept, its limit, and when it ends. */
export interface QuotaWindow {
  key: string;
  limit: number;
  /** The end of the window, in ms since the epoch; its count is forgotten then. */
  resetsAt: number;
}

/** The counts of the windows before a take, in their order, and whether one was added to each. */
export interface QuotaTake {
  taken: boolean;
  used: number[];
}

/**
 * Where the counts are kept. `take` is atomic: it adds one to every window's count only when
 * each stays within its limit, and otherwise changes nothing, so a refused request is not
 * counted and callers racing for the last unit get it once. A counter that cannot answer throws
 * (`QuotaStoreError`): the guard then sends nothing.
 */
export interface QuotaCounter {
  /** Where the counts live, for logs and errors (`this process`, `Redis at redis://host:6379`). */
  readonly where: string;
  take(windows: readonly QuotaWindow[], now: number): Promise<QuotaTake>;
  /** Takes back what a `take` added (the request was counted, then not sent). */
  giveBack(windows: readonly QuotaWindow[]): Promise<void>;
  close(): Promise<void>;
}

/** The guard's quota option: the limits, the counter, and the clock windows are read by. */
export interface Quota {
  limits: readonly QuotaLimit[];
  counter: QuotaCounter;
  /** Default Date.now. */
  now?: () => number;
}

/** A counter's store could not be reached or did not answer; its message names the store. */
export class QuotaStoreError extends Error {
  override name = 'QuotaStoreError';
}

/** `writes=30/hour`, as the flag writes a limit. */
export function describeLimit(limit: QuotaLimit): string {
  return `${limit.kind}=${limit.count}/${limit.period}`;
}

/**
 * The limits of `--quota writes=30/hour,deletes=5/minute`: comma-separated KIND=N/PERIOD, KIND
 * `writes` or `deletes`, PERIOD `minute`, `hour` or `day`, N a whole number (0 refuses every
 * such request). Throws an Error saying what is wrong.
 */
export function parseQuota(text: string): QuotaLimit[] {
  const items = text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);
  if (!items.length) throw new Error('--quota needs at least one limit, such as writes=30/hour');
  const limits: QuotaLimit[] = [];
  for (const item of items) {
    const match = /^(\w+)=(\d{1,9})\/(\w+)$/.exec(item);
    const [, kind = '', count = '', period = ''] = match ?? [];
    if (
      !match ||
      !(QUOTA_KINDS as readonly string[]).includes(kind) ||
      !Object.hasOwn(QUOTA_PERIODS, period)
    ) {
      throw new Error(
        `--quota: ${JSON.stringify(item.slice(0, 40))} is not a limit; write KIND=N/PERIOD, KIND ${QUOTA_KINDS.join(' or ')}, PERIOD ${Object.keys(QUOTA_PERIODS).join(', ')} (such as writes=30/hour)`,
      );
    }
    const limit = { kind: kind as QuotaKind, count: Number(count), period: period as QuotaPeriod };
    if (limits.some((other) => other.kind === limit.kind && other.period === limit.period)) {
      throw new Error(`--quota gives ${kind} per ${period} twice`);
    }
    limits.push(limit);
  }
  return limits;
}

/** The window of `limit` that `now` falls in, for `caller`. */
export function quotaWindow(limit: QuotaLimit, caller: string, now: number): QuotaWindow {
  const length = QUOTA_PERIODS[limit.period];
  const start = Math.floor(now / length) * length;
  return {
    key: `cloudcall:quota:${caller}:${limit.kind}/${limit.period}:${start}`,
    limit: limit.count,
    resetsAt: start + length,
  };
}

/** A request refused because its caller has used a quota up; nothing was sent, nothing counted. */
export class QuotaExceeded extends GuardRefusal {
  override name = 'QuotaExceeded';
  constructor(
    tool: string,
    caller: string,
    readonly limit: QuotaLimit,
    /** When the window ends and the quota is whole again. */
    readonly resetsAt: Date,
    /** Whole seconds until then (at least 1). */
    readonly retryAfterSeconds: number,
  ) {
    super(
      'refused',
      `${tool} refused: caller ${caller} has used its quota of ${limit.count} ${limit.kind} per ${limit.period} (${describeLimit(limit)}); it resets at ${resetsAt.toISOString()}, in ${retryAfterSeconds} s. Nothing was sent.`,
      `quota ${describeLimit(limit)}`,
      `Wait until ${resetsAt.toISOString()} (${retryAfterSeconds} s) before changing anything more; reads are not counted. The person running this server sets the quotas.`,
    );
  }
}

/** A request not sent because its quota could not be counted (the counter's store is down). */
export class QuotaUnavailable extends GuardRefusal {
  override name = 'QuotaUnavailable';
  constructor(tool: string, cause: unknown) {
    super(
      'refused',
      `${tool} was not sent: quotas are counted in ${cause instanceof QuotaStoreError ? '' : 'a store that failed: '}${cause instanceof Error ? cause.message : String(cause)}. Requests that change something are refused until it answers again; reads go on. Nothing was sent.`,
      'quota unavailable',
      'Try again later, or ask the person running this server to bring its quota store (Redis) back.',
    );
    this.cause = cause;
  }
}

/**
 * Counts one mutating request of `caller` (a delete too when `destroys`) against the quota, or
 * throws: QuotaExceeded when a limit is used up (naming the one that frees last), QuotaUnavailable
 * when the counter cannot answer. Resolves to what takes the count back, for a request counted
 * and then not sent.
 */
export async function countRequest(
  quota: Quota,
  tool: string,
  caller: string,
  destroys: boolean,
): Promise<(() => Promise<void>) | undefined> {
  const limits = quota.limits.filter((limit) => limit.kind === 'writes' || destroys);
  if (!limits.length) return undefined;
  const now = (quota.now ?? Date.now)();
  const windows = limits.map((limit) => quotaWindow(limit, caller, now));
  let result: QuotaTake;
  try {
    result = await quota.counter.take(windows, now);
  } catch (error) {
    throw new QuotaUnavailable(tool, error);
  }
  if (!result.taken) {
    // Of the limits used up, the one whose window ends last: the call can run again only then.
    let full: number | undefined;
    for (const [at, window] of windows.entries()) {
      if ((result.used[at] ?? 0) < window.limit) continue;
      if (full === undefined || window.resetsAt > (windows[full] as QuotaWindow).resetsAt) full = at;
    }
    const at = full ?? 0;
    const resetsAt = (windows[at] as QuotaWindow).resetsAt;
    throw new QuotaExceeded(
      tool,
      caller,
      limits[at] as QuotaLimit,
      new Date(resetsAt),
      Math.max(1, Math.ceil((resetsAt - now) / 1000)),
    );
  }
  return () => quota.counter.giveBack(windows);
}

/**
 * Counts in this process's memory: each process (each replica) has its own counts, with the same
 * windows and answers as the Redis counter. Windows that have ended are swept once a minute.
 */
export function memoryCounter(): QuotaCounter {
  const counts = new Map<string, { used: number; resetsAt: number }>();
  let nextSweep = 0;
  const usedIn = (window: QuotaWindow, now: number) => {
    const entry = counts.get(window.key);
    return entry && entry.resetsAt > now ? entry.used : 0;
  };
  return {
    where: 'this process',
    async take(windows, now) {
      if (now >= nextSweep) {
        for (const [key, entry] of counts) if (entry.resetsAt <= now) counts.delete(key);
        nextSweep = now + 60_000;
      }
      const used = windows.map((window) => usedIn(window, now));
      const taken = windows.every((window, at) => (used[at] ?? 0) + 1 <= window.limit);
      if (taken) {
        for (const [at, window] of windows.entries()) {
          counts.set(window.key, { used: (used[at] ?? 0) + 1, resetsAt: window.resetsAt });
        }
      }
      return { taken, used };
    },
    async giveBack(windows) {
      for (const window of windows) {
        const entry = counts.get(window.key);
        if (entry && entry.used > 0) entry.used -= 1;
      }
    },
    async close() {
      counts.clear();
    },
  };
}
