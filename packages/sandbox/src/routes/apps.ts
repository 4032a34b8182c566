/**
 * App Platform: apps made from a checked spec (routes/apps-spec.ts), their deployments moving
 * through their phases (routes/apps-deployments.ts), rollbacks and restarts; logs, exec, alerts,
 * events, job invocations, metrics and the catalogues are in routes/apps-runtime.ts.
 *
 * - Create checks the spec, refuses a name another app of the account has (409), and starts the
 *   first deployment; `default_ingress` and `live_url` appear once a deployment is live (and only
 *   for an app that serves HTTP), the primary custom domain taking over `live_url` once ACTIVE.
 * - Update (PUT with a spec) and `POST .../deployments` start a new deployment, which replaces
 *   one still in progress; cancel ends one in progress, and only such a one.
 * - Rollback re-deploys an earlier deployment that was live (reusing its build unless it has
 *   static sites) and pins the app to it: until the rollback is committed or reverted, the app
 *   takes no new deployment (update, deploy, restart, another rollback). `skip_pin` commits it at
 *   once. Revert deploys the spec from before the rollback again.
 * - Restart redeploys the live deployment's spec without a build.
 * - Delete answers the app's id; the app is gone (404) from then on.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { cloneData } from '../clone.js';
import {
  APP_REGIONS,
  type AppSpec,
  DEFAULT_APP_REGION,
  DOMAIN_CONFIGURING_MS,
  type StoredApp,
  type StoredAppDeployment,
} from '../families/apps.js';
import { HttpError, notFound, paginate, type Route } from '../http.js';
import { iso } from '../time.js';
import type { World } from '../world.js';
import {
  activeDeployment,
  deploymentView,
  findApp,
  findDeployment,
  inProgressDeployment,
  liveAt,
  phaseAt,
  startDeployment,
} from './apps-deployments.js';
import { appsRuntimeRoutes } from './apps-runtime.js';
import {
  appCost,
  checkSpec,
  componentsOf,
  failedPrecondition,
  invalidArgument,
  isStaticApp,
  servesHttp,
  staticAppsOf,
  suggestName,
  tierOf,
} from './apps-spec.js';
import { assignToProject, dropFromProject, projectForCreate, projectOf } from './projects.js';

/** How many deployments back a rollback may go. */
const ROLLBACK_REVISIONS = 10;
/** How long a custom domain's certificate lasts once issued. */
const CERTIFICATE_MS = 90 * 24 * 3_600_000;

const urnOf = (app: StoredApp) => `do:app:${app.id}`;

/** When the app's first deployment went live, if one has. */
function firstLive(app: StoredApp, now: number): number | undefined {
  const times = app.deployments.map(liveAt).filter((t) => t <= now);
  return times.length ? Math.min(...times) : undefined;
}

/** A custom domain's phase: PENDING until the app is live, CONFIGURING while its certificate is issued, then ACTIVE. */
function domainState(app: StoredApp, domain: string, now: number) {
  const entry = app.domains[domain];
  const live = firstLive(app, now);
  if (!entry || live === undefined) return { phase: 'PENDING' as const, since: entry?.added_ms ?? now };
  const start = Math.max(entry.added_ms, live);
  if (now < start + DOMAIN_CONFIGURING_MS) return { phase: 'CONFIGURING' as const, since: start };
  return { phase: 'ACTIVE' as const, since: start + DOMAIN_CONFIGURING_MS };
}

const DOMAIN_STEPS = [
  'ensure-zone',
  'ensure-record',
  'verify-cname',
  'ensure-certificate',
  'create-deployment',
];

function domainsView(app: StoredApp, now: number) {
  return (app.spec.domains ?? []).map((spec) => {
    const { phase, since } = domainState(app, spec.domain, now);
    const step = phase === 'ACTIVE' ? DOMAIN_STEPS.length : phase === 'CONFIGURING' ? 3 : 0;
    return {
      id: app.domains[spec.domain]?.id ?? '',
      phase,
      spec: cloneData(spec),
      rotate_validation_records: false,
      ...(phase === 'ACTIVE' ? { certificate_expires_at: iso(since + CERTIFICATE_MS) } : {}),
      progress: {
        steps: DOMAIN_STEPS.map((name, i) => ({
          name,
          status: i < step ? 'SUCCESS' : i === step && phase === 'CONFIGURING' ? 'RUNNING' : 'PENDING',
        })),
      },
    };
  });
}

/** The host the app is served at `now`: its ACTIVE primary domain, else its default ingress; none before it is live. */
function liveHost(app: StoredApp, now: number): string | undefined {
  const active = activeDeployment(app, now);
  if (!active || !servesHttp(active.spec)) return undefined;
  const primary = app.spec.domains?.find((d) => d.type === 'PRIMARY');
  if (primary && domainState(app, primary.domain, now).phase === 'ACTIVE') {
    return primary.domain.toLowerCase().replace(/\.$/, '');
  }
  return app.default_host;
}

/** An app as the platform shows it at `now`; lists show `project_id` only when asked (`with_projects`). */
export function appView(world: World, app: StoredApp, now: number, withProject = true) {
  const active = activeDeployment(app, now);
  const inProgress = inProgressDeployment(app, now);
  const pinned = app.rollback && app.deployments.find((d) => d.id === app.rollback?.deployment_id);
  const host = liveHost(app, now);
  const last = app.deployments.at(-1);
  const domains = domainsView(app, now);
  return {
    id: app.id,
    owner_uuid: world.account.uuid,
    spec: cloneData(app.spec),
    ...(host ? { default_ingress: `https://${app.default_host}` } : {}),
    created_at: iso(app.created_ms),
    updated_at: iso(app.updated_ms),
    ...(active ? { active_deployment: deploymentView(app, active, now) } : {}),
    ...(inProgress ? { in_progress_deployment: deploymentView(app, inProgress, now) } : {}),
    ...(pinned ? { pinned_deployment: deploymentView(app, pinned, now) } : {}),
    ...(last ? { last_deployment_created_at: iso(last.created_ms) } : {}),
    ...(host ? { live_url: `https://${host}`, live_url_base: `https://${host}`, live_domain: host } : {}),
    region: cloneData(APP_REGIONS.find((r) => r.slug === app.region) ?? APP_REGIONS[0]),
    tier_slug: tierOf(app.spec),
    ...(withProject ? { project_id: projectOf(world, { urn: urnOf(app), created_ms: app.created_ms }) } : {}),
    ...(domains.length ? { domains } : {}),
  };
}

/**
 * Refuses a name another app of the account has: the platform's names are unique in an account
 * (its propose answers `app_name_available: false` and a suggestion; its create refuses). The
 * status is the API's usual one for a name taken, 409 `conflict`: the description documents none.
 */
function checkNameFree(world: World, spec: AppSpec, except?: string): void {
  if (world.apps.some((a) => a.id !== except && a.spec.name === spec.name)) {
    throw new HttpError(409, 'conflict', `an app named ${spec.name} already exists in this account`);
  }
}

/** The app's alerts and custom domains follow its spec: kept (ids, destinations) while the spec keeps them. */
function followSpec(app: StoredApp, now: number): void {
  const wanted = [
    ...(app.spec.alerts ?? []).map((alert) => ({ component_name: '', rule: alert.rule })),
    ...componentsOf(app.spec).flatMap(({ component }) =>
      (component.alerts ?? []).map((alert) => ({ component_name: component.name, rule: alert.rule })),
    ),
  ];
  app.alerts = wanted.map(
    (want) =>
      app.alerts.find((a) => a.component_name === want.component_name && a.rule === want.rule) ?? {
        id: randomUUID(),
        ...want,
        emails: [],
        slack_webhooks: [],
        created_ms: now,
      },
  );
  const domains: StoredApp['domains'] = {};
  for (const { domain } of app.spec.domains ?? []) {
    domains[domain] = app.domains[domain] ?? { id: randomUUID(), added_ms: now };
  }
  app.domains = domains;
}

/** Sets the app's spec (checked) and what follows it. */
function setSpec(app: StoredApp, spec: AppSpec, now: number): void {
  app.spec = spec;
  if (spec.region) app.region = spec.region;
  app.updated_ms = now;
  followSpec(app, now);
}

function refuseWhilePinned(app: StoredApp): void {
  if (app.rollback) {
    throw failedPrecondition(
      `the app is pinned to rollback deployment ${app.rollback.deployment_id}: commit or revert the rollback before deploying again`,
    );
  }
}

/** Five lowercase letters, as the platform's default ingress hosts end. */
const ingressSuffix = () => Array.from({ length: 5 }, () => String.fromCharCode(97 + randomInt(26))).join('');

const optionalBoolean = (body: Record<string, unknown>, field: string): boolean => {
  const value = body[field];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean')
    throw invalidArgument(`${field} must be a boolean; got ${JSON.stringify(value)}`);
  return value;
};

const deploymentAnswer = (app: StoredApp, deployment: StoredAppDeployment, now: number) => ({
  body: { deployment: deploymentView(app, deployment, now) },
});

/** The condition a rollback to `target` breaks, if any, and the warnings it comes with. */
function rollbackCheck(app: StoredApp, target: StoredAppDeployment, now: number) {
  const warnings: { code: string; message: string; components?: string[] }[] = [];
  const unpinned = (code: string, message: string) => ({ error: { code, message }, warnings });
  if (app.rollback) {
    return unpinned('app_pinned', `the app is pinned to rollback deployment ${app.rollback.deployment_id}`);
  }
  const { phase } = phaseAt(app, target, now);
  if (phase === 'CANCELED') {
    return unpinned('incompatible_result', 'deployment result "canceled" is unsuitable for rollback');
  }
  if (phase !== 'ACTIVE' && phase !== 'SUPERSEDED') {
    return unpinned(
      'incompatible_phase',
      `deployment ${target.id} is ${phase}: only a deployment that was live can be rolled back to`,
    );
  }
  if (phase === 'ACTIVE') {
    return unpinned('incompatible_phase', `deployment ${target.id} is the app's active deployment`);
  }
  if (inProgressDeployment(app, now)) {
    return unpinned('incompatible_phase', 'the app has a deployment in progress');
  }
  const index = app.deployments.findIndex((d) => d.id === target.id);
  if (app.deployments.length - 1 - index > ROLLBACK_REVISIONS) {
    return unpinned(
      'exceeded_revision_limit',
      `an app rolls back to one of its last ${ROLLBACK_REVISIONS} deployments`,
    );
  }
  if ((target.spec.region ?? app.region) !== app.region) {
    return unpinned(
      'region_conflict',
      `deployment ${target.id} ran in ${target.spec.region}, the app runs in ${app.region}`,
    );
  }
  const images = componentsOf(target.spec).filter(
    ({ component }) => component.image && !component.image.digest,
  );
  if (images.length) {
    warnings.push({
      code: 'image_source_missing_digest',
      components: images.map(({ component }) => component.name),
      message:
        'one or more components are missing an image digest and are not guaranteed rollback to the old version.',
    });
  }
  const sites = target.spec.static_sites ?? [];
  if (sites.length) {
    warnings.push({
      code: 'static_site_requires_rebuild',
      components: sites.map((s) => s.name),
      message: 'static sites are rebuilt from their source to roll back, which takes longer.',
    });
  }
  return { error: undefined, warnings };
}

function rollbackTarget(app: StoredApp, body: Record<string, unknown>): StoredAppDeployment {
  const id = body.deployment_id;
  if (typeof id !== 'string' || id === '') throw invalidArgument('deployment_id is required');
  return findDeployment(app, id);
}

function requireRollback(app: StoredApp): NonNullable<StoredApp['rollback']> {
  if (!app.rollback) throw failedPrecondition('the app has no rollback to commit or revert');
  return app.rollback;
}

export const appsCoreRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/apps',
    handler: (req, world) => {
      const withProjects = req.query.get('with_projects') === 'true';
      const page = paginate(world.apps, req);
      return {
        body: {
          apps: page.items.map((app) => appView(world, app, req.now, withProjects)),
          links: page.links,
          meta: page.meta,
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/v2/apps',
    handler: (req, world) => {
      const spec = checkSpec(req.body.spec);
      checkNameFree(world, spec);
      const projectId = projectForCreate(world, req.body.project_id);
      const app: StoredApp = {
        id: randomUUID(),
        spec,
        region: spec.region ?? DEFAULT_APP_REGION,
        default_host: `${spec.name}-${ingressSuffix()}.ondigitalocean.app`,
        created_ms: req.now,
        updated_ms: req.now,
        deployments: [],
        alerts: [],
        domains: {},
      };
      followSpec(app, req.now);
      startDeployment(app, req.now, { spec, cause: 'app created' });
      world.apps.push(app);
      assignToProject(world, urnOf(app), projectId, req.now);
      return { body: { app: appView(world, app, req.now) } };
    },
  },
  {
    method: 'POST',
    path: '/v2/apps/propose',
    handler: (req, world) => {
      const appId = req.body.app_id;
      if (appId !== undefined && appId !== '' && !world.apps.some((a) => a.id === appId)) {
        throw notFound('app not found');
      }
      const spec = checkSpec(req.body.spec);
      const except = typeof appId === 'string' && appId !== '' ? appId : undefined;
      const taken = new Set(world.apps.filter((a) => a.id !== except).map((a) => a.spec.name));
      const available = !taken.has(spec.name);
      const others = staticAppsOf(world.apps, except);
      return {
        body: {
          app_name_available: available,
          ...(available ? {} : { app_name_suggestion: suggestName(spec.name, taken) }),
          app_is_static: isStaticApp(spec),
          existing_static_apps: String(others),
          app_cost: appCost(spec, others),
          spec,
        },
      };
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{id}',
    handler: (req, world) => ({ body: { app: appView(world, findApp(world, req), req.now) } }),
  },
  {
    method: 'PUT',
    path: '/v2/apps/{id}',
    handler: (req, world) => {
      const app = findApp(world, req);
      const rebuild = optionalBoolean(req.body, 'update_all_source_versions');
      const spec = checkSpec(req.body.spec);
      checkNameFree(world, spec, app.id);
      refuseWhilePinned(app);
      setSpec(app, spec, req.now);
      startDeployment(app, req.now, { spec, cause: 'app spec updated', force_build: rebuild });
      return { body: { app: appView(world, app, req.now) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/apps/{id}',
    handler: (req, world) => {
      const app = findApp(world, req);
      world.apps = world.apps.filter((a) => a.id !== app.id);
      dropFromProject(world, urnOf(app));
      return { body: { id: app.id } };
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/deployments',
    handler: (req, world) => {
      const app = findApp(world, req);
      const types = req.query
        .getAll('deployment_types')
        .flatMap((t) => t.split(','))
        .filter(Boolean);
      const newestFirst = app.deployments.filter((d) => !types.length || types.includes(d.type)).reverse();
      const page = paginate(newestFirst, req);
      return {
        body: {
          deployments: page.items.map((d) => deploymentView(app, d, req.now)),
          links: page.links,
          meta: page.meta,
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/v2/apps/{app_id}/deployments',
    handler: (req, world) => {
      const app = findApp(world, req);
      const force = optionalBoolean(req.body, 'force_build');
      refuseWhilePinned(app);
      const deployment = startDeployment(app, req.now, {
        spec: app.spec,
        cause: force ? 'manual (forced rebuild)' : 'manual',
        force_build: force,
      });
      return deploymentAnswer(app, deployment, req.now);
    },
  },
  {
    method: 'GET',
    path: '/v2/apps/{app_id}/deployments/{deployment_id}',
    handler: (req, world) => {
      const app = findApp(world, req);
      return deploymentAnswer(app, findDeployment(app, req.params.deployment_id), req.now);
    },
  },
  {
    method: 'POST',
    path: '/v2/apps/{app_id}/deployments/{deployment_id}/cancel',
    handler: (req, world) => {
      const app = findApp(world, req);
      const deployment = findDeployment(app, req.params.deployment_id);
      const { phase } = phaseAt(app, deployment, req.now);
      if (phase === 'ACTIVE' || phase === 'SUPERSEDED' || phase === 'CANCELED') {
        throw failedPrecondition(
          `deployment ${deployment.id} is ${phase}: only a deployment in progress can be canceled`,
        );
      }
      deployment.ended = { phase: 'CANCELED', at_ms: req.now };
      return deploymentAnswer(app, deployment, req.now);
    },
  },
  {
    method: 'POST',
    path: '/v2/apps/{app_id}/restart',
    handler: (req, world) => {
      const app = findApp(world, req);
      const components = req.body.components;
      if (
        components !== undefined &&
        components !== null &&
        (!Array.isArray(components) || !components.every((c) => typeof c === 'string'))
      ) {
        throw invalidArgument('components must be a list of component names');
      }
      refuseWhilePinned(app);
      const active = activeDeployment(app, req.now);
      if (!active) throw failedPrecondition('the app has no active deployment to restart');
      if (inProgressDeployment(app, req.now)) {
        throw failedPrecondition('the app has a deployment in progress: restart it once that one is live');
      }
      const running = new Set(
        componentsOf(active.spec)
          .filter(({ kind }) => kind === 'services' || kind === 'workers')
          .map(({ component }) => component.name),
      );
      const named = (components as string[] | undefined | null) ?? [];
      const unknown = named.find((name) => !running.has(name));
      if (unknown !== undefined) {
        throw invalidArgument(`${unknown} is not a service or worker of the app's active deployment`);
      }
      const deployment = startDeployment(app, req.now, {
        spec: active.spec,
        cause: named.length ? `restart of ${named.join(', ')}` : 'app restart',
        builds: false,
      });
      return deploymentAnswer(app, deployment, req.now);
    },
  },
  {
    method: 'POST',
    path: '/v2/apps/{app_id}/rollback/validate',
    handler: (req, world) => {
      const app = findApp(world, req);
      const { error, warnings } = rollbackCheck(app, rollbackTarget(app, req.body), req.now);
      return {
        body: {
          valid: error === undefined,
          ...(error ? { error } : {}),
          ...(warnings.length ? { warnings } : {}),
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/v2/apps/{app_id}/rollback',
    handler: (req, world) => {
      const app = findApp(world, req);
      const target = rollbackTarget(app, req.body);
      const skipPin = optionalBoolean(req.body, 'skip_pin');
      const { error } = rollbackCheck(app, target, req.now);
      if (error) throw failedPrecondition(`${error.code}: ${error.message}`);
      const specBefore = cloneData(app.spec);
      setSpec(app, cloneData(target.spec), req.now);
      const deployment = startDeployment(app, req.now, {
        spec: target.spec,
        cause: `manual rollback to ${target.id}`,
        type: 'MANUAL_ROLLBACK',
        builds: (target.spec.static_sites ?? []).length > 0,
        cloned_from: target.id,
      });
      if (!skipPin) app.rollback = { deployment_id: deployment.id, spec_before: specBefore };
      return deploymentAnswer(app, deployment, req.now);
    },
  },
  {
    method: 'POST',
    path: '/v2/apps/{app_id}/rollback/commit',
    handler: (req, world) => {
      const app = findApp(world, req);
      requireRollback(app);
      delete app.rollback;
      return { status: 200 };
    },
  },
  {
    method: 'POST',
    path: '/v2/apps/{app_id}/rollback/revert',
    handler: (req, world) => {
      const app = findApp(world, req);
      const spec = cloneData(requireRollback(app).spec_before);
      delete app.rollback;
      setSpec(app, spec, req.now);
      const deployment = startDeployment(app, req.now, { spec, cause: 'rollback reverted' });
      return deploymentAnswer(app, deployment, req.now);
    },
  },
];

/** Every App Platform route. */
export const appsRoutes: Route[] = [...appsCoreRoutes, ...appsRuntimeRoutes];
