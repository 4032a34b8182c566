/**
 * The sandbox's state, in memory or in a JSON file shared by several processes (the MCP server,
 * each CLI invocation). Every change runs as a transaction: take the file's lock (lock.ts), read
 * the latest state, apply the change, write a temp file, fsync it, rename it over the old one,
 * release. A crash mid-write leaves the previous file intact; two writers never interleave, so no
 * acknowledged change is lost. A state file that cannot be used (unwritable, not a file, not a
 * sandbox state) is a StateFileError naming it, raised at once.
 */
import {
  accessSync,
  closeSync,
  constants,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { cloneData } from './clone.js';
import { FileLock, isOrphan, type LockOptions, LockTimeoutError, tempName } from './lock.js';

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

export class Store<W> {
  private world: W | undefined;
  private stamp = '';
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
    const read = this.readFile();
    this.world = read?.world ?? this.seed();
    if (read) this.stamp = read.stamp;
    if (!read || JSON.stringify(read.world) !== read.text) await this.write(() => undefined);
  }

  /** Runs `fn` on the latest state without changing it. */
  async read<T>(fn: (world: W) => T): Promise<T> {
    return this.peek(fn);
  }

  /**
   * `read` at once: the latest state (the file is re-read only when it changed, and writes
   * replace it whole), for what cannot wait, such as a clock's `now()`.
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
      Object.assign(world as object, this.seed());
    });
  }

  private async transaction<T>(fn: (world: W) => T): Promise<T> {
    if (!this.path) {
      const world = this.latest();
      // Work on a copy so that a handler that throws half-way leaves no partial change behind.
      const draft = cloneData(world);
      const result = fn(draft);
      this.world = draft;
      return result;
    }
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
      // A fresh parse is the draft: cheaper than cloning the cached world, and the latest state.
      const read = this.readFile();
      const draft = read?.world ?? structuredClone(this.world ?? this.seed());
      const result = fn(draft);
      this.save(draft);
      return result;
    } finally {
      lease.release();
    }
  }

  /** The current state: re-read from the file when another process changed it. */
  private latest(): W {
    if (!this.path) {
      this.world ??= this.seed();
      return this.world;
    }
    const read = this.readFile(this.stamp);
    if (read) {
      this.world = read.world;
      this.stamp = read.stamp;
    }
    this.world ??= this.seed();
    return this.world;
  }

  /**
   * Reads and checks the state file; undefined when it does not exist, or (given the stamp of
   * what is cached) when it has not changed.
   */
  private readFile(unless?: string): { world: W; text: string; stamp: string } | undefined {
    const path = this.path as string;
    let stat: Stats;
    try {
      stat = statSync(this.target);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return undefined;
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
    const stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
    if (unless !== undefined && stamp === unless && this.world) return undefined;
    let text: string;
    try {
      text = readFileSync(this.target, 'utf8');
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return undefined;
      throw this.fsError(error, 'read', this.target);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new StateFileError(path, 'it is not valid JSON; move it away to start afresh');
    }
    try {
      return { world: this.upgrade(parsed), text, stamp };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new StateFileError(path, `${reason}; move it away to start afresh`, { cause: error });
    }
  }

  private save(world: W): void {
    const dir = dirname(this.target);
    const temp = join(dir, tempName(basename(this.target)));
    try {
      const fd = openSync(temp, 'wx', 0o600);
      try {
        writeSync(fd, JSON.stringify(world));
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
    this.world = world;
    const stat = statSync(this.target);
    this.stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
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
