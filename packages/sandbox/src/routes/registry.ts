/**
 * Container registries: the deprecated one-registry API (`/v2/registry`) and the multi-registry one
 * (`/v2/registries`), over the same state. The platform's rules: a registry's name is lowercase
 * letters, digits and "-", at most 63 characters, and unique (409 `name already exists`); the
 * account's first registry starts its subscription, so it needs a tier; the registries share
 * that subscription and its limits; several registries only on the professional tier (ten in
 * all); `/v2/registry` makes only the first (422 `user already has a registry`) and its get and
 * delete answer 412 once the account has several; a tier change the account's usage does not fit
 * (repositories, storage, registries) is refused with a 412 naming why; docker credentials are a
 * docker `config.json` with a fresh token, read-only unless `read_write=true`.
 * Contents (repositories, tags, manifests, garbage collection): registry-contents.ts.
 */
import { randomBytes } from 'node:crypto';
import {
  MULTI_REGISTRY_REGIONS,
  REGISTRY_REGIONS,
  REGISTRY_TIERS,
  type RegistryTier,
  type StoredRegistry,
  tierOf,
} from '../families/registry.js';
import { badRequest, HttpError, notFound, type Route, type SandboxRequest, unprocessable } from '../http.js';
import { iso } from '../time.js';
import type { World } from '../world.js';
import { findRegistry, registryContentRoutes } from './registry-contents.js';
import {
  accountUsage,
  dropRegistry,
  type EligibilityReason,
  ineligibility,
  settleGarbageCollections,
  storageOf,
} from './registry-model.js';

const REGISTRY_NAME = /^[a-z0-9-]{1,63}$/;
/** The host docker logs in to. */
const REGISTRY_SERVER = 'registry.digitalocean.com';

const preconditionFailed = (message: string) => new HttpError(412, 'precondition_failed', message);

function tierBase(tier: RegistryTier) {
  return {
    name: tier.name,
    slug: tier.slug,
    included_repositories: tier.included_repositories,
    included_storage_bytes: tier.included_storage_bytes,
    allow_storage_overage: tier.allow_storage_overage,
    included_bandwidth_bytes: tier.included_bandwidth_bytes,
    monthly_price_in_cents: tier.monthly_price_in_cents,
    storage_overage_price_in_cents: tier.storage_overage_price_in_cents,
  };
}

function subscriptionView(world: World) {
  const subscription = world.registrySubscription;
  const tier = tierOf(subscription.tier ?? '');
  if (!tier) return undefined;
  return {
    tier: tierBase(tier),
    created_at: iso(subscription.created_ms),
    updated_at: iso(subscription.updated_ms),
  };
}

function registryView(world: World, registry: StoredRegistry, now: number, withSubscription: boolean) {
  const storage = storageOf(world, registry, now);
  const subscription = withSubscription ? subscriptionView(world) : undefined;
  return {
    name: registry.name,
    created_at: iso(registry.created_ms),
    region: registry.region,
    storage_usage_bytes: storage.bytes,
    storage_usage_bytes_updated_at: iso(storage.updated_ms),
    ...(subscription ? { subscription } : {}),
  };
}

function requireName(value: unknown): string {
  if (typeof value !== 'string' || value === '') throw unprocessable('name is required');
  if (!REGISTRY_NAME.test(value)) {
    throw unprocessable(
      `name must be lowercase letters, digits and "-", at most 63 characters; got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** Registry names are unique across the platform: the sandbox's registries are all there are. */
function checkNameFree(world: World, name: string): void {
  if (world.containerRegistries.some((r) => r.name === name)) {
    throw new HttpError(409, 'conflict', 'name already exists');
  }
}

function requireTier(value: unknown, field: string): RegistryTier {
  const tier = typeof value === 'string' ? tierOf(value) : undefined;
  if (!tier) {
    throw unprocessable(
      `${field} must be one of ${REGISTRY_TIERS.map((t) => t.slug).join(', ')}; got ${JSON.stringify(value ?? null)}`,
    );
  }
  return tier;
}

function requireRegistryRegion(value: unknown, allowed: readonly string[]): string {
  // "When not provided, a region will be selected": the first the registry is offered in.
  if (value === undefined || value === null || value === '') return allowed[0] as string;
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw unprocessable(`region must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Records a new registry; the account's first starts the subscription at `tier`. */
function addRegistry(
  world: World,
  name: string,
  region: string,
  tier: RegistryTier | undefined,
  now: number,
) {
  if (!world.containerRegistries.length && tier) {
    world.registrySubscription = { tier: tier.slug, created_ms: now, updated_ms: now };
  }
  const registry: StoredRegistry = { name, region, created_ms: now, storage_updated_ms: now };
  world.containerRegistries.push(registry);
  return registry;
}

/** The account's one registry, for the one-registry API: 404 with none, 412 with several. */
function onlyRegistry(world: World): StoredRegistry {
  const [first, ...others] = world.containerRegistries;
  if (!first) throw notFound('registry not found: the account has no container registry');
  if (others.length) {
    throw preconditionFailed(
      'This API is not supported if you have created multiple registries. Please use /v2/registries/{registry_name} instead.',
    );
  }
  return first;
}

function currentTier(world: World): RegistryTier {
  const tier = tierOf(world.registrySubscription.tier ?? '');
  if (!tier) throw notFound('the account has no container registry subscription: create a registry first');
  return tier;
}

/** The reasons as the platform writes them (Go's formatting of a list). */
const reasonList = (reasons: EligibilityReason[]) => `[${reasons.join(' ')}]`;

function options(world: World, now: number, regions: readonly string[]) {
  const usage = accountUsage(world, now);
  return {
    options: {
      available_regions: [...regions],
      subscription_tiers: REGISTRY_TIERS.map((tier) => {
        const reasons = ineligibility(tier, usage);
        // The description lists two reasons; the registry count is the third the platform checks.
        const listed = reasons.filter((r) => r !== 'OverRegistryLimit');
        return {
          ...tierBase(tier),
          eligible: reasons.length === 0,
          ...(listed.length ? { eligibility_reasons: listed } : {}),
        };
      }),
    },
  };
}

function updateSubscription(req: SandboxRequest, world: World) {
  settleGarbageCollections(world, req.now);
  const tier = requireTier(req.body.tier_slug, 'tier_slug');
  const current = currentTier(world);
  if (tier.slug !== current.slug) {
    const reasons = ineligibility(tier, accountUsage(world, req.now));
    if (reasons.length) {
      throw preconditionFailed(`registry is not eligible for tier because: ${reasonList(reasons)}`);
    }
    world.registrySubscription.tier = tier.slug;
    world.registrySubscription.updated_ms = req.now;
  }
  return { body: { subscription: subscriptionView(world) } };
}

function validateName(req: SandboxRequest, world: World) {
  checkNameFree(world, requireName(req.body.name));
  return { status: 204 };
}

function boolQuery(req: SandboxRequest, name: string): boolean {
  const value = req.query.get(name);
  if (value === null || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw badRequest(`${name} must be true or false; got ${JSON.stringify(value)}`);
}

/**
 * A docker `config.json` for the registry host: `auth` is base64 of `token:token`, with a fresh
 * API token scoped to the registry (read-only unless asked for read/write; expiring after
 * `expiry_seconds` when given). The token is not kept: the sandbox runs no registry to log in to.
 */
function dockerCredentials(req: SandboxRequest) {
  // Checked, though nothing shows it: the token it scopes is not kept.
  boolQuery(req, 'read_write');
  const expiry = req.query.get('expiry_seconds');
  if (expiry !== null && expiry !== '' && !/^\d{1,10}$/.test(expiry)) {
    throw badRequest(
      `expiry_seconds must be a whole number of seconds, 0 or more; got ${JSON.stringify(expiry)}`,
    );
  }
  const token = `dop_v1_${randomBytes(32).toString('hex')}`;
  return {
    body: { auths: { [REGISTRY_SERVER]: { auth: Buffer.from(`${token}:${token}`).toString('base64') } } },
  };
}

/** Routes answered the same at `/v2/registry/...` and `/v2/registries/...`. */
function accountRoutes(prefix: string, regions: readonly string[]): Route[] {
  return [
    {
      method: 'GET',
      path: `${prefix}/options`,
      handler: (req, world) => ({ body: options(world, req.now, regions) }),
    },
    {
      method: 'GET',
      path: `${prefix}/subscription`,
      handler: (_req, world) => {
        currentTier(world);
        return { body: { subscription: subscriptionView(world) } };
      },
    },
    { method: 'POST', path: `${prefix}/subscription`, handler: updateSubscription },
    { method: 'POST', path: `${prefix}/validate-name`, handler: validateName },
  ];
}

export const registryRoutes: Route[] = [
  ...accountRoutes('/v2/registry', REGISTRY_REGIONS),
  ...accountRoutes('/v2/registries', MULTI_REGISTRY_REGIONS),
  {
    method: 'GET',
    path: '/v2/registry',
    handler: (req, world) => ({
      body: { registry: registryView(world, onlyRegistry(world), req.now, true) },
    }),
  },
  {
    method: 'POST',
    path: '/v2/registry',
    handler: (req, world) => {
      const name = requireName(req.body.name);
      const tier = requireTier(req.body.subscription_tier_slug, 'subscription_tier_slug');
      const region = requireRegistryRegion(req.body.region, REGISTRY_REGIONS);
      checkNameFree(world, name);
      // The platform's answer when the account has one already (any name).
      if (world.containerRegistries.length) throw unprocessable('user already has a registry');
      const registry = addRegistry(world, name, region, tier, req.now);
      return { status: 201, body: { registry: registryView(world, registry, req.now, true) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/registry',
    handler: (req, world) => {
      settleGarbageCollections(world, req.now);
      dropRegistry(world, onlyRegistry(world));
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/registry/docker-credentials',
    handler: (req, world) => {
      onlyRegistryOrAny(world);
      return dockerCredentials(req);
    },
  },
  {
    method: 'GET',
    path: '/v2/registries',
    handler: (req, world) => {
      const registries = world.containerRegistries.map((r) => registryView(world, r, req.now, false));
      return {
        body: {
          registries,
          // Not in the description's schema: the platform answers it (godo reads it).
          total_storage_usage_bytes: registries.reduce((sum, r) => sum + r.storage_usage_bytes, 0),
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/v2/registries',
    handler: (req, world) => {
      settleGarbageCollections(world, req.now);
      const name = requireName(req.body.name);
      const region = requireRegistryRegion(req.body.region, MULTI_REGISTRY_REGIONS);
      const given = req.body.subscription_tier_slug;
      const tierGiven = given !== undefined && given !== null && given !== '';
      const tier = tierGiven ? requireTier(given, 'subscription_tier_slug') : undefined;
      const current = tierOf(world.registrySubscription.tier ?? '');
      if (!current && !tier) {
        throw unprocessable("subscription_tier_slug is required for the account's first registry");
      }
      if (current && tier && tier.slug !== current.slug) {
        throw unprocessable(
          `subscription_tier_slug ${tier.slug} is not the account's tier (${current.slug}): registries share one subscription; change it with POST /v2/registries/subscription`,
        );
      }
      checkNameFree(world, name);
      const plan = (current ?? tier) as RegistryTier;
      if (world.containerRegistries.length >= plan.registries) {
        // The platform's words for a tier the account's registries do not fit (412, as a tier change).
        throw preconditionFailed(
          `registry is not eligible for tier because: [OverRegistryLimit] (the ${plan.slug} tier allows ${plan.registries} registries; professional allows 10)`,
        );
      }
      const registry = addRegistry(world, name, region, tier, req.now);
      return { status: 201, body: { registry: registryView(world, registry, req.now, false) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/registries/{registry_name}',
    handler: (req, world) => ({
      body: { registry: registryView(world, findRegistry(world, req.params.registry_name), req.now, false) },
    }),
  },
  {
    method: 'DELETE',
    path: '/v2/registries/{registry_name}',
    handler: (req, world) => {
      settleGarbageCollections(world, req.now);
      dropRegistry(world, findRegistry(world, req.params.registry_name));
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/registries/{registry_name}/docker-credentials',
    handler: (req, world) => {
      findRegistry(world, req.params.registry_name);
      return dockerCredentials(req);
    },
  },
  ...registryContentRoutes,
];

/** Credentials are the account's (one host for all its registries): any registry will do. */
function onlyRegistryOrAny(world: World): void {
  if (!world.containerRegistries.length)
    throw notFound('registry not found: the account has no container registry');
}
