/**
 * Every vms and images tool through a real MCP client, in process over the SDK's in-memory
 * transport, against the built-in sandbox (its state in memory, each test its own). The test
 * moves the sandbox's clock forward (so lifecycles complete without sleeping) and tags VMs through
 * the platform API, as the platform's own tag endpoints would.
 */
import { type Sandbox, sshPublicKey } from '@cloudcall/sandbox';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call } from './testing/client.js';
import { inProcessServer } from './testing/in-process.js';

const UBUNTU = 161928327;
const DEBIAN = 158441207;

/** Each test's own sandbox: a test sees only what it made, whatever ran before it. */
let client: Client;
let close: () => Promise<void>;
let helper: Sandbox;

// biome-ignore lint/suspicious/noExplicitAny: tool results are checked field by field.
type Json = any;

async function ok(name: string, args: Record<string, unknown> = {}): Promise<Json> {
  const result = await call(client, name, args);
  expect(result.isError, `${name}: ${result.text}`).toBe(false);
  return result.json;
}

const advance = (ms: number) => helper.advanceClock(ms);
const vm = async (id: number) => (await ok('vm-get', { ID: id })).droplet;

/** Runs an action tool, checks the answer is an in-progress action, lets it complete, checks vm-action. */
async function actOn(id: number, name: string, args: Record<string, unknown> = {}, wait = 3_000) {
  const { action } = await ok(name, { ID: id, ...args });
  expect(action).toMatchObject({ status: 'in-progress', resource_id: id, resource_type: 'droplet' });
  await advance(wait);
  const done = await ok('vm-action', { VmID: id, ActionID: action.id });
  expect(done.action).toMatchObject({ id: action.id, status: 'completed' });
  return action;
}

async function createVm(name: string): Promise<number> {
  const { droplet } = await ok('vm-create', {
    Name: name,
    Size: 's-1vcpu-1gb',
    ImageID: UBUNTU,
    Region: 'nyc3',
  });
  return droplet.id;
}

/** Creates a tagged droplet through the platform API (the spec has no tagging tool). */
async function createTagged(name: string, tag: string): Promise<number> {
  const response = await fetch(`${helper.url}/v2/droplets`, {
    method: 'POST',
    headers: { authorization: 'Bearer test', 'content-type': 'application/json' },
    body: JSON.stringify({ name, region: 'nyc3', size: 's-1vcpu-1gb', image: UBUNTU, tags: [tag] }),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as Json).droplet.id;
}

/** The whole sandbox state, to see that a refused call changed nothing. */
const stateText = () => helper.store.read((world) => JSON.stringify(world));

beforeEach(async () => {
  let sandbox: Sandbox | undefined;
  ({ client, close, sandbox } = await inProcessServer({ families: 'account,vms,images' }));
  helper = sandbox as Sandbox;
});
afterEach(async () => {
  await close();
});

describe('the vms and images families over MCP stdio', () => {
  it('lists 95 tools (wait, plan and audit-list among them) with annotations by rule', async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(95);
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of [
      'vm-delete',
      'rebuild-vm',
      'restore-vm',
      'resize-vm',
      'power-off-vms-tag',
      'image-delete',
      'tag-delete',
      'snapshot-delete',
    ]) {
      expect(byName.get(name)?.annotations?.destructiveHint, name).toBe(true);
    }
    for (const name of ['vm-reboot', 'power-on-vm', 'snapshot-vm', 'enable-backups-vms-tag']) {
      expect(byName.get(name)?.annotations?.destructiveHint, name).toBe(false);
    }
    for (const name of [
      'vm-get',
      'vm-list',
      'vm-action',
      'image-list',
      'image-action-get',
      'size-list',
      'region-list',
      'tag-list',
      'snapshot-get',
      'vm-list-backups',
      'vm-get-backup-policy',
    ]) {
      expect(byName.get(name)?.annotations?.readOnlyHint, name).toBe(true);
    }
    expect(byName.get('vm-list')?.inputSchema.properties?.PerPage).toMatchObject({ default: 50 });
    expect(byName.get('vm-create')?.inputSchema.required?.sort()).toEqual([
      'ImageID',
      'Name',
      'Region',
      'Size',
    ]);
  });

  it('size-list, image-list (each Type) and image-get', async () => {
    const sizes = await ok('size-list', { PerPage: 100 });
    expect(sizes.sizes.find((s: Json) => s.slug === 's-1vcpu-1gb')).toMatchObject({
      price_monthly: 6,
      memory: 1024,
      vcpus: 1,
      disk: 25,
      regions: expect.arrayContaining(['nyc3']),
    });
    const distributions = await ok('image-list', { Type: 'distribution' });
    expect(distributions.images.every((i: Json) => i.type === 'base' && i.public)).toBe(true);
    expect(distributions.images.map((i: Json) => i.slug)).toContain('ubuntu-24-04-x64');
    expect(distributions.images.map((i: Json) => i.slug)).not.toContain('docker-20-04');
    const applications = await ok('image-list', { Type: 'application' });
    expect(applications.images.map((i: Json) => i.slug)).toContain('docker-20-04');
    const all = await ok('image-list', {});
    expect(all.meta.total).toBe(distributions.meta.total + applications.meta.total);
    const user = await ok('image-list', { Type: 'user' });
    expect(user.images).toEqual([]);
    expect((await ok('image-get', { ID: UBUNTU })).image).toMatchObject({ slug: 'ubuntu-24-04-x64' });
  });

  it('region-list: the regions, with the sizes each offers, paged', async () => {
    const all = await ok('region-list', { PerPage: 200 });
    const nyc3 = all.regions.find((r: Json) => r.slug === 'nyc3');
    expect(nyc3).toMatchObject({ available: true, sizes: expect.arrayContaining(['s-1vcpu-1gb']) });
    expect(all.meta.total).toBe(all.regions.length);
    const page = await ok('region-list', { Page: 2, PerPage: 2 });
    expect(page.regions.map((r: Json) => r.slug)).toEqual(all.regions.slice(2, 4).map((r: Json) => r.slug));
  });

  it('vm-create, then every single-VM action tool, then vm-delete', async () => {
    const created = await ok('vm-create', {
      Name: 'mcp-1',
      Size: 's-1vcpu-1gb',
      ImageID: UBUNTU,
      Region: 'nyc3',
      Monitoring: true,
    });
    const id = created.droplet.id;
    expect(created.droplet).toMatchObject({ status: 'new', features: ['monitoring'], image: { id: UBUNTU } });
    await advance(3_000);
    expect((await vm(id)).status).toBe('active');
    expect((await ok('vm-list', {})).droplets.map((d: Json) => d.id)).toContain(id);

    const reboot = await actOn(id, 'vm-reboot');
    expect((await ok('action-get', { ID: reboot.id })).action).toMatchObject({
      type: 'reboot',
      status: 'completed',
    });
    expect((await ok('action-list', { PerPage: 100 })).actions.map((a: Json) => a.id)).toContain(reboot.id);
    await actOn(id, 'reset-vm-password');
    await actOn(id, 'rename-vm', { Name: 'mcp-renamed' });
    expect((await vm(id)).name).toBe('mcp-renamed');
    await actOn(id, 'change-kernel-vm', { KernelID: 10487 });
    expect((await vm(id)).kernel).toMatchObject({ id: 10487 });
    await actOn(id, 'enable-ipv6-vm');
    expect((await vm(id)).networks.v6).toHaveLength(1);
    await actOn(id, 'enable-private-net-vm');
    expect((await vm(id)).features).toContain('private_networking');
    await actOn(id, 'enable-backups-vm', {}, 7_000);
    const [backupId] = (await vm(id)).backup_ids;
    expect(backupId).toEqual(expect.any(Number));
    await actOn(id, 'disable-backups-vm');
    expect((await vm(id)).features).not.toContain('backups');

    // The backup (kept after disabling) becomes a snapshot.
    const convert = await ok('image-action-convert', { ID: backupId });
    await advance(2_000);
    expect(
      (await ok('image-action-get', { ImageID: backupId, ActionID: convert.action.id })).action,
    ).toMatchObject({
      type: 'convert',
      status: 'completed',
    });
    expect((await ok('image-get', { ID: backupId })).image.type).toBe('snapshot');

    await actOn(id, 'rebuild-vm-by-slug', { ImageSlug: 'debian-12-x64' });
    expect((await vm(id)).image).toMatchObject({ id: DEBIAN });
    await actOn(id, 'rebuild-vm', { ImageID: UBUNTU });
    expect((await vm(id)).image).toMatchObject({ id: UBUNTU });
    await actOn(id, 'power-cycle-vm');
    await actOn(id, 'shutdown-vm');
    expect((await vm(id)).status).toBe('off');
    await actOn(id, 'power-on-vm');
    expect((await vm(id)).status).toBe('active');
    await actOn(id, 'power-off-vm');
    expect((await vm(id)).status).toBe('off');

    await actOn(id, 'snapshot-vm', { Name: 'mcp-snap' });
    const snapshot = (await ok('image-list', { Type: 'user' })).images.find(
      (i: Json) => i.name === 'mcp-snap',
    );
    expect(snapshot).toMatchObject({ type: 'snapshot', public: false });
    expect((await vm(id)).snapshot_ids).toContain(snapshot.id);

    await actOn(id, 'resize-vm', { Size: 's-2vcpu-4gb', ResizeDisk: true });
    expect(await vm(id)).toMatchObject({ size_slug: 's-2vcpu-4gb', disk: 80 });
    const shrink = await call(client, 'resize-vm', { ID: id, Size: 's-1vcpu-1gb' });
    expect(shrink.isError).toBe(true);
    expect(shrink.text).toMatch(/422 .*smaller disk/);
    // Not "offered in that region": the size is, but a disk never shrinks.
    expect(shrink.structured).toMatchObject({
      hint: expect.stringMatching(/^A VM's disk cannot shrink: .*size-list/),
    });

    await actOn(id, 'restore-vm', { ImageID: snapshot.id });
    expect((await vm(id)).image).toMatchObject({ id: snapshot.id });

    expect(await ok('vm-delete', { ID: id })).toEqual({ ok: true });
    const gone = await call(client, 'vm-get', { ID: id });
    expect(gone.isError).toBe(true);
    expect(gone.text).toMatch(/404/);
  });

  it('every tag tool acts on the three tagged VMs, one action each', async () => {
    const ids = [
      await createTagged('tag-a', 'fleet'),
      await createTagged('tag-b', 'fleet'),
      await createTagged('tag-c', 'fleet'),
    ];
    const other = await createVm('untagged');
    await advance(3_000);
    const run = async (name: string, args: Record<string, unknown> = {}, wait = 3_000) => {
      const { actions } = await ok(name, { Tag: 'fleet', ...args });
      expect(actions.map((a: Json) => a.resource_id).sort(), name).toEqual([...ids].sort());
      await advance(wait);
      return actions;
    };
    await run('power-off-vms-tag');
    for (const id of ids) expect((await vm(id)).status).toBe('off');
    expect((await vm(other)).status).toBe('active');
    await run('power-on-vms-tag');
    for (const id of ids) expect((await vm(id)).status).toBe('active');
    await run('power-cycle-vms-tag');
    await run('shutdown-vms-tag');
    for (const id of ids) expect((await vm(id)).status).toBe('off');
    await run('enable-ipv6-vms-tag');
    await run('enable-private-net-vms-tag');
    await run('enable-backups-vms-tag');
    for (const id of ids)
      expect((await vm(id)).features).toEqual(
        expect.arrayContaining(['ipv6', 'private_networking', 'backups']),
      );
    await run('disable-backups-vms-tag');
    await run('snapshot-vms-tag', { Name: 'fleet-nightly' });
    const snaps = (await ok('image-list', { Type: 'user', PerPage: 200 })).images.filter(
      (i: Json) => i.name === 'fleet-nightly',
    );
    expect(snaps).toHaveLength(3);

    const nobody = await call(client, 'power-on-vms-tag', { Tag: 'nobody-has-this' });
    expect(nobody.isError).toBe(true);
    expect(nobody.text).toMatch(/404/);
  });

  it('image-create, image-update, image-action-transfer, image-action-get, image-delete', async () => {
    const { image } = await ok('image-create', {
      Name: 'imported',
      Url: 'https://images.example.com/disk.qcow2.gz',
      Region: 'nyc3',
      Distribution: 'Ubuntu',
      Description: 'from the tests',
      Tags: ['base'],
    });
    expect(image).toMatchObject({ status: 'NEW', type: 'custom', tags: ['base'] });
    await advance(4_000);
    expect((await ok('image-get', { ID: image.id })).image).toMatchObject({
      status: 'available',
      regions: ['nyc3'],
    });
    expect((await ok('image-update', { ID: image.id, Name: 'imported-v2' })).image.name).toBe('imported-v2');
    const transfer = await ok('image-action-transfer', { ID: image.id, Region: 'fra1' });
    expect(transfer.action).toMatchObject({ type: 'transfer', status: 'in-progress' });
    await advance(2_000);
    expect(
      (await ok('image-action-get', { ImageID: image.id, ActionID: transfer.action.id })).action.status,
    ).toBe('completed');
    expect((await ok('image-get', { ID: image.id })).image.regions).toEqual(['nyc3', 'fra1']);
    expect(await ok('image-delete', { ID: image.id })).toEqual({ ok: true });
    expect((await call(client, 'image-get', { ID: image.id })).isError).toBe(true);
  });
});

describe('vm-create beyond the spec', () => {
  /** The platform API directly, on the server's sandbox (these families have no VPC tools). */
  async function platform(method: string, path: string, body?: unknown): Promise<Json> {
    const response = await fetch(`${helper.url}${path}`, {
      method,
      headers: { authorization: 'Bearer test', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.ok, `${method} ${path}: ${response.status}`).toBe(true);
    return response.json();
  }

  it('with an SSH key, tags, user data, a VPC and IPv6: the VM shows them, joins the VPC, vm-list filters by tag', async () => {
    const { ssh_key: key } = await ok('key-create', { Name: 'deploy', PublicKey: sshPublicKey() });
    await platform('POST', '/v2/vpcs', { name: 'mcp-default-sfo3', region: 'sfo3' });
    const { vpc } = await platform('POST', '/v2/vpcs', { name: 'mcp-app-sfo3', region: 'sfo3' });
    expect(vpc.default).toBe(false);
    const { droplet } = await ok('vm-create', {
      Name: 'keyed-1',
      Size: 's-1vcpu-1gb',
      ImageID: UBUNTU,
      Region: 'sfo3',
      SshKeys: [key.fingerprint],
      Tags: ['keyed', 'env:prod'],
      UserData: '#cloud-config\nruncmd:\n  - touch /tmp/booted\n',
      VpcID: vpc.id,
      IPv6: true,
      WithVmAgent: true,
    });
    expect(droplet).toMatchObject({ tags: ['keyed', 'env:prod'], vpc_uuid: vpc.id });
    expect(droplet.features).toContain('ipv6');
    expect(droplet.networks.v6).toHaveLength(1);
    expect(JSON.stringify(droplet)).not.toContain('/tmp/booted');
    await ok('vm-create', { Name: 'unkeyed-1', Size: 's-1vcpu-1gb', ImageID: UBUNTU, Region: 'sfo3' });
    const tagged = await ok('vm-list', { Tag: 'keyed' });
    expect(tagged.droplets.map((d: Json) => d.id)).toEqual([droplet.id]);
    const { members } = await platform('GET', `/v2/vpcs/${vpc.id}/members`);
    expect(members.map((m: Json) => m.urn)).toEqual([`do:droplet:${droplet.id}`]);
    const stored = await helper.store.read((world) => world.droplets.find((d) => d.id === droplet.id));
    expect(stored?._ssh_key_ids).toEqual([key.id]);
  });

  it("an unknown SSH key or VPC is the platform's 422, and no VM is made", async () => {
    const before = await stateText();
    const create = (args: Record<string, unknown>) =>
      call(client, 'vm-create', { Name: 'x', Size: 's-1vcpu-1gb', ImageID: UBUNTU, Region: 'nyc3', ...args });
    expect((await create({ SshKeys: [987654321] })).text).toMatch(
      /422 .*987654321 are invalid key identifiers/,
    );
    expect((await create({ VpcID: '0b8c5c9e-1d5e-4f0e-9d43-3c2b1a0f9e8d' })).text).toMatch(
      /422 .*vpc_uuid 0b8c5c9e-1d5e-4f0e-9d43-3c2b1a0f9e8d is not a VPC/,
    );
    const malformed = await create({ SshKeys: ['not-a-key'] });
    expect(malformed.text).toMatch(/^Invalid arguments: .*SshKeys/);
    expect(await stateText()).toBe(before);
  });
});

describe('tags and snapshots beyond the spec', () => {
  it('tag-create, tag-resources, vm-list by tag, tag-get counts, snapshot-list/-get/-delete, vm-list-snapshots, untag, tag-delete', async () => {
    const a = await createVm('tagme-a');
    const b = await createVm('tagme-b');
    expect((await ok('tag-create', { Name: 'mcp-web' })).tag).toMatchObject({
      name: 'mcp-web',
      resources: { count: 0 },
    });
    expect(
      await ok('tag-resources', {
        Tag: 'mcp-web',
        Resources: [
          { resource_id: a, resource_type: 'droplet' },
          { resource_id: String(b), resource_type: 'droplet' },
        ],
      }),
    ).toEqual({ ok: true });
    expect((await ok('vm-list', { Tag: 'mcp-web' })).droplets.map((d: Json) => d.id).sort()).toEqual(
      [a, b].sort(),
    );
    expect((await vm(a)).tags).toEqual(['mcp-web']);
    const { tag } = await ok('tag-get', { Name: 'mcp-web' });
    expect(tag.resources).toMatchObject({ count: 2, droplets: { count: 2 } });
    expect(tag.resources.last_tagged_uri).toMatch(new RegExp(`/v2/droplets/${b}$`));

    await advance(3_000);
    await actOn(a, 'snapshot-vm', { Name: 'mcp-snap' }, 4_000);
    const mine = (await ok('snapshot-list', { ResourceType: 'droplet', PerPage: 200 })).snapshots.filter(
      (snap: Json) => snap.resource_id === String(a),
    );
    expect(mine).toEqual([expect.objectContaining({ name: 'mcp-snap', resource_type: 'droplet' })]);
    const id = Number(mine[0].id);
    expect((await ok('snapshot-get', { ID: id })).snapshot).toEqual(mine[0]);
    expect((await ok('vm-list-snapshots', { ID: a })).snapshots.map((snap: Json) => snap.id)).toEqual([id]);
    expect(await ok('snapshot-delete', { ID: id })).toEqual({ ok: true });
    expect((await ok('vm-list-snapshots', { ID: a })).snapshots).toEqual([]);
    expect((await vm(a)).snapshot_ids).toEqual([]);

    const refused = await call(client, 'tag-resources', {
      Tag: 'mcp-web',
      Resources: [{ resource_id: 999_999_999, resource_type: 'droplet' }],
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/404/);
    const malformed = await call(client, 'tag-resources', {
      Tag: 'mcp-web',
      Resources: [{ resource_id: 'web-1', resource_type: 'droplet' }],
    });
    expect(malformed.text).toMatch(/^Invalid arguments: .*Resources\.0\.resource_id/);

    await ok('untag-resources', {
      Tag: 'mcp-web',
      Resources: [{ resource_id: b, resource_type: 'droplet' }],
    });
    expect((await ok('tag-get', { Name: 'mcp-web' })).tag.resources.count).toBe(1);
    expect(await ok('tag-delete', { Name: 'mcp-web' })).toEqual({ ok: true });
    expect((await vm(a)).tags).toEqual([]);
    expect((await call(client, 'tag-get', { Name: 'mcp-web' })).text).toMatch(/404[\s\S]*tag-list/);
  });

  it('vm-update-backup-policy after enable-backups-vm; vm-get-backup-policy and vm-list-backups show it', async () => {
    const id = await createVm('backed-up');
    await advance(3_000);
    await actOn(id, 'enable-backups-vm');
    await advance(5_000);
    expect((await ok('vm-list-backups', { ID: id })).backups).toEqual([
      expect.objectContaining({ type: 'backup' }),
    ]);
    await actOn(id, 'vm-update-backup-policy', { Plan: 'weekly', Weekday: 'MON', Hour: 4 });
    const { policy } = await ok('vm-get-backup-policy', { ID: id });
    expect(policy).toMatchObject({
      droplet_id: id,
      backup_enabled: true,
      backup_policy: { plan: 'weekly', weekday: 'MON', hour: 4, window_length_hours: 4 },
    });
    const bad = await call(client, 'vm-update-backup-policy', { ID: id, Plan: 'daily', Weekday: 'MON' });
    expect(bad.text).toMatch(/^Invalid arguments: .*Weekday/);
    expect((await ok('vm-list-kernels', { ID: id, PerPage: 1 })).kernels).toHaveLength(1);
    expect(await ok('vm-list-neighbors', { ID: id })).toEqual({ droplets: [] });
    expect((await ok('vm-list-associated-resources', { ID: id })).snapshots).toEqual([]);
  });
});

describe('bad input', () => {
  it('wrong types and missing arguments: an input error, no request, state unchanged', async () => {
    const before = await stateText();
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['vm-create', { Name: 'x', Size: 's-1vcpu-1gb', Region: 'nyc3' }, /argument ImageID: is required/],
      [
        'vm-create',
        { Name: 'x', Size: 's-1vcpu-1gb', Region: 'nyc3', ImageID: 'Ubuntu 24.04' },
        /argument ImageID: .*expected an image id or a slug such as "ubuntu-24-04-x64"/,
      ],
      [
        'vm-create',
        { Name: 'x', Size: 's-1vcpu-1gb', Region: 'nyc3', ImageID: UBUNTU, Backup: 'yes' },
        /argument Backup/,
      ],
      ['vm-get', { ID: 'seven' }, /argument ID: expected number/],
      ['resize-vm', { ID: 1 }, /argument Size: is required/],
      ['power-off-vms-tag', {}, /argument Tag: is required/],
      ['snapshot-vms-tag', { Tag: 'fleet' }, /argument Name: is required/],
      ['image-list', { Type: 'private' }, /argument Type/],
      ['image-create', { Name: 'x', Url: 'not a url', Region: 'nyc3' }, /argument Url/],
      ['vm-action', { VmID: 1 }, /argument ActionID: is required/],
      ['rename-vm', { id: 1, Name: 'x' }, /argument id: is not an argument/],
    ];
    for (const [name, args, message] of cases) {
      const result = await call(client, name, args);
      expect(result.isError, name).toBe(true);
      expect(result.text, name).toMatch(/^Invalid arguments: /);
      expect(result.text, name).toMatch(message);
    }
    expect(await stateText()).toBe(before);
  });

  it('an action refused while another runs, or while the VM is on, says what to do first', async () => {
    const id = await createVm('mcp-busy');
    // The create action is still running.
    const busy = await call(client, 'power-off-vm', { ID: id });
    expect(busy.text).toMatch(/422 .*pending event/);
    expect(busy.structured).toMatchObject({
      retryable: false,
      hint: expect.stringMatching(/wait with Kind action/),
    });
    await advance(3_000);
    const on = await call(client, 'resize-vm', { ID: id, Size: 's-2vcpu-4gb' });
    expect(on.text).toMatch(/422 .*power it off/);
    expect(on.structured).toMatchObject({
      hint: expect.stringMatching(/^The VM must be off first: power-off-vm/),
    });
    await ok('vm-delete', { ID: id });
  });

  it("unknown ids and impossible requests: the platform's 404/422, state unchanged", async () => {
    const before = await stateText();
    const notFound: [string, Record<string, unknown>][] = [
      ['vm-get', { ID: 1 }],
      ['vm-delete', { ID: 1 }],
      ['power-off-vm', { ID: 1 }],
      ['vm-action', { VmID: 1, ActionID: 1 }],
      ['image-get', { ID: 1 }],
      ['image-delete', { ID: 1 }],
      ['image-action-get', { ImageID: UBUNTU, ActionID: 1 }],
    ];
    for (const [name, args] of notFound) {
      const result = await call(client, name, args);
      expect(result.isError, name).toBe(true);
      expect(result.text, name).toMatch(/API error 404 \(not_found/);
    }
    const create = (args: Record<string, unknown>) =>
      call(client, 'vm-create', { Name: 'x', Size: 's-1vcpu-1gb', ImageID: UBUNTU, Region: 'nyc3', ...args });
    // Each refusal comes with the hint that names the tool showing what is possible.
    const refused = async (args: Record<string, unknown>, message: RegExp, hint: RegExp) => {
      const result = await create(args);
      expect(result.text).toMatch(message);
      expect((result.structured as { hint?: string }).hint, result.text).toMatch(hint);
    };
    await refused({ Size: 'huge' }, /422 .*invalid size.*huge/, /^No size has that slug: size-list/);
    await refused({ Size: 's-3vcpu-1gb' }, /422 .*no longer available/, /no longer sold: size-list/);
    await refused({ Region: 'mar1' }, /422 .*invalid region.*mar1/, /^No region has that slug: region-list/);
    await refused({ ImageID: 4242 }, /422 .*invalid image.*4242/, /image-list/);
    await refused(
      { Region: 'syd1', Size: 'so-2vcpu-16gb' },
      /422 .*so-2vcpu-16gb is not available in region syd1/,
      /not offered in that region: size-list/,
    );
    expect((await call(client, 'image-delete', { ID: UBUNTU })).text).toMatch(/422 .*public image/);
    expect(await stateText()).toBe(before);
  });
});

describe('what to call next', () => {
  it('a create that is not ready yet names the wait call that blocks until it is; a ready answer names none', async () => {
    const result = (await client.callTool({
      name: 'vm-create',
      arguments: { Name: 'next-1', Size: 's-1vcpu-1gb', ImageID: UBUNTU, Region: 'nyc3' },
    })) as { content: { type: string; text: string }[]; structuredContent: Json };
    const id = result.structuredContent.droplet.id;
    expect(result.content).toHaveLength(2);
    const note = result.content[1]?.text ?? '';
    expect(note).toBe(
      `Next: this is not ready yet. To block until it is, call wait with {"Kind":"vm","ID":"${id}"}.`,
    );
    // The arguments it names are the wait tool's own: calling them ends with the VM active.
    const waitArgs = JSON.parse(/call wait with (\{.*\})\.$/.exec(note)?.[1] ?? 'null');
    const waiting = call(client, 'wait', waitArgs);
    await advance(3_000);
    const waited = await waiting;
    expect(waited.isError, waited.text).toBe(false);
    expect(waited.json).toMatchObject({ droplet: { id, status: 'active' } });

    const ready = (await client.callTool({ name: 'vm-get', arguments: { ID: id } })) as {
      content: unknown[];
    };
    expect(ready.content).toHaveLength(1);
    const reboot = (await client.callTool({ name: 'vm-reboot', arguments: { ID: id } })) as {
      content: { text: string }[];
      structuredContent: Json;
    };
    expect(reboot.content[1]?.text).toBe(
      `Next: this is not ready yet. To block until it is, call wait with {"Kind":"action","ID":"${reboot.structuredContent.action.id}"}.`,
    );
  });
});
