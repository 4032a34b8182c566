/**
 * Names holding control characters (a newline, an ANSI escape, bidirectional overrides), as the
 * CLI shows them to a person: in a table, in TSV, in an error and in a dry run's plan each is
 * written as an escape (`\n`, `\x1b`, `\u202e`), so a name cannot add a row or a line, recolour
 * the terminal or reverse what follows it. JSON keeps the name as the platform has it.
 */
import { sshPublicKey } from '@cloudcall/sandbox';
import { describe, expect, it } from 'vitest';
import { cliRunner, VM_FLAGS } from './testing/run.js';

const cli = cliRunner();
const { ok, sandbox } = cli;

const NAME = 'web\n\x1b[31mprod\u202egnp.exe\u2066x\u2069';
const SHOWN = String.raw`web\n\x1b[31mprod\u202egnp.exe\u2066x\u2069`;
/** What no line a person reads may hold raw (a tab only separates TSV's cells). */
const RAW = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

const rawIn = (text: string, allowed = '') =>
  text
    .split('\n')
    .flatMap((line) => [...line])
    .filter((char) => RAW.test(char) && !allowed.includes(char));

async function createKey(): Promise<number> {
  const { ssh_key } = await ok('key-create', '--Name', NAME, '--PublicKey', sshPublicKey());
  return ssh_key.id as number;
}

describe('names with control characters', () => {
  it('are escaped in table and wide rows, one line each, and whole in JSON', async () => {
    const id = await createKey();
    for (const format of ['table', 'wide']) {
      const run = await sandbox('key-list', '--output', format);
      expect(run.code, run.stderr).toBe(0);
      expect(rawIn(run.stdout), format).toEqual([]);
      const row = run.stdout.split('\n').filter((line) => line.startsWith(`${id} `));
      expect(row, format).toHaveLength(1);
      expect(row[0]).toContain(SHOWN);
    }
    const json = await ok('key-list');
    expect(json.ssh_keys.find((key: { id: number }) => key.id === id)?.name).toBe(NAME);
  });

  it('are escaped in TSV too, its own separators (tab, line break) becoming spaces', async () => {
    const id = await createKey();
    const run = await sandbox('key-list', '--output', 'tsv');
    expect(run.code, run.stderr).toBe(0);
    expect(rawIn(run.stdout, '\t')).toEqual([]);
    const row = run.stdout.split('\n').find((line) => line.startsWith(`${id}\t`));
    expect(row?.split('\t')).toContain(String.raw`web \x1b[31mprod\u202egnp.exe\u2066x\u2069`);
  });

  it('are escaped in an error that quotes them, on one line', async () => {
    const refused = await sandbox('vm-create', '--name', NAME, ...VM_FLAGS);
    expect(refused.code).toBe(2);
    expect(rawIn(refused.stderr)).toEqual([]);
    expect(refused.stderr).toContain(String.raw`got "web\n\u001b[31mprod\u202egnp.exe\u2066x\u2069"`);
    expect(refused.stderr.trimEnd().split('\n')).toHaveLength(2); // the error and its hint
    const missing = await sandbox('project-get', '--ID', `no\u202esuch`);
    expect(missing.code).toBe(2);
    expect(rawIn(missing.stderr)).toEqual([]);
    expect(missing.stderr).toContain(String.raw`"no\u202esuch"`);
  });

  it("are escaped in a dry run's plan: the target and its state", async () => {
    const id = await createKey();
    const run = await sandbox('key-delete', '--ID', String(id), '--dry-run', '--output', 'text');
    expect(run.code, run.stderr).toBe(0);
    expect(rawIn(run.stdout)).toEqual([]);
    expect(run.stdout).toContain(`Target: ssh key ${SHOWN} (id ${id}), now:`);
    expect(run.stdout).toContain(`  name: ${SHOWN}\n`);
  });
});
