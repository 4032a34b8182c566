/**
 * Managed database state of the sandbox world: clusters, their users, topics, configuration,
 * trusted sources and online migrations. The databases routes own its behaviour. Lifecycles
 * (creating -> online, resizing -> online, migrating -> online in the new region, a migration's
 * two-week limit) are derived from
 * timestamps when read, on the sandbox clock.
 */

import type { DATABASE_CLUSTER_ENGINE } from '@cloudcall/platform';
import type { ClusterExtras } from './databases-extra.js';

/** Every engine of the API description (its generated value list). */
export type ClusterEngine = (typeof DATABASE_CLUSTER_ENGINE)[number];

/**
 * The engines whose rules (configuration keys, users, databases, engine-only endpoints) the
 * sandbox models. Each other engine follows one of them: an Advanced Edition its standard edition,
 * redis (the platform's Caching) valkey, its successor (routes/databases.ts, `ENGINES`).
 */
export type StandardEngine = Exclude<ClusterEngine, 'redis' | 'advanced_pg' | 'advanced_mysql'>;

export interface StoredDbUser {
  name: string;
  role: 'primary' | 'normal';
  password: string;
  mysql_settings?: { auth_plugin: string };
  settings?: Record<string, unknown>;
}

export interface StoredDbRule {
  uuid: string;
  type: string;
  value: string;
  created_ms: number;
}

export interface StoredTopic {
  name: string;
  partition_count: number;
  replication_factor: number;
  config: Record<string, unknown>;
}

export interface StoredMigration {
  id: string;
  started_ms: number;
  /** Set when stopped through the API; a migration also stops by itself two weeks after it started. */
  stopped_ms?: number;
  source: { host: string; port: number; dbname?: string };
  /** The version the source reported, when it reports one. */
  source_version?: string;
  disable_ssl: boolean;
  ignore_dbs: string[];
}

export interface StoredPool {
  name: string;
  mode: 'session' | 'transaction' | 'statement';
  size: number;
  db: string;
  /** Absent: sessions connect as the inbound user. */
  user?: string;
}

export interface StoredReplica {
  id: string;
  name: string;
  region: string;
  size: string;
  storage_size_mib: number;
  tags: string[];
  created_ms: number;
  online_ms: number;
  host: string;
  private_host: string;
  private_network_uuid: string;
}

/** A cluster; its sub-resources beyond these (events, log sinks, schema registry...) are `ClusterExtras`. */
export interface StoredCluster extends ClusterExtras {
  id: string;
  name: string;
  engine: ClusterEngine;
  version: string;
  region: string;
  size: string;
  num_nodes: number;
  storage_size_mib: number;
  tags: string[];
  created_ms: number;
  /** When creation completes (status `creating` until then). */
  online_ms: number;
  /** When the latest region migration completes (status `migrating` until then). */
  migrated_ms?: number;
  /**
   * Where the cluster was before its latest region migration. `region` and `private_network_uuid`
   * hold where it goes; until `migrated_ms` it is still shown here, as the platform shows it.
   */
  migrated_from?: { region: string; private_network_uuid: string };
  /** When the latest resize completes (status `resizing` until then). */
  resized_ms?: number;
  host: string;
  private_host: string;
  project_id: string;
  private_network_uuid: string;
  ca: string;
  users: StoredDbUser[];
  rules: StoredDbRule[];
  topics: StoredTopic[];
  config: Record<string, unknown>;
  migrations: StoredMigration[];
  /** Logical databases (PostgreSQL and MySQL); absent in worlds saved before they existed. */
  dbs?: string[];
  /** PgBouncer connection pools (PostgreSQL). */
  pools?: StoredPool[];
  /** Read-only replicas (PostgreSQL and MySQL). */
  replicas?: StoredReplica[];
  /** Valkey only; absent means the default, noeviction. */
  eviction_policy?: string;
  /** Absent means the default window, Tuesday 01:00 UTC. */
  maintenance_window?: { day: string; hour: string };
}

/** The cluster's region and VPC at `now`: the old ones while a region migration runs. */
export function clusterPlacement(
  cluster: StoredCluster,
  now: number,
): { region: string; private_network_uuid: string } {
  if (cluster.migrated_from && cluster.migrated_ms !== undefined && now < cluster.migrated_ms) {
    return cluster.migrated_from;
  }
  return { region: cluster.region, private_network_uuid: cluster.private_network_uuid };
}

export interface DatabasesState {
  clusters: StoredCluster[];
}

export function seedDatabasesState(): DatabasesState {
  return { clusters: [] };
}
