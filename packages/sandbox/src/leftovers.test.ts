/**
 * The operations of the hand-modelled families that the generic layer answered until now, answered
 * by their hand models, over HTTP with every answer checked against the API description: droplet
 * backup policies and a destroy with associated resources (selective, dangerous, its status, a
 * retry), image account transfers, VPC peerings seen from a VPC and renamed, a BYOIP prefix's
 * advertisement, billing insights.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxRouter } from './routes/index.js';
import { type Sandbox, startSandbox } from './server.js';
import { type CallOptions, callOperation, type Reply, steppingClock } from './testing/operations.js';
import type { World } from './world.js';

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

const everything = () =>
  sandbox.store.read((w: World) =>
    structuredClone({
      d: w.droplets,
      i: w.images,
      v: w.volumes,
      r: w.reservedIps,
      t: w.imageTransfers,
      x: w.dropletDestroys,
      p: w.vpcPeerings,
      b: w.byoipPrefixes,
    }),
  );

async function refusedUnchanged(reply: Promise<Reply>, status: number, mentions: RegExp) {
  const before = await everything();
  expectError(await reply, status, mentions);
  expect(await everything()).toEqual(before);
}

async function droplet(name: string, extra: Record<string, unknown> = {}): Promise<number> {
  const created = await call('droplets_create', {
    json: { name, region: 'nyc3', size: 's-1vcpu-1gb', image: 'ubuntu-24-04-x64', ...extra },
  });
  expect(created.status, created.text).toBe(202);
  return created.body.droplet.id;
}

/** A snapshot of a droplet, once taken. */
async function snapshot(dropletId: number, name: string): Promise<number> {
  await sandbox.advanceClock(3_000);
  const taken = await call('dropletActions_post', {
    params: { droplet_id: dropletId },
    json: { type: 'snapshot', name },
  });
  expect(taken.status, taken.text).toBe(201);
  await sandbox.advanceClock(3_000);
  const listed = await call('droplets_list_snapshots', { params: { droplet_id: dropletId } });
  return listed.body.snapshots.find((s: { name: string }) => s.name === name).id;
}

async function dangerous(id: number, header?: string) {
  const response = await fetch(
    `${sandbox.url}/v2/droplets/${id}/destroy_with_associated_resources/dangerous`,
    {
      method: 'DELETE',
      headers: { authorization: 'Bearer t', ...(header ? { 'x-dangerous': header } : {}) },
    },
  );
  return response.status;
}

beforeAll(async () => {
  sandbox = await startSandbox({ now: steppingClock() });
});
afterAll(async () => {
  await sandbox.close();
});

describe('every operation of these families', () => {
  it('is answered by its hand model, not the generic layer', () => {
    const paths: [string, string][] = [
      ['GET', '/v2/droplets/backups/policies'],
      ['GET', '/v2/droplets/backups/supported_policies'],
      ['DELETE', '/v2/droplets/1/destroy_with_associated_resources/selective'],
      ['DELETE', '/v2/droplets/1/destroy_with_associated_resources/dangerous'],
      ['GET', '/v2/droplets/1/destroy_with_associated_resources/status'],
      ['POST', '/v2/droplets/1/destroy_with_associated_resources/retry'],
      ['POST', '/v2/images/1/account_transfer'],
      ['POST', '/v2/images/1/account_transfer/accept'],
      ['POST', '/v2/images/1/account_transfer/cancel'],
      ['POST', '/v2/images/1/account_transfer/decline'],
      ['GET', '/v2/vpcs/x/peerings'],
      ['POST', '/v2/vpcs/x/peerings'],
      ['PATCH', '/v2/vpcs/x/peerings/y'],
      ['PATCH', '/v2/vpc_peerings/y'],
      ['PATCH', '/v2/byoip_prefixes/y'],
      ['GET', '/v2/billing/x/insights/2025-01-01/2025-01-31'],
    ];
    for (const [method, path] of paths) {
      const found = sandboxRouter().match(method, path);
      expect(found.route, `${method} ${path}`).toBeDefined();
      expect(found.route?.operationId, `${method} ${path}`).toBeUndefined();
    }
  });
});

describe('droplet backup policies', () => {
  it("lists every droplet's policy, in pages, and the plans offered", async () => {
    const plain = await droplet('policy-plain');
    const backed = await droplet('policy-weekly', {
      backups: true,
      backup_policy: { plan: 'weekly', weekday: 'TUE', hour: 8 },
    });
    const all = await call('droplets_list_backup_policies', { query: '?per_page=200' });
    expect(all.body.policies[String(plain)]).toEqual({
      droplet_id: plain,
      backup_enabled: false,
      next_backup_window: null,
    });
    expect(all.body.policies[String(backed)]).toMatchObject({
      droplet_id: backed,
      backup_enabled: true,
      backup_policy: {
        plan: 'weekly',
        weekday: 'TUE',
        hour: 8,
        window_length_hours: 4,
        retention_period_days: 28,
      },
    });
    const second = await call('droplets_list_backup_policies', { query: '?per_page=1&page=2' });
    expect(Object.keys(second.body.policies)).toHaveLength(1);
    expect(second.body.meta.total).toBe(all.body.meta.total);
    expect(second.body.links.pages.first).toContain('page=1');

    const supported = await call('droplets_list_supported_backup_policies');
    expect(supported.body.supported_policies).toEqual([
      {
        name: 'weekly',
        possible_window_starts: [0, 4, 8, 12, 16, 20],
        window_length_hours: 4,
        retention_period_days: 28,
        possible_days: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'],
      },
      {
        name: 'daily',
        possible_window_starts: [0, 4, 8, 12, 16, 20],
        window_length_hours: 4,
        retention_period_days: 7,
        possible_days: [],
      },
    ]);
  });
});

describe('destroying a droplet with its associated resources', () => {
  it('destroys those chosen, keeps the others, and reports each destroyed, then completed', async () => {
    const id = await droplet('assoc-1');
    const kept = await snapshot(id, 'assoc-kept');
    const gone = await snapshot(id, 'assoc-gone');
    const volume = await call('volumes_create', {
      json: { name: 'assoc-vol', region: 'nyc3', size_gigabytes: 10 },
    });
    const volumeId = volume.body.volume.id;
    await call('volumeActions_post_byId', {
      params: { volume_id: volumeId },
      json: { type: 'attach', droplet_id: id },
    });
    const ip = (await call('reservedIPs_create', { json: { droplet_id: id } })).body.reserved_ip.ip;
    const listed = await call('droplets_list_associatedResources', { params: { droplet_id: id } });
    expect(listed.body.snapshots.map((s: { id: string }) => s.id)).toEqual([String(kept), String(gone)]);

    const params = { droplet_id: id };
    await refusedUnchanged(
      call('droplets_destroy_withAssociatedResourcesSelective', { params, json: { snapshots: ['12345'] } }),
      422,
      /12345 is not one of the droplet's associated snapshots/,
    );
    expectError(
      await call('droplets_get_DestroyAssociatedResourcesStatus', { params }),
      404,
      /could not be found/,
    );
    const destroyed = await call('droplets_destroy_withAssociatedResourcesSelective', {
      params,
      json: { snapshots: [String(gone)], volumes: [volumeId], reserved_ips: [ip] },
    });
    expect(destroyed.status, destroyed.text).toBe(202);
    expectError(await call('droplets_get', { params }), 404, /could not be found/);
    expect((await call('volumes_get', { params: { volume_id: volumeId } })).status).toBe(404);
    expect((await call('reservedIPs_get', { params: { reserved_ip: ip } })).status).toBe(404);
    expect((await call('images_get', { params: { image_id: gone } })).status).toBe(404);
    expect((await call('images_get', { params: { image_id: kept } })).status).toBe(200);

    const running = await call('droplets_get_DestroyAssociatedResourcesStatus', { params });
    expect(running.body).toMatchObject({ droplet: { id: String(id), name: 'assoc-1' }, failures: 0 });
    expect(running.body).not.toHaveProperty('completed_at');
    expect(running.body.droplet).not.toHaveProperty('destroyed_at');
    expectError(
      await call('droplets_destroy_retryWithAssociatedResources', { params }),
      409,
      /still in progress/,
    );
    await sandbox.advanceClock(2_000);
    const done = (await call('droplets_get_DestroyAssociatedResourcesStatus', { params })).body;
    expect(done).toMatchObject({
      completed_at: expect.any(String),
      droplet: { destroyed_at: expect.any(String) },
    });
    expect(done.resources.volumes).toEqual([
      { id: volumeId, name: 'assoc-vol', destroyed_at: expect.any(String) },
    ]);
    expect(done.resources.reserved_ips.map((r: { id: string }) => r.id)).toEqual([ip]);
    expect(done.resources.floating_ips).toEqual(done.resources.reserved_ips);
    expect(done.resources.snapshots.map((r: { id: string }) => r.id)).toEqual([String(gone)]);
    expectError(
      await call('droplets_destroy_retryWithAssociatedResources', { params }),
      409,
      /nothing to retry/,
    );
  });

  it('destroys everything only with X-Dangerous: true', async () => {
    const id = await droplet('assoc-2');
    const snap = await snapshot(id, 'assoc-all');
    const before = await everything();
    expect(await dangerous(id)).toBe(400);
    expect(await dangerous(id, 'false')).toBe(400);
    expect(await everything()).toEqual(before);
    expect(await dangerous(id, 'true')).toBe(202);
    expect((await call('images_get', { params: { image_id: snap } })).status).toBe(404);
    const status = await call('droplets_get_DestroyAssociatedResourcesStatus', {
      params: { droplet_id: id },
    });
    expect(status.body.resources.snapshots.map((r: { id: string }) => r.id)).toEqual([String(snap)]);
    expect(await dangerous(id, 'true')).toBe(404);
  });
});

describe('image account transfers', () => {
  it('offers a snapshot to another account; cancel and decline keep it, accept takes it away', async () => {
    const id = await droplet('transfer-src');
    const image = await snapshot(id, 'transfer-snap');
    const params = { image_id: image };
    const offer = (json: Record<string, unknown>) =>
      call('images_post_account_transfer_create', { params, json });
    await refusedUnchanged(offer({}), 400, /exactly one recipient/);
    await refusedUnchanged(offer({ recipient_email: 'not-an-email' }), 400, /email address/);
    await refusedUnchanged(
      offer({ recipient_email: 'ada@cloudcall.example' }),
      400,
      /the recipient is this account/,
    );
    const publicImage = (await call('images_list', { query: '?type=distribution&per_page=1' })).body.images[0]
      .id;
    await refusedUnchanged(
      call('images_post_account_transfer_create', {
        params: { image_id: publicImage },
        json: { recipient_email: 'b@example.com' },
      }),
      400,
      /public image/,
    );

    const first = await offer({ recipient_email: 'grace@example.com' });
    expect(first.status, first.text).toBe(201);
    const transferId = first.body.transfer_id;
    expect(transferId).toBeGreaterThan(3_164_000);
    await refusedUnchanged(
      offer({ recipient_email: 'grace@example.com' }),
      400,
      /already has a pending transfer/,
    );
    expect(
      (await call('images_post_account_transfer_cancel', { params, json: { transfer_id: transferId } }))
        .status,
    ).toBe(204);
    await refusedUnchanged(
      call('images_post_account_transfer_decline', { params, json: { transfer_id: transferId } }),
      400,
      /is canceled, no longer pending/,
    );
    expectError(
      await call('images_post_account_transfer_cancel', { params, json: { transfer_id: 1 } }),
      404,
      /has no transfer 1/,
    );

    const team = '5d1c3a2b-9e8f-4a7b-8c6d-0e1f2a3b4c5d';
    const second = (await offer({ recipient_uuid: team })).body.transfer_id;
    expect(
      (await call('images_post_account_transfer_decline', { params, json: { transfer_id: second } })).status,
    ).toBe(204);
    expect((await call('images_get', { params })).status).toBe(200);

    const third = (await offer({ recipient_uuid: team })).body.transfer_id;
    await refusedUnchanged(
      call('images_post_account_transfer_accept', {
        params,
        json: { transfer_id: third, recipient_uuid: '00000000-0000-4000-8000-000000000000' },
      }),
      400,
      /is offered to team/,
    );
    const accepted = await call('images_post_account_transfer_accept', {
      params,
      json: { transfer_id: third, recipient_uuid: team },
    });
    expect(accepted.status, accepted.text).toBe(201);
    expectError(await call('images_get', { params }), 404, /could not be found/);
  });
});

describe('VPC peerings from a VPC', () => {
  it('peers, lists by VPC in pages, renames under either path', async () => {
    const vpc = async (name: string) =>
      (await call('vpcs_create', { json: { name, region: 'nyc3' } })).body.vpc.id as string;
    const [a, b, c] = [await vpc('peer-a'), await vpc('peer-b'), await vpc('peer-c')];
    const made = await call('vpcs_create_peerings', {
      params: { vpc_id: a },
      json: { name: 'a-to-b', vpc_id: b },
    });
    expect(made.status, made.text).toBe(202);
    expect(made.body.peering).toMatchObject({ name: 'a-to-b', vpc_ids: [a, b], status: 'PROVISIONING' });
    const ac = (
      await call('vpcs_create_peerings', { params: { vpc_id: a }, json: { name: 'a-to-c', vpc_id: c } })
    ).body.peering;
    await refusedUnchanged(
      call('vpcs_create_peerings', { params: { vpc_id: b }, json: { name: 'again', vpc_id: a } }),
      422,
      /already peered/,
    );
    await refusedUnchanged(
      call('vpcs_create_peerings', { params: { vpc_id: a }, json: { name: 'self', vpc_id: a } }),
      422,
      /two different VPCs/,
    );

    const ofA = await call('vpcs_list_peerings', { params: { vpc_id: a } });
    expect(ofA.body.peerings.map((p: { name: string }) => p.name)).toEqual(['a-to-b', 'a-to-c']);
    const page2 = await call('vpcs_list_peerings', { params: { vpc_id: a }, query: '?per_page=1&page=2' });
    expect(page2.body.peerings.map((p: { name: string }) => p.name)).toEqual(['a-to-c']);
    expect(page2.body.meta.total).toBe(2);
    expect(
      (await call('vpcs_list_peerings', { params: { vpc_id: c } })).body.peerings.map(
        (p: { id: string }) => p.id,
      ),
    ).toEqual([ac.id]);

    const renamed = await call('vpcs_patch_peerings', {
      params: { vpc_id: a, vpc_peering_id: made.body.peering.id },
      json: { name: 'a-b-link' },
    });
    expect(renamed.body.peering.name).toBe('a-b-link');
    // Not a peering of VPC c.
    expectError(
      await call('vpcs_patch_peerings', {
        params: { vpc_id: c, vpc_peering_id: made.body.peering.id },
        json: { name: 'x' },
      }),
      404,
      /could not be found/,
    );
    const again = await call('vpcPeerings_patch', {
      params: { vpc_peering_id: ac.id },
      json: { name: 'a-c-link' },
    });
    expect(again.body.vpc_peering.name).toBe('a-c-link');
    await refusedUnchanged(
      call('vpcPeerings_patch', { params: { vpc_peering_id: ac.id }, json: { name: 'bad name' } }),
      422,
      /letters, digits/,
    );
    expectError(
      await call('vpcs_list_peerings', { params: { vpc_id: '00000000-0000-4000-8000-000000000000' } }),
      404,
      /could not be found/,
    );
  });
});

describe('BYOIP prefix advertisement', () => {
  it('is refused while the prefix is validated, then turned off and on', async () => {
    const made = await call('byoipPrefixes_create', {
      json: { prefix: '203.0.113.0/24', region: 'nyc3', signature: 'sig' },
    });
    const uuid = made.body.uuid;
    const params = { byoip_prefix_uuid: uuid };
    await refusedUnchanged(
      call('byoipPrefixes_patch', { params, json: { advertise: false } }),
      422,
      /still being validated/,
    );
    await sandbox.advanceClock(3_000);
    expect((await call('byoipPrefixes_get', { params })).body.byoip_prefix.advertised).toBe(true);
    const off = await call('byoipPrefixes_patch', { params, json: { advertise: false } });
    expect(off.status, off.text).toBe(202);
    expect(off.body.byoip_prefix).toMatchObject({ uuid, advertised: false, status: 'active' });
    expect((await call('byoipPrefixes_get', { params })).body.byoip_prefix.advertised).toBe(false);
    await refusedUnchanged(
      call('byoipPrefixes_patch', { params, json: { advertise: 'yes' } }),
      422,
      /must be a boolean/,
    );
    expect(
      (await call('byoipPrefixes_patch', { params, json: { advertise: true } })).body.byoip_prefix.advertised,
    ).toBe(true);
    expectError(
      await call('byoipPrefixes_patch', {
        params: { byoip_prefix_uuid: '00000000-0000-4000-8000-000000000000' },
        json: { advertise: true },
      }),
      404,
      /could not be found/,
    );
  });
});

describe('billing insights', () => {
  it("spreads the invoices' items over the days they ran, in pages", async () => {
    const account = (await call('account_get')).body.account;
    const urn = `do:team:${account.team.uuid}`;
    const invoices = (await call('invoices_list')).body.invoices;
    const period: string = invoices[0].invoice_period;
    const start = `${period}-01`;
    const last = new Date(Date.UTC(Number(period.slice(0, 4)), Number(period.slice(5, 7)), 0))
      .toISOString()
      .slice(0, 10);
    const params = { account_urn: urn, start_date: start, end_date: last };
    const all = await call('billingInsights_list', { params, query: '?per_page=200' });
    expect(all.status, all.text).toBe(200);
    expect(all.body.data_points[0]).toMatchObject({
      usage_team_urn: urn,
      start_date: start,
      sku: expect.stringMatching(/^1-DO-/),
    });
    expect(all.body.current_page).toBe(1);
    // A month's points add up to its invoice, give or take a cent a point.
    let total = 0;
    let count = all.body.total_items;
    for (let page = 1; count > 0; page++) {
      const body = (await call('billingInsights_list', { params, query: `?per_page=200&page=${page}` })).body;
      for (const point of body.data_points) total += Number(point.total_amount);
      count -= body.data_points.length;
    }
    expect(Math.abs(total - Number(invoices[0].amount))).toBeLessThan(all.body.total_items * 0.01);
    const second = await call('billingInsights_list', { params, query: '?per_page=5&page=2' });
    expect(second.body).toMatchObject({ current_page: 2, total_pages: Math.ceil(all.body.total_items / 5) });
    expect(second.body.data_points).toHaveLength(5);

    expectError(
      await call('billingInsights_list', { params: { ...params, account_urn: 'do:team:someone-else' } }),
      404,
      /could not be found/,
    );
    expectError(
      await call('billingInsights_list', { params: { ...params, start_date: '2025-02-30' } }),
      400,
      /must be a date/,
    );
    expectError(
      await call('billingInsights_list', { params: { ...params, start_date: last, end_date: start } }),
      400,
      /not be after/,
    );
  });
});
