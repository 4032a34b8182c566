/**
 * The networking endpoints: referential rules, lifecycles derived from the sandbox clock, the
 * platform's errors (with no change to state), and every answer checked against the OpenAPI
 * response schema of its operation (plus its top-level key, since `{}` often passes a schema).
 * VMs come from a small fixture written straight into the world (the vms routes own creation).
 */

import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertValidResponse } from '@cloudcall/openapi-subset';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cidrsOverlap,
  ensureDefaultVpc,
  NETWORK_LIFECYCLE_MS,
  newVpc,
  type Vpc,
} from './families/networking.js';
import type { Droplet } from './families/vms.js';
import { type Sandbox, startSandbox } from './server.js';
import { readStateFile } from './store.js';
import { type CallOptions, callOperation, type Reply, steppingClock } from './testing/operations.js';
import { iso } from './time.js';
import { nextId, regionOf, type World } from './world.js';

const cert = JSON.parse(
  readFileSync(new URL('../test-fixtures/networking-certificate.json', import.meta.url), 'utf8'),
) as {
  privateKey: string;
  leafCertificate: string;
  certificateChain: string;
  dnsNames: string[];
  sha1: string;
};

let sandbox: Sandbox;
/** The sandbox's clock, and this file's for what it writes into the world directly: it moves with advanceClock, not with real time. */
const now = steppingClock();

beforeAll(async () => {
  sandbox = await startSandbox({ now });
});
afterAll(async () => {
  await sandbox.close();
});

async function http(method: string, path: string, json?: unknown): Promise<Reply> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${randomUUID()}`,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await response.text();
  return { status: response.status, text, body: text === '' ? undefined : JSON.parse(text) };
}

const call = (operationId: string, options?: CallOptions) => callOperation(sandbox.url, operationId, options);

function expectError(reply: Reply, status: number, mentions?: RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual({
    id: expect.any(String),
    message: expect.any(String),
    request_id: expect.any(String),
  });
  if (mentions) expect(reply.body.message).toMatch(mentions);
}

/** The networking part of the world, to show a failed request changed nothing. */
const networkingState = () =>
  sandbox.store.read((w: World) =>
    structuredClone({
      vpcs: w.vpcs,
      domains: w.domains,
      records: w.domainRecords,
      certificates: w.certificates,
      firewalls: w.firewalls,
      loadBalancers: w.loadBalancers,
      reservedIps: w.reservedIps,
      peerings: w.vpcPeerings,
      prefixes: w.byoipPrefixes,
      actions: w.actions.length,
    }),
  );

async function unchangedBy(request: () => Promise<Reply>, status: number, mentions: RegExp): Promise<void> {
  const before = await networkingState();
  expectError(await request(), status, mentions);
  expect(await networkingState()).toEqual(before);
}

/** A VM written straight into the world, as vm-create would leave it. */
function addDroplet(
  region: string,
  name: string,
  options: { tags?: string[]; vpc?: string } = {},
): Promise<number> {
  return sandbox.store.write((w) => {
    const id = nextId(w, 'droplet');
    const at = now() + w.clockOffsetMs;
    const regionObject = regionOf(w, region);
    if (!regionObject) throw new Error(`no region ${region}`);
    const size = w.sizes.find((s) => s.available) ?? w.sizes[0];
    w.droplets.push({
      id,
      name,
      memory: 1024,
      vcpus: 1,
      disk: 25,
      locked: false,
      status: 'active',
      created_at: iso(at),
      features: [],
      backup_ids: [],
      next_backup_window: null,
      snapshot_ids: [],
      image: w.images[0] as unknown as Droplet['image'],
      volume_ids: [],
      size: size!,
      size_slug: size?.slug ?? 's-1vcpu-1gb',
      networks: { v4: [], v6: [] },
      region: regionObject,
      tags: options.tags ?? [],
      vpc_uuid: options.vpc ?? ensureDefaultVpc(w, region, at).id,
    });
    return id;
  });
}

const removeDroplet = (id: number) =>
  sandbox.store.write((w) => {
    w.droplets = w.droplets.filter((d) => d.id !== id);
  });

describe('VPCs', () => {
  it('creates VPCs (the first of a region is its default), lists members, refuses overlaps and bad CIDRs', async () => {
    const first = await call('vpcs_create', {
      json: { name: 'prod-fra1', region: 'fra1', ip_range: '10.20.0.0/20' },
    });
    expect(first.status).toBe(201);
    expect(first.body.vpc).toMatchObject({
      name: 'prod-fra1',
      region: 'fra1',
      ip_range: '10.20.0.0/20',
      default: true,
    });
    expect(first.body.vpc.urn).toBe(`do:vpc:${first.body.vpc.id}`);
    const second = await call('vpcs_create', {
      json: { name: 'stage-fra1', region: 'fra1', ip_range: '10.30.0.0/24', description: 'staging' },
    });
    expect(second.body.vpc).toMatchObject({ default: false, description: 'staging' });
    const auto = await call('vpcs_create', { json: { name: 'auto-fra1', region: 'fra1' } });
    expect(auto.body.vpc.ip_range).toMatch(/^10\.\d+\.\d+\.0\/20$/);

    await unchangedBy(
      () => call('vpcs_create', { json: { name: 'clash', region: 'fra1', ip_range: '10.20.8.0/24' } }),
      422,
      /ip_range.*overlaps.*prod-fra1/,
    );
    await unchangedBy(
      () => call('vpcs_create', { json: { name: 'bad', region: 'fra1', ip_range: '10.20.0.0/33' } }),
      422,
      /ip_range/,
    );
    await unchangedBy(
      () => call('vpcs_create', { json: { name: 'bad', region: 'fra1', ip_range: '10.40.0.5/24' } }),
      422,
      /network address/,
    );
    await unchangedBy(
      () => call('vpcs_create', { json: { name: 'public', region: 'fra1', ip_range: '8.8.0.0/16' } }),
      422,
      /private range/,
    );
    await unchangedBy(
      () => call('vpcs_create', { json: { name: 'nowhere', region: 'xyz9' } }),
      422,
      /region/,
    );
    // Nor in another region: ranges cannot overlap within the account.
    await unchangedBy(
      () => call('vpcs_create', { json: { name: 'prod-ams3', region: 'ams3', ip_range: '10.20.0.0/20' } }),
      422,
      /ip_range.*overlaps.*prod-fra1.*fra1/,
    );

    const vm = await addDroplet('fra1', 'web-1', { vpc: second.body.vpc.id });
    const members = await call('vpcs_list_members', { params: { vpc_id: second.body.vpc.id } });
    expect(members.body.members).toEqual([
      { urn: `do:droplet:${vm}`, name: 'web-1', created_at: expect.any(String) },
    ]);
    expect(members.body.meta.total).toBe(1);

    // 403, as the platform answers (Terraform's provider retries the delete on it while members go).
    await unchangedBy(() => call('vpcs_delete', { params: { vpc_id: second.body.vpc.id } }), 403, /members/);
    await unchangedBy(() => call('vpcs_delete', { params: { vpc_id: first.body.vpc.id } }), 403, /default/);
    await removeDroplet(vm);
    expect((await call('vpcs_delete', { params: { vpc_id: second.body.vpc.id } })).status).toBe(204);
    expectError(await call('vpcs_get', { params: { vpc_id: second.body.vpc.id } }), 404);

    const got = await call('vpcs_get', { params: { vpc_id: first.body.vpc.id } });
    expect(got.body.vpc).toEqual(first.body.vpc);
    const list = await call('vpcs_list', { query: '?per_page=1' });
    expect(list.body.vpcs).toHaveLength(1);
    expect(list.body.links.pages.next).toContain('page=2');
  });

  it('updates a VPC: PUT replaces name and description, PATCH changes what it names, default moves', async () => {
    const home = (await call('vpcs_create', { json: { name: 'upd-home', region: 'atl1' } })).body.vpc;
    const next = (
      await call('vpcs_create', { json: { name: 'upd-next', region: 'atl1', description: 'second' } })
    ).body.vpc;
    expect([home.default, next.default]).toEqual([true, false]);
    const params = { vpc_id: next.id };

    const put = await call('vpcs_update', { params, json: { name: 'upd-next-2' } });
    expect(put.status).toBe(200);
    // PUT replaces: the description not given is emptied.
    expect(put.body.vpc).toEqual({ ...next, name: 'upd-next-2', description: '' });
    await unchangedBy(() => call('vpcs_update', { params, json: { description: 'x' } }), 422, /name/);

    const patched = await call('vpcs_patch', { params, json: { description: 'patched' } });
    expect(patched.status).toBe(200);
    expect(patched.body.vpc).toEqual({ ...next, name: 'upd-next-2', description: 'patched' });
    await unchangedBy(() => call('vpcs_patch', { params, json: { name: 'upd-home' } }), 422, /in use/);
    await unchangedBy(() => call('vpcs_patch', { params, json: { name: 'bad name!' } }), 422, /name/);
    await unchangedBy(
      () => call('vpcs_patch', { params: { vpc_id: home.id }, json: { default: false } }),
      422,
      /default/,
    );
    await unchangedBy(() => call('vpcs_patch', { params, json: { default: 'yes' } }), 422, /boolean/);
    expectError(await call('vpcs_patch', { params: { vpc_id: randomUUID() }, json: { name: 'x' } }), 404);

    // Making a VPC the default takes the role from the region's previous one, which can then go.
    const promoted = await call('vpcs_patch', { params, json: { default: true } });
    expect(promoted.body.vpc.default).toBe(true);
    expect((await call('vpcs_get', { params: { vpc_id: home.id } })).body.vpc.default).toBe(false);
    expect((await call('vpcs_delete', { params: { vpc_id: home.id } })).status).toBe(204);
    await unchangedBy(() => call('vpcs_delete', { params }), 403, /default/);
  });
});

/** Creates a VM in `region` (in its default VPC) and gives that VPC's id. */
async function vmVpcIn(url: string, region: string): Promise<string> {
  const created = await callOperation(url, 'droplets_create', {
    json: { name: `in-${region}`, region, size: 's-1vcpu-1gb', image: 'ubuntu-24-04-x64' },
  });
  expect(created.status, created.text).toBe(202);
  return created.body.droplet.vpc_uuid as string;
}

describe('VPC ranges across regions', () => {
  it("gives each region's default VPC a range of its own, so that any two can be peered", async () => {
    const own = await startSandbox();
    try {
      const vm = (region: string) => vmVpcIn(own.url, region);
      const [nyc3, lon1, fra1] = [await vm('nyc3'), await vm('lon1'), await vm('fra1')];
      const vpcs = (await callOperation(own.url, 'vpcs_list')).body.vpcs as Vpc[];
      const ranges = [nyc3, lon1, fra1].map((id) => vpcs.find((v) => v.id === id)?.ip_range);
      expect(new Set(ranges).size).toBe(3);
      for (const [i, a] of ranges.entries()) {
        for (const b of ranges.slice(i + 1)) expect(cidrsOverlap(a as string, b as string)).toBe(false);
      }
      const peered = await callOperation(own.url, 'vpcPeerings_create', {
        json: { name: 'nyc3-lon1', vpc_ids: [nyc3, lon1] },
      });
      expect(peered.status, peered.text).toBe(202);
    } finally {
      await own.close();
    }
  });
});

describe('upgrading a state file saved before VPC ranges were kept apart', () => {
  it('re-ranges overlapping default VPCs nothing depends on, and never one with members', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudcall-vpc-upgrade-'));
    const path = join(dir, 'sandbox.json');
    const own = await startSandbox({ statePath: path });
    let ids: Record<string, string>;
    try {
      const vm = (region: string) => vmVpcIn(own.url, region);
      const empty = async (region: string) => {
        const created = await callOperation(own.url, 'vpcs_create', {
          json: { name: `d-${region}`, region },
        });
        expect(created.body.vpc.default).toBe(true);
        return created.body.vpc.id as string;
      };
      ids = {
        nyc3: await vm('nyc3'),
        lon1: await empty('lon1'),
        sfo3: await vm('sfo3'),
        fra1: await empty('fra1'),
      };
    } finally {
      await own.close();
    }
    // What an older sandbox saved: every default VPC on 10.100.0.0/20.
    const saved = readStateFile(path) as { vpcs: Vpc[] };
    for (const vpc of saved.vpcs) if (vpc.default) vpc.ip_range = '10.100.0.0/20';
    writeFileSync(path, JSON.stringify(saved));

    const reopened = await startSandbox({ statePath: path });
    try {
      const vpcs = (await callOperation(reopened.url, 'vpcs_list')).body.vpcs as Vpc[];
      const range = (region: string) => vpcs.find((v) => v.id === ids[region])?.ip_range as string;
      // The VMs' VPCs keep the range their private addresses came from, overlap or not.
      expect(range('nyc3')).toBe('10.100.0.0/20');
      expect(range('sfo3')).toBe('10.100.0.0/20');
      // The empty defaults move apart from everything.
      for (const moved of ['lon1', 'fra1']) {
        for (const other of ['nyc3', 'lon1', 'sfo3', 'fra1'].filter((r) => r !== moved)) {
          expect(cidrsOverlap(range(moved), range(other)), `${moved} vs ${other}`).toBe(false);
        }
      }
      const peered = await callOperation(reopened.url, 'vpcPeerings_create', {
        json: { name: 'nyc3-lon1', vpc_ids: [ids.nyc3, ids.lon1] },
      });
      expect(peered.status, peered.text).toBe(202);
      // Written back once, then stable: the file now holds the new ranges.
      const after = (readStateFile(path) as { vpcs: Vpc[] }).vpcs;
      expect(after.find((v) => v.id === ids.lon1)?.ip_range).toBe(range('lon1'));
    } finally {
      await reopened.close();
    }
  });
});

describe('VPC peerings', () => {
  it('joins two existing VPCs: PROVISIONING, then ACTIVE; refuses unknown and overlapping VPCs', async () => {
    const a = (
      await call('vpcs_create', { json: { name: 'peer-a', region: 'sgp1', ip_range: '10.50.0.0/20' } })
    ).body.vpc;
    const b = (
      await call('vpcs_create', { json: { name: 'peer-b', region: 'blr1', ip_range: '10.60.0.0/20' } })
    ).body.vpc;
    // The API refuses an overlapping range in any region; a world from before that rule may hold one.
    const c = await sandbox.store.write((w) => {
      const vpc = newVpc(w, {
        name: 'peer-c',
        description: '',
        region: 'syd1',
        ip_range: '10.50.0.0/24',
        now: now(),
      });
      w.vpcs.push(vpc);
      return vpc;
    });

    await unchangedBy(
      () => call('vpcPeerings_create', { json: { name: 'ghost', vpc_ids: [a.id, randomUUID()] } }),
      422,
      /vpc_ids.*does not exist/,
    );
    await unchangedBy(
      () => call('vpcPeerings_create', { json: { name: 'overlap', vpc_ids: [a.id, c.id] } }),
      422,
      /overlap/,
    );

    const created = await call('vpcPeerings_create', { json: { name: 'a-to-b', vpc_ids: [a.id, b.id] } });
    expect(created.status).toBe(202);
    expect(created.body.vpc_peering).toMatchObject({
      name: 'a-to-b',
      vpc_ids: [a.id, b.id],
      status: 'PROVISIONING',
    });
    const id = created.body.vpc_peering.id;
    await unchangedBy(
      () => call('vpcPeerings_create', { json: { name: 'again', vpc_ids: [b.id, a.id] } }),
      422,
      /already peered/,
    );
    await sandbox.advanceClock(NETWORK_LIFECYCLE_MS);
    expect((await call('vpcPeerings_get', { params: { vpc_peering_id: id } })).body.vpc_peering.status).toBe(
      'ACTIVE',
    );
    expect((await call('vpcPeerings_list')).body.vpc_peerings.map((p: { id: string }) => p.id)).toContain(id);
    await unchangedBy(() => call('vpcs_delete', { params: { vpc_id: b.id } }), 422, /peer/);

    const deleted = await call('vpcPeerings_delete', { params: { vpc_peering_id: id } });
    expect(deleted.status).toBe(202);
    expect(deleted.body.vpc_peering).toMatchObject({ id, status: 'DELETING' });
    expectError(await call('vpcPeerings_get', { params: { vpc_peering_id: id } }), 404);
  });
});

describe('domains and records', () => {
  it('creates a domain with its SOA, NS and A records, and records of every type', async () => {
    const created = await call('domains_create', { json: { name: 'example.com', ip_address: '192.0.2.10' } });
    expect(created.status).toBe(201);
    expect(created.body.domain).toMatchObject({ name: 'example.com', ttl: 1800 });
    await unchangedBy(() => call('domains_create', { json: { name: 'example.com' } }), 422, /name.*in use/);
    await unchangedBy(() => call('domains_create', { json: { name: 'not a domain' } }), 422, /name/);

    const initial = await call('domains_list_records', { params: { domain_name: 'example.com' } });
    expect(initial.body.domain_records.map((r: { type: string }) => r.type).sort()).toEqual([
      'A',
      'NS',
      'NS',
      'NS',
      'SOA',
    ]);
    expect(initial.body.domain_records.find((r: { type: string }) => r.type === 'A')).toMatchObject({
      name: '@',
      data: '192.0.2.10',
    });

    const bodies = [
      { type: 'A', name: 'www', data: '192.0.2.11' },
      { type: 'AAAA', name: 'www', data: '2001:db8::11' },
      { type: 'CNAME', name: 'shop', data: 'www.example.com.' },
      { type: 'TXT', name: '@', data: 'v=spf1 -all' },
      { type: 'MX', name: '@', data: 'mail.example.com.', priority: 10 },
      { type: 'SRV', name: '_sip._tcp', data: 'sip.example.com.', priority: 10, weight: 5, port: 5060 },
      { type: 'CAA', name: '@', data: 'letsencrypt.org', flags: 0, tag: 'issue' },
      { type: 'NS', name: 'sub', data: 'ns1.other.example.' },
    ];
    const ids: number[] = [];
    for (const body of bodies) {
      const reply = await call('domains_create_record', {
        params: { domain_name: 'example.com' },
        json: body,
      });
      expect(reply.status, reply.text).toBe(201);
      expect(reply.body.domain_record).toMatchObject({ ...body, id: expect.any(Number), ttl: 1800 });
      ids.push(reply.body.domain_record.id);
    }
    const zone = (await call('domains_get', { params: { domain_name: 'example.com' } })).body.domain
      .zone_file;
    expect(zone).toContain('_sip._tcp IN SRV 10 5 5060 sip.example.com.');
    expect(zone).toContain('@ IN MX 10 mail.example.com.');

    const bad = [
      [{ type: 'A', name: 'x', data: '2001:db8::1' }, /data.*IPv4/],
      [{ type: 'MX', name: '@', data: 'mail.example.com.' }, /priority/],
      [{ type: 'SRV', name: '_x._tcp', data: 'x.example.com.', priority: 1 }, /port/],
      [{ type: 'PTR', name: 'x', data: 'x.' }, /type/],
      [{ type: 'CNAME', name: 'www', data: 'elsewhere.example.' }, /CNAME/],
    ] as const;
    for (const [body, message] of bad) {
      await unchangedBy(
        () => call('domains_create_record', { params: { domain_name: 'example.com' }, json: body }),
        422,
        message,
      );
    }
    expectError(
      await call('domains_create_record', { params: { domain_name: 'nope.example' }, json: bodies[0] }),
      404,
    );

    const edited = await call('domains_update_record', {
      params: { domain_name: 'example.com', domain_record_id: ids[0] as number },
      json: { type: 'CNAME', name: 'web', data: 'shop.example.com.' },
    });
    expect(edited.body.domain_record).toMatchObject({
      id: ids[0],
      type: 'CNAME',
      name: 'web',
      data: 'shop.example.com.',
    });
    const got = await call('domains_get_record', {
      params: { domain_name: 'example.com', domain_record_id: ids[0] as number },
    });
    expect(got.body.domain_record).toEqual(edited.body.domain_record);

    expect(
      (
        await call('domains_delete_record', {
          params: { domain_name: 'example.com', domain_record_id: ids[1] as number },
        })
      ).status,
    ).toBe(204);
    expectError(
      await call('domains_get_record', {
        params: { domain_name: 'example.com', domain_record_id: ids[1] as number },
      }),
      404,
    );

    const list = await call('domains_list');
    expect(list.body.domains.map((d: { name: string }) => d.name)).toContain('example.com');
  });

  it('PATCH on a record changes the fields given and keeps the others, checked as PUT checks', async () => {
    await call('domains_create', { json: { name: 'patch.example' } });
    const params = (id: number) => ({ domain_name: 'patch.example', domain_record_id: id });
    const add = async (json: Record<string, unknown>) => {
      const reply = await call('domains_create_record', { params: { domain_name: 'patch.example' }, json });
      expect(reply.status, reply.text).toBe(201);
      return reply.body.domain_record;
    };
    const patch = (id: number, json: Record<string, unknown>) =>
      call('domains_patch_record', { params: params(id), json });
    const mx = await add({ type: 'MX', name: '@', data: 'mail.patch.example.', priority: 10, ttl: 600 });

    // One field: the others stay, ttl and priority included (PUT would reset what it is not given).
    const moved = await patch(mx.id, { data: 'mx2.patch.example.' });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.domain_record).toEqual({ ...mx, data: 'mx2.patch.example.' });
    const ttl = await patch(mx.id, { ttl: 3600, priority: 20 });
    expect(ttl.body.domain_record).toEqual({ ...mx, data: 'mx2.patch.example.', ttl: 3600, priority: 20 });
    // null is not given (clients that send every field); an empty body changes nothing.
    const nulls = await patch(mx.id, { type: null, name: null, data: null, priority: null, ttl: null });
    expect(nulls.body.domain_record).toEqual(ttl.body.domain_record);
    expect((await patch(mx.id, {})).body.domain_record).toEqual(ttl.body.domain_record);
    const got = await call('domains_get_record', { params: params(mx.id) });
    expect(got.body.domain_record).toEqual(ttl.body.domain_record);

    // The merged record is checked as a new one: a type change needs data of that type, and an
    // SRV its port and weight; a CNAME cannot share a name; SOA is not edited; unknown is a 404.
    const a = await add({ type: 'A', name: 'www', data: '192.0.2.20' });
    await unchangedBy(() => patch(a.id, { type: 'AAAA' }), 422, /IPv6/);
    await unchangedBy(() => patch(mx.id, { type: 'SRV', name: '_sip._tcp' }), 422, /port/);
    await unchangedBy(() => patch(mx.id, { priority: 70_000 }), 422, /priority/);
    await add({ type: 'TXT', name: 'www', data: 'hello' });
    await unchangedBy(() => patch(a.id, { type: 'CNAME', data: 'elsewhere.example.' }), 422, /CNAME/);
    const records = await call('domains_list_records', { params: { domain_name: 'patch.example' } });
    const soa = records.body.domain_records.find((r: { type: string }) => r.type === 'SOA');
    await unchangedBy(() => patch(soa.id, { ttl: 60 }), 422, /SOA/);
    expectError(await patch(999_999_999, { ttl: 60 }), 404);
    // A valid type change: the fields given, the rest kept (name), the ones of the old type dropped.
    const aaaa = await patch(a.id, { type: 'AAAA', data: '2001:db8::20' });
    expect(aaaa.body.domain_record).toEqual({ ...a, type: 'AAAA', data: '2001:db8::20' });
    const srv = await patch(mx.id, { type: 'SRV', name: '_sip._tcp', port: 5060, weight: 5 });
    expect(srv.body.domain_record).toMatchObject({
      type: 'SRV',
      priority: 20,
      port: 5060,
      weight: 5,
      ttl: 3600,
    });
  });

  it('deletes a domain with its records', async () => {
    await call('domains_create', { json: { name: 'gone.example' } });
    expect((await call('domains_delete', { params: { domain_name: 'gone.example' } })).status).toBe(204);
    expectError(await call('domains_get', { params: { domain_name: 'gone.example' } }), 404);
    expect(
      await sandbox.store.read((w) => w.domainRecords.filter((r) => r.domain === 'gone.example')),
    ).toEqual([]);
  });
});

describe('certificates', () => {
  it('parses an uploaded PEM certificate and never echoes its private key', async () => {
    const created = await call('certificates_create', {
      json: {
        name: 'shop-cert',
        type: 'custom',
        private_key: cert.privateKey,
        leaf_certificate: cert.leafCertificate,
        certificate_chain: cert.certificateChain,
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.certificate).toMatchObject({
      name: 'shop-cert',
      type: 'custom',
      state: 'verified',
      dns_names: cert.dnsNames,
      sha1_fingerprint: cert.sha1,
    });
    expect(created.text).not.toContain('PRIVATE KEY');
    const id = created.body.certificate.id;
    const got = await call('certificates_get', { params: { certificate_id: id } });
    expect(got.body.certificate).toEqual(created.body.certificate);
    expect(got.text).not.toContain('PRIVATE');
    expect((await call('certificates_list')).text).not.toContain('PRIVATE');

    const keyBody = cert.privateKey.split('\n')[1] as string;
    const broken = cert.privateKey.replace(keyBody, `${keyBody.slice(0, 20)}!!!${keyBody.slice(23)}`);
    const before = await networkingState();
    const reply = await call('certificates_create', {
      json: { name: 'broken', type: 'custom', private_key: broken, leaf_certificate: cert.leafCertificate },
    });
    expectError(reply, 422, /private_key/);
    expect(reply.text).not.toContain(keyBody.slice(0, 16));
    expect(await networkingState()).toEqual(before);
    await unchangedBy(
      () =>
        call('certificates_create', {
          json: { name: 'x', type: 'custom', private_key: cert.privateKey, leaf_certificate: 'not pem' },
        }),
      422,
      /leaf_certificate/,
    );
    await unchangedBy(
      () =>
        call('certificates_create', {
          json: {
            name: 'x',
            type: 'custom',
            private_key: cert.privateKey,
            leaf_certificate: cert.certificateChain,
          },
        }),
      422,
      /does not match/,
    );

    expect((await call('certificates_delete', { params: { certificate_id: id } })).status).toBe(204);
    expectError(await call('certificates_get', { params: { certificate_id: id } }), 404);
  });

  it('issues ACME certificates (wildcards allowed) for managed domains: pending, then verified', async () => {
    await call('domains_create', { json: { name: 'acme.example' } });
    const created = await call('certificates_create', {
      json: { name: 'acme-cert', type: 'lets_encrypt', dns_names: ['acme.example', '*.acme.example'] },
    });
    expect(created.status).toBe(201);
    expect(created.body.certificate).toMatchObject({
      type: 'lets_encrypt',
      state: 'pending',
      dns_names: ['acme.example', '*.acme.example'],
    });
    await sandbox.advanceClock(NETWORK_LIFECYCLE_MS);
    const got = await call('certificates_get', { params: { certificate_id: created.body.certificate.id } });
    expect(got.body.certificate.state).toBe('verified');
    await unchangedBy(
      () =>
        call('certificates_create', {
          json: { name: 'other', type: 'lets_encrypt', dns_names: ['unmanaged.example'] },
        }),
      422,
      /dns_names.*unmanaged\.example/,
    );
  });
});

describe('firewalls', () => {
  const inbound = { protocol: 'tcp', ports: '22', sources: { addresses: ['0.0.0.0/0', '::/0'] } };
  const outbound = { protocol: 'tcp', ports: 'all', destinations: { addresses: ['0.0.0.0/0'] } };

  it('creates, changes and lists firewalls; VMs that are deleted drop out', async () => {
    const vm1 = await addDroplet('nyc3', 'fw-vm-1');
    const vm2 = await addDroplet('nyc3', 'fw-vm-2');
    await unchangedBy(
      () =>
        call('firewalls_create', { json: { name: 'fw', inbound_rules: [inbound], droplet_ids: [vm1, 999] } }),
      422,
      /droplet_ids: droplet 999 does not exist/,
    );
    await unchangedBy(
      () =>
        call('firewalls_create', { json: { name: 'fw', inbound_rules: [{ ...inbound, ports: '70000' }] } }),
      422,
      /inbound_rules\[0\]\.ports/,
    );
    await unchangedBy(
      () =>
        call('firewalls_create', {
          json: { name: 'fw', inbound_rules: [{ ...inbound, sources: { addresses: ['999.1.1.1'] } }] },
        }),
      422,
      /sources\.addresses/,
    );

    const created = await call('firewalls_create', {
      json: {
        name: 'web-fw',
        inbound_rules: [inbound],
        outbound_rules: [outbound],
        droplet_ids: [vm1],
        tags: ['web'],
      },
    });
    expect(created.status).toBe(202);
    expect(created.body.firewall).toMatchObject({
      name: 'web-fw',
      status: 'waiting',
      inbound_rules: [inbound],
      outbound_rules: [outbound],
      droplet_ids: [vm1],
      tags: ['web'],
    });
    const id = created.body.firewall.id;
    const params = { firewall_id: id };
    await sandbox.advanceClock(NETWORK_LIFECYCLE_MS);
    expect((await call('firewalls_get', { params })).body.firewall.status).toBe('succeeded');

    expect((await call('firewalls_add_tags', { params, json: { tags: ['api'] } })).status).toBe(204);
    expect((await call('firewalls_delete_tags', { params, json: { tags: ['web'] } })).status).toBe(204);
    expect((await call('firewalls_assign_droplets', { params, json: { droplet_ids: [vm2] } })).status).toBe(
      204,
    );
    const http = { protocol: 'tcp', ports: '80', sources: { addresses: ['0.0.0.0/0'] } };
    expect((await call('firewalls_add_rules', { params, json: { inbound_rules: [http] } })).status).toBe(204);
    let fw = (await call('firewalls_get', { params })).body.firewall;
    expect(fw).toMatchObject({ tags: ['api'], droplet_ids: [vm1, vm2], inbound_rules: [inbound, http] });

    await unchangedBy(
      () => call('firewalls_delete_rules', { params, json: { inbound_rules: [{ ...http, ports: '81' }] } }),
      422,
      /inbound_rules\[0\] does not match/,
    );
    await unchangedBy(
      () =>
        call('firewalls_add_rules', { params, json: { inbound_rules: [{ protocol: 'gre', ports: '1' }] } }),
      422,
      /protocol/,
    );
    expect(
      (await call('firewalls_delete_rules', { params, json: { inbound_rules: [inbound] } })).status,
    ).toBe(204);
    expect((await call('firewalls_delete_droplets', { params, json: { droplet_ids: [vm1] } })).status).toBe(
      204,
    );
    await removeDroplet(vm2);
    fw = (await call('firewalls_get', { params })).body.firewall;
    expect(fw.inbound_rules).toEqual([http]);
    expect(fw.droplet_ids).toEqual([]);

    expect((await call('firewalls_list')).body.firewalls.map((f: { id: string }) => f.id)).toContain(id);
    expect((await call('firewalls_delete', { params })).status).toBe(204);
    expectError(await call('firewalls_get', { params }), 404);
  });

  it('replaces a firewall whole with PUT, and refuses a bad update without changing it', async () => {
    const vm = await addDroplet('nyc3', 'fw-put-vm');
    const created = await call('firewalls_create', {
      json: { name: 'fw-put', inbound_rules: [inbound], outbound_rules: [outbound], tags: ['old'] },
    });
    const params = { firewall_id: created.body.firewall.id };
    const web = { protocol: 'tcp', ports: '443', sources: { tags: ['web'] } };
    const put = await call('firewalls_update', {
      params,
      json: { name: 'fw-put-2', inbound_rules: [web], droplet_ids: [vm] },
    });
    expect(put.status).toBe(200);
    // What the body leaves out is gone: the outbound rules and the tags.
    expect(put.body.firewall).toMatchObject({
      id: params.firewall_id,
      name: 'fw-put-2',
      inbound_rules: [web],
      outbound_rules: [],
      droplet_ids: [vm],
      tags: [],
      status: 'waiting',
    });
    expect((await call('firewalls_get', { params })).body.firewall).toEqual(put.body.firewall);

    await unchangedBy(() => call('firewalls_update', { params, json: { name: 'fw-put-3' } }), 422, /rules/);
    await unchangedBy(
      () => call('firewalls_update', { params, json: { inbound_rules: [inbound] } }),
      422,
      /name/,
    );
    await unchangedBy(
      () =>
        call('firewalls_update', {
          params,
          json: { name: 'fw-put-3', inbound_rules: [inbound], droplet_ids: [424242] },
        }),
      422,
      /droplet_ids: droplet 424242 does not exist/,
    );
    expectError(
      await call('firewalls_update', {
        params: { firewall_id: randomUUID() },
        json: { name: 'x', inbound_rules: [inbound] },
      }),
      404,
    );
  });
});

describe('load balancers', () => {
  const rule = { entry_protocol: 'http', entry_port: 80, target_protocol: 'http', target_port: 8080 };

  it('creates a REGIONAL balancer: new without an IP, then active with one; joins the region VPC', async () => {
    const vm1 = await addDroplet('lon1', 'lb-vm-1');
    const vm2 = await addDroplet('lon1', 'lb-vm-2');
    const elsewhere = await addDroplet('tor1', 'lb-vm-far');
    await unchangedBy(
      () =>
        call('loadBalancers_create', {
          json: { name: 'lb', region: 'lon1', forwarding_rules: [rule], droplet_ids: [elsewhere] },
        }),
      422,
      /droplet_ids: droplet \d+ is in tor1/,
    );
    await unchangedBy(
      () => call('loadBalancers_create', { json: { name: 'lb', forwarding_rules: [rule] } }),
      422,
      /region/,
    );
    await unchangedBy(
      () =>
        call('loadBalancers_create', {
          json: { name: 'lb', region: 'lon1', droplet_ids: [vm1], forwarding_rules: [] },
        }),
      422,
      /forwarding_rules/,
    );
    await unchangedBy(
      () =>
        call('loadBalancers_create', {
          json: {
            name: 'lb',
            type: 'REGIONAL_NETWORK',
            region: 'lon1',
            droplet_ids: [vm1],
            forwarding_rules: [rule],
          },
        }),
      422,
      /REGIONAL_NETWORK.*tcp and udp/,
    );
    await unchangedBy(
      () =>
        call('loadBalancers_create', {
          json: {
            name: 'lb',
            region: 'lon1',
            droplet_ids: [vm1],
            forwarding_rules: [rule],
            glb_settings: { target_protocol: 'http', target_port: 80 },
          },
        }),
      422,
      /glb_settings.*GLOBAL/,
    );

    const created = await call('loadBalancers_create', {
      json: { name: 'web-lb', region: 'lon1', forwarding_rules: [rule], droplet_ids: [vm1, vm2] },
    });
    expect(created.status).toBe(202);
    const lb = created.body.load_balancer;
    expect(lb).toMatchObject({
      name: 'web-lb',
      status: 'new',
      ip: '',
      type: 'REGIONAL',
      droplet_ids: [vm1, vm2],
    });
    expect(lb.region.slug).toBe('lon1');
    const params = { lb_id: lb.id };
    await sandbox.advanceClock(NETWORK_LIFECYCLE_MS);
    const active = (await call('loadBalancers_get', { params })).body.load_balancer;
    expect(active.status).toBe('active');
    expect(active.ip).toMatch(/^203\.0\.113\.\d+$/);
    const members = await call('vpcs_list_members', { params: { vpc_id: active.vpc_uuid } });
    expect(members.body.members.map((m: { urn: string }) => m.urn)).toContain(`do:loadbalancer:${lb.id}`);

    const https = {
      entry_protocol: 'https',
      entry_port: 443,
      target_protocol: 'http',
      target_port: 8080,
      tls_passthrough: false,
    };
    expect(
      (await call('loadBalancers_add_forwardingRules', { params, json: { forwarding_rules: [https] } }))
        .status,
    ).toBe(204);
    await unchangedBy(
      () =>
        call('loadBalancers_add_forwardingRules', {
          params,
          json: { forwarding_rules: [{ ...rule, target_port: 9000 }] },
        }),
      422,
      /entry port 80/,
    );
    expect(
      (await call('loadBalancers_remove_forwardingRules', { params, json: { forwarding_rules: [rule] } }))
        .status,
    ).toBe(204);
    await unchangedBy(
      () => call('loadBalancers_remove_forwardingRules', { params, json: { forwarding_rules: [https] } }),
      422,
      /at least one/,
    );
    expect(
      (await call('loadBalancers_remove_droplets', { params, json: { droplet_ids: [vm2] } })).status,
    ).toBe(204);
    await removeDroplet(vm1);
    let got = (await call('loadBalancers_get', { params })).body.load_balancer;
    expect(got.forwarding_rules).toEqual([https]);
    expect(got.droplet_ids).toEqual([]);
    expect((await call('loadBalancers_add_droplets', { params, json: { droplet_ids: [vm2] } })).status).toBe(
      204,
    );
    await unchangedBy(
      () => call('loadBalancers_add_droplets', { params, json: { droplet_ids: [elsewhere] } }),
      422,
      /tor1/,
    );

    // Update is a full replacement: droplets not given are dropped; the type cannot change.
    const updated = await call('loadBalancers_update', {
      params,
      json: { name: 'web-lb-2', type: 'REGIONAL', region: 'lon1', forwarding_rules: [rule], size_unit: 2 },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.load_balancer).toMatchObject({
      name: 'web-lb-2',
      size_unit: 2,
      droplet_ids: [],
      forwarding_rules: [rule],
    });
    await unchangedBy(
      () =>
        call('loadBalancers_update', {
          params,
          json: { name: 'x', type: 'GLOBAL', glb_settings: { target_protocol: 'http', target_port: 80 } },
        }),
      422,
      /type cannot change/,
    );
    await unchangedBy(() => call('loadBalancers_delete_cache', { params }), 422, /GLOBAL/);

    const global = await http('POST', '/v2/load_balancers', {
      name: 'edge',
      type: 'GLOBAL',
      glb_settings: { target_protocol: 'http', target_port: 80, cdn: { is_enabled: true } },
      target_load_balancer_ids: [lb.id],
    });
    // GLOBAL without a region: the platform's API description requires `region` in both branches of
    // its create schema, so this body is checked against the response schema only.
    assertValidResponse('loadBalancers_create', global.status, global.body);
    expect(global.status, global.text).toBe(202);
    expect(global.body.load_balancer).toMatchObject({ type: 'GLOBAL', target_load_balancer_ids: [lb.id] });
    expect(global.body.load_balancer.region).toBeUndefined();
    await unchangedBy(
      () => call('loadBalancers_create', { json: { name: 'edge2', type: 'GLOBAL' } }),
      422,
      /glb_settings.*required/,
    );
    const gid = { lb_id: global.body.load_balancer.id };
    expect((await call('loadBalancers_delete_cache', { params: gid })).status).toBe(204);
    await unchangedBy(() => call('loadBalancers_delete', { params }), 422, /target of global/);
    expect((await call('loadBalancers_delete', { params: gid })).status).toBe(204);

    got = (await call('loadBalancers_list')).body;
    // Other tests' balancers may be listed too (the suite runs shuffled in CI): this one stays, the
    // global one is gone.
    const ids = got.load_balancers.map((l: { id: string }) => l.id);
    expect(ids).toContain(lb.id);
    expect(ids).not.toContain(gid.lb_id);
    expect((await call('loadBalancers_delete', { params })).status).toBe(204);
    expectError(await call('loadBalancers_get', { params }), 404);
  });

  it('accepts an empty droplet_ids (the API description asks for droplet_ids or tag)', async () => {
    const created = await call('loadBalancers_create', {
      json: { name: 'empty-lb', region: 'sfo3', forwarding_rules: [rule], droplet_ids: [] },
    });
    expect(created.status).toBe(202);
    expect(created.body.load_balancer.droplet_ids).toEqual([]);
    expect(
      (await call('loadBalancers_delete', { params: { lb_id: created.body.load_balancer.id } })).status,
    ).toBe(204);
    await unchangedBy(
      () =>
        call('loadBalancers_add_droplets', {
          params: { lb_id: created.body.load_balancer.id },
          json: { droplet_ids: [] },
        }),
      404,
      /could not be found/,
    );
  });

  it('balances over a tag', async () => {
    const vm = await addDroplet('sfo3', 'tagged', { tags: ['api'] });
    const created = await call('loadBalancers_create', {
      json: {
        name: 'tag-lb',
        region: 'sfo3',
        forwarding_rules: [{ ...rule, entry_protocol: 'tcp', target_protocol: 'tcp' }],
        tag: 'api',
        type: 'REGIONAL_NETWORK',
      },
    });
    expect(created.body.load_balancer).toMatchObject({
      tag: 'api',
      droplet_ids: [vm],
      type: 'REGIONAL_NETWORK',
    });
    await unchangedBy(
      () =>
        call('loadBalancers_add_droplets', {
          params: { lb_id: created.body.load_balancer.id },
          json: { droplet_ids: [vm] },
        }),
      422,
      /tag/,
    );
  });

  it("keeps algorithm, size, and the rules' certificate and TLS passthrough, on create and update", async () => {
    const certificate = (
      await call('certificates_create', {
        json: {
          name: 'lb-cert',
          type: 'custom',
          private_key: cert.privateKey,
          leaf_certificate: cert.leafCertificate,
          certificate_chain: cert.certificateChain,
        },
      })
    ).body.certificate.id;
    const https = { entry_protocol: 'https', entry_port: 443, target_protocol: 'http', target_port: 80 };
    const passthrough = { ...https, entry_port: 8443, target_protocol: 'https', tls_passthrough: true };
    const rules = [{ ...https, certificate_id: certificate }, passthrough];

    const plain = await call('loadBalancers_create', {
      json: { name: 'lb-plain', region: 'ams3', forwarding_rules: [rule] },
    });
    expect(plain.body.load_balancer).toMatchObject({ algorithm: 'round_robin', size_unit: 1 });
    expect(plain.body.load_balancer.size).toBeUndefined();

    const created = await call('loadBalancers_create', {
      json: {
        name: 'lb-tls',
        region: 'ams3',
        algorithm: 'least_connections',
        size: 'lb-medium',
        forwarding_rules: rules,
      },
    });
    expect(created.status).toBe(202);
    expect(created.body.load_balancer).toMatchObject({
      algorithm: 'least_connections',
      size: 'lb-medium',
      size_unit: 3,
      forwarding_rules: rules,
    });
    const params = { lb_id: created.body.load_balancer.id };
    expect((await call('loadBalancers_get', { params })).body.load_balancer.forwarding_rules).toEqual(rules);

    // An update that leaves them out keeps them; one that names them changes them.
    const kept = await call('loadBalancers_update', {
      params,
      json: { name: 'lb-tls', region: 'ams3', forwarding_rules: rules },
    });
    expect(kept.body.load_balancer).toMatchObject({ algorithm: 'least_connections', size: 'lb-medium' });
    const changed = await call('loadBalancers_update', {
      params,
      json: {
        name: 'lb-tls',
        region: 'ams3',
        algorithm: 'round_robin',
        size_unit: 2,
        forwarding_rules: [passthrough],
      },
    });
    expect(changed.body.load_balancer).toMatchObject({
      algorithm: 'round_robin',
      size_unit: 2,
      forwarding_rules: [passthrough],
    });
    expect(changed.body.load_balancer.size).toBeUndefined();

    const create = (json: Record<string, unknown>) =>
      call('loadBalancers_create', {
        json: { name: 'lb-bad', region: 'ams3', forwarding_rules: [rule], ...json },
      });
    await unchangedBy(
      () => create({ forwarding_rules: [{ ...https, certificate_id: randomUUID() }] }),
      422,
      /certificate_id: certificate .* does not exist/,
    );
    await unchangedBy(
      () => create({ forwarding_rules: [{ ...passthrough, certificate_id: certificate }] }),
      422,
      /certificate_id or tls_passthrough/,
    );
    await unchangedBy(() => create({ algorithm: 'random' }), 422, /algorithm/);
    await unchangedBy(() => create({ size: 'lb-huge' }), 422, /size must be/);
    await unchangedBy(() => create({ size: 'lb-small', size_unit: 4 }), 422, /disagree/);
    // Both, agreeing, as a client that read the balancer sends them back.
    const both = await create({ name: 'lb-both', size: 'lb-large', size_unit: 6 });
    expect(both.body.load_balancer).toMatchObject({ size: 'lb-large', size_unit: 6 });
  });
});

describe('reserved IPs', () => {
  it('reserves IPv4, assigns to one VM at a time with actions, unassigns, releases', async () => {
    const vm1 = await addDroplet('nyc1', 'rip-1');
    const vm2 = await addDroplet('nyc1', 'rip-2');
    const far = await addDroplet('ams3', 'rip-far');
    await unchangedBy(
      () => call('reservedIPs_create', { json: { region: 'nyc1', droplet_id: vm1 } }),
      422,
      /region or droplet_id/,
    );
    await unchangedBy(() => call('reservedIPs_create', { json: { region: 'nowhere' } }), 422, /region/);

    const reserved = await call('reservedIPs_create', { json: { region: 'nyc1' } });
    expect(reserved.status).toBe(202);
    const ip = reserved.body.reserved_ip.ip;
    expect(ip).toMatch(/^198\.51\.100\.\d+$/);
    expect(reserved.body.reserved_ip).toMatchObject({
      droplet: null,
      locked: false,
      region: { slug: 'nyc1' },
    });
    const params = { reserved_ip: ip };

    await unchangedBy(
      () => call('reservedIPsActions_post', { params, json: { type: 'assign', droplet_id: 424242 } }),
      422,
      /droplet_id: droplet 424242 does not exist/,
    );
    await unchangedBy(
      () => call('reservedIPsActions_post', { params, json: { type: 'assign', droplet_id: far } }),
      422,
      /ams3/,
    );
    const assigned = await call('reservedIPsActions_post', {
      params,
      json: { type: 'assign', droplet_id: vm1 },
    });
    expect(assigned.status).toBe(201);
    expect(assigned.body.action).toMatchObject({
      type: 'assign_ip',
      status: 'in-progress',
      resource_type: 'reserved_ip',
    });
    expect((await call('reservedIPs_get', { params })).body.reserved_ip.droplet).toMatchObject({
      id: vm1,
      name: 'rip-1',
    });
    await sandbox.advanceClock(3_000);
    const action = await call('actions_get', { params: { action_id: assigned.body.action.id } });
    expect(action.body.action.status).toBe('completed');

    // A VM holds one reserved IPv4: a second one cannot be assigned to vm1.
    const other = (await call('reservedIPs_create', { json: { droplet_id: vm2 } })).body;
    expect(other.reserved_ip.droplet.id).toBe(vm2);
    expect(other.links.actions[0]).toMatchObject({ rel: 'assign_ip', id: expect.any(Number) });
    await unchangedBy(
      () =>
        call('reservedIPsActions_post', {
          params: { reserved_ip: other.reserved_ip.ip },
          json: { type: 'assign', droplet_id: vm1 },
        }),
      422,
      /already has reserved IP/,
    );

    const unassigned = await call('reservedIPsActions_post', { params, json: { type: 'unassign' } });
    expect(unassigned.body.action.type).toBe('unassign_ip');
    await unchangedBy(
      () => call('reservedIPsActions_post', { params, json: { type: 'unassign' } }),
      422,
      /not assigned/,
    );

    // A deleted VM's assignment disappears.
    await removeDroplet(vm2);
    expect(
      (await call('reservedIPs_get', { params: { reserved_ip: other.reserved_ip.ip } })).body.reserved_ip
        .droplet,
    ).toBeNull();

    const list = await call('reservedIPs_list');
    expect(list.body.reserved_ips.map((r: { ip: string }) => r.ip)).toEqual([ip, other.reserved_ip.ip]);
    expect((await call('reservedIPs_delete', { params })).status).toBe(204);
    expectError(await call('reservedIPs_get', { params }), 404);
  });

  it('reserves IPv6 through /v2/reserved_ipv6', async () => {
    const vm = await addDroplet('nyc1', 'rip6');
    const reserved = await http('POST', '/v2/reserved_ipv6', { region_slug: 'nyc1' });
    expect(reserved.status).toBe(201);
    expect(reserved.body.reserved_ipv6).toEqual({
      ip: expect.stringMatching(/^2001:db8:ee::/),
      region_slug: 'nyc1',
      reserved_at: expect.any(String),
    });
    const ip = reserved.body.reserved_ipv6.ip as string;
    // The address as clients send it: a colon is legal in a path segment.
    const path = `/v2/reserved_ipv6/${ip}`;
    const assigned = await http('POST', `${path}/actions`, { type: 'assign', droplet_id: vm });
    expect(assigned.status).toBe(201);
    expect(assigned.body.action.type).toBe('assign_ip');
    expect((await http('GET', path)).body.reserved_ipv6.droplet.id).toBe(vm);
    // Percent-encoded colons name the same address.
    const encoded = await http('GET', `/v2/reserved_ipv6/${encodeURIComponent(ip)}`);
    expect(encoded.body.reserved_ipv6.ip).toBe(ip);
    expect(
      (await http('GET', '/v2/reserved_ipv6')).body.reserved_ipv6s.map((r: { ip: string }) => r.ip),
    ).toEqual([ip]);
    expectError(await http('DELETE', path), 422, /unassign/);
    expect((await http('POST', `${path}/actions`, { type: 'unassign' })).status).toBe(201);
    expect((await http('DELETE', path)).status).toBe(204);
    expect((await http('GET', path)).status).toBe(404);
    // IPv4 and IPv6 live under their own paths.
    expectError(await call('reservedIPs_get', { params: { reserved_ip: ip } }), 404);
  });

  it('answers the floating_ips paths from the same addresses, with their own body keys', async () => {
    const vm = await addDroplet('sgp1', 'fip-vm');
    const floating = await call('floatingIPs_create', { json: { region: 'sgp1' } });
    expect(floating.status).toBe(202);
    const ip = floating.body.floating_ip.ip;
    expect(floating.body.reserved_ip).toBeUndefined();
    // Reserved under one name, it is one under the other.
    const asReserved = await call('reservedIPs_get', { params: { reserved_ip: ip } });
    expect(asReserved.body.reserved_ip).toEqual(floating.body.floating_ip);
    const project = (await call('projects_create', { json: { name: 'fip-project', purpose: 'Testing' } }))
      .body.project.id;
    const reserved = (await call('reservedIPs_create', { json: { region: 'sgp1', project_id: project } }))
      .body.reserved_ip;
    expect(
      (await call('floatingIPs_get', { params: { floating_ip: reserved.ip } })).body.floating_ip,
    ).toEqual({
      ...reserved,
      project_id: project,
    });
    await unchangedBy(
      () => call('floatingIPs_create', { json: { region: 'sgp1', project_id: 'mine' } }),
      422,
      /project_id/,
    );
    const list = await call('floatingIPs_list', { query: '?per_page=200' });
    expect(list.body.floating_ips.map((f: { ip: string }) => f.ip)).toEqual(
      expect.arrayContaining([ip, reserved.ip]),
    );
    expect(list.body.meta.total).toBe(
      (await call('reservedIPs_list', { query: '?per_page=200' })).body.meta.total,
    );

    const params = { floating_ip: ip };
    const assign = await call('floatingIPsAction_post', { params, json: { type: 'assign', droplet_id: vm } });
    expect(assign.status).toBe(201);
    expect(assign.body.action).toMatchObject({ type: 'assign_ip', resource_type: 'floating_ip' });
    const unassign = await call('reservedIPsActions_post', {
      params: { reserved_ip: ip },
      json: { type: 'unassign' },
    });
    // The address's actions, whichever name started them, newest first, under both names.
    const ids = [unassign.body.action.id, assign.body.action.id];
    const actions = await call('floatingIPsAction_list', { params });
    expect(actions.body.actions.map((a: { id: number }) => a.id)).toEqual(ids);
    const reservedActions = await call('reservedIPsActions_list', { params: { reserved_ip: ip } });
    expect(reservedActions.body.actions).toEqual(actions.body.actions);
    const one = await call('floatingIPsAction_get', {
      params: { ...params, action_id: assign.body.action.id },
    });
    expect(one.body.action.id).toBe(assign.body.action.id);
    const viaReserved = await call('reservedIPsActions_get', {
      params: { reserved_ip: ip, action_id: unassign.body.action.id },
    });
    expect(viaReserved.body.action.type).toBe('unassign_ip');
    // Another address's action is not this one's.
    expectError(
      await call('floatingIPsAction_get', {
        params: { floating_ip: reserved.ip, action_id: assign.body.action.id },
      }),
      404,
    );

    expect((await call('floatingIPs_delete', { params: { floating_ip: reserved.ip } })).status).toBe(204);
    expectError(await call('reservedIPs_get', { params: { reserved_ip: reserved.ip } }), 404);
    expectError(await call('floatingIPs_get', { params: { floating_ip: reserved.ip } }), 404);
    expect((await call('floatingIPs_get', { params })).body.floating_ip.ip).toBe(ip);
    // The account holds 3 reserved IPs: one was just released.
    const onVm = await call('floatingIPs_create', { json: { droplet_id: vm } });
    expect(onVm.status, onVm.text).toBe(202);
    expect(onVm.body.floating_ip.droplet.id).toBe(vm);
    expect(onVm.body.links.actions[0].rel).toBe('assign_ip');

    for (const address of [ip, onVm.body.floating_ip.ip]) {
      expect((await call('reservedIPs_delete', { params: { reserved_ip: address } })).status).toBe(204);
    }
  });
});

describe('BYOIP prefixes', () => {
  it('accepts a prefix (pending, then active), refuses bad and overlapping ones', async () => {
    await unchangedBy(
      () =>
        call('byoipPrefixes_create', {
          json: { prefix: '203.0.113.0/33', signature: 'sig', region: 'nyc3' },
        }),
      422,
      /prefix/,
    );
    await unchangedBy(
      () =>
        call('byoipPrefixes_create', {
          json: { prefix: '203.0.113.7/24', signature: 'sig', region: 'nyc3' },
        }),
      422,
      /network address/,
    );
    await unchangedBy(
      () => call('byoipPrefixes_create', { json: { prefix: '203.0.113.0/24', region: 'nyc3' } }),
      422,
      /signature/,
    );
    const created = await call('byoipPrefixes_create', {
      json: { prefix: '192.0.2.0/24', signature: 'sig', region: 'nyc3' },
    });
    expect(created.status).toBe(202);
    expect(created.body).toEqual({ uuid: expect.any(String), region: 'nyc3', status: 'pending' });
    const params = { byoip_prefix_uuid: created.body.uuid };
    await unchangedBy(
      () =>
        call('byoipPrefixes_create', { json: { prefix: '192.0.2.0/24', signature: 'sig', region: 'nyc3' } }),
      422,
      /overlaps/,
    );
    await sandbox.advanceClock(NETWORK_LIFECYCLE_MS);
    expect((await call('byoipPrefixes_get', { params })).body.byoip_prefix).toMatchObject({
      prefix: '192.0.2.0/24',
      status: 'active',
    });
    expect((await call('byoipPrefixes_list')).body.byoip_prefixes).toHaveLength(1);
    const resources = await call('byoipPrefixes_list_resources', { params, query: '?page=1&per_page=5' });
    expect(resources.body).toMatchObject({ ips: [], meta: { total: 0 } });
    expect((await call('byoipPrefixes_delete', { params })).status).toBe(202);
    expectError(await call('byoipPrefixes_get', { params }), 404);
  });
});
