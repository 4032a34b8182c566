/**
 * `cloudcall audit verify` on logs the CLI wrote against its sandbox, then edited by hand: a line
 * changed, one removed, one inserted are each named by file and line with exit 1; an intact log
 * and a rotated pair exit 0; the log defaults as `cloudcall audit`'s does.
 */
import { appendFileSync, copyFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliRunner, type Json } from './testing/run.js';

const cli = cliRunner();
const log = join(cli.home, 'audit.log');

beforeAll(async () => {
  for (const name of ['v1', 'v2', 'v3', 'v4']) {
    const made = await cli.sandbox('tag-create', '--name', name, '--audit-log', log);
    expect(made.code, made.stderr).toBe(0);
  }
});

/** A copy of the log (and its head file) changed by `change`, as someone covering their tracks would. */
function tampered(name: string, change: (lines: string[]) => string[]): string {
  const path = join(cli.home, name);
  const lines = readFileSync(log, 'utf8').split('\n').slice(0, -1);
  writeFileSync(path, `${change(lines).join('\n')}\n`);
  copyFileSync(`${log}.head`, `${path}.head`);
  return path;
}

describe('cloudcall audit verify', () => {
  it('exits 0 on an intact log, given or from CLOUDCALL_AUDIT_LOG, and prints its last hash', async () => {
    const given = await cli.run(['audit', 'verify', log]);
    expect(given.code, given.stderr).toBe(0);
    expect(given.stdout).toMatch(/^audit log intact: 8 lines; last line seq 8, sha256 [0-9a-f]{64}\n$/);
    const fromEnv = await cli.run(['audit', 'verify'], { CLOUDCALL_AUDIT_LOG: log });
    expect(fromEnv.stdout).toBe(given.stdout);
    const json = await cli.run(['audit', 'verify', '--audit-log', log, '-o', 'json']);
    expect(json.json as Json).toMatchObject({ intact: true, problems: [], files: [{ path: log, lines: 8 }] });
  });

  it('names an edited line, exit 1', async () => {
    const edited = tampered('edited.log', (lines) =>
      lines.map((line, index) => (index === 2 ? line.replace('"v2"', '"v9"') : line)),
    );
    const run = await cli.run(['audit', 'verify', edited]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${edited}:3: changed: line 4 names another hash for it`);
    expect(run.stdout).toMatch(/audit log NOT intact: 1 problem; the first at .*edited\.log line 3/);
  });

  it('names a removed line, exit 1', async () => {
    const removed = tampered('removed.log', (lines) => lines.filter((_, index) => index !== 4));
    const run = await cli.run(['audit', 'verify', removed]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${removed}:5: 1 line before it removed (seq 5)`);
  });

  it('names an inserted line, exit 1', async () => {
    const inserted = tampered('inserted.log', (lines) => [
      ...lines.slice(0, 3),
      lines[6] as string,
      ...lines.slice(3),
    ]);
    const run = await cli.run(['audit', 'verify', inserted]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${inserted}:4: inserted: the next line names the line before it`);
  });

  it('names lines cut from the end (the head file), exit 1', async () => {
    const cut = tampered('cut.log', (lines) => lines.slice(0, -1));
    const run = await cli.run(['audit', 'verify', cut]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${cut}:7: 1 line after it removed: the head file names seq 8`);
  });

  it('exits 0 on a rotated pair, in either order; 1 when a file of the set is missing its end', async () => {
    const current = join(cli.home, 'rotating.log');
    copyFileSync(log, current);
    copyFileSync(`${log}.head`, `${current}.head`);
    renameSync(current, `${current}.1`);
    const after = await cli.sandbox('tag-create', '--name', 'v5', '--audit-log', current);
    expect(after.code, after.stderr).toBe(0);
    const run = await cli.run(['audit', 'verify', current, `${current}.1`]);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/^audit log intact: 10 lines in 2 files; last line seq 10/m);
    // The newest alone is intact too, and says it continues a log not given.
    const alone = await cli.run(['audit', 'verify', current]);
    expect(alone.code).toBe(0);
    expect(alone.stdout).toContain(`${current}:1: note: continues a log whose last line was seq 8`);
    // The rotated file's last line removed: the join names it.
    const rotatedLines = readFileSync(`${current}.1`, 'utf8').split('\n').slice(0, -2);
    writeFileSync(`${current}.1`, `${rotatedLines.join('\n')}\n`);
    const broken = await cli.run(['audit', 'verify', `${current}.1`, current]);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(
      `${current}:1: 1 line before it removed: it does not continue ${current}.1 (line 7, seq 7)`,
    );
    // The listing still reads the new file.
    const listed = await cli.run(['audit', '--audit-log', current, '-o', 'json']);
    expect((listed.json as Json).entries).toMatchObject([
      { tool: 'tag-create', outcome: 'ok', args: { Name: 'v5' } },
    ]);
  });

  it('reports a torn line (a crash mid-line) and keeps the lines around it; the chain stays intact', async () => {
    const torn = tampered('torn.log', (lines) => lines);
    appendFileSync(torn, '{"seq":9,"prev":"');
    const next = await cli.sandbox('tag-create', '--name', 'v6', '--audit-log', torn);
    expect(next.code, next.stderr).toBe(0);
    const listed = await cli.run(['audit', '--audit-log', torn, '-o', 'json']);
    expect(listed.stderr).toContain(
      'cloudcall: audit: 1 torn line (cut short by a crash or a full disk) set apart',
    );
    expect((listed.json as Json).entries.map((entry: Json) => entry.args.Name)).toEqual([
      'v1',
      'v2',
      'v3',
      'v4',
      'v6',
    ]);
    const run = await cli.run(['audit', 'verify', torn]);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain(
      `${torn}:9: note: torn: 17 bytes of a line cut short (a crash or a full disk), set apart by the next line`,
    );
  });

  it('says what to give when there is no log, exit 2; an unreadable file exit 2', async () => {
    const none = await cli.run(['audit', 'verify']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give the log (FILE, --audit-log FILE or CLOUDCALL_AUDIT_LOG)');
    const missing = await cli.run(['audit', 'verify', join(cli.home, 'nope.log')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.log cannot be read: it does not exist');
  });
});
