/**
 * App Platform state of the sandbox world: apps, each with its spec, its deployments (oldest
 * first), its alerts' destinations and a rollback in progress. A deployment's phase (PENDING_BUILD
 * -> BUILDING -> PENDING_DEPLOY -> DEPLOYING -> ACTIVE, then SUPERSEDED once a newer one is active)
 * is derived from its timestamps when read (routes/apps-deployments.ts); only what a request ends
 * by itself (a cancel, a newer deployment replacing one still in progress) is stored. The
 * catalogues (regions, instance sizes) are the platform's and never change, so they are constants
 * here rather than world state.
 */

/** A component of a spec as the sandbox reads it (services, workers, jobs, static sites, functions). */
export interface AppComponentSpec {
  name: string;
  instance_count?: number;
  instance_size_slug?: string;
  kind?: string;
  github?: { repo?: string; branch?: string; deploy_on_push?: boolean };
  gitlab?: { repo?: string; branch?: string; deploy_on_push?: boolean };
  bitbucket?: { repo?: string; branch?: string; deploy_on_push?: boolean };
  git?: { repo_clone_url?: string; branch?: string };
  image?: { registry_type?: string; registry?: string; repository?: string; tag?: string; digest?: string };
  envs?: { key: string; value?: string; type?: string; scope?: string }[];
  alerts?: AppAlertSpec[];
  [field: string]: unknown;
}

export interface AppAlertSpec {
  rule: string;
  disabled?: boolean;
  operator?: string;
  value?: number;
  window?: string;
}

/** An app spec as stored: what the request gave, checked, with SECRET values encrypted. */
export interface AppSpec {
  name: string;
  region?: string;
  services?: AppComponentSpec[];
  static_sites?: AppComponentSpec[];
  workers?: AppComponentSpec[];
  jobs?: AppComponentSpec[];
  functions?: AppComponentSpec[];
  databases?: { name: string; engine?: string; cluster_name?: string; production?: boolean }[];
  domains?: { domain: string; type?: string; zone?: string; wildcard?: boolean }[];
  /** App-level alerts (DEPLOYMENT_FAILED, DOMAIN_FAILED...): the platform's spec has them, the description does not. */
  alerts?: AppAlertSpec[];
  envs?: { key: string; value?: string; type?: string; scope?: string }[];
  ingress?: { rules?: { component?: { name?: string } }[] };
  [field: string]: unknown;
}

/** Why a deployment was made, as `deployment_types` filters them. */
export type AppDeploymentType = 'MANUAL' | 'DEPLOY_ON_PUSH' | 'MANUAL_ROLLBACK';

export interface StoredJobInvocation {
  id: string;
  job_name: string;
  /** Set when canceled through the API while pending or running. */
  canceled_ms?: number;
}

export interface StoredAppDeployment {
  id: string;
  /** The id of its event in the app's event list. */
  event_id: string;
  spec: AppSpec;
  cause: string;
  type: AppDeploymentType;
  created_ms: number;
  /** Whether it builds (a restart, and most rollbacks, deploy what was built before). */
  builds: boolean;
  /** No source changed since the active deployment and no rebuild was forced: the build is reused. */
  build_reused: boolean;
  /** The deployment a rollback re-deploys. */
  cloned_from?: string;
  /** Set when a request ended it before it was active: a cancel, or a newer deployment. */
  ended?: { phase: 'CANCELED' | 'SUPERSEDED'; at_ms: number };
  /** Its PRE_DEPLOY and POST_DEPLOY jobs' runs. */
  job_invocations: StoredJobInvocation[];
}

export interface StoredAppAlert {
  id: string;
  /** '' for an app-level alert. */
  component_name: string;
  rule: string;
  emails: string[];
  slack_webhooks: { url: string; channel: string }[];
  created_ms: number;
}

export interface StoredApp {
  id: string;
  spec: AppSpec;
  /** The app's region: the spec's, else the platform's default when it was created. */
  region: string;
  /** The host of its default ingress, `<name>-<5 letters>.ondigitalocean.app`, fixed at creation. */
  default_host: string;
  created_ms: number;
  updated_ms: number;
  deployments: StoredAppDeployment[];
  alerts: StoredAppAlert[];
  /** Domain name -> its id and when it was added (a domain is CONFIGURING for a while, then ACTIVE). */
  domains: Record<string, { id: string; added_ms: number }>;
  /** A rollback not yet committed or reverted: the app is pinned to `deployment_id`. */
  rollback?: { deployment_id: string; spec_before: AppSpec };
}

export interface AppsState {
  apps: StoredApp[];
}

export function seedAppsState(): AppsState {
  return { apps: [] };
}

/** An App Platform region as `GET /v2/apps/regions` lists it. */
export interface AppRegion {
  slug: string;
  label: string;
  flag: string;
  continent: string;
  data_centers: string[];
  default?: boolean;
}

/** The regions App Platform runs in; `nyc` is where an app without a region goes. */
export const APP_REGIONS: readonly AppRegion[] = [
  { slug: 'ams', label: 'Amsterdam', flag: 'netherlands', continent: 'Europe', data_centers: ['ams3'] },
  {
    slug: 'nyc',
    label: 'New York',
    flag: 'usa',
    continent: 'North America',
    data_centers: ['nyc1', 'nyc3'],
    default: true,
  },
  { slug: 'fra', label: 'Frankfurt', flag: 'germany', continent: 'Europe', data_centers: ['fra1'] },
  { slug: 'sfo', label: 'San Francisco', flag: 'usa', continent: 'North America', data_centers: ['sfo3'] },
  { slug: 'sgp', label: 'Singapore', flag: 'singapore', continent: 'Asia', data_centers: ['sgp1'] },
  { slug: 'blr', label: 'Bangalore', flag: 'india', continent: 'Asia', data_centers: ['blr1'] },
  { slug: 'tor', label: 'Toronto', flag: 'canada', continent: 'North America', data_centers: ['tor1'] },
  { slug: 'lon', label: 'London', flag: 'uk', continent: 'Europe', data_centers: ['lon1'] },
  { slug: 'atl', label: 'Atlanta', flag: 'usa', continent: 'North America', data_centers: ['atl1'] },
  { slug: 'syd', label: 'Sydney', flag: 'australia', continent: 'Australia', data_centers: ['syd1'] },
];

export const DEFAULT_APP_REGION = 'nyc';

/** An instance size for services, workers and jobs, as the platform lists it (numbers as strings). */
export interface AppInstanceSize {
  name: string;
  slug: string;
  cpu_type: 'SHARED' | 'DEDICATED';
  cpus: string;
  memory_bytes: string;
  usd_per_month: string;
  usd_per_second: string;
  tier_slug: 'basic' | 'professional';
  single_instance_only?: boolean;
  scalable?: boolean;
  bandwidth_allowance_gib: string;
  deprecation_intent?: boolean;
}

const GIB = 1_073_741_824;
/** The platform prices per second over a 28-day month: $5.00 a month is $0.000002066799 a second. */
const SECONDS_PER_MONTH = 28 * 24 * 3_600;

function size(
  slug: string,
  name: string,
  cpuType: 'SHARED' | 'DEDICATED',
  cpus: number,
  memoryGib: number,
  usdPerMonth: number,
  tier: 'basic' | 'professional',
  bandwidthGib: number,
  extra: Partial<AppInstanceSize> = {},
): AppInstanceSize {
  return {
    name,
    slug,
    cpu_type: cpuType,
    cpus: String(cpus),
    memory_bytes: String(Math.round(memoryGib * GIB)),
    usd_per_month: usdPerMonth.toFixed(2),
    usd_per_second: (usdPerMonth / SECONDS_PER_MONTH).toFixed(12),
    tier_slug: tier,
    ...extra,
    bandwidth_allowance_gib: String(bandwidthGib),
  };
}

/**
 * Every instance size a spec may name: the current ones, then the legacy slugs the description
 * still takes (deprecated; the platform keeps running them and marks them `deprecation_intent`).
 */
export const APP_INSTANCE_SIZES: readonly AppInstanceSize[] = [
  size('apps-s-1vcpu-0.5gb', 'Shared 1VCPU 0.5GB', 'SHARED', 1, 0.5, 5, 'basic', 50, {
    single_instance_only: true,
  }),
  size('apps-s-1vcpu-1gb-fixed', 'Shared 1VCPU 1GB Fixed', 'SHARED', 1, 1, 10, 'basic', 100, {
    single_instance_only: true,
  }),
  size('apps-s-1vcpu-1gb', 'Shared 1VCPU 1GB', 'SHARED', 1, 1, 12, 'professional', 150),
  size('apps-s-1vcpu-2gb', 'Shared 1VCPU 2GB', 'SHARED', 1, 2, 25, 'professional', 200),
  size('apps-s-2vcpu-4gb', 'Shared 2VCPU 4GB', 'SHARED', 2, 4, 50, 'professional', 250),
  size('apps-d-1vcpu-0.5gb', 'Dedicated 1VCPU 0.5GB', 'DEDICATED', 1, 0.5, 29, 'professional', 100, {
    scalable: true,
  }),
  size('apps-d-1vcpu-1gb', 'Dedicated 1VCPU 1GB', 'DEDICATED', 1, 1, 34, 'professional', 200, {
    scalable: true,
  }),
  size('apps-d-1vcpu-2gb', 'Dedicated 1VCPU 2GB', 'DEDICATED', 1, 2, 39, 'professional', 300, {
    scalable: true,
  }),
  size('apps-d-1vcpu-4gb', 'Dedicated 1VCPU 4GB', 'DEDICATED', 1, 4, 49, 'professional', 400, {
    scalable: true,
  }),
  size('apps-d-2vcpu-4gb', 'Dedicated 2VCPU 4GB', 'DEDICATED', 2, 4, 78, 'professional', 500, {
    scalable: true,
  }),
  size('apps-d-2vcpu-8gb', 'Dedicated 2VCPU 8GB', 'DEDICATED', 2, 8, 98, 'professional', 600, {
    scalable: true,
  }),
  size('apps-d-4vcpu-8gb', 'Dedicated 4VCPU 8GB', 'DEDICATED', 4, 8, 156, 'professional', 700, {
    scalable: true,
  }),
  size('apps-d-4vcpu-16gb', 'Dedicated 4VCPU 16GB', 'DEDICATED', 4, 16, 196, 'professional', 800, {
    scalable: true,
  }),
  size('apps-d-8vcpu-32gb', 'Dedicated 8VCPU 32GB', 'DEDICATED', 8, 32, 392, 'professional', 900, {
    scalable: true,
  }),
  ...(
    [
      ['basic-xxs', 'Basic XXS', 'SHARED', 1, 0.5, 5, 'basic', 50],
      ['basic-xs', 'Basic XS', 'SHARED', 1, 1, 10, 'basic', 100],
      ['basic-s', 'Basic S', 'SHARED', 1, 2, 20, 'basic', 150],
      ['basic-m', 'Basic M', 'SHARED', 2, 4, 40, 'basic', 200],
      ['professional-xs', 'Professional XS', 'SHARED', 1, 1, 12, 'professional', 150],
      ['professional-s', 'Professional S', 'SHARED', 1, 2, 25, 'professional', 200],
      ['professional-m', 'Professional M', 'SHARED', 2, 4, 50, 'professional', 250],
      ['professional-1l', 'Professional 1L', 'DEDICATED', 1, 4, 75, 'professional', 300],
      ['professional-l', 'Professional L', 'DEDICATED', 2, 8, 150, 'professional', 400],
      ['professional-xl', 'Professional XL', 'DEDICATED', 4, 16, 300, 'professional', 500],
    ] as const
  ).map(([slug, name, cpu, cpus, gib, usd, tier, bandwidth]) =>
    size(slug, name, cpu, cpus, gib, usd, tier, bandwidth, { deprecation_intent: true }),
  ),
];

/** The size a component without `instance_size_slug` runs on. */
export const DEFAULT_INSTANCE_SIZE = 'apps-s-1vcpu-0.5gb';

/** How long each phase of a deployment lasts on the sandbox clock: a deployment is live 8 s after it starts. */
export const PHASE_MS = {
  PENDING_BUILD: 1_000,
  BUILDING: 3_000,
  PENDING_DEPLOY: 1_000,
  DEPLOYING: 3_000,
} as const;

/** How long a POST_DEPLOY job runs once its deployment is active. */
export const POST_DEPLOY_JOB_MS = 2_000;

/** How long a custom domain is CONFIGURING (its certificate being issued) before it is ACTIVE. */
export const DOMAIN_CONFIGURING_MS = 6_000;
