/**
 * NFS state of the sandbox world: shares (each with its access points) and their snapshots. A share
 * lives in one region and is reachable from the VPCs it is attached to; a snapshot outlives its
 * share, as volume snapshots do.
 *
 * Nothing runs on a timer: a share is CREATING until `ready_ms`, an action's effect (a new size, a
 * tier) is a patch applied when its action completes (`_pending`, as VMs keep theirs, see
 * families/vms.ts), and readers derive the state at their time.
 */
import type { Scheduled } from './vms.js';

/** How long a share, an access point, a snapshot or an action takes, in sandbox time. */
export const NFS_DURATION_MS = 3_000;

/** The smallest share, in GiB (the platform's 400 says so). */
export const NFS_MIN_GIB = 50;

export interface StoredAccessPolicy {
  anonuid: number;
  anongid: number;
  protocols: ('NFS4' | 'NFS')[];
  squash_config: 'NO_SQUASH' | 'ROOT_SQUASH' | 'ALL_SQUASH';
  identity_enforcement_enabled: boolean;
}

export interface StoredAccessPoint {
  id: string;
  name: string;
  path: string;
  /** Absent on the share's default access point. */
  vpc_id?: string;
  is_default: boolean;
  access_policy: StoredAccessPolicy;
  created_ms: number;
  /** Active from this time (its gateway is provisioned). */
  ready_ms: number;
  /** Soft-deleted at this time: shown ACCESS_POINT_DELETED from then on. */
  deleted_ms?: number;
}

export interface StoredShare {
  id: string;
  name: string;
  region: string;
  size_gib: number;
  /** `PERFORMANCE_TIER_STANDARD` or `PERFORMANCE_TIER_HIGH`. */
  performance_tier: string;
  vpc_ids: string[];
  /** The NFS server's address, in the first VPC it was attached to. */
  host: string;
  mount_path: string;
  access_points: StoredAccessPoint[];
  created_ms: number;
  /** ACTIVE (or INACTIVE, attached to no VPC) from this time. */
  ready_ms: number;
  /** Changes an action makes when it completes. */
  _pending?: Scheduled<StoredShare>[];
}

export interface StoredNfsSnapshot {
  id: string;
  name: string;
  share_id: string;
  region: string;
  size_gib: number;
  created_ms: number;
}

/** An action on a share, kept so that a second one waits for the first to complete. */
export interface StoredNfsAction {
  id: string;
  type: string;
  share_id: string;
  /** The share, or (for an access point's action) the access point. */
  resource_id: string;
  resource_type: 'SHARE' | 'SNAPSHOT';
  region: string;
  started_ms: number;
}

export interface NfsState {
  nfsShares: StoredShare[];
  nfsSnapshots: StoredNfsSnapshot[];
  nfsActions: StoredNfsAction[];
}

export function seedNfsState(): NfsState {
  return { nfsShares: [], nfsSnapshots: [], nfsActions: [] };
}
