/**
 * Partner Network Connect attachments as the platform runs them, over HTTP with every answer
 * checked against the API description: CREATING then CREATED on the sandbox clock, VPCs of the
 * metro, BGP checked, a redundant pair (parent and children), keys shown by their own operations
 * only, a service key regenerated, DELETING then gone; refusals that change nothing; pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const state = () => sandbox.store.read((w: World) => structuredClone(w.partnerAttachments));

async function refusedUnchanged(reply: Promise<Reply>, status: number, mentions: RegExp) {
  const before = await state();
  expectError(await reply, status, mentions);
  expect(await state()).toEqual(before);
}

let vpcCount = 0;
async function vpc(region = 'nyc3'): Promise<string> {
  const created = await call('vpcs_create', { json: { name: `pnc-vpc-${++vpcCount}`, region } });
  expect(created.status, created.text).toBe(201);
  return created.body.vpc.id;
}

const bgp = {
  local_router_ip: '169.254.0.1/29',
  peer_router_ip: '169.254.0.6/29',
  peer_router_asn: 64999,
  auth_key: 'sEcReT-key-1',
};

const body = (name: string, vpcIds: string[], extra: Record<string, unknown> = {}) => ({
  name,
  connection_bandwidth_in_mbps: 1000,
  region: 'nyc',
  naas_provider: 'MEGAPORT',
  vpc_ids: vpcIds,
  ...extra,
});

async function attachment(name: string, vpcIds: string[], extra: Record<string, unknown> = {}) {
  const created = await call('partnerAttachments_create', { json: body(name, vpcIds, extra) });
  expect(created.status, created.text).toBe(202);
  return created.body.partner_attachment;
}

const params = (id: string) => ({ params: { pa_id: id } });

beforeAll(async () => {
  sandbox = await startSandbox({ now: steppingClock() });
});
afterAll(async () => {
  await sandbox.close();
});

describe('partner attachments', () => {
  it('is CREATING then CREATED; shows its keys by their own operations; changes; is DELETING then gone', async () => {
    const [a, b] = [await vpc('nyc1'), await vpc('nyc3')];
    const created = await attachment('env.prod-pnc', [a, b], { bgp, redundancy_zone: 'MEGAPORT_BLUE' });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'env.prod-pnc',
      state: 'CREATING',
      connection_bandwidth_in_mbps: 1000,
      region: 'nyc',
      naas_provider: 'MEGAPORT',
      vpc_ids: [a, b],
      bgp: {
        local_asn: 64532,
        local_router_ip: '169.254.0.1/29',
        peer_router_ip: '169.254.0.6/29',
        peer_asn: 64999,
      },
      created_at: expect.any(String),
    });
    // The auth key is a secret: not in the attachment.
    expect(JSON.stringify(created)).not.toContain(bgp.auth_key);
    await refusedUnchanged(
      call('partnerAttachments_patch', { ...params(created.id), json: { name: 'x' } }),
      422,
      /is CREATING/,
    );
    await sandbox.advanceClock(3_000);
    expect((await call('partnerAttachments_get', params(created.id))).body.partner_attachment.state).toBe(
      'CREATED',
    );

    const auth = await call('partnerAttachments_get_bgp_auth_key', params(created.id));
    expect(auth.body.bgp_auth_key).toMatchObject({ value: bgp.auth_key, state: 'CREATED' });
    const key = (await call('partnerAttachments_get_service_key', params(created.id))).body.service_key;
    expect(key).toMatchObject({ value: expect.stringMatching(/^[0-9a-f-]{36}$/), state: 'CREATED' });
    const regenerated = await call('partnerAttachments_create_service_key', params(created.id));
    expect([regenerated.status, regenerated.body]).toEqual([202, {}]);
    const fresh = (await call('partnerAttachments_get_service_key', params(created.id))).body.service_key;
    expect(fresh.value).not.toBe(key.value);
    expect(fresh.state).toBe('CREATING');
    await sandbox.advanceClock(3_000);
    expect(
      (await call('partnerAttachments_get_service_key', params(created.id))).body.service_key.state,
    ).toBe('CREATED');

    const renamed = await call('partnerAttachments_patch', {
      ...params(created.id),
      json: { name: 'renamed', vpc_ids: [b] },
    });
    expect(renamed.status, renamed.text).toBe(202);
    expect(renamed.body.partner_attachment).toMatchObject({
      name: 'renamed',
      vpc_ids: [b],
      state: 'CREATED',
    });
    const rebgp = await call('partnerAttachments_patch', {
      ...params(created.id),
      json: { bgp: { ...bgp, peer_router_ip: '169.254.0.5/29', auth_key: 'other-key' } },
    });
    expect(rebgp.body.partner_attachment.bgp.peer_router_ip).toBe('169.254.0.5/29');
    expect(
      (await call('partnerAttachments_get_bgp_auth_key', params(created.id))).body.bgp_auth_key.value,
    ).toBe('other-key');

    const routes = await call('partnerAttachments_list_remote_routes', params(created.id));
    expect(routes.body).toMatchObject({ remote_routes: [], meta: { total: 0 } });

    const deleted = await call('partnerAttachments_delete', params(created.id));
    expect(deleted.status).toBe(202);
    expect(deleted.body.partner_attachment.state).toBe('DELETING');
    await refusedUnchanged(
      call('partnerAttachments_delete', params(created.id)),
      422,
      /already being deleted/,
    );
    await sandbox.advanceClock(3_000);
    expectError(await call('partnerAttachments_get', params(created.id)), 404, /could not be found/);
    expectError(
      await call('partnerAttachments_get_service_key', params(created.id)),
      404,
      /could not be found/,
    );
  });

  it('pairs a child with its parent, which is deleted after it', async () => {
    const net = await vpc('nyc1');
    const parent = await attachment('ha-blue', [net], { redundancy_zone: 'MEGAPORT_BLUE' });
    await refusedUnchanged(
      call('partnerAttachments_create', {
        json: body('ha-x', [net], { parent_uuid: parent.id, redundancy_zone: 'MEGAPORT_BLUE' }),
      }),
      422,
      /a pair spans both zones/,
    );
    const child = await attachment('ha-red', [net], {
      parent_uuid: parent.id,
      redundancy_zone: 'MEGAPORT_RED',
    });
    expect(child.parent_uuid).toBe(parent.id);
    expect(
      (await call('partnerAttachments_get', params(parent.id))).body.partner_attachment.children,
    ).toEqual([child.id]);
    await refusedUnchanged(call('partnerAttachments_delete', params(parent.id)), 422, /paired with ha-red/);
    await sandbox.advanceClock(3_000);
    expect((await call('partnerAttachments_delete', params(child.id))).status).toBe(202);
    expect((await call('partnerAttachments_delete', params(parent.id))).status).toBe(202);
  });

  it('refuses what the platform refuses, and makes nothing', async () => {
    const net = await vpc('nyc3');
    const far = await vpc('ams3');
    await attachment('taken', [net]);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: 'taken' }, /already exists/],
      [{ name: 'no spaces' }, /may only contain/],
      [{ connection_bandwidth_in_mbps: 1500 }, /one of 1000, 2000, 5000, 10000/],
      [{ region: 'nyc3' }, /a metro, not a datacenter/],
      [{ naas_provider: 'equinix' }, /naas_provider must be one of MEGAPORT/],
      [{ vpc_ids: [] }, /at least one VPC/],
      [{ vpc_ids: [far] }, /outside the nyc metro/],
      [{ vpc_ids: [net, net] }, /listed twice/],
      [{ bgp: { ...bgp, local_router_ip: '10.0.0.1/29' } }, /link-local/],
      [{ bgp: { ...bgp, peer_router_ip: '169.254.9.6/29' } }, /same subnet/],
      [{ bgp: { ...bgp, peer_router_asn: 64532 } }, /must differ from the platform's ASN/],
      [{ bgp: { ...bgp, auth_key: '' } }, /auth_key is required/],
      [{ parent_uuid: '00000000-0000-4000-8000-000000000000' }, /parent_uuid: .* does not exist/],
    ];
    for (const [change, message] of cases) {
      await refusedUnchanged(
        call('partnerAttachments_create', { json: body('fresh', [net], change) }),
        422,
        message,
      );
    }
    expectError(
      await call('partnerAttachments_get', params('00000000-0000-4000-8000-000000000000')),
      404,
      /could not be found/,
    );
  });

  it('lists in pages', async () => {
    const net = await vpc('sfo3');
    for (const name of ['page-1', 'page-2', 'page-3']) await attachment(name, [net], { region: 'sfo' });
    const second = await call('partnerAttachments_list', { query: '?per_page=2&page=2' });
    expect(second.status).toBe(200);
    expect(second.body.meta.total).toBeGreaterThanOrEqual(3);
    expect(second.body.partner_attachments.length).toBeGreaterThanOrEqual(1);
    expect(second.body.links.pages).toMatchObject({ first: expect.stringContaining('page=1') });
    const all = await call('partnerAttachments_list', { query: '?per_page=200' });
    expect(all.body.partner_attachments.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['page-1', 'page-2', 'page-3']),
    );
  });
});
