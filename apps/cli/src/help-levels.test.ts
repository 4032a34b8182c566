/**
 * `--help` at every level exits 0 and prints help: the root, a family, a resource (also typed as
 * its words), a tool by either name, and the built-in commands.
 */
import { describe, expect, it } from 'vitest';
import { EXIT } from './program.js';
import { inlineRunner } from './testing/inline.js';

const cli = inlineRunner();

describe('--help at every level', () => {
  it.each([
    [['--help'], /Usage: cloudcall/],
    [['vm', '--help'], /^VMs \(\d+ tools\)/],
    [['vm', '-h'], /^VMs \(\d+ tools\)/],
    [['--sandbox', 'vm', '--help'], /^VMs \(\d+ tools\)/],
    [['db-cluster', '--help'], /^Managed databases/],
    [['db', 'cluster', '--help'], /^Managed databases/],
    [['help', 'db', 'cluster'], /^Managed databases/],
    [['vms', '--help'], /^VMs \(\d+ tools\)/],
    [['vm', 'create', '--help'], /Usage: cloudcall vm-create/],
    [['vm-create', '--help'], /Usage: cloudcall vm-create/],
    [['wait', '--help'], /Usage: cloudcall wait/],
    [['auth', '--help'], /Usage: cloudcall auth/],
    [['auth', 'switch', '--help'], /Usage: cloudcall auth switch/],
    [['sandbox', 'serve', '--help'], /Usage: cloudcall sandbox serve/],
    [['completion', '--help'], /Usage: cloudcall completion/],
  ])('%j exits 0 with help', async (args, shown) => {
    const run = await cli.run(args);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    expect(run.stdout).toMatch(shown);
  });

  it('a verb the resource lacks is still an error, with its verbs', async () => {
    const run = await cli.run(['vm', 'nope', '--help']);
    expect(run.code).toBe(EXIT.input);
    expect(run.stderr).toMatch(/vm has no verb "nope"/);
  });
});
