/**
 * VPC NAT gateways as the platform runs them, over HTTP with every answer checked against the API
 * description: NEW, PROVISIONING, then ACTIVE with a public egress address on the sandbox clock; a
 * gateway address in each VPC served; one default gateway per VPC; updates while ACTIVE; DELETING,
 * then gone; lists filtered and in pages; refusals that change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from './server.js';
import { type CallOptions, callOperation, type Reply, steppingClock } from './testing/operations.js';
import type { World } from './world.js';

const REGION = 'tor1';
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

const state = () => sandbox.store.read((w: World) => structuredClone(w.natGateways));

async function refusedUnchanged(reply: Promise<Reply>, status: number, mentions: RegExp) {
  const before = await state();
  expectError(await reply, status, mentions);
  expect(await state()).toEqual(before);
}

let vpcCount = 0;
async function vpc(region = REGION): Promise<{ id: string; ip_range: string }> {
  const created = await call('vpcs_create', { json: { name: `nat-vpc-${++vpcCount}`, region } });
  expect(created.status, created.text).toBe(201);
  return created.body.vpc;
}

const body = (name: string, vpcs: unknown[], extra: Record<string, unknown> = {}) => ({
  name,
  type: 'PUBLIC',
  region: REGION,
  size: 1,
  vpcs,
  ...extra,
});

async function gateway(name: string, vpcs: unknown[], extra: Record<string, unknown> = {}) {
  const created = await call('vpcnatgateways_create', { json: body(name, vpcs, extra) });
  expect(created.status, created.text).toBe(202);
  return created.body.vpc_nat_gateway;
}

const get = (id: string) => call('vpcnatgateways_get', { params: { id } });

beforeAll(async () => {
  sandbox = await startSandbox({ now: steppingClock() });
});
afterAll(async () => {
  await sandbox.close();
});

describe('VPC NAT gateways', () => {
  it('goes NEW, PROVISIONING, ACTIVE with its egress address; updates; is DELETING, then gone', async () => {
    const net = await vpc();
    const created = await gateway('edge', [{ vpc_uuid: net.id, default_gateway: true }], {
      udp_timeout_seconds: 45,
    });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'edge',
      type: 'PUBLIC',
      state: 'NEW',
      region: REGION,
      size: 1,
      egresses: {},
      udp_timeout_seconds: 45,
      icmp_timeout_seconds: 30,
      tcp_timeout_seconds: 300,
    });
    // The gateway's address lies in the VPC's range.
    const [prefix] = net.ip_range.split('.').slice(0, 2).join('.').split('/');
    expect(created.vpcs).toEqual([
      {
        vpc_uuid: net.id,
        default_gateway: true,
        gateway_ip: expect.stringMatching(new RegExp(`^${prefix}\\.`)),
      },
    ]);
    await sandbox.advanceClock(1_500);
    expect((await get(created.id)).body.vpc_nat_gateway.state).toBe('PROVISIONING');
    await refusedUnchanged(
      call('vpcnatgateways_update', { params: { id: created.id }, json: { name: 'edge', size: 2 } }),
      422,
      /is PROVISIONING: it changes only while ACTIVE/,
    );
    await sandbox.advanceClock(1_500);
    const active = (await get(created.id)).body.vpc_nat_gateway;
    expect(active).toMatchObject({
      state: 'ACTIVE',
      egresses: { public_gateways: [{ ipv4: expect.stringMatching(/^203\.0\.113\.\d+$/) }] },
    });

    const second = await vpc();
    const updated = await call('vpcnatgateways_update', {
      params: { id: created.id },
      json: {
        name: 'edge-2',
        size: 2,
        vpcs: [{ vpc_uuid: net.id, default_gateway: false }, { vpc_uuid: second.id }],
        tcp_timeout_seconds: 600,
      },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.vpc_nat_gateway).toMatchObject({
      name: 'edge-2',
      size: 2,
      state: 'ACTIVE',
      udp_timeout_seconds: 45,
      tcp_timeout_seconds: 600,
    });
    // The first VPC keeps its gateway address; the second gets one of its own.
    expect(updated.body.vpc_nat_gateway.vpcs[0]).toEqual({ ...active.vpcs[0], default_gateway: false });
    expect(updated.body.vpc_nat_gateway.vpcs[1].vpc_uuid).toBe(second.id);

    expect((await call('vpcnatgateways_delete', { params: { id: created.id } })).status).toBe(202);
    expect((await get(created.id)).body.vpc_nat_gateway.state).toBe('DELETING');
    await refusedUnchanged(
      call('vpcnatgateways_delete', { params: { id: created.id } }),
      422,
      /already being deleted/,
    );
    await sandbox.advanceClock(3_000);
    expectError(await get(created.id), 404, /could not be found/);
    expectError(
      await call('vpcnatgateways_delete', { params: { id: created.id } }),
      404,
      /could not be found/,
    );
  });

  it('refuses what the platform refuses, and makes nothing', async () => {
    const net = await vpc();
    const far = await vpc('nyc3');
    await gateway('taken', [{ vpc_uuid: net.id, default_gateway: true }]);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: 'taken' }, /already exists/],
      [{ name: 'bad name' }, /may only contain/],
      [{ type: 'PRIVATE' }, /type must be PUBLIC/],
      [{ region: 'ams2' }, /does not offer VPC NAT gateways/],
      [{ size: 0 }, /size must be a positive integer/],
      [{ vpcs: [] }, /at least one VPC/],
      [{ vpcs: [{ vpc_uuid: far.id }] }, /is in nyc3, not tor1/],
      [{ vpcs: [{ vpc_uuid: '00000000-0000-4000-8000-000000000000' }] }, /does not exist/],
      [{ vpcs: [{ vpc_uuid: net.id }, { vpc_uuid: net.id }] }, /listed twice/],
      [
        { vpcs: [{ vpc_uuid: net.id, default_gateway: true }] },
        /already has a default NAT gateway \(taken\)/,
      ],
      [{ icmp_timeout_seconds: -5 }, /icmp_timeout_seconds must be a positive integer/],
    ];
    for (const [change, message] of cases) {
      await refusedUnchanged(
        call('vpcnatgateways_create', { json: body('fresh', [{ vpc_uuid: net.id }], change) }),
        422,
        message,
      );
    }
    // Not the default: a second gateway may serve the VPC.
    expect((await gateway('second', [{ vpc_uuid: net.id }])).vpcs[0].default_gateway).toBe(false);
    expectError(
      await call('vpcnatgateways_update', {
        params: { id: '00000000-0000-4000-8000-000000000000' },
        json: { name: 'x', size: 1 },
      }),
      404,
      /could not be found/,
    );
  });

  it('lists by state, region and name, in pages', async () => {
    const net = await vpc();
    for (const name of ['page-a', 'page-b', 'page-c']) await gateway(name, [{ vpc_uuid: net.id }]);
    const fresh = await call('vpcnatgateways_list', { query: '?state=new&per_page=200' });
    const names = fresh.body.vpc_nat_gateways.map((g: { name: string }) => g.name);
    expect(names).toEqual(expect.arrayContaining(['page-a', 'page-b', 'page-c']));
    expect(fresh.body.vpc_nat_gateways.every((g: { state: string }) => g.state === 'NEW')).toBe(true);
    const second = await call('vpcnatgateways_list', { query: `?region=${REGION}&per_page=1&page=2` });
    expect(second.body.vpc_nat_gateways).toHaveLength(1);
    expect(second.body.meta.total).toBeGreaterThanOrEqual(3);
    expect(second.body.links.pages).toMatchObject({
      first: expect.stringContaining('page=1'),
      prev: expect.any(String),
    });
    const byName = await call('vpcnatgateways_list', { query: '?name=page-b' });
    expect(byName.body.vpc_nat_gateways.map((g: { name: string }) => g.name)).toEqual(['page-b']);
    expect((await call('vpcnatgateways_list', { query: '?region=nyc1' })).body.meta.total).toBe(0);
  });
});
