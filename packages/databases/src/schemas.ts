/**
 * Argument schemas of the database tools: cluster ids, pages, and the spec's structures (firewall
 * rule, online-migration source, Kafka topic and cluster config, engine configs, user settings).
 */
import { intAsString } from '@cloudcall/core';
import { z } from 'zod';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A cluster UUID; `description` says where it comes from. */
export const clusterId = (description = 'UUID of the cluster, from db-cluster-list or db-cluster-create.') =>
  z
    .string()
    .regex(UUID, 'expected a cluster UUID, such as "9cc10173-e9ea-4176-9dbc-a4cee4c4ff30"')
    .describe(description);

/** The database lists' optional page arguments, passed on whenever given (text or number). */
export const listPage = {
  page: intAsString('Page number, from 1 (text or number). Default: the platform’s first page.').optional(),
  per_page: z
    .union([z.number().int(), z.string().regex(/^\s*\d+\s*$/, 'expected an integer')])
    .transform((value) => (typeof value === 'number' ? value : Number.parseInt(value, 10)))
    .pipe(z.number().int().min(1).max(200))
    .describe('Items per page, 1 to 200. Default: the platform’s page size.')
    .optional(),
};

const int = (description: string) => z.number().int().describe(description);
const bool = (description: string) => z.boolean().describe(description);

/** A trusted source of a cluster. The spec's `vm` type is sent as the platform's `droplet`. */
export const firewallRule = z.strictObject({
  type: z
    .enum(['ip_addr', 'vm', 'droplet', 'k8s', 'tag', 'app'])
    .describe('What `value` names: ip_addr (an IP or CIDR), vm (a VM id, from vm-list), tag, k8s, app.'),
  value: z.string().min(1).describe('The IP address or CIDR block, VM id, tag name, or app/cluster id.'),
  uuid: z
    .string()
    .optional()
    .describe('UUID of an existing rule to keep, from db-cluster-get-firewall-rules.'),
  cluster_uuid: z.string().optional().describe('UUID of the cluster the rule belongs to.'),
  created_at: z
    .string()
    .optional()
    .describe('Accepted so rules from db-cluster-get-firewall-rules can be passed back; never sent.'),
});

export const onlineMigrationSource = z
  .strictObject({
    host: z.string().min(1).describe('Hostname or IP address of the source database.'),
    port: z.number().int().min(1).max(65535).describe('Port the source listens on, such as 6379.'),
    dbname: z.string().optional().describe('Name of the source database.'),
    username: z.string().optional().describe('User to connect as; needs permission to read the data.'),
    password: z.string().optional().describe('Password of that user (never echoed in errors).'),
  })
  .describe('The source database to migrate from: host, port, dbname, username, password.');

/** Kafka topic config (topic create and update): every key optional. */
export const kafkaTopicConfig = z
  .looseObject({
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
    message_format_version: z.string().optional().describe('Message format version, such as "3.0-IV1".'),
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
  .describe('Kafka topic configuration; every key is optional.');

/** Kafka cluster configuration keys named by the spec (others pass through to the platform). */
export const kafkaClusterConfig = z
  .looseObject({
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
  .describe('Kafka cluster configuration keys to change; others keep their values.');

export const mongodbConfig = z
  .strictObject({
    default_read_concern: z
      .enum(['local', 'available', 'majority'])
      .optional()
      .describe('Default read concern.'),
    default_write_concern: z.string().optional().describe('Default write concern, such as "majority".'),
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
  .describe('MongoDB configuration keys to change; others keep their values.');

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
      .optional()
      .describe('Keyspace notification flags, such as "Ex".'),
    redis_persistence: z.enum(['off', 'rdb']).optional().describe('Persistence: rdb, or off.'),
    redis_acl_channels_default: z
      .enum(['allchannels', 'resetchannels'])
      .optional()
      .describe('Default pub/sub channel access of new users.'),
  })
  .describe('Redis-compatible (Valkey) configuration keys to change; others keep their values.');

export const opensearchConfig = z
  .looseObject({
    http_max_content_length_bytes: int('Largest HTTP request body, bytes.').optional(),
    indices_query_bool_max_clause_count: int('Most clauses in a boolean query.').optional(),
    ism_enabled: bool('Whether index state management is on.').optional(),
    search_max_buckets: int('Most aggregation buckets in one search.').optional(),
    thread_pool_write_queue_size: int('Write thread pool queue size.').optional(),
    cluster_max_shards_per_node: int('Most shards per node.').optional(),
    script_max_compilations_rate: z
      .string()
      .optional()
      .describe('Script compilations allowed, such as "75/5m".'),
    reindex_remote_whitelist: z
      .array(z.string())
      .optional()
      .describe('Remote hosts reindexing may read from.'),
    plugins_alerting_filter_by_backend_roles_enabled: bool('Filter alerting by backend roles.').optional(),
  })
  .describe('OpenSearch configuration keys to change; others keep their values.');

export const postgresqlConfig = z
  .looseObject({
    autovacuum_max_workers: int('Autovacuum worker processes.').optional(),
    autovacuum_vacuum_scale_factor: z
      .number()
      .optional()
      .describe('Fraction of a table changed before vacuum.'),
    shared_buffers_percentage: z.number().optional().describe('Share of memory for shared buffers, percent.'),
    timezone: z.string().optional().describe('Server time zone, such as "UTC".'),
    temp_file_limit: int('Temporary file space per process, KB; -1 for no limit.').optional(),
    jit: bool('Whether JIT compilation is on.').optional(),
    pgbouncer: z.record(z.string(), z.unknown()).optional().describe('Connection pooler settings.'),
    timescaledb: z.record(z.string(), z.unknown()).optional().describe('TimescaleDB settings.'),
  })
  .describe('PostgreSQL configuration keys to change; others keep their values.');

export const userSettings = z
  .strictObject({
    acl: z
      .array(
        z.strictObject({
          id: z.string().optional().describe('ACL entry id.'),
          topic: z.string().describe('Topic name or pattern, such as "orders.*".'),
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
          index: z.string().describe('Index name or pattern.'),
          permission: z
            .enum(['deny', 'admin', 'read', 'readwrite', 'write'])
            .describe('What the user may do.'),
        }),
      )
      .optional()
      .describe('OpenSearch index permissions.'),
    mongo_user_settings: z
      .strictObject({
        databases: z.array(z.string()).optional().describe('Databases the role applies to.'),
        role: z.enum(['readOnly', 'readWrite', 'dbAdmin']).optional().describe('MongoDB role.'),
      })
      .optional()
      .describe('MongoDB role and databases.'),
  })
  .describe('User settings: acl (Kafka), opensearch_acl (OpenSearch), mongo_user_settings (MongoDB).');
