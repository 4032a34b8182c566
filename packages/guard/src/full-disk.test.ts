/**
 * A full disk, for real: a 64 KiB tmpfs mounted in a private mount namespace (an unprivileged user
 * namespace, or as root a mount namespace alone), a process appending through the built guard
 * against the sandbox, a filler file taking the rest of the space until a line is torn, then the
 * space freed. The torn line must be set apart (ended, and named by the next line), never glued to
 * the next; every other line must parse; the intent of every request the API received must be
 * there, whole.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTool } from '@cloudcall/core';
import { describe, expect, it } from 'vitest';
import { readAudit, verifyAudit } from './index.js';
import { tool, useSandbox } from './testing/sandbox.js';

const sandbox = useSandbox();
const built = (name: string) => fileURLToPath(import.meta.resolve(name));

/**
 * How this machine lets the test mount a tmpfs of its own: a user and mount namespace (no
 * privilege needed where unprivileged user namespaces are allowed), else, as root, a mount
 * namespace. Neither: the test fails saying so (a loop device would need root as well).
 */
function namespaceCommand(): string[] {
  const user = ['--user', '--map-root-user', '--mount'];
  if (spawnSync('unshare', [...user, 'true']).status === 0) return user;
  if (process.getuid?.() === 0 && spawnSync('unshare', ['--mount', 'true']).status === 0) return ['--mount'];
  throw new Error(
    'cannot mount a small tmpfs here: unshare --user --map-root-user --mount is refused (unprivileged user namespaces disabled) and this test does not run as root; run it as root or allow user namespaces (sysctl kernel.unprivileged_userns_clone=1)',
  );
}

/** The process inside the namespace: appends through the built guard until a line is torn. */
const SCRIPT = (paths: { guard: string; catalog: string; core: string }) => `
import { closeSync, copyFileSync, fstatSync, ftruncateSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
const { guardedRun, openAuditLog } = await import(${JSON.stringify(paths.guard)});
const { families, toolsOf } = await import(${JSON.stringify(paths.catalog)});
const { ApiClient } = await import(${JSON.stringify(paths.core)});
const [dir, url, out] = process.argv.slice(2);
const path = dir + '/audit.log';
const tagCreate = toolsOf(families).find((each) => each.name === 'tag-create');
const client = new ApiClient({ token: 'sandbox-token', baseUrl: url, retry: { retries: 0 } });
const audit = openAuditLog(path);
const calls = [];
async function make(name) {
  try {
    await guardedRun(tagCreate, { Name: name }, { client }, { frontEnd: 'cli', caller: 'local:full', unconfirmed: 'run', audit });
    calls.push({ name, ok: true });
  } catch (error) {
    calls.push({ name, ok: false, message: error.message });
  }
}
const endsWithNewline = () => {
  const text = readFileSync(path);
  return text.length === 0 || text[text.length - 1] === 10;
};
for (let i = 0; i < 3; i++) await make('before-' + i);
// Fill the disk: the filler takes every free page; the log keeps the room left in its last page.
const filler = openSync(dir + '/filler', 'w');
const page = Buffer.alloc(4096, 120);
try { for (;;) writeSync(filler, page); } catch (error) { if (error.code !== 'ENOSPC') throw error; }
let torn = false;
for (let i = 0; i < 60 && !torn; i++) {
  await make('full-' + i);
  torn = !endsWithNewline();
  // A line that filled the page exactly tears nothing: give back one page and go on.
  const last = calls[calls.length - 1];
  if (!torn && !last.ok) ftruncateSync(filler, Math.max(0, fstatSync(filler).size - 4096));
}
const tornSize = statSync(path).size;
// Still full: nothing may be written after the torn line, nothing sent.
await make('still-full');
const sizeStillFull = statSync(path).size;
closeSync(filler);
unlinkSync(dir + '/filler');
await make('after-1');
await make('after-2');
copyFileSync(path, out);
copyFileSync(path + '.head', out + '.head');
process.stdout.write(JSON.stringify({ calls, torn, tornSize, sizeStillFull }));
`;

describe('a full disk', () => {
  it('tears a line at most: it is set apart, the next lines are whole, and no sent request loses its intent', async () => {
    const flags = namespaceCommand();
    const work = mkdtempSync(join(tmpdir(), 'cloudcall-full-disk-'));
    const mount = join(work, 'mnt');
    mkdirSync(mount);
    const script = join(work, 'append.mjs');
    writeFileSync(
      script,
      SCRIPT({
        guard: fileURLToPath(new URL('../dist/index.js', import.meta.url)),
        catalog: built('@cloudcall/catalog'),
        core: built('@cloudcall/core'),
      }),
    );
    const out = join(work, 'audit.log');
    const child = spawn(
      'unshare',
      [
        ...flags,
        'sh',
        '-c',
        'mount -t tmpfs -o size=64k tmpfs "$1" && exec "$0" "$2" "$1" "$3" "$4"',
        process.execPath,
        mount,
        script,
        sandbox.connection.sandbox.url,
        out,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const run = JSON.parse(stdout) as {
      calls: { name: string; ok: boolean; message?: string }[];
      torn: boolean;
      tornSize: number;
      sizeStillFull: number;
    };
    expect(run.torn).toBe(true);
    // With the disk still full, nothing was glued onto the torn line and nothing was sent.
    expect(run.sizeStillFull).toBe(run.tornSize);
    expect(run.calls.find((call) => call.name === 'still-full')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/tag-create was not sent: audit log .* no space left on the device/),
    });
    expect(run.calls.filter((call) => call.name.startsWith('after-'))).toEqual([
      { name: 'after-1', ok: true },
      { name: 'after-2', ok: true },
    ]);

    const text = readFileSync(out, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    const unparsed = lines.flatMap((line, index) => {
      try {
        JSON.parse(line);
        return [];
      } catch {
        return [index];
      }
    });
    // One torn line, and the line after it names it.
    expect(unparsed).toHaveLength(1);
    const at = unparsed[0] as number;
    expect(JSON.parse(lines[at + 1] as string)).toMatchObject({
      after_torn: Buffer.byteLength(lines[at] as string),
      args: { Name: 'after-1' },
    });

    // Every tag the API made has its intent, whole, in the log.
    const { tags } = (await runTool(
      tool('tag-list'),
      { PerPage: 200 },
      { client: sandbox.connection.client },
    )) as {
      tags: { name: string }[];
    };
    const made = tags.map((tag) => tag.name).filter((name) => /^(before|full|after)-/.test(name));
    expect(made).toEqual(expect.arrayContaining(['before-0', 'after-1', 'after-2']));
    expect(made).not.toContain('still-full');
    const intents = new Set(
      lines
        .filter((_, index) => index !== at)
        .map((line) => JSON.parse(line) as { phase?: string; args: { Name: string } })
        .filter((line) => line.phase === 'intent')
        .map((line) => line.args.Name),
    );
    for (const name of made) expect(intents, name).toContain(name);
    // And every call reported done was made.
    for (const call of run.calls.filter((each) => each.ok)) expect(made).toContain(call.name);

    expect((await readAudit(out)).torn).toBe(1);
    const verified = await verifyAudit([out]);
    expect(verified).toMatchObject({ intact: true, problems: [] });
    expect(verified.notes).toEqual([
      expect.objectContaining({
        line: at + 1,
        message: expect.stringMatching(/^torn: .*set apart by the next line$/),
      }),
    ]);
  }, 60_000);
});
