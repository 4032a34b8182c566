/**
 * The generic layer's state, over raw HTTP (every answer checked against the API description by
 * callOperation): a collection no hand model owns is created, listed in pages, read, replaced and
 * deleted, and outlives the sandbox that made it; a nested collection goes with its parent; items
 * keyed by name; settings kept at one path; what a path names must exist, whichever layer keeps it;
 * hand models win where they answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Route } from '../http.js';
import { createRouter } from '../router.js';
import { type Sandbox, startSandbox } from '../server.js';
import { type CallOptions, callOperation, steppingClock } from '../testing/operations.js';
import { seedWorld, upgradeWorld } from '../world.js';
import { genericRoutes } from './routes.js';

let dir: string;
let statePath: string;
let sandbox: Sandbox;
const call = (operationId: string, options?: CallOptions) => callOperation(sandbox.url, operationId, options);

const check = (name: string) => ({
  name,
  type: 'https',
  target: `https://${name}.example.com/health`,
  regions: ['us_east', 'eu_west'],
  enabled: true,
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cloudcall-sandbox-generic-'));
  statePath = join(dir, 'state.json');
  sandbox = await startSandbox({ statePath, now: steppingClock() });
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a collection of the generic layer (uptime checks)', () => {
  it('creates, lists in pages, reads, replaces and deletes, and keeps it all across a restart', async () => {
    const ids: string[] = [];
    for (const name of ['alpha', 'beta', 'gamma']) {
      const created = await call('uptime_create_check', { json: check(name) });
      expect(created.status).toBe(201);
      // What the request gave, and a UUID key, as the description's `check` says.
      expect(created.body.check).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), ...check(name) });
      ids.push(created.body.check.id);
    }
    expect(new Set(ids).size).toBe(3);

    const second = await call('uptime_list_checks', { query: '?per_page=2&page=2' });
    expect(second.status).toBe(200);
    expect(second.body.checks.map((each: { name: string }) => each.name)).toEqual(['gamma']);
    expect(second.body.meta).toEqual({ total: 3 });
    expect(second.body.links.pages).toEqual({
      first: `${sandbox.url}/v2/uptime/checks?per_page=2&page=1`,
      prev: `${sandbox.url}/v2/uptime/checks?per_page=2&page=1`,
    });
    const first = await call('uptime_list_checks', { query: '?per_page=2' });
    expect(first.body.checks.map((each: { name: string }) => each.name)).toEqual(['alpha', 'beta']);
    expect(first.body.links.pages.next).toBe(`${sandbox.url}/v2/uptime/checks?per_page=2&page=2`);

    const [alpha, beta] = ids as [string, string];
    expect((await call('uptime_get_check', { params: { check_id: alpha } })).body.check.name).toBe('alpha');
    // PUT replaces what its request can name: a field left out is gone, one of the wrong type not taken.
    const replaced = await call('uptime_update_check', {
      params: { check_id: alpha },
      json: { name: 'alpha-2', target: 'https://alpha.example.org/', enabled: 'yes' },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.check).toEqual({ id: alpha, name: 'alpha-2', target: 'https://alpha.example.org/' });
    expect((await call('uptime_get_check', { params: { check_id: alpha } })).body.check.name).toBe('alpha-2');

    expect((await call('uptime_delete_check', { params: { check_id: beta } })).status).toBe(204);
    const gone = await call('uptime_get_check', { params: { check_id: beta } });
    expect(gone.status).toBe(404);
    expect(gone.body.id).toBe('not_found');
    expect((await call('uptime_delete_check', { params: { check_id: beta } })).status).toBe(404);
    expect((await call('uptime_update_check', { params: { check_id: beta }, json: {} })).status).toBe(404);

    // A new sandbox on the same state file holds what this one made.
    await sandbox.close();
    sandbox = await startSandbox({ statePath, now: steppingClock() });
    const after = await call('uptime_list_checks');
    expect(after.body.checks.map((each: { id: string; name: string }) => [each.id, each.name])).toEqual([
      [alpha, 'alpha-2'],
      [ids[2], 'gamma'],
    ]);
    expect((await call('uptime_get_check', { params: { check_id: ids[2] as string } })).body.check).toEqual({
      id: ids[2],
      ...check('gamma'),
    });
  });

  it('is kept in a state file from an older sandbox too, which gains it empty', () => {
    const { genericItems, genericSettings, ...older } = seedWorld(0);
    const upgraded = upgradeWorld(structuredClone(older));
    expect([upgraded.genericItems, upgraded.genericSettings]).toEqual([{}, {}]);
  });

  it('keeps a nested collection under its parent, and deletes it with the parent', async () => {
    const cluster = async (name: string) =>
      (
        await call('kubernetes_create_cluster', {
          json: {
            name,
            region: 'nyc1',
            version: '1.31',
            node_pools: [{ name: 'p', size: 's-1vcpu-2gb', count: 1 }],
          },
        })
      ).body.kubernetes_cluster.id as string;
    const [one, two] = [await cluster('one'), await cluster('two')];
    const pool = await call('kubernetes_add_nodePool', {
      params: { cluster_id: one },
      json: { name: 'workers', size: 's-2vcpu-4gb', count: 3 },
    });
    expect(pool.body.node_pool).toMatchObject({ name: 'workers', size: 's-2vcpu-4gb', count: 3 });
    const poolId = pool.body.node_pool.id as string;
    const pools = (id: string) => call('kubernetes_list_nodePools', { params: { cluster_id: id } });
    expect((await pools(one)).body.node_pools.map((each: { id: string }) => each.id)).toEqual([poolId]);
    expect((await pools(two)).body.node_pools).toEqual([]);
    // A pool is found under its own cluster only.
    const params = { cluster_id: two, node_pool_id: poolId };
    expect((await call('kubernetes_get_nodePool', { params })).status).toBe(404);

    expect((await call('kubernetes_delete_cluster', { params: { cluster_id: one } })).status).toBe(204);
    expect((await pools(one)).status).toBe(404);
    expect((await call('kubernetes_get_kubeconfig', { params: { cluster_id: one } })).status).toBe(404);
    const world = await sandbox.store.read((state) => state.genericItems);
    expect(Object.keys(world).filter((path) => path.includes(one))).toEqual([]);
  });

  it('keys items by the name their create gives, where the path names them so', async () => {
    const body = { name: 'walk-registry', subscription_tier_slug: 'basic', region: 'nyc3' };
    expect((await call('registries_create', { json: body })).status).toBe(201);
    const read = await call('registries_get', { params: { registry_name: 'walk-registry' } });
    expect(read.body.registry).toMatchObject({ name: 'walk-registry', region: 'nyc3' });
    expect((await call('registries_create', { json: body })).status).toBe(422);
    const unnamed = await call('registries_create', { json: { region: 'nyc3' } });
    expect(unnamed.status).toBe(422);
    expect(unnamed.body.message).toMatch(/name is required/);
  });
});

describe('around the hand models', () => {
  it('keeps settings at their path, under a resource a hand model keeps, which must exist', async () => {
    const cluster = await call('databases_create_cluster', {
      json: { name: 'generic-db', engine: 'kafka', region: 'nyc3', size: 'db-s-1vcpu-1gb', num_nodes: 3 },
    });
    expect(cluster.status).toBe(201);
    const params = { database_cluster_uuid: cluster.body.database.id };
    const config = () => call('databases_get_kafka_schema_config', { params });
    expect((await config()).body).toEqual({ compatibility_level: 'NONE' });
    const set = await call('databases_update_kafka_schema_config', {
      params,
      json: { compatibility_level: 'FULL' },
    });
    expect(set.body).toEqual({ compatibility_level: 'FULL' });
    expect((await config()).body).toEqual({ compatibility_level: 'FULL' });

    const unknown = { database_cluster_uuid: '00000000-0000-4000-8000-000000000000' };
    expect((await call('databases_get_kafka_schema_config', { params: unknown })).status).toBe(404);
    expect((await call('databases_list_events_logs', { params: unknown })).status).toBe(404);
    expect((await call('databases_list_events_logs', { params })).status).toBe(200);
  });

  it('lets a hand model answer its paths, the generic layer the more specific ones', async () => {
    // The projects model takes `default` for its {id}: the real default project, not a template.
    const project = await call('projects_get_default');
    expect(project.body.project).toMatchObject({ name: 'first-project', is_default: true });
    // `/v2/droplets/autoscale` is not a VM's id: the autoscale pools answer.
    expect((await call('autoscalepools_list')).body).toMatchObject({ autoscale_pools: [] });
  });

  it('takes bodies as the platform does: no length table, but no runaway nesting', async () => {
    // An agent's instructions run long; the hand models' limit for other text is 1,024 characters.
    const instruction = 'Answer politely. '.repeat(400);
    const agent = await call('genai_create_agent', { json: { name: 'long', instruction } });
    expect(agent.status).toBe(200);
    expect(agent.body.agent).toMatchObject({ name: 'long', instruction });
    let nested: unknown = {};
    for (let i = 0; i < 40; i++) nested = { inner: nested };
    const deep = await call('genai_create_agent', { json: { name: 'deep', nested } });
    expect(deep.status).toBe(422);
    expect(deep.body.message).toMatch(/nested more than/);
  });

  it("answers the platform's 410 for an operation it has withdrawn", async () => {
    const reply = await call('genai_create_model_api_key', { json: { name: 'old' } });
    expect(reply.status).toBe(410);
    expect(reply.body.id).toBe('gone');
  });
});

describe('routing', () => {
  const route = (method: Route['method'], path: string, name: string): Route => ({
    method,
    path,
    handler: () => ({ body: name }),
  });

  it('makes no generic route for an operation a hand model has a route for', () => {
    const nowhere = () => ({ route: undefined, pathKnown: false }) as const;
    const ids = (hand: Route[]) => genericRoutes(hand, nowhere).map((each) => each.operationId);
    const alone = ids([]);
    // Every operation served at the API, but those a hand model answers through a parameter.
    expect(alone).toHaveLength(644 - 5);
    expect(alone).toContain('kubernetes_list_options');
    // Parameter names aside: `{id}` stands for the description's `{cluster_id}`.
    const taken = ids([
      route('GET', '/v2/kubernetes/options', 'hand'),
      route('GET', '/v2/kubernetes/clusters/{id}', 'hand'),
    ]);
    expect(alone.filter((id) => !taken.includes(id))).toEqual([
      'kubernetes_get_cluster',
      'kubernetes_list_options',
    ]);
  });

  it('tries the most specific route first, and of equally specific ones the first listed', () => {
    const router = createRouter([
      route('GET', '/v2/droplets/{id}', 'a VM'),
      route('GET', '/v2/droplets/autoscale', 'the pools'),
      route('GET', '/v2/things/{a}', 'first'),
      route('GET', '/v2/things/{b}', 'second'),
    ]);
    const answer = (path: string) => {
      const found = router.match('GET', path);
      return found.route?.handler({} as never, {} as never).body;
    };
    expect(answer('/v2/droplets/autoscale')).toBe('the pools');
    expect(answer('/v2/droplets/7')).toBe('a VM');
    expect(answer('/v2/things/1')).toBe('first');
    expect(router.match('GET', '/v2/droplets/7')).toMatchObject({ params: { id: '7' } });
    expect(router.match('POST', '/v2/droplets/7')).toEqual({ route: undefined, pathKnown: true });
    expect(router.match('GET', '/v2/nope')).toEqual({ route: undefined, pathKnown: false });
  });
});
