/**
 * One error style: `cloudcall: <what>` naming the flag as it was typed (never the spec's field), a
 * `hint:` line where there is one, and the documented exit code; commander's own refusals read
 * the same. Unknown `--format` columns are errors.
 */
import { describe, expect, it } from 'vitest';
import { EXIT } from './program.js';
import { inlineRunner } from './testing/inline.js';
import { VM_FLAGS } from './testing/run.js';

const cli = inlineRunner();

describe('one error style', () => {
  it('names the flag as typed, in any spelling, and hints at the help', async () => {
    const kebab = await cli.sandbox('vm-list', '--per-page', 'abc');
    expect(kebab.code).toBe(EXIT.input);
    expect(kebab.stderr).toBe(
      'cloudcall: invalid input: --per-page: expected a number, got "abc"\nhint: cloudcall vm-list --help lists its flags\n',
    );
    const spec = await cli.sandbox('vm-list', '--PerPage', '0');
    expect(spec.stderr).toMatch(/^cloudcall: invalid input: --PerPage: Too small/);
    expect(spec.stderr).not.toMatch(/argument PerPage/);
  });

  it('a missing argument is named by its flag, never the spec field', async () => {
    const run = await cli.sandbox(
      ...['db-cluster-create', 'db-1', '--engine', 'pg', '--region', 'nyc3', '--size', 'db-s-1vcpu-1gb'],
    );
    expect(run.code).toBe(EXIT.input);
    expect(run.stderr).toMatch(/^cloudcall: invalid input: --num-nodes: is required\n/);
    expect(run.stderr).not.toMatch(/num_nodes/);
  });

  it('a value given first is named as such', async () => {
    const run = await cli.sandbox('action-get', 'seven');
    expect(run.stderr).toMatch(/^cloudcall: invalid input: <id>: expected a number, got "seven"\n/);
  });

  it("commander's refusals get the prefix and a hint", async () => {
    const choice = await cli.sandbox('vm-list', '-o', 'bad');
    expect(choice.code).toBe(EXIT.input);
    expect(choice.stderr).toMatch(/^cloudcall: option '-o, --output <format>' argument 'bad' is invalid\./);
    expect(choice.stderr).toMatch(/\nhint: cloudcall vm-list --help shows its usage\n$/);
    expect(choice.stderr).not.toMatch(/^error:/m);
    const missing = await cli.run(['completion']);
    expect(missing.code).toBe(EXIT.input);
    expect(missing.stderr).toBe(
      "cloudcall: missing required argument 'shell'\nhint: cloudcall completion --help shows its usage\n",
    );
    const unknown = await cli.run(['--colour']);
    expect(unknown.stderr).toMatch(/^cloudcall: unknown option '--colour'/);
  });

  it('an unknown --format column is an error naming the columns there are', async () => {
    const created = await cli.sandbox('vm-create', 'cols-1', ...VM_FLAGS);
    expect(created.code, created.stderr).toBe(EXIT.ok);
    const typo = await cli.sandbox('vm-list', '--format', 'ID,Nmae');
    expect(typo.code).toBe(EXIT.input);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toMatch(
      /^cloudcall: invalid input: --format: no column or field "Nmae" in this result \(columns: ID, Name, PublicIPv4,/,
    );
    // Headers, paths into the items and fields that are null all stay columns.
    const fine = await cli.sandbox(
      'vm-list',
      '--format',
      'ID,public ipv4,region.slug,networks.v4.0.ip_address',
      '-o',
      'tsv',
    );
    expect(fine.code, fine.stderr).toBe(EXIT.ok);
    const single = await cli.sandbox('vm-get', 'cols-1', '--format', 'Name,Nope');
    expect(single.code).toBe(EXIT.input);
    expect(single.stderr).toMatch(/no column or field "Nope"/);
  });
});
