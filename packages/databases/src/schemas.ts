/**
 * Argument schemas of the database tools: cluster ids, names, pages, and the spec's structures
 * (firewall rule, online-migration source, Kafka topic and cluster config, engine configs, user
 * settings). Every string has a bound; names that fill a path segment have a shape that can never
 * be a dot segment or hold a slash.
 */
import { intAsString, LIMITS, slug, text, uuid } from '@cloudcall/core/internal';
import {
  REDIS_ADVANCED_CONFIG_REDIS_PERSISTENCE,
  USER_SETTINGS_MONGO_USER_SETTINGS_ROLE,
} from '@cloudcall/platform';
import { z } from 'zod';

/** A cluster UUID argument. */
export const clusterId = (description = 'Cluster') => uuid(description);

/**
 * A Kafka topic name as Kafka itself allows it: letters, digits, ".", "_" and "-", at most 249
 * characters, and never "." or "..".
 */
export const topicName = (description: string) =>
  z
    .string()
    .min(1)
    .max(249)
    .regex(
      /^(?!\.{1,2}$)[a-zA-Z0-9._-]+$/,
      'expected a Kafka topic name: letters, digits, ".", "_" and "-" (not "." or "..")',
    )
    .describe(description);

/**
 * A database user name: letters, digits, "_", "." and "-", starting with a letter, digit or "_"
 * (the platform's shape for database role names), at most 63 characters (PostgreSQL's identifier
 * limit; MySQL allows 32). It can never be a dot segment or hold a slash.
 */
export const userName = (description: string) =>
  z
    .string()
    .min(1)
    .max(63)
    .regex(
      /^[_A-Za-z0-9][-._A-Za-z0-9]*$/,
      'expected a user name: letters, digits, "_", "." and "-", starting with a letter, digit or "_"',
    )
    .describe(description);

/** A logical database's name: it is a path segment, so the user-name alphabet, up to 63. */
export const dbName = userName;

/** A connection pool's name: the platform takes 3 to 60 characters. */
export const poolName = (description: string) =>
  z
    .string()
    .min(3)
    .max(60)
    .regex(
      /^[_A-Za-z0-9][-._A-Za-z0-9]*$/,
      'expected a pool name: letters, digits, "_", "." and "-", starting with a letter, digit or "_"',
    )
    .describe(description);

/**
 * The id of an online migration. The platform documents it as a string (its examples are UUIDs),
 * so any id of letters, digits, "-" and "_" is accepted: never a dot segment, never a slash.
 */
export const migrationId = (description: string) =>
  z
    .string()
    .max(LIMITS.slug)
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9_-]*$/,
      'expected a migration id, such as "77b28fc8-19ff-11eb-8c9c-c68e24557488"',
    )
    .describe(description);

/** Node size slugs such as "db-s-1vcpu-1gb". */
export const sizeSlug = (description: string) => slug(description, 'db-s-1vcpu-1gb');

/** Engine versions such as "16" or "8.0". */
export const engineVersion = (description: string) => text(description, { max: LIMITS.slug });

/** The database lists' optional page arguments, passed on whenever given (text or number). */
export const listPage = {
  page: intAsString('From 1.').optional(),
  per_page: intAsString('Max 200.').pipe(z.number().int().min(1).max(200)).describe('Max 200.').optional(),
};

/** A scalar value of a configuration key: bounded text, a number or a boolean. */
const configScalar = z.union([z.string().max(LIMITS.short), z.number(), z.boolean()]);

/** The value of a configuration key the spec does not name: passed to the platform as given. */
const configValue = z.union([configScalar, z.array(configScalar)]);

/** The keys of a nested settings object (pgbouncer, timescaledb), such as "min_pool_size". */
const configKey = z
  .string()
  .max(LIMITS.slug)
  .regex(/^[a-z][a-z0-9_]*$/, 'expected a setting name such as "min_pool_size"');

const int = (description: string) => z.number().int().describe(description);
const bool = (description: string) => z.boolean().describe(description);

/** A trusted source of a cluster. The spec's `vm` type is sent as the platform's `droplet`. */
export const firewallRule = z.strictObject({
  type: z
    .enum(['ip_addr', 'vm', 'droplet', 'k8s', 'tag', 'app'])
    .describe('What `value` names: ip_addr (an IP or CIDR), vm (a VM id, from vm-list), tag, k8s, app.'),
  // Tag names are the longest kind of value (255).
  value: text('The IP address or CIDR block, VM id, tag name, or app/cluster id.', { max: LIMITS.tag }),
  uuid: uuid('UUID of an existing rule to keep, from db-cluster-get-firewall-rules.').optional(),
  cluster_uuid: uuid('UUID of the cluster the rule belongs to.').optional(),
  created_at: z
    .string()
    .max(LIMITS.short)
    .optional()
    .describe('Accepted so rules from db-cluster-get-firewall-rules can be passed back; never sent.'),
});

export const onlineMigrationSource = z
  .strictObject({
    host: text('Hostname or IP address of the source database.', { max: LIMITS.hostname }),
    port: z
      .number()
      .int()
      .min(1)
      .max(65535)
      .optional()
      .describe('Port the source listens on, such as 6379; the engine’s usual port when omitted.'),
    dbname: z.string().max(LIMITS.name).optional().describe('Name of the source database.'),
    username: z
      .string()
      .max(LIMITS.name)
      .optional()
      .describe('User to connect as; needs permission to read the data.'),
    password: z
      .string()
      .max(LIMITS.short)
      .optional()
      .describe('Password of that user (never echoed in errors).'),
  })
  .describe('External DB');

/** Kafka topic config (topic create and update): every key optional; other keys pass through. */
export const kafkaTopicConfig = z
  .object({
    cleanup_policy: z
      .enum(['delete', 'compact', 'compact_delete'])
      .optional()
      .describe('Log cleanup policy.'),
    compression_type: z
      .enum(['producer', 'gzip', 'snappy', 'lz4', 'zstd', 'uncompressed'])
      .optional()
      .describe('Compression of stored messages.'),
    delete_retention_ms: int('How long delete markers are kept, ms.').optional(),
    flush_messages: int('Messages written before a forced flush.').optional(),
    flush_ms: int('Milliseconds before a forced flush.').optional(),
    index_interval_bytes: int('Bytes between offset index entries.').optional(),
    max_compaction_lag_ms: int('Maximum time a message stays uncompacted, ms.').optional(),
    max_message_bytes: int('Largest record batch, bytes.').optional(),
    message_down_conversion_enable: bool('Whether old consumers get down-converted messages.').optional(),
    message_format_version: z
      .string()
      .max(LIMITS.slug)
      .optional()
      .describe('Message format version, such as "3.0-IV1".'),
    message_timestamp_difference_max_ms: int('Largest allowed timestamp skew, ms.').optional(),
    message_timestamp_type: z
      .enum(['create_time', 'log_append_time'])
      .optional()
      .describe('Timestamp source.'),
    min_cleanable_dirty_ratio: z.number().min(0).max(1).optional().describe('Dirty ratio, 0 to 1.'),
    min_compaction_lag_ms: int('Minimum time a message stays uncompacted, ms.').optional(),
    min_insync_replicas: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Replicas that must acknowledge, 1 or more.'),
    preallocate: bool('Whether segment files are preallocated.').optional(),
    retention_bytes: int('Bytes kept per partition; -1 for no limit.').optional(),
    retention_ms: int('How long messages are kept, ms; -1 for no limit.').optional(),
    segment_bytes: z.number().int().min(14).optional().describe('Segment file size, bytes.'),
    segment_index_bytes: int('Offset index size, bytes.').optional(),
    segment_jitter_ms: int('Random jitter on segment roll, ms.').optional(),
    segment_ms: z.number().int().min(1).optional().describe('Time before a segment rolls, ms.'),
  })
  .catchall(configValue)
  .describe('Topic config');

/** Kafka cluster configuration keys named by the spec (others pass through to the platform). */
export const kafkaClusterConfig = z
  .object({
    group_initial_rebalance_delay_ms: int('Delay before the first consumer-group rebalance, ms.').optional(),
    group_min_session_timeout_ms: int('Smallest consumer session timeout, ms.').optional(),
    group_max_session_timeout_ms: int('Largest consumer session timeout, ms.').optional(),
    message_max_bytes: int('Largest record batch, bytes.').optional(),
    log_cleaner_delete_retention_ms: int('How long delete markers are kept, ms.').optional(),
    log_cleaner_min_compaction_lag_ms: int('Minimum time a message stays uncompacted, ms.').optional(),
    log_flush_interval_ms: int('Milliseconds before a forced flush.').optional(),
    log_index_interval_bytes: int('Bytes between offset index entries.').optional(),
    log_message_downconversion_enable: bool('Whether old consumers get down-converted messages.').optional(),
    log_message_timestamp_difference_max_ms: int('Largest allowed timestamp skew, ms.').optional(),
    log_preallocate: bool('Whether segment files are preallocated.').optional(),
    log_retention_bytes: int('Bytes kept per partition; -1 for no limit.').optional(),
    log_retention_hours: int('Hours messages are kept.').optional(),
    log_retention_ms: int('Milliseconds messages are kept; -1 for no limit.').optional(),
    log_roll_jitter_ms: int('Random jitter on segment roll, ms.').optional(),
    log_segment_delete_delay_ms: int('Delay before a segment file is deleted, ms.').optional(),
    auto_create_topics_enable: bool('Whether producing to an unknown topic creates it.').optional(),
  })
  .catchall(configValue)
  .describe('Keys to set');

export const mongodbConfig = z
  .strictObject({
    default_read_concern: z
      .enum(['local', 'available', 'majority'])
      .optional()
      .describe('Default read concern.'),
    default_write_concern: z
      .string()
      .max(LIMITS.slug)
      .optional()
      .describe('Default write concern, such as "majority".'),
    transaction_lifetime_limit_seconds: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Transaction timeout, s.'),
    slow_op_threshold_ms: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Operations slower than this are logged.'),
    verbosity: z.number().int().min(0).max(5).optional().describe('Logging verbosity, 0 to 5.'),
  })
  .describe('Keys to set');

export const redisConfig = z
  .strictObject({
    redis_maxmemory_policy: z
      .enum([
        'noeviction',
        'allkeys-lru',
        'allkeys-random',
        'volatile-lru',
        'volatile-random',
        'volatile-ttl',
      ])
      .optional()
      .describe('Eviction policy.'),
    redis_pubsub_client_output_buffer_limit: z
      .number()
      .int()
      .min(32)
      .max(512)
      .optional()
      .describe('MB, 32 to 512.'),
    redis_number_of_databases: z
      .number()
      .int()
      .min(1)
      .max(128)
      .optional()
      .describe('Logical databases, 1 to 128.'),
    redis_io_threads: z.number().int().min(1).max(32).optional().describe('I/O threads, 1 to 32.'),
    redis_lfu_log_factor: z.number().int().min(0).max(100).optional().describe('LFU log factor, 0 to 100.'),
    redis_lfu_decay_time: z.number().int().min(1).max(120).optional().describe('LFU decay time, minutes.'),
    redis_ssl: bool('Whether connections require TLS.').optional(),
    redis_timeout: z.number().int().min(0).optional().describe('Idle client timeout, s; 0 for none.'),
    redis_notify_keyspace_events: z
      .string()
      .max(32)
      .regex(/^[KEg$lshzxeA]*$/, 'expected keyspace notification flags from "KEg$lshzxeA"')
      .optional()
      .describe('Keyspace notification flags, such as "Ex".'),
    redis_persistence: z
      .enum(REDIS_ADVANCED_CONFIG_REDIS_PERSISTENCE)
      .optional()
      .describe('Persistence: rdb, or off.'),
    redis_acl_channels_default: z
      .enum(['allchannels', 'resetchannels'])
      .optional()
      .describe('Default pub/sub channel access of new users.'),
  })
  .describe('Keys to set');

export const opensearchConfig = z
  .object({
    http_max_content_length_bytes: int('Largest HTTP request body, bytes.').optional(),
    indices_query_bool_max_clause_count: int('Most clauses in a boolean query.').optional(),
    ism_enabled: bool('Whether index state management is on.').optional(),
    search_max_buckets: int('Most aggregation buckets in one search.').optional(),
    thread_pool_write_queue_size: int('Write thread pool queue size.').optional(),
    cluster_max_shards_per_node: int('Most shards per node.').optional(),
    script_max_compilations_rate: z
      .string()
      .max(LIMITS.slug)
      .optional()
      .describe('Script compilations allowed, such as "75/5m".'),
    reindex_remote_whitelist: z
      .array(z.string().max(LIMITS.short))
      .optional()
      .describe('Remote hosts reindexing may read from, as "host:port".'),
    plugins_alerting_filter_by_backend_roles_enabled: bool('Filter alerting by backend roles.').optional(),
  })
  .catchall(configValue)
  .describe('Keys to set');

export const postgresqlConfig = z
  .object({
    autovacuum_max_workers: int('Autovacuum worker processes.').optional(),
    autovacuum_vacuum_scale_factor: z
      .number()
      .optional()
      .describe('Fraction of a table changed before vacuum.'),
    shared_buffers_percentage: z.number().optional().describe('Share of memory for shared buffers, percent.'),
    timezone: z.string().max(64).optional().describe('Server time zone, such as "UTC".'),
    temp_file_limit: int('Temporary file space per process, KB; -1 for no limit.').optional(),
    jit: bool('Whether JIT compilation is on.').optional(),
    pgbouncer: z.record(configKey, configValue).optional().describe('Connection pooler settings.'),
    timescaledb: z.record(configKey, configValue).optional().describe('TimescaleDB settings.'),
  })
  .catchall(configValue)
  .describe('Keys to set');

export const userSettings = z
  .strictObject({
    acl: z
      .array(
        z.strictObject({
          id: z.string().max(LIMITS.short).optional().describe('ACL entry id.'),
          topic: text('Topic name or pattern, such as "orders.*".', { max: LIMITS.short }),
          permission: z
            .enum(['admin', 'consume', 'produce', 'produceconsume'])
            .describe('What the user may do.'),
        }),
      )
      .optional()
      .describe('Kafka topic permissions.'),
    opensearch_acl: z
      .array(
        z.strictObject({
          index: text('Index name or pattern, such as "logs-*".', { max: LIMITS.short }),
          permission: z
            .enum(['deny', 'admin', 'read', 'readwrite', 'write'])
            .describe('What the user may do.'),
        }),
      )
      .optional()
      .describe('OpenSearch index permissions.'),
    mongo_user_settings: z
      .strictObject({
        databases: z
          .array(text('A database name.', { max: LIMITS.name }))
          .optional()
          .describe('Databases the role applies to.'),
        role: z.enum(USER_SETTINGS_MONGO_USER_SETTINGS_ROLE).optional().describe('MongoDB role.'),
      })
      .optional()
      .describe('MongoDB role and databases.'),
  })
  .describe('acl: Kafka');
