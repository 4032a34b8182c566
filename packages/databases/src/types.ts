/**
 * The platform's answers to the database tools, as library users receive them: the shapes of the
 * platform's OpenAPI description (@cloudcall/platform, generated), under the names this package
 * has always exported. `Always` marks what the description leaves optional and the platform
 * always sends (an object's id, what a caller passes on to the next tool).
 */
import type { Always, DATABASE_CLUSTER_ENGINE, ListAnswer, ResponseBody, Schemas } from '@cloudcall/platform';

export type DatabaseEngine = (typeof DATABASE_CLUSTER_ENGINE)[number];

/** How to reach a cluster. The platform returns the password of the admin user here. */
export type DatabaseConnection = Schemas['database_connection'];

export type DatabaseFirewallRule = Schemas['firewall_rule'];

export type DatabaseUser = Schemas['database_user'];

export type DatabaseUserSettings = Schemas['user_settings'];

export type DatabaseCluster = Always<
  Schemas['database_cluster'],
  'id' | 'status' | 'created_at' | 'connection' | 'private_connection'
>;

export type DatabaseClusterList = ListAnswer<'databases_list_clusters', 'databases', DatabaseCluster>;

export type DatabaseBackupList = ResponseBody<'databases_list_backups'>;

/** What an engine offers: the description's region, version and layout lists. */
export type DatabaseEngineOptions = NonNullable<NonNullable<Schemas['options']['options']>['pg']> & {
  /** The version a cluster created without one gets, where the platform says it. */
  default_version?: string;
};

export type DatabaseOptions = Schemas['options'];

/** The state of an online migration: `running` while data is replicated, `canceled` once stopped. */
export type OnlineMigration = Always<Schemas['online_migration'], 'id' | 'status' | 'created_at'>;

/**
 * The body of the online-migration HTTP operation (`PUT /v2/databases/{uuid}/online-migration`).
 * The description requires `ignore_dbs`; the tool's argument is optional (as the spec has it) and
 * is sent only when given.
 */
export type OnlineMigrationRequest = Omit<Schemas['source_database'], 'ignore_dbs'> & {
  ignore_dbs?: string[];
};

export type KafkaTopic = Schemas['kafka_topic_verbose'];

export type KafkaTopicList = ListAnswer<'databases_list_kafka_topics', 'topics'>;

export type DatabaseUserList = ListAnswer<'databases_list_users', 'users'>;

/** A logical database inside a cluster. */
export type LogicalDatabase = Schemas['database'];

/** A PgBouncer connection pool of a PostgreSQL cluster. */
export type ConnectionPool = Schemas['connection_pool'];

/** A read-only replica of a PostgreSQL or MySQL cluster. */
export type DatabaseReplica = Always<Schemas['database_replica'], 'id' | 'status'>;
