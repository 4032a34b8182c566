/**
 * `--wait` on tools that start something, as processes against the sandbox's clock: a second
 * sandbox on the CLI's state file moves that clock once the CLI has said what it waits for, so
 * nothing here sleeps for a set time.
 */
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, runCli } from './program.js';
import { cliRunner, startCli, VM_FLAGS } from './testing/run.js';

const cli = cliRunner();
let helper: Sandbox;

beforeAll(async () => {
  expect((await cli.run(['--sandbox', 'account-get-information'])).code).toBe(0);
  helper = await startSandbox({ statePath: cli.statePath });
});
afterAll(async () => {
  await helper.close();
});

describe('--wait', () => {
  it('is offered only by tools that start something, with --timeout', async () => {
    const create = await cli.run(['vm-create', '--help']);
    expect(create.stdout).toMatch(/--wait\s+wait until the vm is active/);
    expect(create.stdout).toMatch(/--timeout <duration>/);
    const action = await cli.run(['power-off-vm', '--help']);
    expect(action.stdout).toMatch(/--wait\s+wait until the action is completed/);
    const get = await cli.run(['vm-get', '--help']);
    expect(get.stdout).not.toMatch(/--wait/);
  });

  it('waits for the VM to be active, one line per status, then prints the ready VM', async () => {
    const run = cli.start(['--sandbox', 'vm-create', '--Name', 'wait-done', ...VM_FLAGS, '--wait']);
    await run.until(/: new \(/);
    await helper.advanceClock(5_000);
    const result = await run.exit;
    expect(result.code, result.stderr).toBe(EXIT.ok);
    const vm = (result.json as { droplet: { id: number; status: string } }).droplet;
    expect(vm.status).toBe('active');
    // Named as the VM is named, not by its id.
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^cloudcall: vm wait-done: new \(0 s\)$/),
      expect.stringMatching(/^cloudcall: vm wait-done: active \(\d+ s\)$/),
    ]);
  });

  it('waits for an action started on a VM', async () => {
    const created = await cli.run(['--sandbox', 'vm-create', '--Name', 'wait-action', ...VM_FLAGS]);
    const id = String((created.json as { droplet: { id: number } }).droplet.id);
    // Booted first: a VM still booting refuses actions.
    await helper.advanceClock(5_000);
    const run = cli.start(['--sandbox', 'power-off-vm', '--ID', id, '--wait', '--force']);
    // The action by its type and the VM by its name.
    await run.until(/: action power_off on vm wait-action: in-progress \(/);
    await helper.advanceClock(5_000);
    const result = await run.exit;
    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.json).toMatchObject({ action: { type: 'power_off', status: 'completed' } });
  });

  it('waits for what else becomes ready later: an imported image, a VPC peering', async () => {
    const image = cli.start([
      ...['--sandbox', 'image-create', '--name', 'wait-image', '--url', 'https://example.com/disk.qcow2.gz'],
      ...['--region', 'nyc3', '--wait'],
    ]);
    await image.until(/: NEW \(/);
    await helper.advanceClock(60_000);
    const imported = await image.exit;
    expect(imported.code, imported.stderr).toBe(EXIT.ok);
    expect(imported.json).toMatchObject({ image: { name: 'wait-image', status: 'available' } });
    expect(imported.stderr).toMatch(/cloudcall: image wait-image: available \(\d+ s\)\n$/);

    for (const [name, subnet] of [
      ['wait-a', '10.220.0.0/20'],
      ['wait-b', '10.221.0.0/20'],
    ] as const) {
      expect(
        (await cli.run(['--sandbox', 'vpc-create', '--name', name, '--region', 'nyc3', '--subnet', subnet]))
          .code,
      ).toBe(0);
    }
    const peering = cli.start([
      ...['--sandbox', 'vpc-peering-create', '--name', 'wait-ab', '--vpc1', 'wait-a', '--vpc2', 'wait-b'],
      '--wait',
    ]);
    await peering.until(/: vpc-peering wait-ab: PROVISIONING \(/);
    await helper.advanceClock(60_000);
    const peered = await peering.exit;
    expect(peered.code, peered.stderr).toBe(EXIT.ok);
    expect(peered.json).toMatchObject({ vpc_peering: { name: 'wait-ab', status: 'ACTIVE' } });
  });

  it('waits for a read-only replica (cluster id and name) and a BYOIP prefix', async () => {
    const created = await cli.run([
      ...['--sandbox', 'db-cluster-create', '--name', 'wait-pg', '--engine', 'pg', '--version=16'],
      ...['--region', 'nyc3', '--size', 'db-s-1vcpu-1gb', '--num_nodes', '1'],
    ]);
    expect(created.code, created.stderr).toBe(EXIT.ok);
    const id = (created.json as { database: { id: string } }).database.id;
    await helper.advanceClock(5_000);
    // Timed out first: the hint names the replica's cluster and its name.
    const late = cli.start([
      ...['--sandbox', 'db-cluster-create-replica', '--id', id, '--name', 'wait-ro'],
      ...['--size', 'db-s-1vcpu-1gb', '--wait', '--timeout', '1s'],
    ]);
    await late.until(/: database-replica wait-ro: creating \(/);
    await helper.advanceClock(1_200);
    const timedOut = await late.exit;
    expect(timedOut.code, timedOut.stderr).toBe(EXIT.waitTimeout);
    expect(timedOut.stderr).toMatch(
      new RegExp(`to keep waiting: cloudcall wait --kind database-replica --id ${id} --name wait-ro\\n$`),
    );
    // That command waits on until the replica is online.
    const again = cli.start([
      '--sandbox',
      'wait',
      '--kind',
      'database-replica',
      '--id',
      id,
      '--name',
      'wait-ro',
    ]);
    // On a slow machine the replica may be online by now: then it answers at once.
    await helper.advanceClock(60_000);
    const online = await again.exit;
    expect(online.code, online.stderr).toBe(EXIT.ok);
    expect(online.json).toMatchObject({ replica: { name: 'wait-ro', status: 'online' } });

    const prefix = cli.start([
      ...['--sandbox', 'byoip-prefix-create', '--Prefix', '198.51.100.0/24', '--Signature', 'wait-sig'],
      ...['--Region', 'nyc3', '--wait'],
    ]);
    await prefix.until(/: pending \(/);
    await helper.advanceClock(60_000);
    const brought = await prefix.exit;
    expect(brought.code, brought.stderr).toBe(EXIT.ok);
    expect(brought.json).toMatchObject({ byoip_prefix: { prefix: '198.51.100.0/24', status: 'active' } });
    // A prefix is named by the addresses it holds.
    expect(brought.stderr).toMatch(/cloudcall: byoip-prefix 198\.51\.100\.0\/24: active \(\d+ s\)\n$/);
  });

  it('exits 5 with the last status when sandbox time passes --timeout, printing the VM as last seen', async () => {
    const run = cli.start([
      '--sandbox',
      'vm-create',
      '--Name',
      'wait-late',
      ...VM_FLAGS,
      '--wait',
      '--timeout',
      '1s',
    ]);
    await run.until(/: new \(/);
    // Past the 1 s timeout, well short of the 3 s boot.
    await helper.advanceClock(1_200);
    const result = await run.exit;
    expect(result.code).toBe(EXIT.waitTimeout);
    // stdout has the VM (JSON in a pipe), so a script still gets its id.
    const vm = (result.json as { droplet: { id: number; name: string; status: string } }).droplet;
    expect(vm).toMatchObject({ name: 'wait-late', status: 'new' });
    expect(result.stderr).toContain(`cloudcall wait --kind vm --id ${vm.id}\n`);
    expect(result.stderr).toMatch(
      /cloudcall: Timed out after \d s waiting for vm \d+ to be active; its status was new\. Nothing failed: the platform goes on with what vm-create started; to keep waiting: cloudcall wait --kind vm --id \d+\n$/,
    );
    expect(result.stderr).not.toMatch(/Kind vm and ID/);
  });

  it('prints the resource as last seen in the chosen output format on a timeout', async () => {
    const run = cli.start([
      ...['--sandbox', 'vm-create', '--Name', 'wait-late-table', ...VM_FLAGS],
      ...['--wait', '--timeout', '1s', '-o', 'table'],
    ]);
    await run.until(/: new \(/);
    await helper.advanceClock(1_200);
    const result = await run.exit;
    expect(result.code).toBe(EXIT.waitTimeout);
    expect(result.stdout).toMatch(/^ID +Name +Public IPv4/);
    expect(result.stdout).toMatch(/^\d+ +wait-late-table +.* new( |$)/m);
  });

  it('stops waiting on Ctrl-C, saying the platform goes on and how to wait again', async () => {
    // A process sent SIGINT, on this file's state: the entry turns the signal into cancelling.
    const run = startCli(['--sandbox', 'vm-create', '--Name', 'wait-stop', ...VM_FLAGS, '--wait'], cli.env);
    await run.until(/: new \(/);
    run.child.kill('SIGINT');
    const result = await run.exit;
    expect(result.code).toBe(EXIT.cancelled);
    expect(result.stderr).toMatch(
      /stopped waiting \(interrupted\)\. The platform goes on with what vm-create started; to wait again: cloudcall wait --kind vm --id \d+/,
    );
    // The VM was created all the same.
    const id = /--id (\d+)/.exec(result.stderr)?.[1] ?? '';
    const vm = await cli.run(['--sandbox', 'vm-get', '--ID', id]);
    expect(vm.json).toMatchObject({ droplet: { name: 'wait-stop' } });
  });

  it('keeps one line with a spinner, the status and the elapsed time on a terminal', async () => {
    let stderr = '';
    let stdout = '';
    let advanced: Promise<void> | undefined;
    const code = await runCli(
      [
        '--sandbox',
        '--sandbox-state',
        cli.statePath,
        'vm-create',
        '--Name',
        'wait-tty',
        ...VM_FLAGS,
        '--wait',
        '-o',
        'json',
      ],
      {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
          if (text.includes(': new (')) advanced ??= helper.advanceClock(5_000);
        },
        env: {},
        isTty: false,
        stderrIsTty: true,
      },
      '0.0.0-test',
    );
    await advanced;
    expect(code, stderr).toBe(EXIT.ok);
    const id = JSON.parse(stdout).droplet.id;
    // Rewritten in place (carriage return, erase line), never a new line until the end.
    expect(stderr.startsWith('\r\x1b[K')).toBe(true);
    expect(stderr.slice(4)).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] vm wait-tty: new \(0 s, timeout 300 s\)/);
    expect(stderr).not.toContain(String(id));
    expect(
      stderr.endsWith(
        `\r\x1b[Kcloudcall: vm wait-tty: active (${/active \((\d+) s\)/.exec(stderr)?.[1]} s)\n`,
      ),
    ).toBe(true);
    expect(stderr.split('\n')).toHaveLength(2);
  });

  it('refuses --timeout without --wait, and a duration it cannot read', async () => {
    const alone = await cli.run(['--sandbox', 'vm-create', '--Name', 'x', ...VM_FLAGS, '--timeout', '5m']);
    expect(alone.code).toBe(EXIT.input);
    expect(alone.stderr).toContain('--timeout: goes with --wait');
    const bad = await cli.run([
      '--sandbox',
      'vm-create',
      '--Name',
      'x',
      ...VM_FLAGS,
      '--wait',
      '--timeout',
      'soon',
    ]);
    expect(bad.code).toBe(EXIT.input);
    expect(bad.stderr).toContain('expected a duration such as 90s, 5m or 1h, got "soon"');
  });
});
