/**
 * An app spec's shape, as App Platform takes it: checked before anything is sent, each refusal
 * naming the path of the field (`services.0.instance_count`) and what it takes. The platform's
 * own rules that need its catalogues (regions, instance sizes on offer) or the account (a name
 * taken) stay the platform's: `app-validate-spec` asks it. Objects keep fields not named here
 * (the platform's spec has many more), so a spec read from app-get can be sent back as it is.
 */
import { LIMITS } from '@cloudcall/core/internal';
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
import { z } from 'zod';

/** App, component and database names (the description's app_spec.name pattern). */
export const APP_NAME = /^[a-z][a-z0-9-]{0,30}[a-z0-9]$/;

/**
 * Any JSON value, every string and list bounded: the fields of a spec not named here (the
 * platform's spec has many more), passed on for the platform to check.
 */
const JsonValue: z.ZodType<unknown> = z.lazy(() =>
  z.union([
    z.string().max(LIMITS.userData),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(JsonValue).max(1_000),
    z.record(z.string().max(LIMITS.name), JsonValue),
  ]),
);

/** An object of the spec: its named fields checked, the others kept as they are. */
const open = <T extends z.ZodRawShape>(shape: T) => z.object(shape).catchall(JsonValue);

const name = (what: string) =>
  z
    .string()
    .regex(
      APP_NAME,
      `${what} must be 2 to 32 lowercase letters, digits and "-", starting with a letter and ending with a letter or digit`,
    );

const envs = z
  .array(
    open({
      key: z
        .string()
        .max(LIMITS.name)
        .regex(
          /^[_A-Za-z][_A-Za-z0-9]*$/,
          'a variable name is letters, digits and "_", not starting with a digit',
        ),
      value: z.string().max(LIMITS.userData).optional(),
      type: z.enum(APP_VARIABLE_DEFINITION_TYPE).optional(),
      scope: z.enum(APP_VARIABLE_DEFINITION_SCOPE).optional(),
    }),
  )
  .optional();

const alerts = z
  .array(
    open({
      rule: z.enum(APP_ALERT_SPEC_RULE),
      disabled: z.boolean().optional(),
      operator: z.enum(APP_ALERT_SPEC_OPERATOR).optional(),
      value: z.number().optional(),
      window: z.enum(APP_ALERT_SPEC_WINDOW).optional(),
    }),
  )
  .optional();

const branch = z.string().max(LIMITS.name).min(1, 'a branch name is not empty').optional();
const repository = open({
  repo: z
    .string()
    .max(LIMITS.name)
    .regex(/^[\w.-]+(\/[\w.-]+)+$/, 'a repository is owner/name, such as "acme/shop"'),
  branch,
  deploy_on_push: z.boolean().optional(),
});

const SOURCES = ['github', 'gitlab', 'bitbucket', 'git', 'image'] as const;

/** Fields every component has: a name, one source, variables, alerts. */
const component = {
  name: name('a component name'),
  github: repository.optional(),
  gitlab: repository.optional(),
  bitbucket: repository.optional(),
  git: open({
    repo_clone_url: z
      .string()
      .max(LIMITS.url)
      .regex(/^(https:\/\/|git@)\S+$/, 'a clone URL starts with https:// or git@'),
    branch,
  }).optional(),
  image: open({
    registry_type: z.enum(APPS_IMAGE_SOURCE_SPEC_REGISTRY_TYPE),
    registry: z.string().max(LIMITS.name).optional(),
    repository: z.string().max(LIMITS.name).min(1, 'the image repository is required'),
    tag: z.string().max(LIMITS.name).optional(),
    digest: z.string().max(LIMITS.name).optional(),
  }).optional(),
  source_dir: z.string().max(LIMITS.short).optional(),
  envs,
};

/** Fields of the components that run instances (services, workers, jobs). */
const instances = {
  instance_count: z.number().int().min(1).optional(),
  instance_size_slug: z
    .string()
    .max(LIMITS.slug)
    .regex(/^[a-z0-9][a-z0-9.-]*$/, 'an instance size slug, such as "apps-s-1vcpu-1gb"')
    .optional(),
  alerts,
};

/** One source per component: the platform builds or pulls it from exactly one. */
function oneSource(value: Record<string, unknown>, context: z.core.$RefinementCtx<unknown>) {
  const given = SOURCES.filter((source) => value[source] !== undefined && value[source] !== null);
  if (given.length !== 1) {
    context.addIssue({
      code: 'custom',
      message:
        given.length === 0
          ? 'has no source: give one of github, gitlab, bitbucket, git or image'
          : `has more than one source (${given.join(', ')}): give one`,
    });
  }
}

const service = open({
  ...component,
  ...instances,
  http_port: z.number().int().min(1).max(65_535).optional(),
  run_command: z.string().max(LIMITS.userData).optional(),
  build_command: z.string().max(LIMITS.userData).optional(),
}).superRefine(oneSource);
const worker = open({ ...component, ...instances }).superRefine(oneSource);
const job = open({ ...component, ...instances, kind: z.enum(APP_JOB_SPEC_KIND).optional() }).superRefine(
  oneSource,
);
/** Static sites and functions are built from source code, never pulled as an image. */
function fromSource(what: string) {
  return (value: Record<string, unknown>, context: z.core.$RefinementCtx<unknown>) => {
    if (value.image !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['image'],
        message: `${what} is built from source code, not an image`,
      });
    } else oneSource(value, context);
  };
}
const { image: _image, ...sourceOnly } = component;
const staticSite = open(sourceOnly).superRefine(fromSource('a static site'));
const functions = open({ ...sourceOnly, alerts }).superRefine(fromSource('a functions component'));

export const COMPONENT_KINDS = ['services', 'static_sites', 'workers', 'jobs', 'functions'] as const;

/** An app spec: what app-create and app-update send, and app-validate-spec checks. */
export const AppSpec = open({
  name: name('the app name'),
  region: z
    .string()
    .regex(/^[a-z]{3}$/, 'an App Platform region is three letters, such as "nyc" (app-list-regions)')
    .optional(),
  services: z.array(service).optional(),
  static_sites: z.array(staticSite).optional(),
  workers: z.array(worker).optional(),
  jobs: z.array(job).optional(),
  functions: z.array(functions).optional(),
  databases: z
    .array(
      open({
        name: name('a database name'),
        engine: z.enum(APP_DATABASE_SPEC_ENGINE).optional(),
        production: z.boolean().optional(),
        cluster_name: z.string().max(LIMITS.name).optional(),
      }),
    )
    .optional(),
  domains: z
    .array(
      open({
        domain: z
          .string()
          .max(LIMITS.hostname)
          .regex(/^((xn--)?[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*\.)+[a-zA-Z]{2,}\.?$/, 'not a domain name'),
        type: z.enum(APP_DOMAIN_SPEC_TYPE).optional(),
        wildcard: z.boolean().optional(),
        zone: z.string().max(LIMITS.hostname).optional(),
      }),
    )
    .optional(),
  envs,
  alerts,
})
  .superRefine((spec, context) => {
    const seen = new Map<string, string>();
    let count = 0;
    for (const kind of COMPONENT_KINDS) {
      for (const [index, item] of (spec[kind] ?? []).entries()) {
        count++;
        const other = seen.get(item.name);
        if (other !== undefined) {
          context.addIssue({
            code: 'custom',
            path: [kind, index, 'name'],
            message: `${item.name} is also the name of ${other}: names are unique within an app`,
          });
        }
        seen.set(item.name, `${kind}.${index}`);
      }
    }
    if (count === 0) {
      context.addIssue({
        code: 'custom',
        message: 'an app needs at least one component: a service, static site, worker, job or function',
      });
    }
  })
  .describe('App spec: name, region, services, static_sites, workers, jobs, databases, domains, envs');
