/**
 * Child processes for the multi-process tests of the state file: they run the built package
 * (dist), so build it first. Test support only (not built into dist).
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

/** The built package, as the children import it. */
export const DIST = new URL('../../dist/index.js', import.meta.url);

export function requireBuilt(): void {
  if (!existsSync(fileURLToPath(DIST))) {
    throw new Error(
      `${fileURLToPath(DIST)} is missing: build the package first (pnpm --filter @cloudcall/sandbox build)`,
    );
  }
}

/**
 * Who to run a child as so that permission bits apply: root ignores them, so as root the child
 * runs as `nobody` (65534); anyone else runs it as themselves.
 */
export const UNPRIVILEGED = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

/**
 * Whether a child run as UNPRIVILEGED can load the package and reach the temp directory (as root,
 * not when this checkout or the temp directory is private to root).
 */
export function unprivilegedCanRun(): boolean {
  if (process.getuid?.() !== 0) return true;
  const check = `await import(${JSON.stringify(DIST.href)}); (await import('node:fs')).accessSync(${JSON.stringify(tmpdir())}, 1);`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', check], {
    ...UNPRIVILEGED,
    stdio: 'ignore',
  });
  return result.status === 0;
}

/**
 * Script text that loads, from the built package, only what the state file needs (the store and
 * its lock, the world) as `Store`, `StateFileError`, `seedWorld` and `upgradeWorld`: a child that
 * runs no server then starts on 0.2 s of CPU instead of the index's 0.55 s, and the lock tests
 * start some twenty of them. For a `Child` script (argv[1] is the index).
 */
export const IMPORT_STORE = `
const { Store, StateFileError } = await import(new URL('./store.js', process.argv[1]));
const { seedWorld, upgradeWorld } = await import(new URL('./world.js', process.argv[1]));
`;

const running = new Set<Child>();

/** Kills the children still running (a failed test leaves them): call it in afterAll. */
export async function killChildren(): Promise<void> {
  const children = [...running];
  for (const child of children) child.kill();
  await Promise.all(children.map((child) => child.closed));
}

/**
 * A child process running `script` (an ES module, given as text) with `args`, read line by line.
 * A line `ack <id> <fingerprint>` records an acknowledged write: the child prints it only after
 * the write resolved, synchronously (stdout to a pipe), so the parent gets it even after a SIGKILL.
 */
export class Child {
  readonly lines: string[] = [];
  readonly acks: { id: number; fingerprint: string }[] = [];
  readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr = '';
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiters: (() => void)[] = [];
  private exited = false;

  constructor(script: string, args: string[], options: { uid?: number; gid?: number } = {}) {
    this.child = spawn(process.execPath, ['--input-type=module', '-e', script, DIST.href, ...args], {
      stdio: 'pipe',
      ...options,
    });
    let buffered = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        this.lines.push(line);
        const [word, id, fingerprint] = line.split(' ');
        if (word === 'ack') this.acks.push({ id: Number(id), fingerprint: fingerprint as string });
      }
      this.notify();
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    running.add(this);
    this.closed = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        running.delete(this);
        this.exited = true;
        this.notify();
        resolve({ code, signal });
      });
    });
  }

  get pid(): number {
    return this.child.pid as number;
  }

  /** Whether the child has exited (and its output has been read to the end). */
  get done(): boolean {
    return this.exited;
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  /** The first line (from the start) that satisfies `match`; fails if the child exits first. */
  async line(match: (line: string) => boolean): Promise<string> {
    for (;;) {
      const found = this.lines.find(match);
      if (found !== undefined) return found;
      if (this.exited) {
        throw new Error(`the child exited before printing the line awaited; stderr: ${this.stderr}`);
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Resolves at the next line or exit. */
  next(): Promise<void> {
    return this.exited ? Promise.resolve() : new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Resolves once `n` writes are acknowledged (or the child is gone). */
  async waitForAcks(n: number): Promise<void> {
    while (this.acks.length < n && !this.exited) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private notify(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
}
