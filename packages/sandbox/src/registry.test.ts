/**
 * Container registries as the platform runs them, through both APIs (`/v2/registry`, deprecated,
 * and `/v2/registries`): tiers and their limits, names, the one-registry API's 412 once there are
 * several, repositories, tags and manifests of images pushed with `pushImage`, garbage collection
 * moving through its statuses on the sandbox clock, and docker credentials. Every answer is
 * checked against the description's schema for its status (`callOperation`).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dropRegistry, type PushOptions, pushImage } from './routes/registry-model.js';
import { type Sandbox, startSandbox } from './server.js';
import { type CallOptions, callOperation, type Reply, steppingClock } from './testing/operations.js';
import type { World } from './world.js';

let sandbox: Sandbox;
const clock = steppingClock();

const call = (operationId: string, options?: CallOptions) => callOperation(sandbox.url, operationId, options);

function expectError(reply: Reply, status: number, mentions: RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual({
    id: expect.any(String),
    message: expect.stringMatching(mentions),
    request_id: expect.any(String),
  });
}

const registryState = () =>
  sandbox.store.read((w: World) =>
    structuredClone({
      registries: w.containerRegistries,
      subscription: w.registrySubscription,
      manifests: w.registryManifests,
      blobs: w.registryBlobs,
      gcs: w.registryGarbageCollections,
    }),
  );

/** Expects a refusal that changes nothing. */
async function refusedUnchanged(reply: Promise<Reply>, status: number, mentions: RegExp) {
  const before = await registryState();
  expectError(await reply, status, mentions);
  expect(await registryState()).toEqual(before);
}

/** Pushes an image as docker would, at the sandbox's time. */
const push = (registry: string, repository: string, tag: string, options?: PushOptions) =>
  sandbox.store.write((w: World) =>
    pushImage(w, registry, repository, tag, clock() + w.clockOffsetMs, options),
  );

async function createRegistry(name: string, tier = 'basic', region?: string) {
  const created = await call('registry_create', {
    json: { name, subscription_tier_slug: tier, ...(region ? { region } : {}) },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.registry;
}

beforeAll(async () => {
  sandbox = await startSandbox({ now: clock });
});
afterAll(async () => {
  await sandbox.close();
});
// The registries are the account's: each test starts with none.
beforeEach(async () => {
  await sandbox.store.write((w: World) => {
    for (const registry of [...w.containerRegistries]) dropRegistry(w, registry);
  });
});

describe('registry options and subscription', () => {
  it('lists the tiers with their limits and prices, and the regions of each API', async () => {
    const single = await call('registry_get_options');
    expect(single.status, single.text).toBe(200);
    expect(single.body.options.available_regions).toEqual(['nyc3', 'sfo3', 'ams3', 'sgp1', 'fra1']);
    expect(single.body.options.subscription_tiers).toEqual([
      expect.objectContaining({
        slug: 'starter',
        included_repositories: 1,
        included_storage_bytes: 524_288_000,
        allow_storage_overage: false,
        monthly_price_in_cents: 0,
        eligible: true,
      }),
      expect.objectContaining({ slug: 'basic', included_repositories: 5, monthly_price_in_cents: 500 }),
      expect.objectContaining({
        slug: 'professional',
        included_repositories: 0,
        monthly_price_in_cents: 2000,
      }),
    ]);
    const multi = await call('registries_get_options');
    expect(multi.body.options.available_regions).toEqual(
      expect.arrayContaining(['nyc3', 'sfo2', 'blr1', 'syd1']),
    );
    expect(multi.body.options.subscription_tiers).toEqual(single.body.options.subscription_tiers);
  });

  it('has no subscription before the first registry, and one after, at its tier', async () => {
    expectError(await call('registry_get_subscription'), 404, /no container registry subscription/);
    expectError(
      await call('registries_update_subscription', { json: { tier_slug: 'basic' } }),
      404,
      /create a registry first/,
    );
    // A region is chosen when none is given.
    expect((await createRegistry('sub-reg', 'starter')).region).toBe('nyc3');
    const sub = await call('registries_get_subscription');
    expect(sub.status, sub.text).toBe(200);
    expect(sub.body.subscription.tier).toMatchObject({ slug: 'starter', name: 'Starter' });
    const changed = await call('registry_update_subscription', { json: { tier_slug: 'professional' } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.subscription.tier.slug).toBe('professional');
    expect((await call('registry_get')).body.registry.subscription.tier.slug).toBe('professional');
    await refusedUnchanged(
      call('registry_update_subscription', { json: { tier_slug: 'premium' } }),
      422,
      /tier_slug must be one of starter, basic, professional/,
    );
  });

  it('refuses a tier the account does not fit, saying why, and shows it ineligible', async () => {
    await createRegistry('fit-reg', 'basic');
    await push('fit-reg', 'web', 'v1');
    await push('fit-reg', 'api', 'v1');
    await refusedUnchanged(
      call('registries_update_subscription', { json: { tier_slug: 'starter' } }),
      412,
      /not eligible for tier because: \[OverRepositoryLimit\]/,
    );
    const tiers = (await call('registries_get_options')).body.options.subscription_tiers;
    expect(tiers[0]).toMatchObject({
      slug: 'starter',
      eligible: false,
      eligibility_reasons: ['OverRepositoryLimit'],
    });
    expect(tiers[1]).toMatchObject({ slug: 'basic', eligible: true });
    expect(tiers[1].eligibility_reasons).toBeUndefined();
  });
});

describe('registries', () => {
  it('creates one with /v2/registry, checking the name, tier and region, and refuses a second', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: 'Upper' }, /name must be lowercase/],
      [{ name: 'a'.repeat(64) }, /at most 63 characters/],
      [{ name: 'under_score' }, /name must be lowercase/],
      [{ subscription_tier_slug: undefined }, /subscription_tier_slug must be one of/],
      [{ region: 'blr1' }, /region must be one of nyc3, sfo3, ams3, sgp1, fra1/],
    ];
    for (const [json, message] of cases) {
      await refusedUnchanged(
        call('registry_create', { json: { name: 'first-reg', subscription_tier_slug: 'basic', ...json } }),
        422,
        message,
      );
    }
    const created = await createRegistry('first-reg', 'basic', 'fra1');
    expect(created).toMatchObject({
      name: 'first-reg',
      region: 'fra1',
      storage_usage_bytes: 0,
      subscription: { tier: { slug: 'basic' } },
    });
    expect((await call('registry_get')).body.registry).toEqual(created);
    // The name is taken; the account has its registry.
    await refusedUnchanged(
      call('registry_create', { json: { name: 'first-reg', subscription_tier_slug: 'basic' } }),
      409,
      /name already exists/,
    );
    await refusedUnchanged(
      call('registry_create', { json: { name: 'second-reg', subscription_tier_slug: 'basic' } }),
      422,
      /user already has a registry/,
    );
    expect((await call('registries_list')).body.registries.map((r: { region: string }) => r.region)).toEqual([
      'fra1',
    ]);
  });

  it('validates a name: 204 when free, 409 when taken, 422 when malformed', async () => {
    await createRegistry('taken-name');
    expect((await call('registry_validate_name', { json: { name: 'free-name' } })).status).toBe(204);
    expectError(
      await call('registries_validate_name', { json: { name: 'taken-name' } }),
      409,
      /name already exists/,
    );
    expectError(await call('registry_validate_name', { json: { name: 'Bad Name' } }), 422, /lowercase/);
  });

  it('holds several registries on professional only; the one-registry API then answers 412', async () => {
    expectError(
      await call('registries_create', { json: { name: 'multi-a' } }),
      422,
      /subscription_tier_slug is required for the account's first registry/,
    );
    const first = await call('registries_create', {
      json: { name: 'multi-a', subscription_tier_slug: 'basic', region: 'blr1' },
    });
    expect(first.status, first.text).toBe(201);
    expect(first.body.registry).toMatchObject({ name: 'multi-a', region: 'blr1' });
    expect(first.body.registry.subscription).toBeUndefined();
    await refusedUnchanged(
      call('registries_create', { json: { name: 'multi-b' } }),
      412,
      /\[OverRegistryLimit\].*basic tier allows 1/,
    );
    await refusedUnchanged(
      call('registries_create', { json: { name: 'multi-b', subscription_tier_slug: 'professional' } }),
      422,
      /not the account's tier \(basic\)/,
    );
    await call('registries_update_subscription', { json: { tier_slug: 'professional' } });
    const second = await call('registries_create', { json: { name: 'multi-b' } });
    expect(second.status, second.text).toBe(201);
    await refusedUnchanged(
      call('registries_create', { json: { name: 'multi-a' } }),
      409,
      /name already exists/,
    );

    const listed = await call('registries_list');
    expect(listed.body.registries.map((r: { name: string }) => r.name)).toEqual(['multi-a', 'multi-b']);
    expect(listed.body.total_storage_usage_bytes).toBe(0);
    expect((await call('registries_get', { params: { registry_name: 'multi-b' } })).body.registry.name).toBe(
      'multi-b',
    );
    expectError(await call('registries_get', { params: { registry_name: 'nope' } }), 404, /not found/);
    expectError(await call('registry_get'), 412, /not supported if you have created multiple registries/);
    await refusedUnchanged(call('registry_delete'), 412, /multiple registries/);
    await refusedUnchanged(
      call('registries_update_subscription', { json: { tier_slug: 'basic' } }),
      412,
      /\[OverRegistryLimit\]/,
    );
    // The contents' routes of either API reach any of the account's registries by name.
    await push('multi-b', 'tools', 'v1');
    const repos = await call('registry_list_repositoriesV2', { params: { registry_name: 'multi-b' } });
    expect(repos.body.repositories.map((r: { name: string }) => r.name)).toEqual(['tools']);

    expect((await call('registries_delete', { params: { registry_name: 'multi-b' } })).status).toBe(204);
    expect((await call('registry_get')).body.registry.name).toBe('multi-a');
    expect((await call('registry_delete')).status).toBe(204);
    expectError(await call('registry_get'), 404, /no container registry/);
    // The subscription ended with the last registry.
    expectError(await call('registries_get_subscription'), 404, /no container registry subscription/);
    expectError(await call('registries_delete', { params: { registry_name: 'multi-a' } }), 404, /not found/);
  });
});

describe('repositories, tags and manifests', () => {
  it('lists what was pushed, v1 and v2, with counts, latest tag and manifest, page by page', async () => {
    await createRegistry('repo-reg', 'professional');
    const web1 = await push('repo-reg', 'web', 'v1');
    const web2 = await push('repo-reg', 'web', 'v2');
    // `docker tag web:v2 web:latest` and push: the same manifest gets a second tag.
    await push('repo-reg', 'web', 'latest', { digest: web2.digest });
    await push('repo-reg', 'api', 'v1');
    await push('repo-reg', 'team/worker', 'v1');
    expect(web1.digest).toMatch(/^sha256:[0-9a-f]{64}$/);

    const v2 = await call('registries_list_repositoriesV2', { params: { registry_name: 'repo-reg' } });
    expect(v2.status, v2.text).toBe(200);
    expect(v2.body.meta.total).toBe(3);
    expect(v2.body.repositories.map((r: { name: string }) => r.name)).toEqual(['api', 'team/worker', 'web']);
    const web = v2.body.repositories[2];
    expect(web).toMatchObject({ registry_name: 'repo-reg', tag_count: 3, manifest_count: 2 });
    expect(web.latest_manifest).toMatchObject({ digest: web2.digest, repository: 'web' });
    expect([...web.latest_manifest.tags].sort()).toEqual(['latest', 'v2']);
    expect(web.latest_manifest.blobs).toHaveLength(3);

    const v1 = await call('registry_list_repositories', {
      params: { registry_name: 'repo-reg' },
      query: '?per_page=2&page=2',
    });
    expect(v1.status, v1.text).toBe(200);
    expect(v1.body.repositories).toEqual([
      expect.objectContaining({
        name: 'web',
        tag_count: 3,
        latest_tag: expect.objectContaining({ tag: 'latest' }),
      }),
    ]);
    expect(v1.body.links.pages.prev).toMatch(/page=1/);
    expect(v1.body.meta.total).toBe(3);

    // A repository named with "/" is one path segment, percent-encoded.
    const tags = await call('registry_list_repositoryTags', {
      params: { registry_name: 'repo-reg', repository_name: 'team/worker' },
    });
    expect(tags.body.tags).toEqual([
      expect.objectContaining({ repository: 'team/worker', tag: 'v1', manifest_digest: expect.any(String) }),
    ]);
    const webTags = await call('registries_list_repositoryTags', {
      params: { registry_name: 'repo-reg', repository_name: 'web' },
      query: '?per_page=1&page=2',
    });
    expect(webTags.body.meta.total).toBe(3);
    expect(webTags.body.tags).toHaveLength(1);

    // Storage counts each blob once.
    const registry = (await call('registry_get')).body.registry;
    const manifests = await call('registry_list_repositoryManifests', {
      params: { registry_name: 'repo-reg', repository_name: 'web' },
    });
    expect(manifests.body.manifests.map((m: { digest: string }) => m.digest)).toEqual([
      web2.digest,
      web1.digest,
    ]);
    expect(registry.storage_usage_bytes).toBeGreaterThan(manifests.body.manifests[0].compressed_size_bytes);
  });

  it('moves a tag to the image pushed under it, leaving the older image untagged', async () => {
    await createRegistry('move-reg', 'basic');
    const old = await push('move-reg', 'web', 'latest');
    const fresh = await push('move-reg', 'web', 'latest');
    const manifests = (
      await call('registries_list_repositoryManifests', {
        params: { registry_name: 'move-reg', repository_name: 'web' },
      })
    ).body.manifests;
    expect(manifests.map((m: { digest: string; tags: string[] }) => [m.digest, m.tags])).toEqual([
      [fresh.digest, ['latest']],
      [old.digest, []],
    ]);
  });

  it('deletes a tag (its manifest stays), a manifest (its tags go), and a repository', async () => {
    await createRegistry('del-reg', 'professional');
    const one = await push('del-reg', 'web', 'v1');
    await push('del-reg', 'web', 'stable', { digest: one.digest });
    const two = await push('del-reg', 'web', 'v2');
    await push('del-reg', 'api', 'v1');
    const params = { registry_name: 'del-reg', repository_name: 'web' };

    expect(
      (await call('registry_delete_repositoryTag', { params: { ...params, repository_tag: 'v1' } })).status,
    ).toBe(204);
    const after = (await call('registry_list_repositoryManifests', { params })).body.manifests;
    expect(after.find((m: { digest: string }) => m.digest === one.digest).tags).toEqual(['stable']);
    await refusedUnchanged(
      call('registries_delete_repositoryTag', { params: { ...params, repository_tag: 'v1' } }),
      404,
      /tag "v1" not found/,
    );

    expect(
      (
        await call('registries_delete_repositoryManifest', {
          params: { ...params, manifest_digest: one.digest },
        })
      ).status,
    ).toBe(204);
    const tags = (await call('registries_list_repositoryTags', { params })).body.tags;
    expect(tags.map((t: { tag: string }) => t.tag)).toEqual(['v2']);
    await refusedUnchanged(
      call('registry_delete_repositoryManifest', { params: { ...params, manifest_digest: one.digest } }),
      404,
      /not found/,
    );
    await refusedUnchanged(
      call('registry_delete_repositoryManifest', { params: { ...params, manifest_digest: 'latest' } }),
      400,
      /sha256/,
    );
    // Blobs stay stored until a garbage collection.
    expect((await call('registry_get')).body.registry.storage_usage_bytes).toBeGreaterThan(0);

    expect((await call('registries_delete_repository', { params })).status).toBe(204);
    expectError(await call('registries_list_repositoryTags', { params }), 404, /repository "web" not found/);
    const repos = (await call('registries_list_repositoriesV2', { params: { registry_name: 'del-reg' } }))
      .body.repositories;
    expect(repos.map((r: { name: string }) => r.name)).toEqual(['api']);
    expect(two.digest).not.toBe(one.digest);
    expectError(
      await call('registry_list_repositoryTags', {
        params: { registry_name: 'nope', repository_name: 'web' },
      }),
      404,
      /registry "nope" not found/,
    );
  });

  it('refuses a push beyond the tier: repositories, and storage on starter', async () => {
    await createRegistry('tier-reg', 'starter');
    await push('tier-reg', 'only', 'v1');
    await expect(push('tier-reg', 'second', 'v1')).rejects.toThrow(
      /allows 1 repositories.*OverRepositoryLimit/,
    );
    // Another tag of the same repository is fine; 500 MiB is the most on starter.
    await push('tier-reg', 'only', 'v2');
    await expect(
      push('tier-reg', 'only', 'huge', { layers: [{ compressed_size_bytes: 600 * 1024 * 1024 }] }),
    ).rejects.toThrow(/OverStorageLimit/);
    const tags = (
      await call('registry_list_repositoryTags', {
        params: { registry_name: 'tier-reg', repository_name: 'only' },
      })
    ).body.tags;
    expect(tags.map((t: { tag: string }) => t.tag)).toEqual(['v2', 'v1']);
    // Shared layers count once.
    const base = { digest: `sha256:${'a'.repeat(64)}`, compressed_size_bytes: 1_000_000 };
    const before = (await call('registry_get')).body.registry.storage_usage_bytes;
    await push('tier-reg', 'only', 'b1', { layers: [base] });
    const mid = (await call('registry_get')).body.registry.storage_usage_bytes;
    await push('tier-reg', 'only', 'b2', { layers: [base] });
    const end = (await call('registry_get')).body.registry.storage_usage_bytes;
    expect(mid - before).toBeGreaterThan(1_000_000);
    expect(end - mid).toBeLessThan(3_000);
  });
});

describe('garbage collection', () => {
  it('moves through its statuses, one at a time, then frees the unreferenced blobs', async () => {
    await createRegistry('gc-reg', 'basic');
    const keep = await push('gc-reg', 'web', 'v1');
    const drop = await push('gc-reg', 'web', 'v2');
    await call('registry_delete_repositoryManifest', {
      params: { registry_name: 'gc-reg', repository_name: 'web', manifest_digest: drop.digest },
    });
    const before = (await call('registry_get')).body.registry.storage_usage_bytes;
    expectError(
      await call('registry_get_garbageCollection', { params: { registry_name: 'gc-reg' } }),
      404,
      /no active garbage collection/,
    );

    const started = await call('registry_run_garbageCollection', {
      params: { registry_name: 'gc-reg' },
      json: { type: 'unreferenced blobs only' },
    });
    expect(started.status, started.text).toBe(201);
    const gc = started.body.garbage_collection;
    expect(gc).toMatchObject({
      registry_name: 'gc-reg',
      status: 'requested',
      blobs_deleted: 0,
      freed_bytes: 0,
    });
    await refusedUnchanged(
      call('registries_run_garbageCollection', { params: { registry_name: 'gc-reg' } }),
      409,
      /one at a time/,
    );
    // The registry is read-only meanwhile.
    await expect(push('gc-reg', 'web', 'v3')).rejects.toThrow(/read-only while a garbage collection runs/);

    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const active = await call('registries_get_garbageCollection', { params: { registry_name: 'gc-reg' } });
      if (active.status === 404) break;
      seen.push(active.body.garbage_collection.status);
      await sandbox.advanceClock(2_000);
    }
    expect(seen).toEqual([
      'requested',
      'waiting for write JWTs to expire',
      'scanning manifests',
      'deleting unreferenced blobs',
    ]);
    const listed = await call('registry_list_garbageCollections', { params: { registry_name: 'gc-reg' } });
    const done = listed.body.garbage_collections[0];
    expect(done).toMatchObject({ uuid: gc.uuid, status: 'succeeded', blobs_deleted: 3 });
    const after = (await call('registry_get')).body.registry;
    expect(before - after.storage_usage_bytes).toBe(done.freed_bytes);
    expect(after.storage_usage_bytes_updated_at).not.toBe(started.body.garbage_collection.created_at);
    // The kept image is whole, and pushes work again.
    const manifests = (
      await call('registry_list_repositoryManifests', {
        params: { registry_name: 'gc-reg', repository_name: 'web' },
      })
    ).body.manifests;
    expect(manifests.map((m: { digest: string }) => m.digest)).toEqual([keep.digest]);
    await push('gc-reg', 'web', 'v3');
  });

  it('deletes untagged manifests when asked to, and lists collections newest first, page by page', async () => {
    await createRegistry('gcu-reg', 'basic');
    await push('gcu-reg', 'web', 'latest');
    await push('gcu-reg', 'web', 'latest');
    const params = { registry_name: 'gcu-reg', repository_name: 'web' };
    expect((await call('registries_list_repositoryManifests', { params })).body.meta.total).toBe(2);
    const first = await call('registries_run_garbageCollection', {
      params: { registry_name: 'gcu-reg' },
      json: { type: 'untagged manifests and unreferenced blobs' },
    });
    expect(first.body.garbage_collection.type).toBe('untagged manifests and unreferenced blobs');
    await sandbox.advanceClock(8_000);
    expect((await call('registries_list_repositoryManifests', { params })).body.meta.total).toBe(1);
    const second = await call('registries_run_garbageCollection', { params: { registry_name: 'gcu-reg' } });
    expect(second.status, second.text).toBe(201);
    // godo's default type.
    expect(second.body.garbage_collection.type).toBe('unreferenced blobs only');
    const page2 = await call('registries_list_garbageCollections', {
      params: { registry_name: 'gcu-reg' },
      query: '?per_page=1&page=2',
    });
    expect(page2.body.meta.total).toBe(2);
    expect(page2.body.garbage_collections.map((g: { uuid: string }) => g.uuid)).toEqual([
      first.body.garbage_collection.uuid,
    ]);
    await refusedUnchanged(
      call('registry_run_garbageCollection', {
        params: { registry_name: 'gcu-reg' },
        json: { type: 'everything' },
      }),
      422,
      /type must be one of/,
    );
  });

  it('cancels the active collection: cancelling, then cancelled, deleting nothing', async () => {
    await createRegistry('gcc-reg', 'basic');
    const image = await push('gcc-reg', 'web', 'v1');
    await call('registry_delete_repositoryManifest', {
      params: { registry_name: 'gcc-reg', repository_name: 'web', manifest_digest: image.digest },
    });
    const before = (await call('registry_get')).body.registry.storage_usage_bytes;
    const gc = (await call('registry_run_garbageCollection', { params: { registry_name: 'gcc-reg' } })).body
      .garbage_collection;
    const params = { registry_name: 'gcc-reg', garbage_collection_uuid: gc.uuid };
    await refusedUnchanged(
      call('registry_update_garbageCollection', { params, json: { cancel: false } }),
      422,
      /cancel must be true/,
    );
    expectError(
      await call('registry_update_garbageCollection', {
        params: { ...params, garbage_collection_uuid: '00000000-0000-4000-8000-000000000000' },
        json: { cancel: true },
      }),
      404,
      /not found/,
    );
    const cancelling = await call('registries_update_garbageCollection', { params, json: { cancel: true } });
    expect(cancelling.status, cancelling.text).toBe(200);
    expect(cancelling.body.garbage_collection.status).toBe('cancelling');
    await sandbox.advanceClock(10_000);
    const listed = await call('registries_list_garbageCollections', { params: { registry_name: 'gcc-reg' } });
    expect(listed.body.garbage_collections[0]).toMatchObject({ status: 'cancelled', blobs_deleted: 0 });
    expect((await call('registry_get')).body.registry.storage_usage_bytes).toBe(before);
    await refusedUnchanged(
      call('registries_update_garbageCollection', { params, json: { cancel: true } }),
      409,
      /is cancelled: only an active one can be cancelled/,
    );
  });
});

describe('docker credentials', () => {
  it('answers a docker config.json whose auth is a token twice, for the registry host', async () => {
    expectError(await call('registry_get_dockerCredentials'), 404, /no container registry/);
    await createRegistry('cred-reg');
    const read = await call('registry_get_dockerCredentials', {
      query: '?read_write=true&expiry_seconds=3600',
    });
    expect(read.status, read.text).toBe(200);
    expect(Object.keys(read.body.auths)).toEqual(['registry.digitalocean.com']);
    const [user, password] = Buffer.from(read.body.auths['registry.digitalocean.com'].auth, 'base64')
      .toString()
      .split(':');
    expect(user).toMatch(/^dop_v1_[0-9a-f]{64}$/);
    expect(password).toBe(user);
    const other = await call('registries_get_dockerCredentials', { params: { registry_name: 'cred-reg' } });
    expect(other.body.auths['registry.digitalocean.com'].auth).not.toBe(
      read.body.auths['registry.digitalocean.com'].auth,
    );
    expectError(
      await call('registry_get_dockerCredentials', { query: '?read_write=yes' }),
      400,
      /read_write/,
    );
    expectError(
      await call('registry_get_dockerCredentials', { query: '?expiry_seconds=-1' }),
      400,
      /expiry_seconds/,
    );
    expectError(
      await call('registries_get_dockerCredentials', { params: { registry_name: 'nope' } }),
      404,
      /not found/,
    );
  });
});
