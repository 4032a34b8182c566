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

/** A GenAI Anthropic key: its secret is taken, never answered. */
const anthropicKey = (name: string) => ({ name, api_key: `sk-ant-${name}` });
const KEY_FIELDS = {
  uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
  created_at: expect.any(String),
  updated_at: expect.any(String),
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cloudcall-sandbox-generic-'));
  statePath = join(dir, 'state.json');
  sandbox = await startSandbox({ statePath, now: steppingClock() });
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a collection of the generic layer (GenAI Anthropic keys)', () => {
  it('creates, lists in pages, reads, replaces and deletes, and keeps it all across a restart', async () => {
    const ids: string[] = [];
    for (const name of ['alpha', 'beta', 'gamma']) {
      const created = await call('genai_create_anthropic_api_key', { json: anthropicKey(name) });
      expect(created.status).toBe(200);
      // What the request gave (its secret aside), and a UUID key, as the description's item says.
      expect(created.body.api_key_info).toEqual({ ...KEY_FIELDS, name });
      ids.push(created.body.api_key_info.uuid);
    }
    expect(new Set(ids).size).toBe(3);

    const second = await call('genai_list_anthropic_api_keys', { query: '?per_page=2&page=2' });
    expect(second.status).toBe(200);
    expect(second.body.api_key_infos.map((each: { name: string }) => each.name)).toEqual(['gamma']);
    expect(second.body.meta).toEqual({ page: 2, pages: 2, total: 3 });
    // This list names its link to the page before `previous`, as its description does.
    expect(second.body.links.pages).toEqual({
      first: `${sandbox.url}/v2/gen-ai/anthropic/keys?per_page=2&page=1`,
      previous: `${sandbox.url}/v2/gen-ai/anthropic/keys?per_page=2&page=1`,
    });
    const first = await call('genai_list_anthropic_api_keys', { query: '?per_page=2' });
    expect(first.body.api_key_infos.map((each: { name: string }) => each.name)).toEqual(['alpha', 'beta']);
    expect(first.body.links.pages.next).toBe(`${sandbox.url}/v2/gen-ai/anthropic/keys?per_page=2&page=2`);

    const [alpha, beta] = ids as [string, string];
    const read = (id: string) => call('genai_get_anthropic_api_key', { params: { api_key_uuid: id } });
    expect((await read(alpha)).body.api_key_info.name).toBe('alpha');
    // PUT replaces what its request can name: a field left out is gone, one of the wrong type not taken.
    const renamed = await call('genai_update_anthropic_api_key', {
      params: { api_key_uuid: alpha },
      json: { name: 'alpha-2', api_key: 'sk-ant-2' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.api_key_info).toEqual({ ...KEY_FIELDS, uuid: alpha, name: 'alpha-2' });
    expect((await read(alpha)).body.api_key_info.name).toBe('alpha-2');
    const unnamed = await call('genai_update_anthropic_api_key', {
      params: { api_key_uuid: beta },
      json: { name: 7, api_key: 'sk-ant-3' },
    });
    expect(unnamed.body.api_key_info).toEqual({ ...KEY_FIELDS, uuid: beta });

    expect((await call('genai_delete_anthropic_api_key', { params: { api_key_uuid: beta } })).status).toBe(
      200,
    );
    const gone = await read(beta);
    expect(gone.status).toBe(404);
    expect(gone.body.id).toBe('not_found');
    expect((await call('genai_delete_anthropic_api_key', { params: { api_key_uuid: beta } })).status).toBe(
      404,
    );
    expect(
      (await call('genai_update_anthropic_api_key', { params: { api_key_uuid: beta }, json: {} })).status,
    ).toBe(404);

    // A new sandbox on the same state file holds what this one made.
    await sandbox.close();
    sandbox = await startSandbox({ statePath, now: steppingClock() });
    const after = await call('genai_list_anthropic_api_keys');
    expect(
      after.body.api_key_infos.map((each: { uuid: string; name: string }) => [each.uuid, each.name]),
    ).toEqual([
      [alpha, 'alpha-2'],
      [ids[2], 'gamma'],
    ]);
    expect((await read(ids[2] as string)).body.api_key_info).toEqual({
      ...KEY_FIELDS,
      uuid: ids[2],
      name: 'gamma',
    });
  });

  it('is kept in a state file from an older sandbox too, which gains it empty', () => {
    const { genericItems, genericSettings, ...older } = seedWorld(0);
    const upgraded = upgradeWorld(structuredClone(older));
    expect([upgraded.genericItems, upgraded.genericSettings]).toEqual([{}, {}]);
  });

  it('keeps a nested collection under its parent, and deletes it with the parent', async () => {
    // An agent's API keys: no hand model answers them (Kubernetes node pools, used here before, have one).
    const agent = async (name: string) =>
      (await call('genai_create_agent', { json: { name } })).body.agent.uuid as string;
    const [one, two] = [await agent('nest-one'), await agent('nest-two')];
    const key = await call('genai_create_agent_api_key', {
      params: { agent_uuid: one },
      json: { name: 'workers' },
    });
    expect(key.body.api_key_info).toMatchObject({ name: 'workers' });
    const keyId = key.body.api_key_info.uuid as string;
    const keys = (id: string) => call('genai_list_agent_api_keys', { params: { agent_uuid: id } });
    expect((await keys(one)).body.api_key_infos.map((each: { uuid: string }) => each.uuid)).toEqual([keyId]);
    expect((await keys(two)).body.api_key_infos).toEqual([]);

    expect((await call('genai_delete_agent', { params: { uuid: one } })).status).toBe(200);
    expect((await keys(one)).status).toBe(404);
    const world = await sandbox.store.read((state) => state.genericItems);
    expect(Object.keys(world).filter((path) => path.includes(one))).toEqual([]);
  });

  it('keys items by the name their create gives, where the path names them so', () => {
    // No operation the generic layer still answers is keyed so (function triggers were the example
    // until a hand model took them): its routes alone, with no hand model, on a world in memory.
    const router = createRouter(genericRoutes([], (method, path) => router.match(method, path)));
    const world = seedWorld();
    const send = (method: string, path: string, body: Record<string, unknown> = {}) => {
      const found = router.match(method, path);
      if (!found.route) throw new Error(`no generic route for ${method} ${path}`);
      const request = {
        method,
        params: found.params,
        query: new URLSearchParams(),
        body,
        baseUrl: 'http://127.0.0.1',
        path,
        now: Date.now(),
      };
      try {
        return found.route.handler(request, world);
      } catch (error) {
        return { status: (error as { status?: number }).status, body: { message: (error as Error).message } };
      }
    };
    const namespace = send('POST', '/v2/functions/namespaces', { region: 'nyc1', label: 'walk' });
    const id = (namespace.body as { namespace: { uuid: string } }).namespace.uuid;
    const triggers = `/v2/functions/namespaces/${id}/triggers`;
    const body = { name: 'nightly', function: 'jobs/cleanup', type: 'SCHEDULED', is_enabled: true };
    expect(send('POST', triggers, body).status).toBe(200);
    const read = send('GET', `${triggers}/nightly`);
    expect((read.body as { trigger: unknown }).trigger).toMatchObject({
      name: 'nightly',
      function: 'jobs/cleanup',
    });
    expect(send('POST', triggers, body).status).toBe(422);
    const { name: _, ...unnamed } = body;
    const refused = send('POST', triggers, unnamed);
    expect(refused.status).toBe(422);
    expect((refused.body as { message: string }).message).toMatch(/name is required/);
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
    // The schema registry is now the databases hand model's (routes/databases-schemas.ts), which
    // starts at the registry's default level; the subset has no other settings of the generic
    // layer under a hand model's resource, so this checks the same path as it now behaves.
    expect((await config()).body).toEqual({ compatibility_level: 'BACKWARD' });
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
