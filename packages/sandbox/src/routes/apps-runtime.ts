/**
 * What an app does once deployed, and the catalogues: logs (URLs to real-time logs of a deployment
 * in progress or live, archived ones of a past deployment), exec URLs into a live deployment's
 * instances, the instances themselves, health, daily bandwidth, alerts and their destinations,
 * events (one per deployment), the PRE_DEPLOY and POST_DEPLOY jobs' invocations, App Platform's
 * regions and instance sizes.
 *
 * Log and exec URLs point under the sandbox's own base URL (loopback), each with a token, as the
 * platform's carry one. A log URL serves the log's text (apps-logs.ts): an archive as a plain text
 * file, a live one as a WebSocket stream (live-logs.ts, on the HTTP server), open while the part
 * it shows runs when the request asked to follow. Nothing is served at an exec URL.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  APP_INSTANCE_SIZES,
  APP_REGIONS,
  type StoredApp,
  type StoredAppDeployment,
} from '../families/apps.js';
import { notFound, paginate, type Route, type SandboxRequest } from '../http.js';
import { iso } from '../time.js';
import type { World } from '../world.js';
import {
  activeDeployment,
  deploymentView,
  findApp,
  findDeployment,
  jobInvocationView,
  jobRun,
  liveAt,
  phaseAt,
} from './apps-deployments.js';
import {
  type ComponentKind,
  componentsOf,
  failedPrecondition,
  invalidArgument,
  servesHttp,
} from './apps-spec.js';

const LOG_TYPES = ['UNSPECIFIED', 'BUILD', 'DEPLOY', 'RUN', 'RUN_RESTARTED', 'AUTOSCALE_EVENT'] as const;
type LogType = (typeof LOG_TYPES)[number] | 'JOB_INVOCATION';

const token = () => randomBytes(16).toString('hex');

/** The `type` a logs request must give, checked. */
function logType(request: SandboxRequest, allowed: readonly string[] = LOG_TYPES): LogType {
  const type = request.query.get('type');
  if (type === null || type === '') throw invalidArgument(`type is required: one of ${allowed.join(', ')}`);
  if (!allowed.includes(type))
    throw invalidArgument(`type ${JSON.stringify(type)} is not one of ${allowed.join(', ')}`);
  const follow = request.query.get('follow');
  if (follow !== null && follow !== 'true' && follow !== 'false') {
    throw invalidArgument(`follow must be true or false; got ${JSON.stringify(follow)}`);
  }
  return type as LogType;
}

/** A component of a deployment that has logs (any but a database), or 404. */
function componentOf(deployment: StoredAppDeployment, name: string | undefined) {
  if (name === undefined) return undefined;
  const found = componentsOf(deployment.spec).find(({ component }) => component.name === name);
  if (!found) throw notFound(`component ${name} not found in deployment ${deployment.id}`);
  return found;
}

/**
 * The logs answer of a deployment: real-time logs while the part of it asked for runs (its build
 * while building, its deploy while deploying, its run while live), archived logs once it is over.
 */
function logsAnswer(
  request: SandboxRequest,
  app: StoredApp,
  deployment: StoredAppDeployment,
  type: LogType,
  component: string | undefined,
) {
  const { phase } = phaseAt(app, deployment, request.now);
  const live =
    type === 'BUILD'
      ? phase === 'PENDING_BUILD' || phase === 'BUILDING'
      : type === 'DEPLOY'
        ? phase === 'PENDING_DEPLOY' || phase === 'DEPLOYING'
        : type === 'AUTOSCALE_EVENT'
          ? false
          : phase === 'ACTIVE';
  const base = `${request.baseUrl}/sandbox/apps/${app.id}/deployments/${deployment.id}/logs`;
  const part = `${type.toLowerCase()}${component ? `-${component}` : ''}`;
  if (live) {
    // A followed stream stays open while the part it shows runs; else it ends with what there is.
    const query = new URLSearchParams({ type });
    if (component) query.set('component', component);
    if (request.query.get('follow') === 'true') query.set('follow', 'true');
    query.set('token', token());
    return { body: { live_url: `${base}/live?${query}` } };
  }
  return { body: { historic_urls: [`${base}/archive/${part}.log?token=${token()}`] } };
}

/** The live deployment, or the platform's refusal to guess another. */
function requireActive(app: StoredApp, now: number): StoredAppDeployment {
  const active = activeDeployment(app, now);
  if (!active) {
    throw failedPrecondition(
      'the app has no active deployment; name a deployment to read one that is in progress',
    );
  }
  return active;
}

const PODS = 'bcdfghjklmnpqrstvwxz2456789';
/** Letters of a pod-name hash, as Kubernetes spells them, derived from `seed`. */
function podHash(seed: string, length: number): string {
  const bytes = createHash('sha256').update(seed).digest();
  return Array.from({ length }, (_, i) => PODS[(bytes[i] ?? 0) % PODS.length]).join('');
}

const INSTANCE_TYPE: Partial<Record<ComponentKind, 'SERVICE' | 'WORKER'>> = {
  services: 'SERVICE',
  workers: 'WORKER',
};

/** The instances a live deployment runs: each service's and worker's, `instance_count` of them. */
function instancesOf(deployment: StoredAppDeployment) {
  return componentsOf(deployment.spec).flatMap(({ kind, component }) => {
    const type = INSTANCE_TYPE[kind];
    if (!type) return [];
    const replicaSet = podHash(`${deployment.id}/${component.name}`, 10);
    return Array.from({ length: component.instance_count ?? 1 }, (_, i) => ({
      component_name: component.name,
      instance_name: `${component.name}-${replicaSet}-${podHash(`${deployment.id}/${component.name}/${i}`, 5)}`,
      instance_alias: `${component.name}-${i}`,
      component_type: type,
    }));
  });
}

function execAnswer(request: SandboxRequest, app: StoredApp, deployment: StoredAppDeployment) {
  const name = request.params.component_name ?? '';
  const found = componentOf(deployment, name);
  if (found && !INSTANCE_TYPE[found.kind]) {
    throw invalidArgument(`${name} is not a service or worker: only their instances run a console`);
  }
  if (phaseAt(app, deployment, request.now).phase !== 'ACTIVE') {
    throw failedPrecondition(
      `deployment ${deployment.id} is not live: a console opens on a live deployment's instances`,
    );
  }
  const instances = instancesOf(deployment).filter((i) => i.component_name === name);
  const wanted = request.query.get('instance_name');
  const instance = wanted ? instances.find((i) => i.instance_name === wanted) : instances[0];
  if (!instance) throw notFound(`instance ${wanted} of ${name} not found`);
  const base = request.baseUrl.replace(/^http/, 'ws');
  const query = new URLSearchParams({ instance: instance.instance_name, token: token() });
  return { body: { url: `${base}/sandbox/apps/${app.id}/components/${name}/exec?${query}` } };
}

/** A number in [min, max) that stays put for a minute, from what it measures. */
function gauge(seed: string, now: number, min: number, max: number): number {
  const minute = Math.floor(now / 60_000);
  const value = createHash('sha256').update(`${seed}/${minute}`).digest().readUInt32BE(0) / 2 ** 32;
  return Math.round((min + value * (max - min)) * 1_000) / 1_000;
}

const DAY_MS = 86_400_000;

/** The day a bandwidth request asks about (`date`, default yesterday), as the UTC midnight it starts at. */
function dayOf(value: unknown, now: number): number {
  if (value === undefined || value === null || value === '')
    return Math.floor(now / DAY_MS) * DAY_MS - DAY_MS;
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw invalidArgument(`date must be a date-time; got ${JSON.stringify(value)}`);
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** What an app served on a day: nothing before it was live or for an app without HTTP; else a steady daily amount. */
function bandwidth(app: StoredApp, day: number, now: number) {
  const live = Math.min(...app.deployments.map(liveAt));
  const active = activeDeployment(app, now);
  const served = live < day + DAY_MS && day <= now && active && servesHttp(active.spec);
  const bytes = served
    ? Math.floor(
        (gauge(`${app.id}/bandwidth/${day}`, 0, 2_000_000, 400_000_000) *
          (Math.min(now, day + DAY_MS) - Math.max(day, live))) /
          DAY_MS,
      )
    : 0;
  return { app_id: app.id, bandwidth_bytes: String(Math.max(0, bytes)) };
}

function alertView(app: StoredApp, alert: StoredApp['alerts'][number]) {
  const specs = alert.component_name
    ? componentsOf(app.spec).find(({ component }) => component.name === alert.component_name)?.component
        .alerts
    : app.spec.alerts;
  const spec = specs?.find((s) => s.rule === alert.rule) ?? { rule: alert.rule };
  return {
    id: alert.id,
    ...(alert.component_name ? { component_name: alert.component_name } : {}),
    spec: { ...spec },
    emails: [...alert.emails],
    slack_webhooks: alert.slack_webhooks.map((hook) => ({ ...hook })),
    phase: 'ACTIVE',
    progress: {
      steps: [
        {
          name: 'alert-configure',
          status: 'SUCCESS',
          started_at: iso(alert.created_ms),
          ended_at: iso(alert.created_ms),
        },
      ],
    },
  };
}

/** The destinations an alert may be sent to: users of the account, and Slack incoming webhooks. */
function destinations(world: World, body: Record<string, unknown>) {
  const emails = body.emails ?? [];
  const hooks = body.slack_webhooks ?? [];
  if (!Array.isArray(emails) || !emails.every((e) => typeof e === 'string')) {
    throw invalidArgument('emails must be a list of email addresses');
  }
  const users = [world.account.email.toLowerCase()];
  const stranger = emails.find((email) => !users.includes(email.toLowerCase()));
  if (stranger !== undefined) {
    throw invalidArgument(`${stranger} is not a user with access to the app: alerts go to the team's users`);
  }
  if (!Array.isArray(hooks)) throw invalidArgument('slack_webhooks must be a list');
  const slack = hooks.map((hook) => {
    const url = typeof hook === 'object' && hook !== null ? (hook as Record<string, unknown>).url : undefined;
    const channel =
      typeof hook === 'object' && hook !== null ? (hook as Record<string, unknown>).channel : undefined;
    if (typeof url !== 'string' || !/^https:\/\/\S+$/.test(url)) {
      throw invalidArgument(
        `slack_webhooks: url must be an https:// incoming webhook URL; got ${JSON.stringify(url)}`,
      );
    }
    if (channel !== undefined && typeof channel !== 'string')
      throw invalidArgument('slack_webhooks: channel must be a string');
    return { url, channel: channel ?? '' };
  });
  return { emails: [...new Set(emails)], slack_webhooks: slack };
}

const eventView = (app: StoredApp, deployment: StoredAppDeployment, now: number) => ({
  id: deployment.event_id,
  type: 'DEPLOYMENT',
  created_at: iso(deployment.created_ms),
  deployment_id: deployment.id,
  deployment: deploymentView(app, deployment, now),
});

function findEvent(app: StoredApp, id: string | undefined): StoredAppDeployment {
  const found = app.deployments.find((d) => d.event_id === id);
  if (!found) throw notFound('event not found');
  return found;
}

/** A query parameter given as repeated values or a comma-separated list. */
const many = (request: SandboxRequest, name: string) =>
  request.query
    .getAll(name)
    .flatMap((value) => value.split(','))
    .filter(Boolean);

/** Every job invocation of an app, newest first. */
export const invocationsOf = (app: StoredApp) =>
  app.deployments
    .flatMap((deployment) => deployment.job_invocations.map((invocation) => ({ deployment, invocation })))
    .reverse();

function findInvocation(app: StoredApp, request: SandboxRequest, jobName?: string | null) {
  const found = invocationsOf(app).find(
    ({ invocation }) =>
      invocation.id === request.params.job_invocation_id && (!jobName || invocation.job_name === jobName),
  );
  if (!found) throw notFound('job invocation not found');
  return found;
}

export const appsRuntimeRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/deployments/{deployment_id}/components/{component_name}/logs',
    handler: (req, world) => {
      const app = findApp(world, req);
      const deployment = findDeployment(app, req.params.deployment_id);
      const type = logType(req);
      componentOf(deployment, req.params.component_name);
      return logsAnswer(req, app, deployment, type, req.params.component_name);
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/deployments/{deployment_id}/logs',
    handler: (req, world) => {
      const app = findApp(world, req);
      const deployment = findDeployment(app, req.params.deployment_id);
      return logsAnswer(req, app, deployment, logType(req), undefined);
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/components/{component_name}/logs',
    handler: (req, world) => {
      const app = findApp(world, req);
      const type = logType(req);
      const active = requireActive(app, req.now);
      componentOf(active, req.params.component_name);
      return logsAnswer(req, app, active, type, req.params.component_name);
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/logs',
    handler: (req, world) => {
      const app = findApp(world, req);
      const type = logType(req);
      return logsAnswer(req, app, requireActive(app, req.now), type, undefined);
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/deployments/{deployment_id}/components/{component_name}/exec',
    handler: (req, world) => {
      const app = findApp(world, req);
      return execAnswer(req, app, findDeployment(app, req.params.deployment_id));
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/components/{component_name}/exec',
    handler: (req, world) => {
      const app = findApp(world, req);
      return execAnswer(req, app, requireActive(app, req.now));
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/instances',
    handler: (req, world) => {
      const active = activeDeployment(findApp(world, req), req.now);
      return { body: { instances: active ? instancesOf(active) : [] } };
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/health',
    handler: (req, world) => {
      const app = findApp(world, req);
      const active = activeDeployment(app, req.now);
      const spec = active?.spec ?? app.spec;
      const components = componentsOf(spec)
        .filter(({ kind }) => INSTANCE_TYPE[kind])
        .map(({ component }) => {
          const desired = component.instance_count ?? 1;
          const seed = `${app.id}/${component.name}`;
          return {
            name: component.name,
            cpu_usage_percent: active ? gauge(`${seed}/cpu`, req.now, 0.5, 12) : 0,
            memory_usage_percent: active ? gauge(`${seed}/memory`, req.now, 8, 35) : 0,
            replicas_desired: desired,
            replicas_ready: active ? desired : 0,
            state: active ? 'HEALTHY' : 'UNKNOWN',
          };
        });
      const functions = (spec.functions ?? []).map((component) => ({
        name: component.name,
        functions_component_health_metrics: [
          { metric_label: 'activations_count', metric_value: 0, time_window: '1h' },
          { metric_label: 'average_duration_ms', metric_value: 0, time_window: '1h' },
          { metric_label: 'error_percent', metric_value: 0, time_window: '1h' },
        ],
      }));
      return {
        body: {
          app_health: { components, ...(functions.length ? { functions_components: functions } : {}) },
        },
      };
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/metrics/bandwidth_daily',
    handler: (req, world) => {
      const app = findApp(world, req);
      const day = dayOf(req.query.get('date'), req.now);
      return { body: { app_bandwidth_usage: [bandwidth(app, day, req.now)], date: iso(day) } };
    },
  },
  {
    method: 'POST',
    path: '/v2/apps/metrics/bandwidth_daily',
    handler: (req, world) => {
      const ids = req.body.app_ids;
      if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string')) {
        throw invalidArgument('app_ids is required: a list of 1 to 100 app ids');
      }
      if (ids.length > 100) throw invalidArgument(`app_ids holds at most 100 ids; got ${ids.length}`);
      const day = dayOf(req.body.date, req.now);
      const usage = [...new Set(ids as string[])].map((id) => {
        const app = world.apps.find((a) => a.id === id);
        if (!app) throw notFound(`app ${id} not found`);
        return bandwidth(app, day, req.now);
      });
      return { body: { app_bandwidth_usage: usage, date: iso(day) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/alerts',
    handler: (req, world) => {
      const app = findApp(world, req);
      return { body: { alerts: app.alerts.map((alert) => alertView(app, alert)) } };
    },
  },
  {
    method: 'POST',
    path: '/v2/apps/{app_id}/alerts/{alert_id}/destinations',
    handler: (req, world) => {
      const app = findApp(world, req);
      const alert = app.alerts.find((a) => a.id === req.params.alert_id);
      if (!alert) throw notFound('alert not found');
      const { emails, slack_webhooks } = destinations(world, req.body);
      alert.emails = emails;
      alert.slack_webhooks = slack_webhooks;
      return { body: { alert: alertView(app, alert) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/events',
    handler: (req, world) => {
      const app = findApp(world, req);
      const types = many(req, 'event_types');
      const events = types.length && !types.includes('DEPLOYMENT') ? [] : [...app.deployments].reverse();
      const page = paginate(events, req);
      return { body: { events: page.items.map((d) => eventView(app, d, req.now)), links: page.links } };
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/events/{event_id}',
    handler: (req, world) => {
      const app = findApp(world, req);
      return { body: { event: eventView(app, findEvent(app, req.params.event_id), req.now) } };
    },
  },
  {
    method: 'POST',
    path: '/v2/apps/{app_id}/events/{event_id}/cancel',
    handler: (req, world) => {
      const app = findApp(world, req);
      const deployment = findEvent(app, req.params.event_id);
      throw failedPrecondition(
        `event ${deployment.event_id} is a deployment: only an autoscaling event in progress is canceled here; cancel deployment ${deployment.id} with POST /v2/apps/${app.id}/deployments/${deployment.id}/cancel`,
      );
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/events/{event_id}/logs',
    handler: (req, world) => {
      const app = findApp(world, req);
      const deployment = findEvent(app, req.params.event_id);
      return logsAnswer(req, app, deployment, logType(req), undefined);
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/job-invocations',
    handler: (req, world) => {
      const app = findApp(world, req);
      const names = many(req, 'job_names');
      const deploymentId = req.query.get('deployment_id');
      const found = invocationsOf(app).filter(
        ({ deployment, invocation }) =>
          (!names.length || names.includes(invocation.job_name)) &&
          (!deploymentId || deployment.id === deploymentId),
      );
      const page = paginate(found, req);
      return {
        body: {
          job_invocations: page.items.map(({ deployment, invocation }) =>
            jobInvocationView(deployment, invocation, req.now),
          ),
          links: page.links,
        },
      };
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/job-invocations/{job_invocation_id}',
    handler: (req, world) => {
      const app = findApp(world, req);
      const { deployment, invocation } = findInvocation(app, req, req.query.get('job_name'));
      return { body: jobInvocationView(deployment, invocation, req.now) };
    },
  },
  {
    method: 'POST',
    path: '/v2/apps/{app_id}/job-invocations/{job_invocation_id}/cancel',
    handler: (req, world) => {
      const app = findApp(world, req);
      const { deployment, invocation } = findInvocation(app, req, req.query.get('job_name'));
      const { phase } = jobRun(deployment, invocation, req.now);
      if (phase !== 'PENDING' && phase !== 'RUNNING') {
        throw failedPrecondition(
          `job invocation ${invocation.id} is ${phase}: only a pending or running one can be canceled`,
        );
      }
      invocation.canceled_ms = req.now;
      return { body: jobInvocationView(deployment, invocation, req.now) };
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/jobs/{job_name}/invocations/{job_invocation_id}/logs',
    handler: (req, world) => {
      const app = findApp(world, req);
      logType(req, ['JOB_INVOCATION']);
      const tail = req.query.get('tail_lines');
      if (tail !== null && !/^\d+$/.test(tail))
        throw invalidArgument(`tail_lines must be a whole number; got ${tail}`);
      const { deployment, invocation } = findInvocation(app, req, req.params.job_name);
      const deploymentId = req.query.get('deployment_id');
      if (deploymentId && deploymentId !== deployment.id)
        throw notFound('job invocation not found in that deployment');
      const { phase } = jobRun(deployment, invocation, req.now);
      const base = `${req.baseUrl}/sandbox/apps/${app.id}/job-invocations/${invocation.id}/logs`;
      return phase === 'PENDING' || phase === 'RUNNING'
        ? {
            body: {
              live_url: `${base}/live?${req.query.get('follow') === 'true' ? 'follow=true&' : ''}token=${token()}`,
            },
          }
        : { body: { historic_urls: [`${base}/archive/${invocation.job_name}.log?token=${token()}`] } };
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/regions',
    handler: () => ({
      body: { regions: APP_REGIONS.map((region) => ({ ...region, data_centers: [...region.data_centers] })) },
    }),
  },
  {
    method: 'GET',
    path: '/v2/apps/tiers/instance_sizes',
    handler: () => ({ body: { instance_sizes: APP_INSTANCE_SIZES.map((size) => ({ ...size })) } }),
  },
  {
    method: 'GET',
    path: '/v2/apps/tiers/instance_sizes/{slug}',
    handler: (req) => {
      const size = APP_INSTANCE_SIZES.find((s) => s.slug === req.params.slug);
      if (!size) throw notFound(`instance size ${req.params.slug} not found`);
      return { body: { instance_size: { ...size } } };
    },
  },
];
