/**
 * Every networking tool through a real MCP client, in process over the SDK's in-memory
 * transport, against the built-in sandbox (its state in memory, each test its own). The test
 * moves the sandbox's clock forward, so lifecycles (load balancer, ACME certificate, peering,
 * BYOIP) complete without sleeping.
 * The test records which tools it called and checks at the end that none was left out.
 */
import { readFileSync } from 'node:fs';
import { selectFamilies } from '@cloudcall/catalog';
import type { Sandbox } from '@cloudcall/sandbox';
import { afterEveryTest } from '@cloudcall/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, hintsOf } from './testing/client.js';
import { inProcessServer } from './testing/in-process.js';

const UBUNTU = 161928327;
/** The networking tool names, from the catalog the server composes. */
const NETWORKING = new Set(
  selectFamilies('networking').flatMap((family) => family.tools.map((tool) => tool.name)),
);
const cert = JSON.parse(
  readFileSync(
    new URL('../../../packages/sandbox/test-fixtures/networking-certificate.json', import.meta.url),
    'utf8',
  ),
) as { privateKey: string; leafCertificate: string; certificateChain: string; dnsNames: string[] };

/** Each test's own sandbox: a test sees only what it made, whatever ran before it. */
let client: Client;
let close: () => Promise<void>;
let stderr: () => string;
let helper: Sandbox;
const called = new Set<string>();

// biome-ignore lint/suspicious/noExplicitAny: tool results are checked field by field.
type Json = any;

async function ok(name: string, args: Record<string, unknown> = {}): Promise<Json> {
  called.add(name);
  const result = await call(client, name, args);
  expect(result.isError, `${name}: ${result.text}`).toBe(false);
  return result.json;
}

/** Calls a tool expecting an error; returns its text. */
async function fails(name: string, args: Record<string, unknown>, message: RegExp): Promise<string> {
  const result = await call(client, name, args);
  expect(result.isError, `${name} should fail: ${result.text}`).toBe(true);
  expect(result.text).toMatch(message);
  return result.text;
}

const advance = (ms: number) => helper.advanceClock(ms);
/** The whole sandbox state, to see that a refused call changed nothing. */
const stateText = () => helper.store.read((world) => JSON.stringify(world));

async function createVm(name: string, region = 'nyc3'): Promise<number> {
  const { droplet } = await ok('vm-create', {
    Name: name,
    Size: 's-1vcpu-1gb',
    ImageID: UBUNTU,
    Region: region,
  });
  return droplet.id;
}

beforeEach(async () => {
  let sandbox: Sandbox | undefined;
  ({ client, close, log: stderr, sandbox } = await inProcessServer({ families: 'account,vms,networking' }));
  helper = sandbox as Sandbox;
});
afterEach(async () => {
  await close();
});

describe('the networking family over MCP stdio', () => {
  it('lists the 55 networking tools with annotations by the issue rule', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(NETWORKING.size).toBe(55);
    expect(tools.filter((t) => NETWORKING.has(t.name))).toHaveLength(55);
    for (const name of [
      'domain-delete',
      'domain-record-delete',
      'certificate-delete',
      'firewall-delete',
      'firewall-remove-rules',
      'firewall-remove-tags',
      'firewall-remove-vms',
      'load-balancer-update',
      'load-balancer-delete',
      'load-balancer-delete-cache',
      'load-balancer-remove-vms',
      'load-balancer-remove-forwarding-rules',
      'reserved-ip-release',
      'reserved-ip-unassign',
      'vpc-peering-delete',
      'byoip-prefix-delete',
      'vpc-delete',
    ]) {
      expect(byName.get(name)?.annotations?.destructiveHint, name).toBe(true);
    }
    for (const name of [
      'firewall-add-rules',
      'load-balancer-add-vms',
      'reserved-ip-assign',
      'domain-record-edit',
      'vpc-create',
    ]) {
      expect(byName.get(name)?.annotations?.destructiveHint, name).toBe(false);
      expect(hintsOf(byName.get(name) ?? {}).readOnlyHint, name).toBe(false);
    }
    for (const name of ['domain-list', 'reserved-ip-get', 'vpc-list-members', 'byoip-prefix-resources-get']) {
      expect(byName.get(name)?.annotations?.readOnlyHint, name).toBe(true);
    }
    expect(byName.get('vpc-list')?.inputSchema.properties?.PerPage).toMatchObject({ default: 20 });
    expect(byName.get('load-balancer-create')?.inputSchema.required?.sort()).toEqual(['Name']);
  });

  it('VPCs, members and peerings', async () => {
    const { vpc } = await ok('vpc-create', {
      Name: 'mcp-net',
      Region: 'nyc3',
      Subnet: '10.70.0.0/20',
      Description: 'mcp',
    });
    expect(vpc).toMatchObject({ name: 'mcp-net', region: 'nyc3', ip_range: '10.70.0.0/20', default: true });
    const vm = await createVm('mcp-vpc-vm');
    expect((await ok('vpc-list-members', { ID: vpc.id })).members).toEqual([
      { urn: `do:droplet:${vm}`, name: 'mcp-vpc-vm', created_at: expect.any(String) },
    ]);
    await fails('vpc-create', { Name: 'bad', Region: 'nyc3', Subnet: '10.70.0.0/40' }, /Subnet/);
    await fails('vpc-create', { Name: 'clash', Region: 'nyc3', Subnet: '10.70.4.0/24' }, /overlaps/);
    const other = (await ok('vpc-create', { Name: 'mcp-other', Region: 'nyc3', Subnet: '10.71.0.0/24' })).vpc;
    expect(other.default).toBe(false);
    const far = (await ok('vpc-create', { Name: 'mcp-far', Region: 'ams3' })).vpc;
    expect((await ok('vpc-get', { ID: other.id })).vpc).toEqual(other);
    expect((await ok('vpc-list', { PerPage: 50 })).vpcs.map((v: Json) => v.id)).toEqual(
      expect.arrayContaining([vpc.id, other.id, far.id]),
    );

    await fails('vpc-peering-create', { Name: 'self', Vpc1: other.id, Vpc2: other.id }, /Vpc2/);
    const { vpc_peering: peering } = await ok('vpc-peering-create', {
      Name: 'mcp-peer',
      Vpc1: other.id,
      Vpc2: far.id,
    });
    expect(peering).toMatchObject({ status: 'PROVISIONING', vpc_ids: [other.id, far.id] });
    await advance(3_000);
    expect((await ok('vpc-peering-get', { ID: peering.id })).vpc_peering.status).toBe('ACTIVE');
    expect((await ok('vpc-peering-list', {})).vpc_peerings.map((p: Json) => p.id)).toEqual([peering.id]);
    expect((await ok('vpc-peering-delete', { ID: peering.id })).vpc_peering.status).toBe('DELETING');

    await fails('vpc-delete', { ID: vpc.id }, /members/);
    expect(await ok('vpc-delete', { ID: other.id })).toEqual({ ok: true });
    await fails('vpc-get', { ID: other.id }, /404|not be found/);
  });

  it('domains and records of every type', async () => {
    expect((await ok('domain-create', { Name: 'mcp.example', IPAddress: '192.0.2.1' })).domain.name).toBe(
      'mcp.example',
    );
    expect((await ok('domain-get', { Name: 'mcp.example' })).domain.zone_file).toContain('@ IN A 192.0.2.1');
    expect((await ok('domain-list', {})).domains.map((d: Json) => d.name)).toContain('mcp.example');
    const records: [string, string, string, Record<string, unknown>][] = [
      ['A', 'www', '192.0.2.2', { data: '192.0.2.2' }],
      ['AAAA', 'www', '2001:db8::2', { data: '2001:db8::2' }],
      ['CNAME', 'blog', 'www.mcp.example.', { data: 'www.mcp.example.' }],
      ['TXT', '@', 'hello world', { data: 'hello world' }],
      ['MX', '@', '10 mail.mcp.example.', { data: 'mail.mcp.example.', priority: 10 }],
      [
        'SRV',
        '_sip._tcp',
        '1 2 5060 sip.mcp.example.',
        { data: 'sip.mcp.example.', priority: 1, weight: 2, port: 5060 },
      ],
      ['CAA', '@', '0 issue "letsencrypt.org"', { data: 'letsencrypt.org', flags: 0, tag: 'issue' }],
      ['NS', 'sub', 'ns1.elsewhere.example.', { data: 'ns1.elsewhere.example.' }],
    ];
    const ids: number[] = [];
    for (const [Type, Name, Data, expected] of records) {
      const { domain_record } = await ok('domain-record-create', { Domain: 'mcp.example', Type, Name, Data });
      expect(domain_record).toMatchObject({ type: Type, name: Name, ...expected });
      ids.push(domain_record.id);
    }
    await fails(
      'domain-record-create',
      { Domain: 'mcp.example', Type: 'A', Name: 'x', Data: 'not-an-ip' },
      /Data/,
    );
    await fails(
      'domain-record-create',
      { Domain: 'mcp.example', Type: 'MX', Name: '@', Data: 'mail.example.' },
      /Data/,
    );
    const edited = await ok('domain-record-edit', {
      Domain: 'mcp.example',
      RecordID: ids[0],
      Type: 'TXT',
      Name: 'note',
      Data: 'replaced',
    });
    expect(edited.domain_record).toMatchObject({ id: ids[0], type: 'TXT', name: 'note', data: 'replaced' });
    expect(
      (await ok('domain-record-get', { Domain: 'mcp.example', RecordID: ids[0] })).domain_record.data,
    ).toBe('replaced');
    expect((await ok('domain-record-list', { Domain: 'mcp.example', PerPage: 100 })).meta.total).toBe(
      5 + records.length,
    );
    expect(await ok('domain-record-delete', { Domain: 'mcp.example', RecordID: ids[1] })).toEqual({
      ok: true,
    });
    await ok('domain-create', { Name: 'gone.example', IPAddress: '192.0.2.9' });
    expect(await ok('domain-delete', { Name: 'gone.example' })).toEqual({ ok: true });
    // A domain with no apex record: the NS and SOA records the platform adds, no A.
    expect((await ok('domain-create-bare', { Name: 'bare.example' })).domain.name).toBe('bare.example');
    const bare = (await ok('domain-record-list', { Domain: 'bare.example' })).domain_records;
    expect(bare.map((r: Json) => r.type).sort()).toEqual(['NS', 'NS', 'NS', 'SOA']);
  });

  it('certificates: custom (the key never echoed) and ACME', async () => {
    const custom = await call(client, 'custom-certificate-create', {
      Name: 'mcp-custom',
      PrivateKey: cert.privateKey,
      LeafCertificate: cert.leafCertificate,
      CertificateChain: cert.certificateChain,
    });
    called.add('custom-certificate-create');
    expect(custom.isError, custom.text).toBe(false);
    expect(custom.text).not.toContain('PRIVATE KEY');
    const id = (custom.json as Json).certificate.id;
    expect((custom.json as Json).certificate).toMatchObject({
      type: 'custom',
      state: 'verified',
      dns_names: cert.dnsNames,
    });
    const keyLine = cert.privateKey.split('\n')[1] as string;
    const bad = await fails(
      'custom-certificate-create',
      {
        Name: 'broken',
        PrivateKey: cert.privateKey.replace(keyLine, keyLine.replace(/[A-Za-z]/g, '*')),
        LeafCertificate: cert.leafCertificate,
        CertificateChain: cert.certificateChain,
      },
      /private_key/,
    );
    expect(bad).not.toContain(keyLine.slice(0, 12));
    expect(stderr()).not.toContain(keyLine.slice(0, 12));

    await ok('domain-create', { Name: 'tls.example', IPAddress: '192.0.2.3' });
    const acme = (
      await ok('acme-certificate-create', { Name: 'mcp-acme', DnsNames: ['tls.example', '*.tls.example'] })
    ).certificate;
    expect(acme).toMatchObject({ type: 'lets_encrypt', state: 'pending' });
    await advance(3_000);
    expect((await ok('certificate-get', { ID: acme.id })).certificate.state).toBe('verified');
    expect((await ok('certificate-list', {})).certificates.map((c: Json) => c.id).sort()).toEqual(
      [id, acme.id].sort(),
    );
    expect(await ok('certificate-delete', { ID: id })).toEqual({ ok: true });
  });

  it('firewalls', async () => {
    const vm1 = await createVm('mcp-fw-1');
    const vm2 = await createVm('mcp-fw-2');
    const before = await stateText();
    await fails(
      'firewall-create',
      {
        Name: 'fw',
        InboundProtocol: 'tcp',
        InboundPortRange: '22',
        InboundSource: '0.0.0.0/0',
        OutboundProtocol: 'tcp',
        OutboundPortRange: 'all',
        OutboundDestination: '0.0.0.0/0',
        VmIDs: [vm1, 123],
      },
      /droplet 123 does not exist/,
    );
    await fails(
      'firewall-create',
      {
        Name: 'fw',
        InboundProtocol: 'tcp',
        InboundPortRange: '22-',
        InboundSource: '0.0.0.0/0',
        OutboundProtocol: 'tcp',
        OutboundPortRange: 'all',
        OutboundDestination: '0.0.0.0/0',
      },
      /InboundPortRange/,
    );
    expect(await stateText()).toBe(before);

    const { firewall } = await ok('firewall-create', {
      Name: 'mcp-fw',
      InboundProtocol: 'tcp',
      InboundPortRange: '22',
      InboundSource: '0.0.0.0/0, ::/0',
      OutboundProtocol: 'udp',
      OutboundPortRange: '53',
      OutboundDestination: '0.0.0.0/0',
      VmIDs: [vm1],
      Tags: ['web'],
    });
    expect(firewall).toMatchObject({
      inbound_rules: [{ protocol: 'tcp', ports: '22', sources: { addresses: ['0.0.0.0/0', '::/0'] } }],
      outbound_rules: [{ protocol: 'udp', ports: '53', destinations: { addresses: ['0.0.0.0/0'] } }],
      droplet_ids: [vm1],
      tags: ['web'],
    });
    const ID = firewall.id;
    expect(await ok('firewall-add-tags', { ID, Tags: ['api'] })).toEqual({ ok: true });
    expect(await ok('firewall-remove-tags', { ID, Tags: ['web'] })).toEqual({ ok: true });
    expect(await ok('firewall-add-vms', { ID, VmIDs: [vm2] })).toEqual({ ok: true });
    expect(await ok('firewall-remove-vms', { ID, VmIDs: [vm1] })).toEqual({ ok: true });
    const rule = { Protocol: 'tcp', PortRange: '443', Sources: ['0.0.0.0/0'] };
    expect(
      await ok('firewall-add-rules', {
        ID,
        InboundRules: [rule],
        OutboundRules: [{ Protocol: 'icmp', PortRange: 'all', Destinations: ['0.0.0.0/0'] }],
      }),
    ).toEqual({ ok: true });
    await fails(
      'firewall-add-rules',
      { ID, InboundRules: [{ Protocol: 'tcp', PortRange: '443' }] },
      /Sources/,
    );
    await fails('firewall-add-rules', { ID }, /InboundRules/);
    expect(await ok('firewall-remove-rules', { ID, InboundRules: [rule] })).toEqual({ ok: true });
    const got = (await ok('firewall-get', { ID })).firewall;
    expect(got).toMatchObject({ tags: ['api'], droplet_ids: [vm2] });
    expect(got.inbound_rules).toHaveLength(1);
    expect(got.outbound_rules).toHaveLength(2);
    expect((await ok('firewall-list', {})).firewalls.map((f: Json) => f.id)).toEqual([ID]);
    expect(await ok('firewall-delete', { ID })).toEqual({ ok: true });
  });

  it('load balancers: regional and global, members, rules, update, cache', async () => {
    const vm1 = await createVm('mcp-lb-1');
    const vm2 = await createVm('mcp-lb-2');
    const http = { EntryProtocol: 'http', EntryPort: 80, TargetProtocol: 'http', TargetPort: 8080 };
    await fails('load-balancer-create', { Name: 'lb', ForwardingRules: [http] }, /Region.*required/);
    await fails('load-balancer-create', { Name: 'lb', Region: 'nyc3' }, /ForwardingRules.*required/);
    await fails('load-balancer-create', { Name: 'lb', Type: 'GLOBAL' }, /GLBSettings.*required/);
    await fails(
      'load-balancer-create',
      { Name: 'lb', Region: 'nyc3', ForwardingRules: [http], TargetLoadBalancerIDs: ['x'] },
      /TargetLoadBalancerIDs/,
    );
    const { load_balancer: lb } = await ok('load-balancer-create', {
      Name: 'mcp-lb',
      Region: 'nyc3',
      ForwardingRules: [http],
      VmIDs: [String(vm1)],
    });
    expect(lb).toMatchObject({ status: 'new', droplet_ids: [vm1], type: 'REGIONAL' });
    await advance(3_000);
    const active = (await ok('load-balancer-get', { LoadBalancerID: lb.id })).load_balancer;
    expect(active.status).toBe('active');
    expect(active.ip).toMatch(/^203\.0\.113\./);

    const LoadBalancerID = lb.id;
    expect(await ok('load-balancer-add-vms', { LoadBalancerID, VmIDs: [vm2] })).toEqual({ ok: true });
    expect(await ok('load-balancer-remove-vms', { LoadBalancerID, VmIDs: [vm1] })).toEqual({ ok: true });
    const tcp = { EntryProtocol: 'tcp', EntryPort: 5432, TargetProtocol: 'tcp', TargetPort: 5432 };
    expect(
      await ok('load-balancer-add-forwarding-rules', { LoadBalancerID, ForwardingRules: [tcp] }),
    ).toEqual({ ok: true });
    expect(
      await ok('load-balancer-remove-forwarding-rules', { LoadBalancerID, ForwardingRules: [http] }),
    ).toEqual({ ok: true });
    await fails(
      'load-balancer-remove-forwarding-rules',
      { LoadBalancerID, ForwardingRules: [tcp] },
      /at least one/,
    );
    let got = (await ok('load-balancer-get', { LoadBalancerID })).load_balancer;
    expect(got.droplet_ids).toEqual([vm2]);
    expect(got.forwarding_rules).toEqual([
      { entry_protocol: 'tcp', entry_port: 5432, target_protocol: 'tcp', target_port: 5432 },
    ]);

    const updated = await ok('load-balancer-update', {
      LoadBalancerID,
      Name: 'mcp-lb-renamed',
      Region: 'nyc3',
      VmIDs: [vm1, vm2],
      SizeUnit: 3,
    });
    expect(updated.load_balancer).toMatchObject({
      name: 'mcp-lb-renamed',
      size_unit: 3,
      droplet_ids: [vm1, vm2],
    });
    await fails('load-balancer-delete-cache', { LoadBalancerID }, /GLOBAL/);

    const global = (
      await ok('load-balancer-create', {
        Name: 'mcp-edge',
        Type: 'GLOBAL',
        GLBSettings: { target_protocol: 'http', target_port: 80, cdn: { is_enabled: true } },
        TargetLoadBalancerIDs: [LoadBalancerID],
      })
    ).load_balancer;
    expect(global).toMatchObject({ type: 'GLOBAL', target_load_balancer_ids: [LoadBalancerID] });
    expect(await ok('load-balancer-delete-cache', { LoadBalancerID: global.id })).toEqual({ ok: true });
    got = await ok('load-balancer-list', {});
    expect(got.load_balancers.map((l: Json) => l.id).sort()).toEqual([LoadBalancerID, global.id].sort());
    expect(await ok('load-balancer-delete', { LoadBalancerID: global.id })).toEqual({ ok: true });
    expect(await ok('load-balancer-delete', { LoadBalancerID })).toEqual({ ok: true });
  });

  it('reserved IPs (ipv4 and ipv6, each on its own path) and BYOIP prefixes', async () => {
    const vm = await createVm('mcp-rip');
    for (const Type of ['ipv4', 'ipv6'] as const) {
      const reserved = await ok('reserved-ip-reserve', { Region: 'nyc3', Type });
      const ip = Type === 'ipv4' ? reserved.reserved_ip.ip : reserved.reserved_ipv6.ip;
      const assigned = await ok('reserved-ip-assign', { IP: ip, VmID: vm, Type });
      expect(assigned.action).toMatchObject({ type: 'assign_ip', status: 'in-progress' });
      const got = await ok('reserved-ip-get', { IP: ip });
      expect((got.reserved_ip ?? got.reserved_ipv6).droplet.id).toBe(vm);
      const list = await ok('reserved-ip-list', { Type });
      expect((list.reserved_ips ?? list.reserved_ipv6s).map((r: Json) => r.ip)).toEqual([ip]);
      expect((await ok('reserved-ip-unassign', { IP: ip, Type })).action.type).toBe('unassign_ip');
      await fails('reserved-ip-unassign', { IP: ip, Type }, /not assigned/);
      expect(await ok('reserved-ip-release', { IP: ip, Type })).toEqual({ ok: true });
    }
    await fails('reserved-ip-release', { IP: '198.51.100.1', Type: 'ipv6' }, /Type/);

    const created = await ok('byoip-prefix-create', {
      Prefix: '192.0.2.0/24',
      Signature: 'sig',
      Region: 'nyc3',
    });
    expect(created).toMatchObject({ status: 'pending', region: 'nyc3' });
    await advance(3_000);
    expect((await ok('byoip-prefix-get', { UUID: created.uuid })).byoip_prefix.status).toBe('active');
    expect((await ok('byoip-prefix-list', {})).byoip_prefixes).toHaveLength(1);
    expect(await ok('byoip-prefix-resources-get', { UUID: created.uuid, Page: 1, PerPage: 5 })).toMatchObject(
      { ips: [] },
    );
    expect(await ok('byoip-prefix-delete', { UUID: created.uuid })).toEqual({ ok: true });
    await fails('byoip-prefix-create', { Prefix: 'nope', Signature: 'sig', Region: 'nyc3' }, /Prefix/);
  });

  // Called every networking tool: checked once all the tests above ran, in any order.
  // biome-ignore lint/correctness/noEmptyPattern: Vitest hands the suite second, after fixtures read from a pattern.
  afterAll(({}, suite) =>
    afterEveryTest(suite, () => expect([...NETWORKING].filter((name) => !called.has(name))).toEqual([])),
  );
});
