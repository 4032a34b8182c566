/**
 * The databases family: clusters, online migration, trusted sources, Kafka topics, engine
 * configuration and users. Each tool is one platform request described by its mapping, except
 * the online-migration start (the plain HTTP operation, see migration.ts) and the few handlers
 * noted below.
 */
import {
  annotations,
  defineTool,
  InputError,
  type InputSchema,
  returns,
  sendRequest,
  type ToolContext,
  type ToolDefinition,
  UnexpectedResponseError,
} from '@cloudcall/core';
import {
  boolAsString,
  commaList,
  fillPath,
  intAsString,
  LIMITS,
  regionSlug,
  tagName,
  text,
  uuid,
} from '@cloudcall/core/internal';
import {
  DATABASE_CLUSTER_ENGINE,
  EVICTION_POLICY_MODEL,
  PGBOUNCER_ADVANCED_CONFIG_AUTODB_POOL_MODE,
} from '@cloudcall/platform';
import { z } from 'zod';
import { startOnlineMigration } from './migration.js';
import {
  clusterId,
  dbName,
  engineVersion,
  firewallRule,
  kafkaClusterConfig,
  kafkaTopicConfig,
  listPage,
  migrationId,
  mongodbConfig,
  onlineMigrationSource,
  opensearchConfig,
  poolName,
  postgresqlConfig,
  redisConfig,
  sizeSlug,
  topicName,
  userName,
  userSettings,
} from './schemas.js';
import type {
  ConnectionPool,
  DatabaseBackupList,
  DatabaseCluster,
  DatabaseClusterList,
  DatabaseEngine,
  DatabaseFirewallRule,
  DatabaseOptions,
  DatabaseReplica,
  DatabaseUser,
  DatabaseUserList,
  KafkaTopic,
  KafkaTopicList,
  LogicalDatabase,
  OnlineMigration,
} from './types.js';

const id = clusterId();
const byId = z.strictObject({ id });
const cluster = '/v2/databases/{id}';

const topic = topicName('Topic name');
const user = userName('User name');

const clusterTools = [
  defineTool({
    name: 'db-cluster-list',
    family: 'databases',
    title: 'List database clusters',
    description: 'Managed database clusters.',
    details:
      'Lists the managed database clusters: id, name, engine, version, status, region, size, nodes and connection details. Paginated.',
    input: z.strictObject(listPage),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/databases', query: { page: 'page', per_page: 'per_page' } },
    result: returns<DatabaseClusterList>(),
  }),
  defineTool({
    name: 'db-cluster-get',
    family: 'databases',
    title: 'Get database cluster',
    description: 'One cluster, with connection info.',
    details:
      'Shows one cluster: status (creating, then online), engine and version, size, nodes, connection details (host, port, user, password, URI), users and trusted sources.',
    input: byId,
    annotations: annotations.read,
    request: { method: 'GET', path: cluster },
    result: returns<{ database: DatabaseCluster }>(),
  }),
  defineTool({
    name: 'db-cluster-get-ca',
    family: 'databases',
    title: 'Get cluster CA certificate',
    description: 'CA certificate, base64 PEM.',
    details:
      'Returns the base64-encoded PEM CA certificate clients use to verify TLS connections to the cluster.',
    input: byId,
    annotations: annotations.read,
    request: { method: 'GET', path: `${cluster}/ca` },
    result: returns<{ ca: { certificate: string } }>(),
  }),
  defineTool({
    name: 'db-cluster-create',
    family: 'databases',
    title: 'Create database cluster',
    description: 'Create a cluster; see db-cluster-list-options.',
    details:
      'Creates a managed database cluster. It starts in status `creating` and becomes `online` after a short while (poll db-cluster-get). Engines, versions (such as "16" for pg or "8" for valkey), sizes and regions: db-cluster-list-options. The name is unique, 3 to 63 characters; the node count includes standby nodes; tags are comma-separated, such as "prod,cache"; project_id puts it in a project (project-list), else it goes to the default project.',
    input: z.strictObject({
      name: z.string().min(3).max(63).describe('3-63 chars'),
      // The description's engines but redis (retired for valkey) and the advanced_* ones, as the spec lists them.
      engine: z
        .enum(DATABASE_CLUSTER_ENGINE)
        .exclude(['redis', 'advanced_pg', 'advanced_mysql'])
        .describe('Engine'),
      version: engineVersion('e.g. 16'),
      region: regionSlug('e.g. nyc3'),
      size: sizeSlug('e.g. db-s-1vcpu-1gb'),
      num_nodes: z.number().int().min(1).max(3).describe('Incl. standbys'),
      tags: commaList('Comma-separated').pipe(z.array(tagName())).optional(),
      project_id: uuid('Project; else the default').optional(),
    }),
    annotations: annotations.create,
    wait: { kind: 'database' },
    request: {
      method: 'POST',
      path: '/v2/databases',
      body: {
        name: 'name',
        engine: 'engine',
        version: 'version',
        region: 'region',
        size: 'size',
        num_nodes: 'num_nodes',
        tags: 'tags',
        project_id: 'project_id',
      },
    },
    result: returns<{ database: DatabaseCluster }>(),
  }),
  defineTool({
    name: 'db-cluster-delete',
    family: 'databases',
    title: 'Delete database cluster',
    description: 'Delete a cluster and its data.',
    details: 'Deletes a cluster with all its data, users and backups. This cannot be undone.',
    input: byId,
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: cluster },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'db-cluster-resize',
    family: 'databases',
    title: 'Resize database cluster',
    description: 'Resize nodes or storage.',
    details:
      'Changes the node size (a slug from db-cluster-list-options), the node count and/or the storage per node in MiB (give at least one). The cluster is `resizing` for a while; shrinking can lose capacity.',
    input: z
      .strictObject({
        id,
        size: sizeSlug('Node size slug').optional(),
        num_nodes: z.number().int().min(1).max(3).optional().describe('Node count'),
        storage_size_mib: z.number().int().positive().optional().describe('MiB per node'),
      })
      .superRefine((args, ctx) => {
        if (args.size === undefined && args.num_nodes === undefined && args.storage_size_mib === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['size'],
            message: 'give at least one of size, num_nodes, storage_size_mib',
          });
        }
      }),
    annotations: annotations.destructive,
    wait: { kind: 'database', idArgument: 'id' },
    request: {
      method: 'PUT',
      path: `${cluster}/resize`,
      noResponseBody: true,
      body: { size: 'size', num_nodes: 'num_nodes', storage_size_mib: 'storage_size_mib' },
    },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'db-cluster-list-backups',
    family: 'databases',
    title: 'List cluster backups',
    description: 'Daily backups.',
    details: 'Lists the daily backups of a cluster (creation time and size in GB), newest first. Paginated.',
    input: z.strictObject({ id, ...listPage }),
    annotations: annotations.read,
    request: { method: 'GET', path: `${cluster}/backups`, query: { page: 'page', per_page: 'per_page' } },
    result: returns<DatabaseBackupList>(),
  }),
  defineTool({
    name: 'db-cluster-list-options',
    family: 'databases',
    title: 'List database options',
    description: 'Valid create values per engine.',
    details:
      'Lists what db-cluster-create accepts, per engine: regions, versions, node counts and sizes, and each version’s end of life.',
    input: z.strictObject({}),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/databases/options' },
    result: returns<DatabaseOptions>(),
  }),
  defineTool({
    name: 'db-cluster-upgrade-major-version',
    family: 'databases',
    title: 'Upgrade major version',
    description: 'Upgrade major version; no downgrade.',
    details:
      'Upgrades the cluster’s engine to a newer major version, such as "17" (db-cluster-list-options); never back. Clients may need changes for the new version.',
    input: z.strictObject({ id, version: engineVersion('e.g. 17') }),
    annotations: annotations.destructive,
    request: { method: 'PUT', path: `${cluster}/upgrade`, body: { version: 'version' } },
    result: returns<{ ok: true }>(),
  }),
] as const;

const migrationTools = [
  defineTool({
    name: 'db-cluster-start-online-migration',
    family: 'databases',
    title: 'Start online migration',
    description: 'Replicate an external DB into the cluster.',
    details:
      'Starts replicating a source database (host:port, reachable from the cluster) into the cluster. The source’s version must not be newer than the cluster’s, and it must not be another managed cluster. Runs until stopped, at most two weeks; follow it with db-cluster-get-migration.',
    input: z.strictObject({
      id,
      source: onlineMigrationSource,
      disable_ssl: z.boolean().optional().describe('No TLS'),
      ignore_dbs: commaList('Comma-separated').optional(),
    }),
    annotations: annotations.action,
    handler: (args, context) =>
      startOnlineMigration(
        context.client,
        args.id,
        { source: args.source, disable_ssl: args.disable_ssl, ignore_dbs: args.ignore_dbs },
        { signal: context.signal },
      ),
    result: returns<OnlineMigration>(),
  }),
  defineTool({
    name: 'db-cluster-stop-online-migration',
    family: 'databases',
    title: 'Stop online migration',
    description: 'Stop the migration; data stays.',
    details:
      'Stops the ongoing online migration. Data already migrated stays in the cluster; replication does not resume.',
    input: z.strictObject({ id, migration_id: migrationId('From db-cluster-get-migration') }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: `${cluster}/online-migration/{migration_id}` },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'db-cluster-get-migration',
    family: 'databases',
    title: 'Get online migration status',
    description: 'Latest online migration.',
    details:
      'Shows the cluster’s latest online migration: id, status (running, then canceled when stopped or after two weeks) and start time.',
    input: byId,
    annotations: annotations.read,
    request: { method: 'GET', path: `${cluster}/online-migration` },
    result: returns<OnlineMigration>(),
  }),
] as const;

/** The spec says `vm`; the platform says `droplet`. Only the rule's own fields go out. */
const wireRule = (rule: z.output<typeof firewallRule>) => ({
  type: rule.type === 'vm' ? 'droplet' : rule.type,
  value: rule.value,
  ...(rule.uuid !== undefined ? { uuid: rule.uuid } : {}),
  ...(rule.cluster_uuid !== undefined ? { cluster_uuid: rule.cluster_uuid } : {}),
});

const firewallTools = [
  defineTool({
    name: 'db-cluster-get-firewall-rules',
    family: 'databases',
    title: 'Get trusted sources',
    description: 'Trusted sources; none means open.',
    details:
      'Lists the cluster’s trusted sources (firewall rules): type (ip_addr, droplet, tag, k8s, app) and value. With none, the cluster accepts any address.',
    input: byId,
    annotations: annotations.read,
    request: { method: 'GET', path: `${cluster}/firewall` },
    result: returns<{ rules: DatabaseFirewallRule[] }>(),
  }),
  defineTool({
    name: 'db-cluster-update-firewall-rules',
    family: 'databases',
    title: 'Replace trusted sources',
    description: 'Replace trusted sources; [] opens all.',
    details:
      'Replaces the cluster’s trusted sources with exactly the given list, such as [{"type":"ip_addr","value":"203.0.113.5"}]: rules left out are removed (an empty list opens the cluster to any address). Keep a rule by passing its uuid. A rule’s value is an IP address or CIDR block (ip_addr), a VM id (vm), a tag name, or an app or Kubernetes cluster id.',
    input: z.strictObject({ id, rules: z.array(firewallRule).describe('Full list') }),
    annotations: annotations.destroy,
    request: {
      method: 'PUT',
      path: `${cluster}/firewall`,
      body: (args) => ({ rules: args.rules.map(wireRule) }),
    },
    result: returns<{ ok: true }>(),
  }),
] as const;

const topicCounts = {
  partition_count: intAsString('Partitions').optional(),
  replication_factor: intAsString('Max node count').optional(),
  config: kafkaTopicConfig.optional(),
};

const kafkaTools = [
  defineTool({
    name: 'db-cluster-list-topics',
    family: 'databases',
    title: 'List Kafka topics',
    description: 'Kafka topics.',
    details:
      'Lists the topics of a Kafka cluster: name, state, partitions and replication factor. Paginated. The filters take true or false; usecases is comma-separated.',
    input: z.strictObject({
      id,
      ...listPage,
      with_projects: boolAsString('Project fields').optional(),
      only_deployed: boolAsString('Deployed only').optional(),
      public_only: boolAsString('Public only').optional(),
      usecases: text('Comma-separated', { max: LIMITS.short }).optional(),
    }),
    annotations: annotations.read,
    request: {
      method: 'GET',
      path: `${cluster}/topics`,
      query: {
        page: 'page',
        per_page: 'per_page',
        with_projects: 'with_projects',
        only_deployed: 'only_deployed',
        public_only: 'public_only',
        usecases: 'usecases',
      },
    },
    result: returns<KafkaTopicList>(),
  }),
  defineTool({
    name: 'db-cluster-create-topic',
    family: 'databases',
    title: 'Create Kafka topic',
    description: 'Create a Kafka topic.',
    details:
      'Creates a topic on a Kafka cluster, with optional partitions, replication factor (at most the node count) and topic config. Topic names are letters, digits, ".", "_" and "-", up to 249 characters.',
    input: z.strictObject({ id, name: topicName('Topic name'), ...topicCounts }),
    annotations: annotations.create,
    request: {
      method: 'POST',
      path: `${cluster}/topics`,
      body: {
        name: 'name',
        partition_count: 'partition_count',
        replication_factor: 'replication_factor',
        config: 'config',
      },
    },
    result: returns<{ topic: KafkaTopic }>(),
  }),
  defineTool({
    name: 'db-cluster-get-topic',
    family: 'databases',
    title: 'Get Kafka topic',
    description: 'One Kafka topic.',
    details:
      'Shows one topic: state, partitions (with offsets and in-sync replicas), replication factor and config.',
    input: z.strictObject({ id, name: topic }),
    annotations: annotations.read,
    request: { method: 'GET', path: `${cluster}/topics/{name}` },
    result: returns<{ topic: KafkaTopic }>(),
  }),
  defineTool({
    name: 'db-cluster-delete-topic',
    family: 'databases',
    title: 'Delete Kafka topic',
    description: 'Delete a topic and its messages.',
    input: z.strictObject({ id, name: topic }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: `${cluster}/topics/{name}` },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'db-cluster-update-topic',
    family: 'databases',
    title: 'Update Kafka topic',
    description: 'Change a topic; partitions only grow.',
    details:
      'Changes a topic’s partition count (it can only grow), replication factor or config keys; keys not given keep their values.',
    input: z.strictObject({ id, name: topic, ...topicCounts }),
    annotations: annotations.update,
    request: {
      method: 'PUT',
      path: `${cluster}/topics/{name}`,
      body: {
        partition_count: 'partition_count',
        replication_factor: 'replication_factor',
        config: 'config',
      },
    },
    result: returns<{ topic: KafkaTopic }>(),
  }),
] as const;

/** Longest `config_json` text: room for every MySQL key at once. */
const CONFIG_JSON_MAX = 16_384;

/** The `config_json` text of the MySQL tool, parsed into the config object (invalid JSON: input error). */
const configJson = z
  .string()
  .min(1)
  .max(CONFIG_JSON_MAX)
  .transform((text, ctx) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `is not valid JSON (${(error as Error).message})` });
      return z.NEVER;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a JSON object, such as {"sql_require_primary_key":false}',
      });
      return z.NEVER;
    }
    return parsed as Record<string, unknown>;
  })
  .describe('JSON object text');

interface ConfigRow<G extends string, U extends string> {
  engine: string;
  /** Engines whose clusters carry this configuration. */
  engines: DatabaseEngine[];
  get: G;
  update: U;
  /** The cluster argument's name: the spec calls it `ID` for MySQL, `id` elsewhere. */
  idArg: 'id' | 'ID';
  config: z.ZodType<Record<string, unknown>, unknown>;
  configArg: 'config' | 'config_json';
}

/**
 * The platform serves every engine's configuration at one path, so a config tool first checks
 * the cluster's engine: the MongoDB tool never reads or changes a PostgreSQL cluster. An answer
 * that does not say the engine is refused by name (nothing is changed), never read as a crash.
 */
async function requireEngine(
  row: ConfigRow<string, string>,
  args: Record<string, unknown>,
  context: ToolContext,
  tool: string,
) {
  const clusterPath = `/v2/databases/{${row.idArg}}`;
  const answer = await sendRequest<{ database?: Partial<DatabaseCluster> } | null>(
    { method: 'GET', path: clusterPath },
    args,
    context,
  );
  const engine = answer?.database?.engine;
  if (typeof engine !== 'string') {
    const path = fillPath(clusterPath, args);
    throw new UnexpectedResponseError({
      status: 200,
      id: 'unexpected_response',
      apiMessage: `the API answered GET ${path} without the cluster's engine (database.engine), so ${tool} cannot tell whether it is a ${row.engines.join(' or ')} cluster${tool === row.update ? '; the config was not sent' : ''}`,
      method: 'GET',
      path,
      contentType: 'application/json',
    });
  }
  if (!row.engines.includes(engine as DatabaseEngine)) {
    throw new InputError(
      `cluster ${String(args[row.idArg])} is a ${engine} cluster; this tool works on ${row.engines.join(' or ')} clusters`,
      row.idArg,
    );
  }
}

/** What a config update answers: the keys it sent, which the platform merged into the config. */
export interface ConfigApplied {
  ok: true;
  applied: Record<string, unknown>;
}

/** A get tool and an update tool (PATCH merges the given keys) for one engine's configuration. */
function configTools<const G extends string, const U extends string>(
  row: ConfigRow<G, U>,
): [
  ToolDefinition<InputSchema, { config: Record<string, unknown> }, G>,
  ToolDefinition<InputSchema, ConfigApplied, U>,
] {
  const path = `/v2/databases/{${row.idArg}}/config`;
  return [
    defineTool({
      name: row.get,
      family: 'databases',
      title: `Get ${row.engine} config`,
      description: `${row.engine} config.`,
      details: `Shows the advanced configuration of a ${row.engine} cluster. Clusters of other engines are refused.`,
      input: z.strictObject({ [row.idArg]: id }),
      annotations: annotations.read,
      handler: async (args: Record<string, unknown>, context) => {
        await requireEngine(row, args, context, row.get);
        return sendRequest<{ config: Record<string, unknown> }>({ method: 'GET', path }, args, context);
      },
      result: returns<{ config: Record<string, unknown> }>(),
    }),
    defineTool({
      name: row.update,
      family: 'databases',
      title: `Update ${row.engine} config`,
      description: `Merge ${row.engine} config keys.`,
      details: `Changes keys of a ${row.engine} cluster’s advanced configuration; keys not given keep their values. Answers with the keys applied; ${row.get} shows the whole config. Clusters of other engines are refused.`,
      input: z.strictObject({ [row.idArg]: id, [row.configArg]: row.config }),
      annotations: annotations.update,
      handler: async (args: Record<string, unknown>, context) => {
        await requireEngine(row, args, context, row.update);
        // The platform answers the PATCH with 200 and no body. A success with a body (`{}`, or one
        // without a `config`) is a success all the same: its body is not read, and the answer is
        // the keys sent, which the platform merged.
        await sendRequest(
          {
            method: 'PATCH',
            path,
            body: (values) => ({ config: values[row.configArg] }),
            noResponseBody: true,
          },
          args,
          context,
        );
        return { ok: true, applied: args[row.configArg] as Record<string, unknown> };
      },
      result: returns<ConfigApplied>(),
    }),
  ];
}

/** One row per engine configuration, as the spec's table lists them. */
const configToolPairs = [
  configTools({
    engine: 'Kafka',
    engines: ['kafka'],
    get: 'db-cluster-get-kafka-config',
    update: 'db-cluster-update-kafka-config',
    idArg: 'id',
    config: kafkaClusterConfig,
    configArg: 'config',
  }),
  configTools({
    engine: 'MongoDB',
    engines: ['mongodb'],
    get: 'db-cluster-get-mongodb-config',
    update: 'db-cluster-update-mongodb-config',
    idArg: 'id',
    config: mongodbConfig,
    configArg: 'config',
  }),
  configTools({
    engine: 'MySQL',
    engines: ['mysql'],
    get: 'db-cluster-get-mysql-config',
    update: 'db-cluster-update-mysql-config',
    idArg: 'ID',
    config: configJson,
    configArg: 'config_json',
  }),
  configTools({
    engine: 'OpenSearch',
    engines: ['opensearch'],
    get: 'db-cluster-get-opensearch-config',
    update: 'db-cluster-update-os-config',
    idArg: 'id',
    config: opensearchConfig,
    configArg: 'config',
  }),
  configTools({
    engine: 'PostgreSQL',
    engines: ['pg'],
    get: 'db-cluster-get-postgresql-config',
    update: 'db-cluster-update-psql-config',
    idArg: 'id',
    config: postgresqlConfig,
    configArg: 'config',
  }),
  configTools({
    engine: 'Redis',
    engines: ['valkey', 'redis'],
    get: 'db-cluster-get-redis-config',
    update: 'db-cluster-update-redis-config',
    idArg: 'id',
    config: redisConfig,
    configArg: 'config',
  }),
] as const;

const sqlModeTools = [
  defineTool({
    name: 'db-cluster-get-sql-mode',
    family: 'databases',
    title: 'Get SQL mode',
    description: 'MySQL SQL modes.',
    details: 'Shows the global SQL modes of a MySQL cluster, comma-separated.',
    input: byId,
    annotations: annotations.read,
    request: { method: 'GET', path: `${cluster}/sql_mode` },
    result: returns<{ sql_mode: string }>(),
  }),
  defineTool({
    name: 'db-cluster-set-sql-mode',
    family: 'databases',
    title: 'Set SQL mode',
    description: 'Replace MySQL SQL modes.',
    details:
      'Sets the global SQL modes of a MySQL cluster, replacing the current ones. Modes are comma-separated, such as "ANSI,STRICT_ALL_TABLES".',
    input: z.strictObject({
      id,
      modes: commaList('Comma-separated').refine((modes) => modes.length > 0, 'give at least one SQL mode'),
    }),
    annotations: annotations.update,
    request: {
      method: 'PUT',
      path: `${cluster}/sql_mode`,
      body: (args) => ({ sql_mode: args.modes.join(',') }),
    },
    result: returns<{ ok: true }>(),
  }),
] as const;

const userTools = [
  defineTool({
    name: 'db-cluster-list-users',
    family: 'databases',
    title: 'List database users',
    description: 'Cluster users.',
    details: 'Lists the users of a cluster with their role and settings. Paginated.',
    input: z.strictObject({ id, ...listPage }),
    annotations: annotations.read,
    request: { method: 'GET', path: `${cluster}/users`, query: { page: 'page', per_page: 'per_page' } },
    result: returns<DatabaseUserList>(),
  }),
  defineTool({
    name: 'db-cluster-get-user',
    family: 'databases',
    title: 'Get database user',
    description: 'One cluster user.',
    details: 'Shows one user of a cluster: role, password (as the platform returns it) and settings.',
    input: z.strictObject({ id, user }),
    annotations: annotations.read,
    request: { method: 'GET', path: `${cluster}/users/{user}` },
    result: returns<{ user: DatabaseUser }>(),
  }),
  defineTool({
    name: 'db-cluster-create-user',
    family: 'databases',
    title: 'Create database user',
    description: 'Add a cluster user.',
    details:
      'Adds a user to a cluster; the platform generates its password, which comes back with the user. Settings apply per engine (Kafka acl, OpenSearch acl, MongoDB role). User names are letters, digits, "_", "." and "-", up to 63 characters; mysql_auth_plugin (MySQL only) can be mysql_native_password for old clients.',
    input: z.strictObject({
      id,
      name: userName('User name'),
      mysql_auth_plugin: z
        .enum(['mysql_native_password', 'caching_sha2_password'])
        .optional()
        .describe('MySQL only'),
      settings: userSettings.optional(),
    }),
    annotations: annotations.create,
    request: {
      method: 'POST',
      path: `${cluster}/users`,
      body: (args) => ({
        name: args.name,
        mysql_settings: args.mysql_auth_plugin ? { auth_plugin: args.mysql_auth_plugin } : undefined,
        settings: args.settings,
      }),
    },
    result: returns<{ user: DatabaseUser }>(),
  }),
  defineTool({
    name: 'db-cluster-update-user',
    family: 'databases',
    title: 'Update database user',
    description: 'Replace user settings.',
    details:
      'Replaces a user’s settings (Kafka acl, OpenSearch acl, MongoDB role). Without settings nothing changes and the user is shown as is.',
    input: z.strictObject({ id, user, settings: userSettings.optional() }),
    annotations: annotations.update,
    // The platform requires `settings`: with none given there is nothing to send, so read instead.
    handler: (args, context) =>
      sendRequest<{ user: DatabaseUser }>(
        args.settings === undefined
          ? { method: 'GET', path: `${cluster}/users/{user}` }
          : { method: 'PUT', path: `${cluster}/users/{user}`, body: { settings: 'settings' } },
        args,
        context,
      ),
    result: returns<{ user: DatabaseUser }>(),
  }),
  defineTool({
    name: 'db-cluster-delete-user',
    family: 'databases',
    title: 'Delete database user',
    description: 'Remove a user; not the admin.',
    details:
      'Removes a user from a cluster; its connections are closed. The primary admin user cannot be removed.',
    input: z.strictObject({ id, user }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: `${cluster}/users/{user}` },
    result: returns<{ ok: true }>(),
  }),
] as const;

const db = dbName('Database name');

const logicalDbTools = [
  defineTool({
    name: 'db-cluster-list-dbs',
    family: 'databases',
    beyondSpec: true,
    title: 'List logical databases',
    description: 'Logical databases in a cluster.',
    details:
      'Lists the logical databases of a cluster by name. PostgreSQL and MySQL clusters have them; the platform refuses other engines.',
    input: byId,
    annotations: annotations.read,
    request: { method: 'GET', path: `${cluster}/dbs` },
    result: returns<{ dbs: LogicalDatabase[] }>(),
  }),
  defineTool({
    name: 'db-cluster-create-db',
    family: 'databases',
    beyondSpec: true,
    title: 'Create logical database',
    description: 'Add a logical database to a cluster.',
    details:
      'Adds a logical database to a PostgreSQL or MySQL cluster; it then appears in the cluster’s db_names. Names are letters, digits, "_", "." and "-", up to 63 characters.',
    input: z.strictObject({ id, name: db }),
    annotations: annotations.create,
    request: { method: 'POST', path: `${cluster}/dbs`, body: { name: 'name' } },
    result: returns<{ db: LogicalDatabase }>(),
  }),
  defineTool({
    name: 'db-cluster-get-db',
    family: 'databases',
    beyondSpec: true,
    title: 'Get logical database',
    description: 'One logical database.',
    input: z.strictObject({ id, name: db }),
    annotations: annotations.read,
    request: { method: 'GET', path: `${cluster}/dbs/{name}` },
    result: returns<{ db: LogicalDatabase }>(),
  }),
  defineTool({
    name: 'db-cluster-delete-db',
    family: 'databases',
    beyondSpec: true,
    title: 'Delete logical database',
    description: 'Delete a logical database and its data.',
    details: 'Deletes a logical database with all its tables and data. This cannot be undone.',
    input: z.strictObject({ id, name: db }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: `${cluster}/dbs/{name}` },
    result: returns<{ ok: true }>(),
  }),
] as const;

const pool = poolName('Pool name');
const poolSettings = {
  mode: z.enum(PGBOUNCER_ADVANCED_CONFIG_AUTODB_POOL_MODE).describe('PgBouncer mode'),
  size: z.number().int().min(1).describe('Backend connections'),
  db: dbName('Database name'),
  user: userName('User; default inbound').optional(),
};
const poolBody = { mode: 'mode', size: 'size', db: 'db', user: 'user' } as const;

const poolTools = [
  defineTool({
    name: 'db-cluster-list-pools',
    family: 'databases',
    beyondSpec: true,
    title: 'List connection pools',
    description: 'PgBouncer connection pools (PostgreSQL).',
    details:
      'Lists the connection pools of a PostgreSQL cluster: name, mode, size, database, user and connection details. Other engines are refused by the platform.',
    input: byId,
    annotations: annotations.read,
    request: { method: 'GET', path: `${cluster}/pools` },
    result: returns<{ pools: ConnectionPool[] }>(),
  }),
  defineTool({
    name: 'db-cluster-create-pool',
    family: 'databases',
    beyondSpec: true,
    title: 'Create connection pool',
    description: 'Add a PgBouncer pool to a PostgreSQL cluster.',
    details:
      'Adds a connection pool to a PostgreSQL cluster. Mode is session, transaction or statement; size counts backend connections (25 per GB of the primary node’s RAM, less 3, shared by all pools); without user, sessions connect as the inbound user. Pool names are 3 to 60 characters. The answer carries the pool’s own connection details.',
    input: z.strictObject({ id, name: pool, ...poolSettings }),
    annotations: annotations.create,
    request: { method: 'POST', path: `${cluster}/pools`, body: { name: 'name', ...poolBody } },
    result: returns<{ pool: ConnectionPool }>(),
  }),
  defineTool({
    name: 'db-cluster-get-pool',
    family: 'databases',
    beyondSpec: true,
    title: 'Get connection pool',
    description: 'One connection pool, with connection info.',
    input: z.strictObject({ id, name: pool }),
    annotations: annotations.read,
    request: { method: 'GET', path: `${cluster}/pools/{name}` },
    result: returns<{ pool: ConnectionPool }>(),
  }),
  defineTool({
    name: 'db-cluster-update-pool',
    family: 'databases',
    beyondSpec: true,
    title: 'Update connection pool',
    description: 'Replace a pool’s mode, size, database and user.',
    details:
      'Replaces a connection pool’s mode, size and database (all required, as the platform requires them) and its user (left out: the inbound user).',
    input: z.strictObject({ id, name: pool, ...poolSettings }),
    annotations: annotations.update,
    request: { method: 'PUT', path: `${cluster}/pools/{name}`, body: poolBody },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'db-cluster-delete-pool',
    family: 'databases',
    beyondSpec: true,
    title: 'Delete connection pool',
    description: 'Delete a pool; its clients disconnect.',
    input: z.strictObject({ id, name: pool }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: `${cluster}/pools/{name}` },
    result: returns<{ ok: true }>(),
  }),
] as const;

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

const maintenanceTools = [
  defineTool({
    name: 'db-cluster-get-eviction-policy',
    family: 'databases',
    beyondSpec: true,
    title: 'Get eviction policy',
    description: 'Valkey/Redis eviction policy.',
    details:
      'Shows which keys a Valkey (or Redis) cluster evicts when memory is full. Other engines are refused by the platform.',
    input: byId,
    annotations: annotations.read,
    request: { method: 'GET', path: `${cluster}/eviction_policy` },
    result: returns<{ eviction_policy: (typeof EVICTION_POLICY_MODEL)[number] }>(),
  }),
  defineTool({
    name: 'db-cluster-set-eviction-policy',
    family: 'databases',
    beyondSpec: true,
    title: 'Set eviction policy',
    description: 'Set the Valkey/Redis eviction policy.',
    details:
      'Sets which keys a Valkey (or Redis) cluster evicts when memory is full: noeviction (writes fail instead), allkeys_lru, allkeys_random, or volatile_lru, volatile_random, volatile_ttl (only keys with an expiry).',
    input: z.strictObject({
      id,
      eviction_policy: z.enum(EVICTION_POLICY_MODEL).describe('e.g. allkeys_lru'),
    }),
    annotations: annotations.update,
    request: {
      method: 'PUT',
      path: `${cluster}/eviction_policy`,
      body: { eviction_policy: 'eviction_policy' },
    },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'db-cluster-set-maintenance-window',
    family: 'databases',
    beyondSpec: true,
    title: 'Set maintenance window',
    description: 'Set the weekly maintenance day and hour (UTC).',
    details:
      'Sets when the platform applies maintenance updates to the cluster: a day of the week and an hour in UTC, 24-hour "HH:MM" such as "14:00". db-cluster-get shows the window and any pending updates.',
    input: z.strictObject({
      id,
      day: z.enum(WEEKDAYS).describe('e.g. tuesday'),
      hour: z
        .string()
        .regex(/^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/, 'expected a 24-hour time in UTC, such as "14:00"')
        .describe('UTC HH:MM'),
    }),
    annotations: annotations.update,
    request: { method: 'PUT', path: `${cluster}/maintenance`, body: { day: 'day', hour: 'hour' } },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'db-cluster-migrate-region',
    family: 'databases',
    beyondSpec: true,
    title: 'Migrate cluster to a region',
    description: 'Move a cluster to another region.',
    details:
      'Moves the cluster to another region (db-cluster-list-options lists them). It is `migrating` until done, then `online` again; poll db-cluster-get.',
    input: z.strictObject({ id, region: regionSlug('e.g. lon1') }),
    annotations: annotations.action,
    wait: { kind: 'database', idArgument: 'id' },
    request: { method: 'PUT', path: `${cluster}/migrate`, body: { region: 'region' }, noResponseBody: true },
    result: returns<{ ok: true }>(),
  }),
] as const;

const replica = userName('Replica name');

const replicaTools = [
  defineTool({
    name: 'db-cluster-list-replicas',
    family: 'databases',
    beyondSpec: true,
    title: 'List read-only replicas',
    description: 'Read-only replicas of a cluster.',
    details:
      'Lists the read-only replicas of a PostgreSQL or MySQL cluster: name, region, size, status and connection details.',
    input: byId,
    annotations: annotations.read,
    request: { method: 'GET', path: `${cluster}/replicas` },
    result: returns<{ replicas: DatabaseReplica[] }>(),
  }),
  defineTool({
    name: 'db-cluster-create-replica',
    family: 'databases',
    beyondSpec: true,
    title: 'Create read-only replica',
    description: 'Add a read-only replica (PostgreSQL, MySQL).',
    details:
      'Adds a read-only replica to a PostgreSQL or MySQL cluster. Its node size is at least the cluster’s; the region defaults to the cluster’s. It is `creating`, then `online`, with its own connection details. Tags are comma-separated.',
    input: z.strictObject({
      id,
      name: replica,
      size: sizeSlug('At least the cluster’s'),
      region: regionSlug('Default: cluster’s').optional(),
      tags: commaList('Comma-separated').pipe(z.array(tagName())).optional(),
      storage_size_mib: z.number().int().positive().optional().describe('MiB per node'),
    }),
    annotations: annotations.create,
    wait: { kind: 'database-replica', idArgument: 'id', nameArgument: 'name' },
    request: {
      method: 'POST',
      path: `${cluster}/replicas`,
      body: {
        name: 'name',
        size: 'size',
        region: 'region',
        tags: 'tags',
        storage_size_mib: 'storage_size_mib',
      },
    },
    result: returns<{ replica: DatabaseReplica }>(),
  }),
  defineTool({
    name: 'db-cluster-get-replica',
    family: 'databases',
    beyondSpec: true,
    title: 'Get read-only replica',
    description: 'One read-only replica, with connection info.',
    input: z.strictObject({ id, name: replica }),
    annotations: annotations.read,
    request: { method: 'GET', path: `${cluster}/replicas/{name}` },
    result: returns<{ replica: DatabaseReplica }>(),
  }),
  defineTool({
    name: 'db-cluster-delete-replica',
    family: 'databases',
    beyondSpec: true,
    title: 'Delete read-only replica',
    description: 'Delete a read-only replica.',
    input: z.strictObject({ id, name: replica }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: `${cluster}/replicas/{name}` },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'db-cluster-promote-replica',
    family: 'databases',
    beyondSpec: true,
    title: 'Promote read-only replica',
    description: 'Make a replica its own writable cluster.',
    details:
      'Turns a read-only replica into a standalone, writable cluster of the same name; it stops replicating and cannot go back. It then appears in db-cluster-list.',
    input: z.strictObject({ id, name: replica }),
    annotations: annotations.action,
    request: { method: 'PUT', path: `${cluster}/replicas/{name}/promote` },
    result: returns<{ ok: true }>(),
  }),
] as const;

export const databasesTools = [
  ...clusterTools,
  ...migrationTools,
  ...firewallTools,
  ...kafkaTools,
  ...configToolPairs.flat(),
  ...sqlModeTools,
  ...userTools,
  ...logicalDbTools,
  ...poolTools,
  ...maintenanceTools,
  ...replicaTools,
] as const;
