/**
 * The sandbox's state, in memory or in a JSON file shared by several processes (the MCP server,
 * each CLI invocation). Every change runs as a transaction: take the file's lock, read the latest
 * state, apply the change, write a temp file, fsync it, rename it over the old one, release. A
 * crash mid-write leaves the previous file intact; two writers never interleave, so no
 * acknowledged change is lost.
 */
import {
  closeSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import lockfile from 'proper-lockfile';

export interface StoreOptions<W> {
  /** Where the state lives; in memory only when absent. */
  path?: string | undefined;
  /** Builds a fresh world when there is no saved state yet. */
  seed: () => W;
  /** Brings a world saved by an older version up to date (adds collections added since). */
  upgrade?: (world: W) => W;
}

export class Store<W> {
  private world: W | undefined;
  private stamp = '';
  /** The file is missing, or holds an older shape than what was read from it. */
  private stale = false;
  private readonly path: string | undefined;
  private readonly seed: () => W;
  private readonly upgrade: (world: W) => W;
  /** In-process writers queue here; the file lock orders writers across processes. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: StoreOptions<W>) {
    this.path = options.path;
    this.seed = options.seed;
    this.upgrade = options.upgrade ?? ((world) => world);
  }

  get file(): string | undefined {
    return this.path;
  }

  /** Creates the state file (seeded) when it does not exist yet. */
  async open(): Promise<void> {
    if (!this.path) {
      this.world = this.seed();
      return;
    }
    await mkdir(dirname(this.path), { recursive: true });
    // Reading validates the file; it is written only when it is new or was upgraded, so opening
    // (every CLI command does) costs no lock and no fsync.
    this.stamp = '';
    this.latest();
    if (this.stale) await this.write(() => undefined);
  }

  /** Runs `fn` on the latest state without changing it. */
  async read<T>(fn: (world: W) => T): Promise<T> {
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
      const draft = structuredClone(world);
      const result = fn(draft);
      this.world = draft;
      return result;
    }
    const release = await lockfile.lock(this.path, {
      realpath: false,
      stale: 10_000,
      retries: { retries: 200, factor: 1.2, minTimeout: 5, maxTimeout: 100, randomize: true },
    });
    try {
      this.stamp = '';
      const draft = structuredClone(this.latest());
      const result = fn(draft);
      this.save(draft);
      return result;
    } finally {
      await release();
    }
  }

  /** The current state: re-read from the file when another process changed it. */
  private latest(): W {
    if (!this.path) {
      this.world ??= this.seed();
      return this.world;
    }
    let stamp: string;
    try {
      const stat = statSync(this.path);
      stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.world ??= this.seed();
      this.stale = true;
      return this.world;
    }
    if (stamp !== this.stamp || !this.world) {
      const text = readFileSync(this.path, 'utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new Error(
          `The sandbox state file ${this.path} is not valid JSON; move it away to start afresh.`,
        );
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw new Error(
          `The sandbox state file ${this.path} holds no sandbox state; move it away to start afresh.`,
        );
      }
      try {
        this.world = this.upgrade(parsed as W);
        this.stale = JSON.stringify(this.world) !== text;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(
          `The sandbox state file ${this.path} cannot be used (${reason}); move it away to start afresh.`,
        );
      }
      this.stamp = stamp;
    }
    return this.world;
  }

  private save(world: W): void {
    const path = this.path as string;
    const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, JSON.stringify(world));
      fsyncSync(fd);
    } catch (error) {
      closeSync(fd);
      unlinkSync(temp);
      throw error;
    }
    closeSync(fd);
    renameSync(temp, path);
    // Make the rename itself durable.
    try {
      const dir = openSync(dirname(path), 'r');
      fsyncSync(dir);
      closeSync(dir);
    } catch {
      // Some filesystems cannot fsync a directory; the rename is still atomic.
    }
    this.world = world;
    const stat = statSync(path);
    this.stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
  }
}
