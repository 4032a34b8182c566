/**
 * The container registry family: the account's registries (one subscription, with a tier, shared
 * by all of them), what they hold (repositories, their tags and manifests), garbage collection
 * (what frees the storage of deleted tags and manifests), and docker credentials. Each tool is
 * one request of the multi-registry API (`/v2/registries/...`), whose paths name the registry, so
 * the guard knows what a call touches; docker credentials come from `/v2/registry/...`, the one
 * operation that takes their read/write scope and expiry.
 */
import { annotations, defineTool, returns } from '@cloudcall/core';
import { pageArgs, pageQuery, regionSlug } from '@cloudcall/core/internal';
import { z } from 'zod';
import type {
  DockerCredentials,
  GarbageCollection,
  GarbageCollectionList,
  Registry,
  RegistryList,
  RegistryOptions,
  RegistrySubscription,
  RepositoryList,
  RepositoryManifestList,
  RepositoryTagList,
} from './types.js';

/** Repositories, tags, manifests and collections page by 20, as the platform does. */
const page = pageArgs(20);

/** The platform's rule for a registry name; names are unique across the platform. */
export const REGISTRY_NAME = /^[a-z0-9-]{1,63}$/;
const registryName = (description: string) =>
  z
    .string()
    .regex(REGISTRY_NAME, 'expected lowercase letters, digits and "-", at most 63 characters')
    .describe(description);
const RegistryArg = registryName('Registry name, from registry-list');

/**
 * Docker's repository names: path components of lowercase letters and digits with single
 * separators, joined by `/` (`web`, `team/api`). A `/` is sent as `%2F`, as the API description
 * asks (RequestMapping's `slashed`), so the name stays one segment of the request's path.
 */
const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const Repository = z
  .string()
  .max(255)
  .regex(
    new RegExp(`^${COMPONENT}(?:/${COMPONENT})*$`),
    'expected a repository name of lowercase letters, digits and single separators (".", "_", "-"), its parts joined by "/" (team/api)',
  )
  .describe('Repository, from registry-repository-list-v2');
const Tag = z
  .string()
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/, 'expected a docker tag such as "v1.2" or "latest"')
  .describe('Tag, from registry-repository-list-tags');
const Digest = z
  .string()
  // "sha256:" and 64 digits: its length, for generators that read the JSON Schema.
  .length(71, 'expected a manifest digest: "sha256:" and 64 hex digits')
  .regex(/^sha256:[0-9a-f]{64}$/, 'expected a manifest digest: "sha256:" and 64 hex digits')
  .describe('Manifest digest, from registry-repository-list-manifests');

export const SUBSCRIPTION_TIERS = ['starter', 'basic', 'professional'] as const;
const Tier = (description: string) => z.enum(SUBSCRIPTION_TIERS).describe(description);

export const GARBAGE_COLLECTION_TYPES = [
  'untagged manifests only',
  'unreferenced blobs only',
  'untagged manifests and unreferenced blobs',
] as const;

const GcUuid = z
  .string()
  .regex(
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
    'expected a garbage collection UUID',
  )
  .describe('Collection UUID, from registry-garbage-collection-list');

const registryPath = '/v2/registries/{Registry}';
const repositoryPath = `${registryPath}/repositories/{Repository}`;

export const registryTools = [
  defineTool({
    name: 'registry-list',
    family: 'registry',
    beyondSpec: true,
    title: 'List container registries',
    description: "The account's container registries.",
    details:
      "Lists the account's container registries: name, region, storage used and when. They share one subscription (registry-subscription-get); several only on the professional tier.",
    input: z.strictObject({}),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/registries' },
    result: returns<RegistryList>(),
  }),
  defineTool({
    name: 'registry-get',
    family: 'registry',
    beyondSpec: true,
    title: 'Get container registry',
    description: 'One registry: region, storage used.',
    details:
      'Shows one container registry: its region, storage used and when that was measured. Its docker host is registry.digitalocean.com/<name>.',
    input: z.strictObject({ Registry: RegistryArg }),
    annotations: annotations.read,
    request: { method: 'GET', path: registryPath },
    result: returns<{ registry: Registry }>(),
  }),
  defineTool({
    name: 'registry-create',
    family: 'registry',
    beyondSpec: true,
    title: 'Create container registry',
    description: 'Create a registry; the first needs a tier.',
    details:
      "Creates a container registry. The account's first registry starts its subscription, so it needs SubscriptionTier (starter: free, 1 repository, 500 MiB; basic; professional: the only tier with several registries). Later registries share that tier. Region defaults to one the platform picks (registry-list-options lists them). Names are unique across the platform.",
    input: z.strictObject({
      Name: registryName('Lowercase, digits, "-"'),
      SubscriptionTier: Tier("Needed for the account's first").optional(),
      Region: regionSlug('e.g. nyc3').optional(),
    }),
    annotations: annotations.create,
    request: {
      method: 'POST',
      path: '/v2/registries',
      body: { name: 'Name', subscription_tier_slug: 'SubscriptionTier', region: 'Region' },
    },
    result: returns<{ registry: Registry }>(),
  }),
  defineTool({
    name: 'registry-delete',
    family: 'registry',
    beyondSpec: true,
    title: 'Delete container registry',
    description: 'Delete a registry and all its images.',
    details:
      "Deletes a container registry and every repository, tag and manifest in it, for good. The subscription ends with the account's last registry.",
    input: z.strictObject({ Registry: RegistryArg }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: registryPath },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'registry-subscription-get',
    family: 'registry',
    beyondSpec: true,
    title: 'Get registry subscription',
    description: "The registries' tier and its limits.",
    details:
      "Shows the subscription the account's registries share: its tier, the repositories and storage it includes, and its price.",
    input: z.strictObject({}),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/registries/subscription' },
    result: returns<{ subscription: RegistrySubscription }>(),
  }),
  defineTool({
    name: 'registry-subscription-update',
    family: 'registry',
    beyondSpec: true,
    title: 'Change registry tier',
    description: "Change the registries' subscription tier.",
    details:
      "Moves the account's registries to another tier. A tier the usage does not fit (repositories, storage, registries) is refused, saying why; registry-list-options shows which tiers fit.",
    input: z.strictObject({ Tier: Tier('New tier') }),
    annotations: annotations.update,
    request: { method: 'POST', path: '/v2/registries/subscription', body: { tier_slug: 'Tier' } },
    result: returns<{ subscription: RegistrySubscription }>(),
  }),
  defineTool({
    name: 'registry-list-options',
    family: 'registry',
    beyondSpec: true,
    title: 'List registry tiers and regions',
    description: 'Subscription tiers and regions.',
    details:
      'Lists the subscription tiers (limits, prices, and whether the account fits each) and the regions a registry can be created in.',
    input: z.strictObject({}),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/registries/options' },
    result: returns<RegistryOptions>(),
  }),
  defineTool({
    name: 'registry-docker-config',
    family: 'registry',
    beyondSpec: true,
    title: 'Get docker credentials',
    description: 'A docker config.json to push and pull.',
    details:
      'Issues docker credentials for registry.digitalocean.com, as a docker config.json: a new token each call, read-only unless ReadWrite, expiring after ExpirySeconds when given. The token is a secret: it is hidden unless asked for.',
    input: z.strictObject({
      ReadWrite: z.boolean().optional().describe('Allow pushes'),
      ExpirySeconds: z
        .number()
        .int()
        .min(1)
        .max(2 ** 31 - 1)
        .optional()
        .describe('Valid for, seconds'),
    }),
    // Each call issues a new token: it changes the account, and is not repeated for free.
    annotations: annotations.create,
    request: {
      method: 'GET',
      path: '/v2/registry/docker-credentials',
      query: { read_write: 'ReadWrite', expiry_seconds: 'ExpirySeconds' },
    },
    result: returns<DockerCredentials>(),
  }),
  defineTool({
    name: 'registry-repository-list-v2',
    family: 'registry',
    beyondSpec: true,
    title: 'List repositories',
    description: "A registry's repositories.",
    details:
      "Lists a registry's repositories, each with its latest manifest, tag count and manifest count. Paginated.",
    input: z.strictObject({ Registry: RegistryArg, ...page }),
    annotations: annotations.read,
    request: { method: 'GET', path: `${registryPath}/repositoriesV2`, query: pageQuery },
    result: returns<RepositoryList>(),
  }),
  defineTool({
    name: 'registry-repository-list-tags',
    family: 'registry',
    beyondSpec: true,
    title: 'List repository tags',
    description: "A repository's tags, newest first.",
    details:
      "Lists a repository's tags, newest first: the manifest each names, its size and when it moved. Paginated.",
    input: z.strictObject({ Registry: RegistryArg, Repository, ...page }),
    annotations: annotations.read,
    request: { method: 'GET', path: `${repositoryPath}/tags`, query: pageQuery, slashed: ['Repository'] },
    result: returns<RepositoryTagList>(),
  }),
  defineTool({
    name: 'registry-repository-delete-tag',
    family: 'registry',
    beyondSpec: true,
    title: 'Delete repository tag',
    description: 'Delete a tag; its manifest stays.',
    details:
      'Deletes a tag. The manifest it named stays, untagged, until deleted or collected (registry-garbage-collection-start).',
    input: z.strictObject({ Registry: RegistryArg, Repository, Tag }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: `${repositoryPath}/tags/{Tag}`, slashed: ['Repository'] },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'registry-repository-list-manifests',
    family: 'registry',
    beyondSpec: true,
    title: 'List repository manifests',
    description: "A repository's manifests, newest first.",
    details:
      "Lists a repository's manifests (images), newest first: digest, tags, sizes and layers. Paginated.",
    input: z.strictObject({ Registry: RegistryArg, Repository, ...page }),
    annotations: annotations.read,
    request: { method: 'GET', path: `${repositoryPath}/digests`, query: pageQuery, slashed: ['Repository'] },
    result: returns<RepositoryManifestList>(),
  }),
  defineTool({
    name: 'registry-repository-delete-manifest',
    family: 'registry',
    beyondSpec: true,
    title: 'Delete repository manifest',
    description: 'Delete an image by digest, with its tags.',
    details:
      'Deletes a manifest and every tag naming it. Its layers stay stored until a garbage collection frees them.',
    input: z.strictObject({ Registry: RegistryArg, Repository, Digest }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: `${repositoryPath}/digests/{Digest}`, slashed: ['Repository'] },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'registry-garbage-collection-start',
    family: 'registry',
    beyondSpec: true,
    title: 'Start garbage collection',
    description: 'Free the storage of deleted images.',
    details:
      'Starts a garbage collection, which deletes for good what Type says (default: unreferenced blobs only). The registry is read-only (no pushes) until it ends; one runs at a time. Wait for it with wait (Kind registry-garbage-collection).',
    input: z.strictObject({
      Registry: RegistryArg,
      Type: z.enum(GARBAGE_COLLECTION_TYPES).optional().describe('What to delete'),
    }),
    annotations: annotations.destructive,
    wait: { kind: 'registry-garbage-collection', nameArgument: 'Registry' },
    request: { method: 'POST', path: `${registryPath}/garbage-collection`, body: { type: 'Type' } },
    result: returns<{ garbage_collection: GarbageCollection }>(),
  }),
  defineTool({
    name: 'registry-garbage-collection-get-active',
    family: 'registry',
    beyondSpec: true,
    title: 'Get active garbage collection',
    description: "A registry's running collection.",
    details: "Shows the registry's garbage collection still running, if any (a 404 when none is).",
    input: z.strictObject({ Registry: RegistryArg }),
    annotations: annotations.read,
    request: { method: 'GET', path: `${registryPath}/garbage-collection` },
    result: returns<{ garbage_collection: GarbageCollection }>(),
  }),
  defineTool({
    name: 'registry-garbage-collection-list',
    family: 'registry',
    beyondSpec: true,
    title: 'List garbage collections',
    description: "A registry's collections, newest first.",
    details:
      "Lists a registry's garbage collections, newest first: status, blobs deleted and bytes freed. Paginated.",
    input: z.strictObject({ Registry: RegistryArg, ...page }),
    annotations: annotations.read,
    request: { method: 'GET', path: `${registryPath}/garbage-collections`, query: pageQuery },
    result: returns<GarbageCollectionList>(),
  }),
  defineTool({
    name: 'registry-garbage-collection-cancel',
    family: 'registry',
    beyondSpec: true,
    title: 'Cancel garbage collection',
    description: 'Cancel a running collection.',
    details: 'Cancels a garbage collection still running; it is cancelling, then cancelled.',
    input: z.strictObject({ Registry: RegistryArg, UUID: GcUuid }),
    annotations: annotations.update,
    request: {
      method: 'PUT',
      path: `${registryPath}/garbage-collection/{UUID}`,
      fixed: { cancel: true },
    },
    result: returns<{ garbage_collection: GarbageCollection }>(),
  }),
] as const;
