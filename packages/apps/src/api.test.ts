/**
 * The apps family as a library: the requests its tools send (checked against the API
 * description), specs and arguments refused before any request with the path of the bad field,
 * and the typed API against the sandbox: an app created from a spec, deployed, rolled back and
 * deleted, its deployments waited for.
 */
import {
  type AnyTool,
  InputError,
  parseArgs,
  runTool,
  type ToolClock,
  WaitFailedError,
} from '@cloudcall/core';
import { buildRequest } from '@cloudcall/core/internal';
import { connectSandbox, type SandboxConnection } from '@cloudcall/sandbox';
import { unrefusedPathValues } from '@cloudcall/testing';
import { waitAfter } from '@cloudcall/wait';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The description subset is a workspace tool; imported by path so the published package needs nothing.
import {
  assertValidResponse,
  noResponseBody,
  operation,
  validateRequest,
} from '../../../tooling/openapi/index.js';
import { AppSpec, appsApi, appsFamily, appsTools } from './index.js';

const tool = (name: string) => appsTools.find((t) => t.name === name) as AnyTool;
const request = (name: string, args: Record<string, unknown>) =>
  buildRequest(tool(name).request as never, parseArgs(tool(name), args) as Record<string, unknown>);

const APP = '4f6c71e2-1e90-4762-9fee-6cc4a0a9f2cf';
const DEPLOYMENT = '3aa4d20e-5527-4c75-8b4f-9c1cb1b3e7a1';
const ALERT = '5b5d1f1a-6f0a-4f38-9d2c-2f5e4a8a7c11';
const SPEC = {
  name: 'shop',
  region: 'ams',
  services: [{ name: 'web', github: { repo: 'acme/shop', branch: 'main' }, http_port: 8080 }],
};

let connection: SandboxConnection;
beforeAll(async () => {
  connection = await connectSandbox();
});
afterAll(async () => {
  await connection.close();
});

/** A clock whose sleeps return at once, moving itself and the sandbox clock forward instead. */
function virtualClock(): ToolClock {
  let now = Date.now();
  return {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
      await connection.sandbox.advanceClock(ms);
    },
  };
}

/** Each tool, valid arguments, and the API operation it calls. */
const cases: [tool: string, args: Record<string, unknown>, operationId: string][] = [
  ['app-create', { Spec: SPEC }, 'apps_create'],
  ['app-list', {}, 'apps_list'],
  ['app-get', { ID: APP }, 'apps_get'],
  ['app-update', { ID: APP, Spec: SPEC }, 'apps_update'],
  ['app-delete', { ID: APP }, 'apps_delete'],
  ['app-validate-spec', { Spec: SPEC }, 'apps_validate_appSpec'],
  ['app-create-deployment', { AppID: APP }, 'apps_create_deployment'],
  ['app-list-deployments', { AppID: APP }, 'apps_list_deployments'],
  ['app-get-deployment', { AppID: APP, DeploymentID: DEPLOYMENT }, 'apps_get_deployment'],
  ['app-cancel-deployment', { AppID: APP, DeploymentID: DEPLOYMENT }, 'apps_cancel_deployment'],
  ['app-restart', { AppID: APP }, 'apps_restart'],
  ['app-validate-rollback', { AppID: APP, DeploymentID: DEPLOYMENT }, 'apps_validate_rollback'],
  ['app-rollback', { AppID: APP, DeploymentID: DEPLOYMENT }, 'apps_create_rollback'],
  ['app-commit-rollback', { AppID: APP }, 'apps_commit_rollback'],
  ['app-revert-rollback', { AppID: APP }, 'apps_revert_rollback'],
  ['app-list-alerts', { AppID: APP }, 'apps_list_alerts'],
  ['app-update-alert-destinations', { AppID: APP, AlertID: ALERT }, 'apps_assign_alertDestinations'],
  ['app-list-instance-sizes', {}, 'apps_list_instanceSizes'],
  ['app-get-instance-size', { Slug: 'apps-s-1vcpu-1gb' }, 'apps_get_instanceSize'],
  ['app-list-regions', {}, 'apps_list_regions'],
];
const template = (path: string) => path.replace(/\{\w+\}/g, '{}');

/** Runs a tool against a client that records each request instead of sending it. */
async function sent(name: string, args: Record<string, unknown>) {
  const requests: { method: string; path: string; query?: unknown; noResponseBody?: boolean }[] = [];
  const client = {
    request: async (options: (typeof requests)[number]) => void requests.push(options),
    forCall: () => client,
  };
  await runTool(tool(name), args, { client: client as never });
  return requests;
}

describe('requests on the wire', () => {
  it('covers every tool but the logs one (below), each offered on request only', () => {
    expect([...cases.map(([name]) => name), 'app-get-logs'].sort()).toEqual(
      appsTools.map((t) => t.name).sort(),
    );
    expect(appsFamily.onRequest).toBe(true);
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

  it('app-get-logs calls the operation for what it names: app, deployment, component or both', async () => {
    const calls: [Record<string, unknown>, string][] = [
      [{ AppID: APP }, 'apps_get_logs_active_deployment_aggregate'],
      [{ AppID: APP, Component: 'web' }, 'apps_get_logs_active_deployment'],
      [{ AppID: APP, DeploymentID: DEPLOYMENT }, 'apps_get_logs_aggregate'],
      [{ AppID: APP, DeploymentID: DEPLOYMENT, Component: 'web' }, 'apps_get_logs'],
    ];
    for (const [args, operationId] of calls) {
      const [sentRequest] = await sent('app-get-logs', { ...args, Type: 'build' });
      const expected = operation(operationId);
      expect(sentRequest?.path, operationId).toMatch(
        new RegExp(`^${expected.path.replace(/\{\w+\}/g, '[^/]+')}$`),
      );
      // The CLI's --type build is the platform's BUILD.
      expect(sentRequest?.query, operationId).toEqual({ type: 'BUILD' });
    }
    expect((await sent('app-get-logs', { AppID: APP }))[0]?.query).toEqual({ type: 'RUN' });
  });

  it('app-create and app-update send the spec as given, valid for the description', () => {
    const create = request('app-create', { Spec: SPEC, ProjectID: DEPLOYMENT });
    expect(create.body).toEqual({ spec: SPEC, project_id: DEPLOYMENT });
    expect(validateRequest('apps_create', create.body).valid).toBe(true);
    const update = request('app-update', { ID: APP, Spec: SPEC, RebuildAll: true });
    expect(update.body).toEqual({ spec: SPEC, update_all_source_versions: true });
    expect(validateRequest('apps_update', update.body).valid).toBe(true);
    // Fields the schema does not name are the platform's to check: they are sent as they are.
    const more = { ...SPEC, maintenance: { enabled: true }, features: ['buildpack-stack=ubuntu-22'] };
    expect(request('app-create', { Spec: more }).body).toEqual({ spec: more });
  });

  it('alert destinations and rollbacks send their fields', () => {
    const destinations = request('app-update-alert-destinations', {
      AppID: APP,
      AlertID: ALERT,
      Emails: ['ops@example.com'],
      SlackWebhooks: [{ url: 'https://hooks.slack.com/services/T/B/x', channel: 'ops' }],
    });
    expect(destinations.body).toEqual({
      emails: ['ops@example.com'],
      slack_webhooks: [{ url: 'https://hooks.slack.com/services/T/B/x', channel: 'ops' }],
    });
    expect(validateRequest('apps_assign_alertDestinations', destinations.body).valid).toBe(true);
    const rollback = request('app-rollback', { AppID: APP, DeploymentID: DEPLOYMENT, SkipPin: true });
    expect(rollback.body).toEqual({ deployment_id: DEPLOYMENT, skip_pin: true });
    expect(validateRequest('apps_create_rollback', rollback.body).valid).toBe(true);
  });
});

describe('specs and arguments are checked before any request', () => {
  /** The InputError's issues for a spec, as `argument: message`. */
  const refusal = (spec: unknown) => {
    try {
      parseArgs(tool('app-create'), { Spec: spec });
    } catch (error) {
      expect(error).toBeInstanceOf(InputError);
      return (error as InputError).issues.map((issue) => `${issue.argument}: ${issue.message}`);
    }
    throw new Error(`accepted ${JSON.stringify(spec)}`);
  };

  it('names the path of the bad field and what it takes', () => {
    expect(refusal({ ...SPEC, name: 'Shop!' })).toEqual([
      expect.stringMatching(/^Spec\.name: the app name must be 2 to 32 lowercase letters/),
    ]);
    expect(refusal({ ...SPEC, services: [{ ...SPEC.services[0], instance_count: 0 }] })).toEqual([
      expect.stringMatching(/^Spec\.services\.0\.instance_count: Too small/),
    ]);
    expect(refusal({ ...SPEC, services: [{ name: 'web' }] })).toEqual([
      expect.stringMatching(/^Spec\.services\.0: has no source: give one of github, gitlab/),
    ]);
    expect(
      refusal({
        ...SPEC,
        services: [{ ...SPEC.services[0], image: { registry_type: 'DOCR', repository: 'shop' } }],
      }),
    ).toEqual([expect.stringMatching(/^Spec\.services\.0: has more than one source \(github, image\)/)]);
    expect(refusal({ ...SPEC, services: [{ ...SPEC.services[0], envs: [{ key: '1X' }] }] })).toEqual([
      expect.stringMatching(/^Spec\.services\.0\.envs\.0\.key: a variable name is letters/),
    ]);
    expect(refusal({ name: 'shop' })).toEqual([
      expect.stringMatching(/^Spec: an app needs at least one component/),
    ]);
    expect(refusal({ ...SPEC, workers: [{ name: 'web', github: { repo: 'acme/shop' } }] })).toEqual([
      expect.stringMatching(/^Spec\.workers\.0\.name: web is also the name of services\.0/),
    ]);
    expect(
      refusal({
        ...SPEC,
        static_sites: [{ name: 'site', image: { registry_type: 'DOCR', repository: 'x' } }],
      }),
    ).toEqual([expect.stringMatching(/^Spec\.static_sites\.0\.image: a static site is built from source/)]);
    expect(refusal({ ...SPEC, region: 'nyc3' })).toEqual([
      expect.stringMatching(/^Spec\.region: an App Platform region is three letters/),
    ]);
    expect(refusal({ ...SPEC, alerts: [{ rule: 'CPU_HOT' }] })).toEqual([
      expect.stringMatching(/^Spec\.alerts\.0\.rule: /),
    ]);
    expect(AppSpec.safeParse(SPEC).success).toBe(true);
  });

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
      const logs = await runTool(
        tool('app-get-logs'),
        { AppID: APP, Component: '../x' },
        { client: sandbox.client },
      ).catch((e: unknown) => e);
      expect(logs).toBeInstanceOf(InputError);
      expect(seen).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});

describe('appsApi against the sandbox', () => {
  it('validates, creates, deploys (waited for), reads, updates and deletes an app', async () => {
    const apps = appsApi(connection.client);
    const proposal = await apps.appValidateSpec({ Spec: SPEC });
    expect(proposal).toMatchObject({ app_name_available: true });
    const { app } = await apps.appCreate({ Spec: SPEC });
    assertValidResponse('apps_create', 200, { app });
    expect(app.spec.name).toBe('shop');

    // The deployment the create started, waited for on the sandbox's clock.
    const createTool = tool('app-create');
    const clock = virtualClock();
    const progress: string[] = [];
    const ready = (await waitAfter(
      createTool.wait as never,
      { Spec: SPEC },
      { app },
      { client: connection.client, clock, progress: (update) => progress.push(update.message) },
      60,
    )) as { deployment: { phase: string } };
    expect(ready.deployment.phase).toBe('ACTIVE');
    // The deployment's phase when first read: PENDING_BUILD for the sandbox's first second (real
    // time here), a later one on a machine too busy to read it that soon.
    expect(progress[0]).toMatch(
      /^app shop deployment [0-9a-f]{8}: (PENDING_BUILD|BUILDING|PENDING_DEPLOY|DEPLOYING) → ACTIVE/,
    );

    const got = await apps.appGet({ ID: app.id });
    expect(got.app.active_deployment?.phase).toBe('ACTIVE');
    expect(got.app.default_ingress).toMatch(/^https:\/\/shop-[a-z]{5}\.ondigitalocean\.app$/);
    expect((await apps.appList({})).apps.map((a) => a.id)).toEqual([app.id]);

    const logs = await apps.appGetLogs({ AppID: app.id, Type: 'RUN' });
    expect(logs.live_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sandbox\/apps\//);

    const updated = await apps.appUpdate({
      ID: app.id,
      Spec: {
        ...SPEC,
        services: [
          {
            name: 'web',
            github: { repo: 'acme/shop' },
            instance_count: 2,
            instance_size_slug: 'apps-s-1vcpu-1gb',
          },
        ],
      },
    });
    expect(updated.app.spec.services?.[0]?.instance_count).toBe(2);
    const { deployments } = await apps.appListDeployments({ AppID: app.id });
    expect(deployments.map((d) => d.cause)).toEqual(['app spec updated', 'app created']);

    const sizes = await apps.appListInstanceSizes({});
    expect(sizes.instance_sizes.map((s) => s.slug)).toContain('apps-s-1vcpu-1gb');
    expect((await apps.appListRegions({})).regions.map((r) => r.slug)).toContain('ams');

    await expect(apps.appDelete({ ID: app.id })).resolves.toEqual({ id: app.id });
    await expect(apps.appGet({ ID: app.id })).rejects.toMatchObject({ status: 404 });
  });

  it('a canceled deployment ends its wait with its phase; a rollback pins the app until committed', async () => {
    const apps = appsApi(connection.client);
    const clock = virtualClock();
    const { app } = await apps.appCreate({ Spec: { ...SPEC, name: 'roll' } });
    await connection.sandbox.advanceClock(10_000);
    const first = (await apps.appGet({ ID: app.id })).app.active_deployment?.id as string;
    const { deployment } = await apps.appCreateDeployment({ AppID: app.id, ForceBuild: true });
    await apps.appCancelDeployment({ AppID: app.id, DeploymentID: deployment.id });
    const error = await waitAfter(
      tool('app-create-deployment').wait as never,
      { AppID: app.id },
      { deployment },
      { client: connection.client, clock },
      60,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitFailedError);
    expect((error as Error).message).toMatch(
      /^app roll deployment [0-9a-f]{8} \(app-deployment .+\) is CANCELED, an error state: it will never be ACTIVE/,
    );

    await apps.appCreateDeployment({ AppID: app.id });
    await connection.sandbox.advanceClock(10_000);
    expect(await apps.appValidateRollback({ AppID: app.id, DeploymentID: first })).toMatchObject({
      valid: true,
    });
    const rollback = await apps.appRollback({ AppID: app.id, DeploymentID: first });
    expect(rollback.deployment.cause).toBe(`manual rollback to ${first}`);
    await expect(apps.appCreateDeployment({ AppID: app.id })).rejects.toMatchObject({ status: 400 });
    await expect(apps.appCommitRollback({ AppID: app.id })).resolves.toEqual({ ok: true });
    const alerts = await apps.appListAlerts({ AppID: app.id });
    expect(alerts.alerts).toEqual([]);
    await apps.appDelete({ ID: app.id });
  });
});
