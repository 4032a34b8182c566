/**
 * App Platform once an app runs: logs (live while the part asked for runs, archived after), exec
 * URLs into a live deployment's instances, instances, health, daily bandwidth, alerts and their
 * destinations following the spec, events, and the PRE_DEPLOY / POST_DEPLOY jobs' invocations
 * running at their place in a deployment. Every answer is checked against the API description.
 */
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

function spec(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    services: [{ name: 'web', github: GITHUB, instance_size_slug: 'apps-s-1vcpu-1gb', instance_count: 2 }],
    workers: [{ name: 'queue', github: GITHUB }],
    static_sites: [{ name: 'docs', github: GITHUB }],
    ...extra,
  };
}

async function createApp(body: Record<string, unknown>) {
  const created = await call('apps_create', { json: { spec: body } });
  expect(created.status, created.text).toBe(200);
  return created.body.app as { id: string; in_progress_deployment: { id: string } };
}

const settle = () => sandbox.advanceClock(12_000);

function expectError(reply: Reply, status: number, id: string, mentions: RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual({
    id,
    message: expect.stringMatching(mentions),
    request_id: expect.any(String),
  });
}

const under = (url: string) => expect(url.startsWith(`${sandbox.url}/`)).toBe(true);

describe('logs', () => {
  it('answers live logs while the part asked for runs, archived ones once it is over', async () => {
    const app = await createApp(spec('logs-app'));
    const deployment = app.in_progress_deployment.id;
    const logs = (type: string, component?: string) =>
      component
        ? call('apps_get_logs', {
            params: { app_id: app.id, deployment_id: deployment, component_name: component },
            query: `?type=${type}&follow=true`,
          })
        : call('apps_get_logs_aggregate', {
            params: { app_id: app.id, deployment_id: deployment },
            query: `?type=${type}`,
          });
    await sandbox.advanceClock(2_000);
    const building = await logs('BUILD', 'web');
    expect(building.status, building.text).toBe(200);
    under(building.body.live_url);
    // Asked to follow: the stream stays open while the build runs (live-logs.test.ts).
    expect(building.body.live_url).toMatch(/type=BUILD&component=web&follow=true&token=[0-9a-f]{32}$/);
    expect(building.body).not.toHaveProperty('historic_urls');
    // No active deployment yet: the active-deployment logs say so.
    expectError(
      await call('apps_get_logs_active_deployment_aggregate', {
        params: { app_id: app.id },
        query: '?type=RUN',
      }),
      400,
      'failed_precondition',
      /no active deployment/,
    );
    await settle();
    const archived = await logs('BUILD', 'web');
    expect(archived.body).not.toHaveProperty('live_url');
    expect(archived.body.historic_urls).toHaveLength(1);
    under(archived.body.historic_urls[0]);
    under((await logs('RUN')).body.live_url);
    const active = await call('apps_get_logs_active_deployment', {
      params: { app_id: app.id, component_name: 'queue' },
      query: '?type=RUN',
    });
    expect(active.body.live_url).toContain(`/deployments/${deployment}/`);
    expect((await logs('DEPLOY')).body.historic_urls).toHaveLength(1);

    expectError(await logs('BUILD', 'nope'), 404, 'not_found', /component nope not found/);
    const untyped = await call('apps_get_logs_aggregate', {
      params: { app_id: app.id, deployment_id: deployment },
      query: '?type=',
    });
    expectError(untyped, 400, 'invalid_argument', /type is required/);
    expectError(await logs('EVERYTHING'), 400, 'invalid_argument', /type "EVERYTHING" is not one of/);
  });
});

describe('instances, exec and health', () => {
  it('lists a live deployment’s instances, opens exec URLs into them, reports health', async () => {
    const app = await createApp(spec('run-app'));
    expect((await call('apps_get_instances', { params: { app_id: app.id } })).body).toEqual({
      instances: [],
    });
    expectError(
      await call('apps_get_exec_active_deployment', { params: { app_id: app.id, component_name: 'web' } }),
      400,
      'failed_precondition',
      /no active deployment/,
    );
    const early = await call('apps_get_health', { params: { app_id: app.id } });
    expect(early.body.app_health.components).toEqual([
      expect.objectContaining({ name: 'web', replicas_desired: 2, replicas_ready: 0, state: 'UNKNOWN' }),
      expect.objectContaining({ name: 'queue', replicas_desired: 1, replicas_ready: 0, state: 'UNKNOWN' }),
    ]);
    await settle();
    const { instances } = (await call('apps_get_instances', { params: { app_id: app.id } })).body;
    expect(instances.map((i: { instance_alias: string }) => i.instance_alias)).toEqual([
      'web-0',
      'web-1',
      'queue-0',
    ]);
    expect(instances[0]).toEqual({
      component_name: 'web',
      component_type: 'SERVICE',
      instance_alias: 'web-0',
      instance_name: expect.stringMatching(/^web-[a-z0-9]{10}-[a-z0-9]{5}$/),
    });
    expect(instances[2].component_type).toBe('WORKER');

    const exec = await call('apps_get_exec_active_deployment', {
      params: { app_id: app.id, component_name: 'web' },
      query: `?instance_name=${instances[1].instance_name}`,
    });
    expect(exec.status, exec.text).toBe(200);
    expect(exec.body.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/.+token=[0-9a-f]{32}$/);
    expect(exec.body.url).toContain(instances[1].instance_name);
    const byDeployment = await call('apps_get_exec', {
      params: { app_id: app.id, deployment_id: app.in_progress_deployment.id, component_name: 'queue' },
    });
    expect(byDeployment.body.url).toContain(instances[2].instance_name);
    expectError(
      await call('apps_get_exec_active_deployment', { params: { app_id: app.id, component_name: 'docs' } }),
      400,
      'invalid_argument',
      /docs is not a service or worker/,
    );
    expectError(
      await call('apps_get_exec_active_deployment', {
        params: { app_id: app.id, component_name: 'web' },
        query: '?instance_name=web-gone',
      }),
      404,
      'not_found',
      /instance web-gone/,
    );
    const health = await call('apps_get_health', { params: { app_id: app.id } });
    const web = health.body.app_health.components[0];
    expect(web).toMatchObject({ name: 'web', replicas_desired: 2, replicas_ready: 2, state: 'HEALTHY' });
    expect(web.cpu_usage_percent).toBeGreaterThan(0);
    expect(web.memory_usage_percent).toBeGreaterThan(0);

    // A restart runs new instances; exec into a deployment that is no longer live is refused.
    const restarted = await call('apps_restart', { params: { app_id: app.id }, json: {} });
    await settle();
    const renamed = (await call('apps_get_instances', { params: { app_id: app.id } })).body.instances;
    expect(renamed[0].instance_name).not.toBe(instances[0].instance_name);
    expect(restarted.body.deployment.id).not.toBe(app.in_progress_deployment.id);
    expectError(
      await call('apps_get_exec', {
        params: { app_id: app.id, deployment_id: app.in_progress_deployment.id, component_name: 'web' },
      }),
      400,
      'failed_precondition',
      /is not live/,
    );
  });
});

describe('bandwidth', () => {
  it('answers an app’s daily bandwidth, for one app or several', async () => {
    const app = await createApp(spec('bandwidth-app'));
    await settle();
    const today = new Date((await sandbox.store.read((w: World) => w.clockOffsetMs)) + Date.now());
    const date = today.toISOString();
    const one = await call('apps_get_metrics_bandwidth_daily', {
      params: { app_id: app.id },
      query: `?date=${encodeURIComponent(date)}`,
    });
    expect(one.status, one.text).toBe(200);
    expect(one.body.date).toBe(`${date.slice(0, 10)}T00:00:00Z`);
    expect(one.body.app_bandwidth_usage).toEqual([
      { app_id: app.id, bandwidth_bytes: expect.stringMatching(/^\d+$/) },
    ]);
    // Yesterday, before the app existed: nothing.
    const yesterday = await call('apps_get_metrics_bandwidth_daily', { params: { app_id: app.id } });
    expect(yesterday.body.app_bandwidth_usage[0].bandwidth_bytes).toBe('0');
    const other = await createApp(spec('bandwidth-two'));
    const many = await call('apps_list_metrics_bandwidth_daily', {
      json: { app_ids: [app.id, other.id], date },
    });
    expect(many.body.app_bandwidth_usage.map((u: { app_id: string }) => u.app_id)).toEqual([
      app.id,
      other.id,
    ]);
    expectError(
      await call('apps_list_metrics_bandwidth_daily', { json: { app_ids: [] } }),
      400,
      'invalid_argument',
      /app_ids is required/,
    );
    expectError(
      await call('apps_list_metrics_bandwidth_daily', { json: { app_ids: ['no-such-app'] } }),
      404,
      'not_found',
      /no-such-app/,
    );
    expectError(
      await call('apps_get_metrics_bandwidth_daily', { params: { app_id: app.id }, query: '?date=someday' }),
      400,
      'invalid_argument',
      /date must be a date-time/,
    );
  });
});

describe('alerts', () => {
  it('lists the spec’s alerts, sets their destinations, keeps them while the spec keeps the alert', async () => {
    const withAlerts = (extraRule?: string) =>
      spec('alerts-app', {
        alerts: [{ rule: 'DEPLOYMENT_FAILED' }, ...(extraRule ? [{ rule: extraRule }] : [])],
        services: [
          {
            name: 'web',
            github: GITHUB,
            alerts: [
              { rule: 'CPU_UTILIZATION', operator: 'GREATER_THAN', value: 80, window: 'FIVE_MINUTES' },
            ],
          },
        ],
      });
    const app = await createApp(withAlerts('DOMAIN_FAILED'));
    const list = async () => (await call('apps_list_alerts', { params: { app_id: app.id } })).body.alerts;
    const alerts = await list();
    expect(alerts.map((a: { spec: { rule: string } }) => a.spec.rule)).toEqual([
      'DEPLOYMENT_FAILED',
      'DOMAIN_FAILED',
      'CPU_UTILIZATION',
    ]);
    expect(alerts[2]).toMatchObject({
      component_name: 'web',
      spec: { rule: 'CPU_UTILIZATION', operator: 'GREATER_THAN', value: 80, window: 'FIVE_MINUTES' },
      emails: [],
      slack_webhooks: [],
      phase: 'ACTIVE',
    });
    expect(alerts[0]).not.toHaveProperty('component_name');
    const assign = (alertId: string, json: Record<string, unknown>) =>
      call('apps_assign_alertDestinations', { params: { app_id: app.id, alert_id: alertId }, json });
    const email = (await call('account_get')).body.account.email;
    const hook = { url: 'https://hooks.slack.com/services/T0/B0/x', channel: '#ops' };
    const set = await assign(alerts[0].id, { emails: [email], slack_webhooks: [hook] });
    expect(set.status, set.text).toBe(200);
    expect(set.body.alert).toMatchObject({ id: alerts[0].id, emails: [email], slack_webhooks: [hook] });
    expectError(
      await assign(alerts[0].id, { emails: ['stranger@example.com'] }),
      400,
      'invalid_argument',
      /stranger@example.com is not a user with access/,
    );
    expectError(
      await assign(alerts[0].id, { slack_webhooks: [{ url: 'http://insecure.example.com' }] }),
      400,
      'invalid_argument',
      /https/,
    );
    expectError(await assign('no-such-alert', { emails: [] }), 404, 'not_found', /alert not found/);
    // The refused requests changed nothing.
    expect((await list())[0]).toMatchObject({ emails: [email], slack_webhooks: [hook] });

    // The spec drops DOMAIN_FAILED: that alert goes; the others keep their ids and destinations.
    const updated = await call('apps_update', { params: { id: app.id }, json: { spec: withAlerts() } });
    expect(updated.status, updated.text).toBe(200);
    const after = await list();
    expect(after.map((a: { id: string }) => a.id)).toEqual([alerts[0].id, alerts[2].id]);
    expect(after[0]).toMatchObject({ emails: [email], slack_webhooks: [hook] });
  });
});

describe('events and job invocations', () => {
  it('lists an event per deployment, gets one, refuses to cancel a deployment event', async () => {
    const app = await createApp(spec('events-app'));
    await call('apps_create_deployment', { params: { app_id: app.id }, json: {} });
    const listed = await call('apps_list_events', { params: { app_id: app.id }, query: '?per_page=1' });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.events).toHaveLength(1);
    expect(listed.body.links.pages.next).toContain('page=2');
    const second = await call('apps_list_events', {
      params: { app_id: app.id },
      query: '?per_page=1&page=2',
    });
    const oldest = second.body.events[0];
    expect(oldest).toMatchObject({
      type: 'DEPLOYMENT',
      deployment_id: app.in_progress_deployment.id,
      deployment: { id: app.in_progress_deployment.id, phase: 'SUPERSEDED' },
    });
    const autoscaling = await call('apps_list_events', {
      params: { app_id: app.id },
      query: '?event_types=AUTOSCALING',
    });
    expect(autoscaling.body.events).toEqual([]);
    const got = await call('apps_get_event', { params: { app_id: app.id, event_id: oldest.id } });
    expect(got.body.event.id).toBe(oldest.id);
    expectError(
      await call('apps_cancel_event', { params: { app_id: app.id, event_id: oldest.id } }),
      400,
      'failed_precondition',
      /only an autoscaling event/,
    );
    const logs = await call('apps_get_event_logs', {
      params: { app_id: app.id, event_id: oldest.id },
      query: '?type=BUILD',
    });
    expect(logs.body.historic_urls).toHaveLength(1);
    expect((await call('apps_get_event', { params: { app_id: app.id, event_id: 'nope' } })).status).toBe(404);
  });

  it('runs PRE_DEPLOY jobs before the deploy and POST_DEPLOY jobs once live; cancels one pending', async () => {
    const app = await createApp(
      spec('jobs-app', {
        jobs: [
          { name: 'migrate', kind: 'PRE_DEPLOY', github: GITHUB },
          { name: 'notify', kind: 'POST_DEPLOY', github: GITHUB },
          { name: 'cleanup', kind: 'FAILED_DEPLOY', github: GITHUB },
        ],
      }),
    );
    const list = async (query = '') =>
      (await call('apps_list_job_invocations', { params: { app_id: app.id }, query })).body.job_invocations;
    const phases = async () =>
      Object.fromEntries(
        (await list()).map((i: { job_name: string; phase: string }) => [i.job_name, i.phase]),
      );
    expect(await phases()).toEqual({ migrate: 'PENDING', notify: 'PENDING' });
    await sandbox.advanceClock(4_400);
    expect(await phases()).toEqual({ migrate: 'RUNNING', notify: 'PENDING' });
    const migrate = (await list('?job_names=migrate'))[0];
    expect(migrate).toMatchObject({
      deployment_id: app.in_progress_deployment.id,
      started_at: expect.any(String),
    });
    const running = await call('apps_get_job_invocation_logs', {
      params: { app_id: app.id, job_name: 'migrate', job_invocation_id: migrate.id },
      query: '?type=JOB_INVOCATION&tail_lines=100',
    });
    expect(running.status, running.text).toBe(200);
    under(running.body.live_url);
    await sandbox.advanceClock(4_000);
    expect(await phases()).toEqual({ migrate: 'SUCCEEDED', notify: 'RUNNING' });
    await sandbox.advanceClock(3_000);
    expect(await phases()).toEqual({ migrate: 'SUCCEEDED', notify: 'SUCCEEDED' });
    const done = await call('apps_get_job_invocation', {
      params: { app_id: app.id, job_invocation_id: migrate.id },
      query: '?job_name=migrate',
    });
    expect(done.body).toMatchObject({ id: migrate.id, phase: 'SUCCEEDED', completed_at: expect.any(String) });
    expectError(
      await call('apps_cancel_job_invocation', { params: { app_id: app.id, job_invocation_id: migrate.id } }),
      400,
      'failed_precondition',
      /is SUCCEEDED/,
    );
    expect(
      (
        await call('apps_get_job_invocation', {
          params: { app_id: app.id, job_invocation_id: migrate.id },
          query: '?job_name=notify',
        })
      ).status,
    ).toBe(404);

    // A second deployment: its pending PRE_DEPLOY job is canceled; its POST_DEPLOY one still runs.
    const next = (await call('apps_create_deployment', { params: { app_id: app.id }, json: {} })).body
      .deployment;
    const pending = (await list(`?deployment_id=${next.id}&job_names=migrate`))[0];
    expect(pending.phase).toBe('PENDING');
    const canceled = await call('apps_cancel_job_invocation', {
      params: { app_id: app.id, job_invocation_id: pending.id },
    });
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body).toMatchObject({ id: pending.id, phase: 'CANCELED' });
    const page = await call('apps_list_job_invocations', {
      params: { app_id: app.id },
      query: '?per_page=2&page=2',
    });
    expect(page.body.job_invocations.map((i: { deployment_id: string }) => i.deployment_id)).toEqual([
      app.in_progress_deployment.id,
      app.in_progress_deployment.id,
    ]);
    // The deployment canceled before its live: its POST_DEPLOY job is skipped.
    await call('apps_cancel_deployment', { params: { app_id: app.id, deployment_id: next.id } });
    expect((await list(`?deployment_id=${next.id}&job_names=notify`))[0].phase).toBe('SKIPPED');
  });
});

describe('unknown apps', () => {
  it('answers 404 for every path under an app that does not exist', async () => {
    const id = '5f9b8a2e-0000-4000-8000-000000000000';
    const replies = await Promise.all([
      call('apps_get_health', { params: { app_id: id } }),
      call('apps_list_alerts', { params: { app_id: id } }),
      call('apps_list_events', { params: { app_id: id } }),
      call('apps_get_instances', { params: { app_id: id } }),
      call('apps_restart', { params: { app_id: id }, json: {} }),
      call('apps_get_logs_active_deployment_aggregate', { params: { app_id: id }, query: '?type=RUN' }),
    ]);
    for (const reply of replies) expectError(reply, 404, 'not_found', /app not found/);
  });
});
