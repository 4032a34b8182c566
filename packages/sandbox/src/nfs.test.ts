/**
 * NFS shares as the platform runs them, over HTTP with every answer checked against the API
 * description: a share CREATING then ACTIVE on the sandbox clock (INACTIVE when attached to no
 * VPC), actions whose effect shows when they complete and that wait for each other, snapshots,
 * access points (the default one kept, others unique by name and path, soft-deleted); refusals
 * that change nothing, 404s for what is not there or not in the region asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from './server.js';
import { type CallOptions, callOperation, type Reply, steppingClock } from './testing/operations.js';
import type { World } from './world.js';

const REGION = 'nyc3';
let sandbox: Sandbox;
const call = (operationId: string, options?: CallOptions) => callOperation(sandbox.url, operationId, options);

function expectError(reply: Reply, status: number, mentions: RegExp, code?: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual({
    id: expect.any(String),
    message: expect.stringMatching(mentions),
    request_id: expect.any(String),
    ...(code ? { code } : {}),
  });
}

const state = () =>
  sandbox.store.read((w: World) => structuredClone({ s: w.nfsShares, n: w.nfsSnapshots, a: w.nfsActions }));

async function refusedUnchanged(reply: Promise<Reply>, status: number, mentions: RegExp, code?: string) {
  const before = await state();
  expectError(await reply, status, mentions, code);
  expect(await state()).toEqual(before);
}

let vpcCount = 0;
async function vpc(region = REGION): Promise<string> {
  const created = await call('vpcs_create', { json: { name: `nfs-vpc-${++vpcCount}`, region } });
  expect(created.status, created.text).toBe(201);
  return created.body.vpc.id;
}

async function share(name: string, vpcIds: string[], extra: Record<string, unknown> = {}) {
  const created = await call('nfs_create', {
    json: { name, size_gib: 100, region: REGION, vpc_ids: vpcIds, ...extra },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.share;
}

const action = (id: string, json: Record<string, unknown>) =>
  call('nfs_create_action', { params: { nfs_id: id }, json });
const get = async (id: string) => (await call('nfs_get', { params: { nfs_id: id } })).body.share;
const policy = {
  anonuid: 65534,
  anongid: 65534,
  protocols: ['NFS4'],
  squash_config: 'ALL_SQUASH',
  identity_enforcement_enabled: false,
};

beforeAll(async () => {
  sandbox = await startSandbox({ now: steppingClock() });
});
afterAll(async () => {
  await sandbox.close();
});

describe('shares', () => {
  it('is CREATING, then ACTIVE with its default access point; lists by region; deletes', async () => {
    const net = await vpc();
    const created = await share('team-drive', [net], { performance_tier: 'high' });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'team-drive',
      size_gib: 100,
      region: REGION,
      status: 'CREATING',
      vpc_ids: [net],
      performance_tier: 'PERFORMANCE_TIER_HIGH',
      mount_path: expect.stringMatching(new RegExp(`^/\\d+/${created.id}$`)),
      host: expect.stringMatching(/^10\.\d+\.\d+\.\d+$/),
    });
    expect(created.access_points).toEqual([
      expect.objectContaining({
        name: 'default',
        path: '/',
        is_default: true,
        status: 'ACCESS_POINT_CREATING',
        updated_at: '',
      }),
    ]);
    expect(created.access_points[0]).not.toHaveProperty('vpc_id');
    await sandbox.advanceClock(3_000);
    const active = await get(created.id);
    expect(active.status).toBe('ACTIVE');
    expect(active.access_points[0].status).toBe('ACCESS_POINT_ACTIVE');

    const other = await vpc('sfo3');
    const far = await call('nfs_create', {
      json: { name: 'far', size_gib: 50, region: 'sfo3', vpc_ids: [other] },
    });
    expect(far.status).toBe(201);
    const here = (await call('nfs_list', { query: `?region=${REGION}` })).body.shares.map(
      (s: { id: string }) => s.id,
    );
    expect(here).toContain(created.id);
    expect(here).not.toContain(far.body.share.id);
    // Asked in another region, the share is not there.
    expect((await call('nfs_get', { params: { nfs_id: created.id }, query: '?region=sfo3' })).status).toBe(
      404,
    );

    expect((await call('nfs_delete', { params: { nfs_id: far.body.share.id } })).status).toBe(204);
    expectError(await call('nfs_get', { params: { nfs_id: far.body.share.id } }), 404, /could not be found/);
    expectError(
      await call('nfs_delete', { params: { nfs_id: far.body.share.id } }),
      404,
      /could not be found/,
    );
  });

  it('refuses a bad share, naming the field, and makes nothing', async () => {
    const net = await vpc();
    const elsewhere = await vpc('sfo3');
    await share('taken', [net]);
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ size_gib: 49 }, 400, /greater than or equal to 50Gib/],
      [{ size_gib: 60.5 }, 400, /must be an integer/],
      [{ name: '' }, 400, /'name' is required/],
      [{ region: 'nowhere' }, 400, /not a region/],
      [{ vpc_ids: [] }, 400, /at least one VPC/],
      [{ vpc_ids: [elsewhere] }, 400, /is in sfo3; the share is in nyc3/],
      [{ vpc_ids: ['00000000-0000-4000-8000-000000000000'] }, 400, /does not exist/],
      [{ performance_tier: 'turbo' }, 400, /standard or high/],
      [{ name: 'taken' }, 409, /already exists in nyc3/],
    ];
    for (const [change, status, message] of cases) {
      await refusedUnchanged(
        call('nfs_create', {
          json: { name: 'new-one', size_gib: 100, region: REGION, vpc_ids: [net], ...change },
        }),
        status,
        message,
      );
    }
  });
});

describe('actions', () => {
  it('resizes, attaches, detaches, reassigns and switches tier when each completes, one at a time', async () => {
    const [a, b, c] = [await vpc(), await vpc(), await vpc()];
    const { id } = await share('acting', [a]);
    await refusedUnchanged(
      action(id, { type: 'resize', params: { size_gib: 200 } }),
      409,
      /still being created/,
    );
    await sandbox.advanceClock(3_000);

    const resized = await action(id, { type: 'resize', params: { size_gib: 200 } });
    expect(resized.status, resized.text).toBe(201);
    expect(resized.body.action).toMatchObject({
      resource_id: id,
      resource_type: 'SHARE',
      type: 'RESIZE_SHARE',
      status: 'IN_PROGRESS',
      region_slug: REGION,
    });
    // Until it completes, the share keeps its size and takes no other action.
    expect((await get(id)).size_gib).toBe(100);
    await refusedUnchanged(action(id, { type: 'attach', params: { vpc_id: b } }), 409, /action in progress/);
    await sandbox.advanceClock(3_000);
    expect((await get(id)).size_gib).toBe(200);

    await refusedUnchanged(
      action(id, { type: 'resize', params: { size_gib: 150 } }),
      400,
      /a share only grows/,
    );
    await refusedUnchanged(action(id, { type: 'resize' }), 400, /params.size_gib is required/);
    await refusedUnchanged(action(id, { type: 'attach', params: { vpc_id: a } }), 409, /already attached/);
    await refusedUnchanged(action(id, { type: 'detach', params: { vpc_id: b } }), 400, /not attached/);
    await refusedUnchanged(action(id, { type: 'shrink' }), 400, /type must be resize/);
    await refusedUnchanged(
      action(id, { type: 'resize', region: 'sfo3', params: { size_gib: 300 } }),
      400,
      /not the share's region/,
    );

    expect((await action(id, { type: 'attach', params: { vpc_id: b } })).body.action.type).toBe(
      'ATTACH_SHARE',
    );
    await sandbox.advanceClock(3_000);
    expect((await get(id)).vpc_ids).toEqual([a, b]);
    expect((await action(id, { type: 'reassign', params: { old_vpc_id: b, new_vpc_id: c } })).status).toBe(
      201,
    );
    await sandbox.advanceClock(3_000);
    expect((await get(id)).vpc_ids).toEqual([a, c]);
    expect(
      (await action(id, { type: 'switch_performance_tier', params: { performance_tier: 'high' } })).status,
    ).toBe(201);
    await sandbox.advanceClock(3_000);
    expect((await get(id)).performance_tier).toBe('PERFORMANCE_TIER_HIGH');

    // Detached from every VPC, the share is INACTIVE.
    await action(id, { type: 'detach', params: { vpc_id: a } });
    await sandbox.advanceClock(3_000);
    await action(id, { type: 'detach', params: { vpc_id: c } });
    await sandbox.advanceClock(3_000);
    expect(await get(id)).toMatchObject({ vpc_ids: [], status: 'INACTIVE' });
    expectError(
      await action('00000000-0000-4000-8000-000000000000', { type: 'resize', params: { size_gib: 300 } }),
      404,
      /could not be found/,
    );
  });

  it('snapshots a share: CREATING then ACTIVE, listed by share and region, outliving its share', async () => {
    const net = await vpc();
    const { id } = await share('snapped', [net]);
    await sandbox.advanceClock(3_000);
    const taken = await action(id, { type: 'snapshot', params: { name: 'daily' } });
    expect(taken.body.action).toMatchObject({ type: 'CREATE_SNAPSHOT', resource_type: 'SNAPSHOT' });
    const snapshotId = taken.body.action.resource_id;
    const snapshot = await call('nfs_get_snapshot', { params: { nfs_snapshot_id: snapshotId } });
    expect(snapshot.body.snapshot).toMatchObject({
      id: snapshotId,
      name: 'daily',
      share_id: id,
      size_gib: 100,
      status: 'CREATING',
    });
    await sandbox.advanceClock(3_000);
    const listed = await call('nfs_list_snapshot', { query: `?region=${REGION}&share_id=${id}` });
    expect(listed.body.snapshots).toEqual([expect.objectContaining({ id: snapshotId, status: 'ACTIVE' })]);
    expect(
      (await call('nfs_list_snapshot', { query: `?region=sfo3&share_id=${id}` })).body.snapshots,
    ).toEqual([]);
    await refusedUnchanged(
      action(id, { type: 'snapshot', params: { name: 'daily' } }),
      409,
      /already has a snapshot/,
    );

    expect((await call('nfs_delete', { params: { nfs_id: id } })).status).toBe(204);
    expect((await call('nfs_get_snapshot', { params: { nfs_snapshot_id: snapshotId } })).status).toBe(200);
    const params = { nfs_snapshot_id: snapshotId };
    expect((await call('nfs_delete_snapshot', { params, query: '?region=sfo3' })).status).toBe(404);
    expect((await call('nfs_delete_snapshot', { params, query: `?region=${REGION}` })).status).toBe(204);
    expectError(await call('nfs_get_snapshot', { params }), 404, /could not be found/);
  });
});

describe('access points', () => {
  it('are made on an active share, pinned to a VPC, unique by name and path, soft-deleted', async () => {
    const [net, pinned] = [await vpc(), await vpc()];
    const { id } = await share('shared', [net]);
    const params = { share_id: id };
    const body = { name: 'team-a', path: '/team-a', vpc_id: pinned, access_policy: policy };
    await refusedUnchanged(
      call('nfs_create_access_point', { params, json: body }),
      400,
      /CREATING: access points are made on an ACTIVE or INACTIVE share/,
      'FAILED_PRECONDITION',
    );
    await sandbox.advanceClock(3_000);
    const created = await call('nfs_create_access_point', { params, json: body });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      access_point: {
        name: 'team-a',
        path: '/team-a',
        vpc_id: pinned,
        share_id: id,
        status: 'ACCESS_POINT_CREATING',
        is_default: false,
        updated_at: '',
      },
      action: { type: 'CREATE_ACCESS_POINT', resource_type: 'SHARE', status: 'IN_PROGRESS' },
    });
    const apId = created.body.access_point.id;
    expect(created.body.action.resource_id).toBe(apId);
    await sandbox.advanceClock(3_000);
    const got = await call('nfs_get_access_point', { params: { access_point_id: apId } });
    expect(got.body.access_point).toMatchObject({ status: 'ACCESS_POINT_ACTIVE', access_policy: policy });

    const cases: [Record<string, unknown>, number, RegExp, string][] = [
      [{ name: 'team-a', path: '/other' }, 409, /already exists/, 'AlreadyExists'],
      [{ name: 'other', path: '/team-a' }, 409, /already exists/, 'AlreadyExists'],
      [{ name: 'Default' }, 400, /reserved/, 'INVALID_NAME'],
      [{ name: 'a' }, 400, /3 to 63/, 'INVALID_NAME'],
      [{ name: undefined }, 400, /name is required/, 'MISSING_NAME'],
      [{ path: '/' }, 400, /reserved for the default/, 'INVALID_PATH'],
      [{ path: '/a/../b' }, 400, /no ".." segment/, 'INVALID_PATH'],
      [{ vpc_id: '00000000-0000-4000-8000-000000000000' }, 400, /not a VPC of the account/, 'INVALID_VPC_ID'],
      [{ access_policy: { ...policy, anonuid: 0 } }, 400, /65534/, 'INVALID_ACCESS_POLICY'],
      [{ access_policy: { ...policy, protocols: [] } }, 400, /protocols/, 'INVALID_ACCESS_POLICY'],
    ];
    for (const [change, status, message, code] of cases) {
      await refusedUnchanged(
        call('nfs_create_access_point', {
          params,
          json: { ...body, name: 'team-b', path: '/team-b', ...change },
        }),
        status,
        message,
        code,
      );
    }

    const listed = await call('nfs_list_access_points', { params });
    expect(listed.body.access_points.map((ap: { name: string }) => ap.name)).toEqual(['default', 'team-a']);
    const defaultId = listed.body.access_points[0].id;
    await refusedUnchanged(
      call('nfs_delete_access_point', { params: { access_point_id: defaultId } }),
      400,
      /default access point cannot be deleted/,
      'InvalidArgument',
    );
    const deleted = await call('nfs_delete_access_point', { params: { access_point_id: apId } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toMatchObject({
      access_point: { id: apId, status: 'ACCESS_POINT_DELETED' },
      action: { type: 'DELETE_ACCESS_POINT', resource_id: apId },
    });
    expectError(
      await call('nfs_delete_access_point', { params: { access_point_id: apId } }),
      400,
      /already deleted/,
      'InvalidArgument',
    );
    const byStatus = await call('nfs_list_access_points', { params, query: '?status=ACCESS_POINT_DELETED' });
    expect(byStatus.body.access_points.map((ap: { id: string }) => ap.id)).toEqual([apId]);
    expect((await get(id)).access_points.map((ap: { name: string }) => ap.name)).toEqual(['default']);
    // The name and path are free again.
    expect((await call('nfs_create_access_point', { params, json: body })).status).toBe(201);
    expectError(
      await call('nfs_get_access_point', {
        params: { access_point_id: '00000000-0000-4000-8000-000000000000' },
      }),
      404,
      /could not be found/,
    );
    expectError(
      await call('nfs_list_access_points', { params: { share_id: '00000000-0000-4000-8000-000000000000' } }),
      404,
      /could not be found/,
    );
  });
});
