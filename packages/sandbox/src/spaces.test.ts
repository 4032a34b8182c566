/**
 * Spaces access keys and CDN endpoints as the platform runs them: a key's grants and its secret
 * shown once, fullaccess against scoped grants, filters and sorting; a CDN endpoint's origin,
 * TTLs, custom domain with a certificate of the account, and cache purges with their limits.
 * Every answer is checked against the description's schema for its status (`callOperation`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const spacesState = () =>
  sandbox.store.read((w: World) =>
    structuredClone({ keys: w.spacesKeys, endpoints: w.cdnEndpoints, purges: w.cdnPurges }),
  );

/** Expects a refusal that changes nothing. */
async function refusedUnchanged(reply: Promise<Reply>, status: number, mentions: RegExp) {
  const before = await spacesState();
  expectError(await reply, status, mentions);
  expect(await spacesState()).toEqual(before);
}

async function key(name: string, grants: unknown[] = [{ bucket: 'assets', permission: 'read' }]) {
  const created = await call('spacesKey_create', { json: { name, grants } });
  expect(created.status, created.text).toBe(201);
  return created.body.key as { name: string; access_key: string; secret_key: string; grants: unknown[] };
}

/** A certificate of the account for these names, put in the state as the certificates family keeps them. */
async function certificate(dnsNames: string[]): Promise<string> {
  const id = crypto.randomUUID();
  await sandbox.store.write((w: World) => {
    w.certificates.push({
      id,
      name: `cert-${id.slice(0, 8)}`,
      type: 'custom',
      dns_names: dnsNames,
      sha1_fingerprint: 'dfcc9f57d86bf58e321c2c6c31c7a971be244ac7',
      not_after: '2030-01-01T00:00:00Z',
      created_ms: Date.now(),
    });
  });
  return id;
}

async function endpoint(bucket: string, json: Record<string, unknown> = {}) {
  const created = await call('cdn_create_endpoint', {
    json: { origin: `${bucket}.nyc3.digitaloceanspaces.com`, ...json },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.endpoint as { id: string; endpoint: string; ttl: number; custom_domain?: string };
}

beforeAll(async () => {
  sandbox = await startSandbox({ now: steppingClock() });
});
afterAll(async () => {
  await sandbox.close();
});

describe('spaces keys', () => {
  it('creates a key with its secret shown once, then gets, renames and deletes it by access key', async () => {
    const created = await key('deploy', [
      { bucket: 'assets', permission: 'readwrite' },
      { bucket: 'logs', permission: 'read' },
    ]);
    expect(created.access_key).toMatch(/^DO00[A-Z0-9]{16}$/);
    expect(created.secret_key).toMatch(/^[A-Za-z0-9+/]{43}$/);
    const got = await call('spacesKey_get', { params: { access_key: created.access_key } });
    expect(got.status, got.text).toBe(200);
    expect(got.body.key).toEqual({
      name: 'deploy',
      access_key: created.access_key,
      grants: created.grants,
      created_at: expect.any(String),
    });
    expect(got.text).not.toContain(created.secret_key);
    // Nor is it kept.
    expect(JSON.stringify(await spacesState())).not.toContain(created.secret_key);

    const renamed = await call('spacesKey_patch', {
      params: { access_key: created.access_key },
      json: { name: 'deploy-ci' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.key).toMatchObject({ name: 'deploy-ci', grants: created.grants });
    const regranted = await call('spacesKey_update', {
      params: { access_key: created.access_key },
      json: { name: 'deploy-ci', grants: [{ bucket: 'assets', permission: 'read' }] },
    });
    expect(regranted.body.key.grants).toEqual([{ bucket: 'assets', permission: 'read' }]);

    expect((await call('spacesKey_delete', { params: { access_key: created.access_key } })).status).toBe(204);
    expectError(
      await call('spacesKey_get', { params: { access_key: created.access_key } }),
      404,
      /not found/,
    );
    await refusedUnchanged(
      call('spacesKey_delete', { params: { access_key: created.access_key } }),
      404,
      /not found/,
    );
  });

  it('refuses bad names and grants with a 400, creating nothing', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: '' }, /name is required/],
      [{ grants: [] }, /grants is required/],
      [
        { grants: [{ bucket: 'assets', permission: 'write' }] },
        /permission must be read, readwrite or fullaccess/,
      ],
      [{ grants: [{ bucket: 'Bad_Bucket', permission: 'read' }] }, /not a bucket name/],
      [{ grants: [{ bucket: 'assets', permission: 'fullaccess' }] }, /its bucket must be empty/],
      [
        {
          grants: [
            { bucket: 'assets', permission: 'read' },
            { bucket: 'assets', permission: 'readwrite' },
          ],
        },
        /more than once/,
      ],
    ];
    for (const [json, message] of cases) {
      await refusedUnchanged(
        call('spacesKey_create', {
          json: { name: 'bad', grants: [{ bucket: 'assets', permission: 'read' }], ...json },
        }),
        400,
        message,
      );
    }
  });

  it('gives fullaccess priority over scoped grants, and never turns one kind into the other', async () => {
    const full = await key('full', [
      { bucket: '', permission: 'fullaccess' },
      { bucket: 'assets', permission: 'read' },
    ]);
    expect(full.grants).toEqual([{ bucket: '', permission: 'fullaccess' }]);
    await refusedUnchanged(
      call('spacesKey_update', {
        params: { access_key: full.access_key },
        json: { name: 'full', grants: [{ bucket: 'assets', permission: 'read' }] },
      }),
      400,
      /cannot mix fullaccess permission with scoped permissions/,
    );
    const scoped = await key('scoped');
    await refusedUnchanged(
      call('spacesKey_patch', {
        params: { access_key: scoped.access_key },
        json: { grants: [{ bucket: '', permission: 'fullaccess' }] },
      }),
      400,
      /cannot mix/,
    );
    await refusedUnchanged(
      call('spacesKey_patch', { params: { access_key: 'DO00NOSUCHKEY0000000' }, json: { name: 'x' } }),
      404,
      /not found/,
    );
  });

  it('lists keys filtered by name, bucket and permission, sorted, page by page', async () => {
    await key('list-b', [{ bucket: 'media', permission: 'readwrite' }]);
    await key('list-a', [{ bucket: 'media', permission: 'read' }]);
    await key('list-c', [{ bucket: 'other', permission: 'read' }]);
    const media = await call('spacesKey_list', { query: '?bucket=media&sort=name&sort_direction=asc' });
    expect(media.status, media.text).toBe(200);
    expect(media.body.keys.map((k: { name: string }) => k.name)).toEqual(['list-a', 'list-b']);
    const readwrite = await call('spacesKey_list', { query: '?bucket=media&permission=readwrite' });
    expect(readwrite.body.keys.map((k: { name: string }) => k.name)).toEqual(['list-b']);
    const byName = await call('spacesKey_list', { query: '?name=list-c' });
    expect(byName.body.keys.map((k: { name: string }) => k.name)).toEqual(['list-c']);
    // Newest first by default.
    const page2 = await call('spacesKey_list', { query: '?bucket=media&per_page=1&page=2' });
    expect(page2.body.meta.total).toBe(2);
    expect(page2.body.keys.map((k: { name: string }) => k.name)).toEqual(['list-b']);
    expect(page2.body.links.pages.first).toMatch(/page=1/);
    for (const k of [...media.body.keys, ...page2.body.keys]) expect(k.secret_key).toBeUndefined();
    expectError(await call('spacesKey_list', { query: '?sort=size' }), 400, /sort must be/);
  });
});

describe('cdn endpoints', () => {
  it('creates an endpoint for a Space, served from its cdn host, with the default TTL', async () => {
    const created = await endpoint('static-images');
    expect(created).toMatchObject({
      origin: 'static-images.nyc3.digitaloceanspaces.com',
      endpoint: 'static-images.nyc3.cdn.digitaloceanspaces.com',
      ttl: 3600,
    });
    expect(created.custom_domain).toBeUndefined();
    const got = await call('cdn_get_endpoint', { params: { cdn_id: created.id } });
    expect(got.body.endpoint).toEqual(created);
    // godo sends ttl 0 when none is set: the default.
    expect((await endpoint('zero-ttl', { ttl: 0 })).ttl).toBe(3600);
    await refusedUnchanged(
      call('cdn_create_endpoint', { json: { origin: 'static-images.nyc3.digitaloceanspaces.com' } }),
      409,
      /cdn already enabled/,
    );
  });

  it('refuses an origin that is not a Space, a TTL not offered, a custom domain without its certificate', async () => {
    const cert = await certificate(['static.example.com']);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ origin: 'example.com' }, /invalid origin/],
      [{ origin: 'my.bucket.nyc3.digitaloceanspaces.com' }, /invalid origin/],
      [{ origin: 'bucket.mars1.digitaloceanspaces.com' }, /invalid origin/],
      [{ ttl: 120 }, /ttl must be one of 60, 600, 3600, 86400, 604800/],
      [{ custom_domain: 'static.example.com' }, /certificate_id is required with custom_domain/],
      [
        { custom_domain: 'static.example.com', certificate_id: '3f2b8a62-0000-4000-8000-000000000000' },
        /certificate .* does not exist/,
      ],
      [
        { custom_domain: 'cdn.other.org', certificate_id: cert },
        /covers static.example.com, not custom_domain/,
      ],
    ];
    for (const [json, message] of cases) {
      await refusedUnchanged(
        call('cdn_create_endpoint', {
          json: { origin: 'fresh-bucket.nyc3.digitaloceanspaces.com', ...json },
        }),
        422,
        message,
      );
    }
  });

  it('sets and removes a custom domain with a covering certificate, and changes the TTL', async () => {
    const cert = await certificate(['*.example.net']);
    const created = await endpoint('site-assets', {
      ttl: 600,
      custom_domain: 'cdn.example.net',
      certificate_id: cert,
    });
    expect(created).toMatchObject({ ttl: 600, custom_domain: 'cdn.example.net', certificate_id: cert });
    await refusedUnchanged(
      call('cdn_create_endpoint', {
        json: {
          origin: 'other-assets.nyc3.digitaloceanspaces.com',
          custom_domain: 'cdn.example.net',
          certificate_id: cert,
        },
      }),
      409,
      /in use by CDN endpoint/,
    );
    const ttl = await call('cdn_update_endpoints', { params: { cdn_id: created.id }, json: { ttl: 86400 } });
    expect(ttl.status, ttl.text).toBe(200);
    expect(ttl.body.endpoint).toMatchObject({ ttl: 86400, custom_domain: 'cdn.example.net' });
    await refusedUnchanged(
      call('cdn_update_endpoints', { params: { cdn_id: created.id }, json: { ttl: 5 } }),
      422,
      /ttl must be one of/,
    );
    const removed = await call('cdn_update_endpoints', {
      params: { cdn_id: created.id },
      json: { custom_domain: '', certificate_id: '' },
    });
    expect(removed.body.endpoint.custom_domain).toBeUndefined();
    expect(removed.body.endpoint.certificate_id).toBeUndefined();
    expect(removed.body.endpoint.ttl).toBe(86400);
    await refusedUnchanged(
      call('cdn_update_endpoints', {
        params: { cdn_id: '3f2b8a62-0000-4000-8000-000000000000' },
        json: { ttl: 60 },
      }),
      404,
      /not found/,
    );
  });

  it('purges files or everything, within the platform limits', async () => {
    const created = await endpoint('purge-me');
    const params = { cdn_id: created.id };
    expect((await call('cdn_purge_cache', { params, json: { files: ['*'] } })).status).toBe(204);
    // The same purge again while the first runs: refused; later, fine.
    await refusedUnchanged(
      call('cdn_purge_cache', { params, json: { files: ['*'] } }),
      409,
      /identical purge/,
    );
    await sandbox.advanceClock(6_000);
    expect((await call('cdn_purge_cache', { params, json: { files: ['*'] } })).status).toBe(204);
    await refusedUnchanged(
      call('cdn_purge_cache', { params, json: { files: [] } }),
      422,
      /files is required/,
    );
    const many = Array.from({ length: 49 }, (_, i) => `img/${i}.png`);
    await refusedUnchanged(
      call('cdn_purge_cache', { params, json: { files: many } }),
      429,
      /50 files per 20 seconds; 2 were purged/,
    );
    await sandbox.advanceClock(20_000);
    expect((await call('cdn_purge_cache', { params, json: { files: many } })).status).toBe(204);
    expectError(
      await call('cdn_purge_cache', {
        params: { cdn_id: '3f2b8a62-0000-4000-8000-000000000000' },
        json: { files: ['*'] },
      }),
      404,
      /not found/,
    );
  });

  it('lists endpoints page by page, and deletes one', async () => {
    const a = await endpoint('list-one');
    const b = await endpoint('list-two');
    const all = await call('cdn_list_endpoints', { query: '?per_page=200' });
    const ids = all.body.endpoints.map((e: { id: string }) => e.id);
    expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
    const total = all.body.meta.total;
    const last = await call('cdn_list_endpoints', { query: `?per_page=1&page=${total}` });
    expect(last.body.endpoints.map((e: { id: string }) => e.id)).toEqual([ids[ids.length - 1]]);
    expect(last.body.links.pages.prev).toMatch(new RegExp(`page=${total - 1}`));
    expect((await call('cdn_delete_endpoint', { params: { cdn_id: a.id } })).status).toBe(204);
    expectError(await call('cdn_get_endpoint', { params: { cdn_id: a.id } }), 404, /not found/);
    const after = await call('cdn_list_endpoints', { query: '?per_page=200' });
    expect(after.body.meta.total).toBe(total - 1);
  });
});
