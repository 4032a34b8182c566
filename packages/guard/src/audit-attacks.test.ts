/**
 * The audit log attacked: arguments of 3 MiB refused as invalid (the log must not grow by them),
 * values huge every way at once, a torn tail left by a crash, lines changed, removed and inserted
 * by hand, a rotation, and a log read from its end by an MCP request's id.
 */
import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeAuditLog } from '@cloudcall/testing';
import { lock } from 'proper-lockfile';
import { describe, expect, it } from 'vitest';
import { lineHash } from './audit-lines.js';
import {
  type AuditEntry,
  guardedRun,
  headPath,
  MAX_LINE_BYTES,
  openAuditLog,
  readAudit,
  verifyAudit,
} from './index.js';
import { tool, useSandbox } from './testing/sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'cloudcall-audit-attacks-'));
let count = 0;
const fresh = (name = 'audit.log') => join(dir, `${++count}-${name}`);

const sandbox = useSandbox({ retry: { baseDelayMs: 1 } });
const { seen } = sandbox;

const rawLines = (path: string) => readFileSync(path, 'utf8').split('\n').slice(0, -1);
/** Rewrites a log by hand, as someone covering their tracks would. */
const rewrite = (path: string, change: (lines: string[]) => string[]) =>
  writeFileSync(path, `${change(rawLines(path)).join('\n')}\n`);
const parsed = (path: string) => rawLines(path).map((line) => JSON.parse(line) as Record<string, unknown>);

/** Makes `calls` tag-create calls through the guard, each writing an intent and an outcome. */
async function tagCalls(path: string, names: string[], extra: { rpcId?: number; caller?: string } = {}) {
  const audit = openAuditLog(path);
  for (const name of names) {
    await guardedRun(
      tool('tag-create'),
      { Name: name },
      { client: sandbox.connection.client },
      { frontEnd: 'mcp', unconfirmed: 'run', audit, ...extra },
    );
  }
}

describe('every line is bounded', () => {
  it('40 calls of tag-create with a 3 MiB Name, refused as invalid: the log grows by less than 1 MiB, every line parses, nothing is sent', async () => {
    const path = fresh();
    const audit = openAuditLog(path);
    const huge = 'N'.repeat(3 * 1024 * 1024);
    for (let call = 0; call < 40; call++) {
      await expect(
        guardedRun(
          tool('tag-create'),
          { Name: huge },
          { client: sandbox.connection.client },
          { frontEnd: 'mcp', unconfirmed: 'run', audit },
        ),
      ).rejects.toThrow(/Name/);
    }
    expect(seen).toEqual([]);
    const size = statSync(path).size;
    expect(size).toBeLessThan(1024 * 1024);
    const lines = rawLines(path);
    expect(lines).toHaveLength(40);
    for (const line of lines) {
      expect(Buffer.byteLength(line) + 1).toBeLessThanOrEqual(MAX_LINE_BYTES);
      const entry = JSON.parse(line) as AuditEntry;
      expect(entry).toMatchObject({ tool: 'tag-create', outcome: 'error', error_id: 'invalid_arguments' });
      // The start of the value is kept, and how much was cut is said.
      expect((entry.args as { Name: string }).Name).toMatch(/^N{1024}…\[3144704 more characters\]$/);
    }
    process.stderr.write(`40 refused calls with a 3 MiB Name: the log grew by ${size} bytes\n`);
  });

  it('bounds a line whatever is appended: wide, deep, long keys, a long caller and tool', async () => {
    const path = fresh();
    const audit = openAuditLog(path);
    let deep: unknown = 'bottom';
    for (let level = 0; level < 500; level++) deep = { [`k${level}`]: deep };
    const wide = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`key-${i}`, i]));
    const args = {
      deep,
      wide,
      list: Array.from({ length: 100_000 }, (_, i) => `item ${i} ${'x'.repeat(100)}`),
      ['k'.repeat(100_000)]: 'v'.repeat(100_000),
      surrogates: '😀'.repeat(600),
    };
    await audit.append({
      time: new Date().toISOString(),
      front_end: 'cli',
      caller: `c${'a'.repeat(50_000)}`,
      tool: `t${'b'.repeat(50_000)}`,
      args,
      target: { kind: 'x', name: 'n'.repeat(100_000) },
      outcome: 'error',
      reason: 'r'.repeat(100_000),
      duration_ms: 1,
    });
    await audit.append({
      phase: 'intent',
      time: new Date().toISOString(),
      call: 'c1',
      front_end: 'mcp',
      caller: 'key:ops',
      tool: 'vm-delete',
      args,
      request: { method: 'DELETE', path: `/v2/${'p'.repeat(100_000)}` },
    });
    const lines = rawLines(path);
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(Buffer.byteLength(line) + 1).toBeLessThanOrEqual(MAX_LINE_BYTES);
      // Well-formed: no half surrogate pair, JSON that parses.
      expect(line.isWellFormed()).toBe(true);
      expect(() => JSON.parse(line)).not.toThrow();
    }
    const [first, second] = parsed(path);
    expect(first).toMatchObject({ seq: 1, outcome: 'error' });
    expect(second).toMatchObject({
      seq: 2,
      phase: 'intent',
      call: 'c1',
      caller: 'key:ops',
      tool: 'vm-delete',
    });
    expect(await verifyAudit([path])).toMatchObject({ intact: true, problems: [] });
  });
});

describe('a torn tail', () => {
  it('is ended and set apart before the next line, which says so; readers report it and keep the lines around it', async () => {
    const path = fresh();
    await tagCalls(path, ['torn-before']);
    // A crash in the middle of an intent line: its first 120 bytes reached the file.
    const cut =
      `${JSON.stringify({ seq: 3, prev: lineHash(rawLines(path)[1] as string), phase: 'intent', time: new Date().toISOString(), call: 'lost', caller: 'key:ops', tool: 'vm-delete', args: { ID: 7 } })}`.slice(
        0,
        120,
      );
    appendFileSync(path, cut);
    await tagCalls(path, ['torn-after']);
    const lines = rawLines(path);
    expect(lines).toHaveLength(5);
    expect(lines[2]).toBe(cut);
    const after = JSON.parse(lines[3] as string) as Record<string, unknown>;
    // The next line is whole, chained to the torn one, and names how long it was.
    expect(after).toMatchObject({ seq: 4, prev: lineHash(cut), after_torn: 120, phase: 'intent' });
    expect((after.args as { Name: string }).Name).toBe('torn-after');
    const read = await readAudit(path);
    expect(read.torn).toBe(1);
    expect(read.entries.map((entry) => [(entry.args as { Name: string }).Name, entry.outcome])).toEqual([
      ['torn-before', 'ok'],
      ['torn-after', 'ok'],
    ]);
    const verified = await verifyAudit([path]);
    expect(verified).toMatchObject({ intact: true, problems: [] });
    expect(verified.notes).toEqual([
      {
        file: path,
        line: 3,
        message: 'torn: 120 bytes of a line cut short (a crash or a full disk), set apart by the next line',
      },
    ]);
  });

  it('a whole line that lost only its newline is ended and chained as it is', async () => {
    const path = fresh();
    await tagCalls(path, ['whole-1']);
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.slice(0, -1));
    await tagCalls(path, ['whole-2']);
    const lines = parsed(path);
    expect(lines.map((line) => line.seq)).toEqual([1, 2, 3, 4]);
    expect(lines[2]).not.toHaveProperty('after_torn');
    expect(await verifyAudit([path])).toMatchObject({ intact: true, notes: [] });
  });
});

describe('the chain', () => {
  /** A log of 6 calls (12 lines), intact. */
  async function logOfSix(): Promise<string> {
    const path = fresh();
    await tagCalls(path, ['c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
    return path;
  }
  it('is intact as written, each line naming the hash and seq of the one before', async () => {
    const path = await logOfSix();
    const lines = rawLines(path);
    const values = lines.map((line) => JSON.parse(line) as { seq: number; prev: string });
    expect(values[0]).toMatchObject({ seq: 1, prev: '0'.repeat(64), starts_file: true });
    for (let i = 1; i < lines.length; i++) {
      expect(values[i]).toMatchObject({ seq: i + 1, prev: lineHash(lines[i - 1] as string) });
    }
    const verified = await verifyAudit([path]);
    expect(verified).toEqual({
      intact: true,
      problems: [],
      notes: [],
      files: [{ path, lines: 12 }],
      last: { seq: 12, sha256: lineHash(lines[11] as string) },
    });
    expect(readFileSync(headPath(path), 'utf8')).toMatch(
      new RegExp(`^seq 12 sha256 ${lineHash(lines[11] as string)} +\\n$`),
    );
  });

  it('names a line edited by hand', async () => {
    const path = await logOfSix();
    rewrite(path, (lines) =>
      lines.map((line, i) =>
        i === 4 ? line.replace('"outcome":"ok"', '"outcome":"declined"').replace('"c3"', '"c9"') : line,
      ),
    );
    const { intact, problems } = await verifyAudit([path]);
    expect(intact).toBe(false);
    expect(problems[0]).toMatchObject({ line: 5, message: expect.stringMatching(/^changed/) });
  });

  it('names a line whose chain fields were edited too', async () => {
    const path = await logOfSix();
    rewrite(path, (lines) =>
      lines.map((line, i) =>
        i === 6 ? line.replace(/"prev":"[0-9a-f]{64}"/, `"prev":"${'1'.repeat(64)}"`) : line,
      ),
    );
    const { problems } = await verifyAudit([path]);
    expect(problems[0]).toMatchObject({ line: 7, message: expect.stringMatching(/^changed/) });
  });

  it('names a line removed', async () => {
    const path = await logOfSix();
    rewrite(path, (lines) => lines.filter((_, i) => i !== 7));
    const { problems } = await verifyAudit([path]);
    expect(problems).toEqual([{ file: path, line: 8, message: '1 line before it removed (seq 8)' }]);
  });

  it('names a line inserted, copied from elsewhere or made with a valid link', async () => {
    const path = await logOfSix();
    rewrite(path, (lines) => [...lines.slice(0, 3), lines[8] as string, ...lines.slice(3)]);
    expect((await verifyAudit([path])).problems).toEqual([
      { file: path, line: 4, message: 'inserted: the next line names the line before it' },
    ]);

    const forged = await logOfSix();
    rewrite(forged, (lines) => {
      const before = JSON.parse(lines[2] as string) as Record<string, unknown>;
      const made = JSON.stringify({
        ...before,
        seq: 4,
        prev: lineHash(lines[2] as string),
        tool: 'vm-delete',
      });
      return [...lines.slice(0, 3), made, ...lines.slice(3)];
    });
    expect((await verifyAudit([forged])).problems[0]).toEqual({
      file: forged,
      line: 4,
      message: 'inserted: line 5 names the line before it',
    });
  });

  it('names lines removed from the start and from the end, and a last line changed (the head covers the end)', async () => {
    const start = await logOfSix();
    rewrite(start, (lines) => lines.slice(2));
    expect((await verifyAudit([start])).problems[0]).toMatchObject({
      line: 1,
      message: expect.stringMatching(/^lines before it were removed/),
    });

    const end = await logOfSix();
    rewrite(end, (lines) => lines.slice(0, -2));
    expect((await verifyAudit([end])).problems).toEqual([
      { file: end, line: 10, message: '2 lines after it removed: the head file names seq 12' },
    ]);

    const last = await logOfSix();
    rewrite(last, (lines) => [...lines.slice(0, -1), (lines[11] as string).replace('"ok"', '"error"')]);
    expect((await verifyAudit([last])).problems).toEqual([
      { file: last, line: 12, message: 'changed: the head file names another hash for it' },
    ]);
  });

  it('is kept across a rotation: the new file names the rotated file’s last line', async () => {
    const path = fresh();
    await tagCalls(path, ['r1', 'r2']);
    const rotated = `${path}.1`;
    renameSync(path, rotated);
    await tagCalls(path, ['r3']);
    const [first] = parsed(path);
    expect(first).toMatchObject({
      seq: 5,
      starts_file: true,
      prev: lineHash(rawLines(rotated)[3] as string),
    });
    // Checked as one chain, in any order.
    expect(await verifyAudit([path, rotated])).toMatchObject({
      intact: true,
      problems: [],
      files: [
        { path: rotated, lines: 4 },
        { path, lines: 2 },
      ],
    });
    // The newest file alone: intact, and it says it continues a log not given.
    const alone = await verifyAudit([path]);
    expect(alone.intact).toBe(true);
    expect(alone.notes[0]?.message).toMatch(/^continues a log whose last line was seq 4/);
    // A line removed from the end of the rotated file breaks the join.
    rewrite(rotated, (lines) => lines.slice(0, -1));
    expect((await verifyAudit([rotated, path])).problems).toEqual([
      {
        file: path,
        line: 1,
        message: `1 line before it removed: it does not continue ${rotated} (line 3, seq 3), or a file of the set is missing`,
      },
    ]);
  });

  it('follows a rotation that happens while a writer waits for the lock', async () => {
    const path = fresh();
    await tagCalls(path, ['w1']);
    // Another process holds the lock (this test, through the same lock the writers take).
    const release = await lock(path, { realpath: false, lockfilePath: `${path}.lock` });
    const audit = openAuditLog(path);
    const waiting = audit.append({
      time: new Date().toISOString(),
      front_end: 'cli',
      caller: 'local:late',
      tool: 'tag-create',
      args: { Name: 'late' },
      outcome: 'ok',
      duration_ms: 1,
    });
    // Once the writer has the log open, rotate it.
    const opened = () =>
      readdirSync('/proc/self/fd').some((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === path;
        } catch {
          return false;
        }
      });
    while (!opened()) await new Promise((resolve) => setTimeout(resolve, 1));
    renameSync(path, `${path}.1`);
    await release();
    await waiting;
    expect(rawLines(`${path}.1`)).toHaveLength(2);
    expect(parsed(path)).toEqual([
      expect.objectContaining({ seq: 3, starts_file: true, caller: 'local:late' }),
    ]);
    expect(await verifyAudit([`${path}.1`, path])).toMatchObject({ intact: true, problems: [] });
  });

  it('starts after lines written before it, which verify reports as not covered', async () => {
    const path = fresh();
    const old = JSON.stringify({
      time: '2026-01-01T00:00:00Z',
      front_end: 'cli',
      caller: 'local:me',
      tool: 'tag-create',
      args: {},
      outcome: 'ok',
      duration_ms: 1,
    });
    writeFileSync(path, `${old}\n${old}\n`);
    await tagCalls(path, ['after-old']);
    expect(parsed(path)[2]).toMatchObject({ seq: 1, prev: lineHash(old) });
    const verified = await verifyAudit([path]);
    expect(verified).toMatchObject({
      intact: true,
      notes: [{ line: 1, message: 'lines 1-2 were written before the chain: not covered' }],
    });
    expect((await readAudit(path)).entries).toHaveLength(3);
  });
});

describe('reading from the end', () => {
  it('honours the limit from the end, filters, and finds an MCP request’s calls by its JSON-RPC id', async () => {
    const path = fresh();
    await tagCalls(path, ['e1', 'e2'], { rpcId: 7, caller: 'key:ops' });
    await tagCalls(path, ['e3'], { rpcId: 8, caller: 'key:ci' });
    await tagCalls(path, ['e4'], { rpcId: 7, caller: 'key:ci' });
    const names = (entries: AuditEntry[]) => entries.map((entry) => (entry.args as { Name: string }).Name);
    const latest = await readAudit(path, { limit: 2 });
    expect(names(latest.entries)).toEqual(['e3', 'e4']);
    expect(latest.more).toBe(true);
    expect((await readAudit(path, { limit: 10 })).more).toBe(false);
    const byId = await readAudit(path, { rpcId: 7 });
    expect(names(byId.entries)).toEqual(['e1', 'e2', 'e4']);
    expect(byId.entries[0]).toMatchObject({
      rpc_id: 7,
      outcome: 'ok',
      requests: [{ method: 'POST', path: '/v2/tags' }],
    });
    expect(names((await readAudit(path, { rpcId: '7', caller: 'key:ci' })).entries)).toEqual(['e4']);
    expect(names((await readAudit(path, { rpcId: 7, limit: 1 })).entries)).toEqual(['e4']);
    expect((await readAudit(path, { rpcId: 9 })).entries).toEqual([]);
  });

  it('shows a call whose outcome is missing as unknown, at its latest intent', async () => {
    const path = fresh();
    await tagCalls(path, ['u1']);
    // The outcome line of u1 lost (the process killed after its request went).
    rewrite(path, (lines) => lines.slice(0, 1));
    const { entries } = await readAudit(path);
    expect(entries).toEqual([
      expect.objectContaining({ outcome: 'unknown', request: { method: 'POST', path: '/v2/tags' }, seq: 1 }),
    ]);
  });

  it('reads at most maxBytes back, whatever the log’s size', async () => {
    const path = fresh();
    const made = writeAuditLog(path, { bytes: 8 * 1024 * 1024 });
    const read = await readAudit(path, { tools: ['no-such-tool'], maxBytes: 1024 * 1024 });
    expect(read).toMatchObject({ entries: [], more: true, torn: 0 });
    const all = await readAudit(path, { caller: 'key:ops' });
    expect(all.more).toBe(false);
    // Two lines a call, the calls alternating between two callers.
    expect(all.entries).toHaveLength(Math.ceil(made.lines / 2 / 2));
    expect(await verifyAudit([path])).toMatchObject({
      intact: true,
      last: { seq: made.seq, sha256: made.hash },
    });
  });
});

it('keeps the log writable when the file is cut back to nothing (copytruncate): the chain goes on from the head', async () => {
  const path = fresh();
  await tagCalls(path, ['t1']);
  const copy = `${path}.1`;
  writeFileSync(copy, readFileSync(path));
  truncateSync(path, 0);
  await tagCalls(path, ['t2']);
  expect(await verifyAudit([copy, path])).toMatchObject({ intact: true, problems: [] });
});
