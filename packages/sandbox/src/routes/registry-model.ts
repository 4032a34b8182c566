/**
 * The container registry's rules over the world: garbage collections as they move on the clock,
 * storage and tier eligibility, and pushing an image (which the API cannot do: tests and demos
 * push through `pushImage`). The state's shapes are in families/registry.ts.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  type GarbageCollectionType,
  type RegistryTier,
  type StoredGarbageCollection,
  type StoredManifest,
  type StoredRegistry,
  tierOf,
} from '../families/registry.js';
import { HttpError, notFound } from '../http.js';
import type { World } from '../world.js';

/** How long each status of a garbage collection lasts, in sandbox milliseconds, in order. */
export const GC_PHASES: readonly { status: string; from_ms: number }[] = [
  { status: 'requested', from_ms: 0 },
  { status: 'waiting for write JWTs to expire', from_ms: 1_000 },
  { status: 'scanning manifests', from_ms: 3_000 },
  { status: 'deleting unreferenced blobs', from_ms: 5_000 },
  { status: 'succeeded', from_ms: 7_000 },
];
/** How long a cancelled collection shows `cancelling` before `cancelled`. */
export const GC_CANCEL_MS = 1_000;

const FINISHED = new Set(['succeeded', 'cancelled', 'failed']);

/** A collection's status at `now`, and when it took it. */
export function gcStatus(gc: StoredGarbageCollection, now: number): { status: string; since_ms: number } {
  const elapsed = now - gc.created_ms;
  if (gc.cancelled_ms !== null) {
    const done = gc.cancelled_ms + GC_CANCEL_MS;
    return now >= done
      ? { status: 'cancelled', since_ms: done }
      : { status: 'cancelling', since_ms: gc.cancelled_ms };
  }
  let phase = GC_PHASES[0] as { status: string; from_ms: number };
  for (const candidate of GC_PHASES) if (elapsed >= candidate.from_ms) phase = candidate;
  return { status: phase.status, since_ms: gc.created_ms + phase.from_ms };
}

export const gcActive = (gc: StoredGarbageCollection, now: number) => !FINISHED.has(gcStatus(gc, now).status);

/** The registry's collection still running at `now`, if any (there is at most one). */
export const activeGarbageCollection = (world: World, registry: string, now: number) =>
  world.registryGarbageCollections.find((gc) => gc.registry === registry && gcActive(gc, now));

/** Collections that have succeeded by `now` and whose deletions are not yet removed. */
function unsettled(world: World, registry: string | undefined, now: number) {
  return world.registryGarbageCollections.filter(
    (gc) =>
      !gc.settled &&
      (registry === undefined || gc.registry === registry) &&
      gcStatus(gc, now).status === 'succeeded',
  );
}

const manifestKey = (registry: string, repository: string, digest: string) =>
  `${registry}\u0000${repository}\u0000${digest}`;

/**
 * The registry's manifests and blobs as they are at `now`: without what a succeeded garbage
 * collection deleted (reads cannot change the state, so they leave it out).
 */
export function settled(world: World, registry: string, now: number) {
  const pending = unsettled(world, registry, now);
  const goneManifests = new Set<string>();
  const goneBlobs = new Set<string>();
  for (const gc of pending) {
    for (const m of gc.manifests) goneManifests.add(manifestKey(gc.registry, m.repository, m.digest));
    for (const digest of gc.blobs) goneBlobs.add(digest);
  }
  const manifests = world.registryManifests.filter(
    (m) => m.registry === registry && !goneManifests.has(manifestKey(registry, m.repository, m.digest)),
  );
  const blobs = world.registryBlobs.filter((b) => b.registry === registry && !goneBlobs.has(b.digest));
  return { manifests, blobs };
}

/** Removes from the state what succeeded garbage collections deleted; run before each change. */
export function settleGarbageCollections(world: World, now: number): void {
  const pending = unsettled(world, undefined, now);
  if (!pending.length) return;
  for (const gc of pending) {
    const manifests = new Set(gc.manifests.map((m) => manifestKey(gc.registry, m.repository, m.digest)));
    const blobs = new Set(gc.blobs);
    world.registryManifests = world.registryManifests.filter(
      (m) => !manifests.has(manifestKey(m.registry, m.repository, m.digest)),
    );
    world.registryBlobs = world.registryBlobs.filter(
      (b) => b.registry !== gc.registry || !blobs.has(b.digest),
    );
    gc.settled = true;
  }
}

/** What a garbage collection of `type` started now would delete. */
export function planGarbageCollection(
  world: World,
  registry: string,
  type: GarbageCollectionType,
  now: number,
) {
  const { manifests, blobs } = settled(world, registry, now);
  const untagged = type === 'unreferenced blobs only' ? [] : manifests.filter((m) => m.tags.length === 0);
  const kept = manifests.filter((m) => !untagged.includes(m));
  const referenced = new Set(kept.flatMap((m) => m.blobs.map((b) => b.digest)));
  const unreferenced =
    type === 'untagged manifests only' ? [] : blobs.filter((blob) => !referenced.has(blob.digest));
  return {
    manifests: untagged.map((m) => ({ repository: m.repository, digest: m.digest })),
    blobs: unreferenced.map((b) => b.digest),
    freed_bytes: unreferenced.reduce((sum, b) => sum + b.compressed_size_bytes, 0),
  };
}

/** A registry's storage at `now`: the bytes of its blobs, and when that last changed. */
export function storageOf(world: World, registry: StoredRegistry, now: number) {
  const { blobs } = settled(world, registry.name, now);
  let updated = registry.storage_updated_ms;
  for (const gc of world.registryGarbageCollections) {
    if (gc.registry !== registry.name) continue;
    const { status, since_ms } = gcStatus(gc, now);
    if (status === 'succeeded' && since_ms > updated) updated = since_ms;
  }
  return { bytes: blobs.reduce((sum, b) => sum + b.compressed_size_bytes, 0), updated_ms: updated };
}

/** The account's usage that a tier is measured against: registries, repositories, storage. */
export function accountUsage(world: World, now: number) {
  let repositories = 0;
  let bytes = 0;
  for (const registry of world.containerRegistries) {
    repositories += new Set(settled(world, registry.name, now).manifests.map((m) => m.repository)).size;
    bytes += storageOf(world, registry, now).bytes;
  }
  return { registries: world.containerRegistries.length, repositories, bytes };
}

export type EligibilityReason = 'OverRepositoryLimit' | 'OverStorageLimit' | 'OverRegistryLimit';

/** Why the account's usage does not fit a tier (none: it fits). */
export function ineligibility(
  tier: RegistryTier,
  usage: ReturnType<typeof accountUsage>,
): EligibilityReason[] {
  const reasons: EligibilityReason[] = [];
  if (tier.included_repositories > 0 && usage.repositories > tier.included_repositories)
    reasons.push('OverRepositoryLimit');
  if (!tier.allow_storage_overage && usage.bytes > tier.included_storage_bytes)
    reasons.push('OverStorageLimit');
  if (usage.registries > tier.registries) reasons.push('OverRegistryLimit');
  return reasons;
}

/** Docker's rules for a repository name: lowercase path components joined by `/`. */
export const REPOSITORY_NAME =
  /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
/** Docker's rules for a tag. */
export const TAG_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
export const DIGEST = /^sha256:[0-9a-f]{64}$/;

const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

export interface PushOptions {
  /**
   * The image's manifest digest. A manifest of the repository with this digest gets the tag (a
   * `docker tag` and push of an image already there); otherwise a new manifest has it. Default: a
   * digest of its own.
   */
  digest?: string;
  /**
   * Its layers (after a config blob of a few KB). Give a layer's digest to share it with images
   * pushed before: its bytes count once. Default: two layers of a few MB.
   */
  layers?: { digest?: string; compressed_size_bytes: number }[];
}

/** Refuses a push as the registry does (docker shows the message); never answers an API request. */
const denied = (message: string) => new HttpError(403, 'denied', message);

/**
 * Pushes an image `repository:tag` to the account's registry `registry` at sandbox time `now`, as
 * `docker push registry.digitalocean.com/<registry>/<repository>:<tag>` does: sandbox support, not
 * an API operation. The tag moves to the new image (the image it named before stays, untagged,
 * until a garbage collection of untagged manifests). Throws an HttpError (404 for an unknown
 * registry, 400 for a bad name, 403 `denied` when the platform refuses the push: during a garbage
 * collection, or beyond the tier's repositories or storage). Returns the manifest's digest.
 */
export function pushImage(
  world: World,
  registry: string,
  repository: string,
  tag: string,
  now: number,
  options: PushOptions = {},
): { digest: string } {
  settleGarbageCollections(world, now);
  const target = world.containerRegistries.find((r) => r.name === registry);
  if (!target) throw notFound(`registry ${registry} does not exist`);
  if (!REPOSITORY_NAME.test(repository) || repository.length > 255)
    throw new HttpError(400, 'bad_request', `invalid repository name ${JSON.stringify(repository)}`);
  if (!TAG_NAME.test(tag)) throw new HttpError(400, 'bad_request', `invalid tag ${JSON.stringify(tag)}`);
  if (options.digest !== undefined && !DIGEST.test(options.digest))
    throw new HttpError(400, 'bad_request', `invalid digest ${JSON.stringify(options.digest)}`);
  if (activeGarbageCollection(world, registry, now)) {
    throw denied(
      `registry ${registry} is read-only while a garbage collection runs: no write tokens are issued until it ends`,
    );
  }
  const tier = tierOf(world.registrySubscription.tier ?? '') as RegistryTier;
  const mine = world.registryManifests.filter((m) => m.registry === registry);
  const newRepository = !mine.some((m) => m.repository === repository);
  const usage = accountUsage(world, now);
  if (newRepository && tier.included_repositories > 0 && usage.repositories >= tier.included_repositories) {
    throw denied(
      `the ${tier.slug} subscription tier allows ${tier.included_repositories} repositories and the account has ${usage.repositories}: [OverRepositoryLimit]`,
    );
  }
  const seed = `${registry}/${repository}:${tag}@${now}`;
  const moveTag = () => {
    for (const m of mine) {
      if (m.repository === repository) m.tags = m.tags.filter((t) => t.name !== tag);
    }
  };
  const existing = options.digest
    ? mine.find((m) => m.repository === repository && m.digest === options.digest)
    : undefined;
  if (existing) {
    moveTag();
    existing.tags.push({ name: tag, updated_ms: now });
    existing.updated_ms = now;
    return { digest: existing.digest };
  }
  const layers = options.layers ?? [
    {
      compressed_size_bytes: 2_000_000 + (Number.parseInt(sha256(`${seed}#1`).slice(7, 13), 16) % 3_000_000),
    },
    { compressed_size_bytes: 100_000 + (Number.parseInt(sha256(`${seed}#2`).slice(7, 13), 16) % 900_000) },
  ];
  const blobs = [
    { digest: sha256(`${seed}#config`), compressed_size_bytes: 1_400 + (now % 600) },
    ...layers.map((layer, i) => ({
      digest: layer.digest ?? sha256(`${seed}#layer${i}`),
      compressed_size_bytes: layer.compressed_size_bytes,
    })),
  ];
  for (const blob of blobs) {
    const size = blob.compressed_size_bytes;
    if (!DIGEST.test(blob.digest) || !Number.isSafeInteger(size) || size < 0)
      throw new HttpError(400, 'bad_request', `invalid layer ${JSON.stringify(blob)}`);
  }
  const known = new Set(world.registryBlobs.filter((b) => b.registry === registry).map((b) => b.digest));
  const added = blobs.filter(
    (b, i) => !known.has(b.digest) && blobs.findIndex((o) => o.digest === b.digest) === i,
  );
  const addedBytes = added.reduce((sum, b) => sum + b.compressed_size_bytes, 0);
  if (!tier.allow_storage_overage && usage.bytes + addedBytes > tier.included_storage_bytes) {
    throw denied(
      `the ${tier.slug} subscription tier includes ${tier.included_storage_bytes} bytes of storage and allows no more: [OverStorageLimit]`,
    );
  }
  moveTag();
  for (const b of added) world.registryBlobs.push({ registry, ...b });
  const compressed = blobs.reduce((sum, b) => sum + b.compressed_size_bytes, 0);
  const manifest: StoredManifest = {
    registry,
    repository,
    digest: options.digest ?? sha256(`${seed}#manifest`),
    tags: [{ name: tag, updated_ms: now }],
    blobs,
    compressed_size_bytes: compressed,
    // Layers unpack to about twice their compressed size.
    size_bytes: compressed * 2 + 1_024,
    updated_ms: now,
  };
  world.registryManifests.push(manifest);
  target.storage_updated_ms = now;
  return { digest: manifest.digest };
}

/** Removes a registry and everything in it; the subscription ends with the account's last one. */
export function dropRegistry(world: World, registry: StoredRegistry): void {
  world.containerRegistries = world.containerRegistries.filter((r) => r.name !== registry.name);
  world.registryManifests = world.registryManifests.filter((m) => m.registry !== registry.name);
  world.registryBlobs = world.registryBlobs.filter((b) => b.registry !== registry.name);
  world.registryGarbageCollections = world.registryGarbageCollections.filter(
    (gc) => gc.registry !== registry.name,
  );
  if (!world.containerRegistries.length) {
    world.registrySubscription = { tier: null, created_ms: 0, updated_ms: 0 };
  }
}

/** A new garbage collection's record. */
export function newGarbageCollection(
  world: World,
  registry: string,
  type: GarbageCollectionType,
  now: number,
): StoredGarbageCollection {
  const plan = planGarbageCollection(world, registry, type, now);
  return { uuid: randomUUID(), registry, type, created_ms: now, cancelled_ms: null, settled: false, ...plan };
}
