/**
 * Managed database endpoints: clusters, backups, options, upgrades, online migration, trusted
 * sources, Kafka topics, engine configuration, SQL mode and users. Statuses are derived from
 * timestamps on the sandbox clock when read. Starting a migration checks its source for real in
 * the route's `prepare` step (outside the write transaction), then records it.
 */

import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import {
  DATABASE_CLUSTER_ENGINE,
  KAFKA_TOPIC_CONFIG_CLEANUP_POLICY,
  KAFKA_TOPIC_CONFIG_MESSAGE_TIMESTAMP_TYPE,
  USER_SETTINGS_ACL_PERMISSION,
  USER_SETTINGS_MONGO_USER_SETTINGS_ROLE,
  USER_SETTINGS_OPENSEARCH_ACL_PERMISSION,
} from '@cloudcall/platform';
import { cloneData } from '../clone.js';
import {
  type ClusterEngine,
  clusterPlacement,
  type StandardEngine,
  type StoredCluster,
  type StoredDbRule,
  type StoredDbUser,
  type StoredPool,
  type StoredReplica,
  type StoredTopic,
} from '../families/databases.js';
import { dbEventId, recordDbEvent } from '../families/databases-extra.js';
import {
  listBody,
  notFound,
  type Route,
  requireString,
  type SandboxRequest,
  unprocessable,
} from '../http.js';
import { iso } from '../time.js';
import type { World } from '../world.js';
import { CONFIG_DEFAULTS, CONFIG_RULES, type ConfigRule } from './databases-config.js';
import {
  AUTOSCALE_ENGINES,
  checkAutoscale,
  checkDoSettings,
  clusterSettingsView,
} from './databases-settings.js';
import { compareVersions, probeSource, SourceError } from './databases-source.js';
import { vpcFor } from './networking-common.js';
import { assignToProject, dropFromProject, projectForCreate, projectOf } from './projects.js';
import { tagNewResource } from './tags.js';

/** Creation and resize take this long on the sandbox clock (short, so processes can poll). */
export const CLUSTER_CREATE_MS = 3_000;
export const CLUSTER_RESIZE_MS = 3_000;
export const CLUSTER_MIGRATE_MS = 3_000;
/** An online migration stops by itself this long after it started. */
export const MIGRATION_MAX_MS = 14 * 24 * 3_600_000;
/** The port the service's own clusters listen on. */
export const CLUSTER_PORT = 25061;
/** Host names of the service's clusters, in any account: refused as migration sources. */
const MANAGED_HOST = /-do-user-\d+-0\.[a-z]\.db\.ondigitalocean\.com\.?$/i;

/** The node sizes of the standard editions. */
const SIZES = ['db-s-1vcpu-1gb', 'db-s-1vcpu-2gb', 'db-s-2vcpu-4gb', 'db-s-4vcpu-8gb', 'db-s-8vcpu-16gb'];
/**
 * The node sizes of the Advanced Editions: the dedicated ones the description's options example
 * offers them (but c-96-intel, whose memory its slug does not give), and the standard ones, which
 * its create examples and Terraform's acceptance tests of these engines create them with (so the
 * platform takes those too).
 */
const ADVANCED_SIZES = [
  'gd-2vcpu-8gb',
  'gd-4vcpu-16gb',
  'gd-8vcpu-32gb',
  'gd-16vcpu-64gb',
  'gd-32vcpu-128gb',
  'gd-40vcpu-160gb',
  'gd-2vcpu-8gb-intel',
  'gd-4vcpu-16gb-intel',
  'gd-8vcpu-32gb-intel',
  'gd-16vcpu-64gb-intel',
  'gd-32vcpu-128gb-intel',
  'gd-48vcpu-192gb-intel',
  'so1_5-2vcpu-16gb',
  'so1_5-4vcpu-32gb',
  'so1_5-8vcpu-64gb',
  'so1_5-16vcpu-128gb',
  'so1_5-24vcpu-192gb',
  'so1_5-32vcpu-256gb',
  'so1_5-48vcpu-256gb',
  'so1_5-2vcpu-16gb-intel',
  'so1_5-4vcpu-32gb-intel',
  'so1_5-8vcpu-64gb-intel',
  'so1_5-16vcpu-128gb-intel',
  'so1_5-24vcpu-192gb-intel',
  'so1_5-32vcpu-256gb-intel',
  'so1_5-48vcpu-384gb-intel',
  ...SIZES,
];
/** Storage per node, MiB, of each standard size (the smallest a resize may ask for). */
const STORAGE_MIB: Record<string, number> = {
  'db-s-1vcpu-1gb': 10_240,
  'db-s-1vcpu-2gb': 25_600,
  'db-s-2vcpu-4gb': 38_912,
  'db-s-4vcpu-8gb': 117_760,
  'db-s-8vcpu-16gb': 240_640,
};

/** A size's memory, GB, as its slug gives it (`db-s-2vcpu-4gb`, `gd-8vcpu-32gb-intel`). */
const memoryOf = (size: string): number => Number(/-(\d+)gb(?:-|$)/.exec(size)?.[1] ?? 1);

/** A size's storage per node, MiB; for a size not listed, the sandbox gives 7.5 GiB per GB of memory. */
const storageOf = (size: string): number => STORAGE_MIB[size] ?? memoryOf(size) * 7_680;

interface EngineInfo {
  label: string;
  /** The engine whose rules it follows: itself, or the one it is an edition or predecessor of. */
  like: StandardEngine;
  versions: string[];
  /** The full version a cluster of each major version runs. */
  semantic: Record<string, string>;
  /** Other names a create may give a version by: name -> the version it names. */
  aliases?: Record<string, string>;
  sizes: readonly string[];
  /** The node counts a cluster may have. */
  nodes: readonly number[];
  /** When the platform stopped creating clusters of the engine, and ended it (existing ones go on here). */
  retired?: { end_of_availability: string; end_of_life: string };
  user: string;
  database: string;
  uri: (user: string, password: string, host: string, database: string) => string;
  migration: 'resp' | 'tcp' | 'none';
  /** Where a migration source listens when the request names no port: the engine's usual one. */
  port: number;
}

const pgUri = (u: string, p: string, h: string, d: string) =>
  `postgresql://${u}:${p}@${h}:${CLUSTER_PORT}/${d}?sslmode=require`;
const mysqlUri = (u: string, p: string, h: string, d: string) =>
  `mysql://${u}:${p}@${h}:${CLUSTER_PORT}/${d}?ssl-mode=REQUIRED`;
const respUri = (u: string, p: string, h: string) => `rediss://${u}:${p}@${h}:${CLUSTER_PORT}`;

/**
 * Every engine of the API description (the type makes the table cover its generated list). The
 * standard editions up to 3 nodes of the standard sizes, as before; the others as the
 * description's options and version availability give them.
 */
const ENGINES: Record<ClusterEngine, EngineInfo> = {
  pg: {
    label: 'PostgreSQL',
    like: 'pg',
    versions: ['14', '15', '16', '17'],
    semantic: { '14': '14.15', '15': '15.10', '16': '16.6', '17': '17.2' },
    sizes: SIZES,
    nodes: [1, 2, 3],
    user: 'doadmin',
    database: 'defaultdb',
    uri: pgUri,
    migration: 'tcp',
    port: 5432,
  },
  mysql: {
    label: 'MySQL',
    like: 'mysql',
    versions: ['8'],
    semantic: { '8': '8.0.35' },
    sizes: SIZES,
    nodes: [1, 2, 3],
    user: 'doadmin',
    database: 'defaultdb',
    uri: mysqlUri,
    migration: 'tcp',
    port: 3306,
  },
  valkey: {
    label: 'Valkey',
    like: 'valkey',
    versions: ['7.2', '8'],
    semantic: { '7.2': '7.2.8', '8': '8.0.2' },
    sizes: SIZES,
    nodes: [1, 2, 3],
    user: 'default',
    database: '',
    uri: respUri,
    migration: 'resp',
    port: 6379,
  },
  mongodb: {
    label: 'MongoDB',
    like: 'mongodb',
    versions: ['6.0', '7.0'],
    semantic: { '6.0': '6.0.19', '7.0': '7.0.15' },
    sizes: SIZES,
    nodes: [1, 2, 3],
    user: 'doadmin',
    database: 'admin',
    uri: (u, p, h, d) => `mongodb+srv://${u}:${p}@${h}/${d}?tls=true&authSource=admin`,
    migration: 'tcp',
    port: 27017,
  },
  kafka: {
    label: 'Kafka',
    like: 'kafka',
    versions: ['3.7', '3.8'],
    semantic: { '3.7': '3.7.1', '3.8': '3.8.0' },
    sizes: SIZES,
    nodes: [1, 2, 3],
    user: 'doadmin',
    database: '',
    uri: (u, p, h) => `kafka://${u}:${p}@${h}:${CLUSTER_PORT}`,
    migration: 'none',
    port: 9092,
  },
  opensearch: {
    label: 'OpenSearch',
    like: 'opensearch',
    versions: ['1', '2'],
    semantic: { '1': '1.3.19', '2': '2.17.1' },
    sizes: SIZES,
    nodes: [1, 2, 3],
    user: 'doadmin',
    database: '',
    uri: (u, p, h) => `https://${u}:${p}@${h}:${CLUSTER_PORT}`,
    migration: 'none',
    port: 9200,
  },
  // The platform's Caching, Redis 7, replaced by Valkey: the description's create operation says
  // Caching clusters are no longer created as of 2025-04-30, and its options' version
  // availability gives that date and the end of life, so a create is refused from then on the
  // sandbox clock. Its clusters follow Valkey's rules: the same redis_* settings and eviction policies.
  redis: {
    label: 'Caching (Redis)',
    like: 'valkey',
    versions: ['7'],
    semantic: { '7': '7.2.4' },
    sizes: SIZES,
    nodes: [1, 2, 3],
    retired: { end_of_availability: '2025-04-30T00:00:00Z', end_of_life: '2025-06-30T00:00:00Z' },
    user: 'default',
    database: '',
    uri: respUri,
    migration: 'resp',
    port: 6379,
  },
  // Advanced Editions (a public preview): PostgreSQL and MySQL, on 1 to 3 nodes and on 1 or 3
  // (the description's create operation), at the versions its options list.
  advanced_pg: {
    label: 'PostgreSQL Advanced Edition',
    like: 'pg',
    versions: ['16', '17', '18'],
    semantic: { '16': '16.6', '17': '17.2', '18': '18.1' },
    sizes: ADVANCED_SIZES,
    nodes: [1, 2, 3],
    user: 'doadmin',
    database: 'defaultdb',
    uri: pgUri,
    migration: 'tcp',
    port: 5432,
  },
  advanced_mysql: {
    label: 'MySQL Advanced Edition',
    like: 'mysql',
    versions: ['8.4.8'],
    semantic: { '8.4.8': '8.4.8' },
    // The description names the version 8.4.8; Terraform's acceptance test creates it as "8".
    aliases: { '8': '8.4.8' },
    sizes: ADVANCED_SIZES,
    nodes: [1, 3],
    user: 'doadmin',
    database: 'defaultdb',
    uri: mysqlUri,
    migration: 'tcp',
    port: 3306,
  },
};

/** The rules a cluster follows: its engine's, or those of the engine it is an edition of. */
export const likeOf = (cluster: StoredCluster): StandardEngine => ENGINES[cluster.engine].like;

const isEngine = (value: string): value is ClusterEngine =>
  (DATABASE_CLUSTER_ENGINE as readonly string[]).includes(value);

/** Whether the platform creates clusters of the engine at `now`. */
const createdAt = (info: EngineInfo, now: number): boolean =>
  !info.retired || now < Date.parse(info.retired.end_of_availability);

/** A cluster's backups at `now`: one a day since it came online, the newest seven, newest first. */
function backupsOf(cluster: StoredCluster, now: number): { created_at: string; size_gigabytes: number }[] {
  const day = 86_400_000;
  const backups: { created_at: string; size_gigabytes: number }[] = [];
  for (let at = now - ((now - cluster.online_ms) % day); at > cluster.online_ms; at -= day) {
    backups.push({ created_at: iso(at), size_gigabytes: 0.03 });
    if (backups.length >= 7) break;
  }
  return backups;
}

/**
 * The cluster a creation restores from (`backup_restore`), checked as the platform checks it: a
 * cluster of the account, of the same engine, with a backup (the one made at `backup_created_at`
 * when given, else its latest). Undefined when the creation restores nothing.
 */
function restoreSource(world: World, value: unknown, engine: ClusterEngine, now: number) {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value))
    throw unprocessable('backup_restore must be an object');
  const { database_name: name, backup_created_at: at } = value as Record<string, unknown>;
  if (typeof name !== 'string' || name === '')
    throw unprocessable('backup_restore.database_name is required');
  const source = world.clusters.find((c) => c.name === name);
  if (!source) throw unprocessable(`backup_restore.database_name: no database cluster is named ${name}`);
  if (source.engine !== engine) {
    throw unprocessable(`backup_restore: ${name} is a ${source.engine} cluster; the new one is ${engine}`);
  }
  const backups = backupsOf(source, now);
  if (backups.length === 0) throw unprocessable(`backup_restore: ${name} has no backup yet`);
  if (at !== undefined && !backups.some((b) => Date.parse(b.created_at) === Date.parse(String(at)))) {
    throw unprocessable(`backup_restore.backup_created_at: ${name} has no backup made at ${String(at)}`);
  }
  return source;
}

/** The version a cluster gets when its creation names none: the newest the engine offers. */
const defaultVersion = (info: EngineInfo): string => info.versions[info.versions.length - 1] as string;

const REGIONS = ['ams3', 'blr1', 'fra1', 'lon1', 'nyc1', 'nyc3', 'sfo2', 'sfo3', 'sgp1', 'syd1', 'tor1'];

const SQL_MODES = new Set([
  'ALLOW_INVALID_DATES',
  'ANSI',
  'ANSI_QUOTES',
  'ERROR_FOR_DIVISION_BY_ZERO',
  'HIGH_NOT_PRECEDENCE',
  'IGNORE_SPACE',
  'NO_AUTO_VALUE_ON_ZERO',
  'NO_BACKSLASH_ESCAPES',
  'NO_DIR_IN_CREATE',
  'NO_ENGINE_SUBSTITUTION',
  'NO_UNSIGNED_SUBTRACTION',
  'NO_ZERO_DATE',
  'NO_ZERO_IN_DATE',
  'ONLY_FULL_GROUP_BY',
  'PAD_CHAR_TO_FULL_LENGTH',
  'PIPES_AS_CONCAT',
  'REAL_AS_FLOAT',
  'STRICT_ALL_TABLES',
  'STRICT_TRANS_TABLES',
  'TIME_TRUNCATE_FRACTIONAL',
  'TRADITIONAL',
]);
const DEFAULT_SQL_MODE =
  'ANSI,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION,NO_ZERO_DATE,NO_ZERO_IN_DATE,STRICT_ALL_TABLES';

const TOPIC_DEFAULTS: Record<string, unknown> = {
  cleanup_policy: 'delete',
  compression_type: 'producer',
  delete_retention_ms: 86_400_000,
  max_message_bytes: 1_048_588,
  message_timestamp_type: 'create_time',
  min_cleanable_dirty_ratio: 0.5,
  min_insync_replicas: 1,
  retention_bytes: -1,
  retention_ms: 604_800_000,
  segment_bytes: 209_715_200,
};

/** The topic config keys and their rules (the platform's topic config). */
const TOPIC_RULES: Record<string, ConfigRule> = {
  cleanup_policy: ['string', KAFKA_TOPIC_CONFIG_CLEANUP_POLICY],
  // The description spells lz4 `Iz4` here; the platform (and its Kafka) takes lz4.
  compression_type: ['string', ['producer', 'gzip', 'snappy', 'lz4', 'zstd', 'uncompressed']],
  delete_retention_ms: ['integer', 0],
  file_delete_delay_ms: ['integer', 0],
  flush_messages: ['integer', 1],
  flush_ms: ['integer', 0],
  index_interval_bytes: ['integer', 0],
  max_compaction_lag_ms: ['integer', 0],
  max_message_bytes: ['integer', 0],
  message_down_conversion_enable: ['boolean'],
  message_format_version: ['string'],
  message_timestamp_difference_max_ms: ['integer', 0],
  message_timestamp_type: ['string', KAFKA_TOPIC_CONFIG_MESSAGE_TIMESTAMP_TYPE],
  min_cleanable_dirty_ratio: ['number', 0, 1],
  min_compaction_lag_ms: ['integer', 0],
  min_insync_replicas: ['integer', 1],
  preallocate: ['boolean'],
  retention_bytes: ['integer', -1],
  retention_ms: ['integer', -1],
  segment_bytes: ['integer', 14],
  segment_index_bytes: ['integer', 4],
  segment_jitter_ms: ['integer', 0],
  segment_ms: ['integer', 1],
};

const FIREWALL_TYPES = new Set(['droplet', 'k8s', 'ip_addr', 'tag', 'app']);

// ---------------------------------------------------------------------------------------------
// Lookups and views

export function findCluster(world: World, req: SandboxRequest): StoredCluster {
  const cluster = world.clusters.find((c) => c.id === req.params.cluster);
  if (!cluster) throw notFound();
  return cluster;
}

/** The auth plugin `mysql_settings` names, or the platform's 422. */
function authPlugin(settings: unknown): 'mysql_native_password' | 'caching_sha2_password' {
  const plugin = (settings as Record<string, unknown> | null)?.auth_plugin;
  if (plugin !== 'mysql_native_password' && plugin !== 'caching_sha2_password') {
    throw unprocessable('mysql_settings.auth_plugin must be mysql_native_password or caching_sha2_password');
  }
  return plugin;
}

/** The cluster, when its engine is one of `engines`; the platform's 422 otherwise. */
export function clusterOf(
  world: World,
  req: SandboxRequest,
  engines: StandardEngine[],
  what: string,
): StoredCluster {
  const cluster = findCluster(world, req);
  if (!engines.includes(likeOf(cluster))) {
    throw unprocessable(
      `${what} is not supported for ${ENGINES[cluster.engine].label} clusters (engine ${cluster.engine}); it needs a ${engines.join(' or ')} cluster`,
    );
  }
  return cluster;
}

export function statusOf(
  cluster: StoredCluster,
  now: number,
): 'creating' | 'online' | 'resizing' | 'migrating' {
  if (now < cluster.online_ms) return 'creating';
  if (cluster.migrated_ms !== undefined && now < cluster.migrated_ms) return 'migrating';
  if (cluster.resized_ms !== undefined && now < cluster.resized_ms) return 'resizing';
  return 'online';
}

function connection(cluster: StoredCluster, host: string) {
  const info = ENGINES[cluster.engine];
  const admin = cluster.users.find((u) => u.role === 'primary');
  const user = admin?.name ?? info.user;
  const password = admin?.password ?? '';
  return {
    uri: info.uri(user, password, host, info.database),
    database: info.database,
    host,
    port: CLUSTER_PORT,
    user,
    password,
    ssl: true,
  };
}

/**
 * A Kafka user's client certificate and its private key, for TLS client authentication, as the
 * platform returns them with the user. Derived from the user's password, so each user keeps the
 * same pair and no two users share one.
 */
function kafkaAccess(cluster: StoredCluster, user: StoredDbUser) {
  const pem = (label: string, seed: string) => {
    const bytes = Buffer.concat(
      Array.from({ length: 6 }, (_, block) => createHash('sha256').update(`${seed}:${block}`).digest()),
    );
    const lines = bytes.toString('base64').match(/.{1,64}/g) ?? [];
    return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
  };
  const seed = `${cluster.id}:${user.name}:${user.password}`;
  return { access_cert: pem('CERTIFICATE', `cert:${seed}`), access_key: pem('PRIVATE KEY', `key:${seed}`) };
}

function userView(cluster: StoredCluster, user: StoredDbUser) {
  return {
    name: user.name,
    role: user.role,
    password: user.password,
    ...(cluster.engine === 'kafka' ? kafkaAccess(cluster, user) : {}),
    ...(user.mysql_settings ? { mysql_settings: user.mysql_settings } : {}),
    ...(user.settings
      ? { settings: user.settings }
      : cluster.engine === 'kafka'
        ? { settings: { acl: [] } }
        : {}),
  };
}

function ruleView(cluster: StoredCluster, rule: StoredDbRule) {
  return {
    uuid: rule.uuid,
    cluster_uuid: cluster.id,
    type: rule.type,
    value: rule.value,
    created_at: iso(rule.created_ms),
  };
}

function clusterView(world: World, cluster: StoredCluster, now: number) {
  const info = ENGINES[cluster.engine];
  const placement = clusterPlacement(cluster, now);
  return {
    id: cluster.id,
    name: cluster.name,
    engine: cluster.engine,
    version: cluster.version,
    semantic_version: info.semantic[cluster.version] ?? cluster.version,
    num_nodes: cluster.num_nodes,
    size: cluster.size,
    region: placement.region,
    status: statusOf(cluster, now),
    created_at: iso(cluster.created_ms),
    private_network_uuid: placement.private_network_uuid,
    tags: cluster.tags.length ? cluster.tags : null,
    db_names: logicalDbs(cluster) ?? null,
    connection: connection(cluster, cluster.host),
    private_connection: connection(cluster, cluster.private_host),
    users: cluster.users.map((u) => userView(cluster, u)),
    maintenance_window: {
      ...(cluster.maintenance_window ?? DEFAULT_WINDOW),
      pending: false,
      description: [],
    },
    project_id: projectOf(world, { urn: `do:dbaas:${cluster.id}`, created_ms: cluster.created_ms }),
    rules: cluster.rules.map((r) => ruleView(cluster, r)),
    storage_size_mib: cluster.storage_size_mib,
    ...clusterSettingsView(cluster),
  };
}

function topicView(topic: StoredTopic) {
  return {
    name: topic.name,
    state: 'active' as const,
    replication_factor: topic.replication_factor,
    partitions: Array.from({ length: topic.partition_count }, (_, id) => ({
      id,
      size: 0,
      in_sync_replicas: topic.replication_factor,
      earliest_offset: 0,
      consumer_groups: null,
    })),
    config: topic.config,
  };
}

/** The cluster's latest migration as the platform reports it, or undefined when there never was one. */
function migrationView(cluster: StoredCluster, now: number) {
  const migration = cluster.migrations.at(-1);
  if (!migration) return undefined;
  const stopped = migration.stopped_ms !== undefined || now >= migration.started_ms + MIGRATION_MAX_MS;
  return {
    id: migration.id,
    status: stopped ? ('canceled' as const) : ('running' as const),
    created_at: iso(migration.started_ms),
  };
}

function ongoingMigration(cluster: StoredCluster, now: number) {
  const view = migrationView(cluster, now);
  return view?.status === 'running' ? cluster.migrations.at(-1) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Validation helpers

function optionalInt(
  body: Record<string, unknown>,
  field: string,
  min: number,
  max: number,
): number | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw unprocessable(`${field} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** Checks each key of a config object against its rules; names the first bad key. */
function checkConfig(
  config: Record<string, unknown>,
  rules: Record<string, ConfigRule>,
  label: string,
): void {
  for (const [key, value] of Object.entries(config)) {
    const rule = rules[key];
    if (!rule) throw unprocessable(`config: ${key} is not a ${label} setting`);
    const [type] = rule;
    const bad = (expected: string) =>
      unprocessable(`config: ${key} must be ${expected}; got ${JSON.stringify(value)}`);
    if (type === 'integer' || type === 'number') {
      if (typeof value !== 'number' || (type === 'integer' && !Number.isInteger(value)))
        throw bad(`an ${type}`);
      const [, min, max] = rule;
      if (
        (min !== undefined && min !== null && value < min) ||
        (max !== undefined && max !== null && value > max)
      ) {
        throw bad(
          max === undefined || max === null
            ? `at least ${min}`
            : min === undefined || min === null
              ? `at most ${max}`
              : `from ${min} to ${max}`,
        );
      }
    } else if (type === 'string') {
      if (typeof value !== 'string') throw bad('a string');
      const allowed = rule[1];
      if (allowed && !allowed.includes(value)) throw bad(`one of ${allowed.join(', ')}`);
    } else if (type === 'boolean') {
      if (typeof value !== 'boolean') throw bad('true or false');
    } else if (type === 'array') {
      if (!Array.isArray(value)) throw bad('an array');
    } else if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw bad('an object');
    }
  }
}

function configObject(body: Record<string, unknown>): Record<string, unknown> {
  const config = body.config;
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw unprocessable('config is required and must be an object');
  }
  return config as Record<string, unknown>;
}

function checkSqlMode(text: string): string {
  const modes = text
    .split(',')
    .map((m) => m.trim().toUpperCase())
    .filter(Boolean);
  if (!modes.length) throw unprocessable('sql_mode must name at least one mode');
  for (const mode of modes) {
    if (!SQL_MODES.has(mode)) throw unprocessable(`sql_mode: ${mode} is not a MySQL SQL mode`);
  }
  return modes.join(',');
}

function checkRule(raw: unknown, index: number): { type: string; value: string; uuid?: string } {
  if (typeof raw !== 'object' || raw === null) throw unprocessable(`rules[${index}] must be an object`);
  const rule = raw as Record<string, unknown>;
  if (typeof rule.type !== 'string' || !FIREWALL_TYPES.has(rule.type)) {
    throw unprocessable(`rules[${index}].type must be one of ${[...FIREWALL_TYPES].join(', ')}`);
  }
  if (typeof rule.value !== 'string' || rule.value.trim() === '') {
    throw unprocessable(`rules[${index}].value is required and must be a non-empty string`);
  }
  if (rule.type === 'ip_addr') {
    const [address, bits, extra] = rule.value.split('/');
    const family = isIP(address ?? '');
    const max = family === 6 ? 128 : 32;
    if (
      !family ||
      extra !== undefined ||
      (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= max))
    ) {
      throw unprocessable(`rules[${index}].value ${rule.value} is not an IP address or CIDR block`);
    }
  }
  if (rule.type === 'droplet' && !/^\d+$/.test(rule.value)) {
    throw unprocessable(`rules[${index}].value must be a droplet id for type droplet`);
  }
  if (rule.uuid !== undefined && typeof rule.uuid !== 'string') {
    throw unprocessable(`rules[${index}].uuid must be a string`);
  }
  return {
    type: rule.type,
    value: rule.value,
    ...(typeof rule.uuid === 'string' ? { uuid: rule.uuid } : {}),
  };
}

const secret = () => `AVNS_${randomBytes(15).toString('base64url')}`;

function fakeCa(id: string): string {
  const body = createHash('sha512').update(`ca:${id}`).digest('base64').repeat(8);
  const lines = body.match(/.{1,64}/g) ?? [];
  const pem = `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
  return Buffer.from(pem).toString('base64');
}

/** A stable account number for cluster host names. */
function accountNumber(world: World): number {
  return (
    Number.parseInt(createHash('sha1').update(world.account.uuid).digest('hex').slice(0, 7), 16) % 10_000_000
  );
}

// ---------------------------------------------------------------------------------------------
// Online migration: the source check, run before the write transaction

interface MigrationPlan {
  source: { host: string; port: number; dbname?: string };
  disable_ssl: boolean;
  ignore_dbs: string[];
  version?: string;
}

function migrationBody(
  body: Record<string, unknown>,
  defaultPort: number,
): MigrationPlan & {
  username?: string;
  password?: string;
} {
  const source = body.source;
  if (typeof source !== 'object' || source === null || Array.isArray(source)) {
    throw unprocessable('source is required and must be an object (host, port, dbname, username, password)');
  }
  const s = source as Record<string, unknown>;
  const host = requireString(s, 'host');
  // The platform requires only `source`; a source without a port is reached on the engine's own.
  const port = s.port ?? defaultPort;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw unprocessable('source.port must be an integer from 1 to 65535');
  }
  for (const field of ['dbname', 'username', 'password']) {
    if (s[field] !== undefined && typeof s[field] !== 'string')
      throw unprocessable(`source.${field} must be a string`);
  }
  if (body.disable_ssl !== undefined && typeof body.disable_ssl !== 'boolean') {
    throw unprocessable('disable_ssl must be true or false');
  }
  const ignore = body.ignore_dbs ?? [];
  if (!Array.isArray(ignore) || ignore.some((d) => typeof d !== 'string')) {
    throw unprocessable('ignore_dbs must be an array of database names');
  }
  return {
    source: { host, port, ...(typeof s.dbname === 'string' ? { dbname: s.dbname } : {}) },
    disable_ssl: body.disable_ssl === true,
    ignore_dbs: ignore as string[],
    ...(typeof s.username === 'string' ? { username: s.username } : {}),
    ...(typeof s.password === 'string' ? { password: s.password } : {}),
  };
}

/** Everything that can be checked without a write, then the source itself, over the network. */
async function prepareMigration(req: SandboxRequest, world: World): Promise<MigrationPlan> {
  const cluster = findCluster(world, req);
  const info = ENGINES[cluster.engine];
  const plan = migrationBody(req.body, info.port);
  if (info.migration === 'none') {
    throw unprocessable(`online migration is not supported for ${info.label} clusters`);
  }
  if (statusOf(cluster, req.now) === 'creating') {
    throw unprocessable('the cluster is still being created; start the migration once it is online');
  }
  if (ongoingMigration(cluster, req.now)) {
    throw unprocessable(
      'a migration is already in progress on this cluster; stop it before starting another',
    );
  }
  const host = plan.source.host.toLowerCase();
  const managed =
    MANAGED_HOST.test(host) || world.clusters.some((c) => c.host === host || c.private_host === host);
  if (managed) {
    throw unprocessable(
      `the source ${plan.source.host} is a managed database cluster: continuous migration between managed clusters is not supported`,
    );
  }
  try {
    const { version } = await probeSource({
      host: plan.source.host,
      port: plan.source.port,
      username: plan.username,
      password: plan.password,
      disableSsl: plan.disable_ssl,
      resp: info.migration === 'resp',
    });
    if (version) {
      const target = info.semantic[cluster.version] ?? cluster.version;
      if (compareVersions(version, target) > 0) {
        throw unprocessable(
          `the source runs version ${version}, newer than the cluster's ${info.label} ${target}: migrate into a cluster of the same or a newer version`,
        );
      }
    }
    return {
      source: plan.source,
      disable_ssl: plan.disable_ssl,
      ignore_dbs: plan.ignore_dbs,
      ...(version ? { version } : {}),
    };
  } catch (error) {
    if (error instanceof SourceError) throw unprocessable(`source check failed: ${error.message}`);
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Routes

export const base = '/v2/databases/{cluster}';

const DEFAULT_WINDOW = { day: 'tuesday', hour: '01:00:00' };
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const EVICTION_POLICIES = [
  'noeviction',
  'allkeys_lru',
  'allkeys_random',
  'volatile_lru',
  'volatile_random',
  'volatile_ttl',
];

/** Engines whose clusters hold logical databases; the platform refuses the others. */
const DB_ENGINES: StandardEngine[] = ['pg', 'mysql'];

/** The cluster's logical databases (its default one in worlds saved before they were kept). */
function logicalDbs(cluster: StoredCluster): string[] | undefined {
  if (!DB_ENGINES.includes(likeOf(cluster))) return undefined;
  cluster.dbs ??= [ENGINES[cluster.engine].database];
  return cluster.dbs;
}

/** PgBouncer's backend connections: 25 per GB of the primary node's RAM, 3 kept for maintenance. */
function poolCapacity(cluster: StoredCluster): number {
  return 25 * memoryOf(cluster.size) - 3;
}

function poolView(cluster: StoredCluster, pool: StoredPool) {
  const view = (host: string) => {
    const user =
      cluster.users.find((u) => u.name === pool.user) ?? cluster.users.find((u) => u.role === 'primary');
    const name = user?.name ?? ENGINES.pg.user;
    const password = user?.password ?? '';
    return {
      uri: `postgresql://${name}:${password}@${host}:${CLUSTER_PORT}/${pool.name}?sslmode=require`,
      database: pool.name,
      host,
      port: CLUSTER_PORT,
      user: name,
      password,
      ssl: true,
    };
  };
  return {
    name: pool.name,
    mode: pool.mode,
    size: pool.size,
    db: pool.db,
    ...(pool.user !== undefined ? { user: pool.user } : {}),
    connection: view(cluster.host),
    private_connection: view(cluster.private_host),
  };
}

/** A pool's mode, size, database and user, checked against the cluster; `others` share the capacity. */
function poolSettings(cluster: StoredCluster, body: Record<string, unknown>, others: StoredPool[]) {
  const mode = requireString(body, 'mode');
  if (mode !== 'session' && mode !== 'transaction' && mode !== 'statement') {
    throw unprocessable('mode must be session, transaction or statement');
  }
  const size = optionalInt(body, 'size', 1, Number.MAX_SAFE_INTEGER);
  if (size === undefined) throw unprocessable('size is required');
  const capacity = poolCapacity(cluster) - others.reduce((sum, p) => sum + p.size, 0);
  if (size > capacity) {
    throw unprocessable(`size ${size} exceeds the ${capacity} backend connections left on this cluster`);
  }
  const db = requireString(body, 'db');
  if (!logicalDbs(cluster)?.includes(db))
    throw unprocessable(`database ${db} does not exist in this cluster`);
  let user: string | undefined;
  if (body.user !== undefined && body.user !== '') {
    user = requireString(body, 'user');
    if (!cluster.users.some((u) => u.name === user))
      throw unprocessable(`user ${user} does not exist in this cluster`);
  }
  return { mode, size, db, user } as const;
}

/** The cluster's pools (none yet in worlds saved before they were kept). */
function poolsOf(cluster: StoredCluster): StoredPool[] {
  if (!cluster.pools) cluster.pools = [];
  return cluster.pools;
}

function findPool(cluster: StoredCluster, req: SandboxRequest): StoredPool {
  const pool = poolsOf(cluster).find((p) => p.name === req.params.pool);
  if (!pool) throw notFound();
  return pool;
}

/** The default VPC of a region, as a cluster created there gets it. */
function replicasOf(cluster: StoredCluster): StoredReplica[] {
  if (!cluster.replicas) cluster.replicas = [];
  return cluster.replicas;
}

function findReplica(cluster: StoredCluster, req: SandboxRequest): StoredReplica {
  const replica = replicasOf(cluster).find((r) => r.name === req.params.replica);
  if (!replica) throw notFound();
  return replica;
}

function replicaView(cluster: StoredCluster, replica: StoredReplica, now: number) {
  return {
    id: replica.id,
    name: replica.name,
    region: replica.region,
    size: replica.size,
    status: now < replica.online_ms ? 'creating' : 'online',
    tags: replica.tags,
    created_at: iso(replica.created_ms),
    private_network_uuid: replica.private_network_uuid,
    connection: connection(cluster, replica.host),
    private_connection: connection(cluster, replica.private_host),
    storage_size_mib: replica.storage_size_mib,
  };
}

export const databasesRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/databases/options',
    handler: (req) => {
      const options: Record<string, unknown> = {};
      const availability: Record<string, unknown> = {};
      for (const [engine, info] of Object.entries(ENGINES)) {
        // An engine no longer created has no default version, as the platform lists redis.
        options[engine] = {
          regions: REGIONS,
          versions: info.versions,
          ...(createdAt(info, req.now) ? { default_version: defaultVersion(info) } : {}),
          layouts: info.nodes.map((num_nodes) => ({ num_nodes, sizes: info.sizes })),
        };
        availability[engine] = info.versions.map((version) => ({
          version,
          end_of_life: info.retired?.end_of_life ?? null,
          end_of_availability: info.retired?.end_of_availability ?? null,
        }));
      }
      return { body: { options, version_availability: availability } };
    },
  },
  {
    method: 'GET',
    path: '/v2/databases',
    handler: (req, world) => {
      const tag = req.query.get('tag_name');
      const clusters = world.clusters.filter((c) => !tag || c.tags.includes(tag));
      return {
        body: listBody('databases', clusters, req, (c) => clusterView(world, c, req.now)),
      };
    },
  },
  {
    method: 'POST',
    path: '/v2/databases',
    handler: (req, world) => {
      const name = requireString(req.body, 'name');
      if (!/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/i.test(name)) {
        throw unprocessable(
          'name must be 3 to 63 letters, digits and hyphens, not starting or ending with a hyphen',
        );
      }
      const engine = requireString(req.body, 'engine');
      if (!isEngine(engine))
        throw unprocessable(`engine must be one of ${DATABASE_CLUSTER_ENGINE.join(', ')}`);
      const info = ENGINES[engine];
      if (!createdAt(info, req.now)) {
        throw unprocessable(
          `${info.label} clusters are no longer created (since ${info.retired?.end_of_availability}); create a ${info.like} cluster instead`,
        );
      }
      // No version: the engine's default, the one /v2/databases/options names.
      const asked = req.body.version == null ? undefined : requireString(req.body, 'version');
      const version =
        asked === undefined
          ? defaultVersion(info)
          : info.aliases && Object.hasOwn(info.aliases, asked)
            ? (info.aliases[asked] as string)
            : asked;
      if (!info.versions.includes(version)) {
        throw unprocessable(
          `version ${version} is not available for ${engine}; choose from ${info.versions.join(', ')}`,
        );
      }
      const region = requireString(req.body, 'region');
      if (!REGIONS.includes(region)) throw unprocessable(`region ${region} does not offer managed databases`);
      const size = requireString(req.body, 'size');
      if (!info.sizes.includes(size))
        throw unprocessable(`size ${size} is not a database size for ${engine}`);
      const numNodes = optionalInt(req.body, 'num_nodes', 1, 3);
      if (numNodes === undefined) throw unprocessable('num_nodes is required');
      if (!info.nodes.includes(numNodes)) {
        throw unprocessable(`num_nodes must be ${info.nodes.join(' or ')} for ${engine}`);
      }
      if (world.clusters.some((c) => c.name === name)) {
        throw unprocessable(`a database cluster named ${name} already exists`);
      }
      const source = restoreSource(world, req.body.backup_restore, engine, req.now);
      const vpc = vpcFor(world, req.body.private_network_uuid, region, req.now, 'private_network_uuid');
      const id = randomUUID();
      // Tags named for the first time are created, as the platform creates them.
      const tags = tagNewResource(world, req.body.tags, 'database', id);
      const host = `${name.toLowerCase()}-do-user-${accountNumber(world)}-0.b.db.ondigitalocean.com`;
      const cluster: StoredCluster = {
        id,
        name,
        engine,
        version,
        region,
        size,
        num_nodes: numNodes,
        storage_size_mib: storageOf(size),
        tags,
        created_ms: req.now,
        online_ms: req.now + CLUSTER_CREATE_MS,
        host,
        private_host: `private-${host}`,
        project_id: projectForCreate(world, req.body.project_id) ?? '',
        private_network_uuid: vpc.id,
        ca: fakeCa(id),
        users: [{ name: info.user, role: 'primary', password: secret() }],
        rules: [],
        topics: [],
        // A restored cluster starts with the data and settings of its source.
        config: source
          ? cloneData(source.config)
          : {
              ...structuredClone(CONFIG_DEFAULTS[info.like]),
              ...(info.like === 'mysql' ? { sql_mode: DEFAULT_SQL_MODE } : {}),
            },
        migrations: [],
        ...(DB_ENGINES.includes(info.like) ? { dbs: source?.dbs ? [...source.dbs] : [info.database] } : {}),
        ...(info.like === 'pg' ? { pools: [] } : {}),
      };
      if (req.body.autoscale != null) {
        if (!AUTOSCALE_ENGINES.includes(info.like)) {
          throw unprocessable(`Storage autoscaling is not supported for ${info.label} clusters`);
        }
        cluster.autoscale = checkAutoscale(req.body.autoscale, 'autoscale.');
      }
      if (req.body.do_settings != null)
        cluster.do_settings = checkDoSettings(req.body.do_settings, 'do_settings');
      world.clusters.push(cluster);
      assignToProject(world, `do:dbaas:${cluster.id}`, cluster.project_id || undefined, req.now);
      return { status: 201, body: { database: clusterView(world, cluster, req.now) } };
    },
  },
  {
    method: 'GET',
    path: base,
    handler: (req, world) => ({ body: { database: clusterView(world, findCluster(world, req), req.now) } }),
  },
  {
    method: 'DELETE',
    path: base,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      world.clusters = world.clusters.filter((c) => c !== cluster);
      dropFromProject(world, `do:dbaas:${cluster.id}`);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: `${base}/ca`,
    handler: (req, world) => ({ body: { ca: { certificate: findCluster(world, req).ca } } }),
  },
  {
    method: 'PUT',
    path: `${base}/resize`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const size = req.body.size;
      const numNodes = optionalInt(req.body, 'num_nodes', 1, 3);
      const storage = optionalInt(req.body, 'storage_size_mib', 1, 16_777_216);
      if (size === undefined && numNodes === undefined && storage === undefined) {
        throw unprocessable('give at least one of size, num_nodes, storage_size_mib');
      }
      const info = ENGINES[cluster.engine];
      if (size !== undefined && (typeof size !== 'string' || !info.sizes.includes(size))) {
        throw unprocessable(`size ${String(size)} is not a database size for ${cluster.engine}`);
      }
      if (numNodes !== undefined && !info.nodes.includes(numNodes)) {
        throw unprocessable(`num_nodes must be ${info.nodes.join(' or ')} for ${cluster.engine}`);
      }
      if (statusOf(cluster, req.now) !== 'online') {
        throw unprocessable(`the cluster is ${statusOf(cluster, req.now)}; resize it once it is online`);
      }
      const newSize = (size as string | undefined) ?? cluster.size;
      const minimum = storageOf(newSize);
      if (storage !== undefined && storage < minimum) {
        throw unprocessable(`storage_size_mib must be at least ${minimum} for size ${newSize}`);
      }
      cluster.size = newSize;
      if (numNodes !== undefined) cluster.num_nodes = numNodes;
      cluster.storage_size_mib = storage ?? Math.max(cluster.storage_size_mib, minimum);
      cluster.resized_ms = req.now + CLUSTER_RESIZE_MS;
      recordDbEvent(cluster, 'cluster_update', req.now);
      return { status: 202 };
    },
  },
  {
    method: 'GET',
    path: `${base}/backups`,
    handler: (req, world) => {
      const backups = backupsOf(findCluster(world, req), req.now);
      return {
        body: {
          ...listBody('backups', backups, req),
          scheduled_backup_time: { backup_hour: 1, backup_minute: 0, backup_interval_hours: 24 },
        },
      };
    },
  },
  {
    method: 'PUT',
    path: `${base}/upgrade`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const version = requireString(req.body, 'version');
      const info = ENGINES[cluster.engine];
      if (!info.versions.includes(version)) {
        throw unprocessable(
          `version ${version} is not available for ${cluster.engine}; choose from ${info.versions.join(', ')}`,
        );
      }
      if (compareVersions(version, cluster.version) <= 0) {
        throw unprocessable(`version ${version} is not newer than the cluster's version ${cluster.version}`);
      }
      if (statusOf(cluster, req.now) !== 'online') throw unprocessable('the cluster is not online');
      cluster.version = version;
      recordDbEvent(cluster, 'cluster_update', req.now);
      return { status: 204 };
    },
  },
  // Online migration
  {
    method: 'GET',
    path: `${base}/online-migration`,
    handler: (req, world) => {
      const view = migrationView(findCluster(world, req), req.now);
      if (!view) throw notFound('No online migration has been started on this cluster.');
      return { body: view };
    },
  },
  {
    method: 'PUT',
    path: `${base}/online-migration`,
    prepare: prepareMigration,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const plan = req.prepared as MigrationPlan;
      // Checked again inside the transaction: another start may have won the race.
      if (ongoingMigration(cluster, req.now)) {
        throw unprocessable(
          'a migration is already in progress on this cluster; stop it before starting another',
        );
      }
      cluster.migrations.push({
        id: randomUUID(),
        started_ms: req.now,
        source: plan.source,
        ...(plan.version ? { source_version: plan.version } : {}),
        disable_ssl: plan.disable_ssl,
        ignore_dbs: plan.ignore_dbs,
      });
      return { body: migrationView(cluster, req.now) };
    },
  },
  {
    method: 'DELETE',
    path: `${base}/online-migration/{migration}`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const ongoing = ongoingMigration(cluster, req.now);
      if (!ongoing || ongoing.id !== req.params.migration) {
        throw notFound(
          ongoing
            ? `Migration ${req.params.migration} is not the ongoing migration of this cluster.`
            : 'No migration is in progress on this cluster.',
        );
      }
      ongoing.stopped_ms = req.now;
      return { status: 204 };
    },
  },
  // Trusted sources
  {
    method: 'GET',
    path: `${base}/firewall`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      return { body: { rules: cluster.rules.map((r) => ruleView(cluster, r)) } };
    },
  },
  {
    method: 'PUT',
    path: `${base}/firewall`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      if (!Array.isArray(req.body.rules)) throw unprocessable('rules is required and must be an array');
      const rules = req.body.rules.map(checkRule);
      cluster.rules = rules.map((rule) => {
        const kept = rule.uuid ? cluster.rules.find((r) => r.uuid === rule.uuid) : undefined;
        if (rule.uuid && !kept) throw unprocessable(`rule ${rule.uuid} does not exist on this cluster`);
        return {
          uuid: kept?.uuid ?? randomUUID(),
          type: rule.type,
          value: rule.value,
          created_ms: kept?.created_ms ?? req.now,
        };
      });
      return { status: 204 };
    },
  },
  // Kafka topics
  {
    method: 'GET',
    path: `${base}/topics`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, ['kafka'], 'Topic management');
      const topics = cluster.topics.map((t) => ({
        name: t.name,
        state: 'active',
        partition_count: t.partition_count,
        replication_factor: t.replication_factor,
      }));
      return { body: listBody('topics', topics, req) };
    },
  },
  {
    method: 'POST',
    path: `${base}/topics`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, ['kafka'], 'Topic management');
      const name = requireString(req.body, 'name');
      // Kafka's own rule; "." and ".." are no names (and could never be addressed in a path).
      if (!/^[a-zA-Z0-9._-]{1,249}$/.test(name) || name === '.' || name === '..') {
        throw unprocessable(
          'name may hold only letters, digits, ".", "_" and "-", up to 249 characters, and cannot be "." or ".."',
        );
      }
      if (cluster.topics.some((t) => t.name === name)) throw unprocessable(`topic ${name} already exists`);
      const config = req.body.config === undefined ? {} : configObject(req.body);
      checkConfig(config, TOPIC_RULES, 'Kafka topic');
      const topic: StoredTopic = {
        name,
        partition_count: optionalInt(req.body, 'partition_count', 1, 2048) ?? 3,
        replication_factor:
          optionalInt(req.body, 'replication_factor', 1, 3) ?? Math.min(2, cluster.num_nodes),
        config: { ...TOPIC_DEFAULTS, ...config },
      };
      if (topic.replication_factor > cluster.num_nodes) {
        throw unprocessable(`replication_factor must be at most the number of nodes (${cluster.num_nodes})`);
      }
      cluster.topics.push(topic);
      return { status: 201, body: { topic: topicView(topic) } };
    },
  },
  {
    method: 'GET',
    path: `${base}/topics/{topic}`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, ['kafka'], 'Topic management');
      const topic = cluster.topics.find((t) => t.name === req.params.topic);
      if (!topic) throw notFound();
      return { body: { topic: topicView(topic) } };
    },
  },
  {
    method: 'PUT',
    path: `${base}/topics/{topic}`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, ['kafka'], 'Topic management');
      const topic = cluster.topics.find((t) => t.name === req.params.topic);
      if (!topic) throw notFound();
      const partitions = optionalInt(req.body, 'partition_count', 1, 2048);
      const replication = optionalInt(req.body, 'replication_factor', 1, 3);
      const config = req.body.config === undefined ? {} : configObject(req.body);
      checkConfig(config, TOPIC_RULES, 'Kafka topic');
      if (partitions !== undefined && partitions < topic.partition_count) {
        throw unprocessable(`partition_count can only grow (it is ${topic.partition_count})`);
      }
      if (replication !== undefined && replication > cluster.num_nodes) {
        throw unprocessable(`replication_factor must be at most the number of nodes (${cluster.num_nodes})`);
      }
      if (partitions !== undefined) topic.partition_count = partitions;
      if (replication !== undefined) topic.replication_factor = replication;
      Object.assign(topic.config, config);
      return { body: { topic: topicView(topic) } };
    },
  },
  {
    method: 'DELETE',
    path: `${base}/topics/{topic}`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, ['kafka'], 'Topic management');
      if (!cluster.topics.some((t) => t.name === req.params.topic)) throw notFound();
      cluster.topics = cluster.topics.filter((t) => t.name !== req.params.topic);
      return { status: 204 };
    },
  },
  // Engine configuration (one endpoint for every engine: the cluster's engine picks the keys)
  {
    method: 'GET',
    path: `${base}/config`,
    handler: (req, world) => ({ body: { config: findCluster(world, req).config } }),
  },
  {
    method: 'PATCH',
    path: `${base}/config`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const config = configObject(req.body);
      checkConfig(config, CONFIG_RULES[likeOf(cluster)], `${ENGINES[cluster.engine].label} config`);
      if (likeOf(cluster) === 'mysql' && typeof config.sql_mode === 'string') {
        config.sql_mode = checkSqlMode(config.sql_mode);
      }
      Object.assign(cluster.config, config);
      recordDbEvent(cluster, 'cluster_update', req.now);
      return { status: 200 };
    },
  },
  {
    method: 'GET',
    path: `${base}/sql_mode`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, ['mysql'], 'SQL mode');
      return { body: { sql_mode: String(cluster.config.sql_mode ?? DEFAULT_SQL_MODE) } };
    },
  },
  {
    method: 'PUT',
    path: `${base}/sql_mode`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, ['mysql'], 'SQL mode');
      cluster.config.sql_mode = checkSqlMode(requireString(req.body, 'sql_mode'));
      return { status: 204 };
    },
  },
  // Users
  {
    method: 'GET',
    path: `${base}/users`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      return {
        body: listBody('users', cluster.users, req, (u) => userView(cluster, u)),
      };
    },
  },
  {
    method: 'POST',
    path: `${base}/users`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const name = requireString(req.body, 'name');
      if (!/^[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,62}$/.test(name)) {
        throw unprocessable(
          'name may hold only letters, digits, "_", "." and "-", up to 63 characters, starting with a letter, digit or "_"',
        );
      }
      if (cluster.users.some((u) => u.name === name)) throw unprocessable(`user ${name} already exists`);
      const user: StoredDbUser = { name, role: 'normal', password: secret() };
      if (req.body.mysql_settings !== undefined) {
        if (likeOf(cluster) !== 'mysql') throw unprocessable('mysql_settings apply only to MySQL clusters');
        user.mysql_settings = { auth_plugin: authPlugin(req.body.mysql_settings) };
      } else if (likeOf(cluster) === 'mysql') {
        user.mysql_settings = { auth_plugin: 'caching_sha2_password' };
      }
      if (req.body.settings !== undefined) user.settings = checkUserSettings(cluster, req.body.settings);
      cluster.users.push(user);
      return { status: 201, body: { user: userView(cluster, user) } };
    },
  },
  {
    method: 'GET',
    path: `${base}/users/{user}`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const user = cluster.users.find((u) => u.name === req.params.user);
      if (!user) throw notFound();
      return { body: { user: userView(cluster, user) } };
    },
  },
  {
    method: 'PUT',
    path: `${base}/users/{user}`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const user = cluster.users.find((u) => u.name === req.params.user);
      if (!user) throw notFound();
      if (req.body.settings === undefined) throw unprocessable('settings is required');
      user.settings = checkUserSettings(cluster, req.body.settings);
      return { status: 201, body: { user: userView(cluster, user) } };
    },
  },
  {
    // A new password (and, on MySQL, optionally another auth plugin). dots-wrapper and godo call it
    // (`resetDatabaseUserAuth`, `ResetUserAuth`) though no tool does.
    method: 'POST',
    path: `${base}/users/{user}/reset_auth`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const user = cluster.users.find((u) => u.name === req.params.user);
      if (!user) throw notFound();
      if (req.body.mysql_settings != null) {
        if (likeOf(cluster) !== 'mysql') throw unprocessable('mysql_settings apply only to MySQL clusters');
        user.mysql_settings = { auth_plugin: authPlugin(req.body.mysql_settings) };
      }
      user.password = secret();
      return { body: { user: userView(cluster, user) } };
    },
  },
  {
    method: 'DELETE',
    path: `${base}/users/{user}`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const user = cluster.users.find((u) => u.name === req.params.user);
      if (!user) throw notFound();
      if (user.role === 'primary')
        throw unprocessable(`${user.name} is the cluster's admin user and cannot be deleted`);
      cluster.users = cluster.users.filter((u) => u !== user);
      return { status: 204 };
    },
  },
  // Logical databases
  {
    method: 'GET',
    path: `${base}/dbs`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, DB_ENGINES, 'Database management');
      return { body: { dbs: (logicalDbs(cluster) ?? []).map((name) => ({ name })) } };
    },
  },
  {
    method: 'POST',
    path: `${base}/dbs`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, DB_ENGINES, 'Database management');
      const name = requireString(req.body, 'name');
      if (!/^[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,62}$/.test(name)) {
        throw unprocessable(
          'name may hold only letters, digits, "_", "." and "-", up to 63 characters, starting with a letter, digit or "_"',
        );
      }
      const dbs = logicalDbs(cluster) ?? [];
      if (dbs.includes(name)) throw unprocessable(`database ${name} already exists`);
      dbs.push(name);
      return { status: 201, body: { db: { name } } };
    },
  },
  {
    method: 'GET',
    path: `${base}/dbs/{db}`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, DB_ENGINES, 'Database management');
      if (!logicalDbs(cluster)?.includes(req.params.db ?? '')) throw notFound();
      return { body: { db: { name: req.params.db } } };
    },
  },
  {
    method: 'DELETE',
    path: `${base}/dbs/{db}`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, DB_ENGINES, 'Database management');
      const name = req.params.db ?? '';
      if (!logicalDbs(cluster)?.includes(name)) throw notFound();
      const inUse = cluster.pools?.find((p) => p.db === name);
      if (inUse)
        throw unprocessable(
          `database ${name} is used by connection pool ${inUse.name}; delete the pool first`,
        );
      cluster.dbs = (cluster.dbs ?? []).filter((d) => d !== name);
      return { status: 204 };
    },
  },
  // Connection pools (PgBouncer, PostgreSQL only)
  {
    method: 'GET',
    path: `${base}/pools`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, ['pg'], 'Connection pooling');
      return { body: { pools: poolsOf(cluster).map((p) => poolView(cluster, p)) } };
    },
  },
  {
    method: 'POST',
    path: `${base}/pools`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, ['pg'], 'Connection pooling');
      const pools = poolsOf(cluster);
      const name = requireString(req.body, 'name');
      if (!/^[a-zA-Z0-9_][a-zA-Z0-9_.-]{2,59}$/.test(name)) {
        throw unprocessable(
          'name must be 3 to 60 characters: letters, digits, "_", "." and "-", starting with a letter, digit or "_"',
        );
      }
      if (pools.some((p) => p.name === name)) throw unprocessable(`connection pool ${name} already exists`);
      const pool: StoredPool = { name, ...poolSettings(cluster, req.body, pools) };
      if (pool.user === undefined) delete pool.user;
      pools.push(pool);
      return { status: 201, body: { pool: poolView(cluster, pool) } };
    },
  },
  {
    method: 'GET',
    path: `${base}/pools/{pool}`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, ['pg'], 'Connection pooling');
      return { body: { pool: poolView(cluster, findPool(cluster, req)) } };
    },
  },
  {
    method: 'PUT',
    path: `${base}/pools/{pool}`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, ['pg'], 'Connection pooling');
      const pool = findPool(cluster, req);
      const settings = poolSettings(
        cluster,
        req.body,
        (cluster.pools ?? []).filter((p) => p !== pool),
      );
      pool.mode = settings.mode;
      pool.size = settings.size;
      pool.db = settings.db;
      if (settings.user === undefined) delete pool.user;
      else pool.user = settings.user;
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: `${base}/pools/{pool}`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, ['pg'], 'Connection pooling');
      const pool = findPool(cluster, req);
      cluster.pools = (cluster.pools ?? []).filter((p) => p !== pool);
      return { status: 204 };
    },
  },
  // Eviction policy (Valkey) and maintenance window
  {
    method: 'GET',
    path: `${base}/eviction_policy`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, ['valkey'], 'Eviction policy');
      return { body: { eviction_policy: cluster.eviction_policy ?? 'noeviction' } };
    },
  },
  {
    method: 'PUT',
    path: `${base}/eviction_policy`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, ['valkey'], 'Eviction policy');
      const policy = requireString(req.body, 'eviction_policy');
      if (!EVICTION_POLICIES.includes(policy)) {
        throw unprocessable(`eviction_policy must be one of ${EVICTION_POLICIES.join(', ')}`);
      }
      cluster.eviction_policy = policy;
      return { status: 204 };
    },
  },
  {
    method: 'PUT',
    path: `${base}/maintenance`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const day = requireString(req.body, 'day').toLowerCase();
      if (!WEEKDAYS.includes(day)) throw unprocessable(`day must be a day of the week, such as tuesday`);
      const hour = requireString(req.body, 'hour');
      if (!/^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/.test(hour)) {
        throw unprocessable('hour must be a 24-hour time in UTC, such as 14:00');
      }
      cluster.maintenance_window = { day, hour: hour.length === 5 ? `${hour}:00` : hour };
      recordDbEvent(cluster, 'cluster_update', req.now);
      return { status: 204 };
    },
  },
  {
    method: 'PUT',
    path: `${base}/migrate`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const region = requireString(req.body, 'region');
      if (!REGIONS.includes(region)) throw unprocessable(`region ${region} is not available for databases`);
      if (region === cluster.region) throw unprocessable(`the cluster is already in ${region}`);
      const status = statusOf(cluster, req.now);
      if (status !== 'online') throw unprocessable(`the cluster is ${status}; migrate it once it is online`);
      // The platform shows the old region (and VPC) until the migration completes; the cluster
      // then lands in the new region's default VPC, as it does at creation.
      cluster.migrated_from = { region: cluster.region, private_network_uuid: cluster.private_network_uuid };
      cluster.region = region;
      cluster.private_network_uuid = vpcFor(world, undefined, region, req.now).id;
      cluster.migrated_ms = req.now + CLUSTER_MIGRATE_MS;
      recordDbEvent(cluster, 'cluster_update', req.now);
      return { status: 202 };
    },
  },
  // Read-only replicas (PostgreSQL and MySQL)
  {
    method: 'GET',
    path: `${base}/replicas`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, DB_ENGINES, 'Read-only replication');
      return { body: { replicas: replicasOf(cluster).map((r) => replicaView(cluster, r, req.now)) } };
    },
  },
  {
    method: 'POST',
    path: `${base}/replicas`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, DB_ENGINES, 'Read-only replication');
      const name = requireString(req.body, 'name');
      if (!/^[a-zA-Z0-9_][a-zA-Z0-9_.-]{2,62}$/.test(name)) {
        throw unprocessable('name must be 3 to 63 characters: letters, digits, "_", "." and "-"');
      }
      if (replicasOf(cluster).some((r) => r.name === name) || world.clusters.some((c) => c.name === name)) {
        throw unprocessable(`a database cluster or replica named ${name} already exists`);
      }
      const size = requireString(req.body, 'size');
      if (!ENGINES[cluster.engine].sizes.includes(size)) {
        throw unprocessable(`size ${size} is not a database size for ${cluster.engine}`);
      }
      if (memoryOf(size) < memoryOf(cluster.size)) {
        throw unprocessable(`size ${size} is smaller than the cluster's ${cluster.size}`);
      }
      const placement = clusterPlacement(cluster, req.now);
      const region = req.body.region === undefined ? placement.region : requireString(req.body, 'region');
      if (!REGIONS.includes(region)) throw unprocessable(`region ${region} is not available for databases`);
      const tags = req.body.tags ?? [];
      if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string')) {
        throw unprocessable('tags must be an array of strings');
      }
      const storage = optionalInt(req.body, 'storage_size_mib', 1, Number.MAX_SAFE_INTEGER);
      const host = `${name.toLowerCase()}-do-user-${accountNumber(world)}-0.b.db.ondigitalocean.com`;
      const replica: StoredReplica = {
        id: randomUUID(),
        name,
        region,
        size,
        storage_size_mib: storage ?? storageOf(size),
        tags: [...new Set(tags as string[])],
        created_ms: req.now,
        online_ms: req.now + CLUSTER_CREATE_MS,
        host: `replica-${host}`,
        private_host: `private-replica-${host}`,
        // In the cluster's region it shares the cluster's VPC unless told otherwise; elsewhere the
        // VPC named must be in its region, or it joins that region's default.
        private_network_uuid:
          req.body.private_network_uuid === undefined && region === placement.region
            ? placement.private_network_uuid
            : vpcFor(world, req.body.private_network_uuid, region, req.now, 'private_network_uuid').id,
      };
      replicasOf(cluster).push(replica);
      return { status: 201, body: { replica: replicaView(cluster, replica, req.now) } };
    },
  },
  {
    method: 'GET',
    path: `${base}/replicas/{replica}`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, DB_ENGINES, 'Read-only replication');
      return { body: { replica: replicaView(cluster, findReplica(cluster, req), req.now) } };
    },
  },
  {
    method: 'DELETE',
    path: `${base}/replicas/{replica}`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, DB_ENGINES, 'Read-only replication');
      const replica = findReplica(cluster, req);
      cluster.replicas = replicasOf(cluster).filter((r) => r !== replica);
      return { status: 204 };
    },
  },
  {
    method: 'PUT',
    path: `${base}/replicas/{replica}/promote`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, DB_ENGINES, 'Read-only replication');
      const replica = findReplica(cluster, req);
      if (req.now < replica.online_ms) throw unprocessable(`replica ${replica.name} is still creating`);
      cluster.replicas = replicasOf(cluster).filter((r) => r !== replica);
      // The replica becomes a cluster of its own: the primary's data, users and databases, its own node.
      world.clusters.push({
        ...cloneData(cluster),
        id: replica.id,
        name: replica.name,
        region: replica.region,
        size: replica.size,
        num_nodes: 1,
        storage_size_mib: replica.storage_size_mib,
        tags: replica.tags,
        created_ms: req.now,
        online_ms: req.now,
        resized_ms: undefined,
        migrated_ms: undefined,
        host: replica.host,
        private_host: replica.private_host,
        private_network_uuid: replica.private_network_uuid,
        rules: [],
        migrations: [],
        pools: likeOf(cluster) === 'pg' ? [] : undefined,
        replicas: [],
        // Its own log from here (its creation, then the promotion); the primary's sinks and
        // settings (CNAMEs name the primary's hosts) stay with the primary.
        events: [{ id: dbEventId(), type: 'cluster_master_promotion', at_ms: req.now }],
        logsinks: undefined,
        autoscale: undefined,
        do_settings: undefined,
      });
      return { status: 204 };
    },
  },
];

/** User settings: each part belongs to one engine; the platform refuses the others. */
function checkUserSettings(cluster: StoredCluster, raw: unknown): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw unprocessable('settings must be an object');
  }
  const settings = raw as Record<string, unknown>;
  const owner: Record<string, StandardEngine> = {
    acl: 'kafka',
    opensearch_acl: 'opensearch',
    mongo_user_settings: 'mongodb',
  };
  for (const key of Object.keys(settings)) {
    const engine = owner[key];
    if (!engine) throw unprocessable(`settings.${key} is not a user setting`);
    if (engine !== likeOf(cluster)) {
      throw unprocessable(`settings.${key} applies only to ${ENGINES[engine].label} clusters`);
    }
  }
  const list = (key: string, permissions: readonly string[], nameKey: string) => {
    const value = settings[key];
    if (value === undefined) return;
    if (!Array.isArray(value)) throw unprocessable(`settings.${key} must be an array`);
    value.forEach((entry: Record<string, unknown> | null, i) => {
      if (typeof entry?.[nameKey] !== 'string' || !permissions.includes(entry.permission as string)) {
        throw unprocessable(
          `settings.${key}[${i}] needs ${nameKey} (a string) and permission (one of ${permissions.join(', ')})`,
        );
      }
    });
  };
  list('acl', USER_SETTINGS_ACL_PERMISSION, 'topic');
  list('opensearch_acl', USER_SETTINGS_OPENSEARCH_ACL_PERMISSION, 'index');
  const mongo = settings.mongo_user_settings as Record<string, unknown> | undefined;
  if (mongo !== undefined) {
    if (
      mongo.role !== undefined &&
      !(USER_SETTINGS_MONGO_USER_SETTINGS_ROLE as readonly unknown[]).includes(mongo.role)
    ) {
      throw unprocessable('settings.mongo_user_settings.role must be readOnly, readWrite or dbAdmin');
    }
    if (
      mongo.databases !== undefined &&
      !(Array.isArray(mongo.databases) && mongo.databases.every((d) => typeof d === 'string'))
    ) {
      throw unprocessable('settings.mongo_user_settings.databases must be an array of names');
    }
  }
  // ACL entries get ids, as the platform gives them.
  const acl = settings.acl as Record<string, unknown>[] | undefined;
  return acl
    ? { ...settings, acl: acl.map((entry) => ({ id: randomUUID().slice(0, 12), ...entry })) }
    : settings;
}
