/**
 * The state file's lock under faults: a holder killed while holding it, waiters racing to break
 * a dead holder's lock, writers killed at random, holders that cannot be checked (another host,
 * an older cloudcall's lock directory).
 *
 * The children run the built package (dist): build it first.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileLock, type Lease } from './lock.js';
import { readStateFile, StateFileError, Store } from './store.js';
import { Child, IMPORT_STORE, killChildren, requireBuilt } from './testing/processes.js';
import { seedWorld, upgradeWorld, type World } from './world.js';

/** The age fallback in these tests: passing proves the pid check, which does not wait for it. */
const HOUR = 3_600_000;

let root: string;
let counter = 0;
function freshDir(): string {
  const dir = join(root, String(++counter));
  mkdirSync(dir);
  return dir;
}

beforeAll(() => {
  requireBuilt();
  root = realpathSync(mkdtempSync(join(tmpdir(), 'cloudcall-sandbox-lock-')));
});

afterAll(async () => {
  await killChildren();
  rmSync(root, { recursive: true, force: true });
});

const storeOn = (path: string, lock = { staleMs: HOUR, timeoutMs: HOUR }) =>
  new Store<World>({ path, seed: () => seedWorld(), upgrade: upgradeWorld, lock });

const readWorld = (path: string): World => readStateFile(path) as World;
const lockRecord = (path: string) =>
  JSON.parse(readFileSync(`${path}.lock`, 'utf8')) as { pid: number; id: string };

/** Opens the store on the state file, takes the lock and stays inside the transaction for ever. */
const HOLDER = `${IMPORT_STORE}
const [statePath] = process.argv.slice(2);
const store = new Store({ path: statePath, seed: () => seedWorld(), upgrade: upgradeWorld });
await store.open();
await store.write(() => {
  process.stdout.write('holding\\n');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
});
`;

/** A process that takes the lock on `statePath` and is killed while holding it. */
async function killedHolder(statePath: string): Promise<number> {
  const holder = new Child(HOLDER, [statePath]);
  await holder.line((line) => line === 'holding');
  // The setup really leaves a lock behind, held by that process.
  expect(lockRecord(statePath).pid).toBe(holder.pid);
  holder.kill();
  expect((await holder.closed).signal).toBe('SIGKILL');
  expect(existsSync(`${statePath}.lock`)).toBe(true);
  return holder.pid;
}

/** Polls `condition` until it holds. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('a holder that died', () => {
  it('has its lock broken at once, without waiting for the age fallback', async () => {
    const statePath = join(freshDir(), 'state.json');
    await killedHolder(statePath);

    const store = storeOn(statePath);
    await store.open();
    await store.write((world) => {
      world.clockOffsetMs = 42;
    });
    expect(readWorld(statePath).clockOffsetMs).toBe(42);
    expect(readdirSync(join(statePath, '..')).sort()).toEqual(['state.json']);
  });

  it.each([
    ['still holds it', false],
    ['released it and a third process took it', true],
  ])(
    'is broken by one waiter only: a late waiter that saw it dead does not break the lock another waiter %s',
    async (_label, third) => {
      const dir = freshDir();
      const statePath = join(dir, 'state.json');
      const lockPath = `${statePath}.lock`;
      await killedHolder(statePath);
      const options = { staleMs: HOUR, timeoutMs: HOUR };

      // The late waiter sees the dead holder, then is held up just before it acts on what it saw.
      let sawDead: () => void = () => undefined;
      const seen = new Promise<void>((resolve) => {
        sawDead = resolve;
      });
      let resume: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        resume = resolve;
      });
      let paused = false;
      const late = new FileLock(lockPath, options, {
        beforeClaim: () => {
          if (paused) return;
          paused = true;
          sawDead();
          return held;
        },
      });
      let lateLease: Lease | undefined;
      const lateAcquired = late.acquire().then((lease) => {
        lateLease = lease;
        return 'acquired' as const;
      });
      await seen;

      // Meanwhile another waiter breaks the dead holder's lock and takes it (and maybe a third
      // process takes it after it).
      let holder = await new FileLock(lockPath, options).acquire();
      if (third) {
        holder.release();
        holder = await new FileLock(lockPath, options).acquire();
      }
      const holderId = JSON.parse(readFileSync(lockPath, 'utf8')).id;

      resume();
      // The late waiter must queue up behind the holder, not remove its lock and take it.
      const queued = until(() =>
        readdirSync(dir).some((entry) => entry.startsWith('state.json.lock.q.')),
      ).then(() => 'queued' as const);
      expect(await Promise.race([lateAcquired, queued])).toBe('queued');
      expect(lateLease).toBeUndefined();
      expect(JSON.parse(readFileSync(lockPath, 'utf8')).id).toBe(holderId);

      holder.release();
      expect(await lateAcquired).toBe('acquired');
      lateLease?.release();
      expect(readdirSync(dir)).toEqual(['state.json']);
    },
  );
});

/** Writes keys through the store for ever, printing `ack <id> <name>` after each write resolved. */
const TORTURE_WRITER = `${IMPORT_STORE}
const [statePath, label] = process.argv.slice(2);
const HOUR = 3_600_000;
const store = new Store({ path: statePath, seed: () => seedWorld(), upgrade: upgradeWorld, lock: { staleMs: HOUR, timeoutMs: HOUR } });
await store.open();
for (let i = 0; ; i++) {
  const name = label + '-' + i;
  const id = await store.write((world) => {
    const id = world.nextId.sshKey;
    world.nextId.sshKey = id + 1;
    world.sshKeys.push({ id, fingerprint: name, public_key: 'ssh-ed25519 torture', name });
    return id;
  });
  process.stdout.write('ack ' + id + ' ' + name + '\\n');
}
`;

describe('writers killed at random', () => {
  // Twenty processes started and four writing flat out: on two cores shared with other suites this
  // has taken over 30 s. A stall still fails it: with an hour's fallback, a stuck lock never ends.
  it('lose no acknowledged write, never leave a torn file, and never stall the others', {
    timeout: 120_000,
  }, async () => {
    const dir = freshDir();
    const statePath = join(dir, 'state.json');
    // A large state makes saving the bulk of each write, so kills land inside transactions.
    const world = seedWorld();
    for (let i = 0; i < 2_000; i++) {
      const id = world.nextId.sshKey as number;
      world.sshKeys.push({
        id,
        fingerprint: `filler-${i}`,
        public_key: 'ssh-ed25519 filler',
        name: `filler-${i}`,
      });
      world.nextId.sshKey = id + 1;
    }
    writeFileSync(statePath, JSON.stringify(world));

    const WRITERS = 4;
    const KILLS = 16;
    let spawned = 0;
    const spawnWriter = () => new Child(TORTURE_WRITER, [statePath, `w${spawned++}`]);
    const live = Array.from({ length: WRITERS }, spawnWriter);
    const all = [...live];
    const acked = () => all.reduce((sum, child) => sum + child.acks.length, 0);
    /** Waits for `n` more acknowledged writes: with an hour's fallback, a stuck lock hangs here. */
    const progress = async (n: number) => {
      const target = acked() + n;
      while (acked() < target) {
        // A writer that ended on its own failed (and would make this loop spin): say why.
        const ended = live.find((child) => child.done);
        if (ended) throw new Error(`writer ${ended.pid} exited unkilled: ${ended.stderr}`);
        await Promise.race(live.map((child) => child.next()));
      }
    };

    let killedHolding = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      await progress(3);
      // Every other kill aims at whoever holds the lock right now.
      let holderPid: number | undefined;
      try {
        holderPid = lockRecord(statePath).pid;
      } catch {
        holderPid = undefined;
      }
      const holder = live.findIndex((child) => child.pid === holderPid);
      const index = kill % 2 === 0 && holder >= 0 ? holder : Math.floor(Math.random() * live.length);
      const victim = live[index] as Child;
      victim.kill();
      expect((await victim.closed).signal, victim.stderr).toBe('SIGKILL');
      try {
        if (lockRecord(statePath).pid === victim.pid) killedHolding++;
      } catch {
        // No lock right now.
      }
      expect(() => readWorld(statePath)).not.toThrow();
      const replacement = spawnWriter();
      live[index] = replacement;
      all.push(replacement);
    }
    await progress(3);
    for (const child of live) child.kill();
    await Promise.all(live.map((child) => child.closed));

    // Some kills left the lock behind, and the writers after them carried on.
    expect(killedHolding).toBeGreaterThan(0);
    const saved = readWorld(statePath);
    const byId = new Map(saved.sshKeys.map((key) => [key.id, key.name]));
    const acks = all.flatMap((child) => child.acks);
    expect(acks.length).toBeGreaterThan(KILLS * 3);
    for (const ack of acks) expect(byId.get(ack.id), `acknowledged key ${ack.id}`).toBe(ack.fingerprint);
    expect(new Set(saved.sshKeys.map((key) => key.id)).size).toBe(saved.sshKeys.length);
    expect(saved.nextId.sshKey).toBe(Math.max(...saved.sshKeys.map((key) => key.id)) + 1);

    // The next writer finds what the killed ones left and clears it.
    const store = storeOn(statePath);
    await store.open();
    await store.write((w) => {
      w.clockOffsetMs = 1;
    });
    expect(readdirSync(dir)).toEqual(['state.json']);
  });
});

describe('holders that cannot be checked', () => {
  it('waits for a lock held on another host until it is older than the fallback', async () => {
    const statePath = join(freshDir(), 'state.json');
    await storeOn(statePath).open();
    const record = { pid: 1, host: 'elsewhere', tag: 'ffffffffff', proc: 'x', id: 'abcdef012345', since: 0 };
    writeFileSync(`${statePath}.lock`, JSON.stringify(record));

    const waiting = storeOn(statePath, { staleMs: HOUR, timeoutMs: 300 });
    await waiting.open();
    const error = await waiting.write(() => undefined).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toContain('held by process 1 on elsewhere');

    const old = new Date(Date.now() - 120_000);
    utimesSync(`${statePath}.lock`, old, old);
    const after = storeOn(statePath, { staleMs: 60_000, timeoutMs: HOUR });
    await after.open();
    await after.write((world) => {
      world.clockOffsetMs = 7;
    });
    expect(readWorld(statePath).clockOffsetMs).toBe(7);
    expect(existsSync(`${statePath}.lock`)).toBe(false);
  });

  it('takes over the lock directory of an older cloudcall once it is older than the fallback', async () => {
    const statePath = join(freshDir(), 'state.json');
    await storeOn(statePath).open();
    mkdirSync(`${statePath}.lock`);

    const waiting = storeOn(statePath, { staleMs: HOUR, timeoutMs: 300 });
    await waiting.open();
    await expect(waiting.write(() => undefined)).rejects.toThrow('an older cloudcall');

    const old = new Date(Date.now() - 120_000);
    utimesSync(`${statePath}.lock`, old, old);
    const after = storeOn(statePath, { staleMs: 60_000, timeoutMs: HOUR });
    await after.open();
    await after.write((world) => {
      world.clockOffsetMs = 8;
    });
    expect(readWorld(statePath).clockOffsetMs).toBe(8);
    expect(existsSync(`${statePath}.lock`)).toBe(false);
  });

  it('says who holds a lock it gave up waiting for', async () => {
    const statePath = join(freshDir(), 'state.json');
    await storeOn(statePath).open();
    const lease = await new FileLock(`${statePath}.lock`).acquire();
    try {
      const waiting = storeOn(statePath, { staleMs: HOUR, timeoutMs: 200 });
      await waiting.open();
      const error = await waiting.write(() => undefined).catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(StateFileError);
      expect((error as StateFileError).path).toBe(statePath);
      expect((error as Error).message).toContain(`held by process ${process.pid} on ${hostname()}`);
    } finally {
      lease.release();
    }
  });
});
