/**
 * What the log URLs of App Platform's answers hold (apps-runtime.ts makes them): lines of
 * `COMPONENT TIMESTAMP MESSAGE`, as the platform's log lines read (doctl's --no-prefix drops the
 * first two words). A deployment's build lines fall in its BUILDING phase, its deploy lines in
 * DEPLOYING, its run lines from when it is live until it is superseded (a health check every
 * RUN_EVERY_MS of sandbox time); a job invocation's, while it runs. They are made from the
 * deployment when read, up to the sandbox's now: an archive (a plain text file) holds what there
 * is, and a live URL (a WebSocket, live-logs.ts) sends more as sandbox time passes, until the part
 * it shows is over. Each URL carries a token, as the platform's do; no API token is asked for.
 */
import type { StoredApp, StoredAppDeployment } from '../families/apps.js';
import { forbidden, notFound } from '../http.js';
import type { World } from '../world.js';
import { commitOf, jobRun, liveAt, phaseAt, sourceKey, spanOf } from './apps-deployments.js';
import { invocationsOf } from './apps-runtime.js';
import { componentsOf } from './apps-spec.js';

/** A running component's health check, on the sandbox clock. */
export const RUN_EVERY_MS = 10_000;
/** The most lines an archive or a live stream's backlog holds: the newest. */
export const MAX_LOG_LINES = 1_000;

/** The lines there are now, oldest first, and whether more may come (the part they show still runs). */
export interface LogLines {
  lines: { at: number; text: string }[];
  open: boolean;
}

interface Line {
  at: number;
  component: string;
  text: string;
}

/** The token a log URL carries: 32 hex digits, as apps-runtime.ts makes them. */
const TOKEN = /^[0-9a-f]{32}$/;

const DEPLOYMENT_LOGS =
  /^\/sandbox\/apps\/([^/]+)\/deployments\/([^/]+)\/logs\/(?:live|archive\/([^/]+)\.log)$/;
const JOB_LOGS = /^\/sandbox\/apps\/([^/]+)\/job-invocations\/([^/]+)\/logs\/(?:live|archive\/[^/]+\.log)$/;

/** Whether a path is one of the log URLs (answered without an API token). */
export const isLogPath = (path: string) => DEPLOYMENT_LOGS.test(path) || JOB_LOGS.test(path);

/**
 * The lines at a log URL (`path` as sent, its query) at sandbox time `now`, or the platform's 403
 * (no token) or 404 (no such app, deployment or invocation: deleted since, say).
 */
export function logLinesAt(world: World, path: string, query: URLSearchParams, now: number): LogLines {
  if (!TOKEN.test(query.get('token') ?? '')) throw forbidden('The log URL holds no valid token.');
  const decoded = decodeURIComponent(path);
  const job = JOB_LOGS.exec(decoded);
  if (job) {
    const app = appOf(world, job[1]);
    const found = invocationsOf(app).find(({ invocation }) => invocation.id === job[2]);
    if (!found) throw notFound('job invocation not found');
    return shown(jobLines(found.deployment, found.invocation, now), now);
  }
  const match = DEPLOYMENT_LOGS.exec(decoded);
  if (!match) throw notFound();
  const app = appOf(world, match[1]);
  const deployment = app.deployments.find((d) => d.id === match[2]);
  if (!deployment) throw notFound('deployment not found');
  // An archive names its part (`build-web`); a live URL's query does.
  const part = match[3];
  // `build-web`: the type, then the component's name (which may hold `-`).
  const at = part?.indexOf('-') ?? -1;
  const [type, component] = part
    ? [at === -1 ? part : part.slice(0, at), at === -1 ? undefined : part.slice(at + 1)]
    : [query.get('type') ?? '', query.get('component') ?? undefined];
  return shown(deploymentLines(app, deployment, type.toUpperCase(), component, now), now);
}

function appOf(world: World, id: string | undefined): StoredApp {
  const app = world.apps.find((a) => a.id === id);
  if (!app) throw notFound('app not found');
  return app;
}

/** The lines made by `now`, oldest first, the newest MAX_LOG_LINES of them. */
function shown({ lines, end }: { lines: Line[]; end: number }, now: number): LogLines {
  const made = lines.filter((line) => line.at <= now).sort((a, b) => a.at - b.at);
  return {
    lines: made.slice(-MAX_LOG_LINES).map((line) => ({
      at: line.at,
      text: `${line.component} ${new Date(line.at).toISOString()} ${line.text}`,
    })),
    open: now < end,
  };
}

/** A deployment's lines of one type (BUILD, DEPLOY, RUN), of one component or all, and when they end. */
function deploymentLines(
  app: StoredApp,
  deployment: StoredAppDeployment,
  type: string,
  only: string | undefined,
  now: number,
): { lines: Line[]; end: number } {
  const components = componentsOf(deployment.spec).filter(
    ({ component }) => only === undefined || component.name === only,
  );
  // A deployment a request ended (a cancel, a newer one) stops where it was.
  const stop = deployment.ended?.at_ms ?? Number.POSITIVE_INFINITY;
  const lines: Line[] = [];
  const add = (at: number, component: string, text: string) => {
    if (at < stop) lines.push({ at, component, text });
  };
  let end = Math.min(stop, now);
  if (type === 'BUILD') {
    const span = spanOf(deployment, 'BUILDING');
    end = Math.min(stop, span?.end ?? deployment.created_ms);
    if (span) {
      const step = (span.end - span.start) / 6;
      for (const { component } of components) {
        const source = sourceKey(component);
        if (!source) continue;
        const name = component.name;
        add(span.start + step * 0.5, name, `[build] Cloning ${source} at ${commitOf(source).slice(0, 7)}`);
        if (deployment.build_reused) {
          add(span.start + step, name, '[build] Nothing changed since the last build: reusing its image');
        } else {
          add(span.start + step, name, '[build] Detecting buildpacks: heroku/nodejs, digitalocean/procfile');
          add(span.start + step * 2, name, '[build] Installing dependencies (npm ci)');
          add(span.start + step * 3, name, '[build] Building (npm run build)');
          add(span.start + step * 4, name, '[build] Exporting the image to the app registry');
        }
        add(span.start + step * 5, name, '[build] Build complete');
      }
    }
  } else if (type === 'DEPLOY') {
    const span = spanOf(deployment, 'DEPLOYING');
    end = Math.min(stop, span?.end ?? deployment.created_ms);
    if (span) {
      const step = (span.end - span.start) / 5;
      for (const { kind, component } of components) {
        if (kind === 'jobs') continue;
        const name = component.name;
        const count = Number(component.instance_count ?? 1);
        add(span.start + step, name, `[deploy] Pulling the image for ${name}`);
        add(span.start + step * 2, name, `[deploy] Starting ${count} instance${count === 1 ? '' : 's'}`);
        if (kind === 'services') add(span.start + step * 3, name, '[deploy] Health checks passing');
        add(span.start + step * 4, name, '[deploy] Deployed');
      }
    }
  } else if (type === 'RUN') {
    const live = liveAt(deployment);
    const { phase, since } = phaseAt(app, deployment, now);
    // Live until superseded (or, while it is, until now and on).
    const over = phase === 'SUPERSEDED' ? since : Number.POSITIVE_INFINITY;
    end = Math.min(stop, over);
    const until = Math.min(end, now);
    for (const { kind, component } of components) {
      if (kind !== 'services' && kind !== 'workers') continue;
      const name = component.name;
      const port = Number(component.http_port ?? 8080);
      add(live, name, kind === 'services' ? `Listening on port ${port}` : 'Worker started');
      // Only the times the newest lines need: a deployment live for a year has its last ones.
      const first = Math.max(1, Math.floor((until - live) / RUN_EVERY_MS) - MAX_LOG_LINES);
      for (let n = first; live + n * RUN_EVERY_MS <= until; n++) {
        add(
          live + n * RUN_EVERY_MS,
          name,
          kind === 'services' ? `GET /healthz 200 ${3 + (n % 5)}ms` : `Processed a batch of ${n % 7} jobs`,
        );
      }
    }
  }
  // RUN_RESTARTED, AUTOSCALE_EVENT: nothing restarted or scaled in the sandbox.
  return { lines, end };
}

/** A job invocation's lines while it runs. */
function jobLines(
  deployment: StoredAppDeployment,
  invocation: StoredAppDeployment['job_invocations'][number],
  now: number,
): { lines: Line[]; end: number } {
  const { started, completed } = jobRun(deployment, invocation, now);
  const name = invocation.job_name;
  const lines: Line[] = [];
  if (started !== undefined) {
    lines.push({ at: started, component: name, text: `Starting job ${name}` });
    if (completed !== undefined) {
      lines.push({ at: completed, component: name, text: `Job ${name} finished` });
    }
  }
  return { lines, end: completed ?? Number.POSITIVE_INFINITY };
}
