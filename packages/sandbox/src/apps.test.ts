/**
 * App Platform as the platform runs it: apps from a checked spec (each rule tried from the side
 * that breaks it, and a refused request changing nothing), the first deployment moving through
 * its phases on the sandbox clock while a client polls, updates and new deployments replacing the
 * live one, cancel, rollback (validate, pin, commit, revert), restart, propose, the catalogues and
 * delete. Every answer is checked against the API description (`callOperation`).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  APP_COMPONENT_INSTANCE_BASE_INSTANCE_SIZE_SLUG,
  APP_COMPONENT_INSTANCE_BASE_INSTANCE_SIZE_SLUG_2,
  APP_SPEC_REGION,
} from '@cloudcall/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from './server.js';
import { type CallOptions, callOperation, type Reply, steppingClock } from './testing/operations.js';
import type { World } from './world.js';

let sandbox: Sandbox;
const call = (operationId: string, options?: CallOptions) => callOperation(sandbox.url, operationId, options);

beforeAll(async () => {
  sandbox = await startSandbox({ now: steppingClock() });
});
afterAll(async () => {
  await sandbox.close();
});

const GITHUB = { repo: 'digitalocean/sample-golang', branch: 'main' };

/** A spec with one public service, as `doctl apps create` sends one. */
function webSpec(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    region: 'ams',
    services: [
      {
        name: 'web',
        github: GITHUB,
        instance_size_slug: 'apps-s-1vcpu-1gb',
        instance_count: 2,
        http_port: 8080,
      },
    ],
    ...extra,
  };
}

async function createApp(spec: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const created = await call('apps_create', { json: { spec, ...extra } });
  expect(created.status, created.text).toBe(200);
  return created.body.app;
}

const getApp = async (id: string) => {
  const got = await call('apps_get', { params: { id } });
  expect(got.status, got.text).toBe(200);
  return got.body.app;
};

const getDeployment = async (appId: string, deploymentId: string) =>
  (await call('apps_get_deployment', { params: { app_id: appId, deployment_id: deploymentId } })).body
    .deployment;

/** Moves the clock past any deployment's phases (8 s for one that builds). */
const settle = () => sandbox.advanceClock(10_000);

function expectError(reply: Reply, status: number, id: string, mentions: RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual({
    id,
    message: expect.stringMatching(mentions),
    request_id: expect.any(String),
  });
}

const apps = () => sandbox.store.read((w: World) => structuredClone(w.apps));

async function refusedUnchanged(reply: Promise<Reply>, status: number, id: string, mentions: RegExp) {
  const before = await apps();
  expectError(await reply, status, id, mentions);
  expect(await apps()).toEqual(before);
}

describe('catalogues', () => {
  it('lists the regions App Platform runs in, the ones a spec may name, nyc the default', async () => {
    const { body } = await call('apps_list_regions');
    expect(body.regions.map((r: { slug: string }) => r.slug).sort()).toEqual([...APP_SPEC_REGION].sort());
    expect(
      body.regions.filter((r: { default?: boolean }) => r.default).map((r: { slug: string }) => r.slug),
    ).toEqual(['nyc']);
    expect(body.regions.find((r: { slug: string }) => r.slug === 'ams')).toEqual({
      slug: 'ams',
      label: 'Amsterdam',
      flag: 'netherlands',
      continent: 'Europe',
      data_centers: ['ams3'],
    });
  });

  it('lists every instance size a spec may name, priced per month and per second, and gets one', async () => {
    const { body } = await call('apps_list_instanceSizes');
    const slugs = body.instance_sizes.map((s: { slug: string }) => s.slug);
    expect(slugs.sort()).toEqual(
      [
        ...APP_COMPONENT_INSTANCE_BASE_INSTANCE_SIZE_SLUG,
        ...APP_COMPONENT_INSTANCE_BASE_INSTANCE_SIZE_SLUG_2,
      ].sort(),
    );
    const one = await call('apps_get_instanceSize', { params: { slug: 'apps-s-1vcpu-0.5gb' } });
    expect(one.body.instance_size).toEqual({
      name: 'Shared 1VCPU 0.5GB',
      slug: 'apps-s-1vcpu-0.5gb',
      cpu_type: 'SHARED',
      cpus: '1',
      memory_bytes: '536870912',
      usd_per_month: '5.00',
      usd_per_second: '0.000002066799',
      tier_slug: 'basic',
      single_instance_only: true,
      bandwidth_allowance_gib: '50',
    });
    const legacy = await call('apps_get_instanceSize', { params: { slug: 'professional-xs' } });
    expect(legacy.body.instance_size).toMatchObject({ deprecation_intent: true, tier_slug: 'professional' });
    expectError(
      await call('apps_get_instanceSize', { params: { slug: 'apps-huge' } }),
      404,
      'not_found',
      /apps-huge/,
    );
  });
});

describe('apps', () => {
  it('creates an app whose first deployment moves through its phases while a client polls', async () => {
    const created = await createApp(webSpec('poll-app'));
    expect(created).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      spec: webSpec('poll-app'),
      region: { slug: 'ams', label: 'Amsterdam' },
      tier_slug: 'professional',
      in_progress_deployment: { phase: 'PENDING_BUILD', cause: 'app created' },
    });
    // Nothing is served before the first deployment is live.
    for (const field of ['active_deployment', 'live_url', 'default_ingress', 'live_domain']) {
      expect(created).not.toHaveProperty(field);
    }
    const first = created.in_progress_deployment;
    expect(first.progress).toMatchObject({ pending_steps: first.progress.total_steps, success_steps: 0 });
    expect(first.progress.total_steps).toBe(6);
    expect(first.services).toEqual([
      { name: 'web', source_commit_hash: expect.stringMatching(/^[0-9a-f]{40}$/) },
    ]);

    const seen: string[] = [];
    for (let i = 0; i < 12; i++) {
      const phase = (await getDeployment(created.id, first.id)).phase;
      if (seen.at(-1) !== phase) seen.push(phase);
      await sandbox.advanceClock(1_000);
    }
    expect(seen).toEqual(['PENDING_BUILD', 'BUILDING', 'PENDING_DEPLOY', 'DEPLOYING', 'ACTIVE']);

    const app = await getApp(created.id);
    expect(app).not.toHaveProperty('in_progress_deployment');
    expect(app.active_deployment).toMatchObject({ id: first.id, phase: 'ACTIVE' });
    expect(app.active_deployment.progress).toMatchObject({
      success_steps: 6,
      total_steps: 6,
      error_steps: 0,
    });
    expect(app.default_ingress).toMatch(/^https:\/\/poll-app-[a-z]{5}\.ondigitalocean\.app$/);
    expect(app.live_url).toBe(app.default_ingress);
    expect(app.live_domain).toBe(app.default_ingress.slice('https://'.length));
    // In the default project, and found by name too.
    const project = (await call('projects_get_default')).body.project;
    expect(app.project_id).toBe(project.id);
    const byName = await call('apps_get', { params: { id: '-' }, query: '?name=poll-app' });
    expect(byName.body.app.id).toBe(app.id);
  });

  it('lists apps in pages, with project ids only when asked', async () => {
    for (const n of [1, 2, 3]) await createApp(webSpec(`page-app-${n}`));
    const first = await call('apps_list', { query: '?per_page=2' });
    expect(first.body.apps).toHaveLength(2);
    expect(first.body.meta.total).toBeGreaterThanOrEqual(3);
    expect(first.body.links.pages.next).toContain('page=2');
    expect(first.body.apps[0]).not.toHaveProperty('project_id');
    const second = await call('apps_list', { query: '?per_page=2&page=2&with_projects=true' });
    expect(second.body.links.pages.prev).toContain('page=1');
    expect(second.body.apps[0].project_id).toEqual(expect.any(String));
    const ids = [...first.body.apps, ...second.body.apps].map((a: { id: string }) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('refuses a spec the platform refuses, with its first error, and creates nothing', async () => {
    await createApp(webSpec('taken-name'));
    const service = (extra: Record<string, unknown>) => ({ name: 'web', github: GITHUB, ...extra });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: 'Bad_Name' }, /field "name": app name "Bad_Name" must be 2 to 32/],
      [{ name: 'a' }, /field "name"/],
      [{ name: 'x'.repeat(33) }, /field "name"/],
      [{ name: 'ok-app', services: [] }, /at least one component/],
      [{ name: 'ok-app', region: 'nyc3' }, /field "region": App Platform does not run in "nyc3"/],
      [{ name: 'ok-app', services: [service({ name: 'Web' })] }, /field "services.name"/],
      [
        { name: 'ok-app', services: [service({ log_destinations: [{ name: 'l'.repeat(43) }] })] },
        /field "services.log_destinations.name": log destination name "l{43}" must be 2 to 42/,
      ],
      [
        { name: 'ok-app', services: [service({})], workers: [{ name: 'web', github: GITHUB }] },
        /field "workers.name": worker web has the name of the service/,
      ],
      [{ name: 'ok-app', services: [{ name: 'web' }] }, /service web has no source/],
      [
        { name: 'ok-app', services: [service({ image: { registry_type: 'DOCR', repository: 'web' } })] },
        /more than one source \(github, image\)/,
      ],
      [
        { name: 'ok-app', services: [service({ github: { branch: 'main' } })] },
        /field "services.github.repo"/,
      ],
      [
        {
          name: 'ok-app',
          static_sites: [{ name: 'site', image: { registry_type: 'DOCR', repository: 'x' } }],
        },
        /static site is built from source code/,
      ],
      [
        { name: 'ok-app', services: [service({ instance_size_slug: 'apps-huge' })] },
        /field "services.instance_size_slug": unknown instance size "apps-huge"/,
      ],
      [
        {
          name: 'ok-app',
          services: [service({ instance_size_slug: 'apps-s-1vcpu-0.5gb', instance_count: 2 })],
        },
        /runs one instance only/,
      ],
      [{ name: 'ok-app', services: [service({ instance_count: 0 })] }, /field "services.instance_count"/],
      [{ name: 'ok-app', services: [service({ http_port: 70_000 })] }, /field "services.http_port"/],
      [{ name: 'ok-app', jobs: [service({ kind: 'NIGHTLY' })] }, /field "jobs.kind": job kind "NIGHTLY"/],
      [{ name: 'ok-app', services: [service({ envs: [{ key: '1BAD' }] })] }, /field "services.envs.key"/],
      [
        { name: 'ok-app', services: [service({ alerts: [{ rule: 'DEPLOYMENT_FAILED' }] })] },
        /DEPLOYMENT_FAILED is an alert on the whole app/,
      ],
      [
        { name: 'ok-app', services: [service({})], domains: [{ domain: 'not a domain' }] },
        /field "domains.domain"/,
      ],
      [
        { name: 'ok-app', services: [service({})], ingress: { rules: [{ component: { name: 'api' } }] } },
        /field "ingress.rules.component.name": "api" is not a service/,
      ],
      [
        { name: 'ok-app', services: [service({})], databases: [{ name: 'db', engine: 'ORACLE' }] },
        /engine "ORACLE"/,
      ],
    ];
    for (const [spec, message] of cases) {
      await refusedUnchanged(call('apps_create', { json: { spec } }), 400, 'invalid_argument', message);
    }
    await refusedUnchanged(call('apps_create', { json: {} }), 400, 'invalid_argument', /spec is required/);
    await refusedUnchanged(
      call('apps_create', { json: { spec: webSpec('taken-name') } }),
      409,
      'conflict',
      /an app named taken-name already exists/,
    );
    await refusedUnchanged(
      call('apps_create', {
        json: { spec: webSpec('new-name'), project_id: '5f9b8a2e-0000-4000-8000-000000000000' },
      }),
      422,
      'unprocessable_entity',
      /project_id/,
    );
  });

  it('takes a spec of any component kind, defaults the region, encrypts secrets and assigns a project', async () => {
    const project = await call('projects_create', {
      json: { name: 'apps-home', purpose: 'Web Application' },
    });
    const app = await createApp(
      {
        name: 'kinds-app',
        envs: [
          { key: 'API_TOKEN', value: 'hunter2', type: 'SECRET' },
          { key: 'MODE', value: 'prod' },
        ],
        static_sites: [{ name: 'site', gitlab: { repo: 'acme/site', branch: 'main' } }],
        workers: [
          { name: 'queue', image: { registry_type: 'DOCKER_HUB', registry: 'library', repository: 'redis' } },
        ],
        jobs: [
          {
            name: 'migrate',
            kind: 'PRE_DEPLOY',
            git: { repo_clone_url: 'https://example.com/acme/app.git' },
          },
        ],
        functions: [{ name: 'fns', github: { repo: 'acme/fns', branch: 'main' } }],
        databases: [{ name: 'db', engine: 'PG' }],
      },
      { project_id: project.body.project.id },
    );
    expect(app.region.slug).toBe('nyc');
    expect(app.spec).not.toHaveProperty('region');
    expect(app.spec.envs[0].value).toMatch(/^EV\[1:.+:.+\]$/);
    expect(app.spec.envs[1].value).toBe('prod');
    expect(JSON.stringify(await getApp(app.id))).not.toContain('hunter2');
    expect(app.project_id).toBe(project.body.project.id);
    expect(app.tier_slug).toBe('basic');
    const first = app.in_progress_deployment;
    expect(first.workers).toEqual([{ name: 'queue' }]);
    expect(first.functions).toEqual([
      { name: 'fns', namespace: expect.stringMatching(/^fn-/), source_commit_hash: expect.any(String) },
    ]);
    // The secret sent back encrypted stays as it is.
    const updated = await call('apps_update', { params: { id: app.id }, json: { spec: app.spec } });
    expect(updated.body.app.spec.envs[0].value).toBe(app.spec.envs[0].value);
    // A worker-only app serves nothing: no ingress once live.
    const worker = await createApp({ name: 'worker-only', workers: [{ name: 'worker', github: GITHUB }] });
    await settle();
    const live = await getApp(worker.id);
    expect(live.active_deployment.phase).toBe('ACTIVE');
    expect(live).not.toHaveProperty('live_url');
    expect(live).not.toHaveProperty('default_ingress');
  });

  it('serves at its primary domain once the domain is ACTIVE, at its default ingress until then', async () => {
    const domain = { domain: 'www.example.com', type: 'PRIMARY' };
    const app = await createApp(webSpec('domain-app', { domains: [domain] }));
    expect(app.domains).toEqual([
      expect.objectContaining({ id: expect.any(String), phase: 'PENDING', spec: domain }),
    ]);
    // Live after 8 s; the certificate takes 6 s more.
    await sandbox.advanceClock(9_000);
    const live = await getApp(app.id);
    expect(live.domains[0]).toMatchObject({ id: app.domains[0].id, phase: 'CONFIGURING' });
    expect(live.live_url).toBe(live.default_ingress);
    await sandbox.advanceClock(6_000);
    const served = await getApp(app.id);
    expect(served.domains[0]).toMatchObject({ phase: 'ACTIVE', certificate_expires_at: expect.any(String) });
    expect(served.live_url).toBe('https://www.example.com');
    expect(served.live_domain).toBe('www.example.com');
    expect(served.default_ingress).toBe(live.default_ingress);
  });

  it('proposes a spec: validated, priced, the name checked against the account', async () => {
    const existing = await createApp(webSpec('proposed'));
    const taken = await call('apps_validate_appSpec', { json: { spec: webSpec('proposed') } });
    expect(taken.status, taken.text).toBe(200);
    // Two instances of a $12 size.
    expect(taken.body).toMatchObject({
      app_name_available: false,
      app_name_suggestion: 'proposed-2',
      app_is_static: false,
      app_cost: 24,
      spec: webSpec('proposed'),
    });
    const own = await call('apps_validate_appSpec', {
      json: { spec: webSpec('proposed'), app_id: existing.id },
    });
    expect(own.body.app_name_available).toBe(true);
    expect(own.body).not.toHaveProperty('app_name_suggestion');
    const site = await call('apps_validate_appSpec', {
      json: {
        spec: {
          name: 'docs-site',
          static_sites: [{ name: 'docs', github: GITHUB }],
          databases: [{ name: 'db' }],
        },
      },
    });
    expect(site.body).toMatchObject({ app_is_static: true, app_cost: 0, existing_static_apps: '0' });
    const bad = await call('apps_validate_appSpec', { json: { spec: { name: 'proposed-x' } } });
    expectError(bad, 400, 'invalid_argument', /at least one component/);
    const unknown = await call('apps_validate_appSpec', {
      json: { spec: webSpec('x-app'), app_id: '5f9b8a2e-0000-4000-8000-000000000000' },
    });
    expect(unknown.status).toBe(404);
    // Proposing created nothing.
    expect((await apps()).filter((a) => a.spec.name === 'proposed-2' || a.spec.name === 'docs-site')).toEqual(
      [],
    );
  });

  it('updates with a spec: a new deployment that supersedes the live one once it is live', async () => {
    const app = await createApp(webSpec('update-app'));
    await settle();
    const first = (await getApp(app.id)).active_deployment;
    const changed = webSpec('update-app', { region: 'ams' });
    (changed.services[0] as Record<string, unknown>).instance_count = 3;
    const updated = await call('apps_update', { params: { id: app.id }, json: { spec: changed } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.app.spec.services[0].instance_count).toBe(3);
    expect(updated.body.app.in_progress_deployment).toMatchObject({
      phase: 'PENDING_BUILD',
      cause: 'app spec updated',
    });
    // The live deployment serves until the new one is live.
    expect(updated.body.app.active_deployment).toMatchObject({ id: first.id, phase: 'ACTIVE' });
    expect(updated.body.app.active_deployment.spec.services[0].instance_count).toBe(2);
    await settle();
    const after = await getApp(app.id);
    expect(after.active_deployment.id).toBe(updated.body.app.in_progress_deployment.id);
    expect(after.active_deployment.spec.services[0].instance_count).toBe(3);
    expect((await getDeployment(app.id, first.id)).phase).toBe('SUPERSEDED');
    // Renaming to another app's name is refused; the update is refused whole.
    await createApp(webSpec('update-other'));
    await refusedUnchanged(
      call('apps_update', { params: { id: app.id }, json: { spec: webSpec('update-other') } }),
      409,
      'conflict',
      /update-other already exists/,
    );
    await refusedUnchanged(
      call('apps_update', { params: { id: app.id }, json: { spec: { name: 'update-app' } } }),
      400,
      'invalid_argument',
      /at least one component/,
    );
    // A rename keeps the default ingress.
    const renamed = await call('apps_update', {
      params: { id: app.id },
      json: { spec: webSpec('renamed-app') },
    });
    expect(renamed.body.app.default_ingress).toBe(after.default_ingress);
  });
});

describe('deployments', () => {
  it('creates, lists in pages newest first, filters by type and gets deployments', async () => {
    const app = await createApp(webSpec('deploy-list'));
    await settle();
    const forced = await call('apps_create_deployment', {
      params: { app_id: app.id },
      json: { force_build: true },
    });
    expect(forced.status, forced.text).toBe(200);
    expect(forced.body.deployment).toMatchObject({
      phase: 'PENDING_BUILD',
      cause: 'manual (forced rebuild)',
    });
    await settle();
    // Nothing changed and no rebuild forced: the previous build is reused.
    const reused = await call('apps_create_deployment', { params: { app_id: app.id }, json: {} });
    await settle();
    const done = await getDeployment(app.id, reused.body.deployment.id);
    const build = done.progress.steps.find((s: { name: string }) => s.name === 'build');
    expect(build.steps[1].steps[0]).toMatchObject({
      status: 'SUCCESS',
      reason: { code: 'PreviousBuildReused' },
    });

    const page1 = await call('apps_list_deployments', { params: { app_id: app.id }, query: '?per_page=2' });
    expect(page1.body.meta.total).toBe(3);
    expect(page1.body.deployments.map((d: { id: string }) => d.id)).toEqual([
      reused.body.deployment.id,
      forced.body.deployment.id,
    ]);
    const page2 = await call('apps_list_deployments', {
      params: { app_id: app.id },
      query: '?per_page=2&page=2',
    });
    expect(page2.body.deployments.map((d: { id: string }) => d.id)).toEqual([app.in_progress_deployment.id]);
    expect(page2.body.deployments[0].phase).toBe('SUPERSEDED');
    expect(page2.body.links.pages.first).toContain('page=1');
    const rollbacks = await call('apps_list_deployments', {
      params: { app_id: app.id },
      query: '?deployment_types=MANUAL_ROLLBACK',
    });
    expect(rollbacks.body.deployments).toEqual([]);

    expectError(
      await call('apps_get_deployment', { params: { app_id: app.id, deployment_id: 'no-such-deployment' } }),
      404,
      'not_found',
      /deployment not found/,
    );
    await refusedUnchanged(
      call('apps_create_deployment', { params: { app_id: app.id }, json: { force_build: 'yes' } }),
      400,
      'invalid_argument',
      /force_build must be a boolean/,
    );
  });

  it('cancels a deployment only while it is in progress; a newer one replaces one in progress', async () => {
    const app = await createApp(webSpec('cancel-app'));
    const first = app.in_progress_deployment;
    await sandbox.advanceClock(2_000);
    const canceled = await call('apps_cancel_deployment', {
      params: { app_id: app.id, deployment_id: first.id },
    });
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body.deployment.phase).toBe('CANCELED');
    const progress = canceled.body.deployment.progress;
    expect(progress.error_steps).toBeGreaterThan(0);
    expect(JSON.stringify(progress.steps)).toContain('DeployCanceled');
    await settle();
    // It never goes live.
    const after = await getApp(app.id);
    expect(after).not.toHaveProperty('active_deployment');
    expect(after).not.toHaveProperty('in_progress_deployment');
    expect((await getDeployment(app.id, first.id)).phase).toBe('CANCELED');
    await refusedUnchanged(
      call('apps_cancel_deployment', { params: { app_id: app.id, deployment_id: first.id } }),
      400,
      'failed_precondition',
      /is CANCELED: only a deployment in progress can be canceled/,
    );
    // A second deployment while one is in progress supersedes it at once.
    const second = (await call('apps_create_deployment', { params: { app_id: app.id }, json: {} })).body
      .deployment;
    const third = (await call('apps_create_deployment', { params: { app_id: app.id }, json: {} })).body
      .deployment;
    expect((await getDeployment(app.id, second.id)).phase).toBe('SUPERSEDED');
    await settle();
    expect((await getApp(app.id)).active_deployment.id).toBe(third.id);
    expect((await getDeployment(app.id, second.id)).phase).toBe('SUPERSEDED');
    await refusedUnchanged(
      call('apps_cancel_deployment', { params: { app_id: app.id, deployment_id: third.id } }),
      400,
      'failed_precondition',
      /is ACTIVE/,
    );
  });

  it('restarts the live deployment without a build, only once one is live', async () => {
    const app = await createApp(webSpec('restart-app', { workers: [{ name: 'jobs', github: GITHUB }] }));
    await refusedUnchanged(
      call('apps_restart', { params: { app_id: app.id }, json: {} }),
      400,
      'failed_precondition',
      /no active deployment to restart/,
    );
    await settle();
    await refusedUnchanged(
      call('apps_restart', { params: { app_id: app.id }, json: { components: ['nope'] } }),
      400,
      'invalid_argument',
      /nope is not a service or worker/,
    );
    const restarted = await call('apps_restart', {
      params: { app_id: app.id },
      json: { components: ['web'] },
    });
    expect(restarted.status, restarted.text).toBe(200);
    const deployment = restarted.body.deployment;
    expect(deployment).toMatchObject({ phase: 'PENDING_DEPLOY', cause: 'restart of web' });
    expect(deployment.progress.steps.map((s: { name: string }) => s.name)).toEqual(['deploy']);
    await sandbox.advanceClock(4_000);
    expect((await getApp(app.id)).active_deployment.id).toBe(deployment.id);
  });
});

describe('rollback', () => {
  it('validates, rolls back and pins, refuses new deployments while pinned, and commits', async () => {
    const app = await createApp(webSpec('rollback-app'));
    await settle();
    const v1 = (await getApp(app.id)).active_deployment;
    const v2spec = webSpec('rollback-app', {
      workers: [{ name: 'img', image: { registry_type: 'DOCR', repository: 'worker', tag: 'v2' } }],
    });
    const v2 = (await call('apps_update', { params: { id: app.id }, json: { spec: v2spec } })).body.app
      .in_progress_deployment;
    const validate = (deploymentId: string) =>
      call('apps_validate_rollback', { params: { app_id: app.id }, json: { deployment_id: deploymentId } });
    // Not while the app deploys, nor to the live one.
    expect((await validate(v1.id)).body).toMatchObject({
      valid: false,
      error: { code: 'incompatible_phase' },
    });
    await settle();
    expect((await validate(v2.id)).body).toMatchObject({
      valid: false,
      error: { code: 'incompatible_phase', message: expect.stringMatching(/active deployment/) },
    });
    expect((await validate(v1.id)).body).toEqual({ valid: true });
    expectError(await validate('no-such-deployment'), 404, 'not_found', /deployment not found/);
    expectError(
      await call('apps_validate_rollback', { params: { app_id: app.id }, json: {} }),
      400,
      'invalid_argument',
      /deployment_id is required/,
    );

    const rolled = await call('apps_create_rollback', {
      params: { app_id: app.id },
      json: { deployment_id: v1.id },
    });
    expect(rolled.status, rolled.text).toBe(200);
    // It deploys what v1 built.
    expect(rolled.body.deployment).toMatchObject({ phase: 'PENDING_DEPLOY', cloned_from: v1.id });
    const pinned = await getApp(app.id);
    expect(pinned.pinned_deployment.id).toBe(rolled.body.deployment.id);
    expect(pinned.spec).toEqual(webSpec('rollback-app'));
    const types = await call('apps_list_deployments', {
      params: { app_id: app.id },
      query: '?deployment_types=MANUAL_ROLLBACK',
    });
    expect(types.body.deployments.map((d: { id: string }) => d.id)).toEqual([rolled.body.deployment.id]);
    for (const refused of [
      call('apps_create_deployment', { params: { app_id: app.id }, json: {} }),
      call('apps_update', { params: { id: app.id }, json: { spec: v2spec } }),
    ]) {
      await refusedUnchanged(refused, 400, 'failed_precondition', /pinned to rollback deployment/);
    }
    await settle();
    expect((await validate(v2.id)).body).toMatchObject({ valid: false, error: { code: 'app_pinned' } });
    const committed = await call('apps_commit_rollback', { params: { app_id: app.id } });
    expect(committed.status, committed.text).toBe(200);
    const after = await getApp(app.id);
    expect(after).not.toHaveProperty('pinned_deployment');
    expect(after.active_deployment.id).toBe(rolled.body.deployment.id);
    await refusedUnchanged(
      call('apps_commit_rollback', { params: { app_id: app.id } }),
      400,
      'failed_precondition',
      /no rollback to commit or revert/,
    );
    // v2 had an image without a digest: a warning, not an error.
    const warned = (await validate(v2.id)).body;
    expect(warned).toMatchObject({
      valid: true,
      warnings: [{ code: 'image_source_missing_digest', components: ['img'] }],
    });
  });

  it('reverts a rollback: the spec from before deploys again and the app is unpinned', async () => {
    const app = await createApp(webSpec('revert-app'));
    await settle();
    const v1 = (await getApp(app.id)).active_deployment;
    const v2spec = webSpec('revert-app', { region: 'fra' });
    await refusedUnchanged(
      call('apps_revert_rollback', { params: { app_id: app.id } }),
      400,
      'failed_precondition',
      /no rollback/,
    );
    await call('apps_update', { params: { id: app.id }, json: { spec: v2spec } });
    await settle();
    // v1 ran in ams, the app now in fra.
    const conflict = await call('apps_validate_rollback', {
      params: { app_id: app.id },
      json: { deployment_id: v1.id },
    });
    expect(conflict.body).toMatchObject({ valid: false, error: { code: 'region_conflict' } });
    await refusedUnchanged(
      call('apps_create_rollback', { params: { app_id: app.id }, json: { deployment_id: v1.id } }),
      400,
      'failed_precondition',
      /region_conflict/,
    );
    const v3spec = webSpec('revert-app', { region: 'fra', envs: [{ key: 'V', value: '3' }] });
    const v2 = (await getApp(app.id)).active_deployment;
    await call('apps_update', { params: { id: app.id }, json: { spec: v3spec } });
    await settle();
    const rolled = await call('apps_create_rollback', {
      params: { app_id: app.id },
      json: { deployment_id: v2.id },
    });
    expect(rolled.status, rolled.text).toBe(200);
    expect((await getApp(app.id)).spec).toEqual(v2spec);
    const reverted = await call('apps_revert_rollback', { params: { app_id: app.id } });
    expect(reverted.status, reverted.text).toBe(200);
    expect(reverted.body.deployment).toMatchObject({ phase: 'PENDING_BUILD', spec: v3spec });
    const after = await getApp(app.id);
    expect(after).not.toHaveProperty('pinned_deployment');
    expect(after.spec).toEqual(v3spec);
    // The rollback deployment still in progress was superseded by the revert.
    expect((await getDeployment(app.id, rolled.body.deployment.id)).phase).toBe('SUPERSEDED');
    // skip_pin: rolled back and committed at once.
    await settle();
    const direct = await call('apps_create_rollback', {
      params: { app_id: app.id },
      json: { deployment_id: v2.id, skip_pin: true },
    });
    expect(direct.status, direct.text).toBe(200);
    expect(await getApp(app.id)).not.toHaveProperty('pinned_deployment');
  });
});

describe('delete', () => {
  it('deletes an app: its id answered, then 404 everywhere', async () => {
    const app = await createApp(webSpec('doomed-app'));
    const deleted = await call('apps_delete', { params: { id: app.id } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body).toEqual({ id: app.id });
    expectError(await call('apps_get', { params: { id: app.id } }), 404, 'not_found', /app not found/);
    expect((await call('apps_list_deployments', { params: { app_id: app.id } })).status).toBe(404);
    expect((await call('apps_delete', { params: { id: app.id } })).status).toBe(404);
    // Its name is free again.
    await createApp(webSpec('doomed-app'));
  });
});

describe('the state file', () => {
  it('keeps apps and their deployments across a restart, which go on moving on the clock', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'cloudcall-apps-')), 'state.json');
    const inMemory = sandbox;
    const clock = steppingClock();
    sandbox = await startSandbox({ statePath, now: clock });
    try {
      const app = await createApp(webSpec('kept-app', { alerts: [{ rule: 'DEPLOYMENT_FAILED' }] }));
      await sandbox.advanceClock(2_000);
      const before = await getApp(app.id);
      expect(before.in_progress_deployment.phase).toBe('BUILDING');
      const stored = await apps();
      await sandbox.close();
      sandbox = await startSandbox({ statePath, now: clock });
      expect(await apps()).toEqual(stored);
      expect((await getApp(app.id)).in_progress_deployment.id).toBe(before.in_progress_deployment.id);
      await settle();
      const after = await getApp(app.id);
      expect(after.active_deployment).toMatchObject({
        id: before.in_progress_deployment.id,
        phase: 'ACTIVE',
      });
      expect(after.live_url).toMatch(/^https:\/\/kept-app-[a-z]{5}\.ondigitalocean\.app$/);
    } finally {
      await sandbox.close();
      sandbox = inMemory;
    }
  });
});
