/**
 * The container registry through the CLI, in doctl's words, against its sandbox (state kept in a
 * file between commands; images pushed to it as docker would, through a second sandbox on the
 * same file): `registry create NAME --subscription-tier --region`, `registry get` (the account's
 * registry, named by no one), doctl's tables, `registry repository list-tags REPO` and
 * `delete-tag REPO TAG`, `garbage-collection start --wait` naming the registry while it waits,
 * `registry login` writing docker's config without printing the token, and `--protect` refusing
 * with nothing sent.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Sandbox, startSandbox, type World } from '@cloudcall/sandbox';
import { pushImage } from '@cloudcall/sandbox/registry';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cliRunner, type Json } from './testing/run.js';

const cli = cliRunner();
const { ok } = cli;
/** A second sandbox on the CLI's state file: pushes images, moves the clock. */
let helper: Sandbox;
const dockerDir = () => join(cli.home, 'docker');

beforeAll(async () => {
  await cli.stateText();
  helper = await startSandbox({ statePath: cli.statePath });
});
afterAll(async () => {
  await helper.close();
});
// Each test starts with no registry (they are the account's).
beforeEach(async () => {
  for (const { name } of (await ok('registry-list')).registries) await ok('registry-delete', name, '--force');
});

// Each push a millisecond at least after the one before: lists of tags are newest first.
let pushedAt = 0;
const push = (registry: string, repository: string, tag: string) =>
  helper.store.write((world: World) => {
    pushedAt = Math.max(Date.now() + world.clockOffsetMs, pushedAt + 1);
    return pushImage(world, registry, repository, tag, pushedAt);
  });

const table = async (...args: string[]) => {
  const run = await cli.sandbox(...args, '-o', 'table');
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  return run.stdout;
};

describe('the container registry through the CLI', () => {
  it('create, get, repositories and tags in tables, delete a tag, collect with --wait, delete', async () => {
    const created = await ok(
      'registry',
      'create',
      'cli-reg',
      '--subscription-tier',
      'basic',
      '--region',
      'sfo3',
    );
    expect(created.registry).toMatchObject({ name: 'cli-reg', region: 'sfo3' });
    // doctl's registry get names no registry: the account's.
    expect((await ok('registry', 'get')).registry.name).toBe('cli-reg');
    expect(await table('registry', 'get')).toMatch(
      /^Name\s+Endpoint\s+Region\ncli-reg\s+registry\.digitalocean\.com\/cli-reg\s+sfo3\n$/,
    );

    await push('cli-reg', 'web', 'v1');
    const second = await push('cli-reg', 'web', 'v2');
    const repositories = await table('registry', 'repository', 'list-v2');
    expect(repositories.split('\n')[0]).toMatch(
      /^Name\s+Latest Manifest\s+Latest Tag\s+Tag Count\s+Manifest Count\s+Updated At$/,
    );
    expect(repositories).toMatch(
      new RegExp(`^web\\s+${second.digest.slice(0, 40)}\\S*\\s+v2\\s+2\\s+2\\s+\\d{4}-`, 'm'),
    );
    const tags = await table('registry', 'repository', 'list-tags', 'web');
    expect(tags.split('\n')[0]).toMatch(/^Tag\s+Compressed Size\s+Updated At\s+Manifest Digest$/);
    expect(tags).toMatch(
      new RegExp(`^v2\\s+\\d+\\.\\d\\d MiB\\s+\\S+\\s+${second.digest.slice(0, 40)}\\S*$`, 'm'),
    );

    // Destructive: refused without --force when no one can be asked; then deleted (doctl's REPO TAG).
    const unconfirmed = await cli.sandbox('registry', 'repository', 'delete-tag', 'web', 'v1');
    expect(unconfirmed.code).not.toBe(0);
    expect(unconfirmed.stderr).toContain('registry-repository-delete-tag is destructive');
    expect(await ok('registry', 'repository', 'delete-tag', 'web', 'v1', '--force')).toEqual({ ok: true });
    const left = await ok('registry', 'repository', 'list-tags', 'web');
    expect(left.tags.map((t: Json) => t.tag)).toEqual(['v2']);
    const manifests = await ok('registry', 'repository', 'list-manifests', 'web');
    const untagged = manifests.manifests.find((m: Json) => m.tags.length === 0);
    expect(await ok('registry', 'repository', 'delete-manifest', 'web', untagged.digest, '--force')).toEqual({
      ok: true,
    });

    // --wait follows the collection, naming the registry; the sandbox's clock moves once it has.
    const run = cli.start(['--sandbox', 'registry', 'garbage-collection', 'start', '--force', '--wait']);
    await run.until(/: registry-garbage-collection cli-reg: requested \(/);
    await helper.advanceClock(10_000);
    const waited = await run.exit;
    expect(waited.code, waited.stderr).toBe(0);
    expect((waited.json as Json).garbage_collection).toMatchObject({
      registry_name: 'cli-reg',
      status: 'succeeded',
    });
    const collections = await table('registry', 'garbage-collection', 'list');
    expect(collections).toMatch(
      /^UUID\s+Registry Name\s+Status\s+Created At\s+Updated At\s+Blobs Deleted\s+Bytes Freed$/m,
    );
    expect(collections).toMatch(/\s+cli-reg\s+succeeded\s+/);

    expect(await ok('registry', 'delete', '--force')).toEqual({ ok: true });
    expect((await ok('registry-list')).registries).toEqual([]);
  }, 120_000);

  it('lists the tiers and regions, and changes the tier', async () => {
    const options = await ok('registry', 'options', 'subscription-tiers');
    expect(options.options.subscription_tiers.map((t: Json) => t.slug)).toEqual([
      'starter',
      'basic',
      'professional',
    ]);
    expect((await ok('registry', 'options', 'available-regions')).options.available_regions).toContain(
      'nyc3',
    );
    await ok('registry', 'create', 'tier-reg', '--subscription-tier', 'starter');
    expect((await ok('registry-subscription-update', '--tier', 'basic')).subscription.tier.slug).toBe(
      'basic',
    );
  });

  it('registry login merges the credentials into docker config, atomically, printing no token', async () => {
    await ok('registry', 'create', 'login-reg', '--subscription-tier', 'starter');
    mkdirSync(dockerDir(), { recursive: true });
    const path = join(dockerDir(), 'config.json');
    writeFileSync(
      path,
      JSON.stringify({
        auths: { 'ghcr.io': { auth: 'b3RoZXI=' } },
        credsStore: 'desktop',
        detachKeys: 'ctrl-e',
      }),
      { mode: 0o600 },
    );
    const login = cliRunner({ DOCKER_CONFIG: dockerDir(), XDG_CONFIG_HOME: join(cli.home, 'config') });
    const run = await login.run(['--sandbox', 'registry', 'login', '--expiry-seconds', '3600']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`Logged in to registry.digitalocean.com: credentials written to ${path}\n`);
    const config = JSON.parse(readFileSync(path, 'utf8'));
    expect(config).toMatchObject({
      credsStore: 'desktop',
      detachKeys: 'ctrl-e',
      auths: { 'ghcr.io': { auth: 'b3RoZXI=' } },
    });
    const token = Buffer.from(config.auths['registry.digitalocean.com'].auth, 'base64')
      .toString()
      .split(':')[0];
    expect(token).toMatch(/^dop_v1_[0-9a-f]{64}$/);
    expect(`${run.stdout}${run.stderr}`).not.toContain(token);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    // A docker config that is not JSON is left as it is.
    writeFileSync(path, 'not json');
    const refused = await login.run(['--sandbox', 'registry', 'login']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('is not a docker config');
    expect(readFileSync(path, 'utf8')).toBe('not json');

    // docker-config prints it, the token hidden unless asked for.
    const shown = await ok('registry', 'docker-config', '--read-write');
    expect(shown.auths['registry.digitalocean.com'].auth).toMatch(/^\[hidden/);
  });

  it('--protect refuses to delete a protected registry or its tags, sending nothing', async () => {
    await ok('registry', 'create', 'keep-reg', '--subscription-tier', 'basic');
    await push('keep-reg', 'web', 'v1');
    for (const args of [
      ['registry', 'delete', 'keep-reg', '--force'],
      ['registry', 'repository', 'delete-tag', 'web', 'v1', '--force'],
    ]) {
      const run = await cli.sandbox('--protect', 'name:keep-reg', ...args);
      expect(run.code, args.join(' ')).not.toBe(0);
      expect(run.stderr).toContain('is protected by rule name:keep-reg');
    }
    expect((await ok('registry', 'get', 'keep-reg')).registry.name).toBe('keep-reg');
    expect((await ok('registry', 'repository', 'list-tags', 'web')).tags.map((t: Json) => t.tag)).toEqual([
      'v1',
    ]);
  });

  it('repositories named with "/" (team/api): listed, their tags deleted, protected by that name', async () => {
    await ok('registry', 'create', 'slash-reg', '--subscription-tier', 'basic');
    await push('slash-reg', 'team/api', 'v1');
    await push('slash-reg', 'team/api', 'v2');
    await push('slash-reg', 'api', 'v1');
    const tags = await ok('registry', 'repository', 'list-tags', 'team/api');
    expect(tags.tags.map((t: Json) => `${t.repository}:${t.tag}`).sort()).toEqual([
      'team/api:v1',
      'team/api:v2',
    ]);
    for (const rule of ['name:team/api', 'name:team/*']) {
      const refused = await cli.sandbox(
        'registry',
        'repository',
        'delete-tag',
        'team/api',
        'v1',
        '--force',
        '--protect',
        rule,
      );
      expect(refused.code, rule).toBe(2);
      expect(refused.stderr).toContain(
        `registry-repository-delete-tag refused: repository team/api is protected by rule ${rule}`,
      );
    }
    // Another repository's rule: the tag goes, and only team/api's (api:v1 stays).
    expect(
      await ok('registry', 'repository', 'delete-tag', 'team/api', 'v1', '--force', '--protect', 'name:api'),
    ).toEqual({ ok: true });
    expect(
      (await ok('registry', 'repository', 'list-tags', 'team/api')).tags.map((t: Json) => t.tag),
    ).toEqual(['v2']);
    expect((await ok('registry', 'repository', 'list-tags', 'api')).tags.map((t: Json) => t.tag)).toEqual([
      'v1',
    ]);
    const bad = await cli.sandbox('registry', 'repository', 'list-tags', 'team/../api');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('<repository>: expected a repository name');
  });

  it('refuses bad input before any request', async () => {
    const run = await cli.sandbox('registry', 'create', 'Bad_Name', '--subscription-tier', 'basic');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('lowercase letters, digits and "-"');
    const none = await cli.sandbox('registry', 'get');
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('the account has no container registry');
  });
});
