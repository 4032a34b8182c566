/**
 * Container registry state of the sandbox world: the account's registries, the one subscription
 * they share, the image manifests pushed to them (a repository exists while it holds a manifest),
 * the blobs the manifests reference (storage), and garbage collections.
 *
 * The API cannot push images (docker does, through the registry's own protocol), so the sandbox
 * offers `pushImage` (`@cloudcall/sandbox/registry`) to put one there: tests and demos call it on the world
 * (`sandbox.store.write((world) => pushImage(world, 'example', 'web', 'v1', now))`). It keeps the
 * platform's rules for a push: the subscription tier's repository limit and storage (when the
 * tier allows no overage), and no push while a garbage collection holds the registry read-only.
 *
 * A garbage collection decides what it deletes when it starts (pushes wait for it to end, so what
 * is unreferenced then stays so) and its status moves with the sandbox clock. Its deletions show
 * once it has succeeded: reads leave out what a succeeded collection deleted (`settled`), and
 * the next change to the registry removes it for good (`settleGarbageCollections`).
 */

export interface RegistryTier {
  slug: 'starter' | 'basic' | 'professional';
  name: string;
  /** 0: any number. */
  included_repositories: number;
  included_storage_bytes: number;
  allow_storage_overage: boolean;
  included_bandwidth_bytes: number;
  monthly_price_in_cents: number;
  storage_overage_price_in_cents: number;
  /** How many registries the account may hold on this tier (several only on professional). */
  registries: number;
}

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/**
 * The platform's tiers, as its options list them: starter is free with one repository and 500 MiB
 * and no storage beyond; basic has five repositories and 5 GiB; professional any number and
 * 100 GiB, and is the only tier with more than one registry (ten in all, per the platform's
 * multi-registry documentation).
 */
export const REGISTRY_TIERS: readonly RegistryTier[] = [
  {
    slug: 'starter',
    name: 'Starter',
    included_repositories: 1,
    included_storage_bytes: 500 * MIB,
    allow_storage_overage: false,
    included_bandwidth_bytes: 500 * MIB,
    monthly_price_in_cents: 0,
    storage_overage_price_in_cents: 0,
    registries: 1,
  },
  {
    slug: 'basic',
    name: 'Basic',
    included_repositories: 5,
    included_storage_bytes: 5 * GIB,
    allow_storage_overage: true,
    included_bandwidth_bytes: 5 * GIB,
    monthly_price_in_cents: 500,
    storage_overage_price_in_cents: 2,
    registries: 1,
  },
  {
    slug: 'professional',
    name: 'Professional',
    included_repositories: 0,
    included_storage_bytes: 100 * GIB,
    allow_storage_overage: true,
    included_bandwidth_bytes: 100 * GIB,
    monthly_price_in_cents: 2000,
    storage_overage_price_in_cents: 2,
    registries: 10,
  },
];

export const tierOf = (slug: string): RegistryTier | undefined => REGISTRY_TIERS.find((t) => t.slug === slug);

/** Where `/v2/registry` makes a registry (its create schema's list). */
export const REGISTRY_REGIONS = ['nyc3', 'sfo3', 'ams3', 'sgp1', 'fra1'] as const;
/** Where `/v2/registries` makes one: a few more. */
export const MULTI_REGISTRY_REGIONS = [
  'nyc3',
  'sfo3',
  'sfo2',
  'ams3',
  'sgp1',
  'fra1',
  'blr1',
  'syd1',
] as const;

export interface StoredRegistry {
  name: string;
  region: string;
  created_ms: number;
  /** When a push last changed its storage (a garbage collection's end is counted when read). */
  storage_updated_ms: number;
}

export interface StoredBlob {
  registry: string;
  digest: string;
  compressed_size_bytes: number;
}

export interface StoredTag {
  name: string;
  updated_ms: number;
}

export interface StoredManifest {
  registry: string;
  repository: string;
  digest: string;
  tags: StoredTag[];
  /** The config and layers, in order; their bytes are counted once per registry (`StoredBlob`). */
  blobs: { digest: string; compressed_size_bytes: number }[];
  compressed_size_bytes: number;
  size_bytes: number;
  updated_ms: number;
}

export type GarbageCollectionType =
  | 'untagged manifests only'
  | 'unreferenced blobs only'
  | 'untagged manifests and unreferenced blobs';

export const GC_TYPES: readonly GarbageCollectionType[] = [
  'untagged manifests only',
  'unreferenced blobs only',
  'untagged manifests and unreferenced blobs',
];

export interface StoredGarbageCollection {
  uuid: string;
  registry: string;
  type: GarbageCollectionType;
  created_ms: number;
  /** When a cancel was asked for; null when none was. */
  cancelled_ms: number | null;
  /** What it deletes when it succeeds, decided when it started. */
  manifests: { repository: string; digest: string }[];
  blobs: string[];
  freed_bytes: number;
  /** Set once its deletions have been removed from the state. */
  settled: boolean;
}

export interface StoredRegistrySubscription {
  /** The tier's slug; null while the account has no registry. */
  tier: string | null;
  created_ms: number;
  updated_ms: number;
}

export interface RegistryState {
  containerRegistries: StoredRegistry[];
  /** One subscription for the account, shared by its registries. */
  registrySubscription: StoredRegistrySubscription;
  registryManifests: StoredManifest[];
  registryBlobs: StoredBlob[];
  registryGarbageCollections: StoredGarbageCollection[];
}

export function seedRegistryState(): RegistryState {
  return {
    containerRegistries: [],
    registrySubscription: { tier: null, created_ms: 0, updated_ms: 0 },
    registryManifests: [],
    registryBlobs: [],
    registryGarbageCollections: [],
  };
}
