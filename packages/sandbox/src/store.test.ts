/**
 * Persistence and concurrency of the sandbox state file: instances sharing a file see each other's
 * changes, concurrent writer processes never corrupt it nor lose an acknowledged change, a crash
 * leaves the last saved state, a corrupt file is reported and kept, old files are upgraded.
 *
 * The multi-process tests run the built package (dist) in child processes: build it first.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshPublicKey } from './fixtures.js';
import { type Sandbox, startSandbox } from './server.js';
import { Store } from './store.js';
import { type SshKey, seedWorld, type World } from './world.js';

const DIST = new URL('../dist/index.js', import.meta.url);
const FIRST_SSH_KEY_ID = seedWorld().nextId.sshKey as number;

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field.
async function call(sandbox: Sandbox, path: string, method = 'GET', json?: unknown): Promise<[number, any]> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { authorization: 'Bearer store-test', 'content-type': 'application/json' },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await response.text();
  return [response.status, text === '' ? undefined : JSON.parse(text)];
}

async function createKey(sandbox: Sandbox, name: string): Promise<SshKey> {
  const [status, body] = await call(sandbox, '/v2/account/keys', 'POST', {
    name,
    public_key: sshPublicKey(),
  });
  expect(status).toBe(201);
  return body.ssh_key;
}

async function keyIds(sandbox: Sandbox): Promise<number[]> {
  const [status, body] = await call(sandbox, '/v2/account/keys?per_page=200');
  expect(status).toBe(200);
  return body.ssh_keys.map((key: SshKey) => key.id);
}

const readWorld = (path: string): World => JSON.parse(readFileSync(path, 'utf8')) as World;

let root: string;
let counter = 0;
/** A fresh directory per test, all under one temp root removed at the end. */
function freshDir(): string {
  const dir = join(root, String(++counter));
  mkdirSync(dir);
  return dir;
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'cloudcall-sandbox-store-'));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('sharing a state file', () => {
  it('shows a change made through one instance to another instance and after a restart', async () => {
    const statePath = join(freshDir(), 'nested', 'state.json');
    const a = await startSandbox({ statePath });
    const b = await startSandbox({ statePath });
    try {
      const first = await createKey(a, 'first');
      expect(await keyIds(b)).toEqual([first.id]);

      // B already holds the state in memory: it must notice A's later change.
      const second = await createKey(a, 'second');
      expect(await keyIds(b)).toEqual([first.id, second.id]);

      // And the other way round, including a rename and a delete.
      expect((await call(b, `/v2/account/keys/${first.id}`, 'DELETE'))[0]).toBe(204);
      expect((await call(b, `/v2/account/keys/${second.id}`, 'PUT', { name: 'renamed' }))[0]).toBe(200);
      expect((await call(a, `/v2/account/keys/${first.id}`))[0]).toBe(404);
      expect((await call(a, `/v2/account/keys/${second.id}`))[1].ssh_key.name).toBe('renamed');

      await a.advanceClock(3_600_000);
      expect(await b.store.read((world) => world.clockOffsetMs)).toBe(3_600_000);
    } finally {
      await a.close();
      await b.close();
    }

    const restarted = await startSandbox({ statePath });
    try {
      const [, body] = await call(restarted, '/v2/account/keys');
      expect(body.ssh_keys).toEqual([expect.objectContaining({ name: 'renamed' })]);
      expect(await restarted.store.read((world) => world.clockOffsetMs)).toBe(3_600_000);
      // Ids continue where they stopped rather than being handed out again.
      const third = await createKey(restarted, 'third');
      expect(third.id).toBe(FIRST_SSH_KEY_ID + 2);
    } finally {
      await restarted.close();
    }
    expect(readWorld(statePath).sshKeys.map((key) => key.name)).toEqual(['renamed', 'third']);
  });

  it('keeps every change when two instances in one process write at once', async () => {
    const statePath = join(freshDir(), 'state.json');
    const a = await startSandbox({ statePath });
    const b = await startSandbox({ statePath });
    try {
      const created = await Promise.all(
        Array.from({ length: 20 }, (_, i) => createKey(i % 2 ? a : b, `parallel-${i}`)),
      );
      const ids = created.map((key) => key.id);
      expect(new Set(ids).size).toBe(20);
      expect((await keyIds(a)).sort()).toEqual([...ids].sort());
      expect(
        readWorld(statePath)
          .sshKeys.map((key) => key.id)
          .sort(),
      ).toEqual([...ids].sort());
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('leaves the state unchanged when a change fails half-way, on file and in memory', async () => {
    const statePath = join(freshDir(), 'state.json');
    for (const path of [statePath, undefined]) {
      const store = new Store<World>({ path, seed: () => seedWorld() });
      await store.open();
      await store.write((world) => {
        world.clockOffsetMs = 5;
      });
      await expect(
        store.write((world) => {
          world.clockOffsetMs = 99;
          world.sshKeys.push({ id: 1, fingerprint: 'f', public_key: 'k', name: 'half' });
          throw new Error('handler failed');
        }),
      ).rejects.toThrow('handler failed');
      expect(await store.read((world) => [world.clockOffsetMs, world.sshKeys.length])).toEqual([5, 0]);
      // The queue carries on after a failure.
      await store.write((world) => {
        world.clockOffsetMs += 1;
      });
      expect(await store.read((world) => world.clockOffsetMs)).toBe(6);
    }
    expect(readWorld(statePath).clockOffsetMs).toBe(6);
  });
});

/** A child process running the built sandbox on a shared state file and creating keys. */
class Writer {
  readonly acks: { id: number; fingerprint: string }[] = [];
  readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly ready: Promise<void>;
  stderr = '';
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiters: (() => void)[] = [];

  constructor(script: string, statePath: string, count: number, label: string) {
    this.child = spawn(process.execPath, [script, DIST.href, statePath, String(count), label], {
      stdio: 'pipe',
    });
    let markReady: () => void = () => undefined;
    this.ready = new Promise((resolve) => {
      markReady = resolve;
    });
    let buffered = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const [word, id, fingerprint] = line.split(' ');
        if (word === 'ready') markReady();
        if (word === 'ack') this.acks.push({ id: Number(id), fingerprint: fingerprint as string });
      }
      for (const waiter of this.waiters.splice(0)) waiter();
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.closed = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        for (const waiter of this.waiters.splice(0)) waiter();
        resolve({ code, signal });
      });
    });
  }

  go(): void {
    this.child.stdin.write('go\n');
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }

  /** Resolves once `n` keys are acknowledged (or the child is gone). */
  async waitForAcks(n: number): Promise<void> {
    while (this.acks.length < n && this.child.exitCode === null && this.child.signalCode === null) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
}

const WRITER_SCRIPT = `
import { createInterface } from 'node:readline';

const [distUrl, statePath, countText, label] = process.argv.slice(2);
const { startSandbox, sshPublicKey } = await import(distUrl);
const count = Number(countText);


const sandbox = await startSandbox({ statePath });
process.stdout.write('ready\\n');
// Every writer waits for "go" so that they all write at the same time.
const lines = createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once('line', resolve));
lines.close();
for (let i = 0; count === 0 || i < count; i++) {
  const response = await fetch(sandbox.url + '/v2/account/keys', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + label, 'content-type': 'application/json' },
    body: JSON.stringify({ name: label + '-' + i, public_key: sshPublicKey() }),
  });
  const body = await response.json();
  if (response.status !== 201) {
    process.stderr.write(label + ': ' + response.status + ' ' + JSON.stringify(body) + '\\n');
    process.exit(1);
  }
  // Written synchronously to the pipe: once printed, the parent gets it even after a SIGKILL.
  process.stdout.write('ack ' + body.ssh_key.id + ' ' + body.ssh_key.fingerprint + '\\n');
}
await sandbox.close();
process.exit(0);
`;

describe('several processes on one state file', () => {
  const WRITERS = 3;
  const KEYS_EACH = 25;
  let script: string;

  beforeAll(() => {
    if (!existsSync(fileURLToPath(DIST))) {
      throw new Error(
        `${fileURLToPath(DIST)} is missing: build the package first (pnpm --filter @cloudcall/sandbox build)`,
      );
    }
    script = join(root, 'writer.mjs');
    writeFileSync(script, WRITER_SCRIPT);
  });

  it('never corrupts the file nor loses an acknowledged key when processes write at once', async () => {
    const statePath = join(freshDir(), 'state.json');
    const writers = Array.from(
      { length: WRITERS },
      (_, i) => new Writer(script, statePath, KEYS_EACH, `writer${i}`),
    );
    await Promise.all(writers.map((writer) => writer.ready));
    // A reader in this process, reading (without the lock) while they write, never sees a torn file.
    const reader = await startSandbox({ statePath });
    const totals: number[] = [];
    const failures: string[] = [];
    let writing = true;
    const reading = (async () => {
      while (writing) {
        const [status, body] = await call(reader, '/v2/account/keys?per_page=1');
        if (status === 200) totals.push(body.meta.total);
        else failures.push(`${status} ${JSON.stringify(body)}`);
      }
    })();
    for (const writer of writers) writer.go();
    const exits = await Promise.all(writers.map((writer) => writer.closed));
    writing = false;
    await reading;
    await reader.close();
    for (const [i, exit] of exits.entries()) {
      expect(exit, writers[i]?.stderr).toEqual({ code: 0, signal: null });
    }
    expect(failures).toEqual([]);
    expect(totals.length).toBeGreaterThan(5);
    expect(totals).toEqual([...totals].sort((a, b) => a - b));

    const total = WRITERS * KEYS_EACH;
    const acks = writers.flatMap((writer) => writer.acks);
    expect(acks).toHaveLength(total);
    const world = readWorld(statePath);
    expect(world.sshKeys).toHaveLength(total);
    const saved = new Map(world.sshKeys.map((key) => [key.id, key.fingerprint]));
    for (const ack of acks) expect(saved.get(ack.id), `key ${ack.id}`).toBe(ack.fingerprint);
    expect(new Set(acks.map((ack) => ack.id)).size).toBe(total);
    expect(new Set(world.sshKeys.map((key) => key.fingerprint)).size).toBe(total);
    expect(world.nextId.sshKey).toBe(FIRST_SSH_KEY_ID + total);

    // The writers really overlapped: their id ranges interleave.
    const ranges = writers.map((writer) => {
      const ids = writer.acks.map((ack) => ack.id);
      return [Math.min(...ids), Math.max(...ids)] as const;
    });
    const overlapping = ranges.some(([lo, hi], i) =>
      ranges.some(([lo2, hi2], j) => i !== j && lo < hi2 && lo2 < hi),
    );
    expect(overlapping).toBe(true);

    // No temp file is left behind by a clean run.
    expect(readdirSync(join(statePath, '..')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('keeps every acknowledged key when a writer is killed mid-write', async () => {
    const statePath = join(freshDir(), 'state.json');
    // A large state makes saving the bulk of each request, so the kill most likely lands in it.
    const world = seedWorld();
    for (let i = 0; i < 3_000; i++) {
      world.sshKeys.push({
        id: world.nextId.sshKey as number,
        fingerprint: `filler-${i}`,
        public_key: `ssh-ed25519 filler${i}`,
        name: `filler-${i}-${randomUUID()}`,
      });
      world.nextId.sshKey = (world.nextId.sshKey as number) + 1;
    }
    writeFileSync(statePath, JSON.stringify(world));

    const writer = new Writer(script, statePath, 0, 'doomed');
    await writer.ready;
    writer.go();
    await writer.waitForAcks(15);
    writer.kill();
    const exit = await writer.closed;
    expect(exit.signal, writer.stderr).toBe('SIGKILL');
    expect(writer.acks.length).toBeGreaterThanOrEqual(15);

    const after = readWorld(statePath);
    const saved = new Map(after.sshKeys.map((key) => [key.id, key.fingerprint]));
    for (const ack of writer.acks) expect(saved.get(ack.id), `key ${ack.id}`).toBe(ack.fingerprint);
    // At most one change committed whose answer the killed process never printed.
    expect(after.sshKeys.length - 3_000 - writer.acks.length).toBeGreaterThanOrEqual(0);
    expect(after.sshKeys.length - 3_000 - writer.acks.length).toBeLessThanOrEqual(1);

    // The killed process may still hold the lock; once it is stale (10 s old), the next one takes over.
    const lock = `${statePath}.lock`;
    if (existsSync(lock)) utimesSync(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const next = await startSandbox({ statePath });
    try {
      const created = await createKey(next, 'after-the-crash');
      expect(saved.has(created.id)).toBe(false);
      const [, body] = await call(next, `/v2/account/keys?per_page=1`);
      expect(body.meta.total).toBe(after.sshKeys.length + 1);
    } finally {
      await next.close();
    }
  });
});

describe('crashes and corrupt files', () => {
  it('ignores a half-written temp file left by a crash', async () => {
    const dir = freshDir();
    const statePath = join(dir, 'state.json');
    const first = await startSandbox({ statePath });
    const key = await createKey(first, 'survivor');
    await first.close();
    const before = readFileSync(statePath, 'utf8');
    // What a writer killed before its rename leaves: a truncated temp file next to the state.
    writeFileSync(join(dir, `.state.json.${process.pid + 1}.${Date.now()}.tmp`), before.slice(0, 100));

    const second = await startSandbox({ statePath });
    try {
      expect(await keyIds(second)).toEqual([key.id]);
      await createKey(second, 'next');
      expect(await keyIds(second)).toHaveLength(2);
    } finally {
      await second.close();
    }
  });

  it.each([
    ['garbage', 'this is {not json'],
    ['an empty file', ''],
    ['JSON that is not an object', '[1, 2, 3]'],
    ['null', 'null'],
    ['a world of another version', JSON.stringify({ ...seedWorld(), version: 99 })],
  ])('refuses %s with an error naming the file, and keeps the file', async (_label, content) => {
    const statePath = join(freshDir(), 'state.json');
    writeFileSync(statePath, content);
    const error = await startSandbox({ statePath }).then(
      (sandbox) => sandbox.close().then(() => new Error('the sandbox started')),
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(statePath);
    expect((error as Error).message).not.toBe('the sandbox started');
    expect(readFileSync(statePath, 'utf8')).toBe(content);
    // The lock is released, so fixing the file is enough to start again.
    expect(existsSync(`${statePath}.lock`)).toBe(false);
  });

  it('does not overwrite a state file that became corrupt while running', async () => {
    const statePath = join(freshDir(), 'state.json');
    const sandbox = await startSandbox({ statePath });
    try {
      writeFileSync(statePath, 'garbage');
      const [status, body] = await call(sandbox, '/v2/account/keys', 'POST', {
        name: 'lost',
        public_key: sshPublicKey(),
      });
      expect(status).toBe(500);
      expect(body.id).toBe('server_error');
      expect(readFileSync(statePath, 'utf8')).toBe('garbage');
    } finally {
      await sandbox.close();
    }
  });
});

describe('upgrading a saved world', () => {
  it('fills in a collection the file lacks and keeps what it has', async () => {
    const statePath = join(freshDir(), 'state.json');
    const old = seedWorld() as Partial<World>;
    const key: SshKey = {
      id: FIRST_SSH_KEY_ID,
      fingerprint: 'aa:bb',
      public_key: 'ssh-ed25519 AAAA',
      name: 'kept',
    };
    old.sshKeys = [key];
    old.nextId = { sshKey: FIRST_SSH_KEY_ID + 1 };
    delete old.actions;
    writeFileSync(statePath, JSON.stringify(old));

    const sandbox = await startSandbox({ statePath });
    try {
      const [status, body] = await call(sandbox, '/v2/actions');
      expect(status).toBe(200);
      expect(body.actions).toEqual([]);
      expect((await call(sandbox, '/v2/account/keys'))[1].ssh_keys).toEqual([key]);
      // Opening saved the upgraded world.
      const saved = readWorld(statePath);
      expect(saved.actions).toEqual([]);
      expect(saved.nextId.action).toBe(seedWorld().nextId.action);
      expect(saved.nextId.sshKey).toBe(FIRST_SSH_KEY_ID + 1);
      expect((await createKey(sandbox, 'new')).id).toBe(FIRST_SSH_KEY_ID + 1);
    } finally {
      await sandbox.close();
    }
  });
});
