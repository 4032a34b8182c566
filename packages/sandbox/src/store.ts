/**
 * The sandbox's state, in memory or in a file shared by several processes (the MCP server, each
 * CLI invocation). Every change runs as a transaction on the world in place, through a proxy that
 * notes what it sets and deletes (transaction.ts): a handler that throws half-way is undone, and
 * a change costs what it touches, not the account's size (nothing is copied).
 *
 * On file, the state is a snapshot followed by a journal of changes (journal.ts). A transaction
 * takes the file's lock (lock.ts), reads the lines other processes appended since it last looked
 * (only those), applies the change, appends one line with what changed and syncs it: a crash
 * before the line's newline is on disk loses that change only, and readers ignore the torn line;
 * a line that cannot be written (a full disk) undoes the change in memory too. When the journal
 * outgrows the snapshot, the file is rewritten as one snapshot (a temp file, synced, renamed over
 * the old one), so reading it back stays in proportion to the world. Two writers never
 * interleave, so no acknowledged change is lost. A state file that cannot be used (unwritable, not
 * a file, not a sandbox state) is a StateFileError naming it, raised at once.
 *
 * Why a journal rather than an embedded database: the world stays plain JSON that the families
 * change in place, one file holds it whole (copy it, inspect it, remove it), and nothing native is
 * installed; the embedded stores Node 20 can load without a compiler are all native addons.
 */
import { randomUUID } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { detach } from './clone.js';
import {
  apply,
  changeLine,
  openingLine,
  readJournal,
  readStateFile as readStateFileData,
} from './journal.js';
import { FileLock, isOrphan, type LockOptions, LockTimeoutError, tempName } from './lock.js';
import { changeInPlace, worldChanged } from './transaction.js';

export type { LockOptions } from './lock.js';

export interface StoreOptions<W> {
  /** Where the state lives; in memory only when absent. A symbolic link is followed and kept. */
  path?: string | undefined;
  /** Builds a fresh world when there is no saved state yet. */
  seed: () => W;
  /**
   * Checks what was read from the file and brings a world saved by an older version up to date.
   * Throws an Error saying what is wrong (it becomes a StateFileError naming the file).
   */
  upgrade?: (saved: unknown) => W;
  /** The lock's fallback for holders it cannot check, and how long to wait for it. */
  lock?: LockOptions;
}

/** The state file cannot be used; `reason` says why, `path` is the file as it was given. */
export class StateFileError extends Error {
  override readonly name = 'StateFileError';

  constructor(
    readonly path: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`The sandbox state file ${path} cannot be used: ${reason}.`, options);
  }
}

const errnoCode = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code ?? '';

/** The journal is folded into a new snapshot once it is larger than this and than the snapshot. */
const MIN_COMPACT_BYTES = 256 * 1024;

/** What of the file the world in memory reflects. */
interface Seen {
  ino: number;
  size: number;
  mtimeMs: number;
  /** The journal's generation; undefined for a file of older versions, rewritten at its first change. */
  generation: string | undefined;
  /** The number of the last change read or written. */
  last: number;
  /** Bytes of whole lines read or written: where the next line goes. */
  offset: number;
  snapshotBytes: number;
}

export class Store<W> {
  private world: W | undefined;
  private seen: Seen | undefined;
  private readonly path: string | undefined;
  private readonly seed: () => W;
  private readonly upgrade: (saved: unknown) => W;
  private readonly lockOptions: LockOptions;
  /** The file really written: `path` with symbolic links resolved; set by `open`. */
  private target = '';
  private lock: FileLock | undefined;
  /** In-process writers queue here; the file lock orders writers across processes. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: StoreOptions<W>) {
    this.path = options.path;
    this.seed = options.seed;
    this.upgrade = options.upgrade ?? ((saved) => saved as W);
    this.lockOptions = options.lock ?? {};
  }

  get file(): string | undefined {
    return this.path;
  }

  /**
   * Checks the state file and creates it (seeded) when it does not exist yet; removes the temp
   * files of writers that died.
   */
  async open(): Promise<void> {
    if (!this.path) {
      this.world = this.seed();
      return;
    }
    const target = this.resolveLinks(resolve(this.path));
    const dir = this.makeDirectory(dirname(target));
    this.target = join(dir, basename(target));
    this.lock = new FileLock(`${this.target}.lock`, this.lockOptions);
    this.cleanOrphans(dir);
    // Reading validates the file; it is written only when it is new or was upgraded, so opening
    // (every CLI command does) costs no lock and no fsync.
    const upgraded = this.refresh(true);
    if (upgraded !== false) await this.transaction(() => undefined, true);
  }

  /**
   * Runs `fn` on the latest state without changing it; what it answers is copied (the world is
   * changed in place by the changes that may run before the caller looks at it).
   */
  async read<T>(fn: (world: W) => T): Promise<T> {
    return detach(this.peek(fn));
  }

  /**
   * `read` at once: the latest state (only what other processes appended since is read), for
   * what cannot wait, such as a clock's `now()`.
   */
  peek<T>(fn: (world: W) => T): T {
    return fn(this.latest());
  }

  /** Runs `fn` on the latest state and saves what it changed, atomically and durably. */
  write<T>(fn: (world: W) => T): Promise<T> {
    const run = this.queue.then(() => this.transaction(fn));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Replaces the state with a fresh seed. */
  reset(): Promise<void> {
    return this.write((world) => {
      const fresh = this.seed() as Record<string, unknown>;
      const draft = world as Record<string, unknown>;
      for (const key of Object.keys(draft)) if (!Object.hasOwn(fresh, key)) delete draft[key];
      Object.assign(draft, fresh);
    });
  }

  /**
   * Runs `fn` on the latest state, in place; saves what changed (`compact`: the whole world as a
   * new snapshot, even when nothing did). The result is copied out of the change.
   */
  private async transaction<T>(fn: (world: W) => T, compact = false): Promise<T> {
    if (!this.path) return detach(changeInPlace(this.latest(), fn).result);
    const lock = this.lock;
    if (!lock) throw new Error('Store.open() must be called before writing');
    let lease: { release(): void };
    try {
      lease = await lock.acquire();
    } catch (error) {
      if (error instanceof LockTimeoutError) {
        throw new StateFileError(
          this.path,
          `${error.message}; if that process is gone, remove the lock file`,
        );
      }
      throw this.fsError(error, 'write', dirname(this.target));
    }
    try {
      this.refresh();
      this.world ??= this.seed();
      const world = this.world;
      const changed = changeInPlace(world, fn);
      const result = detach(changed.result);
      const seen = this.seen;
      try {
        if (compact || !seen || seen.generation === undefined) {
          this.snapshot(world);
        } else if (changed.ops.length > 0) {
          const line = Buffer.from(changeLine(seen.generation, seen.last + 1, changed.ops));
          const journalBytes = seen.offset - seen.snapshotBytes + line.length;
          if (journalBytes > Math.max(MIN_COMPACT_BYTES, seen.snapshotBytes)) this.snapshot(world);
          else this.append(seen, line);
        }
      } catch (error) {
        // Not saved: not made, in memory either.
        changed.undo();
        throw error;
      }
      return result;
    } finally {
      lease.release();
    }
  }

  /** The current state: what other processes changed since is read first. */
  private latest(): W {
    if (this.path) this.refresh();
    this.world ??= this.seed();
    return this.world;
  }

  /**
   * Brings the world in memory up to the file: the lines appended since it was last read when it
   * can, else the whole file. Answers undefined when nothing was read or only lines were; when
   * the whole file was (`full` asks for that), whether upgrading changed the world; and `true`
   * when there is no file (it must be made).
   */
  private refresh(full = false): boolean | undefined {
    const path = this.path as string;
    let stat: Stats;
    try {
      stat = statSync(this.target);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') {
        this.seen = undefined;
        return true;
      }
      throw this.fsError(error, 'read', this.target);
    }
    if (!stat.isFile()) {
      const what = stat.isDirectory() ? 'a directory' : 'not a regular file';
      const linked = this.target !== resolve(path);
      throw new StateFileError(
        path,
        linked ? `it links to ${this.target}, which is ${what}` : `it is ${what}`,
      );
    }
    const seen = this.seen;
    if (!full && seen && this.world !== undefined && stat.ino === seen.ino) {
      if (stat.size === seen.size && stat.mtimeMs === seen.mtimeMs) return undefined;
      if (seen.generation !== undefined && this.readAppended(seen, stat)) {
        return undefined;
      }
    }
    return this.readWhole();
  }

  /**
   * Reads the lines appended after what `seen` covers; false when they do not follow it (the file
   * was rewritten meanwhile: then it is read whole). What is read starts with the newline that
   * ends the last line read; lines that follow name the generation and run on in number, and a
   * line still being written starts as they do.
   */
  private readAppended(seen: Seen, stat: Stats): boolean {
    if (stat.size <= seen.offset) return false;
    let data: Buffer;
    try {
      const fd = openSync(this.target, 'r');
      try {
        data = Buffer.alloc(stat.size - seen.offset + 1);
        let read = 0;
        while (read < data.length) {
          const got = readSync(fd, data, read, data.length - read, seen.offset - 1 + read);
          if (got === 0) break;
          read += got;
        }
        data = data.subarray(0, read);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return false;
      throw this.fsError(error, 'read', this.target);
    }
    if (data[0] !== 0x0a) return false;
    let journal: ReturnType<typeof readJournal>;
    try {
      journal = readJournal(data.subarray(1), seen.generation as string, seen.last);
    } catch {
      return false;
    }
    if (journal.changes.length === 0) {
      const start = Buffer.from(`{"g":${JSON.stringify(seen.generation)},`);
      const tail = data.subarray(1, 1 + start.length);
      if (!start.subarray(0, tail.length).equals(tail)) return false;
    } else {
      // In place, as this process's own changes are made.
      this.world = apply(this.world as W, journal.changes);
      for (const ops of journal.changes) {
        for (const op of ops) worldChanged(this.world as object, op[1].length ? String(op[1][0]) : undefined);
      }
    }
    this.seen = {
      ...seen,
      ino: stat.ino,
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      last: journal.last,
      offset: seen.offset + journal.bytes,
    };
    return true;
  }

  /** Reads the whole file; answers whether upgrading changed what it holds. */
  private readWhole(): boolean | undefined {
    const path = this.path as string;
    let data: Buffer;
    let stat: Stats;
    try {
      const fd = openSync(this.target, 'r');
      try {
        stat = fstatSync(fd);
        data = readFileSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') {
        this.seen = undefined;
        return true;
      }
      throw this.fsError(error, 'read', this.target);
    }
    let read: ReturnType<typeof readStateFileData>;
    try {
      read = readStateFileData(data);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new StateFileError(path, reason, { cause: error });
    }
    const before = JSON.stringify(read.world);
    let world: W;
    try {
      world = this.upgrade(read.world);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new StateFileError(path, `${reason}; move it away to start afresh`, { cause: error });
    }
    this.world = world;
    this.seen = {
      ino: stat.ino,
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      generation: read.generation,
      last: read.last,
      offset: read.bytes,
      snapshotBytes: read.snapshotBytes,
    };
    return JSON.stringify(world) !== before;
  }

  /** Appends a change's line at the end of what `seen` covers (a torn tail is cut off first). */
  private append(seen: Seen, line: Buffer): void {
    let fd: number;
    try {
      fd = openSync(this.target, 'r+');
    } catch (error) {
      throw this.fsError(error, 'write', dirname(this.target));
    }
    try {
      try {
        if (fstatSync(fd).size !== seen.offset) ftruncateSync(fd, seen.offset);
        let written = 0;
        while (written < line.length) {
          written += writeSync(fd, line, written, line.length - written, seen.offset + written);
        }
        fdatasyncSync(fd);
      } catch (error) {
        try {
          ftruncateSync(fd, seen.offset);
        } catch {
          // What was written has no newline at its end, or is whole: readers take it or not.
        }
        throw this.fsError(error, 'write', dirname(this.target));
      }
      const stat = fstatSync(fd);
      this.seen = {
        ...seen,
        size: stat.size,
        mtimeMs: stat.mtimeMs,
        last: seen.last + 1,
        offset: seen.offset + line.length,
      };
    } finally {
      closeSync(fd);
    }
  }

  /** Writes the world as a new snapshot with an empty journal, replacing the file atomically. */
  private snapshot(world: W): void {
    const dir = dirname(this.target);
    const temp = join(dir, tempName(basename(this.target)));
    const generation = randomUUID();
    const head = `${JSON.stringify(world)}\n${openingLine(generation)}`;
    try {
      const fd = openSync(temp, 'wx', 0o600);
      try {
        writeSync(fd, head);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, this.target);
    } catch (error) {
      try {
        unlinkSync(temp);
      } catch {
        // Never created, or already renamed.
      }
      throw this.fsError(error, 'write', dir);
    }
    // Make the rename itself durable.
    try {
      const fd = openSync(dir, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      // Some filesystems cannot fsync a directory; the rename is still atomic.
    }
    const stat = statSync(this.target);
    const bytes = Buffer.byteLength(head);
    this.seen = {
      ino: stat.ino,
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      generation,
      last: 0,
      offset: bytes,
      snapshotBytes: bytes,
    };
  }

  /** Follows symbolic links to the file they end at (which may not exist yet). */
  private resolveLinks(start: string): string {
    let current = start;
    for (let hops = 0; hops < 40; hops++) {
      let stat: Stats;
      try {
        stat = lstatSync(current);
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') return current;
        throw this.fsError(error, 'read', current);
      }
      if (!stat.isSymbolicLink()) return current;
      current = resolve(dirname(current), readlinkSync(current));
    }
    throw new StateFileError(this.path as string, 'it is a loop of symbolic links');
  }

  /** Creates the state file's directory, checks that it can write there, answers its real path. */
  private makeDirectory(dir: string): string {
    try {
      makeDirectories(dir);
    } catch (error) {
      throw this.fsError(error, 'mkdir', dir);
    }
    try {
      // Checked up front: otherwise the first write would be the first to find out.
      accessSync(dir, constants.W_OK);
      return realpathSync(dir);
    } catch (error) {
      throw this.fsError(error, 'write', dir);
    }
  }

  /** Removes what writers killed mid-transaction left behind, never a live writer's file. */
  private cleanOrphans(dir: string): void {
    const base = basename(this.target);
    const staleMs = this.lockOptions.staleMs ?? 30_000;
    const now = Date.now();
    try {
      for (const entry of readdirSync(dir)) {
        if (!entry.startsWith(`.${base}.`)) continue;
        const path = join(dir, entry);
        try {
          if (isOrphan(entry, base, lstatSync(path).mtimeMs, staleMs, now)) unlinkSync(path);
        } catch (error) {
          if (errnoCode(error) !== 'ENOENT') throw error;
        }
      }
      this.lock?.cleanUp();
    } catch (error) {
      throw this.fsError(error, 'write', dir);
    }
  }

  /**
   * A filesystem error as a StateFileError saying what could not be done where: `place` is the
   * file for a read, the directory for anything else.
   */
  private fsError(error: unknown, doing: 'read' | 'write' | 'mkdir', place: string): Error {
    if (error instanceof StateFileError) return error;
    const code = errnoCode(error);
    const failed = (error as NodeJS.ErrnoException).path ?? place;
    const action =
      doing === 'read'
        ? `cannot read ${place}`
        : doing === 'mkdir'
          ? `cannot create the directory ${failed}`
          : `cannot write in ${place}`;
    const why: Record<string, string> = {
      EACCES: 'permission denied',
      EPERM: 'operation not permitted',
      EROFS: 'read-only file system',
      ENOSPC: 'no space left on the device',
      EDQUOT: 'disk quota exceeded',
      ENAMETOOLONG: 'the path is too long',
      ELOOP: 'too many symbolic links',
      // /proc and the like answer ENOENT to creating anything.
      ENOENT: 'the file system does not allow it',
    };
    let reason: string | undefined;
    if (code === 'ENOTDIR' || code === 'EEXIST') {
      reason = `${notADirectory(doing === 'read' ? dirname(place) : place) ?? failed} is not a directory`;
    } else if (why[code]) reason = `${action}: ${why[code]}`;
    if (reason === undefined) return error instanceof Error ? error : new Error(String(error));
    return new StateFileError(this.path as string, `${reason} (${code})`, { cause: error });
  }
}

/**
 * mkdir -p, one level at a time (Node's recursive mkdir loops forever under /proc). What it makes
 * is private (0700): the default state file's directory is cloudcall's config directory, where
 * the CLI keeps tokens, and whichever app comes first makes it.
 */
function makeDirectories(dir: string): void {
  try {
    mkdirSync(dir, 0o700);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'EEXIST') {
      if (statSync(dir).isDirectory()) return;
      throw error;
    }
    if (code !== 'ENOENT' || dirname(dir) === dir) throw error;
    makeDirectories(dirname(dir));
    try {
      mkdirSync(dir, 0o700);
    } catch (again) {
      // Another process making the same directories may have made this one meanwhile.
      if (errnoCode(again) !== 'EEXIST' || !statSync(dir).isDirectory()) throw again;
    }
  }
}

/** The nearest existing ancestor of `dir` (or `dir` itself) that is not a directory. */
function notADirectory(dir: string): string | undefined {
  for (let current = dir; ; current = dirname(current)) {
    try {
      return statSync(current).isDirectory() ? undefined : current;
    } catch {
      if (dirname(current) === current) return undefined;
    }
  }
}

/**
 * What a state file holds, as the world it stands for (its journal applied), without upgrading
 * or locking: for tools and tests that look into one. Throws an Error saying what is wrong.
 */
export function readStateFile(path: string): unknown {
  return readStateFileData(readFileSync(path)).world;
}
