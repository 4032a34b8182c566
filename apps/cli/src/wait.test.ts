/**
 * `cloudcall wait`: as a process (exit codes, nothing but the result on a pipe), and in process
 * with stderr as a terminal (progress lines). A second sandbox on the CLI's state file moves the
 * shared clock forward.
 */
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, runCli } from './program.js';
import { cliRunner, VM_FLAGS } from './testing/run.js';

const cli = cliRunner();
const sandbox = (...args: string[]) => cli.run(['--sandbox', ...args]);
let helper: Sandbox;

beforeAll(async () => {
  // The CLI creates the state file on its first command; the helper then shares it.
  expect((await sandbox('account-get-information')).code).toBe(0);
  helper = await startSandbox({ statePath: cli.statePath });
});
afterAll(async () => {
  await helper.close();
});

async function createVm(name: string): Promise<string> {
  const created = await sandbox('vm-create', '--name', name, ...VM_FLAGS);
  expect(created.code, created.stderr).toBe(0);
  return String((created.json as { droplet: { id: number } }).droplet.id);
}

describe('cloudcall wait', () => {
  it('exits 5 on a timeout, saying how to resume, with no progress on a pipe', async () => {
    const id = await createVm('cli-wait-timeout');
    const result = await sandbox('wait', '--Kind', 'vm', '--ID', id, '--TimeoutSeconds', '1');
    expect(result.code).toBe(EXIT.waitTimeout);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `cloudcall: Timed out after 1 s waiting for vm ${id} to be active; its status was new. Nothing failed: call wait again with Kind vm and ID ${id} to keep waiting.\n`,
    );
  });

  it('shows a progress line naming the VM on a terminal, and prints the ready VM to stdout', async () => {
    const id = await createVm('cli-wait');
    let stdout = '';
    const progress: string[] = [];
    let advanced: Promise<void> | undefined;
    const code = await runCli(
      ['--sandbox', '--sandbox-state', cli.statePath, 'wait', '--Kind', 'vm', '--ID', id, '-o', 'json'],
      {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          progress.push(text);
          advanced ??= helper.advanceClock(5_000);
        },
        env: {},
        isTty: false,
        stderrIsTty: true,
      },
      '0.0.0-test',
    );
    await advanced;
    expect(code, progress.join('')).toBe(EXIT.ok);
    expect(JSON.parse(stdout).droplet).toMatchObject({ id: Number(id), status: 'active' });
    // The spinner line of --wait, rewritten in place, naming the VM; then the line it ended on.
    const stderr = progress.join('');
    const [first = '', ...rest] = stderr.split('\r\x1b[K').slice(1);
    expect(stderr.startsWith('\r\x1b[K')).toBe(true);
    expect(first).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] vm cli-wait: new \(0 s, timeout 300 s\)$/);
    expect(rest.at(-1)).toMatch(/^cloudcall: vm cli-wait: active \(\d+ s\)\n$/);
    expect(stderr.split('\n')).toHaveLength(2);
  });
});
