/**
 * `wait` as a library against the sandbox, on a virtual clock: each pause of the wait moves the
 * sandbox clock forward by as much, so a five-minute wait runs in milliseconds and no test
 * depends on how fast the machine is. Error states the sandbox never produces (an errored load
 * balancer, a certificate in error) come from a stand-in API on loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ApiClient,
  CancelledError,
  InputError,
  runTool,
  type ToolClock,
  type ToolContext,
  type ToolProgress,
  WaitFailedError,
  WaitTimeoutError,
} from '@cloudcall/core';
import { connectSandbox, type Sandbox, type SandboxConnection } from '@cloudcall/sandbox';
import { PATH_HOSTILE } from '@cloudcall/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WAIT_SECONDS, progressAt, waitAfter, waitSecondsFor, waitTargets, waitTool } from './index.js';

const UBUNTU = 161928327;

let connection: SandboxConnection;
let sandbox: Sandbox;
/** Requests the sandbox answered, as `METHOD target status`. */
let seen: string[] = [];

beforeAll(async () => {
  // The sandbox's real clock stands still: only the waits' pauses move its time, so a VM boots
  // after the same polls however slow the machine is.
  const started = Date.now();
  connection = await connectSandbox({
    now: () => started,
    onRequest: ({ method, target, status }) => seen.push(`${method} ${target} ${status}`),
  });
  sandbox = connection.sandbox;
});
afterEach(async () => {
  await sandbox.clearFaults();
  await sandbox.setRateLimit(undefined);
});
afterAll(async () => {
  await connection.close();
});

/** A clock whose sleeps return at once, moving itself and the sandbox clock forward instead. */
function virtualClock(): ToolClock & { pauses: number[] } {
  let now = Date.now();
  const pauses: number[] = [];
  return {
    pauses,
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      pauses.push(ms);
      now += ms;
      await sandbox.advanceClock(ms);
    },
  };
}

function context(extra: Partial<ToolContext> = {}) {
  const clock = virtualClock();
  const progress: ToolProgress[] = [];
  const ctx: ToolContext = {
    client: connection.client,
    clock,
    progress: (update) => progress.push(update),
    ...extra,
  };
  return { ctx, clock, progress };
}

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field.
type Json = any;

async function post(path: string, body: unknown): Promise<Json> {
  return connection.client.request({ method: 'POST', path, body });
}

async function createVm(name: string): Promise<{ id: number; actionId: number }> {
  const answer = await post('/v2/droplets', { name, region: 'nyc3', size: 's-1vcpu-1gb', image: UBUNTU });
  return { id: answer.droplet.id, actionId: answer.links.actions[0].id };
}

const wait = (args: Record<string, unknown>, ctx: ToolContext): Promise<Json> => runTool(waitTool, args, ctx);

describe('wait completes', () => {
  it('waits for a new VM to be active, reporting each poll', async () => {
    const { id } = await createVm('wait-vm');
    const { ctx, clock, progress } = context();
    const answer = await wait({ Kind: 'vm', ID: id }, ctx);
    expect(answer.droplet).toMatchObject({ id, status: 'active' });
    // The sandbox boots a VM in 3 s: polls at 0, 1, 2.5 and 4.75 s.
    expect(clock.pauses).toEqual([1_000, 1_500, 2_250]);
    // Named as the VM is named; the last report says it is ready.
    expect(progress.map((p) => p.message)).toEqual([
      'vm wait-vm: new → active (0 s, usually about 45 s, gives up at 300 s)',
      'vm wait-vm: new → active (1 s, usually about 45 s, gives up at 300 s)',
      'vm wait-vm: new → active (3 s, usually about 45 s, gives up at 300 s)',
      'vm wait-vm: active after 5 s',
    ]);
    expect(progress.map((p) => [p.subject, p.status])).toEqual([
      ['vm wait-vm', 'new'],
      ['vm wait-vm', 'new'],
      ['vm wait-vm', 'new'],
      ['vm wait-vm', 'active'],
    ]);
    // A bar a host can draw: a fixed total, progress rising along a VM's usual 45 s (1 s is 2%,
    // 2.5 s 5%), never back, reaching the total when the VM is active and not before.
    expect(progress.every((p) => p.total === 100)).toBe(true);
    const values = progress.map((p) => p.progress);
    expect(values.every((value, i) => i === 0 || value > (values[i - 1] as number))).toBe(true);
    expect(values.slice(1, 3).map(Math.round)).toEqual([2, 5]);
    expect(values.slice(0, -1).every((value) => value < 100)).toBe(true);
    expect(values.at(-1)).toBe(100);
  });

  it("names an action by its type and what it works on, and measures it by that type's usual length", async () => {
    const { id } = await createVm('wait-named');
    await sandbox.advanceClock(5_000);
    const { action } = await post(`/v2/droplets/${id}/actions`, { type: 'power_off' });
    const { ctx, progress } = context();
    await wait({ Kind: 'action', ID: action.id }, ctx);
    expect(progress[0]?.subject).toBe('action power_off on vm wait-named');
    expect(progress[0]?.message).toBe(
      'action power_off on vm wait-named: in-progress → completed (0 s, usually about 15 s, gives up at 300 s)',
    );
    // 1 s of a power-off's usual 15 s.
    expect(Math.round(progress[1]?.progress ?? 0)).toBe(6);
    expect(progress.at(-1)).toMatchObject({ progress: 100, status: 'completed' });
  });

  it('draws several waits in a row as one bar, each its share, never going back', async () => {
    const vms = [await createVm('wait-share-1'), await createVm('wait-share-2')];
    await sandbox.advanceClock(5_000);
    const actions = [];
    for (const { id } of vms)
      actions.push((await post(`/v2/droplets/${id}/actions`, { type: 'reboot' })).action);
    const { ctx, progress } = context();
    const answer = (await waitAfter({ kind: 'action' }, {}, { actions }, ctx, 300)) as Json;
    expect(answer.actions.map((action: Json) => action.status)).toEqual(['completed', 'completed']);
    const values = progress.map((p) => p.progress);
    expect(values.every((value, i) => i === 0 || value > (values[i - 1] as number))).toBe(true);
    // The first wait fills the first half of the bar, the second the rest.
    const firstDone = progress.findIndex((p) => p.progress === 50);
    expect(progress[firstDone]?.message).toMatch(
      /^1 of 2: action reboot on vm wait-share-1: completed after/,
    );
    expect(progress.slice(0, firstDone).every((p) => p.progress < 50)).toBe(true);
    // The second, done by then, adds no report of its own: the bar is filled all the same.
    expect(progress.at(-1)).toMatchObject({ progress: 100, message: '2 actions: completed' });
  });

  it('names nothing and reads nothing more for a caller that does not listen to progress', async () => {
    const { id } = await createVm('wait-silent');
    await sandbox.advanceClock(5_000);
    const { action } = await post(`/v2/droplets/${id}/actions`, { type: 'power_off' });
    const { ctx } = context({ progress: undefined });
    seen = [];
    await wait({ Kind: 'action', ID: action.id }, ctx);
    expect(seen.filter((line) => !line.startsWith(`GET /v2/actions/${action.id} `))).toEqual([]);
  });

  it('keeps progress under the total however long past the usual length a wait runs', () => {
    const values = [0, 1, 45, 90, 450, 1_800, 100_000].map((seconds) => progressAt(seconds, 45));
    expect(values.every((value, i) => i === 0 || value >= (values[i - 1] as number))).toBe(true);
    expect(values[0]).toBe(0);
    expect(Math.round(values[2] as number)).toBe(63);
    expect(Math.max(...values)).toBeLessThan(100);
  });

  it('waits for the action of a VM create to complete, the ID given as text', async () => {
    const { actionId } = await createVm('wait-action');
    const { ctx } = context();
    const answer = await wait({ Kind: 'action', ID: String(actionId) }, ctx);
    expect(answer.action).toMatchObject({ id: actionId, status: 'completed' });
  });

  it('waits for a database cluster to be online', async () => {
    const { database } = await post('/v2/databases', {
      name: 'wait-db',
      engine: 'pg',
      version: '16',
      region: 'nyc3',
      size: 'db-s-1vcpu-1gb',
      num_nodes: 1,
    });
    expect(database.status).toBe('creating');
    const { ctx } = context();
    expect((await wait({ Kind: 'database', ID: database.id }, ctx)).database.status).toBe('online');
  });

  it('waits for a load balancer to be active and a certificate to be verified', async () => {
    const { load_balancer } = await post('/v2/load_balancers', {
      name: 'wait-lb',
      region: 'nyc3',
      forwarding_rules: [
        { entry_protocol: 'http', entry_port: 80, target_protocol: 'http', target_port: 80 },
      ],
    });
    expect(load_balancer.status).toBe('new');
    expect(
      (await wait({ Kind: 'load-balancer', ID: load_balancer.id }, context().ctx)).load_balancer.status,
    ).toBe('active');
    await post('/v2/domains', { name: 'wait.example.com' });
    const { certificate } = await post('/v2/certificates', {
      name: 'wait-cert',
      type: 'lets_encrypt',
      dns_names: ['www.wait.example.com'],
    });
    expect(certificate.state).toBe('pending');
    expect((await wait({ Kind: 'certificate', ID: certificate.id }, context().ctx)).certificate.state).toBe(
      'verified',
    );
  });

  it('waits for an imported custom image to be available and a VPC peering to be ACTIVE', async () => {
    const { image } = await post('/v2/images', {
      name: 'wait-image',
      url: 'https://example.com/disk.qcow2.gz',
      region: 'nyc3',
    });
    expect(image.status).toBe('NEW');
    expect((await wait({ Kind: 'image', ID: image.id }, context().ctx)).image.status).toBe('available');
    const vpc = async (name: string, ip_range: string) =>
      (await post('/v2/vpcs', { name, region: 'nyc3', ip_range })).vpc.id;
    const { vpc_peering } = await post('/v2/vpc_peerings', {
      name: 'wait-peering',
      vpc_ids: [await vpc('wait-a', '10.210.0.0/20'), await vpc('wait-b', '10.211.0.0/20')],
    });
    expect(vpc_peering.status).toBe('PROVISIONING');
    expect((await wait({ Kind: 'vpc-peering', ID: vpc_peering.id }, context().ctx)).vpc_peering.status).toBe(
      'ACTIVE',
    );
  });

  it('waits for a read-only replica (cluster id and name) to be online and a BYOIP prefix to be active', async () => {
    const { database } = await post('/v2/databases', {
      name: 'wait-replicas',
      engine: 'pg',
      version: '16',
      region: 'nyc3',
      size: 'db-s-1vcpu-1gb',
      num_nodes: 1,
    });
    const { replica } = await post(`/v2/databases/${database.id}/replicas`, {
      name: 'wait-read-1',
      size: 'db-s-1vcpu-1gb',
    });
    expect(replica.status).toBe('creating');
    const { ctx, progress } = context();
    seen = [];
    const ready = await wait({ Kind: 'database-replica', ID: database.id, Name: 'wait-read-1' }, ctx);
    expect(ready.replica).toMatchObject({ name: 'wait-read-1', status: 'online' });
    expect(progress[0]?.subject).toBe('database-replica wait-read-1');
    expect(seen[0]).toBe(`GET /v2/databases/${database.id}/replicas/wait-read-1 200`);

    const created = await post('/v2/byoip_prefixes', {
      prefix: '198.51.100.0/24',
      signature: 'wait-signature',
      region: 'nyc3',
    });
    expect(created).toMatchObject({ uuid: expect.any(String), status: 'pending' });
    const prefix = await wait({ Kind: 'byoip-prefix', ID: created.uuid }, context().ctx);
    expect(prefix.byoip_prefix).toMatchObject({ uuid: created.uuid, status: 'active' });
  });

  it('waits for a Kubernetes cluster to run, reading its status.state, named in its progress', async () => {
    const { kubernetes_cluster: cluster } = await post('/v2/kubernetes/clusters', {
      name: 'wait-k8s',
      region: 'nyc3',
      version: 'latest',
      node_pools: [{ name: 'workers', size: 's-2vcpu-4gb', count: 1 }],
    });
    expect(cluster.status.state).toBe('provisioning');
    const { ctx, progress } = context();
    const ready = await wait({ Kind: 'kubernetes-cluster', ID: cluster.id }, ctx);
    expect(ready.kubernetes_cluster).toMatchObject({ id: cluster.id, status: { state: 'running' } });
    expect(progress[0]).toMatchObject({ subject: 'kubernetes-cluster wait-k8s', status: 'provisioning' });
    expect(progress.at(-1)?.message).toMatch(/^kubernetes-cluster wait-k8s: running after \d+ s$/);
    // Being deleted, it will never run: the wait ends with that error.
    await connection.client.request({ method: 'DELETE', path: `/v2/kubernetes/clusters/${cluster.id}` });
    await expect(wait({ Kind: 'kubernetes-cluster', ID: cluster.id }, context().ctx)).rejects.toThrow(
      /is deleting, an error state/,
    );
  });

  it("waits for an app's deployment (the app's id and the deployment's) to be ACTIVE, named by the app; a canceled one fails", async () => {
    const spec = {
      name: 'wait-app',
      services: [{ name: 'web', github: { repo: 'acme/web', branch: 'main' } }],
    };
    const { app } = await post('/v2/apps', { spec });
    const targets = waitTargets(
      {
        kind: 'app-deployment',
        idPaths: ['app.id'],
        namePaths: ['app.pending_deployment.id', 'app.in_progress_deployment.id'],
      },
      {},
      { app },
    );
    expect(targets).toHaveLength(1);
    const [{ ID, Name } = { ID: '', Name: '' }] = targets;
    expect(ID).toBe(app.id);
    const { ctx, progress } = context();
    const live = await wait({ Kind: 'app-deployment', ID, Name }, ctx);
    expect(live.deployment).toMatchObject({ id: Name, phase: 'ACTIVE' });
    expect(progress[0]?.subject).toBe(`app wait-app deployment ${String(Name).slice(0, 8)}`);

    const { deployment } = await post(`/v2/apps/${app.id}/deployments`, { force_build: true });
    await post(`/v2/apps/${app.id}/deployments/${deployment.id}/cancel`, {});
    await expect(
      wait({ Kind: 'app-deployment', ID: app.id, Name: deployment.id }, context().ctx),
    ).rejects.toThrow(
      new RegExp(
        `^app wait-app deployment ${deployment.id.slice(0, 8)} \\(app-deployment .+\\) is CANCELED, an error state`,
      ),
    );
    await connection.client.request({ method: 'DELETE', path: `/v2/apps/${app.id}` });
  });

  it('finds no app deployment to wait for in an answer without the ids', () => {
    const wait = {
      kind: 'app-deployment',
      idPaths: ['app.id'],
      namePaths: ['app.pending_deployment.id'],
    } as const;
    expect(waitTargets(wait, {}, { app: { id: 'a1' } })).toEqual([]);
    expect(waitTargets(wait, {}, { app: {} })).toEqual([]);
    expect(waitTargets(wait, {}, 'not an answer')).toEqual([]);
    expect(waitTargets(wait, {}, { app: { id: 7, pending_deployment: { id: 'd1' } } })).toEqual([
      { ID: '7', Name: 'd1' },
    ]);
    // From an argument, the deployment from the answer (app-update).
    const update = {
      kind: 'app-deployment',
      idArgument: 'ID',
      namePaths: ['app.in_progress_deployment.id'],
    } as const;
    expect(waitTargets(update, { ID: 'a2' }, { app: { in_progress_deployment: { id: 'd2' } } })).toEqual([
      { ID: 'a2', Name: 'd2' },
    ]);
    expect(waitTargets(update, {}, { app: { in_progress_deployment: { id: 'd2' } } })).toEqual([]);
  });

  it("waits for a registry's garbage collection (its UUID and the registry) to succeed, found among its collections", async () => {
    await post('/v2/registries', { name: 'wait-reg', subscription_tier_slug: 'basic' });
    const { garbage_collection: gc } = await post('/v2/registries/wait-reg/garbage-collection', {});
    const { ctx, progress } = context();
    seen = [];
    const done = await wait({ Kind: 'registry-garbage-collection', ID: gc.uuid, Name: 'wait-reg' }, ctx);
    expect(done.garbage_collection).toMatchObject({ uuid: gc.uuid, status: 'succeeded' });
    expect(progress[0]?.subject).toBe('registry-garbage-collection wait-reg');
    expect(seen[0]).toBe('GET /v2/registries/wait-reg/garbage-collections 200');
    // One that is not the registry's ends the wait at once: nothing would make it succeed.
    const other = '9cc10173-e9ea-4176-9dbc-a4cee4c4ff30';
    const error = (await wait(
      { Kind: 'registry-garbage-collection', ID: other, Name: 'wait-reg' },
      context().ctx,
    ).catch((e: unknown) => e)) as WaitFailedError;
    expect(error).toBeInstanceOf(WaitFailedError);
    expect(error.message).toMatch(/is not among the newest of wait-reg/);
    await connection.client.request({ method: 'DELETE', path: '/v2/registries/wait-reg' });
  });

  it('answers at once, with no progress, when the target is ready already', async () => {
    const { id } = await createVm('wait-ready');
    await sandbox.advanceClock(5_000);
    const { ctx, clock, progress } = context();
    expect((await wait({ Kind: 'vm', ID: id }, ctx)).droplet.status).toBe('active');
    expect(clock.pauses).toEqual([]);
    expect(progress).toEqual([]);
  });
});

describe('wait ends early', () => {
  it('times out with the last state and how to resume; the last poll is at the deadline', async () => {
    const { id } = await createVm('wait-timeout');
    const { ctx, clock } = context();
    const error = (await wait({ Kind: 'vm', ID: id, TimeoutSeconds: 2 }, ctx).catch(
      (e: unknown) => e,
    )) as WaitTimeoutError;
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error.kind).toBe('timeout');
    expect(error.retryable).toBe(true);
    expect(error.target).toEqual({ kind: 'vm', id: String(id) });
    expect(error.lastStatus).toBe('new');
    expect((error.lastObserved as Json).droplet).toMatchObject({ id, status: 'new' });
    expect(error.waitedSeconds).toBe(2);
    expect(error.message).toBe(
      `Timed out after 2 s waiting for vm ${id} to be active; its status was new. Nothing failed: call wait again with Kind vm and ID ${id} to keep waiting.`,
    );
    expect(clock.pauses).toEqual([1_000, 1_000]);
    // Resuming as the message says completes the wait.
    expect((await wait({ Kind: 'vm', ID: id }, context().ctx)).droplet.status).toBe('active');
  });

  it('stops at once when cancelled, sending nothing more', async () => {
    const { id } = await createVm('wait-cancel');
    const controller = new AbortController();
    const { ctx } = context({ signal: controller.signal });
    ctx.progress = () => controller.abort();
    seen = [];
    const error = await wait({ Kind: 'vm', ID: id }, ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CancelledError);
    expect(seen).toEqual([`GET /v2/droplets/${id} 200`]);
  });

  it('stops when cancelled during a pause of the real clock', async () => {
    const { id } = await createVm('wait-cancel-real');
    const controller = new AbortController();
    const started = Date.now();
    const error = await wait(
      { Kind: 'vm', ID: id },
      {
        client: connection.client,
        signal: controller.signal,
        progress: () => setTimeout(() => controller.abort(), 50),
      },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CancelledError);
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('ends with a WaitFailedError when the action errored', async () => {
    const id = 2_149_999_001;
    await sandbox.store.write((world) => {
      world.actions.push({
        id,
        type: 'snapshot',
        resource_id: 480_000_001,
        resource_type: 'droplet',
        region_slug: 'nyc3',
        started_ms: Date.now() + world.clockOffsetMs,
        duration_ms: 2_000,
        errored: true,
      });
    });
    const { ctx, progress } = context();
    const error = (await wait({ Kind: 'action', ID: id }, ctx).catch((e: unknown) => e)) as WaitFailedError;
    expect(error).toBeInstanceOf(WaitFailedError);
    expect(error.kind).toBe('failed');
    expect(error.retryable).toBe(false);
    expect(error.lastStatus).toBe('errored');
    expect((error.lastObserved as Json).action).toMatchObject({ id, status: 'errored' });
    expect(error.message).toMatch(
      /^action 2149999001 is errored, an error state: it will never be completed/,
    );
    // Named by what it works on (whichever VM has that id here, by name, or by id if none has).
    expect(progress[0]?.message).toMatch(/^action snapshot on vm [\w-]+: in-progress → completed \(/);
  });

  it('ends at once on a VM that is off with no action in progress, saying what to do instead', async () => {
    const { id } = await createVm('wait-off');
    await sandbox.advanceClock(5_000);
    await post(`/v2/droplets/${id}/actions`, { type: 'power_off' });
    await sandbox.advanceClock(5_000);
    const { ctx, clock, progress } = context();
    seen = [];
    const error = (await wait({ Kind: 'vm', ID: id }, ctx).catch((e: unknown) => e)) as WaitFailedError;
    expect(error).toBeInstanceOf(WaitFailedError);
    expect(error.retryable).toBe(false);
    expect(error.lastStatus).toBe('off');
    expect((error.lastObserved as Json).droplet).toMatchObject({ id, status: 'off' });
    expect(error.message).toBe(
      `vm ${id} is off and no action is in progress on it: it will not be active by itself, so the wait ended at once. Power it on (power-on-vm), then wait for that action or for the VM: a VM that is booting or being powered on is waited for until it is active.`,
    );
    // No pause, no progress: the VM and its newest actions read once each.
    expect(clock.pauses).toEqual([]);
    expect(progress).toEqual([]);
    expect(seen).toEqual([`GET /v2/droplets/${id} 200`, `GET /v2/droplets/${id}/actions?per_page=20 200`]);
  });

  it('waits for a VM that is off while an action powers it on, until it is active', async () => {
    const { id } = await createVm('wait-power-on');
    await sandbox.advanceClock(5_000);
    await post(`/v2/droplets/${id}/actions`, { type: 'power_off' });
    await sandbox.advanceClock(5_000);
    await post(`/v2/droplets/${id}/actions`, { type: 'power_on' });
    const { ctx, clock, progress } = context();
    const answer = await wait({ Kind: 'vm', ID: id }, ctx);
    expect(answer.droplet).toMatchObject({ id, status: 'active' });
    // The power-on takes 2 s of sandbox time: polls at 0, 1 and 2.5 s.
    expect(clock.pauses).toEqual([1_000, 1_500]);
    expect(progress[0]?.message).toBe(
      'vm wait-power-on: off → active (0 s, usually about 45 s, gives up at 300 s)',
    );
  });

  it('passes on a platform error such as a 404', async () => {
    const error = await wait({ Kind: 'vm', ID: 999 }, context().ctx).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 404, id: 'not_found' });
  });
});

describe('wait and the rate limit', () => {
  it('stretches its pauses so a low budget lasts until the reset', async () => {
    const { id } = await createVm('wait-budget');
    // 10 requests left for 100 s: one every 10 s.
    await sandbox.setRateLimit({ remaining: 10, resetInSeconds: 100 });
    const { ctx, clock } = context();
    expect((await wait({ Kind: 'vm', ID: id }, ctx)).droplet.status).toBe('active');
    expect(clock.pauses).toHaveLength(1);
    expect(clock.pauses[0]).toBeGreaterThan(9_000);
    expect(clock.pauses[0]).toBeLessThanOrEqual(10_100);
  });

  it("waits out a 429 longer than the client's own wait, then goes on", async () => {
    const { id } = await createVm('wait-429');
    const rule = await sandbox.injectFault({
      retryAfterSeconds: 30,
      method: 'GET',
      path: `/v2/droplets/${id}`,
    });
    const { ctx, clock } = context();
    expect((await wait({ Kind: 'vm', ID: id }, ctx)).droplet.status).toBe('active');
    expect(clock.pauses).toEqual([30_000]);
    expect(await sandbox.matchedRequests(rule)).toBe(2);
  });

  it('times out when a 429 asks for longer than the wait has left', async () => {
    const { id } = await createVm('wait-429-timeout');
    await sandbox.injectFault({ retryAfterSeconds: 30, method: 'GET', path: `/v2/droplets/${id}` });
    const error = (await wait({ Kind: 'vm', ID: id, TimeoutSeconds: 10 }, context().ctx).catch(
      (e: unknown) => e,
    )) as WaitTimeoutError;
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error.lastObserved).toBeUndefined();
    expect(error.message).toMatch(
      /^Gave up after 0 s of 10 s waiting for vm \d+ to be active: the API asked for a longer pause than the wait had left \(API error 429 .*Retry-After said 30 s\)\); no status was read yet\. Nothing failed: call wait again/,
    );
  });
});

describe('wait arguments', () => {
  it('checks the ID for its Kind and the timeout bounds, naming the argument, sending nothing', async () => {
    seen = [];
    const refused = async (args: Record<string, unknown>) => {
      const error = await wait(args, context().ctx).catch((e: unknown) => e);
      expect(error, JSON.stringify(args)).toBeInstanceOf(InputError);
      return error as InputError;
    };
    const uuid = '9cc10173-e9ea-4176-9dbc-a4cee4c4ff30';
    expect((await refused({ Kind: 'vm', ID: uuid })).message).toBe(
      `argument ID: for Kind vm, expected the numeric id of the vm (from vm-list); got "${uuid}"`,
    );
    expect((await refused({ Kind: 'database', ID: 42 })).message).toMatch(
      /^argument ID: for Kind database, expected the UUID of the database, .* \(from db-cluster-list\); got 42$/,
    );
    expect((await refused({ Kind: 'action', ID: 0 })).argument).toBe('ID');
    expect((await refused({ Kind: 'server', ID: 1 })).argument).toBe('Kind');
    expect((await refused({ Kind: 'vm', ID: 1, TimeoutSeconds: 0 })).argument).toBe('TimeoutSeconds');
    expect((await refused({ Kind: 'vm', ID: 1, TimeoutSeconds: MAX_WAIT_SECONDS + 1 })).argument).toBe(
      'TimeoutSeconds',
    );
    for (const kind of [
      'action',
      'vm',
      'database',
      'load-balancer',
      'certificate',
      'image',
      'vpc-peering',
      'database-replica',
      'byoip-prefix',
      'kubernetes-cluster',
    ]) {
      for (const value of PATH_HOSTILE) {
        const error = await refused({ Kind: kind, ID: value });
        expect(error.argument, `${kind} ${JSON.stringify(value)}`).toBe('ID');
      }
    }
    // A replica is named too: the name is required with its Kind, checked, and refused elsewhere.
    for (const value of [...PATH_HOSTILE, undefined]) {
      const error = await refused({ Kind: 'database-replica', ID: uuid, Name: value });
      expect(error.argument, JSON.stringify(value)).toBe('Name');
    }
    expect((await refused({ Kind: 'database', ID: uuid, Name: 'read-1' })).message).toMatch(
      /^argument Name: Name goes only with Kind database-replica/,
    );
    expect(seen).toEqual([]);
  });

  it('is read-only, with terse descriptions and the longer notes in details', () => {
    expect(waitTool.annotations.readOnlyHint).toBe(true);
    expect(Buffer.byteLength(waitTool.description)).toBeLessThanOrEqual(80);
    for (const [name, schema] of Object.entries(waitTool.input.shape)) {
      expect(Buffer.byteLength(schema.description ?? ''), name).toBeLessThanOrEqual(25);
    }
    expect(waitTool.details).toMatch(/database online/);
  });
});

describe('error states the sandbox never produces', () => {
  let server: Server;
  let client: ApiClient;
  const LB = 'e5c2a1f0-1111-4222-8333-944445555666';
  const CERT = 'f6d3b2a1-1111-4222-8333-944445555666';
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          req.url?.startsWith('/v2/load_balancers/')
            ? { load_balancer: { id: LB, status: 'errored' } }
            : { certificate: { id: CERT, state: 'error' } },
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new ApiClient({
      token: 't',
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    });
  });
  afterAll(async () => {
    await client.close();
    server.close();
  });

  it('ends the wait for an errored load balancer and a certificate in error', async () => {
    for (const [kind, id, status] of [
      ['load-balancer', LB, 'errored'],
      ['certificate', CERT, 'error'],
    ] as const) {
      const error = (await wait({ Kind: kind, ID: id }, { client }).catch(
        (e: unknown) => e,
      )) as WaitFailedError;
      expect(error, kind).toBeInstanceOf(WaitFailedError);
      expect(error.lastStatus).toBe(status);
      expect(error.target).toEqual({ kind, id });
    }
  });
});

describe("--wait's default time, by kind", () => {
  it('is twice what the kind usually takes, at least 5 minutes and at most the longest wait', () => {
    expect(waitSecondsFor('vm')).toBe(300);
    expect(waitSecondsFor('action')).toBe(300);
    expect(waitSecondsFor('database')).toBe(600);
    expect(waitSecondsFor('app-deployment')).toBe(600);
    expect(waitSecondsFor('kubernetes-cluster')).toBe(840);
    expect(waitSecondsFor('byoip-prefix')).toBe(MAX_WAIT_SECONDS);
  });
});
