/**
 * The guard rails through the CLI run as a process against its sandbox: the y/N prompt on a real
 * pseudo-terminal (util-linux `script`), the refusal off one, protection rules, dry runs priced
 * from the sandbox's size list, and the audit log written by eight processes at once.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sshPublicKey, startSandbox } from '@cloudcall/sandbox';
import { describe, expect, it } from 'vitest';
import { cliRunner, type Json, onTerminal } from './testing/run.js';

const UBUNTU = '161928327';
const cli = cliRunner();
const { sandbox, ok } = cli;

async function createVm(name: string, tags: string, size = 's-1vcpu-1gb'): Promise<number> {
  const { droplet } = await ok(
    'vm-create',
    ...['--Name', name, '--Size', size, '--ImageID', UBUNTU, '--Region', 'nyc3', '--Tags', tags],
  );
  return droplet.id;
}

async function exists(id: number): Promise<boolean> {
  const result = await sandbox('vm-get', '--ID', String(id));
  if (result.code === 0) return true;
  expect(result.stderr).toMatch(/404/);
  return false;
}

/** The CLI on a pseudo-terminal, at this file's sandbox; `answer` is typed at its y/N. */
const onTerminalHere = (args: string[], answer?: string) =>
  onTerminal(['--sandbox', '--sandbox-state', cli.statePath, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: cli.home },
    prompt: '[y/N]',
    ...(answer === undefined ? {} : { keys: answer }),
  });

describe('confirmation', () => {
  it('asks y/N on a terminal, naming the VM: "n" and Ctrl+C send nothing, "y" deletes', async () => {
    const id = await createVm('ask-me', 'scratch');
    const declined = await onTerminalHere(['vm-delete', '--ID', String(id)], 'n\n');
    expect(declined.text).toContain(`Delete VM (vm-delete): droplet ask-me (id ${id}; tags scratch)? [y/N]`);
    expect(declined.text).toContain('vm-delete was declined: nothing was sent.');
    expect(declined.code).toBe(2);
    expect(await exists(id)).toBe(true);

    // Ctrl+C at the prompt cancels: exit 130, nothing sent.
    const cancelled = await onTerminalHere(['vm-delete', '--ID', String(id)], '\u0003');
    expect(cancelled.code).toBe(130);
    expect(await exists(id)).toBe(true);

    const accepted = await onTerminalHere(['vm-delete', '--ID', String(id)], 'y\n');
    expect(accepted.text).toContain('? [y/N]');
    expect(accepted.code).toBe(0);
    expect(await exists(id)).toBe(false);
  });

  it('shows a name with a newline, an ANSI escape and a right-to-left override escaped in the question', async () => {
    const name = 'web\n\x1b[31mprod\u202egnp.exe';
    const { ssh_key } = await ok('key-create', '--Name', name, '--PublicKey', sshPublicKey());
    const declined = await onTerminalHere(['key-delete', '--ID', String(ssh_key.id)], 'n\n');
    const shown = String.raw`web\n\x1b[31mprod\u202egnp.exe`;
    expect(declined.text).toContain(
      `Delete SSH key (key-delete): ssh key ${shown} (id ${ssh_key.id})? [y/N]`,
    );
    expect(declined.text).not.toContain('\x1b[31m');
    expect(declined.text).not.toContain('\u202e');
    expect(declined.code).toBe(2);
  });

  it('refuses a destructive tool off a terminal unless --force (or --yes)', async () => {
    const id = await createVm('no-tty', 'scratch');
    const refused = await sandbox('vm-delete', '--ID', String(id));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('vm-delete is destructive: not on a terminal');
    expect(refused.stderr).toContain('add --force (or --yes)');
    expect(await exists(id)).toBe(true);
    expect((await sandbox('vm-delete', '--ID', String(id), '--yes')).code).toBe(0);
    expect(await exists(id)).toBe(false);
  });

  it('does not ask before tools that are not destructive', async () => {
    const id = await createVm('power', 'scratch');
    expect((await sandbox('power-on-vm', '--ID', String(id))).stderr).not.toContain('destructive');
  });
});

describe('protection rules', () => {
  it('refuse a delete of a VM with a protected tag, from --protect, a policy file or the environment', async () => {
    const id = await createVm('prod-web', 'prod,web');
    const policy = join(cli.home, 'policy.json');
    writeFileSync(policy, JSON.stringify({ protect: ['name:other', 'tag:prod'] }, null, 2));
    for (const [args, env, rule] of [
      [['--protect', 'tag:prod'], {}, 'tag:prod (--protect)'],
      [['--policy', policy], {}, `tag:prod (policy file ${policy}, line 4)`],
      [[], { CLOUDCALL_POLICY: policy }, `tag:prod (policy file ${policy}, line 4)`],
      [[], { CLOUDCALL_PROTECT: 'id:1,tag:prod' }, 'tag:prod (CLOUDCALL_PROTECT)'],
    ] as const) {
      const result = await cli.run(['--sandbox', 'vm-delete', '--ID', String(id), '--force', ...args], env);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `vm-delete refused: droplet prod-web (id ${id}; tags prod, web) is protected by rule ${rule}. Nothing was sent.`,
      );
    }
    expect(await exists(id)).toBe(true);
  });

  it('refuse every change to a protected VM, a rename first included, unless the policy allows the tool', async () => {
    const id = await createVm('db-main', 'data');
    const policy = join(cli.home, 'allow.json');
    writeFileSync(policy, JSON.stringify({ protect: ['name:db-main'], allow: ['vm-reboot'] }));
    const rename = await cli.run([
      '--sandbox',
      '--policy',
      policy,
      'rename-vm',
      '--ID',
      String(id),
      '--Name',
      'x',
    ]);
    expect(rename.code).toBe(2);
    expect(rename.stderr).toContain(
      `rename-vm refused: droplet db-main (id ${id}; tags data) is protected by rule name:db-main`,
    );
    const flag = await cli.run(['--sandbox', '--protect', 'name:db-main', 'power-on-vm', '--ID', String(id)]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('power-on-vm refused');
    expect((await ok('vm-get', '--ID', String(id))).droplet.name).toBe('db-main');
    // Past the VM's create action (a second sandbox on the same state file moves the clock).
    const other = await startSandbox({ statePath: cli.statePath });
    await other.advanceClock(120_000).finally(() => other.close());
    const reboot = await cli.run(['--sandbox', '--policy', policy, 'vm-reboot', '--ID', String(id)]);
    expect(reboot.code, reboot.stderr).toBe(0);
  });

  it('stop start-up on a malformed policy file, naming the file, the line and the problem', async () => {
    const policy = join(cli.home, 'bad.json');
    writeFileSync(policy, '{\n  "protect": [\n    "tag:prod",\n    "owner:me"\n  ]\n}\n');
    const result = await sandbox('--policy', policy, 'key-list');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `cloudcall: policy file ${policy}, line 4 at protect.1: must be tag:NAME, name:NAME or id:ID\n`,
    );
  });
});

describe('policy files that are not files', () => {
  it('stop start-up at once on a FIFO, /dev/zero or a directory, naming the file', async () => {
    const fifo = join(cli.home, 'policy.fifo');
    execFileSync('mkfifo', [fifo]);
    for (const [file, kind] of [
      [fifo, 'a FIFO'],
      ['/dev/zero', 'a device'],
      [cli.home, 'a directory'],
    ] as const) {
      const result = await sandbox('--policy', file, 'key-list');
      expect(result.code, file).toBe(2);
      expect(result.stderr).toBe(
        `cloudcall: policy file ${file}: not a regular file (${kind}); give a JSON file\n`,
      );
    }
    const large = join(cli.home, 'large.json');
    writeFileSync(large, `{"protect": []}${' '.repeat(1024 * 1024)}`);
    const refused = await sandbox('--policy', large, 'key-list');
    expect(refused.stderr).toBe(
      `cloudcall: policy file ${large}: larger than 1 MiB, the most a policy file may hold\n`,
    );
  });
});

describe('--dry-run', () => {
  it("prints the request, the target and a price change that matches the sandbox's sizes, sending nothing", async () => {
    const id = await createVm('grow', 'scratch', 's-1vcpu-1gb');
    const { sizes } = await ok('size-list', '--PerPage', '200');
    const price = (slug: string) => sizes.find((size: Json) => size.slug === slug).price_monthly as number;
    const plan = await ok('resize-vm', '--ID', String(id), '--Size', 's-4vcpu-8gb', '--dry-run');
    expect(plan).toMatchObject({
      tool: 'resize-vm',
      valid: true,
      request: {
        method: 'POST',
        path: `/v2/droplets/${id}/actions`,
        body: { type: 'resize', size: 's-4vcpu-8gb' },
      },
      target: { name: 'grow', id, state: { size_slug: 's-1vcpu-1gb' } },
      price: {
        monthly_before: price('s-1vcpu-1gb'),
        monthly_after: price('s-4vcpu-8gb'),
        monthly_delta: price('s-4vcpu-8gb') - price('s-1vcpu-1gb'),
      },
    });
    const { droplet } = await ok('vm-get', '--ID', String(id));
    expect(droplet.size_slug).toBe('s-1vcpu-1gb');
    expect(droplet.status).not.toBe('off');

    const text = await onTerminalHere([
      ...['vm-create', '--Name', 'x', '--Size', 'c-2', '--ImageID', UBUNTU, '--Region', 'nyc3'],
      '--dry-run',
    ]);
    expect(text.code).toBe(0);
    expect(text.text).toContain('Request: POST /v2/droplets');
    expect(text.text).toContain(
      `Monthly price: $0 -> $${price('c-2')} (+$${price('c-2')}) for 1 VM of size c-2`,
    );
  });

  it('reports invalid arguments with exit 2 and no request', async () => {
    // (Not a word: the CLI would take it for a VM's name and look it up.)
    const result = await sandbox('vm-delete', '--ID', '0', '--dry-run');
    expect(result.code).toBe(2);
    expect(result.json).toMatchObject({ valid: false, issues: [{ argument: 'ID' }] });
    expect((result.json as Json).request).toBeUndefined();
  });
});

describe('the audit log', () => {
  it('gets an intent and an outcome line, whole, from each of 8 processes writing at once, and `audit` reads them back', async () => {
    const log = join(cli.home, 'audit.log');
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        sandbox(
          'key-create',
          '--Name',
          `k${index}`,
          '--PublicKey',
          sshPublicKey(`k${index}`),
          '--audit-log',
          log,
        ),
      ),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(16);
    const all = lines.map((line) => JSON.parse(line));
    const intents = all.filter((line) => line.phase === 'intent');
    const entries = all.filter((line) => line.phase === undefined);
    // Each call's intent came before its outcome, and names the same call.
    expect(intents.map((line) => line.call).sort()).toEqual(entries.map((entry) => entry.call).sort());
    for (const entry of entries) {
      const intent = all.findIndex((line) => line.phase === 'intent' && line.call === entry.call);
      expect(intent).toBeLessThan(all.indexOf(entry));
    }
    expect(entries.map((entry) => entry.args.Name).sort()).toEqual([
      'k0',
      'k1',
      'k2',
      'k3',
      'k4',
      'k5',
      'k6',
      'k7',
    ]);
    for (const entry of entries) {
      expect(entry).toMatchObject({
        front_end: 'cli',
        tool: 'key-create',
        outcome: 'ok',
        request_id: expect.any(String),
      });
    }

    await sandbox('key-delete', '--ID', '999999', '--force', '--audit-log', log);
    const listed = await cli.run(['audit', '--since', '1h', '--outcome', 'error'], {
      CLOUDCALL_AUDIT_LOG: log,
    });
    expect(listed.code).toBe(0);
    expect((listed.json as Json).entries).toMatchObject([
      { tool: 'key-delete', outcome: 'error', status: 404 },
    ]);
    const byTool = await cli.run(['audit', '--audit-log', log, '--tool', 'key-c*']);
    expect((byTool.json as Json).entries).toHaveLength(8);
  });

  it('stops start-up when the log cannot be opened, and fails the call when a line cannot be written', async () => {
    const unopenable = await sandbox('key-list', '--audit-log', join(cli.home, 'missing', 'audit.log'));
    expect(unopenable.code).toBe(2);
    expect(unopenable.stderr).toContain(
      'missing/audit.log cannot be opened for appending: its directory does not exist',
    );
    const full = await sandbox(
      'key-create',
      '--Name',
      'full',
      '--PublicKey',
      sshPublicKey('full'),
      '--audit-log',
      '/dev/full',
    );
    // Written ahead: the intent could not be written, so nothing was sent.
    expect(full.code).toBe(1);
    expect(full.stderr).toContain(
      'key-create was not sent: audit log /dev/full could not be written: no space left on the device',
    );
    const keys = (await ok('key-list')) as { ssh_keys: { name: string }[] };
    expect(keys.ssh_keys.map((key) => key.name)).not.toContain('full');
  });
});
