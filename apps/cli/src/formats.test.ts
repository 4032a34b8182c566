/**
 * Output formats through the CLI run as a process against a sandbox in a temporary state file:
 * table (default columns per resource), wide, json, yaml, tsv, --format with nested paths,
 * --no-header, --query (JMESPath), and colour only on a terminal (util-linux `script` makes a
 * real pseudo-terminal) and never with NO_COLOR.
 */
import { startSandbox } from '@cloudcall/sandbox';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { cliRunner, onTerminal } from './testing/run.js';

const cli = cliRunner();
const at = ['--sandbox', '--sandbox-state', cli.statePath];
const sandbox = (...args: string[]) => cli.run([...at, ...args]);

// biome-ignore lint/suspicious/noExplicitAny: command output is checked field by field.
type Json = any;

let vm: Json;
beforeAll(async () => {
  const creating = cli.start([
    ...at,
    ...['vm-create', '--name', 'fmt-1', '--size', 's-1vcpu-1gb', '--image-id', '161928327'],
    // Waited for, so the VM does not change from one command to the next.
    ...['--region', 'nyc3', '--tags', 'web,prod', '--wait'],
  ]);
  // The sandbox's clock moves on (a second sandbox on the state file) once the CLI waits.
  await creating.until(/: vm fmt-1: new \(/);
  const clock = await startSandbox({ statePath: cli.statePath });
  await clock.advanceClock(60_000);
  await clock.close();
  const created = await creating.exit;
  expect(created.code, created.stderr).toBe(0);
  vm = (created.json as Json).droplet;
});

const publicIp = () => vm.networks.v4.find((network: Json) => network.type === 'public').ip_address;

/** Runs the CLI on a pseudo-terminal; returns what the terminal showed. */
async function onTerminalHere(args: string[], env: Record<string, string> = {}): Promise<string> {
  const run = await onTerminal([...at, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: cli.home, TERM: 'xterm', ...env },
  });
  expect(run.code, run.text).toBe(0);
  return run.text;
}

const ESC = String.fromCharCode(27);

describe('output formats', () => {
  it("table: an empty list is named in the CLI's words, not the platform's", async () => {
    const empty = async (...args: string[]) => {
      const run = await cli.run(['--sandbox', '--sandbox-state', ':memory:', ...args, '-o', 'table']);
      expect(run.code, run.stderr).toBe(0);
      return run.stdout;
    };
    expect(await empty('vm-list')).toBe('No VMs.\n');
    expect(await empty('key-list')).toBe('No SSH keys.\n');
    expect(await empty('vpc-peering-list')).toBe('No VPC peerings.\n');
    expect(await empty('byoip-prefix-list')).toBe('No BYOIP prefixes.\n');
    expect(await empty('reserved-ip-list', '--type', 'ipv4')).toBe('No reserved IPs.\n');
    expect(await empty('domain-list')).toBe('No domains.\n');
  });

  it('table: plain aligned default columns, no boxes', async () => {
    const table = await sandbox('vm-list', '-o', 'table');
    expect(table.code).toBe(0);
    const [header, row] = table.stdout.split('\n');
    expect(header).toMatch(/^ID +Name +Public IPv4 +Region +Size +Status +Tags$/);
    expect(row).toMatch(
      new RegExp(
        `^${vm.id} +fmt-1 +${publicIp().replace(/\./g, '\\.')} +nyc3 +s-1vcpu-1gb +(new|active) +web,prod$`,
      ),
    );
    // Columns line up: each header starts where its values start.
    expect(row?.indexOf('nyc3')).toBe(header?.indexOf('Region'));
    expect(table.stdout).not.toMatch(/[│┌─]/);
    expect(table.stdout).not.toContain(ESC);
    // One resource gets the same columns.
    expect((await sandbox('vm-get', String(vm.id), '-o', 'table')).stdout).toMatch(/^ID +Name +Public IPv4/);
  });

  it('wide adds columns', async () => {
    const wide = await sandbox('vm-list', '-o', 'wide');
    expect(wide.stdout.split('\n')[0]).toMatch(
      /^ID +Name +Public IPv4 +Region +Size +Status +Tags +Private IPv4 +.*Image +VPC UUID/,
    );
    expect(wide.stdout).toContain(vm.vpc_uuid);
  });

  it('json and yaml carry the whole result', async () => {
    const json = await sandbox('vm-get', String(vm.id), '-o', 'json');
    expect(json.json).toMatchObject({ droplet: { id: vm.id, name: 'fmt-1' } });
    const yaml = await sandbox('vm-get', String(vm.id), '-o', 'yaml');
    expect(yaml.code).toBe(0);
    expect(yaml.stdout).toMatch(/^droplet:\n {2}id: \d+\n {2}name: fmt-1\n/);
    expect(parseYaml(yaml.stdout)).toEqual(json.json);
  });

  it('tsv: tab-separated whole values, with a header unless --no-header', async () => {
    // The VM boots in real time: its status is new, then active.
    const row = `${vm.id}\tfmt-1\t${publicIp()}\tnyc3\ts-1vcpu-1gb\t(new|active)\tweb,prod\n`;
    const tsv = await sandbox('vm-list', '-o', 'tsv');
    expect(tsv.stdout).toMatch(new RegExp(`^ID\tName\tPublic IPv4\tRegion\tSize\tStatus\tTags\n${row}$`));
    const bare = await sandbox('vm-list', '-o', 'tsv', '--no-header');
    expect(bare.stdout).toMatch(new RegExp(`^${row}$`));
  });

  it('--format picks columns by header or by nested path; --no-header drops the header row', async () => {
    const chosen = await sandbox(
      'vm-list',
      '--format',
      'ID,networks.v4.0.ip_address,region.slug,Public IPv4',
    );
    expect(chosen.stdout.split('\n')[0]).toMatch(
      /^ID +networks\.v4\.0\.ip_address +region\.slug +Public IPv4$/,
    );
    expect(chosen.stdout.split('\n')[1]).toMatch(
      new RegExp(`^${vm.id} +${vm.networks.v4[0].ip_address} +nyc3 +${publicIp()}$`),
    );
    const bare = await sandbox('vm-list', '--format', 'id,name', '--no-header');
    expect(bare.stdout).toBe(`${vm.id}  fmt-1\n`);
  });

  it('--query picks from the result with JMESPath, in any format', async () => {
    const names = await sandbox('vm-list', '--query', 'droplets[].name');
    expect(names.json).toEqual(['fmt-1']);
    const picked = await sandbox(
      'vm-list',
      '-o',
      'table',
      '--query',
      "droplets[?name=='fmt-1'].{id: id, region: region.slug}",
    );
    expect(picked.stdout).toMatch(new RegExp(`^id +region\\n${vm.id} +nyc3\\n$`));
    const scalar = await sandbox('vm-get', String(vm.id), '-o', 'tsv', '--query', 'droplet.size_slug');
    expect(scalar.stdout).toBe('s-1vcpu-1gb\n');
    // A bad expression is refused before anything else (here: before even looking for a token).
    const bad = await cli.run(['vm-list', '--query', 'droplets[']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^cloudcall: invalid input: --query: /);
  });

  it('colour on a terminal only, and never with NO_COLOR', async () => {
    const coloured = await onTerminalHere(['vm-list']);
    expect(coloured).toContain(`${ESC}[1mID`);
    // The status in its colour: new yellow, active green.
    expect([`${ESC}[33mnew`, `${ESC}[32mactive`].some((status) => coloured.includes(status))).toBe(true);
    const plain = await onTerminalHere(['vm-list'], { NO_COLOR: '1' });
    expect(plain).toMatch(/^ID +Name +Public IPv4/);
    expect(plain).not.toContain(ESC);
    const piped = await sandbox('vm-list', '-o', 'table');
    expect(piped.stdout).not.toContain(ESC);
  });
});
