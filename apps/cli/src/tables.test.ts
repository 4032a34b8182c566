/**
 * Tables a person reads, through the built CLI as a process against its sandbox: volumes and
 * projects in doctl's columns and Title Case, a firewall's rules a line each, the database options
 * an engine a row, and no JSON in any cell.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cliRunner, type Json, VM_FLAGS } from './testing/run.js';

const cli = cliRunner({}, { process: true });
const { ok } = cli;

/** A command's table, expecting exit 0. */
async function table(...args: string[]): Promise<string> {
  const result = await cli.sandbox(...args);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

/** A table's lines as cells: columns are two or more spaces apart. */
const cells = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/ {2,}/));

/** What no table may show: a JSON object or list in a cell, or a platform field name as a header. */
function expectReadable(text: string): void {
  expect(text).not.toMatch(/[{[]"/);
  expect(text.split('\n')[0]).not.toMatch(/[a-z]_[a-z]/);
}

let vm: Json;
let volume: Json;
beforeAll(async () => {
  vm = (await ok('vm-create', '--name', 'tbl-web', ...VM_FLAGS, '--tags', 'web')).droplet;
  volume = (
    await ok(
      ...['volume-create', '--name', 'tbl-logs', '--size-gigabytes', '10', '--region', 'nyc3'],
      ...['--tags', 'logs,prod', '--filesystem-type', 'ext4', '--filesystem-label', 'logs'],
    )
  ).volume;
}, 60_000);

describe('volume tables', () => {
  it("show doctl's columns, the size in GiB and the region's slug", async () => {
    const text = await table('volume-list', '-o', 'table');
    expectReadable(text);
    const [header, row] = cells(text);
    expect(header).toEqual([
      'ID',
      'Name',
      'Size',
      'Region',
      'Filesystem Type',
      'Filesystem Label',
      'VM IDs',
      'Tags',
    ]);
    // Not attached: the VM IDs cell is blank, so the row has one cell fewer.
    expect(row).toEqual([volume.id, 'tbl-logs', '10 GiB', 'nyc3', 'ext4', 'logs', 'logs,prod']);
    // One volume: the same columns.
    expect(cells(await table('volume-get', 'tbl-logs', '-o', 'table'))[0]).toEqual(header);
    const wide = await table('volume-list', '-o', 'wide');
    expectReadable(wide);
    expect(cells(wide)[0]).toEqual([...(header ?? []), 'Description', 'Created At']);
  });

  it("take doctl's --format names, and list attached VMs comma-separated", async () => {
    const second = (await ok('vm-create', '--name', 'tbl-web-2', ...VM_FLAGS)).droplet;
    const other = (
      await ok('volume-create', '--name', 'tbl-shared', '--size-gigabytes', '1', '--region', 'nyc3')
    ).volume;
    // The sandbox keeps one VM per volume as the platform does; its answer's list is shown joined.
    const attached = await cli.sandbox('volume-attach', 'tbl-shared', '--vm-id', 'tbl-web-2');
    expect(attached.code, attached.stderr).toBe(0);
    const text = await table('volume-get', other.id, '--format', 'Name,DropletIDs,Size', '-o', 'table');
    expect(cells(text)).toEqual([
      ['Name', 'VM IDs', 'Size'],
      ['tbl-shared', String(second.id), '1 GiB'],
    ]);
  }, 60_000);
});

describe('nested values', () => {
  it('are shown in words in table and wide (by what names them, else key=value), whole as JSON in tsv', async () => {
    const vmIp = vm.networks.v4[0];
    const text = await table('vm-get', 'tbl-web', '--format', 'Name,networks.v4.0,networks.v4', '-o', 'wide');
    expect(cells(text)[1]).toEqual([
      'tbl-web',
      `ip_address=${vmIp.ip_address} netmask=${vmIp.netmask} gateway=${vmIp.gateway} type=${vmIp.type}`,
      expect.stringMatching(new RegExp(`^ip_address=${vmIp.ip_address} .*; ip_address=`)),
    ]);
    expectReadable(text);
    const tsv = (await table('vm-get', 'tbl-web', '--format', 'Name,networks.v4.0', '-o', 'tsv')).split('\n');
    expect(JSON.parse(tsv[1]?.split('\t')[1] ?? '')).toEqual(vmIp);
  });
});

describe('project tables', () => {
  it("show doctl's columns: the owner's ids and the dates with -o wide", async () => {
    const text = await table('project-list', '-o', 'table');
    expectReadable(text);
    const [header, row] = cells(text);
    expect(header).toEqual(['ID', 'Name', 'Description', 'Purpose', 'Environment', 'Is Default']);
    expect(row?.slice(1)).toEqual([
      'first-project',
      'Update your project information under Settings',
      'Just trying out DigitalOcean',
      'Development',
      'true',
    ]);
    const wide = await table('project-list', '-o', 'wide');
    expectReadable(wide);
    expect(cells(wide)[0]).toEqual([
      'ID',
      'Owner UUID',
      'Owner ID',
      'Name',
      'Description',
      'Purpose',
      'Environment',
      'Is Default',
      'Created At',
      'Updated At',
    ]);
  });

  it('show the resources of a project under Title Case headers', async () => {
    await ok('project-assign-resources', 'first-project', '--resources', `do:droplet:${vm.id}`);
    const text = await table('project-list-resources', 'first-project', '-o', 'table');
    expectReadable(text);
    const lines = cells(text);
    expect(lines[0]).toEqual(['URN', 'Assigned At', 'Status']);
    expect(lines).toContainEqual([`do:droplet:${vm.id}`, expect.stringMatching(/^\d{4}-/), 'ok']);
  });
});

describe('firewall tables', () => {
  let firewall: Json;
  let lb: Json;
  beforeAll(async () => {
    lb = (
      await ok(
        ...['load-balancer-create', 'tbl-lb', '--region', 'nyc3', '--forwarding-rules'],
        JSON.stringify([{ EntryProtocol: 'http', EntryPort: 80, TargetProtocol: 'http', TargetPort: 8080 }]),
      )
    ).load_balancer;
    firewall = (
      await ok(
        ...['firewall-create', 'tbl-fw', '--inbound-protocol', 'tcp', '--inbound-port-range', '22'],
        ...['--inbound-source', '0.0.0.0/0,::/0', '--outbound-protocol', 'icmp'],
        ...['--outbound-port-range', 'all', '--outbound-destination', '0.0.0.0/0'],
        ...['--vm-ids', 'tbl-web', '--tags', 'web'],
        '--inbound-rules',
        JSON.stringify([
          { Protocol: 'tcp', PortRange: '80', Sources: ['10.0.0.0/8'], Tags: ['web'], VmIDs: [vm.id] },
          { Protocol: 'udp', PortRange: 'all', Sources: [], LoadBalancerIDs: [lb.id] },
        ]),
      )
    ).firewall;
  }, 60_000);

  it('show the rules one a line, in words, under the firewall they belong to', async () => {
    const text = await table('firewall-get', 'tbl-fw', '-o', 'table');
    expectReadable(text);
    const lines = cells(text);
    expect(lines[0]).toEqual(['ID', 'Name', 'Status', 'Rules', 'VM IDs', 'Tags']);
    expect(lines[1]).toEqual([
      firewall.id,
      'tbl-fw',
      expect.any(String),
      'inbound tcp 22 from 0.0.0.0/0, ::/0',
      String(vm.id),
      'web',
    ]);
    // The lines after it carry the other rules, in the Rules column, the other cells blank.
    const rulesAt = text.split('\n')[0]?.indexOf('Rules') ?? -1;
    const more = text.trimEnd().split('\n').slice(2);
    expect(more.map((line) => line.slice(0, rulesAt).trim())).toEqual(['', '', '']);
    expect(more.map((line) => line.slice(rulesAt))).toEqual([
      `inbound tcp 80 from 10.0.0.0/8, tag:web, vm:${vm.id}`,
      `inbound udp all ports from lb:${lb.id}`,
      'outbound icmp to 0.0.0.0/0',
    ]);
  });

  it('keep a firewall on one line in tsv, the rules `; `-joined; doctl names pick the rules of one way', async () => {
    const tsv = (await table('firewall-list', '-o', 'tsv')).trimEnd().split('\n');
    expect(tsv[0]?.split('\t')).toEqual(['ID', 'Name', 'Status', 'Rules', 'VM IDs', 'Tags']);
    const row = tsv.find((line) => line.startsWith(firewall.id))?.split('\t');
    expect(row?.[3]).toBe(
      `inbound tcp 22 from 0.0.0.0/0, ::/0; inbound tcp 80 from 10.0.0.0/8, tag:web, vm:${vm.id}; inbound udp all ports from lb:${lb.id}; outbound icmp to 0.0.0.0/0`,
    );
    const outbound = await table('firewall-get', 'tbl-fw', '--format', 'Name,OutboundRules', '-o', 'table');
    expect(cells(outbound)).toEqual([
      ['Name', 'Outbound Rules'],
      ['tbl-fw', 'outbound icmp to 0.0.0.0/0'],
    ]);
    const wide = await table('firewall-list', '-o', 'wide');
    expectReadable(wide);
    expect(cells(wide)[0]).toEqual([
      'ID',
      'Name',
      'Status',
      'Created At',
      'Rules',
      'VM IDs',
      'Tags',
      'Pending Changes',
    ]);
  });
});

describe('the database options table', () => {
  it('shows an engine a row: versions, default, node counts, regions and sizes, cut lists saying how many more', async () => {
    const options = (await ok('db-cluster-list-options')).options;
    const text = await table('db-cluster-list-options', '-o', 'table');
    expectReadable(text);
    const lines = cells(text);
    expect(lines[0]).toEqual(['Engine', 'Versions', 'Default', 'Nodes', 'Regions', 'Sizes']);
    expect(lines.slice(1).map((line) => line[0])).toEqual(Object.keys(options));
    const pg = lines.find((line) => line[0] === 'pg') ?? [];
    expect(pg.slice(0, 4)).toEqual([
      'pg',
      options.pg.versions.join(','),
      options.pg.default_version,
      '1,2,3',
    ]);
    // A list too long for its cell is cut between items and says how many it leaves out.
    const regions = /^([\w,]+) \(\+(\d+) more\)$/.exec(pg[4] ?? '');
    expect(regions, pg[4]).not.toBeNull();
    const shown = regions?.[1]?.split(',') ?? [];
    expect(shown).toEqual(options.pg.regions.slice(0, shown.length));
    expect(shown.length + Number(regions?.[2])).toBe(options.pg.regions.length);

    // Wide: every region and size, and the end of life of the versions that have one.
    const wide = cells(await table('db-cluster-list-options', '-o', 'wide'));
    expect(wide[0]).toEqual(['Engine', 'Versions', 'Default', 'Nodes', 'Regions', 'Sizes', 'End of Life']);
    const widePg = wide.find((line) => line[0] === 'pg') ?? [];
    expect(widePg[4]).toBe(options.pg.regions.join(','));
    const sizes = [...new Set(options.pg.layouts.flatMap((layout: Json) => layout.sizes))];
    expect(widePg[5]).toBe(sizes.join(','));
  });
});
