/**
 * @cloudcall/registry: the container registry (registries and their shared subscription,
 * repositories, tags, manifests, garbage collection, docker credentials), as tool definitions and
 * as a typed API.
 *
 * ```ts
 * import { createClient } from '@cloudcall/core';
 * import { registryApi } from '@cloudcall/registry';
 * const registry = registryApi(createClient({ token }));
 * const { repositories } = await registry.registryRepositoryListV2({ Registry: 'example' });
 * ```
 */
import { type ApiClient, type BoundTools, bindTools, type ToolFamily } from '@cloudcall/core';
import { GARBAGE_COLLECTION_TYPES, REGISTRY_NAME, registryTools, SUBSCRIPTION_TIERS } from './tools.js';

export type {
  DockerCredentials,
  GarbageCollection,
  GarbageCollectionList,
  Registry,
  RegistryList,
  RegistryOptions,
  RegistrySubscription,
  RegistryTier,
  Repository,
  RepositoryList,
  RepositoryManifest,
  RepositoryManifestList,
  RepositoryTag,
  RepositoryTagList,
} from './types.js';
export { GARBAGE_COLLECTION_TYPES, REGISTRY_NAME, registryTools, SUBSCRIPTION_TIERS };

/** The host docker logs in to for every registry of the platform. */
export const REGISTRY_HOST = 'registry.digitalocean.com';

export const registryFamily: ToolFamily = {
  name: 'registry',
  title: 'Container registry',
  description:
    'Container registries: create, get, delete, subscription tier, options; repositories, tags, manifests; garbage collection; docker credentials.',
  tools: registryTools,
  onRequest: true,
};

/** The registry tools bound to a client: `registryCreate`, `registryRepositoryListTags`... */
export function registryApi(client: ApiClient): BoundTools<typeof registryTools> {
  return bindTools(client, registryTools);
}
