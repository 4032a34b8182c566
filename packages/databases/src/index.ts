/**
 * @cloudcall/databases: managed database clusters, online migration, trusted sources, Kafka
 * topics, engine configuration and users, as tool definitions and as a typed API.
 *
 * ```ts
 * import { createClient } from '@cloudcall/core';
 * import { databasesApi, startOnlineMigration } from '@cloudcall/databases';
 * const db = databasesApi(createClient({ token }));
 * const { database } = await db.dbClusterCreate({ name: 'cache', engine: 'valkey', version: '8',
 *   region: 'nyc3', size: 'db-s-1vcpu-1gb', num_nodes: 1 });
 * await startOnlineMigration(client, database.id, { source: { host: 'old.example.com', port: 6379 } });
 * ```
 */
import { type ApiClient, type BoundTools, bindTools, type ToolFamily } from '@cloudcall/core';
import { startOnlineMigration } from './migration.js';
import { databasesTools } from './tools.js';

export type { ConfigApplied } from './tools.js';

export type {
  ConnectionPool,
  DatabaseBackupList,
  DatabaseCluster,
  DatabaseClusterList,
  DatabaseConnection,
  DatabaseEngine,
  DatabaseEngineOptions,
  DatabaseFirewallRule,
  DatabaseOptions,
  DatabaseReplica,
  DatabaseUser,
  DatabaseUserList,
  DatabaseUserSettings,
  KafkaTopic,
  KafkaTopicList,
  LogicalDatabase,
  OnlineMigration,
  OnlineMigrationRequest,
} from './types.js';
export { databasesTools, startOnlineMigration };

export const databasesFamily: ToolFamily = {
  name: 'databases',
  title: 'Managed databases',
  description: 'Clusters, users, trusted sources, Kafka topics, engine configuration and online migration.',
  tools: databasesTools,
};

/** The database tools bound to a client: `dbClusterCreate`, `dbClusterGetMigration`... */
export function databasesApi(client: ApiClient): BoundTools<typeof databasesTools> {
  return bindTools(client, databasesTools);
}
