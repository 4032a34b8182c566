/**
 * Block-storage volumes and projects as the platform runs them: each rule tried from the side that
 * breaks it (another region, a second VM, one volume too many, deleting while attached, shrinking,
 * a snapshot's region, the default project), with no change to state when refused, the state kept
 * in the state file across a restart, and every answer checked against the OpenAPI response schema
 * of its operation (`callOperation`).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VOLUMES_PER_DROPLET } from './families/volumes.js';
import { type Sandbox, startSandbox } from './server.js';
import { type CallOptions, callOperation, type Reply } from './testing/operations.js';
import type { World } from './world.js';

const REGION = 'nyc3';
let sandbox: Sandbox;

const call = (operationId: string, options?: CallOptions) => callOperation(sandbox.url, operationId, options);

function expectError(reply: Reply, status: number, mentions: RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual({
    id: expect.any(String),
    message: expect.stringMatching(mentions),
    request_id: expect.any(String),
  });
}

const storage = () =>
  sandbox.store.read((w: World) =>
    structuredClone({
      volumes: w.volumes,
      snapshots: w.volumeSnapshots,
      projects: w.projects,
      a: w.projectAssignments,
    }),
  );

/** Expects a refusal that changes nothing. */
async function refusedUnchanged(reply: Promise<Reply>, status: number, mentions: RegExp) {
  const before = await storage();
  expectError(await reply, status, mentions);
  expect(await storage()).toEqual(before);
}

async function vm(name: string, region = REGION, extra: Record<string, unknown> = {}): Promise<number> {
  const created = await call('droplets_create', {
    json: { name, region, size: 's-1vcpu-1gb', image: 'ubuntu-24-04-x64', ...extra },
  });
  expect(created.status, created.text).toBe(202);
  return created.body.droplet.id;
}

async function volume(name: string, json: Record<string, unknown> = {}) {
  const created = await call('volumes_create', {
    json: { name, region: REGION, size_gigabytes: 10, ...json },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.volume as { id: string; name: string; droplet_ids: number[]; size_gigabytes: number };
}

const attach = (id: string, dropletId: unknown, extra: Record<string, unknown> = {}) =>
  call('volumeActions_post_byId', {
    params: { volume_id: id },
    json: { type: 'attach', droplet_id: dropletId, ...extra },
  });

// In memory: the state file's part is the last test's, with a sandbox of its own.
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

describe('volumes', () => {
  it('creates, lists by name and region, gets, and shows the fields given', async () => {
    const created = await volume('data-1', {
      description: 'logs',
      filesystem_type: 'ext4',
      filesystem_label: 'logs',
      tags: ['storage'],
    });
    expect(created).toMatchObject({
      name: 'data-1',
      size_gigabytes: 10,
      description: 'logs',
      filesystem_type: 'ext4',
      filesystem_label: 'logs',
      tags: ['storage'],
      droplet_ids: [],
      region: { slug: REGION },
    });
    const listed = await call('volumes_list', { query: `?name=data-1&region=${REGION}` });
    expect(listed.body.volumes.map((v: { id: string }) => v.id)).toEqual([created.id]);
    // Another region's list holds none of this region's volumes (other tests may have made some there).
    const sfo3 = (await call('volumes_list', { query: '?region=sfo3&per_page=200' })).body.volumes;
    expect(sfo3.map((v: { region: { slug: string } }) => v.region.slug)).not.toContain(REGION);
    expect(sfo3.map((v: { id: string }) => v.id)).not.toContain(created.id);
    expect((await call('volumes_get', { params: { volume_id: created.id } })).body.volume).toEqual(created);
    // The tag counts the volume.
    const tag = await call('tags_get', { params: { tag_id: 'storage' } });
    expect(tag.body.tag.resources.volumes.count).toBe(1);
  });

  it('refuses a bad create, naming the field, and creates nothing', async () => {
    await volume('data-taken');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: 'Data' }, /name must be lowercase/],
      [{ name: 'data-taken' }, /already exists in nyc3/],
      [{ size_gigabytes: 0 }, /size_gigabytes must be an integer from 1 to 16384/],
      [{ size_gigabytes: 16_385 }, /size_gigabytes/],
      [{ filesystem_type: 'btrfs' }, /filesystem_type must be ext4 or xfs/],
      [{ filesystem_type: 'xfs', filesystem_label: 'thirteen-long' }, /at most 12 characters on xfs/],
      [{ region: 'nowhere' }, /region "nowhere" is not a valid region/],
      [{ snapshot_id: '7d2bd4a4-0000-4000-8000-000000000000' }, /snapshot_id: volume snapshot/],
    ];
    for (const [json, message] of cases) {
      await refusedUnchanged(
        call('volumes_create', { json: { name: 'data-x', region: REGION, size_gigabytes: 10, ...json } }),
        422,
        message,
      );
    }
  });

  it('attaches to one VM of its region, by id or by name, with the id as a number or a string', async () => {
    const web = await vm('vol-web');
    const other = await vm('vol-other');
    const elsewhere = await vm('vol-sfo', 'sfo3');
    const data = await volume('data-attach');
    const attached = await attach(data.id, String(web));
    expect(attached.status, attached.text).toBe(202);
    expect(attached.body.action).toMatchObject({
      type: 'attach_volume',
      resource_type: 'volume',
      region_slug: REGION,
    });
    expect((await call('volumes_get', { params: { volume_id: data.id } })).body.volume.droplet_ids).toEqual([
      web,
    ]);
    expect((await call('droplets_get', { params: { droplet_id: web } })).body.droplet.volume_ids).toEqual([
      data.id,
    ]);
    // The action is the volume's, and the account's.
    const actions = await call('volumeActions_list', { params: { volume_id: data.id } });
    expect(actions.body.actions.map((a: { id: number }) => a.id)).toEqual([attached.body.action.id]);
    const one = await call('volumeActions_get', {
      params: { volume_id: data.id, action_id: attached.body.action.id },
    });
    expect(one.body.action.id).toBe(attached.body.action.id);
    expect((await call('actions_get', { params: { action_id: attached.body.action.id } })).status).toBe(200);

    await refusedUnchanged(
      attach(data.id, other),
      422,
      /attached to droplet .*: a volume attaches to one Droplet at a time/,
    );
    await refusedUnchanged(attach(data.id, web), 422, /already attached/);
    const local = await volume('data-local');
    await refusedUnchanged(
      attach(local.id, elsewhere),
      422,
      /a volume attaches to a Droplet of its own region/,
    );
    await refusedUnchanged(attach(local.id, web, { region: 'sfo3' }), 422, /not the volume's region/);
    await refusedUnchanged(attach(local.id, 'web'), 422, /droplet_id must be a numeric id/);
    await refusedUnchanged(attach(local.id, 999_999_999), 422, /droplet 999999999 does not exist/);

    // By name and region: detach, then attach to the other VM.
    const detached = await call('volumeActions_post', {
      json: { type: 'detach', volume_name: 'data-attach', region: REGION, droplet_id: web },
    });
    expect(detached.status, detached.text).toBe(202);
    expect(detached.body.action.type).toBe('detach_volume');
    await refusedUnchanged(
      call('volumeActions_post', { json: { type: 'attach', volume_name: 'data-attach', droplet_id: other } }),
      422,
      /region is required with volume_name/,
    );
    const byName = await call('volumeActions_post', {
      json: { type: 'attach', volume_name: 'data-attach', region: REGION, droplet_id: other },
    });
    expect(byName.status, byName.text).toBe(202);
    expect((await call('droplets_get', { params: { droplet_id: web } })).body.droplet.volume_ids).toEqual([]);
    expect((await call('droplets_get', { params: { droplet_id: other } })).body.droplet.volume_ids).toEqual([
      data.id,
    ]);
    await refusedUnchanged(
      call('volumeActions_post_byId', {
        params: { volume_id: data.id },
        json: { type: 'detach', droplet_id: web },
      }),
      422,
      /is not attached to droplet/,
    );
  });

  it(`holds a VM to ${VOLUMES_PER_DROPLET} volumes, at create and by attaching`, async () => {
    const full = await vm('vol-full');
    for (let i = 0; i < VOLUMES_PER_DROPLET; i++) {
      const v = await volume(`fill-${i}`);
      expect((await attach(v.id, full)).status).toBe(202);
    }
    const extra = await volume('fill-extra');
    await refusedUnchanged(
      attach(extra.id, full),
      422,
      new RegExp(`already has ${VOLUMES_PER_DROPLET} volumes`),
    );
    // vm-create with volumes: attached at once; too many refused before the VM exists.
    const more = await Promise.all(
      Array.from({ length: VOLUMES_PER_DROPLET + 1 }, (_, i) => volume(`more-${i}`)),
    );
    const before = (await call('droplets_list', { query: '?per_page=200' })).body.droplets.length;
    expectError(
      await call('droplets_create', {
        json: {
          name: 'vol-many',
          region: REGION,
          size: 's-1vcpu-1gb',
          image: 'ubuntu-24-04-x64',
          volumes: more.map((v) => v.id),
        },
      }),
      422,
      /at most/,
    );
    expect((await call('droplets_list', { query: '?per_page=200' })).body.droplets).toHaveLength(before);
    const withTwo = await vm('vol-two', REGION, { volumes: [more[0]?.id, more[1]?.id] });
    expect((await call('droplets_get', { params: { droplet_id: withTwo } })).body.droplet.volume_ids).toEqual(
      [more[0]?.id, more[1]?.id],
    );
    expectError(
      await call('droplets_create', {
        json: {
          name: 'vol-taken',
          region: REGION,
          size: 's-1vcpu-1gb',
          image: 'ubuntu-24-04-x64',
          volumes: [more[0]?.id],
        },
      }),
      422,
      /is attached to droplet/,
    );
  });

  it("vm-create takes volumes as ids and as godo's {id} objects; a name is refused, naming the id", async () => {
    const [a, b, c] = [await volume('by-id'), await volume('by-object'), await volume('by-name')];
    // godo's DropletCreateVolume marshals to {"id": ...}; dots-wrapper and the description send the id.
    const mixed = await vm('vol-mixed', REGION, { volumes: [a.id, { id: b.id }, { id: a.id }] });
    const got = await call('droplets_get', { params: { droplet_id: mixed } });
    expect(got.body.droplet.volume_ids).toEqual([a.id, b.id]);
    expect((await call('volumes_get', { params: { volume_id: b.id } })).body.volume.droplet_ids).toEqual([
      mixed,
    ]);
    const create = (volumes: unknown[]) =>
      call('droplets_create', {
        json: {
          name: 'vol-refused',
          region: REGION,
          size: 's-1vcpu-1gb',
          image: 'ubuntu-24-04-x64',
          volumes,
        },
      });
    const count = async () => (await call('droplets_list', { query: '?per_page=200' })).body.droplets.length;
    const before = await count();
    // godo's deprecated Name: the platform never took it (digitalocean/godo#433).
    await refusedUnchanged(
      create([{ name: 'by-name' }]),
      422,
      new RegExp(`by its id .*not by its name "by-name" \\(its id is ${c.id}\\)`),
    );
    await refusedUnchanged(create([{ name: 'nowhere' }]), 422, /not by its name "nowhere"$/);
    await refusedUnchanged(create([{ id: 'no-such-volume' }]), 422, /volume "no-such-volume" does not exist/);
    await refusedUnchanged(create([{}]), 422, /names no volume/);
    // An object is checked as an id is: attached elsewhere, or in another region.
    await refusedUnchanged(create([{ id: b.id }]), 422, new RegExp(`attached to droplet ${mixed}`));
    const far = await call('volumes_create', {
      json: { name: 'far-away', region: 'sfo3', size_gigabytes: 10 },
    });
    await refusedUnchanged(create([{ id: far.body.volume.id }]), 422, /is in sfo3, not nyc3/);
    expect(await count()).toBe(before);
    expect((await call('volumes_get', { params: { volume_id: c.id } })).body.volume.droplet_ids).toEqual([]);
  });

  it('refuses to delete an attached volume; deleting the VM detaches it; deletes by id and by name', async () => {
    const holder = await vm('vol-holder');
    const data = await volume('data-delete');
    await attach(data.id, holder);
    await refusedUnchanged(
      call('volumes_delete', { params: { volume_id: data.id } }),
      409,
      /detach it before deleting/,
    );
    await refusedUnchanged(
      call('volumes_delete_byName', { query: `?name=data-delete&region=${REGION}` }),
      409,
      /detach it before deleting/,
    );
    const associated = await call('droplets_list_associatedResources', { params: { droplet_id: holder } });
    expect(associated.body.volumes).toEqual([{ id: data.id, name: 'data-delete', cost: '1.00' }]);
    expect((await call('droplets_destroy', { params: { droplet_id: holder } })).status).toBe(204);
    expect((await call('volumes_get', { params: { volume_id: data.id } })).body.volume.droplet_ids).toEqual(
      [],
    );
    expect(
      (await call('volumes_delete_byName', { query: `?name=data-delete&region=${REGION}` })).status,
    ).toBe(204);
    expect((await call('volumes_get', { params: { volume_id: data.id } })).status).toBe(404);
    const other = await volume('data-delete-2');
    expect((await call('volumes_delete', { params: { volume_id: other.id } })).status).toBe(204);
    expect((await call('volumes_delete', { params: { volume_id: other.id } })).status).toBe(404);
  });

  it('resizes only upwards', async () => {
    const data = await volume('data-resize');
    const resize = (size: unknown) =>
      call('volumeActions_post_byId', {
        params: { volume_id: data.id },
        json: { type: 'resize', size_gigabytes: size, region: REGION },
      });
    const grown = await resize(20);
    expect(grown.status, grown.text).toBe(202);
    expect(grown.body.action.type).toBe('resize_volume');
    expect((await call('volumes_get', { params: { volume_id: data.id } })).body.volume.size_gigabytes).toBe(
      20,
    );
    await refusedUnchanged(resize(20), 422, /a volume only grows/);
    await refusedUnchanged(resize(5), 422, /a volume only grows/);
  });

  it('snapshots a volume; a volume made from the snapshot is in its region and at least its size', async () => {
    const data = await volume('data-snap', { size_gigabytes: 40 });
    const snap = await call('volumeSnapshots_create', {
      params: { volume_id: data.id },
      json: { name: 'nightly', tags: ['backup'] },
    });
    expect(snap.status, snap.text).toBe(201);
    expect(snap.body.snapshot).toMatchObject({
      name: 'nightly',
      regions: [REGION],
      min_disk_size: 40,
      resource_id: data.id,
      resource_type: 'volume',
      tags: ['backup'],
    });
    const id = snap.body.snapshot.id;
    expect((await call('volumeSnapshots_list', { params: { volume_id: data.id } })).body.snapshots).toEqual([
      snap.body.snapshot,
    ]);
    expect((await call('volumeSnapshots_get_byId', { params: { snapshot_id: id } })).body.snapshot).toEqual(
      snap.body.snapshot,
    );
    // The account's snapshot list shows it too, filtered by type.
    const all = await call('snapshots_list', { query: '?resource_type=volume' });
    expect(all.body.snapshots.map((s: { id: string }) => s.id)).toEqual([id]);
    expect((await call('snapshots_get', { params: { snapshot_id: id } })).body.snapshot.id).toBe(id);

    await refusedUnchanged(
      call('volumes_create', {
        json: { name: 'from-snap', region: 'sfo3', size_gigabytes: 40, snapshot_id: id },
      }),
      422,
      /not the snapshot's region/,
    );
    await refusedUnchanged(
      call('volumes_create', { json: { name: 'from-snap', size_gigabytes: 39, snapshot_id: id } }),
      422,
      /at least the snapshot's 40 GiB/,
    );
    // With no region, the snapshot's.
    const restored = await call('volumes_create', {
      json: { name: 'from-snap', size_gigabytes: 50, snapshot_id: id },
    });
    expect(restored.status, restored.text).toBe(201);
    expect(restored.body.volume.region.slug).toBe(REGION);
    // A snapshot outlives its volume.
    expect((await call('volumes_delete', { params: { volume_id: data.id } })).status).toBe(204);
    expect((await call('volumeSnapshots_get_byId', { params: { snapshot_id: id } })).status).toBe(200);
    expect((await call('volumeSnapshots_delete_byId', { params: { snapshot_id: id } })).status).toBe(204);
    expect((await call('volumeSnapshots_get_byId', { params: { snapshot_id: id } })).status).toBe(404);
  });
});

describe('projects', () => {
  it('starts with a default project holding every new resource', async () => {
    const listed = await call('projects_list');
    const defaults = listed.body.projects.filter((p: { is_default: boolean }) => p.is_default);
    expect(defaults).toHaveLength(1);
    const byPath = await call('projects_get_default');
    expect(byPath.body.project).toEqual(defaults[0]);
    const id = await vm('proj-new');
    const resources = await call('projects_list_resources_default', { query: '?per_page=200' });
    expect(resources.body.resources.map((r: { urn: string }) => r.urn)).toContain(`do:droplet:${id}`);
    const same = await call('projects_list_resources', {
      params: { project_id: byPath.body.project.id },
      query: '?per_page=200',
    });
    expect(same.body.resources).toEqual(resources.body.resources);
  });

  it('creates, updates whole and in part, assigns resources by URN, and deletes once empty', async () => {
    const created = await call('projects_create', {
      json: { name: 'web', purpose: 'Web Application', environment: 'Production' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.project).toMatchObject({
      name: 'web',
      is_default: false,
      environment: 'Production',
      description: '',
    });
    const id = created.body.project.id;
    await refusedUnchanged(
      call('projects_create', { json: { name: 'WEB', purpose: 'x' } }),
      422,
      /already exists/,
    );
    await refusedUnchanged(
      call('projects_create', { json: { name: 'nameless' } }),
      422,
      /purpose is required/,
    );
    await refusedUnchanged(
      call('projects_create', { json: { name: 'n'.repeat(176), purpose: 'x' } }),
      422,
      /name may have at most 175 characters/,
    );
    await refusedUnchanged(
      call('projects_update', { params: { project_id: id }, json: { name: 'web-2' } }),
      422,
      /is required/,
    );
    const patched = await call('projects_patch', {
      params: { project_id: id },
      json: { description: 'front end' },
    });
    expect(patched.body.project).toMatchObject({
      name: 'web',
      description: 'front end',
      purpose: 'Web Application',
    });

    const droplet = await vm('proj-vm');
    const data = await volume('proj-data');
    const assigned = await call('projects_assign_resources', {
      params: { project_id: id },
      json: { resources: [`do:droplet:${droplet}`, `do:volume:${data.id}`, 'do:droplet:1'] },
    });
    expect(assigned.status, assigned.text).toBe(200);
    expect(assigned.body.resources.map((r: { urn: string; status: string }) => [r.urn, r.status])).toEqual([
      [`do:droplet:${droplet}`, 'assigned'],
      [`do:volume:${data.id}`, 'assigned'],
      ['do:droplet:1', 'not_found'],
    ]);
    await refusedUnchanged(
      call('projects_assign_resources', { params: { project_id: id }, json: { resources: ['droplet:1'] } }),
      422,
      /is not a URN/,
    );
    const held = await call('projects_list_resources', { params: { project_id: id } });
    expect(held.body.resources.map((r: { urn: string }) => r.urn)).toEqual([
      `do:droplet:${droplet}`,
      `do:volume:${data.id}`,
    ]);
    // Out of the default project: a resource is in one project.
    const inDefault = await call('projects_list_resources_default', { query: '?per_page=200' });
    expect(inDefault.body.resources.map((r: { urn: string }) => r.urn)).not.toContain(
      `do:droplet:${droplet}`,
    );

    await refusedUnchanged(call('projects_delete', { params: { project_id: id } }), 412, /holds 2 resource/);
    // Moved back to the default project, the project is empty and goes.
    await call('projects_assign_resources_default', {
      json: { resources: [`do:droplet:${droplet}`, `do:volume:${data.id}`] },
    });
    expect((await call('projects_delete', { params: { project_id: id } })).status).toBe(204);
    expect((await call('projects_get', { params: { project_id: id } })).status).toBe(404);
  });

  it("PATCH leaves every field sent as null as it is, as godo's update sends each unset field", async () => {
    const created = await call('projects_create', {
      json: { name: 'nulls', description: 'kept', purpose: 'Service or API', environment: 'Staging' },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.project.id;
    const original = (await call('projects_get_default')).body.project;
    const allNull = { name: null, description: null, purpose: null, environment: null, is_default: null };
    const fields = (project: Record<string, unknown>) => {
      const { updated_at: _updatedAt, ...rest } = project;
      return rest;
    };
    const patch = async (projectId: string, json: Record<string, unknown>) => {
      const reply = await call('projects_patch', { params: { project_id: projectId }, json });
      expect(reply.status, reply.text).toBe(200);
      const got = await call('projects_get', { params: { project_id: projectId } });
      expect(got.body.project).toEqual(reply.body.project);
      return reply.body.project;
    };
    // Every field null: nothing changes, on a project and on the default one.
    expect(fields(await patch(id, allNull))).toEqual(fields(created.body.project));
    expect(fields(await patch(original.id, allNull))).toEqual(fields(original));
    // One field set, the others null (godo's body for an update of one field): only that one changes.
    let expected = fields(created.body.project);
    for (const [field, value] of [
      ['name', 'nulls-renamed'],
      ['description', 'changed'],
      ['purpose', 'Web Application'],
      ['environment', 'Production'],
      ['is_default', true],
    ] as const) {
      expected = { ...expected, [field]: value };
      expect(fields(await patch(id, { ...allNull, [field]: value })), field).toEqual(expected);
    }
    expect(
      (await call('projects_get', { params: { project_id: original.id } })).body.project.is_default,
    ).toBe(false);
    // The default again: is_default null keeps it default; the earlier default takes over again.
    expect((await patch(id, allNull)).is_default).toBe(true);
    expect((await patch(original.id, { ...allNull, is_default: true })).is_default).toBe(true);
    expect((await call('projects_delete', { params: { project_id: id } })).status).toBe(204);
  });

  it('keeps one default project: it cannot be deleted, and another becomes the default only by taking over', async () => {
    const first = (await call('projects_get_default')).body.project;
    await refusedUnchanged(
      call('projects_delete', { params: { project_id: first.id } }),
      422,
      /default project cannot be deleted/,
    );
    await refusedUnchanged(
      call('projects_patch_default', { json: { is_default: false } }),
      422,
      /stays the default until another/,
    );
    const next = await call('projects_create', {
      json: { name: 'next', purpose: 'Operational / Developer tooling' },
    });
    const made = await call('projects_update', {
      params: { project_id: next.body.project.id },
      json: { name: 'next', description: 'd', purpose: 'p', environment: 'Staging', is_default: true },
    });
    expect(made.body.project.is_default).toBe(true);
    const projects = (await call('projects_list')).body.projects;
    expect(
      projects.filter((p: { is_default: boolean }) => p.is_default).map((p: { id: string }) => p.id),
    ).toEqual([next.body.project.id]);
    // Resources never assigned follow the default.
    const id = await vm('proj-follow');
    const resources = await call('projects_list_resources', {
      params: { project_id: next.body.project.id },
      query: '?per_page=200',
    });
    expect(resources.body.resources.map((r: { urn: string }) => r.urn)).toContain(`do:droplet:${id}`);
    await call('projects_patch', { params: { project_id: first.id }, json: { is_default: true } });
  });

  it('places a load balancer, a database cluster and a reserved IP in the project their create names', async () => {
    const project = (await call('projects_create', { json: { name: 'placed', purpose: 'Service or API' } }))
      .body.project;
    const lb = await call('loadBalancers_create', {
      json: {
        name: 'placed-lb',
        region: REGION,
        project_id: project.id,
        forwarding_rules: [
          { entry_protocol: 'http', entry_port: 80, target_protocol: 'http', target_port: 80 },
        ],
      },
    });
    expect(lb.body.load_balancer.project_id).toBe(project.id);
    const db = await call('databases_create_cluster', {
      json: {
        name: 'placed-db',
        engine: 'pg',
        region: REGION,
        size: 'db-s-1vcpu-1gb',
        num_nodes: 1,
        project_id: project.id,
      },
    });
    expect(db.status, db.text).toBe(201);
    expect(db.body.database.project_id).toBe(project.id);
    const ip = await call('reservedIPs_create', { json: { region: REGION, project_id: project.id } });
    expect(ip.body.reserved_ip.project_id).toBe(project.id);
    const held = await call('projects_list_resources', { params: { project_id: project.id } });
    expect(held.body.resources.map((r: { urn: string }) => r.urn).sort()).toEqual(
      [
        `do:loadbalancer:${lb.body.load_balancer.id}`,
        `do:dbaas:${db.body.database.id}`,
        `do:floatingip:${ip.body.reserved_ip.ip}`,
      ].sort(),
    );
    await refusedUnchanged(
      call('reservedIPs_create', {
        json: { region: REGION, project_id: '00000000-0000-4000-8000-000000000000' },
      }),
      422,
      /project_id: project .* does not exist/,
    );
  });
});

describe('a deleted resource leaves its project', () => {
  it('a domain or reserved IP made again under the same name or address starts in the default project', async () => {
    const project = (await call('projects_create', { json: { name: 'again', purpose: 'Service or API' } }))
      .body.project;
    const urns = (reply: Reply) => reply.body.resources.map((r: { urn: string }) => r.urn);
    const held = async () =>
      urns(
        await call('projects_list_resources', { params: { project_id: project.id }, query: '?per_page=200' }),
      );
    const inDefault = async () =>
      urns(await call('projects_list_resources_default', { query: '?per_page=200' }));
    expect((await call('domains_create', { json: { name: 'again.example' } })).status).toBe(201);
    const ip = (await call('reservedIPs_create', { json: { region: REGION, project_id: project.id } })).body
      .reserved_ip.ip;
    const droplet = await vm('again-vm');
    const mine = ['do:domain:again.example', `do:floatingip:${ip}`, `do:droplet:${droplet}`];
    await call('projects_assign_resources', {
      params: { project_id: project.id },
      json: { resources: mine },
    });
    expect((await held()).sort()).toEqual([...mine].sort());

    expect((await call('domains_delete', { params: { domain_name: 'again.example' } })).status).toBe(204);
    expect((await call('reservedIPs_delete', { params: { reserved_ip: ip } })).status).toBe(204);
    await sandbox.advanceClock(600_000);
    expect((await call('droplets_destroy', { params: { droplet_id: droplet } })).status).toBe(204);
    expect(await held()).toEqual([]);
    // Nothing is left behind for a later resource of the same URN to inherit.
    const left = Object.keys((await storage()).a);
    for (const urn of mine) expect(left).not.toContain(urn);

    expect((await call('domains_create', { json: { name: 'again.example' } })).status).toBe(201);
    expect(await held()).toEqual([]);
    expect(await inDefault()).toContain('do:domain:again.example');
  });
});

describe('the state file', () => {
  it('keeps volumes, snapshots, projects and assignments across a restart', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'cloudcall-volumes-')), 'state.json');
    const inMemory = sandbox;
    sandbox = await startSandbox({ statePath });
    try {
      // One of each, made here: the state is then not empty whatever ran before.
      const data = await volume('data-kept');
      const snap = await call('volumeSnapshots_create', {
        params: { volume_id: data.id },
        json: { name: 'kept', tags: ['backup'] },
      });
      expect(snap.status, snap.text).toBe(201);
      const project = await call('projects_create', { json: { name: 'kept', purpose: 'Web Application' } });
      expect(project.status, project.text).toBe(201);
      const assigned = await call('projects_assign_resources', {
        params: { project_id: project.body.project.id },
        json: { resources: [`do:volume:${data.id}`] },
      });
      expect(assigned.status, assigned.text).toBe(200);
      const before = await storage();
      expect(before.volumes).toHaveLength(1);
      expect(before.snapshots).toHaveLength(1);
      expect(before.projects.map((p) => p.name)).toContain('kept');
      expect(Object.keys(before.a)).toContain(`do:volume:${data.id}`);
      await sandbox.close();
      sandbox = await startSandbox({ statePath });
      expect(await storage()).toEqual(before);
    } finally {
      await sandbox.close();
      sandbox = inMemory;
    }
  });
});
