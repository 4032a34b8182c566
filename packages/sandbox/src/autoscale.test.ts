/**
 * Droplet autoscale pools as the platform runs them, over HTTP with every answer checked against
 * the API description: members are real VMs of the account (provisioning, then active), the pool
 * scales to its config on update, history records each change, the template is checked as a VM
 * create is; delete keeps the members, delete dangerously (with X-Dangerous) destroys them;
 * refusals that change nothing; 404s; pages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshPublicKey } from './fixtures.js';
import { type Sandbox, startSandbox } from './server.js';
import { type CallOptions, callOperation, type Reply, steppingClock } from './testing/operations.js';
import type { World } from './world.js';

let sandbox: Sandbox;
let fingerprint: string;
const call = (operationId: string, options?: CallOptions) => callOperation(sandbox.url, operationId, options);

function expectError(reply: Reply, status: number, mentions: RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual({
    id: expect.any(String),
    message: expect.stringMatching(mentions),
    request_id: expect.any(String),
  });
}

const state = () =>
  sandbox.store.read((w: World) =>
    structuredClone({ pools: w.autoscalePools, droplets: w.droplets, tags: w.tags }),
  );

async function refusedUnchanged(reply: Promise<Reply>, status: number, mentions: RegExp) {
  const before = await state();
  expectError(await reply, status, mentions);
  expect(await state()).toEqual(before);
}

const template = (extra: Record<string, unknown> = {}) => ({
  name: 'web',
  region: 'nyc3',
  size: 's-1vcpu-1gb',
  image: 'ubuntu-24-04-x64',
  ssh_keys: [fingerprint],
  tags: ['pool-web'],
  ...extra,
});

async function pool(name: string, config: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const created = await call('autoscalepools_create', {
    json: { name, config, droplet_template: template(extra) },
  });
  expect(created.status, created.text).toBe(202);
  return created.body.autoscale_pool;
}

const members = async (id: string) =>
  (await call('autoscalepools_list_members', { params: { autoscale_pool_id: id }, query: '?per_page=200' }))
    .body;
const dropletIds = async () =>
  (await call('droplets_list', { query: '?per_page=200' })).body.droplets.map((d: { id: number }) => d.id);

async function dangerous(id: string, header?: string) {
  const response = await fetch(`${sandbox.url}/v2/droplets/autoscale/${id}/dangerous`, {
    method: 'DELETE',
    headers: { authorization: 'Bearer t', ...(header ? { 'x-dangerous': header } : {}) },
  });
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  sandbox = await startSandbox({ now: steppingClock() });
  const key = await call('sshKeys_create', { json: { name: 'pool-key', public_key: sshPublicKey() } });
  fingerprint = key.body.ssh_key.fingerprint;
});
afterAll(async () => {
  await sandbox.close();
});

describe('autoscale pools', () => {
  it('makes its members as VMs that boot; scales on update; records each change in its history', async () => {
    const created = await pool('web-pool', { target_number_instances: 2 });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'web-pool',
      config: { target_number_instances: 2 },
      droplet_template: {
        region: 'nyc3',
        size: 's-1vcpu-1gb',
        ssh_keys: [fingerprint],
        public_networking: true,
      },
      status: 'active',
      active_resources_count: 0,
    });
    const id = created.id;
    const first = await members(id);
    expect(first.meta.total).toBe(2);
    expect(first.droplets.map((m: { status: string }) => m.status)).toEqual(['provisioning', 'provisioning']);
    expect(first.droplets[0]).toMatchObject({
      health_status: 'unhealthy',
      unhealthy_reason: 'Droplet is provisioning',
    });
    // The members are VMs of the account, with the template's tags and keys.
    const memberIds = first.droplets.map((m: { droplet_id: number }) => m.droplet_id);
    expect(await dropletIds()).toEqual(expect.arrayContaining(memberIds));
    const vm = (await call('droplets_get', { params: { droplet_id: memberIds[0] } })).body.droplet;
    expect(vm).toMatchObject({
      size_slug: 's-1vcpu-1gb',
      tags: ['pool-web'],
      name: expect.stringMatching(/^web-[0-9a-f]{6}$/),
    });

    const history = async () =>
      (await call('autoscalepools_list_history', { params: { autoscale_pool_id: id } })).body.history;
    expect(await history()).toEqual([
      expect.objectContaining({
        current_instance_count: 0,
        desired_instance_count: 2,
        reason: 'CONFIGURATION_CHANGE',
        status: 'in_progress',
      }),
    ]);
    await sandbox.advanceClock(3_000);
    const running = await members(id);
    expect(
      running.droplets.map((m: { status: string; health_status: string }) => [m.status, m.health_status]),
    ).toEqual([
      ['active', 'healthy'],
      ['active', 'healthy'],
    ]);
    expect(running.droplets[0].current_utilization.memory).toBeGreaterThan(0);
    const active = (await call('autoscalepools_get', { params: { autoscale_pool_id: id } })).body
      .autoscale_pool;
    expect(active).toMatchObject({
      active_resources_count: 2,
      current_utilization: { cpu: expect.any(Number) },
    });
    expect((await history())[0].status).toBe('success');

    // Dynamic: with no load the pool keeps its minimum, 3.
    const update = (config: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      call('autoscalepools_update', {
        params: { autoscale_pool_id: id },
        json: { name: 'web-pool', config, droplet_template: template(extra) },
      });
    const grown = await update({ min_instances: 3, max_instances: 5, target_cpu_utilization: 0.6 });
    expect(grown.status, grown.text).toBe(200);
    expect(grown.body.autoscale_pool.config).toEqual({
      min_instances: 3,
      max_instances: 5,
      target_cpu_utilization: 0.6,
      cooldown_minutes: 10,
    });
    expect((await members(id)).meta.total).toBe(3);
    expect((await history())[0]).toMatchObject({ current_instance_count: 2, desired_instance_count: 3 });

    // Back to one: the newest members go, and are no longer VMs of the account.
    const shrunk = await update({ target_number_instances: 1 });
    expect(shrunk.status).toBe(200);
    const left = (await members(id)).droplets.map((m: { droplet_id: number }) => m.droplet_id);
    expect(left).toEqual([memberIds[0]]);
    expect(await dropletIds()).not.toContain(memberIds[1]);
    const events = await history();
    expect(events.map((e: { desired_instance_count: number }) => e.desired_instance_count)).toEqual([
      1, 3, 2,
    ]);
    const page2 = await call('autoscalepools_list_history', {
      params: { autoscale_pool_id: id },
      query: '?per_page=1&page=2',
    });
    expect(
      page2.body.history.map((e: { desired_instance_count: number }) => e.desired_instance_count),
    ).toEqual([3]);
    expect(page2.body.meta.total).toBe(3);

    // A member deleted as a VM drops out; the pool makes it again with its next change.
    expect((await call('droplets_destroy', { params: { droplet_id: memberIds[0] } })).status).toBe(204);
    expect((await members(id)).meta.total).toBe(0);
    await update({ target_number_instances: 1 }, { size: 's-1vcpu-2gb' });
    const remade = (await members(id)).droplets;
    expect(remade).toHaveLength(1);
    expect(
      (await call('droplets_get', { params: { droplet_id: remade[0].droplet_id } })).body.droplet.size_slug,
    ).toBe('s-1vcpu-2gb');
  });

  it('refuses a bad pool, naming the field, and makes nothing', async () => {
    await pool('taken', { target_number_instances: 1 });
    const config = { target_number_instances: 1 };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: 'taken' }, /already exists/],
      [{ config: {} }, /needs target_number_instances/],
      [{ config: { target_number_instances: 0 } }, /from 1 to 1000/],
      [{ config: { target_number_instances: 1, min_instances: 1 } }, /not both/],
      [{ config: { min_instances: 4, max_instances: 2, target_cpu_utilization: 0.5 } }, /must not exceed/],
      [{ config: { min_instances: 1, max_instances: 2 } }, /give one/],
      [{ config: { min_instances: 1, max_instances: 2, target_memory_utilization: 0.01 } }, /0.05 to 1/],
      [
        { config: { min_instances: 1, max_instances: 2, target_cpu_utilization: 0.5, cooldown_minutes: 30 } },
        /from 5 to 20/,
      ],
      [{ droplet_template: template({ region: 'atl1' }) }, /does not offer autoscale pools/],
      [{ droplet_template: template({ size: 'huge' }) }, /^droplet_template: .*invalid size/],
      [{ droplet_template: template({ image: 'no-such-image' }) }, /^droplet_template: .*invalid image/],
      [
        { droplet_template: template({ ssh_keys: ['00:11'] }) },
        /^droplet_template: ssh_keys "00:11" are invalid/,
      ],
      [
        { droplet_template: template({ vpc_uuid: '00000000-0000-4000-8000-000000000000' }) },
        /^droplet_template: vpc_uuid/,
      ],
      [{ droplet_template: template({ public_networking: false, ipv6: true }) }, /ipv6 must be false/],
      [{ droplet_template: template({ project_id: '00000000-0000-4000-8000-000000000000' }) }, /project_id/],
      [
        {
          config: { min_instances: 1, max_instances: 2, target_cpu_utilization: 0.5 },
          droplet_template: template({ with_droplet_agent: false }),
        },
        /with_droplet_agent must be true/,
      ],
      // More members than the account may have VMs.
      [{ config: { target_number_instances: 100 } }, /droplet limit/],
    ];
    for (const [change, message] of cases) {
      await refusedUnchanged(
        call('autoscalepools_create', {
          json: { name: 'fresh', config, droplet_template: template(), ...change },
        }),
        422,
        message,
      );
    }
  });

  it('deletes: the pool goes, its members stay; dangerously, with X-Dangerous, its members go too', async () => {
    const kept = await pool('kept', { target_number_instances: 1 });
    const keptMember = (await members(kept.id)).droplets[0].droplet_id;
    expect((await call('autoscalepools_delete', { params: { autoscale_pool_id: kept.id } })).status).toBe(
      202,
    );
    const deleting = await call('autoscalepools_get', { params: { autoscale_pool_id: kept.id } });
    expect(deleting.body.autoscale_pool.status).toBe('deleting');
    await refusedUnchanged(
      call('autoscalepools_update', {
        params: { autoscale_pool_id: kept.id },
        json: { name: 'kept', config: { target_number_instances: 2 }, droplet_template: template() },
      }),
      422,
      /being deleted/,
    );
    await sandbox.advanceClock(3_000);
    expectError(
      await call('autoscalepools_get', { params: { autoscale_pool_id: kept.id } }),
      404,
      /could not be found/,
    );
    expect(await dropletIds()).toContain(keptMember);

    const doomed = await pool('doomed', { target_number_instances: 2 });
    const doomedMembers = (await members(doomed.id)).droplets.map(
      (m: { droplet_id: number }) => m.droplet_id,
    );
    const before = await state();
    const refused = await dangerous(doomed.id);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/X-Dangerous: true/);
    expect(await state()).toEqual(before);
    expect((await dangerous(doomed.id, 'true')).status).toBe(202);
    const ids = await dropletIds();
    for (const id of doomedMembers) expect(ids).not.toContain(id);
    expect((await dangerous('00000000-0000-4000-8000-000000000000', 'true')).status).toBe(404);
    expectError(
      await call('autoscalepools_list_members', {
        params: { autoscale_pool_id: '00000000-0000-4000-8000-000000000000' },
      }),
      404,
      /could not be found/,
    );
  });

  it('lists by name and in pages', async () => {
    for (const name of ['list-a', 'list-b']) await pool(name, { target_number_instances: 1 });
    const named = await call('autoscalepools_list', { query: '?name=list-b' });
    expect(named.body.autoscale_pools.map((p: { name: string }) => p.name)).toEqual(['list-b']);
    const second = await call('autoscalepools_list', { query: '?per_page=1&page=2' });
    expect(second.body.autoscale_pools).toHaveLength(1);
    expect(second.body.meta.total).toBeGreaterThanOrEqual(2);
    expect(second.body.links.pages.prev).toContain('page=1');
  });
});
