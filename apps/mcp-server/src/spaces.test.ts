/**
 * The spaces family through a real MCP client, in process, against the sandbox: offered on request
 * only (`--families spaces`), its tools listed with their annotations; a Spaces key created (its
 * secret in that answer only, never in a log, a read or an error), read, renamed, regranted and
 * deleted; a CDN endpoint created, read, changed, flushed and deleted; the guard holds: a
 * protected key or endpoint is refused with nothing sent, and a delete asks its question.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { call, hintsOf } from './testing/client.js';
import { type InProcessOptions, type InProcessServer, inProcessServer } from './testing/in-process.js';

// biome-ignore lint/suspicious/noExplicitAny: tool results are checked field by field.
type Json = any;

let servers: InProcessServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function start(options: InProcessOptions = {}) {
  const server = await inProcessServer({ families: 'spaces', confirm: 'auto', ...options });
  servers.push(server);
  const ok = async (name: string, args: Record<string, unknown> = {}): Promise<Json> => {
    const result = await call(server.client, name, args);
    expect(result.isError, `${name}: ${result.text}`).toBe(false);
    return result.json;
  };
  return { server, ok };
}

const ORIGIN = 'assets.nyc3.digitaloceanspaces.com';

describe('spaces over MCP', () => {
  it('is not in the default listing; --families spaces lists its tools with exact annotations', async () => {
    const plain = await inProcessServer();
    servers.push(plain);
    const names = (await plain.client.listTools()).tools.map((t) => t.name);
    expect(names.filter((name) => /^(spaces-key|cdn)-/.test(name))).toEqual([]);

    const { server } = await start();
    const { tools } = await server.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, hintsOf(t)]));
    expect([...byName.keys()].sort()).toEqual([
      'cdn-create',
      'cdn-delete',
      'cdn-delete-cache',
      'cdn-get',
      'cdn-list',
      'cdn-update',
      'spaces-key-create',
      'spaces-key-delete',
      'spaces-key-get',
      'spaces-key-list',
      'spaces-key-update',
    ]);
    for (const name of ['spaces-key-list', 'spaces-key-get', 'cdn-list', 'cdn-get']) {
      expect(byName.get(name), name).toMatchObject({ readOnlyHint: true });
    }
    for (const name of ['spaces-key-delete', 'cdn-delete', 'cdn-delete-cache']) {
      expect(byName.get(name), name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    }
    for (const name of ['spaces-key-create', 'cdn-create']) {
      expect(byName.get(name), name).toMatchObject({ destructiveHint: false, idempotentHint: false });
    }
    for (const name of ['spaces-key-update', 'cdn-update']) {
      expect(byName.get(name), name).toMatchObject({ destructiveHint: false, idempotentHint: true });
    }
  });

  it('creates a key and shows its secret there only: reads, logs and errors never hold it', async () => {
    const { server, ok } = await start();
    const created = await ok('spaces-key-create', {
      Name: 'ci',
      Grants: [{ Bucket: 'assets', Permission: 'readwrite' }],
    });
    const { access_key: id, secret_key: secret } = created.key;
    expect(secret).toMatch(/^[A-Za-z0-9+/]{40,}$/);
    expect(created.key).toMatchObject({
      name: 'ci',
      grants: [{ bucket: 'assets', permission: 'readwrite' }],
    });

    const listed = await ok('spaces-key-list', {});
    expect(listed.keys.map((k: Json) => k.access_key)).toEqual([id]);
    const got = await ok('spaces-key-get', { AccessKey: id });
    expect(got.key).toEqual(listed.keys[0]);
    const renamed = await ok('spaces-key-update', { AccessKey: id, Name: 'ci-2' });
    expect(renamed.key.name).toBe('ci-2');
    const regranted = await ok('spaces-key-update', {
      AccessKey: id,
      Grants: [{ Bucket: 'logs', Permission: 'read' }],
    });
    expect(regranted.key.grants).toEqual([{ bucket: 'logs', permission: 'read' }]);
    const refused = await call(server.client, 'spaces-key-update', {
      AccessKey: id,
      Grants: [{ Permission: 'fullaccess' }],
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('cannot mix fullaccess');

    const deleted = await ok('spaces-key-delete', { AccessKey: id });
    expect(deleted).toEqual({ ok: true });
    const gone = await call(server.client, 'spaces-key-get', { AccessKey: id });
    expect(gone.isError).toBe(true);
    for (const text of [
      JSON.stringify([listed, got, renamed, regranted]),
      refused.text,
      gone.text,
      server.log(),
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(server.log()).toMatch(/tool spaces-key-create: ok/);
  });

  it('creates a CDN endpoint, changes its TTL and domain, flushes its cache, deletes it', async () => {
    const { server, ok } = await start({ families: 'spaces,networking' });
    await ok('domain-create', { Name: 'example.com', IPAddress: '192.0.2.1' });
    const { certificate } = await ok('acme-certificate-create', {
      Name: 'static',
      DnsNames: ['static.example.com'],
    });
    const { endpoint } = await ok('cdn-create', { Origin: ORIGIN, TTL: 600 });
    expect(endpoint).toMatchObject({
      origin: ORIGIN,
      endpoint: 'assets.nyc3.cdn.digitaloceanspaces.com',
      ttl: 600,
    });
    expect((await ok('cdn-list')).endpoints.map((e: Json) => e.id)).toEqual([endpoint.id]);
    const changed = await ok('cdn-update', {
      ID: endpoint.id,
      TTL: 86400,
      CustomDomain: 'static.example.com',
      CertificateID: certificate.id,
    });
    expect(changed.endpoint).toMatchObject({
      ttl: 86400,
      custom_domain: 'static.example.com',
      certificate_id: certificate.id,
    });
    expect((await ok('cdn-get', { ID: endpoint.id })).endpoint).toEqual(changed.endpoint);
    expect(await ok('cdn-delete-cache', { ID: endpoint.id, Files: ['assets/*'] })).toEqual({ ok: true });
    // The platform refuses the same purge while the first runs.
    const again = await call(server.client, 'cdn-delete-cache', { ID: endpoint.id, Files: ['assets/*'] });
    expect(again.isError).toBe(true);
    expect(again.text).toContain('identical purge');
    expect(await ok('cdn-delete', { ID: endpoint.id })).toEqual({ ok: true });
    expect((await ok('cdn-list')).endpoints).toEqual([]);
  });

  it('refuses a protected key and a protected endpoint with nothing sent; the others run', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'cloudcall-mcp-spaces-')), 'sandbox.json');
    const maker = await start({ sandboxState: statePath });
    const { key } = await maker.ok('spaces-key-create', {
      Name: 'keep-me',
      Grants: [{ Permission: 'fullaccess' }],
    });
    const { key: free } = await maker.ok('spaces-key-create', {
      Name: 'scratch',
      Grants: [{ Bucket: 'tmp', Permission: 'read' }],
    });
    const { endpoint } = await maker.ok('cdn-create', { Origin: ORIGIN });
    const keyIs = `key keep-me (id ${key.access_key})`;
    const endpointIs = `endpoint ${ORIGIN} (id ${endpoint.id})`;
    // Other servers on the same sandbox state, with the rules: a key by name or by access key, an
    // endpoint by id or by origin (a key's id is its access key, an endpoint's name its origin).
    let ok = maker.ok;
    const rules: [string, string][] = [
      ['name:keep-me', `id:${endpoint.id}`],
      [`id:${key.access_key}`, `name:${ORIGIN}`],
    ];
    for (const [keyRule, endpointRule] of rules) {
      const guarded = await start({ sandboxState: statePath, protect: [keyRule, endpointRule] });
      const { server } = guarded;
      ok = guarded.ok;
      for (const [name, args, what, rule] of [
        ['spaces-key-delete', { AccessKey: key.access_key }, keyIs, keyRule],
        ['spaces-key-update', { AccessKey: key.access_key, Name: 'renamed' }, keyIs, keyRule],
        ['cdn-delete', { ID: endpoint.id }, endpointIs, endpointRule],
        ['cdn-delete-cache', { ID: endpoint.id, Files: ['*'] }, endpointIs, endpointRule],
        ['cdn-update', { ID: endpoint.id, TTL: 60 }, endpointIs, endpointRule],
      ] as const) {
        const result = await call(server.client, name, args);
        expect(result.isError, name).toBe(true);
        expect(result.text).toContain(`${name} refused: ${what} is protected by rule ${rule}`);
        expect(result.text).toContain('Nothing was sent.');
      }
    }
    expect((await ok('spaces-key-get', { AccessKey: key.access_key })).key.name).toBe('keep-me');
    expect((await ok('cdn-get', { ID: endpoint.id })).endpoint.ttl).toBe(3600);
    // What no rule protects goes through.
    expect(await ok('spaces-key-delete', { AccessKey: free.access_key })).toEqual({ ok: true });
  });

  it('asks before deleting a key or an endpoint: a decline keeps it, typing the name deletes it', async () => {
    const answers: ElicitResult[] = [];
    const asked: string[] = [];
    const { server, ok } = await start({ client: { capabilities: { elicitation: { form: {} } } } });
    server.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push((request.params as { message: string }).message);
      return answers.shift() ?? { action: 'decline' };
    });
    const { key } = await ok('spaces-key-create', {
      Name: 'ask-me',
      Grants: [{ Bucket: 'assets', Permission: 'read' }],
    });
    const { endpoint } = await ok('cdn-create', { Origin: ORIGIN });

    const declined = await call(server.client, 'spaces-key-delete', { AccessKey: key.access_key });
    expect(declined.isError).toBe(true);
    expect(declined.text).toContain('spaces-key-delete was declined: nothing was sent.');
    expect(asked).toEqual([
      expect.stringMatching(/\(spaces-key-delete\): .*ask-me.*\? To run it, type ask-me\.$/),
    ]);
    expect((await ok('spaces-key-get', { AccessKey: key.access_key })).key.name).toBe('ask-me');

    answers.push({ action: 'accept', content: { confirm: 'ask-me' } });
    expect(await ok('spaces-key-delete', { AccessKey: key.access_key })).toEqual({ ok: true });

    const purge = await call(server.client, 'cdn-delete-cache', { ID: endpoint.id, Files: ['*'] });
    expect(purge.isError).toBe(true);
    const typed = /To run it, type (\S+)\.$/.exec(asked.at(-1) ?? '')?.[1];
    expect(asked.at(-1)).toMatch(/\(cdn-delete-cache\): /);
    expect(typed).toBeDefined();
    answers.push({ action: 'accept', content: { confirm: typed ?? '' } });
    expect(await ok('cdn-delete', { ID: endpoint.id })).toEqual({ ok: true });
    expect(asked).toHaveLength(4);
  });
});
