/**
 * Flags and commands as a doctl user types them, through the CLI run as a process against a
 * sandbox in a temporary state file: kebab-case flags (the spec's names and case variants too),
 * "did you mean", the primary id given positionally, names where ids are expected, grouped help,
 * and `<resource> <verb>` for `<resource>-<verb>`.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startSandbox } from '@cloudcall/sandbox';
import { describe, expect, it } from 'vitest';
import { cliRunner, MAIN } from './testing/run.js';

const UBUNTU = '161928327';
const cli = cliRunner();
const sandbox = (...args: string[]) => cli.run(['--sandbox', '--sandbox-state', cli.statePath, ...args]);

// biome-ignore lint/suspicious/noExplicitAny: command output is checked field by field.
type Json = any;

async function ok(...args: string[]): Promise<Json> {
  const result = await sandbox(...args);
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.json;
}

const createVm = (name: string) =>
  ok('vm-create', '--name', name, '--size', 's-1vcpu-1gb', '--image-id', UBUNTU, '--region', 'nyc3');

/** Moves the sandbox clock (a second sandbox on the same state file), so that new VMs boot. */
async function advance(ms: number): Promise<void> {
  const other = await startSandbox({ statePath: cli.statePath });
  try {
    await other.advanceClock(ms);
  } finally {
    await other.close();
  }
}

/**
 * A command with `--wait`: once it says what it waits for (`pattern`, on stderr), the sandbox
 * clock moves on, so that nothing sleeps through the platform's time.
 */
async function waited(pattern: RegExp, ...args: string[]) {
  const run = cli.start(['--sandbox', '--sandbox-state', cli.statePath, ...args]);
  await run.until(pattern);
  await advance(60_000);
  return run.exit;
}

describe('flags', () => {
  it('kebab-case flags, the spec names and case-only variants all reach the same argument', async () => {
    const kebab = await ok(
      'vm-create',
      '--name',
      'kebab-1',
      '--size',
      's-1vcpu-1gb',
      '--image-id',
      UBUNTU,
      '--region',
      'nyc3',
    );
    expect(kebab.droplet).toMatchObject({
      name: 'kebab-1',
      size_slug: 's-1vcpu-1gb',
      image: { id: Number(UBUNTU) },
    });
    const spec = await ok(
      'vm-create',
      '--Name',
      'spec-1',
      '--Size',
      's-1vcpu-1gb',
      '--ImageID',
      UBUNTU,
      '--Region',
      'nyc3',
    );
    expect(spec.droplet).toMatchObject({ name: 'spec-1', image: { id: Number(UBUNTU) } });
    // `--id` for `--ID`, `--IMAGE_ID=` for `--image-id`: case and separators do not matter.
    expect((await ok('vm-get', '--id', String(kebab.droplet.id))).droplet.name).toBe('kebab-1');
    expect((await ok('vm-get', '--ID', String(spec.droplet.id))).droplet.name).toBe('spec-1');
    const mixed = await ok(
      'vm-create',
      '--NAME=mixed-1',
      '--size',
      's-1vcpu-1gb',
      `--IMAGE_ID=${UBUNTU}`,
      '--region',
      'nyc3',
    );
    expect(mixed.droplet.image.id).toBe(Number(UBUNTU));
    // Databases' snake_case arguments: --num-nodes and --per-page.
    const cluster = await ok(
      ...['db-cluster-create', '--name', 'pg-kebab', '--engine', 'pg', '--version=16'],
      ...['--region', 'nyc3', '--size', 'db-s-1vcpu-1gb', '--num-nodes', '2'],
    );
    expect(cluster.database.num_nodes).toBe(2);
    expect((await ok('db-cluster-list', '--per-page', '1')).databases).toHaveLength(1);
  });

  it('a near-miss flag exits 2 with "did you mean", before any request', async () => {
    const before = await cli.stateText();
    const typo = await sandbox('key-create', '--nmae', 'x', '--public-key', 'k');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(
      'cloudcall: invalid input: unknown flag --nmae (did you mean --name?)\nhint: cloudcall key-create --help lists its flags\n',
    );
    const specTypo = await sandbox('load-balancer-get', '--LoadBalancerId', 'x', '--PerPge', '2');
    expect(specTypo.code).toBe(2);
    expect(specTypo.stderr).toMatch(/unknown flag --PerPge$/m);
    const nothingNear = await sandbox('vm-get', '--colour', 'blue');
    expect(nothingNear.stderr).toBe(
      'cloudcall: invalid input: unknown flag --colour\nhint: cloudcall vm-get --help lists its flags\n',
    );
    expect(readFileSync(cli.statePath, 'utf8')).toBe(before);
  });
});

describe('positional ids', () => {
  it('each tool takes its primary argument first, without the flag', async () => {
    const vm = await createVm('positional-1');
    const id = String(vm.droplet.id);
    expect((await ok('vm-get', id)).droplet.name).toBe('positional-1');
    await advance(5_000);
    expect((await ok('rename-vm', id, '--name', 'positional-2')).action.type).toBe('rename');

    await ok('domain-create', '--name', 'example.com', '--ip-address', '192.0.2.10');
    expect((await ok('domain-get', 'example.com')).domain.name).toBe('example.com');
    expect(await ok('domain-delete', 'example.com', '--force')).toEqual({ ok: true });
    expect((await sandbox('domain-get', 'example.com')).code).toBe(3);

    // The same value twice is fine; two different values are refused.
    expect((await ok('vm-get', id, '--id', id)).droplet.id).toBe(vm.droplet.id);
    const twice = await sandbox('vm-get', id, '--id', '7');
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/--id: given twice/);
    const extra = await sandbox('vm-get', id, 'more');
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/too many arguments/);
  });
});

describe('names for ids', () => {
  it('a unique name is looked up; an ambiguous one is refused with the matching ids; an unknown one named', async () => {
    const one = await createVm('named-web');
    expect((await ok('vm-get', 'named-web')).droplet.id).toBe(one.droplet.id);
    // An argument that holds a VPC id (VpcID) takes the VPC's name.
    const vpcs = await ok('vpc-list');
    const vpc = vpcs.vpcs.find((item: Json) => item.region === 'nyc3');
    const inVpc = await ok(
      ...['vm-create', '--name', 'in-vpc', '--size', 's-1vcpu-1gb', '--image-id', UBUNTU],
      ...['--region', 'nyc3', '--vpc-id', vpc.name],
    );
    expect(inVpc.droplet.vpc_uuid).toBe(vpc.id);
    // The other arguments are checked before the name is looked up.
    const incomplete = await sandbox('vm-create', '--vpc-id', vpc.name, '--size', 's-1vcpu-1gb');
    expect(incomplete.code).toBe(2);
    expect(incomplete.stderr).toBe(
      'cloudcall: invalid input: --name: is required; --image-id: is required; --region: is required\nhint: cloudcall vm-create --help lists its flags\n',
    );
    expect((await ok('vpc-get', vpc.name)).vpc.id).toBe(vpc.id);
    // A VPC peering is not a VPC: its id is not looked up among the VPCs.
    const peering = await sandbox('vpc-peering-get', vpc.name);
    expect(peering.code).toBe(2);
    expect(peering.stderr).toMatch(/^cloudcall: invalid input: <id>: /);
    expect(peering.stderr).not.toMatch(/VPC/);

    const two = await createVm('named-web');
    const ambiguous = await sandbox('vm-get', 'named-web');
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toBe(
      `cloudcall: invalid input: <id>: 2 VMs are named "named-web": ${one.droplet.id}, ${two.droplet.id}; give one of these ids\nhint: cloudcall vm-get --help lists its flags\n`,
    );
    const unknown = await sandbox('power-off-vm', 'no-such-vm');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/<id>: no VM has the id or name "no-such-vm" \(vm-list lists them\)/);
    // Ids are used as they are, names or not.
    expect((await ok('vm-get', String(two.droplet.id))).droplet.id).toBe(two.droplet.id);
  });

  it('two names in one command stand for two ids (a peering of two VPCs by name)', async () => {
    const a = await ok('vpc-create', '--name', 'peer-a', '--region', 'nyc3', '--subnet', '10.201.0.0/20');
    const b = await ok('vpc-create', '--name', 'peer-b', '--region', 'nyc3', '--subnet', '10.202.0.0/20');
    const peering = await ok('vpc-peering-create', '--name', 'a-b', '--vpc1', 'peer-a', '--vpc2', 'peer-b');
    expect(peering.vpc_peering.vpc_ids).toEqual([a.vpc.id, b.vpc.id]);
    // The same name twice is still refused before anything is looked up.
    const same = await sandbox('vpc-peering-create', '--name', 'a-a', '--vpc1', 'peer-a', '--vpc2', 'peer-a');
    expect(same.code).toBe(2);
    // Naming what was typed, not the id that stood for it while the arguments were checked.
    expect(same.stderr).toBe(
      'cloudcall: invalid input: --vpc2: must differ from Vpc1; got "peer-a"\nhint: cloudcall vpc-peering-create --help lists its flags\n',
    );
    // A name never stands as an id given beside it: with the all-zero VPC id as Vpc1, a name as Vpc2
    // is not taken for the same VPC (the platform, not the argument check, answers).
    const zero = '00000000-0000-4000-8000-000000000000';
    const beside = await sandbox('vpc-peering-create', '--name', 'z-a', '--vpc1', zero, '--vpc2', 'peer-a');
    expect(beside.stderr).not.toMatch(/must differ/);
    expect(beside.stderr).toContain(`VPC "${zero}" does not exist`);
  });

  it('database clusters by name', async () => {
    const created = await ok(
      ...['db-cluster-create', '--name', 'orders-db', '--engine', 'pg', '--version=16'],
      ...['--region', 'nyc3', '--size', 'db-s-1vcpu-1gb', '--num-nodes', '1'],
    );
    expect((await ok('db-cluster-get', 'orders-db')).database.id).toBe(created.database.id);
    expect((await ok('db-cluster', 'list-users', 'orders-db')).users).toEqual(expect.any(Array));
  });

  it('images by slug (one GET /v2/images/{slug}) or by the name of an own image; an unknown one refused', async () => {
    const bySlug = await waited(
      /: vm by-slug: new \(/,
      ...['--trace', 'vm-create', '--name', 'by-slug', '--size', 's-1vcpu-1gb'],
      ...['--image-id', 'ubuntu-24-04-x64', '--region', 'nyc3', '--wait'],
    );
    expect(bySlug.code, bySlug.stderr).toBe(0);
    const vm = (bySlug.json as Json).droplet;
    expect(vm.image.id).toBe(Number(UBUNTU));
    const imageCalls = bySlug.stderr.match(/> GET \/v2\/images\S*/g);
    expect(imageCalls).toEqual(['> GET /v2/images/ubuntu-24-04-x64']);
    // The action that takes an image: the slug's id reaches the platform.
    const rebuilt = await waited(
      /: action rebuild on vm by-slug: in-progress \(/,
      '--trace',
      'rebuild-vm',
      'by-slug',
      '--image-id',
      'debian-12-x64',
      '--force',
      '--wait',
    );
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stderr).toMatch(
      /> POST \/v2\/droplets\/\d+\/actions .*body \{"image":158441207,"type":"rebuild"\}/,
    );
    expect((await ok('image-get', 'debian-12-x64')).image.id).toBe(158441207);

    // An unknown slug: an input error naming the argument, and nothing created.
    const before = (await ok('vm-list')).droplets.length;
    const unknown = await sandbox(
      ...[
        'vm-create',
        '--name',
        'nope',
        '--size',
        's-1vcpu-1gb',
        '--image-id',
        'ubuntu-99-x64',
        '--region',
        'nyc3',
      ],
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'cloudcall: invalid input: --image-id: no image has the id, slug or name "ubuntu-99-x64" (image-list lists them)\nhint: cloudcall vm-create --help lists its flags\n',
    );
    expect((await ok('vm-list')).droplets.length).toBe(before);
    // The other arguments are checked before the slug is looked up, and the slug is not refused.
    const incomplete = await sandbox('vm-create', '--image-id', 'ubuntu-24-04-x64', '--size', 's-1vcpu-1gb');
    expect(incomplete.code).toBe(2);
    expect(incomplete.stderr).toBe(
      'cloudcall: invalid input: --name: is required; --region: is required\nhint: cloudcall vm-create --help lists its flags\n',
    );

    // An own image (a snapshot) by its name: restore-vm takes it.
    const snapped = await waited(
      /: action snapshot on vm by-slug: in-progress \(/,
      'snapshot-vm',
      'by-slug',
      '--name',
      'by-slug-snap',
      '--wait',
    );
    expect(snapped.code, snapped.stderr).toBe(0);
    const snapshot = (await ok('image-get', 'by-slug-snap')).image;
    expect(snapshot.name).toBe('by-slug-snap');
    const restored = await sandbox(
      '--trace',
      'restore-vm',
      'by-slug',
      '--image-id',
      'by-slug-snap',
      '--force',
    );
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).toContain(`body {"image":${snapshot.id},"type":"restore"}`);

    // Help says so, and the example shows a slug.
    const help = await cli.run(['vm-create', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      "--image-id <value> Image id or slug (required; the image's id, slug or name)",
    );
    expect(help.stdout).toContain('--image-id ubuntu-24-04-x64');
  });
});

describe('help and command words', () => {
  it('the root help is grouped, about 60 lines, and help <family> lists one family', async () => {
    const root = await cli.run(['--help']);
    expect(root.code).toBe(0);
    const lines = root.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(25);
    // About 60 lines, and at most 65: the default state path wraps by its length, the families
    // name their volume and project resources, and the five beyond the spec's have a line or two each.
    expect(lines.length).toBeLessThanOrEqual(65);
    expect(root.stdout).toMatch(/^ {2}databases \(\d+\) +db-cluster$/m);
    expect(root.stdout).not.toMatch(/power-off-vm/);

    const vms = await cli.run(['help', 'vms']);
    expect(vms.code).toBe(0);
    expect(vms.stdout).toMatch(/^VMs \(\d+ tools\)/);
    expect(vms.stdout).toMatch(/^ {2}power-off-vm +Power off VM$/m);
    expect(vms.stdout).not.toMatch(/db-cluster|key-create/);
    const resource = await cli.run(['help', 'load-balancer']);
    expect(resource.stdout).toMatch(/^load-balancer:$/m);
    expect(resource.stdout).not.toMatch(/firewall-/);
  });

  it('global options before help or a resource do not change what help shows', async () => {
    const networking = (await cli.run(['help', 'networking'])).stdout;
    expect(networking).toMatch(/^ {2}vpc-create +Create VPC$/m);
    for (const args of [
      ['--sandbox', 'help', 'networking'],
      ['-o', 'json', '--sandbox', 'help', 'networking'],
      ['--output=yaml', 'help', 'networking'],
    ]) {
      const help = await cli.run(args);
      expect(help.code, args.join(' ')).toBe(0);
      expect(help.stdout, args.join(' ')).toBe(networking);
    }
    expect((await cli.run(['--sandbox', 'vm'])).stdout).toBe((await cli.run(['help', 'vm'])).stdout);
  });

  it('help <tool> is <tool> --help, with the flags', async () => {
    const help = await cli.run(['help', 'vm-get']);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe((await cli.run(['vm-get', '--help'])).stdout);
    expect(help.stdout).toMatch(/^ {2}--id <value> /m);
  });

  it('each tool help shows kebab flags and one generated example', async () => {
    const help = await cli.run(['load-balancer-add-vms', '--help']);
    expect(help.stdout).toMatch(/^Usage: cloudcall load-balancer-add-vms \[options\] \[load-balancer-id\]$/m);
    expect(help.stdout).toMatch(/^ {2}--load-balancer-id <value> /m);
    expect(help.stdout).toMatch(/^ {2}--vm-ids <json> /m);
    expect(help.stdout).not.toMatch(/--LoadBalancerID </);
    expect(help.stdout).toMatch(
      /^Example:\n {2}cloudcall load-balancer-add-vms LOAD_BALANCER_ID --vm-ids 123,456$/m,
    );
  });

  it('`vm create` is `vm-create`, and `vm power-off` is `power-off-vm`', async () => {
    const created = await ok(
      'vm',
      'create',
      '--name',
      'words-1',
      '--size',
      's-1vcpu-1gb',
      '--image-id',
      UBUNTU,
      '--region',
      'nyc3',
    );
    expect(created.droplet.name).toBe('words-1');
    await advance(5_000);
    const off = await ok('vm', 'power-off', 'words-1', '--force');
    expect(off.action).toMatchObject({ type: 'power_off', resource_id: created.droplet.id });
    expect((await ok('db', 'cluster', 'list', '--per-page', '5')).databases).toEqual(expect.any(Array));
    // A verb the resource lacks: the word, the nearest verb, and where the verbs are; no list of them.
    const unknown = await sandbox('vm', 'pwoer-off', 'words-1');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'cloudcall: vm has no verb "pwoer-off" (did you mean power-off?)\nhint: cloudcall vm --help lists its verbs\n',
    );
    // A resource alone lists its tools, as `help <resource>` does.
    const alone = await cli.run(['vm']);
    expect(alone.code).toBe(0);
    expect(alone.stdout).toBe((await cli.run(['help', 'vm'])).stdout);
    expect(alone.stdout).toMatch(/^ {2}vm-create +Create VM$/m);
  });
});

describe('a reader that stops early', () => {
  it('is not an error (cloudcall ... | head)', async () => {
    // The read end is closed before the CLI writes anything: its write fails with EPIPE.
    const child = spawn(process.execPath, [MAIN, 'help', 'vms'], {
      env: { PATH: process.env.PATH ?? '', HOME: cli.home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
