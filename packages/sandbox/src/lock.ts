/**
 * The state file's lock: one writer at a time across processes, and a holder that died is
 * noticed at once instead of after a timeout.
 *
 * Why not proper-lockfile (used before): it decides that a lock is abandoned only by its age (we
 * waited 10 s after every writer killed while holding it), it retries a permission error as if
 * the lock were busy (19.5 s, then a raw EACCES), and its stale-lock takeover removes whatever
 * lock directory is there when it gets round to it, so two processes that both saw the same stale
 * lock can both end up holding it (moxystudio/node-proper-lockfile#121, open; unmaintained since
 * 2020). None of that can be fixed from outside the library, and no maintained package records
 * the holder and breaks a dead holder's lock safely, so the protocol below is ours, in one module.
 *
 * Files, next to the (symlink-resolved) state file `S`:
 * - `S.lock` (the lock `L`): exists while a writer holds it. It is created with its content in
 *   one step: a record `{pid, host, tag, proc, start, id, since}` is written to a temp file which
 *   is then hard-linked to `L` (link fails with EEXIST if `L` exists). `id` is fresh for every
 *   acquisition, so a lock instance is never seen twice. `tag` names the machine and pid namespace
 *   (hostname, boot id, pid namespace), the only scope in which a pid means anything.
 * - `S.lock.<id>.break` (a claim): exists while one process removes the dead instance `<id>`.
 *   When the claimant itself dies, the next one claims `S.lock.<id>.<claimant id>.break`, and so on.
 * - `S.lock.q.<time>.<id>` (a ticket): a waiter's place in the queue.
 *
 * A holder (of `L`, a claim or a ticket) is dead when its record says: this machine and pid
 * namespace, and the pid is gone (kill(pid, 0) gives ESRCH; EPERM means alive), a zombie, or
 * another process (its start time differs), or it is this very pid but another process lifetime.
 * A holder whose start time matches is alive, however long it holds. Otherwise it is alive until
 * its file is older than `staleMs`: the fallback for a holder on another machine, an unreadable
 * record (such as an older cloudcall's lock directory), or a pid whose start time is unknown
 * (not Linux) and could have been reused.
 *
 * Acquire: link the record to `L`. On EEXIST read `L`: dead, break it (below) and retry at once;
 * alive, queue up. Release: unlink `L` if it still holds our id.
 *
 * The queue keeps waits bounded (first come, first served) and wakes one process per change
 * rather than all of them: a waiter links its record to a ticket `S.lock.q.<time>.<id>` and
 * tries `L` only when no live ticket is older than its own. It watches the one file it waits for,
 * the ticket just ahead of it or, first in line, `L`, and polls as a safety net (a process that
 * dies sends no event, nor does a filesystem without change notifications). Tickets only order
 * the attempts, the lock file alone excludes: a dead waiter's ticket (or one older than `staleMs`,
 * such as a stopped process's) is simply removed.
 *
 * Break the dead instance N (the race: two waiters see the same dead N; one breaks it, a third
 * process takes the lock, then the other waiter acts on what it saw):
 * 1. Claim N by linking a record to `S.lock.N.break`. EEXIST: read the claim; a live claimant is
 *    doing the job (wait as for a held lock); a dead claimant C is replaced by claiming
 *    `S.lock.N.C.break` instead, and so on down the chain.
 * 2. Holding a claim, read `L` again. Only if it still holds N, remove it.
 * 3. Remove the claims of the chain.
 * Why no live lock is ever removed: while N exists, nothing else can replace it (create fails
 * while `L` exists), and the only processes that remove N are its holder (dead) and claimants
 * of N. Claim files of N are removed only once N is gone, so each name in the chain is won at
 * most once while N exists, and a claim gets a successor only when its claimant is dead: at any
 * moment at most one live process acts on N, and it removes `L` only right after reading N in it,
 * with nobody else able to change `L` in between. The late waiter of the race above either fails
 * to claim N (the claim still exists) or claims it after N is gone, reads the third process's id
 * in `L`, and backs off. A claimant that backs off or fails removes only its own claim, after
 * which it no longer acts. The one assumption is in the age fallback: a holder on another machine
 * stalled for longer than `staleMs` is taken for dead, as any lease-based lock must.
 *
 * Writers are killed between syscalls, so stray temp files, claims and tickets are expected; the
 * store removes those of dead processes when it opens (`isOrphan`, `cleanUp`).
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  type FSWatcher,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmdirSync,
  type Stats,
  unlinkSync,
  watch,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';

export interface LockOptions {
  /**
   * How old a lock must be before it is taken as abandoned when its holder cannot be checked
   * (another machine, an unreadable record, a pid that may have been reused). Default 30 s.
   */
  staleMs?: number;
  /** How long to wait for a lock before giving up with an error. Default `staleMs` + 30 s. */
  timeoutMs?: number;
}

/** What a holder writes into the lock (and into a claim). */
interface LockRecord {
  pid: number;
  host: string;
  tag: string;
  /** This process lifetime, so that a later process given the same pid is told apart. */
  proc: string;
  /** The process start time (Linux), to tell a reused pid apart. */
  start?: string;
  id: string;
  since: number;
}

/** What was found at a lock or claim path. */
interface Found {
  id: string;
  record: LockRecord | undefined;
  mtimeMs: number;
  directory: boolean;
}

/** Fails a wait: the lock stayed held for longer than `timeoutMs`. */
export class LockTimeoutError extends Error {
  constructor(
    readonly lockPath: string,
    readonly holder: string,
    waitedMs: number,
  ) {
    super(`the lock ${lockPath} stayed held by ${holder} for ${Math.round(waitedMs / 1000)} s`);
  }
}

/**
 * This process as lock records and temp file names tell it: a random tag of its own (a pid may be
 * reused), its machine and pid namespace (where a pid identifies a process: the host name, and a
 * hash of the boot id and the namespace), and its start time. Worked out when first needed: a
 * command that only reads the state file takes no lock and names no temp file.
 */
let identity: { proc: string; host: string; tag: string; start: string | undefined } | undefined;
function thisProcess(): NonNullable<typeof identity> {
  if (identity) return identity;
  const read = (read: () => string) => {
    try {
      return read().trim();
    } catch {
      return '';
    }
  };
  const host = hostname();
  const boot = read(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'));
  const pidNamespace = read(() => readlinkSync('/proc/self/ns/pid'));
  const tag = createHash('sha256').update(`${host}\0${boot}\0${pidNamespace}`).digest('hex').slice(0, 10);
  identity = { proc: randomBytes(8).toString('hex'), host, tag, start: processInfo(process.pid)?.start };
  return identity;
}

/** A process's start time in clock ticks since boot, and whether it is a zombie (Linux only). */
function processInfo(pid: number): { start: string; zombie: boolean } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = fields[19];
    return start === undefined ? undefined : { start, zombie: fields[0] === 'Z' };
  } catch {
    return undefined;
  }
}

/**
 * Whether the process `pid` on this machine runs: 'same' when it is certainly the process that
 * started at `start` (Linux tells start times), 'alive' when it runs but may be a reused pid.
 */
function processState(pid: number, start: string | undefined): 'dead' | 'alive' | 'same' {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return 'dead';
  }
  const info = processInfo(pid);
  if (!info || start === undefined) return 'alive';
  return info.zombie || info.start !== start ? 'dead' : 'same';
}

/**
 * Whether a writer recorded as (`tag`, `pid`) is certainly gone. False when it cannot be told
 * (another machine): the caller then goes by age.
 */
function writerDead(tag: string, pid: number): boolean {
  return (
    tag === thisProcess().tag &&
    validPid(pid) &&
    pid !== process.pid &&
    processState(pid, undefined) === 'dead'
  );
}

// process.kill(0) and negative pids signal process groups: never let a record steer us there.
const validPid = (pid: unknown): pid is number => Number.isSafeInteger(pid) && (pid as number) > 0;

/** Whether what holds a lock, claim or ticket is gone (see the protocol above). */
function holderDead(found: Found, staleMs: number, now: number): boolean {
  const record = found.record;
  if (record && record.tag === thisProcess().tag && validPid(record.pid)) {
    if (record.pid === process.pid) return record.proc !== thisProcess().proc;
    const state = processState(record.pid, record.start);
    if (state !== 'alive') return state === 'dead';
  }
  return now - found.mtimeMs > staleMs;
}

/**
 * Whether a ticket no longer holds anyone's place: its waiter is dead, or it is older than
 * `staleMs` (a live process stopped while queued must not hold up the queue for ever; skipping a
 * ticket costs its waiter its turn, never the exclusion).
 */
function ticketDead(found: Found, staleMs: number, now: number): boolean {
  return now - found.mtimeMs > staleMs || holderDead(found, staleMs, now);
}

function describe(found: Found): string {
  const record = found.record;
  if (record) return `process ${record.pid} on ${record.host}`;
  return found.directory ? 'an older cloudcall (a lock directory)' : 'an unknown process';
}

function parseRecord(text: string): LockRecord | undefined {
  try {
    const value = JSON.parse(text) as LockRecord;
    if (typeof value?.id === 'string' && /^[0-9a-f]{1,32}$/.test(value.id)) return value;
  } catch {
    // Written by something else, or half-written by a writer without hard links: go by age.
  }
  return undefined;
}

/** Reads what holds `path` now; undefined when nothing does. */
function inspect(path: string): Found | undefined {
  let stat: Stats;
  let text = '';
  try {
    stat = lstatSync(path);
    if (!stat.isDirectory()) text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const record = parseRecord(text);
  return {
    // Something that is not our record gets an id from its identity, which changes if it is replaced.
    id: record?.id ?? `x${stat.ino.toString(16)}m${Math.trunc(stat.mtimeMs).toString(16)}`,
    record,
    mtimeMs: stat.mtimeMs,
    directory: stat.isDirectory(),
  };
}

const isErrno = (error: unknown, ...codes: string[]) =>
  codes.includes((error as NodeJS.ErrnoException | undefined)?.code ?? '');

/** How many dead claimants in a row we follow before leaving it to the age fallback. */
const MAX_CLAIM_DEPTH = 8;

export interface Lease {
  release(): void;
}

/** Test hooks: points where a test pauses a process to force an interleaving. */
export interface LockHooks {
  /** Called once a dead holder has been seen, before claiming it. */
  beforeClaim?(deadId: string): Promise<void> | void;
}

export class FileLock {
  readonly path: string;
  private readonly dir: string;
  private readonly name: string;
  private readonly staleMs: number;
  private readonly timeoutMs: number;

  constructor(
    /** The lock file's path: the state file's path with `.lock` added. */
    path: string,
    options: LockOptions = {},
    private readonly hooks: LockHooks = {},
  ) {
    this.path = path;
    this.dir = dirname(path);
    this.name = basename(path);
    this.staleMs = options.staleMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? this.staleMs + 30_000;
  }

  /** Waits for the lock and takes it. Errors from the filesystem (EACCES...) are thrown at once. */
  async acquire(): Promise<Lease> {
    const started = Date.now();
    const record = this.record();
    const temp = this.writeTemp(record);
    let ticket: string | undefined;
    // Once first in line, we stay so: later tickets are younger.
    let first = false;
    let poll = 2;
    try {
      for (;;) {
        const ahead: string | undefined = first ? undefined : this.ahead(ticket);
        first = ticket !== undefined && ahead === undefined;
        if (!ahead && this.link(temp, this.path)) return { release: () => this.release(record.id) };
        const found = inspect(this.path);
        if (found && holderDead(found, this.staleMs, Date.now())) {
          await this.hooks.beforeClaim?.(found.id);
          if (this.breakDead(found) !== 'busy') continue;
        }
        const waited = Date.now() - started;
        if (waited > this.timeoutMs) {
          const holder = found ?? (ahead === undefined ? undefined : inspect(ahead));
          throw new LockTimeoutError(this.path, holder ? describe(holder) : 'another process', waited);
        }
        if (!ticket) {
          // Queue up, then look again: whoever we would wait for may have gone meanwhile.
          ticket = this.takeTicket(started, record);
          continue;
        }
        const next = ahead ?? (found ? this.path : undefined);
        if (next === undefined) continue;
        // With change notifications the timer is only a safety net; without, back off up to 100 ms.
        poll = (await changeOf(next, poll)) ? 100 : Math.min(100, poll * 2);
      }
    } finally {
      unlinkQuietly(temp);
      if (ticket) unlinkQuietly(ticket);
    }
  }

  /** Joins the queue: a ticket named by when we started waiting, holding our record. */
  private takeTicket(started: number, record: LockRecord): string {
    const ticket = join(this.dir, `${this.name}.q.${started.toString(16).padStart(12, '0')}.${record.id}`);
    // A file of its own, not another link to the lock record: removing one must not wake the
    // watchers of the other.
    const temp = this.writeTemp(record);
    try {
      this.link(temp, ticket);
    } finally {
      unlinkQuietly(temp);
    }
    return ticket;
  }

  /**
   * The ticket of the live waiter just ahead of `ticket` (of any live waiter, without a ticket);
   * undefined when we are first in line. Tickets of dead waiters are removed on the way.
   */
  private ahead(ticket: string | undefined): string | undefined {
    const prefix = `${this.name}.q.`;
    const mine = ticket === undefined ? undefined : basename(ticket);
    const older = readdirSync(this.dir)
      .filter((entry) => entry.startsWith(prefix) && (mine === undefined || entry < mine))
      .sort()
      .reverse();
    const now = Date.now();
    for (const entry of older) {
      const path = join(this.dir, entry);
      const found = inspect(path);
      if (!found) continue;
      if (!ticketDead(found, this.staleMs, now)) return path;
      unlinkQuietly(path);
    }
    return undefined;
  }

  /**
   * Removes what processes killed mid-protocol left behind: claims on an instance that is gone,
   * tickets of dead waiters. Safe at any time (see the protocol above).
   */
  cleanUp(): void {
    const current = inspect(this.path)?.id;
    const prefix = `${this.name}.`;
    const now = Date.now();
    for (const entry of readdirSync(this.dir)) {
      if (!entry.startsWith(prefix)) continue;
      const path = join(this.dir, entry);
      if (entry.startsWith(`${prefix}q.`)) {
        const found = inspect(path);
        if (found && ticketDead(found, this.staleMs, now)) unlinkQuietly(path);
      } else if (entry.endsWith('.break') && entry.slice(prefix.length).split('.')[0] !== current) {
        unlinkQuietly(path);
      }
    }
  }

  private release(id: string): void {
    try {
      // After an age-based takeover (a holder stalled past staleMs) the lock may be someone else's.
      if (inspect(this.path)?.id === id) unlinkQuietly(this.path);
    } catch {
      // The directory changed under us (its permissions): nothing more we can do, and the error
      // that ended the transaction, if any, is the one to report.
    }
  }

  private record(): LockRecord {
    const { host, tag, proc, start } = thisProcess();
    return {
      pid: process.pid,
      host,
      tag,
      proc,
      ...(start === undefined ? {} : { start }),
      id: randomBytes(6).toString('hex'),
      since: Date.now(),
    };
  }

  /** Writes a record to a temp file named so that `isOrphan` recognises it. */
  private writeTemp(record: LockRecord): string {
    const temp = join(this.dir, tempName(this.name));
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, JSON.stringify(record));
    } finally {
      closeSync(fd);
    }
    return temp;
  }

  /** Creates `path` with the record in `temp`, atomically; false when `path` exists. */
  private link(temp: string, path: string): boolean {
    try {
      linkSync(temp, path);
      return true;
    } catch (error) {
      if (isErrno(error, 'EEXIST')) return false;
      // A filesystem without hard links: create-exclusive, then write. A reader that catches it
      // empty goes by age, which is only ever needed if we die in between.
      if (!isErrno(error, 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK')) throw error;
      let fd: number;
      try {
        fd = openSync(path, 'wx', 0o600);
      } catch (inner) {
        if (isErrno(inner, 'EEXIST')) return false;
        throw inner;
      }
      try {
        writeSync(fd, readFileSync(temp));
      } finally {
        closeSync(fd);
      }
      return true;
    }
  }

  /** Step 1-3 of the protocol: removes dead instance `dead` unless a live claimant is on it. */
  private breakDead(dead: Found): 'broken' | 'gone' | 'busy' {
    const chain = [dead.id];
    const claimPath = (length: number) =>
      join(this.dir, `${this.name}.${chain.slice(0, length).join('.')}.break`);
    while (chain.length <= MAX_CLAIM_DEPTH) {
      const mine = this.record();
      const temp = this.writeTemp(mine);
      let claimed: boolean;
      try {
        claimed = this.link(temp, claimPath(chain.length));
      } finally {
        unlinkQuietly(temp);
      }
      if (claimed) {
        let gone = false;
        try {
          const now = inspect(this.path);
          if (now?.id === dead.id) {
            if (now.directory) rmdirSync(this.path);
            else unlinkSync(this.path);
          }
          gone = true;
        } finally {
          // Predecessors' claims only once N is gone; our own claim in any case (we stop acting).
          if (gone) for (let length = 1; length < chain.length; length++) unlinkQuietly(claimPath(length));
          unlinkQuietly(claimPath(chain.length));
        }
        return 'broken';
      }
      const claimant = inspect(claimPath(chain.length));
      if (!claimant) return 'gone';
      if (!holderDead(claimant, this.staleMs, Date.now())) return 'busy';
      chain.push(claimant.id);
    }
    return 'busy';
  }
}

/** A temp file name in the state file's directory that tells who wrote it: `.<base>.<tag>.<pid>.<random>.tmp`. */
export function tempName(base: string): string {
  return `.${base}.${thisProcess().tag}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}

/**
 * Whether `entry`, in the directory of a file named `base`, is a temp file of ours whose writer is
 * gone. On this machine that is decided by its pid alone: a live writer's temp file is never one.
 * From another machine, or named the way cloudcall did before tags (`.<base>.<pid>.<ms>.tmp`),
 * it is one once older than `staleMs`.
 */
export function isOrphan(
  entry: string,
  base: string,
  mtimeMs: number,
  staleMs: number,
  now: number,
): boolean {
  if (!entry.startsWith(`.${base}.`) || !entry.endsWith('.tmp')) return false;
  const middle = entry.slice(base.length + 2, -'.tmp'.length);
  const tagged = /^(?:lock\.)?([0-9a-f]{10})\.(\d+)\.[0-9a-f]{8}$/.exec(middle);
  if (tagged?.[1] === thisProcess().tag) return writerDead(tagged[1], Number(tagged[2]));
  return (tagged !== null || /^\d+\.\d+$/.test(middle)) && now - mtimeMs > staleMs;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
  }
}

/**
 * Resolves when `path` changes or goes (at once if it is already gone), or after `ms` at most;
 * to true when the change notification could be set up. Watching the one file wakes only the one
 * process waiting for it, not every waiter.
 */
function changeOf(path: string, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    let watcher: FSWatcher | undefined;
    const timer = setTimeout(() => done(), ms);
    const done = () => {
      clearTimeout(timer);
      watcher?.close();
      resolve(watcher !== undefined);
    };
    try {
      watcher = watch(path, { persistent: false }, () => done());
      watcher.on('error', () => done());
    } catch (error) {
      // Gone already: look again now. Not watchable here (no inotify, a network filesystem): poll.
      if (isErrno(error, 'ENOENT')) done();
      return;
    }
    // Now that it is watched: if it went just before, no event will come.
    if (!existsSync(path)) done();
  });
}
