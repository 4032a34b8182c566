/**
 * The api family's tools: api-search ranks what people ask for first, api-describe suggests near
 * names, api-call checks a request before sending it (checkedCall) and cuts a large answer to the
 * cap (capped); on a read-only server, api-call sends reads only. Calls that are sent go to the
 * sandbox on loopback.
 */
import { InputError, runTool } from '@cloudcall/core';
import { connectSandbox, type SandboxConnection } from '@cloudcall/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The package's public surface: what the apps and the guard import.
import {
  ANSWER_CAP,
  apiCallReadOnlyTool,
  apiCallTool,
  apiDescribeTool,
  apiFamily,
  apiSearchTool,
  capped,
  checkedCall,
  searchOperations,
  type Truncated,
} from './index.js';

let sandbox: SandboxConnection;
const seen: string[] = [];

beforeAll(async () => {
  sandbox = await connectSandbox({ onRequest: (info) => seen.push(`${info.method} ${info.target}`) });
});
afterAll(() => sandbox.close());

const run = (tool: Parameters<typeof runTool>[0], args: unknown) =>
  runTool(tool, args, { client: sandbox.client });
const refusal = (call: () => unknown): InputError => {
  try {
    call();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('it was not refused');
};
const ids = (text: string, limit?: number) =>
  searchOperations(text, limit).hits.map((hit) => hit.operationId);

describe('api-search', () => {
  it('ranks the operation people mean first', () => {
    expect(ids('vm create')[0]).toBe('droplets_create');
    expect(ids('create vm')[0]).toBe('droplets_create');
    expect(ids('list droplets')[0]).toBe('droplets_list');
    expect(ids('db create')[0]).toBe('databases_create_cluster');
    expect(ids('firewall add rules')[0]).toBe('firewalls_add_rules');
    expect(ids('load balancer create')[0]).toBe('loadBalancers_create');
    // An action on one VM before the one on every VM of a tag, a delete by id before by name.
    expect(ids('power off vm')[0]).toBe('dropletActions_post');
    expect(ids('resize droplet')[0]).toBe('dropletActions_post');
    expect(ids('delete volume')[0]).toBe('volumes_delete');
    // The API destroys a VM; a question names no operation by its little words.
    expect(ids('delete droplet')[0]).toBe('droplets_destroy');
    expect(ids('remove a vm')[0]).toBe('droplets_destroy');
    expect(ids('create a snapshot of the volume')[0]).toBe('volumeSnapshots_create');
  });

  it('finds the kubernetes node pool operations', () => {
    expect(ids('kubernetes node pool')).toEqual(
      expect.arrayContaining([
        'kubernetes_add_nodePool',
        'kubernetes_list_nodePools',
        'kubernetes_get_nodePool',
        'kubernetes_update_nodePool',
        'kubernetes_delete_nodePool',
      ]),
    );
    expect(ids('k8s node pool delete')[0]).toBe('kubernetes_delete_nodePool');
  });

  it('honours Limit, counts every match, and marks what destroys', async () => {
    const all = (await run(apiSearchTool, { Text: 'droplet' })) as {
      operations: { operationId: string }[];
      total: number;
    };
    expect(all.operations).toHaveLength(10);
    expect(all.total).toBeGreaterThan(10);
    const three = (await run(apiSearchTool, { Text: 'droplet', Limit: 3 })) as typeof all;
    expect(three.operations).toHaveLength(3);
    expect(three.total).toBe(all.total);
    expect(three.operations).toEqual(all.operations.slice(0, 3));
    expect(
      searchOperations('delete volume').hits.find((hit) => hit.operationId === 'volumes_delete')?.destructive,
    ).toBe(true);
    expect(
      searchOperations('volume action').hits.find((hit) => hit.operationId === 'volumeActions_post')
        ?.destructive,
    ).toEqual(['detach', 'resize']);
    expect(searchOperations('droplets list').hits[0]).toEqual({
      operationId: 'droplets_list',
      method: 'GET',
      path: '/v2/droplets',
      tag: 'Droplets',
    });
  });

  it('finds nothing for words no operation has, or no words at all', async () => {
    expect(searchOperations('zebra quantum')).toEqual({ hits: [], total: 0 });
    expect(searchOperations('  --  ')).toEqual({ hits: [], total: 0 });
    // Words that are names of Object.prototype's members are words like any other.
    expect(searchOperations('constructor toString __proto__ hasOwnProperty')).toEqual({ hits: [], total: 0 });
    expect(searchOperations('constructor').total).toBe(0);
    expect(apiSearchTool.input.safeParse({ Text: 'vm', Limit: 51 }).success).toBe(false);
    await expect(run(apiSearchTool, { Text: '' })).rejects.toBeInstanceOf(InputError);
  });
});

describe('api-describe', () => {
  it("describes an operation's parameters, body and what it names", async () => {
    const described = (await run(apiDescribeTool, {
      Operation: 'POST /v2/volumes/{volume_id}/actions',
    })) as Record<string, unknown>;
    expect(described).toMatchObject({
      operationId: 'volumeActions_post_byId',
      destructive: ['detach', 'resize'],
      path_parameters: { volume_id: 'string (uuid)' },
      body_required: true,
    });
    expect(described.body).toMatch(/droplet_id: integer/);
    expect(described.names).toEqual(
      expect.arrayContaining(['path volume_id: volume (changed)', 'body droplet_id: droplet (changed)']),
    );
    const list = (await run(apiDescribeTool, { Operation: 'droplets_list' })) as Record<string, unknown>;
    expect(list.query).toMatchObject({ 'per_page?': 'integer', 'tag_name?': 'string' });
    expect(list.body).toBeUndefined();
    expect(list.destructive).toBe(false);
  });

  it('says where an operation served elsewhere is', async () => {
    const described = (await run(apiDescribeTool, {
      Operation: 'inference_create_chat_completion',
    })) as Record<string, unknown>;
    expect(described.host).toBe('https://inference.do-ai.run');
  });

  it('suggests near operations for a name that is none', async () => {
    await expect(run(apiDescribeTool, { Operation: 'droplets_creat' })).rejects.toThrow(
      /names no operation; did you mean droplets_create/,
    );
    // A method the path lacks: the methods it has.
    await expect(run(apiDescribeTool, { Operation: 'put /v2/droplets/{droplet_id}' })).rejects.toThrow(
      'argument Operation: names no operation: /v2/droplets/{droplet_id} takes GET, DELETE, not PUT',
    );
    // A path that is none: operations near its words.
    await expect(
      run(apiDescribeTool, { Operation: 'GET /v2/droplet/{droplet_id}/snapshot' }),
    ).rejects.toThrow(/did you mean droplets_list_snapshots/);
    await expect(run(apiDescribeTool, { Operation: 'qqq' })).rejects.toThrow(
      /names no operation \(api-search finds them\)/,
    );
  });
});

describe('checkedCall', () => {
  it('merges the query of the Path into Query', () => {
    const call = checkedCall({
      Method: 'GET',
      Path: '/v2/droplets?per_page=5&tag_name=web',
      Query: { page: 2 },
    });
    expect(call.operation.id).toBe('droplets_list');
    expect(call.path).toBe('/v2/droplets');
    expect(call.query).toEqual({ per_page: '5', tag_name: 'web', page: 2 });
    // A name given twice in the Path is a list: taken where a list goes, refused where one value does.
    expect(
      checkedCall({
        Method: 'GET',
        Path: '/v2/apps/a1/events?event_types=DEPLOYMENT&event_types=AUTOSCALING',
      }).query,
    ).toEqual({
      event_types: ['DEPLOYMENT', 'AUTOSCALING'],
    });
    expect(
      refusal(() => checkedCall({ Method: 'GET', Path: '/v2/images?tag_name=a&tag_name=b' })).issues,
    ).toEqual([{ argument: 'Query.tag_name', message: 'must be string; got ["a","b"]' }]);
  });

  it('refuses a parameter in both the Path and Query', () => {
    const error = refusal(() =>
      checkedCall({ Method: 'GET', Path: '/v2/droplets?per_page=5', Query: { per_page: 2 } }),
    );
    expect(error.issues).toEqual([{ argument: 'Query', message: 'names per_page in both Path and Query' }]);
  });

  it('refuses dot segments, plain or encoded, and a slash in a value', () => {
    for (const path of [
      '/v2/droplets/%2e%2e',
      '/v2/droplets/%2E',
      '/v2/tags/a%2Fb',
      '/v2/tags/a%5Cb',
      '/v2/tags/%252e%252e',
    ])
      expect(refusal(() => checkedCall({ Method: 'GET', Path: path })).issues[0]?.argument, path).toBe(
        'Path',
      );
    const untag = refusal(() =>
      checkedCall({ Method: 'POST', Path: '/v2/tags/%2e%2e/resources', Body: { resources: [] } }),
    );
    expect(untag.issues).toEqual([
      { argument: 'Path', message: '{tag_id} cannot be "..": it would change the request path' },
    ]);
    expect(refusal(() => checkedCall({ Method: 'GET', Path: '/v2/droplets/%2e%2e' })).message).toMatch(
      /\{droplet_id\} cannot be "\.\.": it would change the request path/,
    );
  });

  it('takes a repository name holding "/" as %2F, as the API description asks, each part a segment', () => {
    const call = checkedCall({
      Method: 'DELETE',
      Path: '/v2/registries/reg/repositories/team%2Fapi/tags/v1',
    });
    expect(call.params).toMatchObject({ repository_name: 'team/api', repository_tag: 'v1' });
    expect(call.path).toBe('/v2/registries/reg/repositories/team%2Fapi/tags/v1');
    for (const path of [
      '/v2/registries/reg/repositories/team%2F..%2Fapi/tags/v1',
      '/v2/registries/reg/repositories/team%2F%2Fapi/tags/v1',
      // Only the repository: a tag's "/" is still refused.
      '/v2/registries/reg/repositories/api/tags/a%2Fb',
    ])
      expect(refusal(() => checkedCall({ Method: 'DELETE', Path: path })).issues[0]?.argument, path).toBe(
        'Path',
      );
  });

  it('names the methods a path takes for a method it does not', () => {
    expect(refusal(() => checkedCall({ Method: 'PATCH', Path: '/v2/droplets/7' })).issues).toEqual([
      { argument: 'Method', message: '/v2/droplets/7 takes GET, DELETE, not PATCH' },
    ]);
    expect(refusal(() => checkedCall({ Method: 'GET', Path: '/v2/nothing/here' })).issues[0]).toEqual({
      argument: 'Path',
      message:
        "/v2/nothing/here is no path of the platform's API; api-search finds operations, api-describe their paths",
    });
  });

  it('refuses an operation served elsewhere than the API', () => {
    const error = refusal(() =>
      checkedCall({ Method: 'POST', Path: '/v1/chat/completions', Body: { model: 'm', messages: [] } }),
    );
    expect(error.issues).toEqual([
      {
        argument: 'Operation',
        message:
          'is served at https://inference.do-ai.run, with a model access key, not at the API with a token: cloudcall does not call it',
      },
    ]);
  });

  it("refuses what the operation's validation refuses, and passes what it takes", () => {
    expect(refusal(() => checkedCall({ Method: 'GET', Path: '/v2/droplets/abc' })).issues).toEqual([
      { argument: 'Path', message: '{droplet_id} must be integer; got "abc"' },
    ]);
    const call = checkedCall({ Method: 'HEAD', Path: '/v2/droplets/7' });
    expect({ id: call.operation.id, params: call.params }).toEqual({
      id: 'droplets_get',
      params: { droplet_id: '7' },
    });
  });
});

describe('api-call', () => {
  it('sends a checked call and answers what the platform does', async () => {
    seen.length = 0;
    const created = (await run(apiCallTool, {
      Method: 'POST',
      Path: '/v2/tags',
      Body: { name: 'api-call-test' },
    })) as {
      tag: { name: string };
    };
    expect(created.tag.name).toBe('api-call-test');
    const read = (await run(apiCallTool, { Method: 'GET', Path: '/v2/tags/api-call-test' })) as {
      tag: { name: string };
    };
    expect(read.tag.name).toBe('api-call-test');
    // A delete answers 204: no content.
    expect(await run(apiCallTool, { Method: 'DELETE', Path: '/v2/tags/api-call-test' })).toEqual({
      ok: true,
    });
    expect(seen).toEqual(['POST /v2/tags', 'GET /v2/tags/api-call-test', 'DELETE /v2/tags/api-call-test']);
  });

  it('sends the query of the Path and of Query', async () => {
    seen.length = 0;
    await run(apiCallTool, { Method: 'GET', Path: '/v2/droplets?per_page=1', Query: { page: 1 } });
    expect(seen).toEqual(['GET /v2/droplets?per_page=1&page=1']);
  });

  it('on a read-only server, takes GET and HEAD only', async () => {
    seen.length = 0;
    const schema = apiCallReadOnlyTool.input;
    expect(schema.safeParse({ Method: 'POST', Path: '/v2/tags', Body: { name: 'x' } }).success).toBe(false);
    expect(schema.safeParse({ Method: 'DELETE', Path: '/v2/tags/x' }).success).toBe(false);
    expect(schema.safeParse({ Method: 'GET', Path: '/v2/tags' }).success).toBe(true);
    await expect(
      run(apiCallReadOnlyTool, { Method: 'POST', Path: '/v2/tags', Body: { name: 'x' } }),
    ).rejects.toBeInstanceOf(InputError);
    expect(apiCallReadOnlyTool.annotations.readOnlyHint).toBe(true);
    // Selection offers it in api-call's place under --read-only (catalog/select.test.ts).
    expect(apiCallTool.readOnlyForm).toBe(apiCallReadOnlyTool);
    expect(apiFamily.tools.map((tool) => tool.readOnlyForm?.name ?? tool.name)).toEqual([
      'api-search',
      'api-describe',
      'api-call',
    ]);
    expect(await run(apiCallReadOnlyTool, { Method: 'GET', Path: '/v2/account' })).toHaveProperty('account');
    expect(seen).toEqual(['GET /v2/account']);
  });
});

describe('capped', () => {
  const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

  it('gives an answer within the cap as it is', () => {
    const answer = { droplets: [{ id: 1 }], meta: { total: 1 } };
    expect(capped(answer)).toBe(answer);
  });

  it('cuts the longest list of a larger answer to what fits, and says so', () => {
    const droplets = Array.from({ length: 1_000 }, (_, id) => ({ id, name: `vm-${id}`, tags: ['web'] }));
    const answer = { droplets, ids: [1, 2, 3], links: {}, meta: { total: 1_000 } };
    const cut = capped(answer) as typeof answer & { truncated: Truncated };
    expect(size(cut)).toBeLessThanOrEqual(ANSWER_CAP);
    expect(cut.truncated).toEqual({
      field: 'droplets',
      shown: cut.droplets.length,
      total: 1_000,
      bytes: size(answer),
      cap: ANSWER_CAP,
      hint: expect.stringMatching(/per_page/),
    });
    expect(cut.droplets).toEqual(droplets.slice(0, cut.droplets.length));
    // As many as fit: one more would not.
    expect(size({ ...cut, droplets: droplets.slice(0, cut.droplets.length + 1) })).toBeGreaterThan(
      ANSWER_CAP,
    );
    expect(cut.ids).toEqual([1, 2, 3]);
    expect(cut.meta).toEqual({ total: 1_000 });
  });

  it('cuts an answer with no list as text, within the cap', () => {
    const droplet = Object.fromEntries(
      Array.from({ length: 5_000 }, (_, index) => [`k${index}`, `"v${index}"`]),
    );
    const cut = capped({ droplet }) as { text: string; truncated: Truncated };
    expect(Object.keys(cut)).toEqual(['text', 'truncated']);
    expect(cut.truncated).toEqual({ bytes: size({ droplet }), cap: ANSWER_CAP, hint: expect.any(String) });
    expect(JSON.stringify({ droplet }).startsWith(cut.text)).toBe(true);
    // Quotes are escaped again in the text: what fits is measured as sent.
    expect(size(cut)).toBeLessThanOrEqual(ANSWER_CAP);
    expect(size(cut)).toBeGreaterThan(ANSWER_CAP - 100);
  });

  it('cuts as text when the rest of the answer is too large beside an empty list', () => {
    const cut = capped({ note: 'x'.repeat(40_000), droplets: [{ id: 1 }] }) as {
      text?: string;
      truncated: Truncated;
    };
    expect(cut.text).toBeDefined();
    expect(cut.truncated.field).toBeUndefined();
    expect(size(cut)).toBeLessThanOrEqual(ANSWER_CAP);
  });

  it('counts bytes, not characters, and never splits a character', () => {
    const wide = capped({ droplet: { name: 'é'.repeat(40_000) } }) as { text: string };
    expect(size(wide)).toBeLessThanOrEqual(ANSWER_CAP);
    const astral = capped({ droplet: { name: '😀'.repeat(20_000) } }, 1_001) as { text: string };
    expect(size(astral)).toBeLessThanOrEqual(1_001);
    expect(astral.text.isWellFormed()).toBe(true);
  });

  it('takes another cap', () => {
    const cut = capped({ ids: Array.from({ length: 1_000 }, (_, index) => index) }, 500) as {
      ids: number[];
      truncated: Truncated;
    };
    expect(size(cut)).toBeLessThanOrEqual(500);
    expect(cut.truncated.cap).toBe(500);
    expect(cut.ids.length).toBeGreaterThan(0);
  });
});
