/**
 * The registry family as a library: the requests its tools send (checked against the API
 * description), arguments refused before any request, and the typed API against the sandbox,
 * with images pushed as docker would (`pushImage`).
 */
import { type AnyTool, InputError, parseArgs, runTool } from '@cloudcall/core';
import { buildRequest } from '@cloudcall/core/internal';
import { connectSandbox, type SandboxConnection, type World } from '@cloudcall/sandbox';
import { pushImage } from '@cloudcall/sandbox/registry';
import { unrefusedPathValues } from '@cloudcall/testing';
import { waitAfter } from '@cloudcall/wait';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
// The description subset is a workspace tool; imported by path so the published package needs nothing.
import { noResponseBody, operation } from '../../../tooling/openapi/index.js';
import { registryApi, registryFamily, registryTools } from './index.js';

const tool = (name: string) => registryTools.find((t) => t.name === name) as AnyTool;
const request = (name: string, args: Record<string, unknown>) =>
  buildRequest(tool(name).request as never, parseArgs(tool(name), args) as Record<string, unknown>);

const DIGEST = `sha256:${'a'.repeat(64)}`;
const GC = '9cc10173-e9ea-4176-9dbc-a4cee4c4ff30';

/** Each tool, valid arguments, and the API operation it calls. */
const cases: [tool: string, args: Record<string, unknown>, operationId: string][] = [
  ['registry-list', {}, 'registries_list'],
  ['registry-get', { Registry: 'example' }, 'registries_get'],
  ['registry-create', { Name: 'example', SubscriptionTier: 'basic', Region: 'fra1' }, 'registries_create'],
  ['registry-delete', { Registry: 'example' }, 'registries_delete'],
  ['registry-subscription-get', {}, 'registries_get_subscription'],
  ['registry-subscription-update', { Tier: 'professional' }, 'registries_update_subscription'],
  ['registry-list-options', {}, 'registries_get_options'],
  ['registry-docker-config', { ReadWrite: true, ExpirySeconds: 3600 }, 'registry_get_dockerCredentials'],
  ['registry-repository-list-v2', { Registry: 'example' }, 'registries_list_repositoriesV2'],
  [
    'registry-repository-list-tags',
    { Registry: 'example', Repository: 'web' },
    'registries_list_repositoryTags',
  ],
  [
    'registry-repository-delete-tag',
    { Registry: 'example', Repository: 'web', Tag: 'v1' },
    'registries_delete_repositoryTag',
  ],
  [
    'registry-repository-list-manifests',
    { Registry: 'example', Repository: 'web' },
    'registries_list_repositoryManifests',
  ],
  [
    'registry-repository-delete-manifest',
    { Registry: 'example', Repository: 'web', Digest: DIGEST },
    'registries_delete_repositoryManifest',
  ],
  ['registry-garbage-collection-start', { Registry: 'example' }, 'registries_run_garbageCollection'],
  ['registry-garbage-collection-get-active', { Registry: 'example' }, 'registries_get_garbageCollection'],
  ['registry-garbage-collection-list', { Registry: 'example' }, 'registries_list_garbageCollections'],
  [
    'registry-garbage-collection-cancel',
    { Registry: 'example', UUID: GC },
    'registries_update_garbageCollection',
  ],
];
const template = (path: string) => path.replace(/\{\w+\}/g, '{}');

let connection: SandboxConnection;
beforeAll(async () => {
  connection = await connectSandbox();
});
afterAll(async () => {
  await connection.close();
});

describe('the family', () => {
  it('is offered on request, not in the default listing', () => {
    expect(registryFamily).toMatchObject({ name: 'registry', onRequest: true });
    expect(registryFamily.tools).toBe(registryTools);
    expect(registryTools.every((t) => t.family === 'registry')).toBe(true);
  });
});

describe('requests on the wire', () => {
  it('covers every tool', () => {
    expect(cases.map(([name]) => name).sort()).toEqual(registryTools.map((t) => t.name).sort());
  });

  it.each(cases)('%s calls its operation', (name, args, operationId) => {
    const sent = request(name, args);
    const expected = operation(operationId);
    expect(sent.method).toBe(expected.method);
    expect(template(tool(name).request?.path ?? '')).toBe(template(expected.path));
    expect(sent.path).toMatch(new RegExp(`^${expected.path.replace(/\{\w+\}/g, '[^/]+')}$`));
    expect(Boolean(sent.noResponseBody)).toBe(noResponseBody(operationId));
  });

  it('sends the bodies and queries the platform reads', () => {
    expect(request('registry-create', { Name: 'example', SubscriptionTier: 'basic' }).body).toEqual({
      name: 'example',
      subscription_tier_slug: 'basic',
    });
    expect(request('registry-subscription-update', { Tier: 'starter' }).body).toEqual({
      tier_slug: 'starter',
    });
    expect(request('registry-docker-config', {}).query).toEqual({});
    expect(request('registry-docker-config', { ReadWrite: true, ExpirySeconds: 60 }).query).toEqual({
      read_write: true,
      expiry_seconds: 60,
    });
    expect(request('registry-garbage-collection-start', { Registry: 'example' }).body).toEqual({});
    expect(
      request('registry-garbage-collection-start', { Registry: 'example', Type: 'untagged manifests only' })
        .body,
    ).toEqual({ type: 'untagged manifests only' });
    expect(request('registry-garbage-collection-cancel', { Registry: 'example', UUID: GC })).toMatchObject({
      method: 'PUT',
      path: `/v2/registries/example/garbage-collection/${GC}`,
      body: { cancel: true },
    });
    expect(request('registry-repository-list-tags', { Registry: 'r', Repository: 'web' }).query).toEqual({
      page: 1,
      per_page: 20,
    });
  });

  it('sends a repository named with "/" as one segment, "/" as %2F, as the API description asks', () => {
    const team = { Registry: 'r', Repository: 'team/api-v2/web' };
    const encoded = '/v2/registries/r/repositories/team%2Fapi-v2%2Fweb';
    expect(request('registry-repository-list-tags', team).path).toBe(`${encoded}/tags`);
    expect(request('registry-repository-delete-tag', { ...team, Tag: 'v1' }).path).toBe(`${encoded}/tags/v1`);
    expect(request('registry-repository-list-manifests', team).path).toBe(`${encoded}/digests`);
    expect(request('registry-repository-delete-manifest', { ...team, Digest: DIGEST }).path).toBe(
      `${encoded}/digests/${DIGEST}`,
    );
  });
});

describe('arguments are checked before any request', () => {
  it('refuses bad names, tags, digests and tiers, naming the argument', () => {
    const refused: [string, Record<string, unknown>, string][] = [
      ['registry-create', { Name: 'Upper' }, 'Name'],
      ['registry-create', { Name: 'a'.repeat(64) }, 'Name'],
      ['registry-create', { Name: 'ok', SubscriptionTier: 'premium' }, 'SubscriptionTier'],
      ['registry-get', { Registry: 'under_score' }, 'Registry'],
      ['registry-repository-list-tags', { Registry: 'r', Repository: 'Web' }, 'Repository'],
      // Parts joined by "/", each a name: none empty, none a dot segment.
      ['registry-repository-list-tags', { Registry: 'r', Repository: 'team//web' }, 'Repository'],
      ['registry-repository-list-tags', { Registry: 'r', Repository: 'team/../web' }, 'Repository'],
      ['registry-repository-list-tags', { Registry: 'r', Repository: '/web' }, 'Repository'],
      ['registry-repository-list-tags', { Registry: 'r', Repository: 'team/' }, 'Repository'],
      ['registry-repository-list-tags', { Registry: 'r', Repository: 'team%2Fweb' }, 'Repository'],
      ['registry-repository-delete-tag', { Registry: 'r', Repository: 'web', Tag: '-v1' }, 'Tag'],
      [
        'registry-repository-delete-manifest',
        { Registry: 'r', Repository: 'web', Digest: 'sha256:abc' },
        'Digest',
      ],
      ['registry-garbage-collection-start', { Registry: 'r', Type: 'everything' }, 'Type'],
      ['registry-garbage-collection-cancel', { Registry: 'r', UUID: 'latest' }, 'UUID'],
      ['registry-docker-config', { ExpirySeconds: 0 }, 'ExpirySeconds'],
    ];
    for (const [name, args, argument] of refused) {
      let error: unknown;
      try {
        parseArgs(tool(name), args);
      } catch (caught) {
        error = caught;
      }
      expect(error, `${name} ${JSON.stringify(args)}`).toBeInstanceOf(InputError);
      expect((error as InputError).issues.map((i) => i.argument)).toContain(argument);
    }
  });

  it('path arguments refuse dot segments, slashes and control characters; nothing is sent', async () => {
    const seen: string[] = [];
    const sandbox = await connectSandbox({ log: (line) => seen.push(line) });
    try {
      const problems = await unrefusedPathValues(
        cases,
        (name) => tool(name).request?.path,
        (name, args) => runTool(tool(name), args, { client: sandbox.client }).catch((e: unknown) => e),
        (error, arg) => error instanceof InputError && error.issues.some((i) => i.argument === arg),
        // `a/b` is a repository's name: sent as one segment (above), not refused.
        (name, argument, value) => (tool(name).request?.slashed ?? []).includes(argument) && value === 'a/b',
      );
      expect(problems).toEqual([]);
      expect(seen).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});

describe('the typed API against the sandbox', () => {
  const now = () => connection.clock.now();
  const push = (registry: string, repository: string, tag: string, digest?: string) =>
    connection.sandbox.store.write((world: World) =>
      pushImage(world, registry, repository, tag, now(), digest ? { digest } : {}),
    );

  beforeEach(async () => {
    const api = registryApi(connection.client);
    for (const { name } of (await api.registryList({})).registries)
      await api.registryDelete({ Registry: name });
  });

  it('creates a registry, reads what was pushed, deletes a tag and a manifest, collects, deletes it', async () => {
    const api = registryApi(connection.client);
    const { registry } = await api.registryCreate({
      Name: 'lib-reg',
      SubscriptionTier: 'basic',
      Region: 'fra1',
    });
    expect(registry).toMatchObject({ name: 'lib-reg', region: 'fra1', storage_usage_bytes: 0 });
    expect((await api.registrySubscriptionGet({})).subscription.tier.slug).toBe('basic');
    const { options } = await api.registryListOptions({});
    expect(options.subscription_tiers.map((t) => t.slug)).toEqual(['starter', 'basic', 'professional']);
    expect(options.available_regions).toContain('fra1');

    const first = await push('lib-reg', 'web', 'v1');
    await push('lib-reg', 'web', 'v2');
    await push('lib-reg', 'api', 'latest');
    await push('lib-reg', 'team/api', 'v7');
    const { repositories } = await api.registryRepositoryListV2({ Registry: 'lib-reg' });
    expect(repositories.map((r) => [r.name, r.tag_count, r.manifest_count])).toEqual([
      ['api', 1, 1],
      ['team/api', 1, 1],
      ['web', 2, 2],
    ]);
    // A name with "/" reaches its own repository, not `api`.
    const team = await api.registryRepositoryListTags({ Registry: 'lib-reg', Repository: 'team/api' });
    expect(team.tags.map((t) => [t.repository, t.tag])).toEqual([['team/api', 'v7']]);
    await api.registryRepositoryDeleteTag({ Registry: 'lib-reg', Repository: 'team/api', Tag: 'v7' });
    expect(
      (await api.registryRepositoryListTags({ Registry: 'lib-reg', Repository: 'api' })).tags,
    ).toHaveLength(1);
    const { tags } = await api.registryRepositoryListTags({ Registry: 'lib-reg', Repository: 'web' });
    expect(tags.map((t) => t.tag).sort()).toEqual(['v1', 'v2']);
    expect(tags.find((t) => t.tag === 'v1')?.manifest_digest).toBe(first.digest);

    expect(
      await api.registryRepositoryDeleteTag({ Registry: 'lib-reg', Repository: 'web', Tag: 'v1' }),
    ).toEqual({
      ok: true,
    });
    const { manifests } = await api.registryRepositoryListManifests({
      Registry: 'lib-reg',
      Repository: 'web',
    });
    expect(manifests.find((m) => m.digest === first.digest)?.tags).toEqual([]);
    await api.registryRepositoryDeleteManifest({
      Registry: 'lib-reg',
      Repository: 'web',
      Digest: first.digest,
    });
    expect(
      (await api.registryRepositoryListManifests({ Registry: 'lib-reg', Repository: 'web' })).manifests,
    ).toHaveLength(1);

    // A collection frees the deleted manifest's layers; waiting for it ends when it has succeeded.
    const before = (await api.registryGet({ Registry: 'lib-reg' })).registry.storage_usage_bytes;
    const started = await api.registryGarbageCollectionStart({ Registry: 'lib-reg' });
    expect(started.garbage_collection).toMatchObject({ registry_name: 'lib-reg', status: 'requested' });
    expect(
      (await api.registryGarbageCollectionGetActive({ Registry: 'lib-reg' })).garbage_collection.uuid,
    ).toBe(started.garbage_collection.uuid);
    const progress: string[] = [];
    let reported: () => void = () => {};
    const firstReport = new Promise<void>((resolve) => {
      reported = resolve;
    });
    const wait = tool('registry-garbage-collection-start').wait;
    if (!wait) throw new Error('registry-garbage-collection-start has no wait');
    const waiting = waitAfter(
      wait,
      { Registry: 'lib-reg' },
      started,
      {
        client: connection.client,
        clock: connection.clock,
        progress: (update) => {
          progress.push(update.message);
          reported();
        },
      },
      60,
    );
    // Once it has said what it waits for (by the registry's name), the sandbox's time moves on.
    await firstReport;
    expect(progress[0]).toMatch(/^registry-garbage-collection lib-reg: requested → succeeded/);
    await connection.sandbox.advanceClock(10_000);
    const done = (await waiting) as { garbage_collection: { status: string; freed_bytes: number } };
    expect(done.garbage_collection.status).toBe('succeeded');
    expect(done.garbage_collection.freed_bytes).toBeGreaterThan(0);
    const after = (await api.registryGet({ Registry: 'lib-reg' })).registry.storage_usage_bytes;
    expect(after).toBe(before - done.garbage_collection.freed_bytes);
    const { garbage_collections } = await api.registryGarbageCollectionList({ Registry: 'lib-reg' });
    expect(garbage_collections.map((gc) => gc.status)).toEqual(['succeeded']);

    expect(await api.registryDelete({ Registry: 'lib-reg' })).toEqual({ ok: true });
    expect((await api.registryList({})).registries).toEqual([]);
  });

  it('cancels a collection; waiting for a cancelled one fails at once', async () => {
    const api = registryApi(connection.client);
    await api.registryCreate({ Name: 'gc-reg', SubscriptionTier: 'starter' });
    const { garbage_collection: gc } = await api.registryGarbageCollectionStart({
      Registry: 'gc-reg',
      Type: 'untagged manifests and unreferenced blobs',
    });
    const cancelled = await api.registryGarbageCollectionCancel({ Registry: 'gc-reg', UUID: gc.uuid });
    expect(cancelled.garbage_collection.status).toBe('cancelling');
    const wait = tool('registry-garbage-collection-start').wait;
    if (!wait) throw new Error('registry-garbage-collection-start has no wait');
    await expect(
      waitAfter(wait, { Registry: 'gc-reg' }, { garbage_collection: gc }, { client: connection.client }, 5),
    ).rejects.toThrow(/registry-garbage-collection .* is cancelling, an error state/);
  });

  it('issues docker credentials for the registry host', async () => {
    const api = registryApi(connection.client);
    await api.registryCreate({ Name: 'cred-reg', SubscriptionTier: 'starter' });
    const config = await api.registryDockerConfig({ ReadWrite: true, ExpirySeconds: 600 });
    const auth = config.auths['registry.digitalocean.com']?.auth ?? '';
    const [user, token] = Buffer.from(auth, 'base64').toString().split(':');
    expect(user).toMatch(/^dop_v1_[0-9a-f]{64}$/);
    expect(token).toBe(user);
  });
});
