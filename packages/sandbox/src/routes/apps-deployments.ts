/**
 * App deployments: how one moves through its phases on the sandbox clock, and how the platform
 * shows it. A deployment that builds is PENDING_BUILD, BUILDING, PENDING_DEPLOY, DEPLOYING, then
 * ACTIVE; one that deploys what was built before (a restart, most rollbacks) starts at
 * PENDING_DEPLOY. An ACTIVE deployment is SUPERSEDED the moment a newer one is ACTIVE. All of it
 * is derived from timestamps when read; a request stores only what it ends itself (a cancel, or a
 * newer deployment replacing one still in progress). Progress steps (build, deploy and their
 * components) carry their own times, and each deployment's PRE_DEPLOY and POST_DEPLOY jobs run
 * at their place in it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { cloneData } from '../clone.js';
import {
  type AppComponentSpec,
  type AppDeploymentType,
  type AppSpec,
  PHASE_MS,
  POST_DEPLOY_JOB_MS,
  type StoredApp,
  type StoredAppDeployment,
  type StoredJobInvocation,
} from '../families/apps.js';
import { notFound, type SandboxRequest } from '../http.js';
import { iso } from '../time.js';
import type { World } from '../world.js';
import { COMPONENT_KINDS, type ComponentKind, componentsOf, KIND_LABEL, tierOf } from './apps-spec.js';

export type DeploymentPhase =
  | 'PENDING_BUILD'
  | 'BUILDING'
  | 'PENDING_DEPLOY'
  | 'DEPLOYING'
  | 'ACTIVE'
  | 'SUPERSEDED'
  | 'CANCELED';

interface Span {
  phase: keyof typeof PHASE_MS;
  start: number;
  end: number;
}

/** The phases a deployment goes through before it is live, with their times. */
function spans(deployment: StoredAppDeployment): Span[] {
  const phases = deployment.builds
    ? (['PENDING_BUILD', 'BUILDING', 'PENDING_DEPLOY', 'DEPLOYING'] as const)
    : (['PENDING_DEPLOY', 'DEPLOYING'] as const);
  let at = deployment.created_ms;
  return phases.map((phase) => {
    const span = { phase, start: at, end: at + PHASE_MS[phase] };
    at = span.end;
    return span;
  });
}

/** When a deployment is (or was, or will be) in one of the phases before it is live. */
export const spanOf = (deployment: StoredAppDeployment, phase: Span['phase']) =>
  spans(deployment).find((span) => span.phase === phase);

/** When a deployment is (or was, or would be) live; never for one a request ended first. */
export function liveAt(deployment: StoredAppDeployment): number {
  if (deployment.ended) return Number.POSITIVE_INFINITY;
  return spans(deployment).at(-1)?.end ?? deployment.created_ms;
}

/** A deployment's phase at `now`, and since when it has been in it. */
export function phaseAt(
  app: StoredApp,
  deployment: StoredAppDeployment,
  now: number,
): { phase: DeploymentPhase; since: number } {
  if (deployment.ended && now >= deployment.ended.at_ms) {
    return { phase: deployment.ended.phase, since: deployment.ended.at_ms };
  }
  const live = liveAt(deployment);
  if (now < live) {
    const span = spans(deployment).find((s) => now < s.end) ?? spans(deployment)[0];
    return { phase: span?.phase ?? 'PENDING_BUILD', since: span?.start ?? deployment.created_ms };
  }
  const index = app.deployments.findIndex((d) => d.id === deployment.id);
  const replaced = Math.min(...app.deployments.slice(index + 1).map(liveAt));
  if (replaced <= now) return { phase: 'SUPERSEDED', since: replaced };
  return { phase: 'ACTIVE', since: live };
}

/** The deployment serving the app at `now`: the newest one live. */
export function activeDeployment(app: StoredApp, now: number): StoredAppDeployment | undefined {
  return app.deployments.findLast((d) => liveAt(d) <= now);
}

/** The deployment on its way at `now` (at most one: a new deployment ends the one before). */
export function inProgressDeployment(app: StoredApp, now: number): StoredAppDeployment | undefined {
  return app.deployments.findLast((d) => !d.ended && liveAt(d) > now);
}

/** The app a request's path names (`{id}` or `{app_id}`), or, for GET /v2/apps/{id}, the one `?name=` names. */
export function findApp(world: World, request: SandboxRequest): StoredApp {
  // Only GET /v2/apps/{id} takes a name (its path parameter is `id`; every other path's is `app_id`).
  const name = request.method === 'GET' && request.params.id !== undefined ? request.query.get('name') : null;
  const id = request.params.app_id ?? request.params.id;
  const app = name ? world.apps.find((a) => a.spec.name === name) : world.apps.find((a) => a.id === id);
  if (!app) throw notFound('app not found');
  return app;
}

export function findDeployment(app: StoredApp, id: string | undefined): StoredAppDeployment {
  const found = app.deployments.find((d) => d.id === id);
  if (!found) throw notFound('deployment not found');
  return found;
}

/** A stable 40-hex-digit commit for a repository branch: the branch's head does not move in the sandbox. */
export const commitOf = (source: string) => createHash('sha1').update(source).digest('hex');

/** Where a component's code comes from (`github:acme/web@main`), or undefined for an image. */
export function sourceKey(component: AppComponentSpec): string | undefined {
  for (const kind of ['github', 'gitlab', 'bitbucket'] as const) {
    const source = component[kind];
    if (source?.repo) return `${kind}:${source.repo}@${source.branch ?? 'main'}`;
  }
  if (component.git?.repo_clone_url)
    return `git:${component.git.repo_clone_url}@${component.git.branch ?? 'main'}`;
  return undefined;
}

/**
 * Starts a deployment of `spec`, ending the one in progress (the platform replaces it: it is
 * SUPERSEDED from now on). A build is reused when nothing changed since the active deployment and
 * none was forced.
 */
export function startDeployment(
  app: StoredApp,
  now: number,
  init: {
    spec: AppSpec;
    cause: string;
    type?: AppDeploymentType;
    builds?: boolean;
    force_build?: boolean;
    cloned_from?: string;
  },
): StoredAppDeployment {
  const previous = inProgressDeployment(app, now);
  if (previous) previous.ended = { phase: 'SUPERSEDED', at_ms: now };
  const active = activeDeployment(app, now);
  const builds = init.builds ?? true;
  const deployment: StoredAppDeployment = {
    id: randomUUID(),
    event_id: randomUUID(),
    spec: cloneData(init.spec),
    cause: init.cause,
    type: init.type ?? 'MANUAL',
    created_ms: now,
    builds,
    build_reused:
      builds && !init.force_build && !!active && JSON.stringify(active.spec) === JSON.stringify(init.spec),
    ...(init.cloned_from ? { cloned_from: init.cloned_from } : {}),
    job_invocations: (init.spec.jobs ?? [])
      .filter((job) => job.kind === 'PRE_DEPLOY' || job.kind === 'POST_DEPLOY')
      .map((job) => ({ id: randomUUID(), job_name: job.name })),
  };
  app.deployments.push(deployment);
  return deployment;
}

type StepStatus = 'PENDING' | 'RUNNING' | 'ERROR' | 'SUCCESS';

interface StepPlan {
  name: string;
  start: number;
  end: number;
  component_name?: string;
  message_base?: string;
  steps?: StepPlan[];
  reused?: boolean;
}

const STEP_MS = 500;
const BUILDING: Partial<Record<ComponentKind, string>> = {
  services: 'Building service',
  static_sites: 'Building static site',
  workers: 'Building worker',
  jobs: 'Building job',
  functions: 'Building functions',
};

/** The steps a deployment goes through, with the times each runs. */
function plan(deployment: StoredAppDeployment): StepPlan[] {
  const steps: StepPlan[] = [];
  const components = componentsOf(deployment.spec);
  const building = spanOf(deployment, 'BUILDING');
  if (building) {
    const from = building.start + STEP_MS;
    const built = components.filter(({ component }) => !component.image);
    steps.push({
      name: 'build',
      start: building.start,
      end: building.end,
      steps: [
        { name: 'initialize', start: building.start, end: from },
        {
          name: 'components',
          start: from,
          end: building.end,
          ...(built.length
            ? {
                steps: built.map(({ kind, component }) => ({
                  name: component.name,
                  component_name: component.name,
                  message_base: BUILDING[kind] ?? 'Building',
                  start: from,
                  end: building.end,
                  reused: deployment.build_reused,
                })),
              }
            : {}),
        },
      ],
    });
  }
  const deploying = spanOf(deployment, 'DEPLOYING');
  if (deploying) {
    const from = deploying.start + STEP_MS;
    const to = deploying.end - STEP_MS;
    const middle = (from + to) / 2;
    const deployed = components.filter(({ kind }) => kind !== 'jobs');
    steps.push({
      name: 'deploy',
      start: deploying.start,
      end: deploying.end,
      steps: [
        { name: 'initialize', start: deploying.start, end: from },
        {
          name: 'components',
          start: from,
          end: to,
          ...(deployed.length
            ? {
                steps: deployed.map(({ kind, component }) =>
                  kind === 'services' || kind === 'workers'
                    ? {
                        name: component.name,
                        component_name: component.name,
                        start: from,
                        end: to,
                        steps: [
                          {
                            name: 'deploy',
                            component_name: component.name,
                            message_base: `Deploying ${KIND_LABEL[kind]}`,
                            start: from,
                            end: middle,
                          },
                          {
                            name: 'wait',
                            component_name: component.name,
                            message_base: `Waiting for ${KIND_LABEL[kind]}`,
                            start: middle,
                            end: to,
                          },
                        ],
                      }
                    : {
                        name: component.name,
                        component_name: component.name,
                        message_base: `Deploying ${KIND_LABEL[kind]}`,
                        start: from,
                        end: to,
                      },
                ),
              }
            : {}),
        },
        { name: 'finalize', start: to, end: deploying.end },
      ],
    });
  }
  return steps;
}

/** Milliseconds as the platform writes step times (with their fraction). */
const precise = (ms: number) => new Date(ms).toISOString();

interface Counts {
  PENDING: number;
  RUNNING: number;
  ERROR: number;
  SUCCESS: number;
}

export interface StepView {
  name: string;
  status: StepStatus;
  component_name?: string;
  message_base?: string;
  started_at?: string;
  ended_at?: string;
  reason?: { code: string; message: string };
  steps?: StepView[];
}

/** A planned step as the platform shows it at `at`; `stopped` is the request that ended the deployment then. */
function stepView(
  step: StepPlan,
  at: number,
  stopped: StoredAppDeployment['ended'],
  counts: Counts,
): StepView {
  const children = step.steps?.map((child) => stepView(child, at, stopped, counts));
  let status: StepStatus;
  if (children) {
    const statuses = children.map((child) => child.status);
    status = statuses.includes('ERROR')
      ? 'ERROR'
      : statuses.every((s) => s === 'SUCCESS')
        ? 'SUCCESS'
        : statuses.every((s) => s === 'PENDING')
          ? 'PENDING'
          : stopped
            ? 'ERROR'
            : 'RUNNING';
  } else {
    status = at < step.start ? 'PENDING' : at < step.end ? (stopped ? 'ERROR' : 'RUNNING') : 'SUCCESS';
    counts[status]++;
  }
  const reason =
    status === 'ERROR' && stopped
      ? stopped.phase === 'CANCELED'
        ? { code: 'DeployCanceled', message: 'The deployment was canceled.' }
        : { code: 'DeploySuperseded', message: 'A newer deployment replaced this one.' }
      : step.reused && status === 'SUCCESS'
        ? {
            code: 'PreviousBuildReused',
            message: 'Nothing changed since the previous build, so it was reused.',
          }
        : undefined;
  return {
    name: step.name,
    status,
    ...(step.component_name ? { component_name: step.component_name } : {}),
    ...(step.message_base ? { message_base: step.message_base } : {}),
    ...(status !== 'PENDING' ? { started_at: precise(step.start) } : {}),
    ...(status === 'SUCCESS' ? { ended_at: precise(step.end) } : {}),
    ...(status === 'ERROR' && stopped ? { ended_at: precise(stopped.at_ms) } : {}),
    ...(reason ? { reason } : {}),
    ...(children ? { steps: children } : {}),
  };
}

function progressView(deployment: StoredAppDeployment, now: number) {
  const stopped = deployment.ended && now >= deployment.ended.at_ms ? deployment.ended : undefined;
  const at = stopped ? stopped.at_ms : now;
  const counts: Counts = { PENDING: 0, RUNNING: 0, ERROR: 0, SUCCESS: 0 };
  const steps = plan(deployment).map((step) => stepView(step, at, stopped, counts));
  return {
    pending_steps: counts.PENDING,
    running_steps: counts.RUNNING,
    success_steps: counts.SUCCESS,
    error_steps: counts.ERROR,
    total_steps: counts.PENDING + counts.RUNNING + counts.SUCCESS + counts.ERROR,
    steps,
    summary_steps: steps.map(({ steps: _, ...summary }) => summary),
  };
}

/** The functions namespace a functions component deploys to: stable for an app and component. */
export const functionsNamespace = (app: StoredApp, name: string) => {
  const hex = createHash('sha256').update(`${app.id}/${name}`).digest('hex');
  return `fn-${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

/** A deployment as the platform shows it at `now`. */
export function deploymentView(app: StoredApp, deployment: StoredAppDeployment, now: number) {
  const { phase, since } = phaseAt(app, deployment, now);
  const built = (kind: ComponentKind) =>
    (deployment.spec[kind] ?? []).map((component) => {
      const source = sourceKey(component);
      return {
        name: component.name,
        ...(kind === 'functions' ? { namespace: functionsNamespace(app, component.name) } : {}),
        ...(source ? { source_commit_hash: commitOf(source) } : {}),
      };
    });
  const components: Record<string, unknown> = {};
  for (const kind of COMPONENT_KINDS) {
    const items = built(kind);
    if (items.length) components[kind] = items;
  }
  return {
    id: deployment.id,
    spec: cloneData(deployment.spec),
    ...components,
    phase_last_updated_at: iso(since),
    created_at: iso(deployment.created_ms),
    updated_at: iso(since),
    cause: deployment.cause,
    ...(deployment.cloned_from ? { cloned_from: deployment.cloned_from } : {}),
    progress: progressView(deployment, now),
    phase,
    tier_slug: tierOf(deployment.spec),
  };
}

export type JobPhase = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'CANCELED' | 'SKIPPED';

/**
 * A job invocation's phase at `now`, and when it started and ended: a PRE_DEPLOY job runs while
 * its deployment is PENDING_DEPLOY, a POST_DEPLOY job once it is live. A deployment ended before
 * the job's turn skips it; a cancel (of the invocation, or of its deployment) while it runs
 * cancels it.
 */
export function jobRun(
  deployment: StoredAppDeployment,
  invocation: StoredJobInvocation,
  now: number,
): { phase: JobPhase; started?: number; completed?: number } {
  const job = deployment.spec.jobs?.find((j) => j.name === invocation.job_name);
  let start: number;
  let end: number;
  if (job?.kind === 'PRE_DEPLOY') {
    const span = spanOf(deployment, 'PENDING_DEPLOY');
    start = span?.start ?? deployment.created_ms;
    end = span?.end ?? start;
  } else {
    const live = deployment.ended ? Number.POSITIVE_INFINITY : liveAt(deployment);
    start = live;
    end = live + POST_DEPLOY_JOB_MS;
  }
  const stops = [invocation.canceled_ms, deployment.ended?.at_ms].filter((t): t is number => t !== undefined);
  const stop = stops.length ? Math.min(...stops) : undefined;
  if (stop !== undefined && stop <= now && stop < end) {
    if (stop < start)
      return { phase: invocation.canceled_ms === stop ? 'CANCELED' : 'SKIPPED', completed: stop };
    return { phase: 'CANCELED', started: start, completed: stop };
  }
  if (now < start) return { phase: 'PENDING' };
  if (now < end) return { phase: 'RUNNING', started: start };
  return { phase: 'SUCCEEDED', started: start, completed: end };
}

export function jobInvocationView(
  deployment: StoredAppDeployment,
  invocation: StoredJobInvocation,
  now: number,
) {
  const run = jobRun(deployment, invocation, now);
  return {
    id: invocation.id,
    job_name: invocation.job_name,
    deployment_id: deployment.id,
    phase: run.phase,
    created_at: iso(deployment.created_ms),
    ...(run.started !== undefined ? { started_at: iso(run.started) } : {}),
    ...(run.completed !== undefined ? { completed_at: iso(run.completed) } : {}),
  };
}
