/**
 * The platform's answers to the container registry tools, as library users receive them. The
 * project's generated subset of the API description has no registry schemas, so they are written
 * here from the description's: each field the platform sends, optional where it may leave it out.
 */

/** A subscription tier, as the options and the subscription show it. */
export interface RegistryTier {
  name: string;
  slug: string;
  included_repositories: number;
  included_storage_bytes: number;
  allow_storage_overage: boolean;
  included_bandwidth_bytes: number;
  monthly_price_in_cents: number;
  storage_overage_price_in_cents: number;
  /** In the options only: whether the account's usage fits the tier, and why not. */
  eligible?: boolean;
  eligibility_reasons?: string[];
}

export interface RegistrySubscription {
  tier: RegistryTier;
  created_at: string;
  updated_at: string;
}

export interface Registry {
  name: string;
  created_at: string;
  region: string;
  storage_usage_bytes: number;
  storage_usage_bytes_updated_at: string;
  subscription?: RegistrySubscription;
}

export interface RegistryList {
  registries: Registry[];
  total_storage_usage_bytes?: number;
}

export interface RegistryOptions {
  options: { available_regions: string[]; subscription_tiers: RegistryTier[] };
}

interface Page {
  links?: { pages?: Record<string, string> };
  meta?: { total?: number };
}

export interface RepositoryManifest {
  registry_name: string;
  repository: string;
  digest: string;
  compressed_size_bytes: number;
  size_bytes: number;
  updated_at: string;
  tags: string[];
  blobs: { digest: string; compressed_size_bytes: number }[];
}

export interface RepositoryTag {
  registry_name: string;
  repository: string;
  tag: string;
  manifest_digest: string;
  compressed_size_bytes: number;
  size_bytes: number;
  updated_at: string;
}

export interface Repository {
  registry_name: string;
  name: string;
  latest_manifest: RepositoryManifest;
  tag_count: number;
  manifest_count: number;
}

export interface RepositoryList extends Page {
  repositories: Repository[];
}
export interface RepositoryTagList extends Page {
  tags: RepositoryTag[];
}
export interface RepositoryManifestList extends Page {
  manifests: RepositoryManifest[];
}

export interface GarbageCollection {
  uuid: string;
  registry_name: string;
  /** requested, waiting for write JWTs to expire, scanning manifests, deleting unreferenced blobs, cancelling, failed, succeeded, cancelled. */
  status: string;
  type?: string;
  created_at: string;
  updated_at: string;
  blobs_deleted: number;
  freed_bytes: number;
}

export interface GarbageCollectionList extends Page {
  garbage_collections: GarbageCollection[];
}

/** A docker `config.json`: `auth` is base64 of `token:token`, a secret. */
export interface DockerCredentials {
  auths: Record<string, { auth: string }>;
}
