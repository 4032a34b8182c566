/**
 * The vms and images endpoints of the sandbox: the droplet lifecycle, every droplet and image
 * action, the size/region/image catalogues, and the platform's refusals. Every answer is checked
 * against the OpenAPI description; time moves with `advanceClock`, never by sleeping.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from './server.js';
import { type CallOptions, callOperation, type Reply, steppingClock } from './testing/operations.js';

let sandbox: Sandbox;

const call = (operationId: string, options?: CallOptions) => callOperation(sandbox.url, operationId, options);

function expect422(reply: Reply, message: RegExp): void {
  expect(reply.status).toBe(422);
  expect(reply.body).toMatchObject({ id: 'unprocessable_entity', message: expect.stringMatching(message) });
}

const UBUNTU = 161928327;
const FEDORA = 157846105; // min_disk_size 15
const DOCKER = 160877451; // an application image

async function createDroplet(extra: Record<string, unknown> = {}) {
  const reply = await call('droplets_create', {
    json: {
      name: `vm-${randomUUID().slice(0, 8)}`,
      region: 'nyc3',
      size: 's-1vcpu-1gb',
      image: UBUNTU,
      ...extra,
    },
  });
  expect(reply.status).toBe(202);
  return reply.body.droplet as { id: number; name: string; status: string };
}

async function getDroplet(id: number) {
  const reply = await call('droplets_get', { params: { droplet_id: id } });
  expect(reply.status).toBe(200);
  return reply.body.droplet;
}

async function act(id: number, json: Record<string, unknown>): Promise<Reply> {
  return call('dropletActions_post', { params: { droplet_id: id }, json });
}

async function actAndComplete(id: number, json: Record<string, unknown>) {
  const reply = await act(id, json);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  expect(reply.body.action).toMatchObject({ type: json.type, status: 'in-progress', resource_id: id });
  await sandbox.advanceClock(5_000);
  const done = await call('dropletActions_get', {
    params: { droplet_id: id, action_id: reply.body.action.id },
  });
  expect(done.body.action.status).toBe('completed');
  return reply.body.action as { id: number };
}

const dropletCount = () => sandbox.store.read((world) => world.droplets.length);

beforeAll(async () => {
  sandbox = await startSandbox({ now: steppingClock() });
});
afterAll(async () => {
  await sandbox.close();
});

describe('catalogues', () => {
  it('sizes_list: prices, memory, vCPUs, disk and regions of each size', async () => {
    const { status, body } = await call('sizes_list', { query: '?per_page=200' });
    expect(status).toBe(200);
    expect(body.sizes.length).toBeGreaterThan(10);
    const basic = body.sizes.find((s: { slug: string }) => s.slug === 's-1vcpu-1gb');
    expect(basic).toMatchObject({ memory: 1024, vcpus: 1, disk: 25, price_monthly: 6, available: true });
    expect(basic.regions).toContain('nyc3');
    const memory = body.sizes.find((s: { slug: string }) => s.slug === 'm-2vcpu-16gb');
    expect(memory.regions).not.toContain('blr1');
    expect(body.sizes.find((s: { slug: string }) => s.slug === 's-3vcpu-1gb')).toMatchObject({
      available: false,
    });
    expect(body.meta.total).toBe(body.sizes.length);
  });

  it('regions_list', async () => {
    const { body } = await call('regions_list', { query: '?per_page=200' });
    const nyc3 = body.regions.find((r: { slug: string }) => r.slug === 'nyc3');
    expect(nyc3).toMatchObject({ available: true, sizes: expect.arrayContaining(['s-1vcpu-1gb']) });
    expect(body.regions.find((r: { slug: string }) => r.slug === 'nyc2')).toMatchObject({ available: false });
  });

  it('images_list filters distribution, application and private images', async () => {
    const all = await call('images_list', { query: '?per_page=200' });
    const ids = (reply: Reply) => reply.body.images.map((i: { id: number }) => i.id);
    expect(ids(all)).toEqual(expect.arrayContaining([UBUNTU, DOCKER]));
    const distributions = await call('images_list', { query: '?type=distribution&per_page=200' });
    expect(ids(distributions)).toContain(UBUNTU);
    expect(ids(distributions)).not.toContain(DOCKER);
    const applications = await call('images_list', { query: '?type=application&per_page=200' });
    expect(ids(applications)).toContain(DOCKER);
    expect(ids(applications)).not.toContain(UBUNTU);
    const mine = await call('images_list', { query: '?private=true' });
    expect(mine.body.images.every((i: { public: boolean }) => !i.public)).toBe(true);
    const got = await call('images_get', { params: { image_id: UBUNTU } });
    expect(got.body.image).toMatchObject({
      id: UBUNTU,
      type: 'base',
      public: true,
      slug: 'ubuntu-24-04-x64',
    });
  });
});

describe('droplets', () => {
  it('droplets_create: new, then active after the boot delay; networks inside the default VPC', async () => {
    const reply = await call('droplets_create', {
      json: {
        name: 'web-1',
        region: 'nyc3',
        size: 's-1vcpu-1gb',
        image: UBUNTU,
        backups: false,
        monitoring: true,
      },
    });
    expect(reply.status).toBe(202);
    const droplet = reply.body.droplet;
    expect(droplet).toMatchObject({
      name: 'web-1',
      status: 'new',
      size_slug: 's-1vcpu-1gb',
      memory: 1024,
      vcpus: 1,
      disk: 25,
      size: { slug: 's-1vcpu-1gb', price_monthly: 6 },
      region: { slug: 'nyc3' },
      image: { id: UBUNTU },
      features: ['monitoring'],
      vpc_uuid: expect.any(String),
    });
    expect(reply.body.links.actions[0]).toMatchObject({ rel: 'create', id: expect.any(Number) });
    const vpc = await sandbox.store.read((world) => world.vpcs.find((v) => v.id === droplet.vpc_uuid));
    expect(vpc).toMatchObject({ region: 'nyc3', default: true });
    const privateIp = droplet.networks.v4.find((n: { type: string }) => n.type === 'private').ip_address;
    const prefix = vpc?.ip_range.split('.').slice(0, 2).join('.');
    expect(privateIp.startsWith(`${prefix}.`)).toBe(true);
    expect(droplet.networks.v4.find((n: { type: string }) => n.type === 'public')).toBeDefined();

    // Actions are refused while it boots, as the platform refuses them.
    expect422(await act(droplet.id, { type: 'reboot' }), /pending event/);
    await sandbox.advanceClock(3_000);
    expect((await getDroplet(droplet.id)).status).toBe('active');
    const created = await call('actions_get', { params: { action_id: reply.body.links.actions[0].id } });
    expect(created.body.action).toMatchObject({ type: 'create', status: 'completed' });
    const list = await call('droplets_list');
    expect(list.body.droplets.map((d: { id: number }) => d.id)).toContain(droplet.id);
  });

  it('droplets_create refuses what the platform refuses, naming the problem, and changes nothing', async () => {
    const before = await dropletCount();
    const base = { name: 'bad', region: 'nyc3', size: 's-1vcpu-1gb', image: UBUNTU };
    expect422(
      await call('droplets_create', { json: { ...base, size: 's-99vcpu' } }),
      /invalid size.*s-99vcpu/,
    );
    expect422(await call('droplets_create', { json: { ...base, region: 'mars1' } }), /invalid region.*mars1/);
    expect422(await call('droplets_create', { json: { ...base, image: 999 } }), /invalid image.*999/);
    expect422(
      await call('droplets_create', { json: { ...base, region: 'blr1', size: 'm-2vcpu-16gb' } }),
      /m-2vcpu-16gb is not available in region blr1/,
    );
    expect422(
      await call('droplets_create', { json: { ...base, size: 's-1vcpu-512mb-10gb', image: FEDORA } }),
      /at least 15 GB.*s-1vcpu-512mb-10gb has 10 GB/,
    );
    expect422(
      await call('droplets_create', { json: { ...base, size: 's-3vcpu-1gb' } }),
      /no longer available/,
    );
    expect422(await call('droplets_create', { json: { ...base, region: 'nyc2' } }), /nyc2 is not available/);
    expect422(
      await call('droplets_create', { json: { ...base, image: 154870336, region: 'tor1' } }),
      /not available in region tor1/,
    );
    expect422(await call('droplets_create', { json: { ...base, name: 'no spaces' } }), /hostname/);
    expect422(
      await call('droplets_create', { json: { ...base, backups: 'yes' } }),
      /backups must be a boolean/,
    );
    expect(await dropletCount()).toBe(before);
    // Public images are usable in atl1 although the image schema cannot list it.
    expect((await createDroplet({ region: 'atl1' })).status).toBe('new');
  });

  it('power, snapshot, restore, resize and delete through the lifecycle', async () => {
    const { id } = await createDroplet();
    await sandbox.advanceClock(3_000);
    expect422(await act(id, { type: 'resize', size: 's-2vcpu-4gb' }), /power it off/);

    const off = await act(id, { type: 'power_off' });
    expect(off.status).toBe(201);
    expect((await getDroplet(id)).status).toBe('active');
    expect422(await act(id, { type: 'power_on' }), /pending event/);
    await sandbox.advanceClock(2_000);
    expect((await getDroplet(id)).status).toBe('off');
    const viaDroplet = await call('dropletActions_get', {
      params: { droplet_id: id, action_id: off.body.action.id },
    });
    expect(viaDroplet.body.action).toMatchObject({
      type: 'power_off',
      status: 'completed',
      resource_type: 'droplet',
    });
    const listed = await call('actions_list', { query: '?per_page=200' });
    expect(listed.body.actions.map((a: { id: number }) => a.id)).toContain(off.body.action.id);

    const snap = await act(id, { type: 'snapshot', name: 'before-resize' });
    expect(snap.status).toBe(201);
    expect((await getDroplet(id)).snapshot_ids).toEqual([]);
    await sandbox.advanceClock(3_000);
    const [snapshotId] = (await getDroplet(id)).snapshot_ids;
    const snapshot = (await call('images_get', { params: { image_id: snapshotId } })).body.image;
    expect(snapshot).toMatchObject({
      name: 'before-resize',
      type: 'snapshot',
      public: false,
      min_disk_size: 25,
    });
    const mine = await call('images_list', { query: '?private=true' });
    expect(mine.body.images.map((i: { id: number }) => i.id)).toContain(snapshotId);

    expect422(await act(id, { type: 'restore', image: UBUNTU }), /not a backup or snapshot/);
    await actAndComplete(id, { type: 'restore', image: snapshotId });
    expect((await getDroplet(id)).image).toMatchObject({ id: snapshotId, type: 'snapshot' });

    // Without disk: CPU and memory only, reversible. With disk: permanent.
    await actAndComplete(id, { type: 'resize', size: 's-2vcpu-4gb', disk: false });
    expect(await getDroplet(id)).toMatchObject({
      size_slug: 's-2vcpu-4gb',
      memory: 4096,
      vcpus: 2,
      disk: 25,
    });
    await actAndComplete(id, { type: 'resize', size: 's-1vcpu-1gb' });
    expect(await getDroplet(id)).toMatchObject({ size_slug: 's-1vcpu-1gb', disk: 25 });
    await actAndComplete(id, { type: 'resize', size: 's-2vcpu-4gb', disk: true });
    expect(await getDroplet(id)).toMatchObject({ size_slug: 's-2vcpu-4gb', disk: 80 });
    expect422(await act(id, { type: 'resize', size: 's-1vcpu-1gb' }), /smaller disk/);
    expect422(await act(id, { type: 'resize', size: 'm-2vcpu-16gb-x' }), /invalid size/);

    await actAndComplete(id, { type: 'power_on' });
    expect((await getDroplet(id)).status).toBe('active');

    const gone = await call('droplets_destroy', { params: { droplet_id: id } });
    expect(gone.status).toBe(204);
    expect((await call('droplets_get', { params: { droplet_id: id } })).status).toBe(404);
    // The snapshot outlives the droplet.
    expect((await call('images_get', { params: { image_id: snapshotId } })).status).toBe(200);
  });

  it('rename, kernel, IPv6, private networking, backups, rebuild, password reset, reboot, power cycle', async () => {
    const { id } = await createDroplet();
    await sandbox.advanceClock(3_000);
    await actAndComplete(id, { type: 'rename', name: 'renamed-1' });
    expect((await getDroplet(id)).name).toBe('renamed-1');

    expect422(await act(id, { type: 'change_kernel', kernel: 1 }), /Kernel 1 is not available/);
    await actAndComplete(id, { type: 'change_kernel', kernel: 10487 });
    expect((await getDroplet(id)).kernel).toMatchObject({ id: 10487 });

    await actAndComplete(id, { type: 'enable_ipv6' });
    const v6 = await getDroplet(id);
    expect(v6.features).toContain('ipv6');
    expect(v6.networks.v6).toEqual([expect.objectContaining({ type: 'public', netmask: 64 })]);

    await actAndComplete(id, { type: 'enable_private_networking' });
    expect((await getDroplet(id)).features).toContain('private_networking');

    await actAndComplete(id, { type: 'enable_backups' });
    const backed = await getDroplet(id);
    expect(backed.features).toContain('backups');
    expect(backed.next_backup_window).toMatchObject({ start: expect.any(String) });
    await sandbox.advanceClock(5_000);
    const [backupId] = (await getDroplet(id)).backup_ids;
    expect(backupId).toEqual(expect.any(Number));
    expect((await call('images_get', { params: { image_id: backupId } })).body.image.type).toBe('backup');

    // image convert: a backup becomes a snapshot.
    expect422(
      await call('imageActions_post', { params: { image_id: UBUNTU }, json: { type: 'convert' } }),
      /public image/,
    );
    const convert = await call('imageActions_post', {
      params: { image_id: backupId },
      json: { type: 'convert' },
    });
    expect(convert.status).toBe(201);
    await sandbox.advanceClock(2_000);
    const converted = await call('imageActions_get', {
      params: { image_id: backupId, action_id: convert.body.action.id },
    });
    expect(converted.body.action).toMatchObject({ type: 'convert', status: 'completed' });
    expect((await getDroplet(id)).snapshot_ids).toContain(backupId);

    await actAndComplete(id, { type: 'disable_backups' });
    expect(await getDroplet(id)).toMatchObject({ next_backup_window: null });
    expect((await getDroplet(id)).features).not.toContain('backups');

    await actAndComplete(id, { type: 'rebuild', image: 'debian-12-x64' });
    expect((await getDroplet(id)).image).toMatchObject({ slug: 'debian-12-x64' });
    await actAndComplete(id, { type: 'rebuild', image: DOCKER });
    expect((await getDroplet(id)).image).toMatchObject({ id: DOCKER });
    expect422(await act(id, { type: 'rebuild', image: 'no-such-slug' }), /invalid image/);

    await actAndComplete(id, { type: 'password_reset' });
    await actAndComplete(id, { type: 'power_cycle' });
    await actAndComplete(id, { type: 'shutdown' });
    expect((await getDroplet(id)).status).toBe('off');
    await actAndComplete(id, { type: 'reboot' });
    expect((await getDroplet(id)).status).toBe('active');
    expect422(await act(id, { type: 'explode' }), /not a Droplet action type/);
    expect(
      (await call('dropletActions_post', { params: { droplet_id: 1 }, json: { type: 'reboot' } })).status,
    ).toBe(404);
  });

  it('actions by tag: one action per tagged droplet; an unknown tag is a 404', async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createDroplet({ tags: ['bulk'] })).id);
    const untagged = await createDroplet();
    await sandbox.advanceClock(3_000);
    const reply = await call('dropletActions_post_byTag', {
      query: '?tag_name=bulk',
      json: { type: 'power_off' },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.actions.map((a: { resource_id: number }) => a.resource_id).sort()).toEqual(ids.sort());
    await sandbox.advanceClock(2_000);
    for (const id of ids) expect((await getDroplet(id)).status).toBe('off');
    expect((await getDroplet(untagged.id)).status).toBe('active');

    const snaps = await call('dropletActions_post_byTag', {
      query: '?tag_name=bulk',
      json: { type: 'snapshot', name: 'nightly' },
    });
    expect(snaps.body.actions).toHaveLength(3);
    await sandbox.advanceClock(3_000);
    for (const id of ids) expect((await getDroplet(id)).snapshot_ids).toHaveLength(1);

    const missing = await call('dropletActions_post_byTag', {
      query: '?tag_name=nobody',
      json: { type: 'power_on' },
    });
    expect(missing.status).toBe(404);
    expect422(
      await call('dropletActions_post_byTag', { query: '?tag_name=bulk', json: { type: 'rebuild' } }),
      /type must be one of/,
    );
  });
});

describe('images', () => {
  it('custom image: NEW, then available; rename, transfer, delete', async () => {
    const created = await call('images_create_custom', {
      json: {
        name: 'base',
        url: 'https://example.com/disk.qcow2',
        region: 'nyc3',
        distribution: 'Ubuntu',
        tags: ['x'],
      },
    });
    expect(created.status).toBe(202);
    const id = created.body.image.id;
    expect(created.body.image).toMatchObject({ type: 'custom', status: 'NEW', public: false, regions: [] });
    expect422(
      await call('imageActions_post', {
        params: { image_id: id },
        json: { type: 'transfer', region: 'lon1' },
      }),
      /not available yet/,
    );
    await sandbox.advanceClock(4_000);
    expect((await call('images_get', { params: { image_id: id } })).body.image).toMatchObject({
      status: 'available',
      regions: ['nyc3'],
    });

    const renamed = await call('images_update', { params: { image_id: id }, json: { name: 'base-v2' } });
    expect(renamed.body.image.name).toBe('base-v2');

    const transfer = await call('imageActions_post', {
      params: { image_id: id },
      json: { type: 'transfer', region: 'lon1' },
    });
    expect(transfer.status).toBe(201);
    expect(transfer.body.action).toMatchObject({ type: 'transfer', status: 'in-progress' });
    expect((await call('images_get', { params: { image_id: id } })).body.image.regions).toEqual(['nyc3']);
    await sandbox.advanceClock(2_000);
    expect((await call('images_get', { params: { image_id: id } })).body.image.regions).toEqual([
      'nyc3',
      'lon1',
    ]);
    expect422(
      await call('imageActions_post', { params: { image_id: id }, json: { type: 'convert' } }),
      /only backups/,
    );

    expect422(
      await call('images_create_custom', { json: { name: 'x', url: 'ftp://nope', region: 'nyc3' } }),
      /url/,
    );
    expect422(
      await call('images_create_custom', {
        json: { name: 'x', url: 'https://e.com/a', region: 'nyc3', distribution: 'Windows' },
      }),
      /distribution must be one of/,
    );
    expect422(await call('images_delete', { params: { image_id: UBUNTU } }), /public image/);

    expect((await call('images_delete', { params: { image_id: id } })).status).toBe(204);
    expect((await call('images_get', { params: { image_id: id } })).status).toBe(404);
  });

  it('images_create_custom takes only an http(s) URL without spaces or control characters', async () => {
    const refused = [
      'https://example.com/a.img\r\nX-Injected: 1',
      'https://example.com/\na.img',
      'https://example.com/\ta.img',
      '\thttps://example.com/a.img',
      ' https://example.com/a.img',
      'https://example.com/a b.img',
      'https://example.com/a\u0000.img',
      'https://example.com/a\u0085.img',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'ftp://example.com/a.img',
      'http:example.com/a.img',
      'https:///a.img',
      'https://',
    ];
    for (const url of refused) {
      const before = await sandbox.store.read((world) => JSON.stringify(world));
      expect422(
        await call('images_create_custom', { json: { name: 'x', url, region: 'nyc3' } }),
        /^url must/,
      );
      expect(await sandbox.store.read((world) => JSON.stringify(world)), JSON.stringify(url)).toBe(before);
    }
    for (const url of ['https://example.com/a.img', 'HTTP://example.com:8080/a.img?sig=a%2Fb']) {
      const reply = await call('images_create_custom', { json: { name: 'ok', url, region: 'nyc3' } });
      expect(reply.status, url).toBe(202);
    }
  });
});
