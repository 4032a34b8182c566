/**
 * Functions as the platform runs them, over HTTP with every answer checked against the API
 * description (`callOperation`): namespaces by region and label, scheduled triggers whose runs
 * follow their cron expression on the sandbox clock, access keys whose secret is shown once;
 * refusals that change nothing, 404s for what is not there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneData } from './clone.js';
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

const state = () =>
  sandbox.store.read((w: World) =>
    cloneData({ n: w.functionNamespaces, t: w.functionTriggers, k: w.functionAccessKeys }),
  );

async function refusedUnchanged(reply: Promise<Reply>, status: number, mentions: RegExp) {
  const before = await state();
  expectError(await reply, status, mentions);
  expect(await state()).toEqual(before);
}

async function namespace(label: string, region = 'nyc1') {
  const created = await call('functions_create_namespace', { json: { label, region } });
  expect(created.status, created.text).toBe(200);
  return created.body.namespace as { namespace: string; uuid: string; label: string };
}

const trigger = (name: string, cron = '*/10 * * * *', extra: Record<string, unknown> = {}) => ({
  name,
  function: 'sample/hello',
  type: 'SCHEDULED',
  is_enabled: true,
  scheduled_details: { cron, body: { name: 'sammy' } },
  ...extra,
});

beforeAll(async () => {
  sandbox = await startSandbox({ now: steppingClock() });
});
afterAll(async () => {
  await sandbox.close();
});

describe('namespaces', () => {
  it('creates, lists, gets by its fn- id, and deletes with its triggers and keys', async () => {
    const ns = await namespace('my namespace');
    expect(ns).toMatchObject({
      namespace: `fn-${ns.uuid}`,
      label: 'my namespace',
      region: 'nyc1',
      api_host: expect.stringMatching(/^https:\/\/faas-nyc1-[0-9a-f]{8}\.doserverless\.co$/),
      key: expect.stringMatching(/^[a-z0-9]{20,}$/),
    });
    const listed = await call('functions_list_namespaces');
    expect(listed.body.namespaces.map((n: { namespace: string }) => n.namespace)).toContain(ns.namespace);
    const got = await call('functions_get_namespace', { params: { namespace_id: ns.namespace } });
    expect(got.body.namespace).toEqual(ns);
    // Paths name a namespace by its fn- id, not its bare UUID.
    expectError(
      await call('functions_get_namespace', { params: { namespace_id: ns.uuid } }),
      404,
      /namespace not found/,
    );

    const params = { namespace_id: ns.namespace };
    expect((await call('functions_create_trigger', { params, json: trigger('t1') })).status).toBe(200);
    expect((await call('functionsAccessKey_create', { params, json: { name: 'k1' } })).status).toBe(201);
    expect((await call('functions_delete_namespace', { params })).status).toBe(204);
    expectError(await call('functions_get_namespace', { params }), 404, /namespace not found/);
    expectError(await call('functions_list_triggers', { params }), 404, /namespace not found/);
    // Other tests (in any order) keep triggers and keys in namespaces of their own.
    const left = await state();
    expect(left.t.filter((t) => t.namespace === ns.namespace)).toEqual([]);
    expect(left.k.filter((k) => k.namespace === ns.namespace)).toEqual([]);
    expect(left.n.map((n) => n.namespace)).not.toContain(ns.namespace);
    expectError(await call('functions_delete_namespace', { params }), 404, /namespace not found/);
  });

  it('refuses a namespace without a label, in a region without Functions, or with a label taken', async () => {
    await namespace('taken');
    await refusedUnchanged(
      call('functions_create_namespace', { json: { region: 'nyc1' } }),
      400,
      /missing label/,
    );
    await refusedUnchanged(
      call('functions_create_namespace', { json: { label: 'x', region: 'nyc3' } }),
      422,
      /does not run Functions/,
    );
    await refusedUnchanged(
      call('functions_create_namespace', { json: { label: 'taken', region: 'ams3' } }),
      422,
      /already exists/,
    );
  });
});

describe('triggers', () => {
  it('runs on its cron schedule while enabled, as the sandbox clock moves', async () => {
    const ns = await namespace('scheduled');
    const params = { namespace_id: ns.namespace };
    // Every minute: the next run is within a minute, and none has run yet.
    const created = await call('functions_create_trigger', {
      params,
      json: trigger('every-minute', '* * * * *'),
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body.trigger).toMatchObject({
      namespace: ns.namespace,
      name: 'every-minute',
      function: 'sample/hello',
      type: 'SCHEDULED',
      is_enabled: true,
      scheduled_details: { cron: '* * * * *', body: { name: 'sammy' } },
      scheduled_runs: { last_run_at: null },
    });
    const next = Date.parse(created.body.trigger.scheduled_runs.next_run_at);
    const createdAt = Date.parse(created.body.trigger.created_at);
    expect(next - createdAt).toBeGreaterThan(0);
    expect(next - createdAt).toBeLessThanOrEqual(61_000);
    expect(new Date(next).getUTCSeconds()).toBe(0);

    await sandbox.advanceClock(150_000);
    const tParams = { ...params, trigger_name: 'every-minute' };
    const ran = (await call('functions_get_trigger', { params: tParams })).body.trigger;
    const last = Date.parse(ran.scheduled_runs.last_run_at);
    expect(last).toBeGreaterThanOrEqual(next + 60_000);
    expect(Date.parse(ran.scheduled_runs.next_run_at)).toBe(last + 60_000);

    // Disabled: no next run; the last run stays what it was.
    const paused = await call('functions_update_trigger', { params: tParams, json: { is_enabled: false } });
    expect(paused.body.trigger).toMatchObject({
      is_enabled: false,
      scheduled_runs: { last_run_at: ran.scheduled_runs.last_run_at, next_run_at: null },
    });
    await sandbox.advanceClock(300_000);
    const still = (await call('functions_get_trigger', { params: tParams })).body.trigger;
    expect(still.scheduled_runs).toEqual(paused.body.trigger.scheduled_runs);

    // A new schedule, enabled: daily at 03:15, whose next run is at 03:15 UTC.
    const daily = await call('functions_update_trigger', {
      params: tParams,
      json: { is_enabled: true, scheduled_details: { cron: '15 3 * * *' } },
    });
    expect(daily.body.trigger.scheduled_details).toEqual({ cron: '15 3 * * *', body: null });
    const at = new Date(daily.body.trigger.scheduled_runs.next_run_at);
    expect([at.getUTCHours(), at.getUTCMinutes()]).toEqual([3, 15]);
    expect(daily.body.trigger.scheduled_runs.last_run_at).toBe(ran.scheduled_runs.last_run_at);
  });

  it('lists, refuses what the platform refuses, and deletes', async () => {
    const ns = await namespace('triggers');
    const params = { namespace_id: ns.namespace };
    expect((await call('functions_create_trigger', { params, json: trigger('a') })).status).toBe(200);
    expect(
      (await call('functions_create_trigger', { params, json: trigger('b', '0 9 * * MON-FRI') })).status,
    ).toBe(200);
    const listed = await call('functions_list_triggers', { params });
    expect(listed.body.triggers.map((t: { name: string }) => t.name)).toEqual(['a', 'b']);
    const weekday = new Date(listed.body.triggers[1].scheduled_runs.next_run_at);
    expect(weekday.getUTCDay()).toBeGreaterThanOrEqual(1);
    expect(weekday.getUTCDay()).toBeLessThanOrEqual(5);

    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ name: '', function: '' }, 400, /missing trigger name, missing function name/],
      [{ type: 'HTTP' }, 400, /type must be SCHEDULED/],
      [{ scheduled_details: { cron: '61 * * * *' } }, 400, /invalid cron expression: minute "61"/],
      [{ scheduled_details: { cron: '* * *' } }, 400, /5 fields/],
      [{ is_enabled: 'yes' }, 400, /is_enabled must be a boolean/],
      [{ name: 'a' }, 409, /already exists/],
    ];
    for (const [change, status, message] of cases) {
      await refusedUnchanged(
        call('functions_create_trigger', { params, json: { ...trigger('c'), ...change } }),
        status,
        message,
      );
    }
    await refusedUnchanged(
      call('functions_update_trigger', {
        params: { ...params, trigger_name: 'a' },
        json: { scheduled_details: { cron: '* * 31 2 * extra' } },
      }),
      400,
      /5 fields/,
    );
    const missing = { ...params, trigger_name: 'nope' };
    expectError(await call('functions_get_trigger', { params: missing }), 404, /trigger not found/);
    expectError(
      await call('functions_update_trigger', { params: missing, json: {} }),
      404,
      /trigger not found/,
    );
    expect(
      (await call('functions_delete_trigger', { params: { ...params, trigger_name: 'a' } })).status,
    ).toBe(204);
    expectError(
      await call('functions_delete_trigger', { params: { ...params, trigger_name: 'a' } }),
      404,
      /trigger not found/,
    );
    const unknownNs = { namespace_id: 'fn-00000000-0000-4000-8000-000000000000' };
    expectError(
      await call('functions_create_trigger', { params: unknownNs, json: trigger('x') }),
      404,
      /namespace not found/,
    );
  });
});

describe('access keys', () => {
  it('shows the secret once, expires when asked, renames, refuses a name taken, deletes', async () => {
    const ns = await namespace('keys');
    const params = { namespace_id: ns.namespace };
    const created = await call('functionsAccessKey_create', {
      params,
      json: { name: 'ci', expires_in: '7d' },
    });
    expect(created.status, created.text).toBe(201);
    const key = created.body.access_key;
    expect(key).toMatchObject({
      id: expect.stringMatching(/^dof_v1_[0-9a-f]{32}$/),
      name: 'ci',
      secret: expect.any(String),
    });
    expect(Date.parse(key.expires_at) - Date.parse(key.created_at)).toBe(7 * 86_400_000);
    const forever = (await call('functionsAccessKey_create', { params, json: { name: 'forever' } })).body
      .access_key;
    expect(forever.expires_at).toBeNull();

    const listed = await call('functionsAccessKey_list', { params });
    expect(listed.body.count).toBe(2);
    expect(listed.body.access_keys.map((k: { id: string }) => k.id)).toEqual([key.id, forever.id]);
    // The secret is never shown again.
    expect(listed.text).not.toContain(key.secret);
    expect(listed.body.access_keys[0]).not.toHaveProperty('secret');

    await refusedUnchanged(
      call('functionsAccessKey_create', { params, json: { name: 'ci' } }),
      409,
      /already has/,
    );
    await refusedUnchanged(
      call('functionsAccessKey_create', { params, json: { name: 'x', expires_in: '30m' } }),
      400,
      /expires_in must be a duration/,
    );
    const keyParams = { ...params, key_id: key.id };
    await refusedUnchanged(
      call('functionsAccessKey_update', { params: keyParams, json: { name: 'forever' } }),
      409,
      /already has/,
    );
    const renamed = await call('functionsAccessKey_update', { params: keyParams, json: { name: 'deploy' } });
    expect(renamed.body.access_key).toMatchObject({ id: key.id, name: 'deploy', expires_at: key.expires_at });
    expect((await call('functionsAccessKey_delete', { params: keyParams })).status).toBe(200);
    expectError(await call('functionsAccessKey_delete', { params: keyParams }), 404, /access key not found/);
    expect((await call('functionsAccessKey_list', { params })).body.count).toBe(1);
  });
});
