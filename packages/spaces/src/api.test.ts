/**
 * The spaces family as a library: the requests its tools send (checked against the API
 * description), arguments refused before any request, and the typed API against the sandbox.
 */
import { type AnyTool, InputError, maskSecrets, parseArgs, runTool } from '@cloudcall/core';
import { buildRequest } from '@cloudcall/core/internal';
import { connectSandbox, type SandboxConnection } from '@cloudcall/sandbox';
import { unrefusedPathValues } from '@cloudcall/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The description subset is a workspace tool; imported by path so the published package needs nothing.
import {
  assertValidResponse,
  noResponseBody,
  operation,
  validateRequest,
} from '../../../tooling/openapi/index.js';
import { spacesApi, spacesFamily, spacesTools } from './index.js';

const tool = (name: string) => spacesTools.find((t) => t.name === name) as AnyTool;
const request = (name: string, args: Record<string, unknown>) =>
  buildRequest(tool(name).request as never, parseArgs(tool(name), args) as Record<string, unknown>);

let connection: SandboxConnection;
beforeAll(async () => {
  connection = await connectSandbox();
});
afterAll(async () => {
  await connection.close();
});

const KEY = 'DO00QWERTYUIOPASDFGH';
const CDN = '19f06b6a-3ace-4315-b086-499a0e521b76';
const CERT = '892071a0-bb95-49bc-8021-3afd67a210bf';

/** Each tool, valid arguments, and the API operation it calls. */
const cases: [tool: string, args: Record<string, unknown>, operationId: string][] = [
  ['spaces-key-list', { Bucket: 'assets' }, 'spacesKey_list'],
  ['spaces-key-get', { AccessKey: KEY }, 'spacesKey_get'],
  [
    'spaces-key-create',
    { Name: 'ci', Grants: [{ Bucket: 'assets', Permission: 'read' }] },
    'spacesKey_create',
  ],
  ['spaces-key-update', { AccessKey: KEY, Name: 'ci-2' }, 'spacesKey_patch'],
  ['spaces-key-delete', { AccessKey: KEY }, 'spacesKey_delete'],
  ['cdn-list', {}, 'cdn_list_endpoints'],
  ['cdn-get', { ID: CDN }, 'cdn_get_endpoint'],
  ['cdn-create', { Origin: 'assets.nyc3.digitaloceanspaces.com' }, 'cdn_create_endpoint'],
  ['cdn-update', { ID: CDN, TTL: 600 }, 'cdn_update_endpoints'],
  ['cdn-delete', { ID: CDN }, 'cdn_delete_endpoint'],
  ['cdn-delete-cache', { ID: CDN, Files: ['*'] }, 'cdn_purge_cache'],
];
const template = (path: string) => path.replace(/\{\w+\}/g, '{}');

/** Runs a tool against a client that records each request instead of sending it. */
async function sent(name: string, args: Record<string, unknown>) {
  const requests: { method: string; path: string; noResponseBody?: boolean }[] = [];
  const client = {
    request: async (options: (typeof requests)[number]) => void requests.push(options),
    forCall: () => client,
  };
  await runTool(tool(name), args, { client: client as never });
  return requests;
}

describe('the family', () => {
  it('is offered on request only, and only its creation reveals a secret', () => {
    expect(spacesFamily).toMatchObject({ name: 'spaces', onRequest: true });
    expect(spacesTools.filter((t) => t.reveals).map((t) => [t.name, t.reveals])).toEqual([
      ['spaces-key-create', ['secret_key']],
    ]);
  });
});

describe('requests on the wire', () => {
  it('covers every tool', () => {
    expect(cases.map(([name]) => name).sort()).toEqual(spacesTools.map((t) => t.name).sort());
  });

  it.each(cases)(
    '%s calls its operation, with noResponseBody exactly where it answers without a body',
    async (name, args, operationId) => {
      const [request, ...more] = await sent(name, args);
      expect(more).toEqual([]);
      const expected = operation(operationId);
      expect(request?.method).toBe(expected.method);
      expect(template(tool(name).request?.path ?? expected.path)).toBe(template(expected.path));
      expect(request?.path).toMatch(new RegExp(`^${expected.path.replace(/\{\w+\}/g, '[^/]+')}$`));
      expect(Boolean(request?.noResponseBody)).toBe(noResponseBody(operationId));
    },
  );

  it('spaces-key-create sends grants as the platform takes them, fullaccess with an empty bucket', () => {
    const scoped = request('spaces-key-create', {
      Name: 'ci',
      Grants: [
        { Bucket: 'assets', Permission: 'read' },
        { Bucket: 'logs', Permission: 'readwrite' },
      ],
    });
    expect(scoped.body).toEqual({
      name: 'ci',
      grants: [
        { bucket: 'assets', permission: 'read' },
        { bucket: 'logs', permission: 'readwrite' },
      ],
    });
    expect(validateRequest('spacesKey_create', scoped.body).valid).toBe(true);
    const full = request('spaces-key-create', { Name: 'admin', Grants: [{ Permission: 'fullaccess' }] });
    expect(full.body).toEqual({ name: 'admin', grants: [{ bucket: '', permission: 'fullaccess' }] });
    expect(validateRequest('spacesKey_create', full.body).valid).toBe(true);
  });

  it('spaces-key-update sends what is given only; spaces-key-list filters and sorts when asked', () => {
    expect(request('spaces-key-update', { AccessKey: KEY, Name: 'n' }).body).toEqual({ name: 'n' });
    expect(
      request('spaces-key-update', { AccessKey: KEY, Grants: [{ Bucket: 'a-b', Permission: 'read' }] }).body,
    ).toEqual({ grants: [{ bucket: 'a-b', permission: 'read' }] });
    expect(request('spaces-key-list', {}).query).toEqual({ page: 1, per_page: 20 });
    expect(
      request('spaces-key-list', { Name: 'ci', Permission: 'read', Sort: 'name', SortDirection: 'asc' })
        .query,
    ).toEqual({ page: 1, per_page: 20, name: 'ci', permission: 'read', sort: 'name', sort_direction: 'asc' });
  });

  it('cdn-create and cdn-update send the origin lowercased, the TTL, the domain with its certificate', () => {
    const made = request('cdn-create', {
      Origin: ' Assets.NYC3.digitaloceanspaces.com ',
      TTL: 86400,
      CustomDomain: 'static.example.com',
      CertificateID: CERT,
    });
    expect(made.body).toEqual({
      origin: 'assets.nyc3.digitaloceanspaces.com',
      ttl: 86400,
      custom_domain: 'static.example.com',
      certificate_id: CERT,
    });
    expect(validateRequest('cdn_create_endpoint', made.body).valid).toBe(true);
    expect(request('cdn-update', { ID: CDN, TTL: 60 }).body).toEqual({ ttl: 60 });
    expect(request('cdn-update', { ID: CDN, CertificateID: CERT }).body).toEqual({ certificate_id: CERT });
    // An empty domain removes the domain and its certificate together.
    expect(request('cdn-update', { ID: CDN, CustomDomain: '' }).body).toEqual({
      custom_domain: '',
      certificate_id: '',
    });
    expect(request('cdn-delete-cache', { ID: CDN, Files: ['assets/*', 'index.html'] })).toMatchObject({
      method: 'DELETE',
      path: `/v2/cdn/endpoints/${CDN}/cache`,
      body: { files: ['assets/*', 'index.html'] },
    });
  });
});

describe('arguments are checked before any request', () => {
  it('path ids refuse dot segments, slashes and control characters, naming the argument', async () => {
    const seen: string[] = [];
    const sandbox = await connectSandbox({ log: (line) => seen.push(line) });
    try {
      const problems = await unrefusedPathValues(
        cases,
        (name) => tool(name).request?.path,
        (name, args) => runTool(tool(name), args, { client: sandbox.client }).catch((e: unknown) => e),
        (error, arg) => error instanceof InputError && error.issues.some((i) => i.argument === arg),
      );
      expect(problems).toEqual([]);
      expect(seen).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });

  it('refuses bad grants, origins, TTLs, domains without certificates and empty changes', async () => {
    const seen: string[] = [];
    const sandbox = await connectSandbox({ log: (line) => seen.push(line) });
    try {
      const spaces = spacesApi(sandbox.client);
      const refusal = (call: Promise<unknown>) =>
        call.then(
          () => 'accepted',
          (e: unknown) => (e instanceof InputError ? e.message : `not an InputError: ${String(e)}`),
        );
      const grants = (Grants: unknown) => refusal(spaces.spacesKeyCreate({ Name: 'k', Grants } as never));
      expect(await grants([])).toMatch(/argument Grants: Too small/);
      expect(await grants([{ Bucket: 'assets', Permission: 'admin' }])).toMatch(
        /argument Grants\.0\.Permission/,
      );
      expect(await grants([{ Permission: 'read' }])).toMatch(
        /argument Grants\.0\.Bucket: is required with permission read/,
      );
      expect(await grants([{ Bucket: 'assets', Permission: 'fullaccess' }])).toMatch(
        /Grants\.0\.Bucket: a fullaccess grant covers every bucket: give it no Bucket/,
      );
      expect(await grants([{ Permission: 'fullaccess' }, { Bucket: 'assets', Permission: 'read' }])).toMatch(
        /give it alone/,
      );
      expect(
        await grants([
          { Bucket: 'assets', Permission: 'read' },
          { Bucket: 'assets', Permission: 'readwrite' },
        ]),
      ).toMatch(/Grants\.1\.Bucket: names bucket assets again/);
      expect(await grants([{ Bucket: 'My_Bucket', Permission: 'read' }])).toMatch(/expected a bucket name/);
      expect(await refusal(spaces.spacesKeyUpdate({ AccessKey: KEY }))).toMatch(
        /argument Name: is required when Grants is not given/,
      );
      expect(await refusal(spaces.spacesKeyGet({ AccessKey: 'ci-key' }))).toMatch(
        /argument AccessKey: expected an access key id/,
      );

      for (const Origin of [
        'assets.example.com',
        'my.bucket.nyc3.digitaloceanspaces.com',
        'https://a.nyc3',
      ]) {
        expect(await refusal(spaces.cdnCreate({ Origin })), Origin).toMatch(
          /argument Origin: expected a Space's host/,
        );
      }
      expect(
        await refusal(spaces.cdnCreate({ Origin: 'assets.nyc3.digitaloceanspaces.com', TTL: 61 })),
      ).toMatch(/argument TTL: must be 60, 600, 3600, 86400 or 604800/);
      expect(
        await refusal(
          spaces.cdnCreate({
            Origin: 'assets.nyc3.digitaloceanspaces.com',
            CustomDomain: 'static.example.com',
          }),
        ),
      ).toMatch(/argument CertificateID: is required with CustomDomain/);
      expect(
        await refusal(
          spaces.cdnCreate({ Origin: 'assets.nyc3.digitaloceanspaces.com', CertificateID: CERT }),
        ),
      ).toMatch(/argument CustomDomain: is required with CertificateID/);
      expect(await refusal(spaces.cdnUpdate({ ID: CDN }))).toMatch(/argument TTL: is required when none/);
      expect(await refusal(spaces.cdnUpdate({ ID: CDN, CustomDomain: '', CertificateID: CERT }))).toMatch(
        /argument CertificateID: must not be given with an empty CustomDomain/,
      );
      expect(await refusal(spaces.cdnUpdate({ ID: CDN, CustomDomain: 'not a host' }))).toMatch(
        /argument CustomDomain: expected a host name/,
      );
      expect(await refusal(spaces.cdnDeleteCache({ ID: CDN, Files: [] }))).toMatch(
        /argument Files: Too small/,
      );
      expect(await refusal(spaces.cdnDeleteCache({ ID: CDN, Files: ['a\nb'] }))).toMatch(
        /argument Files\.0: must not contain control characters/,
      );
      expect(seen).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});

describe('spacesApi', () => {
  it('creates a key (its secret answered once), lists, gets, renames, regrants and deletes it', async () => {
    const spaces = spacesApi(connection.client);
    const { key } = await spaces.spacesKeyCreate({
      Name: 'lib-key',
      Grants: [{ Bucket: 'assets', Permission: 'read' }],
    });
    assertValidResponse('spacesKey_create', 201, { key });
    expect(key).toMatchObject({ name: 'lib-key', grants: [{ bucket: 'assets', permission: 'read' }] });
    expect(key.secret_key).toMatch(/^[A-Za-z0-9+/]{40,}$/);
    // Hidden by the apps unless the tool reveals it: the field is a secret of the description.
    expect(JSON.stringify(maskSecrets({ key }))).not.toContain(key.secret_key);
    expect(JSON.stringify(maskSecrets({ key }))).toContain(key.access_key);

    const listed = await spaces.spacesKeyList({ Bucket: 'assets' });
    assertValidResponse('spacesKey_list', 200, listed);
    expect(listed.keys.map((k) => k.access_key)).toEqual([key.access_key]);
    expect(JSON.stringify(listed)).not.toContain(key.secret_key);
    expect((await spaces.spacesKeyList({ Bucket: 'logs' })).keys).toEqual([]);

    const got = await spaces.spacesKeyGet({ AccessKey: key.access_key });
    expect(got.key).toEqual(listed.keys[0]);
    expect(got.key).not.toHaveProperty('secret_key');

    const renamed = await spaces.spacesKeyUpdate({ AccessKey: key.access_key, Name: 'lib-key-2' });
    expect(renamed.key).toMatchObject({
      name: 'lib-key-2',
      grants: [{ bucket: 'assets', permission: 'read' }],
    });
    const regranted = await spaces.spacesKeyUpdate({
      AccessKey: key.access_key,
      Grants: [{ Bucket: 'logs', Permission: 'readwrite' }],
    });
    expect(regranted.key).toMatchObject({
      name: 'lib-key-2',
      grants: [{ bucket: 'logs', permission: 'readwrite' }],
    });
    // The platform keeps a scoped key scoped.
    await expect(
      spaces.spacesKeyUpdate({ AccessKey: key.access_key, Grants: [{ Permission: 'fullaccess' }] }),
    ).rejects.toMatchObject({ status: 400 });

    await expect(spaces.spacesKeyDelete({ AccessKey: key.access_key })).resolves.toEqual({ ok: true });
    await expect(spaces.spacesKeyGet({ AccessKey: key.access_key })).rejects.toMatchObject({ status: 404 });
  });

  it('creates a CDN endpoint, changes its TTL and domain, flushes its cache and deletes it', async () => {
    const spaces = spacesApi(connection.client);
    // A certificate of the ACME authority covers a domain the DNS service manages.
    await connection.client.request({ method: 'POST', path: '/v2/domains', body: { name: 'example.com' } });
    const { certificate } = await connection.client.request<{ certificate: { id: string } }>({
      method: 'POST',
      path: '/v2/certificates',
      body: { name: 'static', type: 'lets_encrypt', dns_names: ['static.example.com'] },
    });
    const { endpoint } = await spaces.cdnCreate({ Origin: 'lib-assets.nyc3.digitaloceanspaces.com' });
    assertValidResponse('cdn_create_endpoint', 201, { endpoint });
    expect(endpoint).toMatchObject({
      origin: 'lib-assets.nyc3.digitaloceanspaces.com',
      endpoint: 'lib-assets.nyc3.cdn.digitaloceanspaces.com',
      ttl: 3600,
    });
    await expect(
      spaces.cdnCreate({ Origin: 'lib-assets.nyc3.digitaloceanspaces.com' }),
    ).rejects.toMatchObject({
      status: 409,
    });
    const listed = await spaces.cdnList({});
    assertValidResponse('cdn_list_endpoints', 200, listed);
    expect(listed.endpoints.map((e) => e.id)).toContain(endpoint.id);

    expect((await spaces.cdnUpdate({ ID: endpoint.id, TTL: 600 })).endpoint.ttl).toBe(600);
    const domained = await spaces.cdnUpdate({
      ID: endpoint.id,
      CustomDomain: 'static.example.com',
      CertificateID: certificate.id,
    });
    assertValidResponse('cdn_update_endpoints', 200, domained);
    expect(domained.endpoint).toMatchObject({
      custom_domain: 'static.example.com',
      certificate_id: certificate.id,
    });
    const bare = await spaces.cdnUpdate({ ID: endpoint.id, CustomDomain: '' });
    expect(bare.endpoint).not.toHaveProperty('custom_domain');
    expect((await spaces.cdnGet({ ID: endpoint.id })).endpoint).toEqual(bare.endpoint);

    await expect(spaces.cdnDeleteCache({ ID: endpoint.id, Files: ['*'] })).resolves.toEqual({ ok: true });
    await expect(spaces.cdnDelete({ ID: endpoint.id })).resolves.toEqual({ ok: true });
    await expect(spaces.cdnGet({ ID: endpoint.id })).rejects.toMatchObject({ status: 404 });
    await connection.client.request({ method: 'DELETE', path: `/v2/certificates/${certificate.id}` });
  });
});
