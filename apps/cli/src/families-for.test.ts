/**
 * A command that names a tool loads that tool's family only; anything else loads them all.
 */
import { describe, expect, it } from 'vitest';
import { familiesFor, toolNamed } from './program.js';

const names = async (argv: string[]) => (await familiesFor(argv, {})).map((family) => family.name);

describe('the families a run loads', () => {
  it("is the named tool's family, wherever the tool name stands among the options", async () => {
    expect(await names(['key-list'])).toEqual(['account']);
    expect(await names(['--sandbox', '-o', 'json', 'vm-list', '--tag-name', 'web'])).toEqual(['vms']);
    expect(await names(['--api-url', 'http://127.0.0.1:1', '--output=yaml', 'db-cluster-get', 'x'])).toEqual([
      'databases',
    ]);
    expect(await names(['-t', 'token', 'region-list'])).toEqual(['images']);
    expect(await names(['monitoring-uptime-list'])).toEqual(['monitoring']);
  });

  it('is every family for help, resource words, other commands and unknown names', async () => {
    // biome-ignore format: one family a line, so that a family is added by a line of its own.
    const all = [
      'account',
      'databases',
      'networking',
      'vms',
      'images',
      'kubernetes',
      'registry',
      'apps',
      'monitoring',
      'spaces',
      'api',
    ];
    for (const argv of [
      [],
      ['help'],
      ['--help'],
      ['vm', 'list'],
      ['auth', 'list'],
      ['api', '/v2/account'],
      ['vm-lst'],
      ['constructor'],
    ]) {
      expect(await names(argv), argv.join(' ')).toEqual(all);
    }
  });

  it('names the tool a command line runs only when its first word after the options is one', () => {
    // That tool's command is then the only one made (runCli).
    expect(toolNamed(['--sandbox', '--sandbox-state', 'x.json', 'key-list', '--page', '2'], {})).toBe(
      'key-list',
    );
    expect(toolNamed(['-o=json', 'vm-list'], {})).toBe('vm-list');
    for (const argv of [
      [],
      ['vm', 'list'],
      ['help', 'key-list'],
      ['--help', 'key-list'],
      ['--nope', 'key-list'],
      ['auth', 'list'],
      ['key-lst'],
    ]) {
      expect(toolNamed(argv, {}), argv.join(' ')).toBeUndefined();
    }
  });
});
