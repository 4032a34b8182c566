/**
 * Spaces state of the sandbox world: access keys (their grants; never their secret, which the
 * platform shows once, on creation) and CDN endpoints in front of Spaces buckets, with the cache
 * purges asked of them recently (for the platform's purge limits).
 */

export type SpacesPermission = 'read' | 'readwrite' | 'fullaccess';

export interface SpacesGrant {
  bucket: string;
  permission: SpacesPermission;
}

export interface StoredSpacesKey {
  access_key: string;
  name: string;
  grants: SpacesGrant[];
  created_ms: number;
}

export interface StoredCdnEndpoint {
  id: string;
  /** `<bucket>.<region>.digitaloceanspaces.com` */
  origin: string;
  ttl: number;
  /** Empty when the endpoint has no custom domain (then no certificate either). */
  custom_domain: string;
  certificate_id: string;
  created_ms: number;
}

/** A cache purge, kept while it counts against the purge limits. */
export interface StoredCdnPurge {
  endpoint_id: string;
  files: string[];
  at_ms: number;
}

export interface SpacesState {
  spacesKeys: StoredSpacesKey[];
  cdnEndpoints: StoredCdnEndpoint[];
  cdnPurges: StoredCdnPurge[];
}

export function seedSpacesState(): SpacesState {
  return { spacesKeys: [], cdnEndpoints: [], cdnPurges: [] };
}

/** The regions Spaces buckets (and so CDN origins) live in. */
export const SPACES_REGIONS = [
  'nyc3',
  'sfo2',
  'sfo3',
  'ams3',
  'sgp1',
  'fra1',
  'syd1',
  'blr1',
  'atl1',
] as const;

/** The TTLs a CDN endpoint takes, in seconds. */
export const CDN_TTLS = [60, 600, 3600, 86400, 604800] as const;
export const DEFAULT_CDN_TTL = 3600;

/** The platform's purge limits: 50 files per 20 seconds (a wildcard counts once). */
export const PURGE_FILES_PER_WINDOW = 50;
export const PURGE_WINDOW_MS = 20_000;
/** How long a purge runs: an identical purge meanwhile is refused. */
export const PURGE_RUNNING_MS = 5_000;
