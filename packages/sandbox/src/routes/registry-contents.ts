/**
 * What a container registry holds, by the registry's name, on both APIs (`/v2/registry/{name}/...`,
 * deprecated, and `/v2/registries/{name}/...`): repositories (v1 on the old API only, v2 on both),
 * their tags and manifests (deleting a tag leaves its manifest untagged; deleting a manifest
 * deletes its tags; its blobs stay stored until a garbage collection), deleting a whole
 * repository (new API only), and garbage collections: one at a time per registry, moving through
 * the platform's statuses on the sandbox clock, cancelled by a PUT of `{cancel: true}`.
 */
import {
  type GarbageCollectionType,
  GC_TYPES,
  type StoredGarbageCollection,
  type StoredManifest,
  type StoredRegistry,
  type StoredTag,
} from '../families/registry.js';
import { HttpError, notFound, paginate, type Route, type SandboxRequest, unprocessable } from '../http.js';
import { iso } from '../time.js';
import type { World } from '../world.js';
import {
  activeGarbageCollection,
  DIGEST,
  gcActive,
  gcStatus,
  newGarbageCollection,
  settled,
  settleGarbageCollections,
} from './registry-model.js';

/** The account's registry named in the path, or the platform's 404. */
export function findRegistry(world: World, name: string | undefined): StoredRegistry {
  const registry = world.containerRegistries.find((r) => r.name === name);
  if (!registry) throw notFound(`registry ${JSON.stringify(name ?? '')} not found`);
  return registry;
}

/** The registry of the path, with the state settled first: for routes that change it. */
function registryForChange(world: World, req: SandboxRequest): StoredRegistry {
  settleGarbageCollections(world, req.now);
  return findRegistry(world, req.params.registry_name);
}

const newestFirst = <T extends { updated_ms: number }>(a: T, b: T) => b.updated_ms - a.updated_ms;

export function tagView(manifest: StoredManifest, tag: StoredTag) {
  return {
    registry_name: manifest.registry,
    repository: manifest.repository,
    tag: tag.name,
    manifest_digest: manifest.digest,
    compressed_size_bytes: manifest.compressed_size_bytes,
    size_bytes: manifest.size_bytes,
    updated_at: iso(tag.updated_ms),
  };
}

export function manifestView(manifest: StoredManifest) {
  return {
    registry_name: manifest.registry,
    repository: manifest.repository,
    digest: manifest.digest,
    compressed_size_bytes: manifest.compressed_size_bytes,
    size_bytes: manifest.size_bytes,
    updated_at: iso(manifest.updated_ms),
    tags: [...manifest.tags].sort(newestFirst).map((t) => t.name),
    blobs: manifest.blobs.map((b) => ({ digest: b.digest, compressed_size_bytes: b.compressed_size_bytes })),
  };
}

export function gcView(gc: StoredGarbageCollection, now: number) {
  const { status, since_ms } = gcStatus(gc, now);
  const done = status === 'succeeded';
  return {
    uuid: gc.uuid,
    registry_name: gc.registry,
    status,
    // Not in the description's schema: the platform answers it (godo reads it as `Type`).
    type: gc.type,
    created_at: iso(gc.created_ms),
    updated_at: iso(since_ms),
    blobs_deleted: done ? gc.blobs.length : 0,
    freed_bytes: done ? gc.freed_bytes : 0,
  };
}

/** The repositories of a registry at `now`: their manifests, by name, in name order. */
function repositoriesOf(world: World, registry: StoredRegistry, now: number) {
  const byName = new Map<string, StoredManifest[]>();
  for (const manifest of settled(world, registry.name, now).manifests) {
    const list = byName.get(manifest.repository) ?? [];
    list.push(manifest);
    byName.set(manifest.repository, list);
  }
  return [...byName.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A repository's manifests at `now` (a repository exists while it has one), or the 404. */
function repositoryManifests(world: World, req: SandboxRequest): StoredManifest[] {
  const registry = findRegistry(world, req.params.registry_name);
  const name = req.params.repository_name ?? '';
  const manifests = settled(world, registry.name, req.now).manifests.filter((m) => m.repository === name);
  if (!manifests.length)
    throw notFound(`repository ${JSON.stringify(name)} not found in registry ${registry.name}`);
  return manifests;
}

function tagsOf(manifests: readonly StoredManifest[]) {
  return manifests
    .flatMap((manifest) => manifest.tags.map((tag) => ({ manifest, tag, updated_ms: tag.updated_ms })))
    .sort(newestFirst);
}

function repositoryV1View(registry: string, name: string, manifests: StoredManifest[]) {
  const tags = tagsOf(manifests);
  const latest = tags[0];
  return {
    registry_name: registry,
    name,
    ...(latest ? { latest_tag: tagView(latest.manifest, latest.tag) } : {}),
    tag_count: tags.length,
  };
}

function repositoryV2View(registry: string, name: string, manifests: StoredManifest[]) {
  const latest = [...manifests].sort(newestFirst)[0] as StoredManifest;
  return {
    registry_name: registry,
    name,
    latest_manifest: manifestView(latest),
    tag_count: tagsOf(manifests).length,
    manifest_count: manifests.length,
  };
}

/** One page of repositories, views made for that page only. */
function repositoriesPage(
  world: World,
  req: SandboxRequest,
  view: (registry: string, name: string, manifests: StoredManifest[]) => unknown,
) {
  const registry = findRegistry(world, req.params.registry_name);
  const page = paginate(repositoriesOf(world, registry, req.now), req);
  return {
    repositories: page.items.map(([name, manifests]) => view(registry.name, name, manifests)),
    links: page.links,
    meta: page.meta,
  };
}

function gcType(value: unknown): GarbageCollectionType {
  if (value === undefined || value === null || value === '') return 'unreferenced blobs only';
  if (!GC_TYPES.includes(value as GarbageCollectionType)) {
    throw unprocessable(`type must be one of ${GC_TYPES.map((t) => JSON.stringify(t)).join(', ')}`);
  }
  return value as GarbageCollectionType;
}

/** The routes of a registry's contents under `prefix` (`/v2/registry` or `/v2/registries`). */
function contentRoutes(prefix: string, api: 'single' | 'multi'): Route[] {
  const base = `${prefix}/{registry_name}`;
  const repo = `${base}/repositories/{repository_name}`;
  const routes: Route[] = [
    {
      method: 'GET',
      path: `${base}/repositoriesV2`,
      handler: (req, world) => ({ body: repositoriesPage(world, req, repositoryV2View) }),
    },
    {
      method: 'GET',
      path: `${repo}/tags`,
      handler: (req, world) => {
        const tags = tagsOf(repositoryManifests(world, req));
        const page = paginate(tags, req);
        return {
          body: {
            tags: page.items.map((t) => tagView(t.manifest, t.tag)),
            links: page.links,
            meta: page.meta,
          },
        };
      },
    },
    {
      method: 'DELETE',
      path: `${repo}/tags/{repository_tag}`,
      handler: (req, world) => {
        registryForChange(world, req);
        const tag = req.params.repository_tag;
        const manifest = repositoryManifests(world, req).find((m) => m.tags.some((t) => t.name === tag));
        if (!manifest)
          throw notFound(`tag ${JSON.stringify(tag)} not found in repository ${req.params.repository_name}`);
        manifest.tags = manifest.tags.filter((t) => t.name !== tag);
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      path: `${repo}/digests`,
      handler: (req, world) => {
        const manifests = [...repositoryManifests(world, req)].sort(newestFirst);
        const page = paginate(manifests, req);
        return { body: { manifests: page.items.map(manifestView), links: page.links, meta: page.meta } };
      },
    },
    {
      method: 'DELETE',
      path: `${repo}/digests/{manifest_digest}`,
      handler: (req, world) => {
        const registry = registryForChange(world, req);
        const digest = req.params.manifest_digest ?? '';
        if (!DIGEST.test(digest))
          throw new HttpError(
            400,
            'bad_request',
            `manifest digest must be sha256: and 64 hex digits; got ${JSON.stringify(digest)}`,
          );
        const manifest = repositoryManifests(world, req).find((m) => m.digest === digest);
        if (!manifest)
          throw notFound(`manifest ${digest} not found in repository ${req.params.repository_name}`);
        // Its tags go with it; its blobs stay stored until a garbage collection frees them.
        world.registryManifests = world.registryManifests.filter(
          (m) =>
            !(m.registry === registry.name && m.repository === manifest.repository && m.digest === digest),
        );
        return { status: 204 };
      },
    },
    {
      method: 'POST',
      path: `${base}/garbage-collection`,
      handler: (req, world) => {
        const registry = registryForChange(world, req);
        const type = gcType(req.body.type);
        const active = activeGarbageCollection(world, registry.name, req.now);
        if (active) {
          throw new HttpError(
            409,
            'conflict',
            `garbage collection ${active.uuid} is ${gcStatus(active, req.now).status}: a registry runs one at a time`,
          );
        }
        const gc = newGarbageCollection(world, registry.name, type, req.now);
        world.registryGarbageCollections.push(gc);
        return { status: 201, body: { garbage_collection: gcView(gc, req.now) } };
      },
    },
    {
      method: 'GET',
      path: `${base}/garbage-collection`,
      handler: (req, world) => {
        const registry = findRegistry(world, req.params.registry_name);
        const active = activeGarbageCollection(world, registry.name, req.now);
        if (!active) throw notFound(`registry ${registry.name} has no active garbage collection`);
        return { body: { garbage_collection: gcView(active, req.now) } };
      },
    },
    {
      method: 'GET',
      path: `${base}/garbage-collections`,
      handler: (req, world) => {
        const registry = findRegistry(world, req.params.registry_name);
        const all = world.registryGarbageCollections.filter((gc) => gc.registry === registry.name).reverse();
        const page = paginate(all, req);
        return {
          body: {
            garbage_collections: page.items.map((gc) => gcView(gc, req.now)),
            links: page.links,
            meta: page.meta,
          },
        };
      },
    },
    {
      method: 'PUT',
      path: `${base}/garbage-collection/{garbage_collection_uuid}`,
      handler: (req, world) => {
        const registry = registryForChange(world, req);
        const gc = world.registryGarbageCollections.find(
          (g) => g.registry === registry.name && g.uuid === req.params.garbage_collection_uuid,
        );
        if (!gc) throw notFound(`garbage collection ${req.params.garbage_collection_uuid} not found`);
        if (req.body.cancel !== true) {
          throw unprocessable('cancel must be true: cancelling is the one change a garbage collection takes');
        }
        const { status } = gcStatus(gc, req.now);
        if (status !== 'cancelling') {
          if (!gcActive(gc, req.now)) {
            throw new HttpError(
              409,
              'conflict',
              `garbage collection ${gc.uuid} is ${status}: only an active one can be cancelled`,
            );
          }
          gc.cancelled_ms = req.now;
        }
        return { body: { garbage_collection: gcView(gc, req.now) } };
      },
    },
  ];
  if (api === 'single') {
    routes.push({
      method: 'GET',
      path: `${base}/repositories`,
      handler: (req, world) => ({ body: repositoriesPage(world, req, repositoryV1View) }),
    });
  } else {
    routes.push({
      method: 'DELETE',
      path: repo,
      handler: (req, world) => {
        const registry = registryForChange(world, req);
        const name = repositoryManifests(world, req)[0]?.repository;
        // Its manifests and tags go; its blobs stay stored until a garbage collection.
        world.registryManifests = world.registryManifests.filter(
          (m) => !(m.registry === registry.name && m.repository === name),
        );
        return { status: 204 };
      },
    });
  }
  return routes;
}

export const registryContentRoutes: Route[] = [
  ...contentRoutes('/v2/registry', 'single'),
  ...contentRoutes('/v2/registries', 'multi'),
];
