/**
 * App specs as App Platform checks them: the rules the platform refuses a spec for (a name of its
 * pattern, at least one component, component names unique within the app, a region and instance
 * sizes it offers, one source per component...), answered with the first error found only, as
 * the platform answers (its propose and create stop at the first: digitalocean/godo#415), in its
 * words: `error validating app spec field "<field>": <why>` (the wording doctl users quote).
 * Then what a spec costs and which tier it is on.
 *
 * App Platform answers with the error ids of its gRPC gateway, as DigitalOcean's other gRPC-backed
 * APIs do (`{"id":"invalid_argument"}` with 400): 400 `invalid_argument` for a spec or argument it
 * refuses, 400 `failed_precondition` for a request the app's state refuses (cancelling a
 * deployment that is over, committing a rollback there is none of), 404 `not_found`. The
 * description declares none of these statuses for the apps operations (only 200, 401, 404, 429,
 * 500 and `default`); the others answer the `default` error shape.
 *
 * The platform's spec has `alerts` (app-level rules such as DEPLOYMENT_FAILED) and components'
 * `alerts` (CPU_UTILIZATION...), as godo's AppSpec does; the description's app_spec leaves the
 * app-level list out. The sandbox follows the platform: both are taken and make the app's alerts.
 * The value lists come from the API description (@cloudcall/platform's generated enums).
 */
import { randomBytes } from 'node:crypto';
import {
  APP_ALERT_SPEC_OPERATOR,
  APP_ALERT_SPEC_RULE,
  APP_ALERT_SPEC_WINDOW,
  APP_DATABASE_SPEC_ENGINE,
  APP_DOMAIN_SPEC_TYPE,
  APP_JOB_SPEC_KIND,
  APP_VARIABLE_DEFINITION_SCOPE,
  APP_VARIABLE_DEFINITION_TYPE,
  APPS_IMAGE_SOURCE_SPEC_REGISTRY_TYPE,
} from '@cloudcall/platform';
import { cloneData } from '../clone.js';
import {
  APP_INSTANCE_SIZES,
  APP_REGIONS,
  type AppComponentSpec,
  type AppSpec,
  DEFAULT_INSTANCE_SIZE,
  type StoredApp,
} from '../families/apps.js';
import { HttpError } from '../http.js';

/** The kinds of component a spec lists, in the order the platform shows them. */
export const COMPONENT_KINDS = ['services', 'static_sites', 'workers', 'jobs', 'functions'] as const;
export type ComponentKind = (typeof COMPONENT_KINDS)[number];

/** The kinds that run instances of a size (and can be restarted, exec'd into, scaled). */
export const INSTANCE_KINDS: readonly ComponentKind[] = ['services', 'workers', 'jobs'];

/** What each kind is called in messages and progress steps. */
export const KIND_LABEL: Record<ComponentKind, string> = {
  services: 'service',
  static_sites: 'static site',
  workers: 'worker',
  jobs: 'job',
  functions: 'functions component',
};

/** The pattern of app, component and database names (the description's app_spec.name). */
export const APP_NAME = /^[a-z][a-z0-9-]{0,30}[a-z0-9]$/;
const ENV_KEY = /^[_A-Za-z][_A-Za-z0-9]*$/;
const DOMAIN = /^((xn--)?[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*\.)+[a-zA-Z]{2,}\.?$/;
const REPO = /^[\w.-]+(\/[\w.-]+)+$/;
const SOURCES = ['github', 'gitlab', 'bitbucket', 'git', 'image'] as const;
/** Rules of alerts about the whole app; the others are about one component. */
const APP_ALERT_RULES = new Set(['DEPLOYMENT_FAILED', 'DEPLOYMENT_LIVE', 'DOMAIN_FAILED', 'DOMAIN_LIVE']);

/** A spec the platform refuses, naming the field (its path in the spec, without indexes) and why. */
export const invalidSpec = (field: string, message: string) =>
  new HttpError(400, 'invalid_argument', `error validating app spec field "${field}": ${message}`);

/** A request the app's state refuses. */
export const failedPrecondition = (message: string) => new HttpError(400, 'failed_precondition', message);

/** An argument of a request (not of the spec) the platform refuses. */
export const invalidArgument = (message: string) => new HttpError(400, 'invalid_argument', message);

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const show = (value: unknown) => JSON.stringify(value);

const LOG_DESTINATION_NAME = /^[a-z][a-z0-9-]{0,40}[a-z0-9]$/;

function oneOf(field: string, value: unknown, allowed: readonly string[], what: string): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw invalidSpec(field, `${what} ${show(value)} is not one of ${allowed.join(', ')}`);
  }
}

function list(spec: Json, field: string): Json[] {
  const value = spec[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isObject)) throw invalidSpec(field, 'must be a list of objects');
  return value;
}

function checkName(field: string, value: unknown, what: string): string {
  if (typeof value !== 'string' || !APP_NAME.test(value)) {
    throw invalidSpec(
      field,
      `${what} ${show(value ?? '')} must be 2 to 32 characters of lowercase letters, digits and "-", starting with a letter and ending with a letter or digit`,
    );
  }
  return value;
}

function checkEnvs(field: string, envs: unknown): void {
  if (envs === undefined) return;
  if (!Array.isArray(envs) || !envs.every(isObject)) throw invalidSpec(field, 'must be a list of variables');
  const keys = new Set<string>();
  for (const env of envs) {
    if (typeof env.key !== 'string' || !ENV_KEY.test(env.key)) {
      throw invalidSpec(`${field}.key`, `variable name ${show(env.key ?? '')} must match ${ENV_KEY.source}`);
    }
    if (keys.has(env.key)) throw invalidSpec(`${field}.key`, `variable ${env.key} is defined more than once`);
    keys.add(env.key);
    if (env.value !== undefined && typeof env.value !== 'string') {
      throw invalidSpec(`${field}.value`, `the value of ${env.key} must be a string`);
    }
    oneOf(`${field}.type`, env.type, APP_VARIABLE_DEFINITION_TYPE, 'variable type');
    oneOf(`${field}.scope`, env.scope, APP_VARIABLE_DEFINITION_SCOPE, 'variable scope');
  }
}

function checkAlerts(field: string, alerts: unknown, appLevel: boolean): void {
  if (alerts === undefined) return;
  if (!Array.isArray(alerts) || !alerts.every(isObject)) throw invalidSpec(field, 'must be a list of alerts');
  const rules = new Set<string>();
  for (const alert of alerts) {
    oneOf(`${field}.rule`, alert.rule, APP_ALERT_SPEC_RULE.slice(1), 'alert rule');
    const rule = alert.rule as string;
    if (APP_ALERT_RULES.has(rule) !== appLevel) {
      throw invalidSpec(
        `${field}.rule`,
        appLevel
          ? `${rule} is an alert on a component: put it in the component's alerts`
          : `${rule} is an alert on the whole app: put it in the spec's alerts`,
      );
    }
    if (rules.has(rule)) throw invalidSpec(`${field}.rule`, `alert ${rule} is given more than once`);
    rules.add(rule);
    oneOf(`${field}.operator`, alert.operator, APP_ALERT_SPEC_OPERATOR, 'operator');
    oneOf(`${field}.window`, alert.window, APP_ALERT_SPEC_WINDOW, 'window');
    if (alert.value !== undefined && (typeof alert.value !== 'number' || !Number.isFinite(alert.value))) {
      throw invalidSpec(`${field}.value`, `the threshold of ${rule} must be a number`);
    }
  }
}

/** The one source a component is built or pulled from, checked. */
function checkSource(kind: ComponentKind, component: Json): void {
  const name = component.name as string;
  const given = SOURCES.filter((source) => component[source] !== undefined && component[source] !== null);
  if (given.length === 0) {
    throw invalidSpec(
      kind,
      `${KIND_LABEL[kind]} ${name} has no source: give one of github, gitlab, bitbucket, git or image`,
    );
  }
  if (given.length > 1) {
    throw invalidSpec(kind, `${KIND_LABEL[kind]} ${name} has more than one source (${given.join(', ')})`);
  }
  const source = given[0] as (typeof SOURCES)[number];
  const value = component[source];
  const field = `${kind}.${source}`;
  if (!isObject(value)) throw invalidSpec(field, 'must be an object');
  if (source === 'image') {
    if (kind === 'static_sites' || kind === 'functions') {
      throw invalidSpec(field, `a ${KIND_LABEL[kind]} is built from source code, not from an image`);
    }
    oneOf(
      `${field}.registry_type`,
      value.registry_type,
      APPS_IMAGE_SOURCE_SPEC_REGISTRY_TYPE,
      'registry type',
    );
    if (value.registry_type === undefined) throw invalidSpec(`${field}.registry_type`, 'is required');
    if (typeof value.repository !== 'string' || value.repository === '') {
      throw invalidSpec(`${field}.repository`, 'is required');
    }
    if (value.registry_type === 'DOCR' && value.registry) {
      throw invalidSpec(`${field}.registry`, 'must be empty for the DOCR registry type');
    }
    return;
  }
  if (source === 'git') {
    if (typeof value.repo_clone_url !== 'string' || !/^(https:\/\/|git@)\S+$/.test(value.repo_clone_url)) {
      throw invalidSpec(
        `${field}.repo_clone_url`,
        `must be an https:// or git@ clone URL; got ${show(value.repo_clone_url)}`,
      );
    }
  } else if (typeof value.repo !== 'string' || !REPO.test(value.repo)) {
    throw invalidSpec(`${field}.repo`, `must name a repository as owner/name; got ${show(value.repo)}`);
  }
  if (value.branch !== undefined && (typeof value.branch !== 'string' || value.branch === '')) {
    throw invalidSpec(`${field}.branch`, 'must be a branch name');
  }
}

function checkInstances(kind: ComponentKind, component: Json): void {
  const count = component.instance_count;
  if (count !== undefined && (!Number.isSafeInteger(count) || (count as number) < 1)) {
    throw invalidSpec(`${kind}.instance_count`, `must be a whole number of at least 1; got ${show(count)}`);
  }
  const slug = component.instance_size_slug ?? DEFAULT_INSTANCE_SIZE;
  const size = APP_INSTANCE_SIZES.find((s) => s.slug === slug);
  if (!size) {
    throw invalidSpec(
      `${kind}.instance_size_slug`,
      `unknown instance size ${show(slug)}; GET /v2/apps/tiers/instance_sizes lists them`,
    );
  }
  if (size.single_instance_only && typeof count === 'number' && count > 1) {
    throw invalidSpec(
      `${kind}.instance_count`,
      `instance size ${size.slug} runs one instance only; choose a larger size to run ${count}`,
    );
  }
}

/**
 * Checks a spec as the platform does and answers the copy to store: SECRET variables' values
 * encrypted (`EV[1:...]`, as the platform shows them from then on; a value already encrypted is
 * kept, so a spec read and sent back keeps its secrets). Throws the first error found.
 */
export function checkSpec(value: unknown): AppSpec {
  if (value === undefined || value === null) throw invalidArgument('spec is required');
  if (!isObject(value)) throw invalidSpec('spec', 'must be an object');
  checkName('name', value.name, 'app name');
  if (value.region !== undefined && !APP_REGIONS.some((r) => r.slug === value.region)) {
    throw invalidSpec(
      'region',
      `App Platform does not run in ${show(value.region)}; it runs in ${APP_REGIONS.map((r) => r.slug).join(', ')}`,
    );
  }
  const names = new Map<string, string>();
  const claim = (field: string, name: string, what: string) => {
    const other = names.get(name);
    if (other) {
      throw invalidSpec(
        field,
        `${what} ${name} has the name of the ${other}: names are unique within an app`,
      );
    }
    names.set(name, what);
  };
  let components = 0;
  for (const kind of COMPONENT_KINDS) {
    for (const component of list(value, kind)) {
      const name = checkName(`${kind}.name`, component.name, `${KIND_LABEL[kind]} name`);
      claim(`${kind}.name`, name, KIND_LABEL[kind]);
      components++;
      checkSource(kind, component);
      if (INSTANCE_KINDS.includes(kind)) checkInstances(kind, component);
      if (kind === 'services' && component.http_port !== undefined) {
        const port = component.http_port;
        if (!Number.isSafeInteger(port) || (port as number) < 1 || (port as number) > 65_535) {
          throw invalidSpec('services.http_port', `must be a port from 1 to 65535; got ${show(port)}`);
        }
      }
      if (kind === 'jobs') oneOf('jobs.kind', component.kind, APP_JOB_SPEC_KIND, 'job kind');
      checkEnvs(`${kind}.envs`, component.envs);
      checkAlerts(`${kind}.alerts`, component.alerts, false);
      for (const destination of list(component, 'log_destinations')) {
        // The description's app_log_destination_definition: a name of 2 to 42 such characters.
        if (typeof destination.name !== 'string' || !LOG_DESTINATION_NAME.test(destination.name)) {
          throw invalidSpec(
            `${kind}.log_destinations.name`,
            `log destination name ${show(destination.name ?? '')} must be 2 to 42 characters of lowercase letters, digits and "-"`,
          );
        }
      }
    }
  }
  if (components === 0) {
    throw invalidSpec(
      'spec',
      'an app needs at least one component: a service, static site, worker, job or function',
    );
  }
  for (const database of list(value, 'databases')) {
    const name = checkName('databases.name', database.name, 'database name');
    claim('databases.name', name, 'database');
    oneOf('databases.engine', database.engine, APP_DATABASE_SPEC_ENGINE, 'engine');
  }
  const domains = new Set<string>();
  for (const domain of list(value, 'domains')) {
    if (typeof domain.domain !== 'string' || !DOMAIN.test(domain.domain) || domain.domain.length > 253) {
      throw invalidSpec('domains.domain', `${show(domain.domain ?? '')} is not a domain name`);
    }
    const host = domain.domain.toLowerCase().replace(/\.$/, '');
    if (domains.has(host)) throw invalidSpec('domains.domain', `domain ${host} is given more than once`);
    domains.add(host);
    oneOf('domains.type', domain.type, APP_DOMAIN_SPEC_TYPE, 'domain type');
  }
  if (list(value, 'domains').filter((d) => d.type === 'PRIMARY').length > 1) {
    throw invalidSpec('domains.type', 'an app has at most one PRIMARY domain');
  }
  checkEnvs('envs', value.envs);
  checkAlerts('alerts', value.alerts, true);
  const routed = new Set(
    (['services', 'static_sites', 'functions'] as const).flatMap((kind) =>
      list(value, kind).map((c) => c.name as string),
    ),
  );
  const rules = isObject(value.ingress) && Array.isArray(value.ingress.rules) ? value.ingress.rules : [];
  for (const rule of rules) {
    const target = isObject(rule) && isObject(rule.component) ? rule.component.name : undefined;
    if (target !== undefined && !routed.has(target as string)) {
      throw invalidSpec(
        'ingress.rules.component.name',
        `${show(target)} is not a service, static site or functions component of the app`,
      );
    }
  }
  return encryptSecrets(cloneData(value) as AppSpec);
}

/** A SECRET value as the platform shows it once stored: encrypted, never the value given. */
const encrypted = () =>
  `EV[1:${randomBytes(18).toString('base64')}:${randomBytes(24).toString('base64').replace(/=+$/, '')}]`;

function encryptSecrets(spec: AppSpec): AppSpec {
  const lists = [spec.envs, ...COMPONENT_KINDS.flatMap((kind) => (spec[kind] ?? []).map((c) => c.envs))];
  for (const envs of lists) {
    for (const env of envs ?? []) {
      if (
        env.type === 'SECRET' &&
        typeof env.value === 'string' &&
        env.value !== '' &&
        !env.value.startsWith('EV[')
      ) {
        env.value = encrypted();
      }
    }
  }
  return spec;
}

/** Every component of a spec with its kind, in the platform's order. */
export function componentsOf(spec: AppSpec): { kind: ComponentKind; component: AppComponentSpec }[] {
  return COMPONENT_KINDS.flatMap((kind) => (spec[kind] ?? []).map((component) => ({ kind, component })));
}

export const sizeOf = (component: AppComponentSpec) =>
  APP_INSTANCE_SIZES.find((s) => s.slug === (component.instance_size_slug ?? DEFAULT_INSTANCE_SIZE));

/** An app of static sites only (no service, worker, job or functions): the free starter tier. */
export const isStaticApp = (spec: AppSpec) =>
  componentsOf(spec).every(({ kind }) => kind === 'static_sites') && (spec.static_sites ?? []).length > 0;

/** The tier an app is on: starter for static sites only, else the highest of its instance sizes'. */
export function tierOf(spec: AppSpec): 'starter' | 'basic' | 'professional' {
  if (isStaticApp(spec)) return 'starter';
  const tiers = componentsOf(spec)
    .filter(({ kind }) => INSTANCE_KINDS.includes(kind))
    .map(({ component }) => sizeOf(component)?.tier_slug);
  return tiers.includes('professional') ? 'professional' : 'basic';
}

/** Static-site apps an account runs for free; each one past them costs this a month. */
export const FREE_STATIC_APPS = 3;
const STATIC_APP_USD = 3;
/** A development database (one without `cluster_name`) a month. */
const DEV_DATABASE_USD = 7;

/**
 * What an app costs a month, in whole dollars: each service's and worker's instances at their
 * size's price, development databases, and a static-site app past the free ones. Jobs are billed
 * by the second they run and functions by use, so neither counts here.
 */
export function appCost(spec: AppSpec, otherStaticApps: number): number {
  if (isStaticApp(spec)) return otherStaticApps >= FREE_STATIC_APPS ? STATIC_APP_USD : 0;
  let cost = 0;
  for (const { kind, component } of componentsOf(spec)) {
    if (kind !== 'services' && kind !== 'workers') continue;
    cost += Number(sizeOf(component)?.usd_per_month ?? 0) * (component.instance_count ?? 1);
  }
  cost += (spec.databases ?? []).filter((d) => !d.cluster_name).length * DEV_DATABASE_USD;
  return Math.round(cost);
}

/** The static-site apps of the account other than `except`. */
export const staticAppsOf = (apps: readonly StoredApp[], except?: string) =>
  apps.filter((app) => app.id !== except && isStaticApp(app.spec)).length;

/** Whether an app serves HTTP (and so has an ingress and a live URL once deployed). */
export const servesHttp = (spec: AppSpec) =>
  componentsOf(spec).some(
    ({ kind }) => kind === 'services' || kind === 'static_sites' || kind === 'functions',
  );

/** A name free among `taken`: `<name>-2`, `<name>-3`..., cut to fit the name's 32 characters. */
export function suggestName(name: string, taken: ReadonlySet<string>): string {
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${name.slice(0, 32 - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
