/**
 * Persistence and concurrency of the sandbox state file: instances sharing a file see each other's
 * changes, concurrent writer processes never corrupt it nor lose an acknowledged change, a crash
 * leaves the last saved state and its leftovers are cleared, a state file that cannot be used is
 * refused with an error naming it, a symbolic link is written through, old files are upgraded.
 * (The lock under faults: lock.test.ts.)
 *
 * The multi-process tests run the built package (dist) in child processes: build it first.
 */
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshPublicKey } from './fixtures.js';
// From the package's index, as the apps import it.
import { StateFileError } from './index.js';
import { tempName } from './lock.js';
import { type Sandbox, startSandbox } from './server.js';
import { readStateFile, Store } from './store.js';
import {
  Child,
  IMPORT_STORE,
  killChildren,
  requireBuilt,
  UNPRIVILEGED,
  unprivilegedCanRun,
} from './testing/processes.js';
import { type SshKey, seedWorld, upgradeWorld, WORLD_SHAPE, type World } from './world.js';

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

const readWorld = (path: string): World => readStateFile(path) as World;

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

afterAll(async () => {
  await killChildren();
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

/**
 * Runs the built sandbox on a shared state file and creates keys through its HTTP API. It loads
 * the server, not the package's index, and sends with node:http, not fetch: a third less CPU per
 * writer, and these tests start several.
 */
const WRITER_SCRIPT = `
import { request } from 'node:http';
import { createInterface } from 'node:readline';

const [distUrl, statePath, countText, label] = process.argv.slice(1);
const { startSandbox } = await import(new URL('./server.js', distUrl));
const { sshPublicKey } = await import(new URL('./fixtures.js', distUrl));
const count = Number(countText);

/** POSTs JSON, resolving to the status and the parsed answer. */
const post = (url, json) =>
  new Promise((resolve, reject) => {
    const headers = { authorization: 'Bearer ' + label, 'content-type': 'application/json' };
    const req = request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(json));
  });

const sandbox = await startSandbox({ statePath });
process.stdout.write('ready\\n');
// Every writer waits for "go" so that they all write at the same time.
const lines = createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once('line', resolve));
lines.close();
for (let i = 0; count === 0 || i < count; i++) {
  const { status, body } = await post(sandbox.url + '/v2/account/keys', {
    name: label + '-' + i,
    public_key: sshPublicKey(),
  });
  if (status !== 201) {
    process.stderr.write(label + ': ' + status + ' ' + JSON.stringify(body) + '\\n');
    process.exit(1);
  }
  // Written synchronously to the pipe: once printed, the parent gets it even after a SIGKILL.
  process.stdout.write('ack ' + body.ssh_key.id + ' ' + body.ssh_key.fingerprint + '\\n');
}
await sandbox.close();
process.exit(0);
`;

const writer = (statePath: string, count: number, label: string) =>
  new Child(WRITER_SCRIPT, [statePath, String(count), label]);

/**
 * Writes `count` keys through the store itself once told to go, printing `ack <id> <name>` after
 * each: for what the store decides alone (where a linked file and its lock are), without a server.
 */
const STORE_WRITER = `
import { createInterface } from 'node:readline';
${IMPORT_STORE}
const [statePath, countText, label] = process.argv.slice(2);
const store = new Store({ path: statePath, seed: () => seedWorld(), upgrade: upgradeWorld });
await store.open();
process.stdout.write('ready\\n');
const lines = createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once('line', resolve));
lines.close();
for (let i = 0; i < Number(countText); i++) {
  const name = label + '-' + i;
  const id = await store.write((world) => {
    const id = world.nextId.sshKey;
    world.nextId.sshKey = id + 1;
    world.sshKeys.push({ id, fingerprint: name, public_key: 'ssh-ed25519 store-writer', name });
    return id;
  });
  process.stdout.write('ack ' + id + ' ' + name + '\\n');
}
process.exit(0);
`;
const ready = (child: Child) => child.line((line) => line === 'ready');

describe('several processes on one state file', () => {
  const WRITERS = 3;
  const KEYS_EACH = 25;

  beforeAll(requireBuilt);

  it('never corrupts the file nor loses an acknowledged key when processes write at once', async () => {
    const statePath = join(freshDir(), 'state.json');
    const writers = Array.from({ length: WRITERS }, (_, i) => writer(statePath, KEYS_EACH, `writer${i}`));
    await Promise.all(writers.map(ready));
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
    for (const child of writers) child.send('go');
    const exits = await Promise.all(writers.map((child) => child.closed));
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
    const acks = writers.flatMap((child) => child.acks);
    expect(acks).toHaveLength(total);
    const world = readWorld(statePath);
    expect(world.sshKeys).toHaveLength(total);
    const saved = new Map(world.sshKeys.map((key) => [key.id, key.fingerprint]));
    for (const ack of acks) expect(saved.get(ack.id), `key ${ack.id}`).toBe(ack.fingerprint);
    expect(new Set(acks.map((ack) => ack.id)).size).toBe(total);
    expect(new Set(world.sshKeys.map((key) => key.fingerprint)).size).toBe(total);
    expect(world.nextId.sshKey).toBe(FIRST_SSH_KEY_ID + total);

    // The writers really overlapped: their id ranges interleave.
    const ranges = writers.map((child) => {
      const ids = child.acks.map((ack) => ack.id);
      return [Math.min(...ids), Math.max(...ids)] as const;
    });
    const overlapping = ranges.some(([lo, hi], i) =>
      ranges.some(([lo2, hi2], j) => i !== j && lo < hi2 && lo2 < hi),
    );
    expect(overlapping).toBe(true);

    // Nothing is left behind by a clean run: no temp file, no lock, no ticket.
    expect(readdirSync(join(statePath, '..'))).toEqual(['state.json']);
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

    const doomed = writer(statePath, 0, 'doomed');
    await ready(doomed);
    doomed.send('go');
    await doomed.waitForAcks(15);
    doomed.kill();
    const exit = await doomed.closed;
    expect(exit.signal, doomed.stderr).toBe('SIGKILL');
    expect(doomed.acks.length).toBeGreaterThanOrEqual(15);

    const after = readWorld(statePath);
    const saved = new Map(after.sshKeys.map((key) => [key.id, key.fingerprint]));
    for (const ack of doomed.acks) expect(saved.get(ack.id), `key ${ack.id}`).toBe(ack.fingerprint);
    // At most one change committed whose answer the killed process never printed.
    expect(after.sshKeys.length - 3_000 - doomed.acks.length).toBeGreaterThanOrEqual(0);
    expect(after.sshKeys.length - 3_000 - doomed.acks.length).toBeLessThanOrEqual(1);

    // The killed process may still hold the lock: the next one takes over (lock.test.ts proves it
    // does so without waiting).
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

  it('removes on opening the temp files of writers that died, and only those', async () => {
    const dir = freshDir();
    const statePath = join(dir, 'state.json');
    await (await startSandbox({ statePath })).close();
    const gone = new Child('', []);
    await gone.closed;
    const hourAgo = new Date(Date.now() - 3_600_000);
    const plant = (name: string, old = false) => {
      writeFileSync(join(dir, name), '{"half": ');
      if (old) utimesSync(join(dir, name), hourAgo, hourAgo);
      return name;
    };
    // Our names: `.state.json.<this machine>.<pid>.<random>.tmp`, and the same for the lock's record.
    const own = tempName('state.json');
    const tag = own.split('.')[3] as string;
    const ofPid = (name: string, pid: number) => name.replace(`.${process.pid}.`, `.${pid}.`);
    const elsewhere = (name: string) => name.replace(`.${tag}.`, '.ffffffffff.');
    const removed = [
      plant(ofPid(own, gone.pid)),
      plant(ofPid(tempName('state.json.lock'), gone.pid)),
      plant(elsewhere(tempName('state.json')), true),
      plant(`.state.json.${gone.pid}.${Date.now() - 3_600_000}.tmp`, true),
      // A claim on a lock that is gone, a dead waiter's ticket.
      plant('state.json.lock.abcdef012345.break'),
    ];
    writeFileSync(
      join(dir, 'state.json.lock.q.000000000001.abcdef012345'),
      JSON.stringify({ pid: gone.pid, host: 'here', tag, proc: 'x', id: 'abcdef012345', since: 0 }),
    );
    removed.push('state.json.lock.q.000000000001.abcdef012345');
    const kept = [
      // A live writer's (this process), however old; another machine's or an older cloudcall's
      // while recent; other files.
      plant(own, true),
      plant(elsewhere(tempName('state.json'))),
      plant(`.state.json.${gone.pid}.${Date.now()}.tmp`),
      plant('.state.json.notes'),
      plant(ofPid(tempName('other.json'), gone.pid)),
    ];

    const sandbox = await startSandbox({ statePath });
    await sandbox.close();
    expect(readdirSync(dir).sort()).toEqual(['state.json', ...kept].sort());
    expect(removed.some((name) => existsSync(join(dir, name)))).toBe(false);
  });

  it.each([
    ['garbage', 'this is {not json', 'it is not valid JSON'],
    ['an empty file', '', 'it is not valid JSON'],
    ['JSON that is not an object', '[1, 2, 3]', 'it holds an array, not a sandbox state'],
    ['null', 'null', 'it holds null, not a sandbox state'],
    [
      'an object that is no sandbox state',
      '{"name": "notes"}',
      'it holds no sandbox state (no "version" field)',
    ],
    [
      'a world of another version',
      JSON.stringify({ ...seedWorld(), version: 99 }),
      'it holds sandbox state version 99; this sandbox reads version 1',
    ],
    [
      'a world with a field of the wrong kind',
      JSON.stringify({ ...seedWorld(), sshKeys: 'none' }),
      'its field "sshKeys" is a string, not an array',
    ],
    [
      'a world with an object field that holds an array',
      JSON.stringify({ ...seedWorld(), account: [] }),
      'its field "account" is an array, not an object',
    ],
    [
      'a world with an id counter that is no number',
      JSON.stringify({ ...seedWorld(), nextId: { sshKey: 'x' } }),
      'its field "nextId.sshKey" is not an integer',
    ],
  ])(
    'refuses %s with an error naming the file and the problem, and keeps the file',
    async (_label, content, reason) => {
      const statePath = join(freshDir(), 'state.json');
      writeFileSync(statePath, content);
      const error = await startSandbox({ statePath }).then(
        (sandbox) => sandbox.close().then(() => new Error('the sandbox started')),
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(StateFileError);
      expect((error as StateFileError).path).toBe(statePath);
      expect((error as Error).message).toBe(
        `The sandbox state file ${statePath} cannot be used: ${reason}; move it away to start afresh.`,
      );
      expect(readFileSync(statePath, 'utf8')).toBe(content);
      // The lock is released, so fixing the file is enough to start again.
      expect(existsSync(`${statePath}.lock`)).toBe(false);
    },
  );

  it('refuses a directory where the state file should be, at start and while running', async () => {
    const statePath = join(freshDir(), 'state.json');
    const expected = `The sandbox state file ${statePath} cannot be used: it is a directory.`;
    mkdirSync(statePath);
    const error = await startSandbox({ statePath }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toBe(expected);

    rmSync(statePath, { recursive: true });
    const sandbox = await startSandbox({ statePath });
    try {
      rmSync(statePath);
      mkdirSync(statePath);
      // Reads and writes answer the reason, not "Internal sandbox error" nor a raw EISDIR.
      for (const [method, body] of [['GET'], ['POST', { name: 'k', public_key: sshPublicKey() }]] as const) {
        const [status, answer] = await call(sandbox, '/v2/account/keys', method, body);
        expect(status).toBe(500);
        expect(answer).toMatchObject({ id: 'server_error', message: expected });
      }
    } finally {
      await sandbox.close();
    }
  });

  it('refuses a state file path that goes through a regular file', async () => {
    const dir = freshDir();
    const file = join(dir, 'file');
    writeFileSync(file, 'not a directory');
    for (const statePath of [join(file, 'state.json'), join(file, 'deeper', 'state.json')]) {
      const error = await startSandbox({ statePath }).catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(StateFileError);
      expect((error as Error).message).toMatch(
        new RegExp(
          `^The sandbox state file ${statePath} cannot be used: ${file} is not a directory \\(E\\w+\\)\\.$`,
        ),
      );
    }
  });

  it('does not overwrite a state file that became corrupt while running, and says why', async () => {
    const statePath = join(freshDir(), 'state.json');
    const sandbox = await startSandbox({ statePath });
    try {
      writeFileSync(statePath, 'garbage');
      const [status, body] = await call(sandbox, '/v2/account/keys', 'POST', {
        name: 'lost',
        public_key: sshPublicKey(),
      });
      expect(status).toBe(500);
      expect(body).toMatchObject({
        id: 'server_error',
        message: `The sandbox state file ${statePath} cannot be used: it is not valid JSON; move it away to start afresh.`,
      });
      expect(readFileSync(statePath, 'utf8')).toBe('garbage');
    } finally {
      await sandbox.close();
    }
  });
});

describe('a state file that is a symbolic link', () => {
  beforeAll(requireBuilt);

  it('is written through, keeps its link, and shares one lock with its target', async () => {
    const dir = freshDir();
    const realDir = join(dir, 'real');
    mkdirSync(realDir);
    const target = join(realDir, 'state.json');
    const link = join(dir, 'link.json');
    // Dangling until the first write creates the target; a relative link to that link.
    symlinkSync(target, link);
    symlinkSync('link.json', join(dir, 'again.json'));

    const viaLink = await startSandbox({ statePath: join(dir, 'again.json') });
    try {
      await createKey(viaLink, 'first');
    } finally {
      await viaLink.close();
    }
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(readlinkSync(join(dir, 'again.json'))).toBe('link.json');
    expect(readWorld(target).sshKeys.map((key) => key.name)).toEqual(['first']);

    // Processes writing through the link and through the target at once take turns on one lock.
    const writers = [link, target, link, target].map(
      (path, i) => new Child(STORE_WRITER, [path, '15', `w${i}`]),
    );
    await Promise.all(writers.map(ready));
    for (const child of writers) child.send('go');
    for (const [i, exit] of (await Promise.all(writers.map((child) => child.closed))).entries()) {
      expect(exit, writers[i]?.stderr).toEqual({ code: 0, signal: null });
    }
    const saved = new Map(readWorld(target).sshKeys.map((key) => [key.id, key.fingerprint]));
    expect(saved.size).toBe(1 + 4 * 15);
    for (const ack of writers.flatMap((child) => child.acks)) expect(saved.get(ack.id)).toBe(ack.fingerprint);

    // Temp files and the lock went next to the target, and nothing is left.
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['again.json', 'link.json', 'real']);
    expect(readdirSync(realDir)).toEqual(['state.json']);
  });
});

/** Opens a store (and, given "write", writes once told to), printing what happened. */
const PERMISSION_PROBE = `
import { once } from 'node:events';
import { createInterface } from 'node:readline';
${IMPORT_STORE}
const [statePath, mode] = process.argv.slice(2);
// An hour's wait: a permission problem taken for a busy lock would hang the test.
const HOUR = 3_600_000;
const store = new Store({ path: statePath, seed: () => seedWorld(), upgrade: upgradeWorld, lock: { staleMs: HOUR, timeoutMs: HOUR } });
try {
  await store.open();
  process.stdout.write('opened\\n');
  if (mode === 'write') {
    await once(createInterface({ input: process.stdin }), 'line');
    await store.write((world) => { world.clockOffsetMs += 1; });
    process.stdout.write('wrote\\n');
  }
} catch (error) {
  const { name, path, message } = error;
  process.stdout.write('error ' + JSON.stringify({ stateFileError: error instanceof StateFileError, name, path, message }) + '\\n');
}
process.exit(0);
`;

// Permission bits do not stop root: as root, the probe runs as nobody (anyone else runs it as
// themselves), in directories whose bits really refuse it. Where nobody cannot read this checkout
// (a home directory private to root), that cannot be done and these are skipped.
describe.skipIf(!unprivilegedCanRun())('a state directory the sandbox cannot write in', () => {
  let base: string;

  beforeAll(() => {
    requireBuilt();
    base = realpathSync(mkdtempSync(join(tmpdir(), 'cloudcall-sandbox-perm-')));
    chmodSync(base, 0o755);
  });

  afterAll(() => {
    for (const entry of readdirSync(base)) chmodSync(join(base, entry), 0o755);
    rmSync(base, { recursive: true, force: true });
  });

  const probe = async (statePath: string, mode: 'open' | 'write', beforeWrite?: () => void) => {
    const child = new Child(PERMISSION_PROBE, [statePath, mode], UNPRIVILEGED);
    const first = await child.line((line) => line === 'opened' || line.startsWith('error '));
    if (first === 'opened' && mode === 'write') {
      beforeWrite?.();
      child.send('go');
    }
    const last = await child.line(
      (line) => line.startsWith('error ') || line === 'wrote' || (mode === 'open' && line === 'opened'),
    );
    await child.closed;
    return last.startsWith('error ') ? JSON.parse(last.slice('error '.length)) : last;
  };

  it('fails at once, naming the directory and the permission, when the state file is there', async () => {
    const dir = join(base, 'existing');
    mkdirSync(dir);
    const statePath = join(dir, 'state.json');
    writeFileSync(statePath, JSON.stringify(seedWorld()));
    chmodSync(statePath, 0o644);
    chmodSync(dir, 0o555);
    expect(await probe(statePath, 'open')).toEqual({
      stateFileError: true,
      name: 'StateFileError',
      path: statePath,
      message: `The sandbox state file ${statePath} cannot be used: cannot write in ${dir}: permission denied (EACCES).`,
    });
  });

  it('fails at once, naming the directory it cannot create', async () => {
    const dir = join(base, 'parent');
    mkdirSync(dir);
    chmodSync(dir, 0o555);
    const statePath = join(dir, 'sub', 'state.json');
    expect(await probe(statePath, 'open')).toMatchObject({
      stateFileError: true,
      message: `The sandbox state file ${statePath} cannot be used: cannot create the directory ${join(dir, 'sub')}: permission denied (EACCES).`,
    });
  });

  it('fails at once when the directory stops being writable after opening', async () => {
    const dir = join(base, 'later');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const statePath = join(dir, 'state.json');
    const outcome = await probe(statePath, 'write', () => chmodSync(dir, 0o555));
    expect(outcome).toMatchObject({
      stateFileError: true,
      message: `The sandbox state file ${statePath} cannot be used: cannot write in ${dir}: permission denied (EACCES).`,
    });
    // The file opening created is untouched.
    expect(readWorld(statePath).clockOffsetMs).toBe(0);
  });
});

describe.skipIf(!existsSync('/proc/self'))('a state file on a file system that refuses files', () => {
  it('fails at once, naming the directory it cannot create (/proc, which refuses even root)', async () => {
    const statePath = '/proc/cloudcall-sandbox-test/state.json';
    const error = await startSandbox({ statePath }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toBe(
      `The sandbox state file ${statePath} cannot be used: cannot create the directory /proc/cloudcall-sandbox-test: the file system does not allow it (ENOENT).`,
    );
  });
});

describe('upgrading a saved world', () => {
  it("checks a file against the seed's shape: every field of a seeded world, of its kind, and no other", () => {
    const kind = (value: unknown) =>
      value === null
        ? 'null'
        : Array.isArray(value)
          ? 'an array'
          : `a${typeof value === 'object' ? 'n' : ''} ${typeof value}`;
    const seeded = seedWorld(0);
    expect(WORLD_SHAPE).toEqual(
      Object.fromEntries(Object.entries(seeded).map(([key, value]) => [key, kind(value)])),
    );
    // Each field is checked: a seeded world with any one of them of another kind is refused (the
    // version first of all, with a message of its own, tested above).
    for (const key of Object.keys(seeded).filter((key) => key !== 'version')) {
      const wrong = typeof (seeded as unknown as Record<string, unknown>)[key] === 'number' ? 'x' : 7;
      expect(() => upgradeWorld({ ...seedWorld(0), [key]: wrong })).toThrow(`its field "${key}" is`);
    }
  });

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
