/**
 * Shell completion: the scripts parse (`bash -n`, `zsh -n`, `fish -n`; `.ci/run` installs zsh and
 * fish when missing); bash and fish, with the script loaded and the built CLI on their PATH,
 * complete with it; and the candidates (tools, `<resource> <verb>` words, flags and enum values)
 * come from the definitions.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliRunner, MAIN } from './testing/run.js';

const cli = cliRunner();

/** A `cloudcall` on PATH that runs the built CLI, as an installed one would. */
const bin = join(cli.home, 'bin');
mkdirSync(bin, { recursive: true });
writeFileSync(join(bin, 'cloudcall'), `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`);
chmodSync(join(bin, 'cloudcall'), 0o755);
const PATH = `${bin}:${process.env.PATH ?? ''}`;

/** Fails, saying what to install, when the shell is missing: a skipped shell would hide a broken script. */
function needShell(shell: string): void {
  const found = spawnSync(shell, ['-c', 'exit 0']).error === undefined;
  expect(found, `${shell} is needed by this test (sudo apt-get install ${shell})`).toBe(true);
}

async function script(shell: string): Promise<string> {
  const result = await cli.run(['completion', shell]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

function syntaxCheck(shell: string, text: string) {
  const file = join(cli.home, `completion.${shell}`);
  writeFileSync(file, text);
  return spawnSync(shell, ['-n', file], { encoding: 'utf8' });
}

/** The bash script `cloudcall completion bash` prints, in a file (written once per file). */
let bashScript: string | undefined;

/** What bash offers for the command line `words` (the last word is being completed). */
async function bashComplete(words: string[]): Promise<string[]> {
  if (!bashScript) {
    bashScript = join(cli.home, 'cloudcall.bash');
    writeFileSync(bashScript, await script('bash'));
  }
  const quoted = words.map((word) => `'${word}'`).join(' ');
  const result = spawnSync(
    'bash',
    [
      '-c',
      `source '${bashScript}' && COMP_WORDS=(cloudcall ${quoted}) && COMP_CWORD=${words.length} && { _cloudcall_complete; printf '%s\\n' "\${COMPREPLY[@]}"; }`,
    ],
    { encoding: 'utf8', env: { PATH, HOME: cli.home } },
  );
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.split('\n').filter(Boolean);
}

/**
 * What `cloudcall __complete <words>` offers, kept as the scripts keep it: the candidates that
 * start with the word being completed (bash's `compgen -W ... -- "$cur"`), in their order.
 */
async function candidates(words: string[]): Promise<string[]> {
  const result = await cli.run(['__complete', ...words]);
  expect(result.code, result.stderr).toBe(0);
  const current = words.at(-1) ?? '';
  return result.stdout.split('\n').filter((candidate) => candidate !== '' && candidate.startsWith(current));
}

describe('completion scripts', () => {
  it('bash accepts the bash script', async () => {
    const checked = syntaxCheck('bash', await script('bash'));
    expect(checked.error).toBeUndefined();
    expect(checked.status, checked.stderr).toBe(0);
  });

  it('zsh accepts the zsh script', async () => {
    needShell('zsh');
    expect(syntaxCheck('zsh', await script('zsh')).status).toBe(0);
  });

  it('fish accepts the fish script, and completes with it', async () => {
    needShell('fish');
    expect(syntaxCheck('fish', await script('fish')).status).toBe(0);
    // One fish loads the script and completes both lines (a line of --- between them).
    const lines = ['cloudcall vm-ge', 'cloudcall reserved-ip-list --type '];
    const fish = spawnSync(
      'fish',
      [
        '-c',
        `cloudcall completion fish | source; ${lines.map((line) => `complete -C'${line}'`).join('; echo ---; ')}`,
      ],
      { encoding: 'utf8', env: { PATH, HOME: cli.home } },
    );
    const [tools, types] = fish.stdout.split('---\n').map((text) => text.split('\n').filter(Boolean));
    expect(tools).toEqual(['vm-get', 'vm-get-backup-policy']);
    expect(types).toEqual(['ipv4', 'ipv6']);
  });

  it('refuses a shell it has no script for', async () => {
    const result = await cli.run(['completion', 'tcsh']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Allowed choices are bash, zsh, fish/);
  });
});

describe('bash, with the script loaded, completes through the built CLI', () => {
  it('tools, enum values and the options a tool command adds', async () => {
    expect(await bashComplete(['vm-ge'])).toEqual(['vm-get', 'vm-get-backup-policy']);
    expect(await bashComplete(['reserved-ip-list', '--type', ''])).toEqual(['ipv4', 'ipv6']);
    expect(await bashComplete(['vm-create', '--wa'])).toEqual(['--wait']);
  });
});

describe('the candidates, from the definitions (this process; filtered as the scripts filter them)', () => {
  it('tools and resources, then verbs', async () => {
    expect(await candidates(['vm-ge'])).toEqual(['vm-get', 'vm-get-backup-policy']);
    expect(await candidates(['vm-get-'])).toEqual(['vm-get-backup-policy']);
    expect(await candidates(['db-cluster-list-u'])).toEqual(['db-cluster-list-users']);
    expect(await candidates(['vm', 'power-of'])).toEqual(['power-off', 'power-off-tag']);
    // doctl's words: its group, its resource words and plurals.
    expect(await candidates(['compute', 'drop'])).toEqual(['droplet', 'droplet-action']);
    expect(await candidates(['compute', 'droplet', 'power-of'])).toEqual(['power-off', 'power-off-tag']);
    expect(await candidates(['compute', 'domain', 'records', 'li'])).toEqual(['list']);
    expect(await candidates(['compute', 'volume-action', ''])).toEqual([
      'list',
      'get',
      'attach',
      'detach',
      'resize',
    ]);
    expect(await candidates(['reserved-ip', 'cr'])).toEqual(['create']);
  });

  it('kebab flags of the tool, then enum values', async () => {
    expect(await candidates(['vm-create', '--image'])).toEqual(['--image-id']);
    expect(await candidates(['load-balancer-add-vms', '--'])).toEqual(
      expect.arrayContaining(['--load-balancer-id', '--vm-ids', '--output']),
    );
    expect(await candidates(['reserved-ip-list', '--type', ''])).toEqual(['ipv4', 'ipv6']);
    expect(await candidates(['db-cluster-create', '--engine', 'm'])).toEqual(['mysql', 'mongodb']);
    expect(await candidates(['-o', ''])).toEqual(['table', 'wide', 'json', 'yaml', 'tsv', 'text']);
    expect(await candidates(['completion', ''])).toEqual(['bash', 'zsh', 'fish']);
  });

  it("the options a tool's command adds: --wait and --timeout, --all", async () => {
    expect(await candidates(['vm-create', '--wa'])).toEqual(['--wait']);
    expect(await candidates(['vm', 'power-off', '--ti'])).toEqual(['--timeout']);
    expect(await candidates(['vm-list', '--al'])).toEqual(['--all']);
    // Only where the command has them, and no candidates for --timeout's own value.
    expect(await candidates(['vm-get', '--wa'])).toEqual([]);
    expect(await candidates(['vm-create', '--timeout', ''])).toEqual([]);
  });
});
