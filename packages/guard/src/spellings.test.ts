/**
 * Protection by every spelling of what people name: a CDN endpoint by its id, its origin or its
 * custom domain; a Spaces key by its access key or its name; a registry repository whose name
 * holds `/` (`team/api`, sent as `team%2Fapi`) by that name. A rule in one spelling refuses a call
 * made in any other, through the named tools and the generic api-call alike, with nothing sent.
 */
import { apiCallTool } from '@cloudcall/api';
import { type AnyTool, runTool } from '@cloudcall/core';
import type { World } from '@cloudcall/sandbox';
import { pushImage } from '@cloudcall/sandbox/registry';
import { describe, expect, it } from 'vitest';
import { GuardRefusal, guardedRun, parseRule, resourceOf } from './index.js';
import { tool, useSandbox } from './testing/sandbox.js';

const sandbox = useSandbox();
const { mutating } = sandbox;

const run = (name: string, args: unknown, rules: string[]) =>
  guardedRun(
    name === 'api-call' ? (apiCallTool as AnyTool) : tool(name),
    args,
    { client: sandbox.connection.client },
    { frontEnd: 'mcp', rules: rules.map((rule) => parseRule(rule, '--protect')), unconfirmed: 'run' },
  );

/** Made as set-up: what it sends is not among what a test looks at. */
async function make<T>(name: string, args: unknown): Promise<T> {
  const made = (await runTool(tool(name), args, { client: sandbox.connection.client })) as T;
  sandbox.seen.length = 0;
  return made;
}

/** Each call refused by each rule, with the message's start, and nothing sent. */
async function refusedByEach(
  calls: readonly [string, Record<string, unknown>][],
  rules: readonly string[],
  says: string,
): Promise<void> {
  for (const [name, args] of calls) {
    for (const rule of rules) {
      const call = run(name, args, [rule]);
      await expect(call, `${name} ${rule}`).rejects.toThrow(GuardRefusal);
      await expect(call, `${name} ${rule}`).rejects.toThrow(
        `${name} refused: ${says} is protected by rule ${rule} (--protect). Nothing was sent.`,
      );
      expect(mutating(), `${name} ${rule}`).toEqual([]);
    }
  }
}

describe('protection by every spelling', () => {
  it('a CDN endpoint: by id, by origin (globs too) and by custom domain, however the call names it', async () => {
    const origin = 'guarded.nyc3.digitaloceanspaces.com';
    const { endpoint } = await make<{ endpoint: { id: string } }>('cdn-create', {
      Origin: origin,
      TTL: 3600,
    });
    // A custom domain, as a certificate would allow: set in the sandbox's world.
    await sandbox.connection.sandbox.store.write((world: World) => {
      const stored = world.cdnEndpoints.find((each) => each.id === endpoint.id);
      if (stored) stored.custom_domain = 'static.example.com';
    });
    const calls: [string, Record<string, unknown>][] = [
      ['cdn-delete', { ID: endpoint.id }],
      ['cdn-update', { ID: endpoint.id, TTL: 600 }],
      ['cdn-delete-cache', { ID: endpoint.id, Files: ['*'] }],
      ['api-call', { Method: 'DELETE', Path: `/v2/cdn/endpoints/${endpoint.id}` }],
    ];
    await refusedByEach(
      calls,
      [
        `id:${endpoint.id}`,
        `name:${origin}`,
        'name:*.nyc3.digitaloceanspaces.com',
        'name:static.example.com',
      ],
      `endpoint ${origin} (id ${endpoint.id})`,
    );
    // Another endpoint's rules let it through.
    await expect(
      run('cdn-update', { ID: endpoint.id, TTL: 600 }, ['name:other.nyc3.digitaloceanspaces.com']),
    ).resolves.toBeDefined();
  });

  it('a Spaces key: by its access key or its name', async () => {
    const { key } = await make<{ key: { access_key: string } }>('spaces-key-create', {
      Name: 'guarded-key',
      Grants: [{ Bucket: 'assets', Permission: 'read' }],
    });
    await refusedByEach(
      [
        ['spaces-key-delete', { AccessKey: key.access_key }],
        ['spaces-key-update', { AccessKey: key.access_key, Name: 'renamed' }],
        ['api-call', { Method: 'DELETE', Path: `/v2/spaces/keys/${key.access_key}` }],
      ],
      [`id:${key.access_key}`, 'name:guarded-key', 'name:guarded-*'],
      `key guarded-key (id ${key.access_key})`,
    );
  });

  it('a registry repository named with "/": by that name, sent as one segment', async () => {
    await make('registry-create', { Name: 'guard-reg', SubscriptionTier: 'basic', Region: 'nyc3' });
    const { digest } = await sandbox.connection.sandbox.store.write((world: World) =>
      pushImage(world, 'guard-reg', 'team/api', 'v1', Date.now() + world.clockOffsetMs),
    );
    const calls: [string, Record<string, unknown>][] = [
      ['registry-repository-delete-tag', { Registry: 'guard-reg', Repository: 'team/api', Tag: 'v1' }],
      ['api-call', { Method: 'DELETE', Path: '/v2/registries/guard-reg/repositories/team%2Fapi/tags/v1' }],
    ];
    await refusedByEach(calls, ['name:team/api', 'name:team/*'], 'repository team/api');
    const manifest = [
      'registry-repository-delete-manifest',
      { Registry: 'guard-reg', Repository: 'team/api', Digest: digest },
    ] as [string, Record<string, unknown>];
    await refusedByEach([manifest], ['name:team/api'], 'repository team/api');

    // Another repository's rule lets the tag go, and the request names the repository as one segment.
    await expect(run('registry-repository-delete-tag', calls[0]?.[1], ['name:team/web'])).resolves.toEqual({
      ok: true,
    });
    expect(mutating()).toEqual(['DELETE /v2/registries/guard-reg/repositories/team%2Fapi/tags/v1']);
  });

  it("takes a Spaces key's access key as its id, never a database user's (a private key there)", () => {
    expect(resourceOf({ name: 'k', access_key: 'DO00EXAMPLE', grants: [] })).toEqual({
      id: 'DO00EXAMPLE',
      name: 'k',
    });
    expect(resourceOf({ name: 'kafka-user', access_key: '-----BEGIN PRIVATE KEY-----' })).toEqual({
      name: 'kafka-user',
    });
    expect(resourceOf({ id: 'e1', origin: 'a.nyc3.digitaloceanspaces.com', custom_domain: '' })).toEqual({
      id: 'e1',
      name: 'a.nyc3.digitaloceanspaces.com',
    });
  });
});
