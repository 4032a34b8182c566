/**
 * A sandbox state file that cannot be used is the caller's to fix: the CLI names the file and the
 * reason, exits 2 (invalid input) and leaves the file as it was.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliRunner } from './testing/run.js';

const cli = cliRunner();

describe('an unusable sandbox state file', () => {
  it('is refused with exit 2, naming the file and the reason, and left untouched', async () => {
    const dir = join(cli.home, 'states');
    mkdirSync(join(dir, 'a-directory'), { recursive: true });
    const wrongShape = join(dir, 'wrong-shape.json');
    writeFileSync(wrongShape, JSON.stringify({ version: 1, sshKeys: 'not a list' }));
    const cases: [string, RegExp][] = [
      [join(dir, 'a-directory'), /it is a directory/],
      [wrongShape, /"sshKeys" is a string, not an array/],
      [join(wrongShape, 'below-a-file.json'), /is not a directory/],
    ];
    const runs = await Promise.all(
      cases.map(([path]) => cli.run(['--sandbox-state', path, '--sandbox', 'key-list'])),
    );
    runs.forEach((run, i) => {
      const [path, reason] = cases[i] as [string, RegExp];
      expect(run.code, path).toBe(2);
      expect(run.stderr, path).toContain(`cloudcall: The sandbox state file ${path} cannot be used`);
      expect(run.stderr, path).toMatch(reason);
      expect(run.stdout, path).toBe('');
    });
    expect(JSON.parse(readFileSync(wrongShape, 'utf8'))).toEqual({ version: 1, sshKeys: 'not a list' });
  });
});

describe('CLOUDCALL_SANDBOX_STATE', () => {
  it('names the state file, as it does for cloudcall-mcp; --sandbox-state wins over it', async () => {
    const fromEnv = join(cli.home, 'env-state.json');
    const fromFlag = join(cli.home, 'flag-state.json');
    const env = { CLOUDCALL_SANDBOX_STATE: fromEnv };
    const created = await cli.run(['--sandbox', 'tag-create', '--name', 'from-env'], env);
    expect(created.code, created.stderr).toBe(0);
    expect(readFileSync(fromEnv, 'utf8')).toContain('from-env');
    expect(existsSync(cli.statePath)).toBe(false);

    const status = await cli.run(['sandbox', 'status'], env);
    expect(status.json).toMatchObject({ state: fromEnv });

    const flagged = await cli.run(['--sandbox', '--sandbox-state', fromFlag, 'tag-list'], env);
    expect(flagged.code, flagged.stderr).toBe(0);
    expect(JSON.stringify(flagged.json)).not.toContain('from-env');
    expect(existsSync(fromFlag)).toBe(true);

    const apart = await cli.run(['--sandbox', 'tag-list'], { CLOUDCALL_SANDBOX_STATE: ':memory:' });
    expect(apart.code, apart.stderr).toBe(0);
    expect(existsSync(cli.statePath)).toBe(false);
  });
});
