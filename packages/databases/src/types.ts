/** The platform's answers to the database tools, as library users receive them. */
import type { Links, Meta } from '@cloudcall/core';

export type DatabaseEngine = 'pg' | 'mysql' | 'valkey' | 'redis' | 'mongodb' | 'kafka' | 'opensearch';

/** How to reach a cluster. The platform returns the password of the admin user here. */
export interface DatabaseConnection {
  uri: string;
  database: string;
  host: string;
  port: number;
  user: string;
  password: string;
  ssl: boolean;
}

export interface DatabaseFirewallRule {
  uuid: string;
  cluster_uuid: string;
  type: 'ip_addr' | 'droplet' | 'k8s' | 'tag' | 'app';
  value: string;
  created_at: string;
}

export interface DatabaseUser {
  name: string;
  role: 'primary' | 'normal';
  password?: string;
  mysql_settings?: { auth_plugin: 'mysql_native_password' | 'caching_sha2_password' };
  settings?: DatabaseUserSettings;
}

export interface DatabaseUserSettings {
  acl?: { id?: string; topic: string; permission: 'admin' | 'consume' | 'produce' | 'produceconsume' }[];
  opensearch_acl?: { index?: string; permission?: 'deny' | 'admin' | 'read' | 'readwrite' | 'write' }[];
  mongo_user_settings?: { databases?: string[]; role?: 'readOnly' | 'readWrite' | 'dbAdmin' };
}

export interface DatabaseCluster {
  id: string;
  name: string;
  engine: DatabaseEngine;
  version: string;
  semantic_version: string;
  num_nodes: number;
  size: string;
  region: string;
  status: 'creating' | 'online' | 'resizing' | 'migrating' | 'forking';
  created_at: string;
  tags: string[] | null;
  db_names: string[] | null;
  connection: DatabaseConnection;
  private_connection: DatabaseConnection;
  users: DatabaseUser[] | null;
  maintenance_window: { day: string; hour: string; pending: boolean; description: string[] } | null;
  storage_size_mib: number;
  project_id: string;
  rules: DatabaseFirewallRule[];
}

export interface DatabaseClusterList {
  databases: DatabaseCluster[];
  links: Links;
  meta: Meta;
}

export interface DatabaseBackupList {
  backups: { created_at: string; size_gigabytes: number }[];
  links: Links;
  meta: Meta;
}

export interface DatabaseEngineOptions {
  regions: string[];
  versions: string[];
  /** The version a cluster created without one gets, where the platform says it. */
  default_version?: string;
  layouts: { num_nodes: number; sizes: string[] }[];
}

export interface DatabaseOptions {
  options: Partial<Record<DatabaseEngine, DatabaseEngineOptions>>;
  version_availability: Partial<
    Record<
      DatabaseEngine,
      { version: string; end_of_life: string | null; end_of_availability: string | null }[]
    >
  >;
}

/** The state of an online migration: `running` while data is replicated, `canceled` once stopped. */
export interface OnlineMigration {
  id: string;
  status: 'running' | 'syncing' | 'canceled' | 'error' | 'done';
  created_at: string;
}

/** The body of the online-migration HTTP operation (`PUT /v2/databases/{uuid}/online-migration`). */
export interface OnlineMigrationRequest {
  source: {
    host: string;
    /** The engine's usual port when omitted. */
    port?: number;
    dbname?: string;
    username?: string;
    password?: string;
  };
  disable_ssl?: boolean;
  ignore_dbs?: string[];
}

export interface KafkaTopic {
  name: string;
  state: 'active' | 'configuring' | 'deleting' | 'unknown';
  replication_factor: number;
  partitions: { id: number; size: number; in_sync_replicas: number; earliest_offset: number }[];
  config: Record<string, unknown>;
}

export interface KafkaTopicList {
  topics: { name: string; state: KafkaTopic['state']; partition_count: number; replication_factor: number }[];
  links: Links;
  meta: Meta;
}

export interface DatabaseUserList {
  users: DatabaseUser[];
  links: Links;
  meta: Meta;
}

/** A logical database inside a cluster. */
export interface LogicalDatabase {
  name: string;
}

/** A PgBouncer connection pool of a PostgreSQL cluster. */
export interface ConnectionPool {
  name: string;
  mode: 'session' | 'transaction' | 'statement';
  size: number;
  db: string;
  user?: string;
  connection?: DatabaseConnection;
  private_connection?: DatabaseConnection;
}

/** A read-only replica of a PostgreSQL or MySQL cluster. */
export interface DatabaseReplica {
  id: string;
  name: string;
  region: string;
  size: string;
  status: 'creating' | 'online' | 'resizing' | 'migrating' | 'forking';
  tags?: string[];
  created_at: string;
  private_network_uuid?: string;
  connection?: DatabaseConnection;
  private_connection?: DatabaseConnection;
  storage_size_mib?: number;
}
