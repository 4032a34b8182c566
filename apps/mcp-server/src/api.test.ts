/**
 * The api family (api-search, api-describe, api-call) through the official SDK client over stdio,
 * the server started as main.ts starts it (in this process), against the sandbox on a state file.
 * A second sandbox on the same file, in this process, counts the requests that reach the API and
 * reads what they left: a refused call must send nothing. Covered: finding and describing an
 * operation, reads and a create, requests refused before sending (unknown path, a body that breaks
 * the schema), the guard rails (--confirm always-refuse, confirmation by typing the name,
 * --protect on a path or on a body naming the resource), --read-only's form of api-call, and an
 * answer cut at 32 KiB.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Sandbox, sshPublicKey, startSandbox } from '@cloudcall/sandbox';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type ClientCapabilities,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from './testing/client.js';
import { killAll, stdioClient } from './testing/main.js';

const statePath = join(mkdtempSync(join(tmpdir(), 'cloudcall-mcp-api-')), 'sandbox.json');
let helper: Sandbox;

beforeAll(async () => {
  helper = await startSandbox({ statePath });
});
afterEach(killAll);
afterAll(() => helper.close());

// biome-ignore lint/suspicious/noExplicitAny: results are checked field by field.
type Json = any;

/**
 * The server on the shared sandbox (`--families api` and `args`), and a client declaring
 * `capabilities`; when it declares elicitation, each question is answered by `answer` and kept.
 */
async function connect(
  args: string[] = [],
  capabilities: ClientCapabilities = {},
  answer?: () => ElicitResult,
) {
  const { client } = await stdioClient(
    ['--sandbox', '--sandbox-state', statePath, '--families', 'api', ...args],
    {},
    { capabilities },
  );
  const asked: string[] = [];
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return answer();
    });
  }
  return { client, asked };
}

/** Counts the requests that reach the sandbox from now on: all of them, and those that change something. */
async function watch() {
  const all = await helper.watchRequests({});
  const writes = await Promise.all(
    ['POST', 'PUT', 'PATCH', 'DELETE'].map((method) => helper.watchRequests({ method })),
  );
  return {
    all: () => helper.matchedRequests(all),
    writes: async () =>
      (await Promise.all(writes.map((id) => helper.matchedRequests(id)))).reduce(
        (sum, count) => sum + count,
        0,
      ),
  };
}

async function apiCall(client: Client, args: Record<string, unknown>) {
  return call(client, 'api-call', args);
}

/** Makes an SSH key through api-call; its id. */
async function createKey(client: Client, name: string): Promise<number> {
  const created = await apiCall(client, {
    Method: 'POST',
    Path: '/v2/account/keys',
    Body: { name, public_key: sshPublicKey(name) },
  });
  expect(created.isError, created.text).toBe(false);
  return (created.structured as Json).ssh_key.id;
}

/** The SSH keys in the sandbox's state, by name. */
const keyNames = () => helper.store.read((world) => world.sshKeys.map((key) => key.name));
const tagNames = () => helper.store.read((world) => world.tags.map((tag) => tag.name));

describe('api-search and api-describe', () => {
  it('find droplets_create for "vm create", and describe it by operationId or by METHOD /v2/path', async () => {
    const { client } = await connect();
    const found = await call(client, 'api-search', { Text: 'vm create' });
    expect(found.isError, found.text).toBe(false);
    expect((found.structured as Json).operations[0]).toEqual({
      operationId: 'droplets_create',
      method: 'POST',
      path: '/v2/droplets',
      tag: 'Droplets',
    });

    const byPath = await call(client, 'api-describe', { Operation: 'POST /v2/droplets' });
    expect(byPath.isError, byPath.text).toBe(false);
    expect(byPath.structured).toMatchObject({
      operationId: 'droplets_create',
      method: 'POST',
      path: '/v2/droplets',
      destructive: false,
      body: expect.stringContaining('name: string;'),
      names: expect.arrayContaining(['body tags: tag by name (joined)']),
    });
    expect((byPath.structured as Json).body).toContain('size: string;');

    const byId = await call(client, 'api-describe', { Operation: 'droplets_destroy' });
    expect(byId.structured).toMatchObject({
      method: 'DELETE',
      path: '/v2/droplets/{droplet_id}',
      destructive: true,
      path_parameters: { droplet_id: 'integer' },
    });
    const list = await call(client, 'api-describe', { Operation: 'droplets_list' });
    expect(list.structured).toMatchObject({ query: { 'per_page?': 'integer', 'tag_name?': 'string' } });

    const unknown = await call(client, 'api-describe', { Operation: 'droplets_creat' });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toMatch(/Operation.*names no operation; did you mean droplets_create/);
  });
});

describe('api-call', () => {
  it('reads GET /v2/account, and POST /v2/tags creates a tag the sandbox keeps', async () => {
    const { client } = await connect();
    const account = await apiCall(client, { Method: 'GET', Path: '/v2/account' });
    expect(account.isError, account.text).toBe(false);
    expect(account.structured).toMatchObject({ account: { status: 'active', email: expect.any(String) } });

    const created = await apiCall(client, {
      Method: 'POST',
      Path: '/v2/tags',
      Body: { name: 'from-api-call' },
    });
    expect(created.isError, created.text).toBe(false);
    expect(created.structured).toMatchObject({ tag: { name: 'from-api-call' } });
    expect(await tagNames()).toContain('from-api-call');
  });

  it('refuses an unknown path or a body that breaks the schema, naming the problem, with nothing sent', async () => {
    const { client } = await connect();
    const sent = await watch();
    const unknown = await apiCall(client, { Method: 'GET', Path: '/v2/dropletz' });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toContain("/v2/dropletz is no path of the platform's API");
    expect(unknown.structured).toMatchObject({ error_id: 'invalid_arguments' });

    const method = await apiCall(client, { Method: 'PATCH', Path: '/v2/tags' });
    expect(method.text).toContain('/v2/tags takes GET, POST, not PATCH');

    const body = await apiCall(client, {
      Method: 'POST',
      Path: '/v2/droplets',
      Body: { name: 'no-size', image: 'ubuntu-24-04-x64', region: 'nyc3' },
    });
    expect(body.isError).toBe(true);
    expect(body.text).toMatch(/size/);
    expect(body.structured).toMatchObject({ error_id: 'invalid_arguments' });
    const wrongType = await apiCall(client, { Method: 'POST', Path: '/v2/tags', Body: { name: 7 } });
    expect(wrongType.isError).toBe(true);
    expect(wrongType.text).toMatch(/name/);

    expect(await sent.all()).toBe(0);
    expect(await tagNames()).not.toContain('7');
  });

  it('cuts a list answer over 32 KiB, saying so and how to get the rest', async () => {
    const { client } = await connect();
    // Tags with long names, put straight into the sandbox's state: a page of them is over the cap.
    const names = Array.from(
      { length: 150 },
      (_, at) => `bulk-${String(at).padStart(3, '0')}-${'x'.repeat(200)}`,
    );
    await helper.store.write((world) => {
      world.tags.push(...names.map((name) => ({ name, tagged: [] })));
    });
    const listed = await apiCall(client, { Method: 'GET', Path: '/v2/tags', Query: { per_page: 200 } });
    expect(listed.isError, listed.text).toBe(false);
    const answer = listed.structured as Json;
    expect(Buffer.byteLength(listed.text)).toBeLessThanOrEqual(32_768);
    expect(answer.truncated).toMatchObject({
      field: 'tags',
      shown: answer.tags.length,
      total: expect.any(Number),
      cap: 32_768,
      hint: expect.stringContaining('per_page'),
    });
    expect(answer.truncated.total).toBeGreaterThanOrEqual(names.length);
    expect(answer.truncated.shown).toBeLessThan(answer.truncated.total);
    expect(answer.truncated.bytes).toBeGreaterThan(32_768);
    // A page that fits comes back whole.
    const small = await apiCall(client, { Method: 'GET', Path: '/v2/tags', Query: { per_page: 5 } });
    expect((small.structured as Json).truncated).toBeUndefined();
    expect((small.structured as Json).tags).toHaveLength(5);
  });
});

describe('api-call under the guard rails', () => {
  it('--confirm always-refuse refuses a DELETE, deleting nothing, and runs a POST that destroys nothing', async () => {
    const { client } = await connect(['--confirm', 'always-refuse']);
    const id = await createKey(client, 'refuse-me');
    const sent = await watch();
    const deleted = await apiCall(client, { Method: 'DELETE', Path: `/v2/account/keys/${id}` });
    expect(deleted.isError).toBe(true);
    expect(deleted.text).toContain(
      'api-call is destructive: this server refuses destructive tools (--confirm always-refuse)',
    );
    expect(deleted.structured).toMatchObject({ error_id: 'refused' });
    expect(await sent.writes()).toBe(0);
    expect(await keyNames()).toContain('refuse-me');

    const tag = await apiCall(client, {
      Method: 'POST',
      Path: '/v2/tags',
      Body: { name: 'not-destructive' },
    });
    expect(tag.isError, tag.text).toBe(false);
    expect(await tagNames()).toContain('not-destructive');
  });

  it("asks a client declaring form elicitation to type the resource's name: the right text deletes, a wrong one sends nothing", async () => {
    const typed = ['laptop-2', 'laptop-1'];
    const { client, asked } = await connect([], { elicitation: { form: {} } }, () => ({
      action: 'accept',
      content: { confirm: typed.shift() ?? '' },
    }));
    const id = await createKey(client, 'laptop-1');
    // Creating asks nothing.
    expect(asked).toEqual([]);
    const sent = await watch();
    const wrong = await apiCall(client, { Method: 'DELETE', Path: `/v2/account/keys/${id}` });
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toContain(
      'api-call was not confirmed: the answer did not type laptop-1 as asked. Nothing was sent.',
    );
    expect(wrong.structured).toMatchObject({ error_id: 'declined' });
    expect(await sent.writes()).toBe(0);
    expect(await keyNames()).toContain('laptop-1');

    const right = await apiCall(client, { Method: 'DELETE', Path: `/v2/account/keys/${id}` });
    expect(right.isError, right.text).toBe(false);
    expect(asked).toHaveLength(2);
    expect(asked[1]).toMatch(
      /^Confirm a destructive call\. Call an API operation \(api-call, DELETE \/v2\/account\/keys\/\d+\): .*laptop-1.*To run it, type laptop-1\.$/,
    );
    expect(await sent.writes()).toBe(1);
    expect(await keyNames()).not.toContain('laptop-1');
  });

  it('--protect name:X refuses a DELETE of X and a body naming X, with nothing sent', async () => {
    // Made by a server without the rule.
    const maker = await connect();
    const vm = await apiCall(maker.client, {
      Method: 'POST',
      Path: '/v2/droplets',
      Body: { name: 'prod-db', size: 's-1vcpu-1gb', image: 161928327, region: 'nyc3' },
    });
    expect(vm.isError, vm.text).toBe(false);
    const id = (vm.structured as Json).droplet.id;
    await apiCall(maker.client, { Method: 'POST', Path: '/v2/tags', Body: { name: 'web' } });

    const { client } = await connect(['--protect', 'name:prod-db']);
    const sent = await watch();
    const deleted = await apiCall(client, { Method: 'DELETE', Path: `/v2/droplets/${id}` });
    expect(deleted.isError).toBe(true);
    expect(deleted.text).toContain(`api-call refused: droplet prod-db (id ${id}`);
    expect(deleted.text).toContain('is protected by rule name:prod-db (--protect). Nothing was sent.');
    expect(deleted.structured).toMatchObject({ error_id: 'refused' });

    const tagged = await apiCall(client, {
      Method: 'POST',
      Path: '/v2/tags/web/resources',
      Body: { resources: [{ resource_id: String(id), resource_type: 'droplet' }] },
    });
    expect(tagged.isError).toBe(true);
    expect(tagged.text).toContain('is protected by rule name:prod-db (--protect). Nothing was sent.');
    expect(await sent.writes()).toBe(0);
    const droplet = await helper.store.read((world) => world.droplets.find((each) => each.id === id));
    expect(droplet?.tags ?? []).not.toContain('web');

    // Another resource is not protected.
    const other = await apiCall(client, { Method: 'POST', Path: '/v2/tags', Body: { name: 'free' } });
    expect(other.isError, other.text).toBe(false);
  });
});

describe('--read-only', () => {
  it('lists api-call with GET and HEAD only, as read-only, and refuses a POST with nothing sent', async () => {
    const { client } = await connect(['--read-only']);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['api-search', 'api-describe', 'api-call']);
    const apiCallTool = tools.find((tool) => tool.name === 'api-call');
    expect(apiCallTool?.annotations).toEqual({ readOnlyHint: true });
    expect(apiCallTool?.inputSchema.properties?.Method).toMatchObject({ enum: ['GET', 'HEAD'] });
    expect(apiCallTool?.inputSchema.properties).not.toHaveProperty('Body');

    const sent = await watch();
    const posted = await apiCall(client, { Method: 'POST', Path: '/v2/tags', Body: { name: 'read-only' } });
    expect(posted.isError).toBe(true);
    expect(posted.structured).toMatchObject({ error_id: 'invalid_arguments' });
    expect(posted.text).toMatch(/Method/);
    const bodiless = await apiCall(client, { Method: 'DELETE', Path: '/v2/tags/web' });
    expect(bodiless.isError).toBe(true);
    expect(bodiless.text).toMatch(/Method/);
    expect(await sent.all()).toBe(0);
    expect(await tagNames()).not.toContain('read-only');

    const read = await apiCall(client, { Method: 'GET', Path: '/v2/account' });
    expect(read.isError, read.text).toBe(false);
    expect(read.structured).toMatchObject({ account: { status: 'active' } });
  });
});
