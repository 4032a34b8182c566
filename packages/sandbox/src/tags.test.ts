/**
 * Tags, snapshots and the droplet routes around them: tags as state shared by VMs, images and
 * database clusters; snapshots across resources (a VM's snapshot images); a VM's snapshots,
 * backups, backup policy, neighbours and associated resources; deleting VMs by tag and creating
 * several at once. Every answer is checked against the OpenAPI description's schema for its
 * status (callOperation); time moves with `advanceClock`.
 */
import { randomUUID } from 'node:crypto';
import { validateRequest } from '@cloudcall/openapi-subset';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from './server.js';
import { type CallOptions, callOperation, type Reply } from './testing/operations.js';

let sandbox: Sandbox;
const call = (operationId: string, options?: CallOptions) => callOperation(sandbox.url, operationId, options);

const UBUNTU = 161928327;

function expectError(reply: Reply, status: number, message?: RegExp): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.body).toMatchObject({
    id: expect.any(String),
    message: expect.any(String),
    request_id: expect.any(String),
  });
  if (message) expect(reply.body.message).toMatch(message);
}

async function createDroplet(extra: Record<string, unknown> = {}): Promise<number> {
  const reply = await call('droplets_create', {
    json: {
      name: `vm-${randomUUID().slice(0, 8)}`,
      region: 'nyc3',
      size: 's-1vcpu-1gb',
      image: UBUNTU,
      ...extra,
    },
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(202);
  // Booted, so that actions on it are not refused as pending.
  await sandbox.advanceClock(5_000);
  return reply.body.droplet.id;
}

const droplet = async (id: number) =>
  (await call('droplets_get', { params: { droplet_id: id } })).body.droplet;
const tag = (name: string) => call('tags_get', { params: { tag_id: name } });
const tagging = (operationId: string, name: string, resources: unknown[]) => {
  const json = { resources };
  return call(operationId, { params: { tag_id: name }, json });
};

/** Posts a droplet action, checks the request against the description, lets it complete. */
async function actAndComplete(id: number, json: Record<string, unknown>) {
  const { errors } = validateRequest('dropletActions_post', json);
  // The description maps change_backup_policy to its schema but leaves it out of the type enum.
  const expected =
    json.type === 'change_backup_policy' ? [expect.stringMatching(/^\/type must be equal to one of/)] : [];
  expect(errors).toEqual(expected);
  const reply = await call('dropletActions_post', { params: { droplet_id: id }, json });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  await sandbox.advanceClock(8_000);
  return reply.body.action;
}

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

describe('tags', () => {
  it('tags_create answers 201 with empty counts; an existing name answers the tag as first written', async () => {
    const created = await call('tags_create', { json: { name: 'Frontend' } });
    expect(created.status).toBe(201);
    expect(created.body.tag).toEqual({
      name: 'Frontend',
      resources: {
        count: 0,
        droplets: { count: 0 },
        images: { count: 0 },
        volumes: { count: 0 },
        volume_snapshots: { count: 0 },
        databases: { count: 0 },
      },
    });
    const again = await call('tags_create', { json: { name: 'frontend' } });
    expect(again.status).toBe(201);
    expect(again.body.tag.name).toBe('Frontend');
    const listed = await call('tags_list', { query: '?per_page=200' });
    expect(listed.body.tags.filter((t: { name: string }) => /^frontend$/i.test(t.name))).toHaveLength(1);
    // Paths take the canonical capitalisation.
    expect((await tag('Frontend')).status).toBe(200);
    expectError(await tag('frontend'), 404);
  });

  it("refuses names outside the platform's charset with 400; unknown tags are 404", async () => {
    for (const name of ['has space', 'semi;colon', 'é', '']) {
      expectError(await call('tags_create', { json: { name } }), 400, /tag name/);
    }
    expectError(await call('tags_create', { json: {} }), 400);
    expectError(await tag('never-made'), 404);
    expectError(await call('tags_delete', { params: { tag_id: 'never-made' } }), 404);
    expectError(
      await tagging('tags_assign_resources', 'never-made', [{ resource_id: '1', resource_type: 'droplet' }]),
      404,
    );
  });

  it('a VM created with tags creates them; tagging shows on the VM, in vm-list?tag_name= and in the counts', async () => {
    const a = await createDroplet({ tags: ['fresh-tag', 'env:prod'] });
    const fresh = await tag('fresh-tag');
    expect(fresh.status).toBe(200);
    expect(fresh.body.tag.resources).toMatchObject({
      count: 1,
      last_tagged_uri: `${sandbox.url}/v2/droplets/${a}`,
      droplets: { count: 1, last_tagged_uri: `${sandbox.url}/v2/droplets/${a}` },
    });

    const b = await createDroplet();
    expect((await call('tags_create', { json: { name: 'web' } })).status).toBe(201);
    const resources = [
      { resource_id: String(a), resource_type: 'droplet' },
      { resource_id: String(b), resource_type: 'droplet' },
    ];
    expect(validateRequest('tags_assign_resources', { resources })).toEqual({ valid: true, errors: [] });
    const assigned = await tagging('tags_assign_resources', 'web', resources);
    expect(assigned.status).toBe(204);
    expect(assigned.text).toBe('');
    expect((await droplet(a)).tags).toEqual(['fresh-tag', 'env:prod', 'web']);
    expect((await droplet(b)).tags).toEqual(['web']);
    const listed = await call('droplets_list', { query: '?tag_name=web' });
    expect(listed.body.droplets.map((d: { id: number }) => d.id).sort()).toEqual([a, b].sort());
    expect((await tag('web')).body.tag.resources).toMatchObject({
      count: 2,
      last_tagged_uri: `${sandbox.url}/v2/droplets/${b}`,
      droplets: { count: 2, last_tagged_uri: `${sandbox.url}/v2/droplets/${b}` },
      images: { count: 0 },
    });
    // Tagging again changes nothing; the by-tag actions see the tag.
    expect((await tagging('tags_assign_resources', 'web', resources.slice(0, 1))).status).toBe(204);
    expect((await droplet(a)).tags.filter((t: string) => t === 'web')).toHaveLength(1);
    const byTag = await call('dropletActions_post_byTag', {
      query: '?tag_name=web',
      json: { type: 'power_off' },
    });
    expect(byTag.body.actions).toHaveLength(2);

    const untagged = await tagging('tags_unassign_resources', 'web', [resources[1]]);
    expect(untagged.status).toBe(204);
    expect((await droplet(b)).tags).toEqual([]);
    expect((await tag('web')).body.tag.resources).toMatchObject({
      count: 1,
      last_tagged_uri: `${sandbox.url}/v2/droplets/${a}`,
    });

    // Deleting the tag untags every resource.
    const deleted = await call('tags_delete', { params: { tag_id: 'web' } });
    expect(deleted.status).toBe(204);
    expect((await droplet(a)).tags).toEqual(['fresh-tag', 'env:prod']);
    expectError(await tag('web'), 404);
  });

  it('tags images of the account and database clusters, counting each type', async () => {
    const vm = await createDroplet();
    await actAndComplete(vm, { type: 'snapshot', name: 'tagged-snap' });
    const snapshotId = (await droplet(vm)).snapshot_ids[0];
    const cluster = await call('databases_create_cluster', {
      json: {
        name: `pg-${randomUUID().slice(0, 8)}`,
        engine: 'pg',
        version: '16',
        region: 'nyc3',
        size: 'db-s-1vcpu-1gb',
        num_nodes: 1,
        tags: ['db-new'],
      },
    });
    expect(cluster.status).toBe(201);
    const clusterId = cluster.body.database.id;
    expect((await tag('db-new')).body.tag.resources.databases).toEqual({
      count: 1,
      last_tagged_uri: `${sandbox.url}/v2/databases/${clusterId}`,
    });

    await call('tags_create', { json: { name: 'mixed' } });
    const resources = [
      { resource_id: String(snapshotId), resource_type: 'image' },
      { resource_id: clusterId, resource_type: 'database' },
    ];
    expect((await tagging('tags_assign_resources', 'mixed', resources)).status).toBe(204);
    const image = await call('images_get', { params: { image_id: snapshotId } });
    expect(image.body.image.tags).toEqual(['mixed']);
    const db = await call('databases_get_cluster', { params: { database_cluster_uuid: clusterId } });
    expect(db.body.database.tags).toEqual(['db-new', 'mixed']);
    expect((await call('databases_list_clusters', { query: '?tag_name=mixed' })).body.databases).toHaveLength(
      1,
    );
    expect((await tag('mixed')).body.tag.resources).toMatchObject({
      count: 2,
      last_tagged_uri: `${sandbox.url}/v2/databases/${clusterId}`,
      images: { count: 1, last_tagged_uri: `${sandbox.url}/v2/images/${snapshotId}` },
      databases: { count: 1 },
      droplets: { count: 0 },
    });
    expect((await call('snapshots_get', { params: { snapshot_id: snapshotId } })).body.snapshot.tags).toEqual(
      ['mixed'],
    );
    expect((await tagging('tags_unassign_resources', 'mixed', resources)).status).toBe(204);
    expect((await tag('mixed')).body.tag.resources.count).toBe(0);
  });

  it('refuses unknown resources (404) and types it does not know (422), changing nothing', async () => {
    const vm = await createDroplet();
    await call('tags_create', { json: { name: 'careful' } });
    const refused = [
      [{ resource_id: '999999999', resource_type: 'droplet' }, 404],
      // A public image belongs to no account.
      [{ resource_id: String(UBUNTU), resource_type: 'image' }, 404],
      [{ resource_id: randomUUID(), resource_type: 'database' }, 404],
      [{ resource_id: randomUUID(), resource_type: 'volume' }, 404],
      [{ resource_id: String(vm), resource_type: 'load_balancer' }, 422],
      [{ resource_type: 'droplet' }, 422],
    ] as const;
    for (const [bad, status] of refused) {
      // The good resource first: a refusal must leave it untagged too.
      const reply = await tagging('tags_assign_resources', 'careful', [
        { resource_id: String(vm), resource_type: 'droplet' },
        bad,
      ]);
      expectError(reply, status);
    }
    expectError(await tagging('tags_assign_resources', 'careful', []), 422);
    expect((await droplet(vm)).tags).toEqual([]);
    expect((await tag('careful')).body.tag.resources.count).toBe(0);
    expectError(
      await call('droplets_create', {
        json: { name: 'x', region: 'nyc3', size: 's-1vcpu-1gb', image: UBUNTU, tags: ['bad tag'] },
      }),
      422,
      /tag name/,
    );
  });
});

describe('snapshots', () => {
  it('a VM snapshot appears once taken, in /v2/snapshots, the VM lists and image-list; deleting removes it everywhere', async () => {
    const vm = await createDroplet();
    await sandbox.advanceClock(5_000);
    const reply = await call('dropletActions_post', {
      params: { droplet_id: vm },
      json: { type: 'snapshot', name: 'nightly' },
    });
    expect(reply.status).toBe(201);
    const mine = async () =>
      (await call('snapshots_list', { query: '?per_page=200' })).body.snapshots.filter(
        (s: { resource_id: string }) => s.resource_id === String(vm),
      );
    expect(await mine()).toEqual([]);
    await sandbox.advanceClock(5_000);
    const [snapshot] = await mine();
    expect(snapshot).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      name: 'nightly',
      resource_id: String(vm),
      resource_type: 'droplet',
      regions: ['nyc3'],
      min_disk_size: 25,
      tags: [],
    });
    expect(
      (await call('snapshots_list', { query: '?resource_type=droplet&per_page=200' })).body.snapshots,
    ).toContainEqual(snapshot);
    expect((await call('snapshots_list', { query: '?resource_type=volume' })).body).toMatchObject({
      snapshots: [],
      meta: { total: 0 },
    });
    expectError(await call('snapshots_list', { query: '?resource_type=image' }), 400);
    expect((await call('snapshots_get', { params: { snapshot_id: snapshot.id } })).body.snapshot).toEqual(
      snapshot,
    );

    const vmList = await call('droplets_list_snapshots', { params: { droplet_id: vm } });
    expect(vmList.body.snapshots).toEqual(
      [
        {
          ...snapshot,
          id: Number(snapshot.id),
          type: 'snapshot',
          resource_id: undefined,
          resource_type: undefined,
          tags: undefined,
        },
      ].map((s) => JSON.parse(JSON.stringify(s))),
    );
    expect((await droplet(vm)).snapshot_ids).toEqual([Number(snapshot.id)]);
    expect((await call('images_get', { params: { image_id: snapshot.id } })).body.image.type).toBe(
      'snapshot',
    );

    const deleted = await call('snapshots_delete', { params: { snapshot_id: snapshot.id } });
    expect(deleted.status).toBe(204);
    expect(await mine()).toEqual([]);
    expect((await droplet(vm)).snapshot_ids).toEqual([]);
    expect((await call('droplets_list_snapshots', { params: { droplet_id: vm } })).body.snapshots).toEqual(
      [],
    );
    expectError(await call('images_get', { params: { image_id: snapshot.id } }), 404);
    expectError(await call('snapshots_delete', { params: { snapshot_id: snapshot.id } }), 404);
  });

  it('snapshots taken by tag appear for each tagged VM, in /v2/snapshots and each VM list', async () => {
    const vms = [
      await createDroplet({ tags: ['snap-batch'] }),
      await createDroplet({ tags: ['snap-batch'] }),
    ];
    const reply = await call('dropletActions_post_byTag', {
      query: '?tag_name=snap-batch',
      json: { type: 'snapshot', name: 'batch-snap' },
    });
    expect(reply.status).toBe(201);
    await sandbox.advanceClock(5_000);
    const all = (await call('snapshots_list', { query: '?per_page=200' })).body.snapshots;
    const batch = all.filter((s: { name: string }) => s.name === 'batch-snap');
    expect(batch.map((s: { resource_id: string }) => s.resource_id).sort()).toEqual(vms.map(String).sort());
    for (const vm of vms) {
      const listed = (await call('droplets_list_snapshots', { params: { droplet_id: vm } })).body.snapshots;
      expect(listed.map((s: { name: string }) => s.name)).toEqual(['batch-snap']);
    }
  });

  it('backups are not snapshots; a volume snapshot UUID is 404, anything else 400', async () => {
    const vm = await createDroplet({ backups: true });
    await sandbox.advanceClock(10_000);
    const backups = await call('droplets_list_backups', { params: { droplet_id: vm } });
    expect(backups.body.backups).toEqual([expect.objectContaining({ type: 'backup', min_disk_size: 25 })]);
    expect(backups.body.meta.total).toBe(1);
    const backupId = backups.body.backups[0].id;
    expect((await droplet(vm)).backup_ids).toEqual([backupId]);
    expectError(await call('snapshots_get', { params: { snapshot_id: backupId } }), 404);
    expect((await call('droplets_list_snapshots', { params: { droplet_id: vm } })).body.snapshots).toEqual(
      [],
    );
    expectError(await call('snapshots_get', { params: { snapshot_id: randomUUID() } }), 404);
    expectError(await call('snapshots_get', { params: { snapshot_id: 'latest' } }), 400);
    expectError(await call('droplets_list_backups', { params: { droplet_id: 999_999_999 } }), 404);
  });
});

describe('a VM and what surrounds it', () => {
  it('backup policy: off until enabled; enabled with a weekly policy; changed to daily by change_backup_policy', async () => {
    const vm = await createDroplet();
    const before = await call('droplets_get_backup_policy', { params: { droplet_id: vm } });
    expect(before.body.policy).toEqual({ droplet_id: vm, backup_enabled: false, next_backup_window: null });
    const refused = await call('dropletActions_post', {
      params: { droplet_id: vm },
      json: { type: 'change_backup_policy', backup_policy: { plan: 'daily', hour: 4 } },
    });
    expectError(refused, 422, /not enabled/);

    await actAndComplete(vm, {
      type: 'enable_backups',
      backup_policy: { plan: 'weekly', weekday: 'WED', hour: 8 },
    });
    const weekly = (await call('droplets_get_backup_policy', { params: { droplet_id: vm } })).body.policy;
    expect(weekly).toMatchObject({
      droplet_id: vm,
      backup_enabled: true,
      backup_policy: {
        plan: 'weekly',
        weekday: 'WED',
        hour: 8,
        window_length_hours: 4,
        retention_period_days: 28,
      },
    });
    const start = new Date(weekly.next_backup_window.start);
    expect([start.getUTCDay(), start.getUTCHours(), start.getUTCMinutes()]).toEqual([3, 8, 0]);
    expect(Date.parse(weekly.next_backup_window.end) - start.getTime()).toBe(4 * 3_600_000);
    expect((await droplet(vm)).next_backup_window).toEqual(weekly.next_backup_window);

    for (const bad of [
      { plan: 'monthly' },
      { plan: 'daily', hour: 5 },
      { plan: 'daily', weekday: 'MON' },
      { plan: 'weekly', weekday: 'FUN' },
    ]) {
      const reply = await call('dropletActions_post', {
        params: { droplet_id: vm },
        json: { type: 'change_backup_policy', backup_policy: bad },
      });
      expectError(reply, 422, /backup_policy/);
    }
    await actAndComplete(vm, { type: 'change_backup_policy', backup_policy: { plan: 'daily', hour: 20 } });
    const daily = (await call('droplets_get_backup_policy', { params: { droplet_id: vm } })).body.policy;
    expect(daily.backup_policy).toEqual({
      plan: 'daily',
      hour: 20,
      window_length_hours: 4,
      retention_period_days: 7,
    });
    expect(new Date(daily.next_backup_window.start).getUTCHours()).toBe(20);
    expectError(await call('droplets_get_backup_policy', { params: { droplet_id: 999_999_999 } }), 404);
  });

  it('kernels are paged; neighbours are none (hardware of its own); unknown VMs are 404', async () => {
    const vm = await createDroplet();
    const all = (await call('droplets_list_kernels', { params: { droplet_id: vm }, query: '?per_page=200' }))
      .body;
    expect(all.kernels.length).toBeGreaterThan(2);
    const second = (
      await call('droplets_list_kernels', { params: { droplet_id: vm }, query: '?per_page=1&page=2' })
    ).body;
    expect(second.kernels).toEqual([all.kernels[1]]);
    expect((await call('droplets_list_neighbors', { params: { droplet_id: vm } })).body).toEqual({
      droplets: [],
    });
    expect((await call('droplets_list_neighborsIds')).body).toEqual({ neighbor_ids: [] });
    expectError(await call('droplets_list_neighbors', { params: { droplet_id: 999_999_999 } }), 404);
    expectError(await call('droplets_list_kernels', { params: { droplet_id: 999_999_999 } }), 404);
  });

  it('associated resources: its reserved IP and its snapshots, with their costs', async () => {
    const vm = await createDroplet();
    await sandbox.advanceClock(5_000);
    const reserved = await call('reservedIPs_create', { json: { droplet_id: vm } });
    expect(reserved.status).toBe(202);
    await actAndComplete(vm, { type: 'snapshot', name: 'keep-me' });
    const { body } = await call('droplets_list_associatedResources', { params: { droplet_id: vm } });
    const ip = reserved.body.reserved_ip.ip;
    expect(body.reserved_ips).toEqual([{ id: ip, name: ip, cost: '4.00' }]);
    expect(body.floating_ips).toEqual(body.reserved_ips);
    expect(body.snapshots).toEqual([
      { id: expect.stringMatching(/^\d+$/), name: 'keep-me', cost: expect.stringMatching(/^\d+\.\d{2}$/) },
    ]);
    expect(body).toMatchObject({ volumes: [], volume_snapshots: [] });
    expectError(
      await call('droplets_list_associatedResources', { params: { droplet_id: 999_999_999 } }),
      404,
    );
  });

  it('DELETE /v2/droplets?tag_name= deletes exactly the tagged VMs (204); an unknown tag is 404', async () => {
    const doomed = [await createDroplet({ tags: ['doomed'] }), await createDroplet({ tags: ['doomed'] })];
    const kept = await createDroplet({ tags: ['kept'] });
    const reply = await call('droplets_destroy_byTag', { query: '?tag_name=doomed' });
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    for (const id of doomed) expectError(await call('droplets_get', { params: { droplet_id: id } }), 404);
    expect((await droplet(kept)).id).toBe(kept);
    // The tag stays, tagging nothing; deleting by it again deletes nothing.
    expect((await tag('doomed')).body.tag.resources.count).toBe(0);
    expect((await call('droplets_destroy_byTag', { query: '?tag_name=doomed' })).status).toBe(204);
    expectError(await call('droplets_destroy_byTag', { query: '?tag_name=no-such-tag' }), 404);
  });

  it('names creates up to 10 VMs in one request, all or none', async () => {
    const count = () => sandbox.store.read((world) => world.droplets.length);
    const body = { region: 'nyc3', size: 's-1vcpu-1gb', image: UBUNTU, tags: ['batch'] };
    const names = ['batch-1', 'batch-2', 'batch-3'];
    expect(validateRequest('droplets_create', { ...body, names })).toEqual({ valid: true, errors: [] });
    const reply = await call('droplets_create', { json: { ...body, names } });
    expect(reply.status).toBe(202);
    expect(reply.body.droplets.map((d: { name: string }) => d.name)).toEqual(names);
    expect(reply.body.droplets.every((d: { tags: string[] }) => d.tags.includes('batch'))).toBe(true);
    expect(reply.body.links.actions).toEqual(
      reply.body.droplets.map(() => ({
        id: expect.any(Number),
        rel: 'multiple_create',
        href: expect.stringContaining('/v2/actions/'),
      })),
    );
    const ips = reply.body.droplets.map(
      (d: { networks: { v4: { type: string; ip_address: string }[] } }) =>
        d.networks.v4.find((n) => n.type === 'private')?.ip_address,
    );
    expect(new Set(ips).size).toBe(3);

    const before = await count();
    const eleven = Array.from({ length: 11 }, (_, i) => `many-${i}`);
    expectError(await call('droplets_create', { json: { ...body, names: eleven } }), 422, /up to 10/);
    expectError(
      await call('droplets_create', { json: { ...body, names: ['ok-1', 'not_ok'] } }),
      422,
      /hostname/,
    );
    expectError(
      await call('droplets_create', { json: { ...body, name: 'one', names: ['two'] } }),
      422,
      /either/,
    );
    expect(await count()).toBe(before);
  });
});
