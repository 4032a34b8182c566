/**
 * App Platform through a real MCP client, in process over the SDK's in-memory transport, against
 * the built-in sandbox: an app created from a spec (checked first, naming the bad field), its
 * deployment waited for with the app named in the progress, read, changed, rolled back and
 * deleted; a protected app refused with nothing sent, and deleting one confirmed by the person
 * (elicitation). The family is offered on request only: not in the default listing.
 */
import type { Sandbox } from '@cloudcall/sandbox';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { call, hintsOf } from './testing/client.js';
import { type InProcessServer, inProcessServer } from './testing/in-process.js';

// biome-ignore lint/suspicious/noExplicitAny: tool results are checked field by field.
type Json = any;

const SPEC = {
  name: 'shop',
  region: 'ams',
  services: [{ name: 'web', github: { repo: 'acme/shop', branch: 'main' }, http_port: 8080 }],
};

let servers: InProcessServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function start(options: Parameters<typeof inProcessServer>[0] = {}) {
  const server = await inProcessServer({ families: 'account,apps', ...options });
  servers.push(server);
  const client = server.client;
  const sandbox = server.sandbox as Sandbox;
  const ok = async (name: string, args: Record<string, unknown> = {}): Promise<Json> => {
    const result = await call(client, name, args);
    expect(result.isError, `${name}: ${result.text}`).toBe(false);
    return result.json;
  };
  return { server, client, sandbox, ok };
}

/** The whole sandbox state, to see that a refused call changed nothing. */
const stateOf = (sandbox: Sandbox) => sandbox.store.read((world) => JSON.stringify(world));

describe('the apps family over MCP', () => {
  it('is offered on request: not listed by default, listed with --families apps, annotated by rule', async () => {
    const byDefault = await inProcessServer();
    servers.push(byDefault);
    const names = (await byDefault.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('vm-create');
    expect(names.filter((name) => name.startsWith('app-'))).toEqual([]);

    const { client } = await start({ families: 'apps' });
    const byName = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual([
      'app-cancel-deployment',
      'app-commit-rollback',
      'app-create',
      'app-create-deployment',
      'app-delete',
      'app-get',
      'app-get-deployment',
      'app-get-instance-size',
      'app-get-logs',
      'app-list',
      'app-list-alerts',
      'app-list-deployments',
      'app-list-instance-sizes',
      'app-list-regions',
      'app-restart',
      'app-revert-rollback',
      'app-rollback',
      'app-update',
      'app-update-alert-destinations',
      'app-validate-rollback',
      'app-validate-spec',
    ]);
    expect(hintsOf(byName.get('app-delete') ?? {})).toMatchObject({
      destructiveHint: true,
      idempotentHint: true,
    });
    // An update replaces the whole spec: components left out are removed.
    expect(hintsOf(byName.get('app-update') ?? {}).destructiveHint).toBe(true);
    for (const name of ['app-create', 'app-create-deployment', 'app-rollback']) {
      expect(hintsOf(byName.get(name) ?? {}).destructiveHint, name).toBe(false);
    }
    for (const name of ['app-list', 'app-get', 'app-get-logs', 'app-list-deployments', 'app-list-regions']) {
      expect(hintsOf(byName.get(name) ?? {}).readOnlyHint, name).toBe(true);
    }
  });

  it('answers where the logs are, not their text: an archive is read at its URL, without the API token', async () => {
    const { ok, sandbox } = await start();
    const { app } = await ok('app-create', { Spec: SPEC });
    await sandbox.advanceClock(20_000);
    const deploy = await ok('app-get-logs', { AppID: app.id, Type: 'deploy' });
    expect(Object.keys(deploy)).toEqual(['historic_urls']);
    const [url = ''] = deploy.historic_urls;
    expect(url.startsWith(`${sandbox.url}/`)).toBe(true);
    const file = await fetch(url);
    expect(file.status).toBe(200);
    expect(
      (await file.text())
        .trimEnd()
        .split('\n')
        .map((line) => line.replace(/^web \S+ /, '')),
    ).toEqual([
      '[deploy] Pulling the image for web',
      '[deploy] Starting 1 instance',
      '[deploy] Health checks passing',
      '[deploy] Deployed',
    ]);
    // The run, live: a WebSocket URL of its own token, open while the deployment runs when followed.
    const run = await ok('app-get-logs', { AppID: app.id, Component: 'web', Follow: true });
    expect(run.live_url).toMatch(/\/live\?type=RUN&component=web&follow=true&token=[0-9a-f]{32}$/);
    expect((await fetch(run.live_url)).status).toBe(426);
  });

  it('creates from a spec, waits for the deployment by name, reads, updates, rolls back, deletes', async () => {
    const { client, sandbox, ok } = await start({ confirm: 'never' });
    const created = (await client.callTool({ name: 'app-create', arguments: { Spec: SPEC } })) as {
      content: { text: string }[];
      structuredContent: Json;
    };
    const { app } = created.structuredContent;
    expect(app.spec.name).toBe('shop');
    const note = created.content[1]?.text ?? '';
    const waitArgs = JSON.parse(/call wait with (\{.*\})\.$/.exec(note)?.[1] ?? 'null');
    expect(waitArgs).toEqual({
      Kind: 'app-deployment',
      ID: app.id,
      Name: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });

    // The wait's progress names the app; the sandbox clock moves at each report.
    const progress: string[] = [];
    const ready = (await client.callTool({ name: 'wait', arguments: waitArgs }, undefined, {
      onprogress: (update) => {
        progress.push(update.message ?? '');
        void sandbox.advanceClock(3_000);
      },
    })) as { structuredContent: Json; isError?: boolean };
    expect(ready.isError).toBeFalsy();
    expect(ready.structuredContent.deployment).toMatchObject({ id: waitArgs.Name, phase: 'ACTIVE' });
    expect(progress[0]).toMatch(/^app shop deployment [0-9a-f]{8}: PENDING_BUILD → ACTIVE \(/);

    const got = await ok('app-get', { ID: app.id });
    expect(got.app.active_deployment.id).toBe(waitArgs.Name);
    expect((await ok('app-list')).apps.map((a: Json) => a.id)).toEqual([app.id]);

    const changed = {
      ...SPEC,
      services: [{ ...SPEC.services[0], instance_count: 2, instance_size_slug: 'apps-s-1vcpu-1gb' }],
    };
    const updated = await ok('app-update', { ID: app.id, Spec: changed });
    expect(updated.app.spec.services[0].instance_count).toBe(2);
    await sandbox.advanceClock(10_000);
    const { deployments } = await ok('app-list-deployments', { AppID: app.id });
    expect(deployments.map((d: Json) => d.phase)).toEqual(['ACTIVE', 'SUPERSEDED']);

    const rollback = await ok('app-rollback', { AppID: app.id, DeploymentID: waitArgs.Name, SkipPin: true });
    expect(rollback.deployment.cause).toBe(`manual rollback to ${waitArgs.Name}`);
    await sandbox.advanceClock(10_000);
    expect((await ok('app-get', { ID: app.id })).app.spec.services[0].instance_count).toBeUndefined();

    expect(await ok('app-delete', { ID: app.id })).toEqual({ id: app.id });
    expect((await call(client, 'app-get', { ID: app.id })).text).toMatch(/404/);
  });

  it('refuses a bad spec before anything is sent, naming the field', async () => {
    const { client, sandbox } = await start();
    const before = await stateOf(sandbox);
    const bad = { ...SPEC, services: [{ ...SPEC.services[0], instance_count: 0, envs: [{ key: 'A-B' }] }] };
    const result = await call(client, 'app-create', { Spec: bad });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/Spec\.services\.0\.instance_count: Too small/);
    expect(result.text).toMatch(/Spec\.services\.0\.envs\.0\.key: a variable name is letters/);
    expect(await stateOf(sandbox)).toBe(before);
  });

  it('a protected app: update and delete refused, nothing sent', async () => {
    const { client, sandbox, ok } = await start({ protect: ['name:keep-me'], confirm: 'never' });
    const { app } = await ok('app-create', { Spec: { ...SPEC, name: 'keep-me' } });
    const before = await stateOf(sandbox);
    for (const [name, args] of [
      ['app-delete', { ID: app.id }],
      ['app-update', { ID: app.id, Spec: { ...SPEC, name: 'keep-me', region: 'fra' } }],
      ['app-create-deployment', { AppID: app.id }],
    ] as const) {
      const refused = await call(client, name, args);
      expect(refused.isError, name).toBe(true);
      expect(refused.text, name).toContain('app keep-me');
      expect(refused.text, name).toContain('is protected by rule name:keep-me');
    }
    expect(await stateOf(sandbox)).toBe(before);
  });

  it('deleting an app asks the person; a decline sends nothing, typing its name deletes it', async () => {
    let answer: ElicitResult = { action: 'decline' };
    const asked: string[] = [];
    const { client, ok } = await start({ client: { capabilities: { elicitation: { form: {} } } } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push((request.params as { message: string }).message);
      return answer;
    });
    const { app } = await ok('app-create', { Spec: { ...SPEC, name: 'ask-me' } });
    const declined = await call(client, 'app-delete', { ID: app.id });
    expect(declined.isError).toBe(true);
    expect(declined.text).toContain('app-delete was declined: nothing was sent.');
    expect(asked[0]).toMatch(
      /Delete app \(app-delete\): app ask-me \(id [0-9a-f-]{36}\)\? To run it, type ask-me\.$/,
    );
    await ok('app-get', { ID: app.id });
    answer = { action: 'accept', content: { confirm: 'ask-me' } };
    expect(await ok('app-delete', { ID: app.id })).toEqual({ id: app.id });
  });
});
