/**
 * The container registry through an MCP client (in process, over the SDK's in-memory transport)
 * against the sandbox: the family is offered with `--families registry` and not by default; a
 * registry is created, images pushed to it as docker would, its repositories, tags and manifests
 * read, a tag and a manifest deleted, a garbage collection started and waited for (the `wait`
 * tool, naming the registry in its progress), the tier changed, docker credentials issued with
 * the token hidden, and the guard holds: a protected registry's delete and its tags' are refused
 * with nothing sent, and a destructive call is confirmed by typing the registry's name.
 */
import type { World } from '@cloudcall/sandbox';
import { pushImage } from '@cloudcall/sandbox/registry';
import { type ClientCapabilities, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { call, hintsOf, okCall } from './testing/client.js';
import { type InProcessOptions, type InProcessServer, inProcessServer } from './testing/in-process.js';

// biome-ignore lint/suspicious/noExplicitAny: tool results are checked field by field.
type Json = any;

let servers: InProcessServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function start(options: InProcessOptions = {}) {
  const server = await inProcessServer({ families: 'account,registry', ...options });
  servers.push(server);
  const ok = (name: string, args: Record<string, unknown> = {}): Promise<Json> =>
    okCall(server.client, name, args);
  const sandbox = server.sandbox;
  if (!sandbox) throw new Error('the server runs without its sandbox');
  /** Pushes an image as `docker push` would, at the sandbox's time. */
  // Each push a millisecond at least after the one before: lists of tags are newest first.
  let pushedAt = 0;
  const push = (registry: string, repository: string, tag: string) =>
    sandbox.store.write((world: World) => {
      pushedAt = Math.max(Date.now() + world.clockOffsetMs, pushedAt + 1);
      return pushImage(world, registry, repository, tag, pushedAt);
    });
  /** How many requests reached the sandbox that changed something. */
  const registries = () => sandbox.store.read((world: World) => world.containerRegistries.map((r) => r.name));
  return { server, ok, push, sandbox, registries };
}

describe('the registry family over MCP', () => {
  it('is listed with --families registry (annotations exact), not by default', async () => {
    const { server } = await start();
    const { tools } = await server.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of [
      'registry-delete',
      'registry-repository-delete-tag',
      'registry-repository-delete-manifest',
    ]) {
      expect(hintsOf(byName.get(name) ?? {}), name).toMatchObject({
        destructiveHint: true,
        idempotentHint: true,
      });
    }
    expect(hintsOf(byName.get('registry-garbage-collection-start') ?? {})).toMatchObject({
      destructiveHint: true,
      idempotentHint: false,
    });
    for (const name of ['registry-create', 'registry-docker-config', 'registry-subscription-update']) {
      expect(hintsOf(byName.get(name) ?? {}), name).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
      });
    }
    for (const name of ['registry-get', 'registry-repository-list-v2', 'registry-garbage-collection-list']) {
      expect(hintsOf(byName.get(name) ?? {}).readOnlyHint, name).toBe(true);
    }
    const plain = await inProcessServer({});
    servers.push(plain);
    const listed = (await plain.client.listTools()).tools.map((t) => t.name);
    expect(listed).toContain('vm-list');
    expect(listed.filter((name) => name.startsWith('registry-'))).toEqual([]);
  });

  it('creates, pushes, reads, deletes a tag and a manifest, collects with wait, changes tier, deletes', async () => {
    const { server, ok, push, sandbox } = await start();
    const { registry } = await ok('registry-create', {
      Name: 'mcp-reg',
      SubscriptionTier: 'basic',
      Region: 'ams3',
    });
    expect(registry).toMatchObject({ name: 'mcp-reg', region: 'ams3' });
    expect((await ok('registry-get', { Registry: 'mcp-reg' })).registry.name).toBe('mcp-reg');
    const old = await push('mcp-reg', 'web', 'v1');
    await push('mcp-reg', 'web', 'v2');
    const listed = await ok('registry-repository-list-v2', { Registry: 'mcp-reg' });
    expect(listed.repositories).toMatchObject([{ name: 'web', tag_count: 2, manifest_count: 2 }]);
    const { tags } = await ok('registry-repository-list-tags', { Registry: 'mcp-reg', Repository: 'web' });
    expect(tags.map((t: Json) => t.tag)).toEqual(['v2', 'v1']);

    expect(
      await ok('registry-repository-delete-tag', { Registry: 'mcp-reg', Repository: 'web', Tag: 'v1' }),
    ).toEqual({ ok: true });
    await ok('registry-repository-delete-manifest', {
      Registry: 'mcp-reg',
      Repository: 'web',
      Digest: old.digest,
    });
    const { manifests } = await ok('registry-repository-list-manifests', {
      Registry: 'mcp-reg',
      Repository: 'web',
    });
    expect(manifests.map((m: Json) => m.tags)).toEqual([['v2']]);

    const started = await ok('registry-garbage-collection-start', { Registry: 'mcp-reg' });
    const uuid = started.garbage_collection.uuid;
    expect(started.garbage_collection.status).toBe('requested');
    expect(
      (await ok('registry-garbage-collection-get-active', { Registry: 'mcp-reg' })).garbage_collection.uuid,
    ).toBe(uuid);
    // The wait, with progress: it names the registry; the sandbox's time moves once it has.
    const progress: string[] = [];
    let reported: () => void = () => {};
    const firstReport = new Promise<void>((resolve) => {
      reported = resolve;
    });
    const waiting = server.client.callTool(
      { name: 'wait', arguments: { Kind: 'registry-garbage-collection', ID: uuid, Name: 'mcp-reg' } },
      undefined,
      {
        onprogress: (update) => {
          progress.push(update.message ?? '');
          reported();
        },
      },
    );
    await firstReport;
    expect(progress[0]).toMatch(/^registry-garbage-collection mcp-reg: requested → succeeded/);
    await sandbox.advanceClock(10_000);
    const waited = (await waiting) as { content: { type: string; text: string }[]; isError?: boolean };
    expect(waited.isError, waited.content[0]?.text).toBeFalsy();
    expect(JSON.parse(waited.content[0]?.text ?? '{}').garbage_collection).toMatchObject({
      uuid,
      status: 'succeeded',
    });
    const collections = await ok('registry-garbage-collection-list', { Registry: 'mcp-reg' });
    expect(collections.garbage_collections.map((gc: Json) => gc.status)).toEqual(['succeeded']);

    const changed = await ok('registry-subscription-update', { Tier: 'professional' });
    expect(changed.subscription.tier.slug).toBe('professional');
    expect((await ok('registry-subscription-get')).subscription.tier.slug).toBe('professional');
    const { options } = await ok('registry-list-options');
    expect(options.subscription_tiers.map((t: Json) => t.slug)).toEqual(['starter', 'basic', 'professional']);

    expect(await ok('registry-delete', { Registry: 'mcp-reg' })).toEqual({ ok: true });
    expect((await ok('registry-list')).registries).toEqual([]);
  });

  it('hides the docker token unless secrets are shown', async () => {
    const hidden = await start();
    await hidden.ok('registry-create', { Name: 'cred-reg', SubscriptionTier: 'starter' });
    const masked = await hidden.ok('registry-docker-config', { ReadWrite: true });
    expect(masked.auths['registry.digitalocean.com'].auth).toMatch(/^\[hidden/);
    const shown = await start({ showSecrets: true });
    await shown.ok('registry-create', { Name: 'cred-reg', SubscriptionTier: 'starter' });
    const config = await shown.ok('registry-docker-config', { ExpirySeconds: 600 });
    expect(Buffer.from(config.auths['registry.digitalocean.com'].auth, 'base64').toString()).toMatch(
      /^dop_v1_[0-9a-f]{64}:dop_v1_[0-9a-f]{64}$/,
    );
  });

  it('refuses to change a protected registry, with nothing sent: delete, a tag, a collection', async () => {
    const { server, ok, push, sandbox, registries } = await start({ protect: ['name:keep-reg'] });
    await ok('registry-create', { Name: 'keep-reg', SubscriptionTier: 'basic' });
    await push('keep-reg', 'web', 'v1');
    const before = await sandbox.store.read((world: World) => structuredClone(world.registryManifests));
    for (const [name, args] of [
      ['registry-delete', { Registry: 'keep-reg' }],
      ['registry-repository-delete-tag', { Registry: 'keep-reg', Repository: 'web', Tag: 'v1' }],
      ['registry-garbage-collection-start', { Registry: 'keep-reg' }],
    ] as const) {
      const result = await call(server.client, name, args);
      expect(result.isError, `${name}: ${result.text}`).toBe(true);
      expect(result.text).toContain('is protected by rule name:keep-reg');
    }
    expect(await registries()).toEqual(['keep-reg']);
    expect(await sandbox.store.read((world: World) => world.registryManifests)).toEqual(before);
    expect(await sandbox.store.read((world: World) => world.registryGarbageCollections)).toEqual([]);
  });

  it('takes repositories named with "/" and protects them by that name, over api-call too', async () => {
    const { server, ok, push, sandbox } = await start({
      protect: ['name:team/api'],
      families: 'account,registry,api',
    });
    await ok('registry-create', { Name: 'team-reg', SubscriptionTier: 'basic' });
    await push('team-reg', 'team/api', 'v1');
    await push('team-reg', 'api', 'v1');
    const { tags } = await ok('registry-repository-list-tags', {
      Registry: 'team-reg',
      Repository: 'team/api',
    });
    expect(tags.map((t: Json) => `${t.repository}:${t.tag}`)).toEqual(['team/api:v1']);
    const before = await sandbox.store.read((world: World) => structuredClone(world.registryManifests));
    for (const [name, args] of [
      ['registry-repository-delete-tag', { Registry: 'team-reg', Repository: 'team/api', Tag: 'v1' }],
      ['api-call', { Method: 'DELETE', Path: '/v2/registries/team-reg/repositories/team%2Fapi/tags/v1' }],
    ] as const) {
      const result = await call(server.client, name, args);
      expect(result.isError, `${name}: ${result.text}`).toBe(true);
      expect(result.text).toContain('repository team/api is protected by rule name:team/api');
    }
    expect(await sandbox.store.read((world: World) => world.registryManifests)).toEqual(before);
    // Not that repository: `api` is another.
    expect(
      await ok('registry-repository-delete-tag', { Registry: 'team-reg', Repository: 'api', Tag: 'v1' }),
    ).toEqual({
      ok: true,
    });
    const bad = await call(server.client, 'registry-repository-list-tags', {
      Registry: 'team-reg',
      Repository: 'team/../api',
    });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('Repository');
  });

  it('asks before deleting a registry: typing its name runs it, anything else sends nothing', async () => {
    const capabilities: ClientCapabilities = { elicitation: { form: {} } };
    const { server, ok, registries } = await start({ client: { capabilities } });
    const answers = ['not-it', 'ask-reg'];
    const asked: string[] = [];
    server.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: answers.shift() ?? '' } };
    });
    await ok('registry-create', { Name: 'ask-reg', SubscriptionTier: 'starter' });
    const declined = await call(server.client, 'registry-delete', { Registry: 'ask-reg' });
    expect(declined.isError).toBe(true);
    expect(declined.text).toContain('registry-delete was not confirmed');
    expect(await registries()).toEqual(['ask-reg']);
    expect(await ok('registry-delete', { Registry: 'ask-reg' })).toEqual({ ok: true });
    expect(asked).toHaveLength(2);
    expect(asked[1]).toMatch(/\(registry-delete\): .*ask-reg.*To run it, type ask-reg\.$/);
    expect(await registries()).toEqual([]);
  });

  it('refuses bad arguments before any request', async () => {
    const { server, registries } = await start();
    const result = await call(server.client, 'registry-create', {
      Name: 'Bad_Name',
      SubscriptionTier: 'basic',
    });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('Name');
    expect(result.text).toContain('lowercase letters, digits and "-"');
    expect(await registries()).toEqual([]);
  });
});
