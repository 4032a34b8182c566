/**
 * A networking scenario through the CLI run as a process against its sandbox, whose state
 * persists between invocations: a VPC, two VMs in it, a firewall for them, a load balancer with
 * a forwarding rule in front of them, a domain with an A record at the balancer's IP, and a
 * reserved IP assigned then released. Bad input for each resource fails clearly and changes
 * nothing. Lifecycles complete by moving the shared sandbox clock through a second sandbox on the
 * same state file.
 */
import { readFileSync } from 'node:fs';
import { type Sandbox, startSandbox, type World } from '@cloudcall/sandbox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliRunner } from './testing/run.js';

const UBUNTU = '161928327';
const REGION = 'sfo3';

/** Each test's own config directory, and so its own sandbox state. */
let cli: ReturnType<typeof cliRunner>;
const sandbox = (...args: string[]) => cli.run(['--sandbox', ...args]);

// biome-ignore lint/suspicious/noExplicitAny: command output is checked field by field.
type Json = any;

async function ok(...args: string[]): Promise<Json> {
  const result = await sandbox(...args);
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.json;
}

/** Runs a command that must fail with a message matching `message`, leaving the state file as it was. */
async function failsWithoutChange(message: RegExp, ...args: string[]): Promise<void> {
  const before = await cli.stateText();
  const result = await sandbox(...args);
  expect(result.code, `${args.join(' ')} should fail; stdout: ${result.stdout}`).not.toBe(0);
  expect(result.stderr).toMatch(message);
  expect(readFileSync(cli.statePath, 'utf8')).toBe(before);
}

let helper: Sandbox | undefined;
/** A second sandbox on the CLI's state file: moves the shared clock. */
async function advance(ms: number): Promise<void> {
  helper ??= await startSandbox({ statePath: cli.statePath });
  await helper.advanceClock(ms);
}

/** Reads the shared state directly (no CLI process), for checks and ids. */
async function helperRead<T>(fn: (world: World) => T): Promise<T> {
  helper ??= await startSandbox({ statePath: cli.statePath });
  return helper.store.read(fn);
}

beforeEach(() => {
  cli = cliRunner();
});
afterEach(async () => {
  await helper?.close();
  helper = undefined;
});

describe('a networking scenario through the CLI', () => {
  // About a dozen CLI processes in sequence: allow more than the default per-test timeout on 2 cores.
  it('VPC, two VMs, firewall, load balancer, domain record at its IP, reserved IP', {
    timeout: 90_000,
  }, async () => {
    const { vpc } = await ok('vpc-create', '--Name', 'shop', '--Region', REGION, '--Subnet', '10.120.0.0/20');
    expect(vpc).toMatchObject({ name: 'shop', region: REGION, ip_range: '10.120.0.0/20', default: true });

    const vms: number[] = [];
    for (const name of ['shop-web-1', 'shop-web-2']) {
      const created = await ok(
        'vm-create',
        '--Name',
        name,
        '--Size',
        's-1vcpu-1gb',
        '--ImageID',
        UBUNTU,
        '--Region',
        REGION,
      );
      expect(created.droplet.vpc_uuid).toBe(vpc.id);
      vms.push(created.droplet.id);
    }

    const { firewall } = await ok(
      'firewall-create',
      '--Name',
      'shop-fw',
      '--InboundProtocol',
      'tcp',
      '--InboundPortRange',
      '80',
      '--InboundSource',
      '0.0.0.0/0',
      '--OutboundProtocol',
      'tcp',
      '--OutboundPortRange',
      '1-65535',
      '--OutboundDestination',
      '0.0.0.0/0',
      '--VmIDs',
      vms.join(','),
    );
    expect(firewall.droplet_ids).toEqual(vms);

    const rule = JSON.stringify([
      { EntryProtocol: 'http', EntryPort: 80, TargetProtocol: 'http', TargetPort: 8080 },
    ]);
    const { load_balancer: lb } = await ok(
      'load-balancer-create',
      '--Name',
      'shop-lb',
      '--Region',
      REGION,
      '--ForwardingRules',
      rule,
      '--VmIDs',
      vms.join(','),
    );
    expect(lb).toMatchObject({ status: 'new', droplet_ids: vms });
    await advance(3_000);
    const active = (await ok('load-balancer-get', '--LoadBalancerID', lb.id)).load_balancer;
    expect(active.status).toBe('active');
    expect(active.ip).toMatch(/^203\.0\.113\.\d+$/);

    await ok('domain-create', '--Name', 'shop.example', '--IPAddress', active.ip);
    const { domain_record: record } = await ok(
      'domain-record-create',
      '--Domain',
      'shop.example',
      '--Type',
      'A',
      '--Name',
      'www',
      '--Data',
      active.ip,
    );
    expect(record).toMatchObject({ type: 'A', name: 'www', data: active.ip });

    const reserved = await ok('reserved-ip-reserve', '--Region', REGION, '--Type', 'ipv4');
    const ip = reserved.reserved_ip.ip;
    const assigned = await ok('reserved-ip-assign', '--IP', ip, '--VmID', String(vms[0]), '--Type', 'ipv4');
    expect(assigned.action).toMatchObject({ type: 'assign_ip', status: 'in-progress' });
    expect((await ok('reserved-ip-get', '--IP', ip)).reserved_ip.droplet.id).toBe(vms[0]);
    expect(await ok('reserved-ip-release', '--force', '--IP', ip, '--Type', 'ipv4')).toEqual({ ok: true });
    expect(await helperRead((w) => w.reservedIps.length)).toBe(0);

    // The VMs and the balancer are the VPC's members.
    const members = await ok('vpc-list-members', '--ID', vpc.id);
    expect(members.members.map((m: Json) => m.urn).sort()).toEqual(
      [...vms.map((id) => `do:droplet:${id}`), `do:loadbalancer:${lb.id}`].sort(),
    );
  });

  it('bad input per resource: a clear error and no change to state', { timeout: 60_000 }, async () => {
    await failsWithoutChange(
      /Subnet/,
      'vpc-create',
      '--Name',
      'bad',
      '--Region',
      REGION,
      '--Subnet',
      '10.120.0.0/99',
    );
    await failsWithoutChange(
      /droplet 7 does not exist/,
      'firewall-create',
      '--Name',
      'fw',
      '--InboundProtocol',
      'tcp',
      '--InboundPortRange',
      '22',
      '--InboundSource',
      '0.0.0.0/0',
      '--OutboundProtocol',
      'tcp',
      '--OutboundPortRange',
      '22',
      '--OutboundDestination',
      '0.0.0.0/0',
      '--VmIDs',
      '7',
    );
    const firewallId = await helperRead((w) => w.firewalls[0]?.id ?? '');
    await failsWithoutChange(
      /PortRange/,
      'firewall-add-rules',
      '--ID',
      firewallId,
      '--InboundRules',
      JSON.stringify([{ Protocol: 'tcp', PortRange: '80-70', Sources: ['0.0.0.0/0'] }]),
    );
    await failsWithoutChange(
      /--glb-settings: is required for a GLOBAL load balancer/,
      'load-balancer-create',
      '--Name',
      'edge',
      '--Type',
      'GLOBAL',
    );
    await failsWithoutChange(
      /REGIONAL_NETWORK.*tcp and udp/,
      'load-balancer-create',
      '--Name',
      'net',
      '--Type',
      'REGIONAL_NETWORK',
      '--Region',
      REGION,
      '--ForwardingRules',
      JSON.stringify([{ EntryProtocol: 'http', EntryPort: 80, TargetProtocol: 'http', TargetPort: 80 }]),
    );
    const spare = (await ok('reserved-ip-reserve', '--Region', REGION, '--Type', 'ipv4')).reserved_ip.ip;
    await failsWithoutChange(
      /droplet_id: droplet 7 does not exist/,
      'reserved-ip-assign',
      '--IP',
      spare,
      '--VmID',
      '7',
      '--Type',
      'ipv4',
    );
  });
});
