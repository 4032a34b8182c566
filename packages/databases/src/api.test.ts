/**
 * The databases family as a library: each tool's API operation (checked against the API
 * description), the wire format of its requests (read by a recording HTTP server on loopback),
 * arguments refused before any request, the online-migration HTTP operation against the sandbox,
 * and the raw PUT.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import {
  type AnyTool,
  ApiClient,
  ClientApiError,
  InputError,
  parseArgs,
  type RequestOptions,
  runTool,
  UnexpectedResponseError,
} from '@cloudcall/core';
import { errorReport } from '@cloudcall/core/internal';
import { connectSandbox, type SandboxConnection } from '@cloudcall/sandbox';
import { PATH_HOSTILE } from '@cloudcall/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The description subset is a workspace tool; imported by path so the published package needs nothing.
import { noResponseBody, operation, validateRequest } from '../../../tooling/openapi/index.js';
import { databasesApi, databasesTools, startOnlineMigration } from './index.js';

interface Recorded {
  method: string;
  url: string;
  authorization: string | undefined;
  body: unknown;
}

/** A loopback server that records each request and answers a fixed JSON body. */
let recorder: Server;
let recorded: Recorded[] = [];
let recorderUrl = '';

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString();
  return text ? JSON.parse(text) : undefined;
}

let connection: SandboxConnection;
const CLUSTER = '9cc10173-e9ea-4176-9dbc-a4cee4c4ff30';
const RULE = 'ff2a6c52-5a44-4b63-b99c-0e98e7a63d61';
const MIGRATION = '77b28fc8-19ff-11eb-8c9c-c68e24557488';

beforeAll(async () => {
  recorder = createServer(async (req, res) => {
    recorded.push({
      method: req.method ?? '',
      url: req.url ?? '',
      authorization: req.headers.authorization,
      body: await body(req),
    });
    // The platform answers a config PATCH with 200 and no body.
    if (req.method === 'PATCH') {
      res.writeHead(200).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    // Config tools read the cluster first: answer as a cluster of every engine they may ask for.
    res.end(JSON.stringify({ database: { engine: 'mysql' }, user: { name: 'u' } }));
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  recorderUrl = `http://127.0.0.1:${(recorder.address() as { port: number }).port}`;
  connection = await connectSandbox();
});

afterAll(async () => {
  recorder.close();
  await connection.close();
});

function recordingApi() {
  recorded = [];
  const client = new ApiClient({ token: 'wire-token', baseUrl: recorderUrl, retry: { maxAttempts: 1 } });
  return { api: databasesApi(client), client };
}

/** One row per tool (and per request a tool may make): valid arguments and the API operation. */
const cases: [tool: string, args: Record<string, unknown>, operationId: string][] = [
  ['db-cluster-list', {}, 'databases_list_clusters'],
  ['db-cluster-get', { id: CLUSTER }, 'databases_get_cluster'],
  ['db-cluster-get-ca', { id: CLUSTER }, 'databases_get_ca'],
  [
    'db-cluster-create',
    { name: 'cache', engine: 'valkey', version: '8', region: 'nyc3', size: 'db-s-1vcpu-1gb', num_nodes: 1 },
    'databases_create_cluster',
  ],
  ['db-cluster-delete', { id: CLUSTER }, 'databases_destroy_cluster'],
  ['db-cluster-resize', { id: CLUSTER, num_nodes: 2 }, 'databases_update_clusterSize'],
  ['db-cluster-list-backups', { id: CLUSTER }, 'databases_list_backups'],
  ['db-cluster-list-options', {}, 'databases_list_options'],
  ['db-cluster-upgrade-major-version', { id: CLUSTER, version: '17' }, 'databases_update_major_version'],
  [
    'db-cluster-start-online-migration',
    { id: CLUSTER, source: { host: 'old.example.com', port: 6379 } },
    'databases_update_onlineMigration',
  ],
  [
    'db-cluster-stop-online-migration',
    { id: CLUSTER, migration_id: MIGRATION },
    'databases_delete_onlineMigration',
  ],
  ['db-cluster-get-migration', { id: CLUSTER }, 'databases_get_migrationStatus'],
  ['db-cluster-get-firewall-rules', { id: CLUSTER }, 'databases_list_firewall_rules'],
  [
    'db-cluster-update-firewall-rules',
    { id: CLUSTER, rules: [{ type: 'ip_addr', value: '192.0.2.1' }] },
    'databases_update_firewall_rules',
  ],
  ['db-cluster-list-topics', { id: CLUSTER }, 'databases_list_kafka_topics'],
  ['db-cluster-create-topic', { id: CLUSTER, name: 'orders.v1' }, 'databases_create_kafka_topic'],
  ['db-cluster-get-topic', { id: CLUSTER, name: 'orders.v1' }, 'databases_get_kafka_topic'],
  ['db-cluster-delete-topic', { id: CLUSTER, name: 'orders.v1' }, 'databases_delete_kafka_topic'],
  [
    'db-cluster-update-topic',
    { id: CLUSTER, name: 'orders.v1', partition_count: '3' },
    'databases_update_kafka_topic',
  ],
  ['db-cluster-get-kafka-config', { id: CLUSTER }, 'databases_get_config'],
  ['db-cluster-update-kafka-config', { id: CLUSTER, config: {} }, 'databases_patch_config'],
  ['db-cluster-get-mongodb-config', { id: CLUSTER }, 'databases_get_config'],
  ['db-cluster-update-mongodb-config', { id: CLUSTER, config: {} }, 'databases_patch_config'],
  ['db-cluster-get-mysql-config', { ID: CLUSTER }, 'databases_get_config'],
  ['db-cluster-update-mysql-config', { ID: CLUSTER, config_json: '{}' }, 'databases_patch_config'],
  ['db-cluster-get-opensearch-config', { id: CLUSTER }, 'databases_get_config'],
  ['db-cluster-update-os-config', { id: CLUSTER, config: {} }, 'databases_patch_config'],
  ['db-cluster-get-postgresql-config', { id: CLUSTER }, 'databases_get_config'],
  ['db-cluster-update-psql-config', { id: CLUSTER, config: {} }, 'databases_patch_config'],
  ['db-cluster-get-redis-config', { id: CLUSTER }, 'databases_get_config'],
  ['db-cluster-update-redis-config', { id: CLUSTER, config: {} }, 'databases_patch_config'],
  ['db-cluster-get-sql-mode', { id: CLUSTER }, 'databases_get_sql_mode'],
  ['db-cluster-set-sql-mode', { id: CLUSTER, modes: 'ANSI' }, 'databases_update_sql_mode'],
  ['db-cluster-list-users', { id: CLUSTER }, 'databases_list_users'],
  ['db-cluster-get-user', { id: CLUSTER, user: 'app-01' }, 'databases_get_user'],
  ['db-cluster-create-user', { id: CLUSTER, name: 'app-01' }, 'databases_add_user'],
  [
    'db-cluster-update-user',
    { id: CLUSTER, user: 'app-01', settings: { mongo_user_settings: { role: 'readOnly' } } },
    'databases_update_user',
  ],
  // Without settings there is nothing to change: the user is read instead.
  ['db-cluster-update-user', { id: CLUSTER, user: 'app-01' }, 'databases_get_user'],
  ['db-cluster-delete-user', { id: CLUSTER, user: 'app-01' }, 'databases_delete_user'],
  ['db-cluster-list-dbs', { id: CLUSTER }, 'databases_list'],
  ['db-cluster-create-db', { id: CLUSTER, name: 'app' }, 'databases_add'],
  ['db-cluster-get-db', { id: CLUSTER, name: 'app' }, 'databases_get'],
  ['db-cluster-delete-db', { id: CLUSTER, name: 'app' }, 'databases_delete'],
  ['db-cluster-list-pools', { id: CLUSTER }, 'databases_list_connectionPools'],
  [
    'db-cluster-create-pool',
    { id: CLUSTER, name: 'backend-pool', mode: 'transaction', size: 10, db: 'app' },
    'databases_add_connectionPool',
  ],
  ['db-cluster-get-pool', { id: CLUSTER, name: 'backend-pool' }, 'databases_get_connectionPool'],
  [
    'db-cluster-update-pool',
    { id: CLUSTER, name: 'backend-pool', mode: 'session', size: 5, db: 'app', user: 'app-01' },
    'databases_update_connectionPool',
  ],
  ['db-cluster-delete-pool', { id: CLUSTER, name: 'backend-pool' }, 'databases_delete_connectionPool'],
  ['db-cluster-get-eviction-policy', { id: CLUSTER }, 'databases_get_evictionPolicy'],
  [
    'db-cluster-set-eviction-policy',
    { id: CLUSTER, eviction_policy: 'allkeys_lru' },
    'databases_update_evictionPolicy',
  ],
  [
    'db-cluster-set-maintenance-window',
    { id: CLUSTER, day: 'sunday', hour: '14:00' },
    'databases_update_maintenanceWindow',
  ],
  ['db-cluster-migrate-region', { id: CLUSTER, region: 'lon1' }, 'databases_update_region'],
  ['db-cluster-list-replicas', { id: CLUSTER }, 'databases_list_replicas'],
  [
    'db-cluster-create-replica',
    { id: CLUSTER, name: 'read-nyc3-01', size: 'db-s-2vcpu-4gb' },
    'databases_create_replica',
  ],
  ['db-cluster-get-replica', { id: CLUSTER, name: 'read-nyc3-01' }, 'databases_get_replica'],
  ['db-cluster-delete-replica', { id: CLUSTER, name: 'read-nyc3-01' }, 'databases_destroy_replica'],
  ['db-cluster-promote-replica', { id: CLUSTER, name: 'read-nyc3-01' }, 'databases_promote_replica'],
];

const byName = new Map<string, AnyTool>(databasesTools.map((tool) => [tool.name, tool]));

/** The engine of the cluster each config tool is meant for (they check it first). */
const ENGINE: Record<string, string> = {
  kafka: 'kafka',
  mongodb: 'mongodb',
  mysql: 'mysql',
  opensearch: 'opensearch',
  os: 'opensearch',
  postgresql: 'pg',
  psql: 'pg',
  redis: 'valkey',
};

/** Runs a tool against a client that records each request's options instead of sending it. */
async function sentOptions(name: string, args: Record<string, unknown>): Promise<RequestOptions[]> {
  const requests: RequestOptions[] = [];
  const engine = ENGINE[/-(\w+)-config$/.exec(name)?.[1] ?? ''];
  const client = {
    request: async (options: RequestOptions) => {
      requests.push(options);
      return options.method === 'GET' ? { database: { engine } } : undefined;
    },
    // A call's own client (core gives a read-only tool one) records into the same list.
    forCall: () => client,
  } as unknown as ApiClient;
  await runTool(byName.get(name) as AnyTool, args, { client });
  return requests;
}

/**
 * Spec tools whose spec lets the caller send part of what the description's schema requires:
 * db-cluster-resize takes "at least one of size, num_nodes, storage_size_mib".
 */
const PARTIAL_BODY = new Set(['db-cluster-resize']);

const pathPattern = (template: string) => new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);

/** The six config update tools, each with its engine and a config it may send. */
const CONFIG_UPDATES = [
  ['db-cluster-update-kafka-config', 'kafka', { id: CLUSTER, config: { auto_create_topics_enable: true } }],
  ['db-cluster-update-mongodb-config', 'mongodb', { id: CLUSTER, config: { verbosity: 2 } }],
  ['db-cluster-update-mysql-config', 'mysql', { ID: CLUSTER, config_json: '{"wait_timeout":600}' }],
  ['db-cluster-update-os-config', 'opensearch', { id: CLUSTER, config: { ism_enabled: false } }],
  ['db-cluster-update-psql-config', 'pg', { id: CLUSTER, config: { jit: true } }],
  ['db-cluster-update-redis-config', 'valkey', { id: CLUSTER, config: { redis_timeout: 60 } }],
] as const;

describe('config updates when a success has another body than the platform gives', () => {
  /** A loopback API whose answers (each 200) are given per test: the cluster's, then the PATCH's. */
  let answers: { cluster: string; patch: string } = { cluster: '{}', patch: '{}' };
  let sent: string[] = [];
  let url = '';
  const server = createServer((req, res) => {
    sent.push(`${req.method} ${req.url}`);
    req.resume();
    const text = req.method === 'PATCH' ? answers.patch : answers.cluster;
    res.writeHead(200, text ? { 'content-type': 'application/json' } : {}).end(text);
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const run = (name: string, args: Record<string, unknown>) => {
    sent = [];
    const client = new ApiClient({ token: 'wire-token', baseUrl: url, retry: { maxAttempts: 1 } });
    return runTool(byName.get(name) as AnyTool, args, { client });
  };
  const applied = (args: Record<string, unknown>) =>
    'config_json' in args ? JSON.parse(String(args.config_json)) : args.config;

  it.each(CONFIG_UPDATES)(
    '%s: a PATCH answered 200 with {}, null or another body is applied',
    async (name, engine, args) => {
      for (const patch of ['', '{}', 'null', '{"message":"accepted"}', '{"config":null}']) {
        answers = { cluster: JSON.stringify({ database: { engine } }), patch };
        expect(await run(name, args), `PATCH answered ${JSON.stringify(patch)}`).toEqual({
          ok: true,
          applied: applied(args),
        });
        expect(sent).toEqual([`GET /v2/databases/${CLUSTER}`, `PATCH /v2/databases/${CLUSTER}/config`]);
      }
    },
  );

  it.each(CONFIG_UPDATES)(
    '%s: a cluster answered 200 with {} is refused by name, nothing changed',
    async (name, engine, args) => {
      for (const cluster of [
        '{}',
        'null',
        '{"database":{}}',
        '{"database":{"engine":7}}',
        '{"droplet":{}}',
      ]) {
        answers = { cluster, patch: '{}' };
        const error = await run(name, args).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error, `cluster answered ${cluster}`).toBeInstanceOf(UnexpectedResponseError);
        expect(errorReport(error)).toMatchObject({
          error_id: 'unexpected_response',
          status: 200,
          retryable: false,
        });
        expect((error as Error).message).toContain(
          `the API answered GET /v2/databases/${CLUSTER} without the cluster's engine (database.engine), so ${name} cannot tell whether it is a ${engine === 'valkey' ? 'valkey or redis' : engine} cluster; the config was not sent`,
        );
        // Nothing was sent to change the config.
        expect(sent).toEqual([`GET /v2/databases/${CLUSTER}`]);
      }
    },
  );

  it('the config reads refuse such a cluster the same way, naming themselves', async () => {
    answers = { cluster: '{}', patch: '{}' };
    await expect(run('db-cluster-get-kafka-config', { id: CLUSTER })).rejects.toThrow(
      `without the cluster's engine (database.engine), so db-cluster-get-kafka-config cannot tell whether it is a kafka cluster (HTTP 200`,
    );
  });
});

describe('every database tool calls its API operation', () => {
  it('covers all 56 tools', () => {
    expect(databasesTools).toHaveLength(56);
    expect(new Set(cases.map(([tool]) => tool))).toEqual(new Set(databasesTools.map((t) => t.name)));
  });

  it.each(cases)('%s -> %s', async (name, args, operationId) => {
    const requests = await sentOptions(name, args);
    // A config tool reads the cluster (its engine) first; its own request comes last.
    const request = requests.at(-1);
    const expected = operation(operationId);
    expect(request?.method).toBe(expected.method);
    expect(request?.path).toMatch(pathPattern(expected.path));
    if (expected.path.includes('{')) expect(request?.path).toContain(CLUSTER);
    // An empty success is "no content" only where the API description says the answer has no body.
    expect(Boolean(request?.noResponseBody), `${name}: noResponseBody`).toBe(noResponseBody(operationId));
    const tool = byName.get(name) as AnyTool;
    if (tool.request) expect(Boolean(tool.request.noResponseBody)).toBe(noResponseBody(operationId));
    // The body, when there is one, is what the operation's request schema accepts.
    if (request?.body !== undefined && !PARTIAL_BODY.has(name)) {
      expect(validateRequest(operationId, request.body), `${name}: request body`).toEqual({
        valid: true,
        errors: [],
      });
    }
  });
});

/** Path arguments of the tools whose handler makes the request(s). */
const HANDLER_PATH_ARGS: Record<string, string[]> = {
  'db-cluster-start-online-migration': ['id'],
  'db-cluster-update-user': ['id', 'user'],
  'db-cluster-get-mysql-config': ['ID'],
  'db-cluster-update-mysql-config': ['ID'],
};

describe('path arguments that would change the request path', () => {
  it('are refused for every tool, naming the argument, and no request leaves', async () => {
    const { client } = recordingApi();
    const problems: string[] = [];
    let tried = 0;
    for (const [name, args] of cases) {
      const tool = byName.get(name) as AnyTool;
      const pathArgs = tool.request
        ? (tool.request.path.match(/\{\w+\}/g) ?? []).map((p) => p.slice(1, -1))
        : (HANDLER_PATH_ARGS[name] ?? ['id']);
      for (const arg of pathArgs) {
        for (const value of PATH_HOSTILE) {
          tried++;
          const error = await runTool(tool, { ...args, [arg]: value }, { client }).catch((e: unknown) => e);
          if (!(error instanceof InputError && error.issues.some((i) => i.argument === arg))) {
            problems.push(`${name} ${arg}=${JSON.stringify(value)}: ${String(error)}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(tried).toBeGreaterThan(500);
    expect(recorded).toEqual([]);
  });

  it('startOnlineMigration refuses a clusterId that is not a UUID, naming it, before any request', async () => {
    const { client } = recordingApi();
    for (const clusterId of [...PATH_HOSTILE, 'not-a-uuid', `${CLUSTER}/..`]) {
      const error = await startOnlineMigration(client, clusterId, { source: { host: 'h', port: 1 } }).catch(
        (e: unknown) => e,
      );
      expect(error, JSON.stringify(clusterId)).toBeInstanceOf(InputError);
      expect((error as InputError).argument).toBe('clusterId');
    }
    expect(recorded).toEqual([]);
    await startOnlineMigration(client, CLUSTER, { source: { host: 'h', port: 1 } });
    expect(recorded.map((r) => [r.method, r.url])).toEqual([
      ['PUT', `/v2/databases/${CLUSTER}/online-migration`],
    ]);
  });
});

describe('names have the shape the platform and the engines allow', () => {
  /** The arguments a tool refuses in `args` (none: they are valid). */
  const issues = (name: string, args: Record<string, unknown>) => {
    try {
      parseArgs(byName.get(name) as AnyTool, args);
      return [];
    } catch (error) {
      return (error as InputError).issues.map((i) => i.argument);
    }
  };

  it('Kafka topic names: letters, digits, ".", "_" and "-", at most 249, never "." or ".."', () => {
    for (const topic of ['orders', 'orders.v1', '_internal', 'a-b_c.d', '...', 'x'.repeat(249)]) {
      expect(issues('db-cluster-create-topic', { id: CLUSTER, name: topic }), topic).toEqual([]);
    }
    for (const topic of ['.', '..', 'a b', 'a/b', 'a:b', 'x'.repeat(250), 'ü']) {
      expect(issues('db-cluster-create-topic', { id: CLUSTER, name: topic }), topic).toEqual(['name']);
      expect(issues('db-cluster-get-topic', { id: CLUSTER, name: topic }), topic).toEqual(['name']);
    }
  });

  it('user names: letters, digits, "_", "." and "-", not starting with "." or "-", at most 63', () => {
    for (const user of ['doadmin', 'app-01', '_svc', 'a.b', 'x'.repeat(63)]) {
      expect(issues('db-cluster-delete-user', { id: CLUSTER, user }), user).toEqual([]);
    }
    for (const user of ['.', '..', '.hidden', '-x', 'a/b', 'a b', 'a@b', 'x'.repeat(64)]) {
      expect(issues('db-cluster-delete-user', { id: CLUSTER, user }), user).toEqual(['user']);
      expect(issues('db-cluster-create-user', { id: CLUSTER, name: user }), user).toEqual(['name']);
    }
  });

  it('an online-migration source needs only what the platform requires; what is given is checked', () => {
    const start = (source: unknown) => issues('db-cluster-start-online-migration', { id: CLUSTER, source });
    expect(start({ host: 'old.example.com' })).toEqual([]);
    expect(start({ host: 'old.example.com', port: 5432, dbname: 'app' })).toEqual([]);
    expect(start(undefined)).toEqual(['source']);
    for (const port of [0, 65_536, 1.5, '5432']) {
      expect(start({ host: 'old.example.com', port }), String(port)).toEqual(['source.port']);
    }
    expect(start({ host: 'old.example.com', dbname: 7 })).toEqual(['source.dbname']);
    expect(start({ host: 'old.example.com', prot: 5432 })).toEqual(['source.prot']);
  });

  it('migration ids, firewall rule uuids and cluster ids', () => {
    expect(issues('db-cluster-stop-online-migration', { id: CLUSTER, migration_id: 'm_1-a' })).toEqual([]);
    for (const migration_id of ['.x', 'a.b', 'a/b', 'x'.repeat(65)]) {
      expect(issues('db-cluster-stop-online-migration', { id: CLUSTER, migration_id })).toEqual([
        'migration_id',
      ]);
    }
    expect(
      issues('db-cluster-update-firewall-rules', {
        id: CLUSTER,
        rules: [{ type: 'tag', value: 'web', uuid: 'u-1', cluster_uuid: 'c-1' }],
      }),
    ).toEqual(['rules.0.uuid', 'rules.0.cluster_uuid']);
    expect(issues('db-cluster-get', { id: 'prod-db' })).toEqual(['id']);
  });

  it('config keys the spec does not name pass through, with bounded values', () => {
    const update = (config: Record<string, unknown>) =>
      issues('db-cluster-update-kafka-config', { id: CLUSTER, config });
    expect(update({ log_cleanup_policy: 'compact', transaction_state_log_segment_bytes: 104857600 })).toEqual(
      [],
    );
    expect(update({ some_key: 'x'.repeat(1025) })).toEqual(['config.some_key']);
    expect(update({ some_key: { nested: true } })).toEqual(['config.some_key']);
  });
});

describe('wire format (API-MAP pitfalls)', () => {
  it('firewall rules: only type/value/uuid/cluster_uuid, vm as droplet', async () => {
    const { api } = recordingApi();
    await api.dbClusterUpdateFirewallRules({
      id: CLUSTER,
      rules: [
        { type: 'vm', value: '42' },
        { type: 'ip_addr', value: '192.0.2.1', uuid: RULE, created_at: '2024-01-01T00:00:00Z' },
      ],
    });
    expect(recorded).toEqual([
      {
        method: 'PUT',
        url: `/v2/databases/${CLUSTER}/firewall`,
        authorization: 'Bearer wire-token',
        body: {
          rules: [
            { type: 'droplet', value: '42' },
            { type: 'ip_addr', value: '192.0.2.1', uuid: RULE },
          ],
        },
      },
    ]);
  });

  it('lists pass page and per_page whatever JSON type the caller used', async () => {
    const { api } = recordingApi();
    await api.dbClusterList({ page: 2, per_page: '5' });
    await api.dbClusterListBackups({ id: CLUSTER, page: '3' });
    await api.dbClusterListUsers({ id: CLUSTER, per_page: 7 });
    await api.dbClusterListTopics({
      id: CLUSTER,
      page: '1',
      per_page: 4,
      with_projects: 'true',
      usecases: 'a,b',
    });
    await api.dbClusterList({});
    expect(recorded.map((r) => r.url)).toEqual([
      '/v2/databases?page=2&per_page=5',
      `/v2/databases/${CLUSTER}/backups?page=3`,
      `/v2/databases/${CLUSTER}/users?per_page=7`,
      `/v2/databases/${CLUSTER}/topics?page=1&per_page=4&with_projects=true&usecases=a%2Cb`,
      '/v2/databases',
    ]);
  });

  it('resize with nothing to change is an input error and sends nothing', async () => {
    const { api } = recordingApi();
    await expect(api.dbClusterResize({ id: CLUSTER })).rejects.toThrow(InputError);
    await expect(api.dbClusterResize({ id: CLUSTER })).rejects.toThrow(
      /at least one of size, num_nodes, storage_size_mib/,
    );
    expect(recorded).toEqual([]);
    await api.dbClusterResize({ id: CLUSTER, num_nodes: 2 });
    expect(recorded[0]).toMatchObject({ method: 'PUT', body: { num_nodes: 2 } });
  });

  it('MySQL config_json is parsed into config; invalid JSON is an input error with no request', async () => {
    const { api } = recordingApi();
    await expect(api.dbClusterUpdateMysqlConfig({ ID: CLUSTER, config_json: '{nope' })).rejects.toThrow(
      /argument config_json: is not valid JSON/,
    );
    await expect(api.dbClusterUpdateMysqlConfig({ ID: CLUSTER, config_json: '[1]' })).rejects.toThrow(
      /JSON object/,
    );
    expect(recorded).toEqual([]);
    // An empty 200 to the PATCH is what the platform answers: no content, not an error.
    expect(
      await api.dbClusterUpdateMysqlConfig({ ID: CLUSTER, config_json: '{"wait_timeout":600}' }),
    ).toEqual({ ok: true, applied: { wait_timeout: 600 } });
    expect(recorded.map((r) => [r.method, r.url, r.body])).toEqual([
      ['GET', `/v2/databases/${CLUSTER}`, undefined],
      ['PATCH', `/v2/databases/${CLUSTER}/config`, { config: { wait_timeout: 600 } }],
    ]);
  });

  it('update-user without settings sends no empty body; create-user maps mysql_auth_plugin', async () => {
    const { api } = recordingApi();
    await api.dbClusterUpdateUser({ id: CLUSTER, user: 'app' });
    await api.dbClusterCreateUser({ id: CLUSTER, name: 'app', mysql_auth_plugin: 'mysql_native_password' });
    expect(recorded.map((r) => [r.method, r.body])).toEqual([
      ['GET', undefined],
      ['POST', { name: 'app', mysql_settings: { auth_plugin: 'mysql_native_password' } }],
    ]);
  });

  it('create: tags comma-separated in, an array out; unset options never sent', async () => {
    const { api } = recordingApi();
    await api.dbClusterCreate({
      name: 'cache',
      engine: 'valkey',
      version: '8',
      region: 'nyc3',
      size: 'db-s-1vcpu-1gb',
      num_nodes: 1,
      tags: 'a, b,,c',
    });
    await api.dbClusterStartOnlineMigration({
      id: CLUSTER,
      source: { host: 'h', port: 1 },
      ignore_dbs: 'x, y',
    });
    await api.dbClusterSetSqlMode({ id: CLUSTER, modes: 'ANSI, TRADITIONAL' });
    expect(recorded.map((r) => r.body)).toEqual([
      {
        name: 'cache',
        engine: 'valkey',
        version: '8',
        region: 'nyc3',
        size: 'db-s-1vcpu-1gb',
        num_nodes: 1,
        tags: ['a', 'b', 'c'],
      },
      { source: { host: 'h', port: 1 }, ignore_dbs: ['x', 'y'] },
      { sql_mode: 'ANSI,TRADITIONAL' },
    ]);
  });
});

describe('the online-migration HTTP operation', () => {
  it('startOnlineMigration PUTs with the bearer token (the sandbox refuses an unreachable source)', async () => {
    const { database } = await databasesApi(connection.client).dbClusterCreate({
      name: 'target',
      engine: 'pg',
      version: '16',
      region: 'nyc3',
      size: 'db-s-1vcpu-1gb',
      num_nodes: 1,
    });
    await connection.sandbox.advanceClock(3_000);
    // A port nothing listens on: bind one, note it, release it.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const error = await startOnlineMigration(connection.client, database.id, {
      source: { host: '127.0.0.1', port },
      disable_ssl: true,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientApiError);
    expect((error as ClientApiError).status).toBe(422);
    expect((error as ClientApiError).apiMessage).toMatch(/could not connect to the source/);

    // No port: the sandbox tries the engine's usual one (PostgreSQL's 5432). Nothing is started
    // when nothing listens there; a PostgreSQL on this machine would be a valid source.
    const portless = await startOnlineMigration(connection.client, database.id, {
      source: { host: '127.0.0.1' },
      disable_ssl: true,
    }).catch((e: unknown) => e);
    if (portless instanceof ClientApiError) {
      expect(portless.apiMessage).toMatch(/could not connect to the source at 127\.0\.0\.1:5432/);
    } else {
      expect(portless).toMatchObject({ status: 'running' });
      const { id } = portless as { id: string };
      await databasesApi(connection.client).dbClusterStopOnlineMigration({
        id: database.id,
        migration_id: id,
      });
    }

    // Reachable: the sandbox's own port stands in for a PostgreSQL source (TCP reachability only).
    const sandboxPort = connection.sandbox.port;
    const started = await startOnlineMigration(connection.client, database.id, {
      source: { host: '127.0.0.1', port: sandboxPort, dbname: 'app' },
      disable_ssl: true,
    });
    expect(started).toMatchObject({ id: expect.any(String), status: 'running' });

    // The raw PUT, as any HTTP client sends it.
    const url = `${connection.sandbox.url}/v2/databases/${database.id}/online-migration`;
    const put = (headers: Record<string, string>, json: unknown) =>
      fetch(url, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(json),
      });
    const unauthenticated = await put({}, { source: { host: '127.0.0.1', port: sandboxPort } });
    expect(unauthenticated.status).toBe(401);
    const bearer = { authorization: `Bearer ${randomUUID()}` };
    const noSource = await put(bearer, { disable_ssl: true });
    expect(noSource.status).toBe(422);
    expect(await noSource.json()).toMatchObject({
      id: 'unprocessable_entity',
      message: expect.stringMatching(/source is required/),
    });
    await databasesApi(connection.client).dbClusterStopOnlineMigration({
      id: database.id,
      migration_id: started.id,
    });
    const ok = await put(bearer, {
      source: { host: '127.0.0.1', port: sandboxPort },
      disable_ssl: true,
      ignore_dbs: [],
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ status: 'running', id: expect.any(String) });
  });
});

describe('logical databases and connection pools', () => {
  it('pool tools send only the wire fields; the pool name is 3 to 60 characters', async () => {
    const { api } = recordingApi();
    await api.dbClusterCreatePool({
      id: CLUSTER,
      name: 'backend-pool',
      mode: 'transaction',
      size: 10,
      db: 'app',
    });
    await api.dbClusterUpdatePool({
      id: CLUSTER,
      name: 'backend-pool',
      mode: 'session',
      size: 5,
      db: 'app',
      user: 'u1',
    });
    await api.dbClusterCreateDb({ id: CLUSTER, name: 'app' });
    expect(recorded.map((r) => [r.method, r.url, r.body])).toEqual([
      [
        'POST',
        `/v2/databases/${CLUSTER}/pools`,
        { name: 'backend-pool', mode: 'transaction', size: 10, db: 'app' },
      ],
      [
        'PUT',
        `/v2/databases/${CLUSTER}/pools/backend-pool`,
        { mode: 'session', size: 5, db: 'app', user: 'u1' },
      ],
      ['POST', `/v2/databases/${CLUSTER}/dbs`, { name: 'app' }],
    ]);
    recorded = [];
    for (const name of ['ab', 'x'.repeat(61), 'a/b']) {
      await expect(api.dbClusterGetPool({ id: CLUSTER, name })).rejects.toThrow(/argument name/);
    }
    await expect(
      api.dbClusterCreatePool({ id: CLUSTER, name: 'pool', mode: 'lazy' as 'session', size: 1, db: 'app' }),
    ).rejects.toThrow(/argument mode/);
    expect(recorded).toEqual([]);
  });

  it('against the sandbox: a database joins db_names, a pool on it answers with connection details', async () => {
    const api = databasesApi(connection.client);
    const { database } = await api.dbClusterCreate({
      name: 'pooled',
      engine: 'pg',
      version: '16',
      region: 'nyc3',
      size: 'db-s-1vcpu-1gb',
      num_nodes: 1,
    });
    await api.dbClusterCreateDb({ id: database.id, name: 'app' });
    expect((await api.dbClusterListDbs({ id: database.id })).dbs.map((d) => d.name)).toEqual([
      'defaultdb',
      'app',
    ]);
    expect((await api.dbClusterGet({ id: database.id })).database.db_names).toEqual(['defaultdb', 'app']);
    const { pool } = await api.dbClusterCreatePool({
      id: database.id,
      name: 'backend-pool',
      mode: 'transaction',
      size: 10,
      db: 'app',
    });
    expect(pool.connection).toMatchObject({ database: 'backend-pool', password: expect.any(String) });
    expect(
      await api.dbClusterUpdatePool({
        id: database.id,
        name: 'backend-pool',
        mode: 'session',
        size: 4,
        db: 'app',
      }),
    ).toEqual({
      ok: true,
    });
    expect((await api.dbClusterGetPool({ id: database.id, name: 'backend-pool' })).pool).toMatchObject({
      mode: 'session',
      size: 4,
    });
    expect(await api.dbClusterDeletePool({ id: database.id, name: 'backend-pool' })).toEqual({ ok: true });
    expect(await api.dbClusterDeleteDb({ id: database.id, name: 'app' })).toEqual({ ok: true });
    expect((await api.dbClusterListPools({ id: database.id })).pools).toEqual([]);
    expect((await api.dbClusterListDbs({ id: database.id })).dbs).toEqual([{ name: 'defaultdb' }]);

    const { database: cache } = await api.dbClusterCreate({
      name: 'cache-pools',
      engine: 'valkey',
      version: '8',
      region: 'nyc3',
      size: 'db-s-1vcpu-1gb',
      num_nodes: 1,
    });
    const refused = await api.dbClusterListPools({ id: cache.id }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ClientApiError);
    expect((refused as ClientApiError).status).toBe(422);
    expect((refused as ClientApiError).apiMessage).toMatch(/Connection pooling is not supported for Valkey/);
  });
});

describe('eviction policy and maintenance window', () => {
  it('send the wire fields; a bad day, hour or policy is refused naming it, before any request', async () => {
    const { api } = recordingApi();
    await api.dbClusterSetEvictionPolicy({ id: CLUSTER, eviction_policy: 'volatile_ttl' });
    await api.dbClusterSetMaintenanceWindow({ id: CLUSTER, day: 'sunday', hour: '23:30' });
    expect(recorded.map((r) => [r.method, r.url, r.body])).toEqual([
      ['PUT', `/v2/databases/${CLUSTER}/eviction_policy`, { eviction_policy: 'volatile_ttl' }],
      ['PUT', `/v2/databases/${CLUSTER}/maintenance`, { day: 'sunday', hour: '23:30' }],
    ]);
    recorded = [];
    for (const hour of ['24:00', '9:00', '14', '14:60', '14:00 ']) {
      await expect(api.dbClusterSetMaintenanceWindow({ id: CLUSTER, day: 'monday', hour })).rejects.toThrow(
        /argument hour/,
      );
    }
    await expect(
      api.dbClusterSetMaintenanceWindow({ id: CLUSTER, day: 'someday' as 'monday', hour: '14:00' }),
    ).rejects.toThrow(/argument day/);
    await expect(
      api.dbClusterSetEvictionPolicy({ id: CLUSTER, eviction_policy: 'lru' as 'noeviction' }),
    ).rejects.toThrow(/argument eviction_policy/);
    expect(recorded).toEqual([]);
  });

  it('against the sandbox: the policy is kept (Valkey only), the window shows on the cluster', async () => {
    const api = databasesApi(connection.client);
    const { database } = await api.dbClusterCreate({
      name: 'evicting',
      engine: 'valkey',
      version: '8',
      region: 'nyc3',
      size: 'db-s-1vcpu-1gb',
      num_nodes: 1,
    });
    expect(await api.dbClusterGetEvictionPolicy({ id: database.id })).toEqual({
      eviction_policy: 'noeviction',
    });
    expect(await api.dbClusterSetEvictionPolicy({ id: database.id, eviction_policy: 'allkeys_lru' })).toEqual(
      {
        ok: true,
      },
    );
    expect(await api.dbClusterGetEvictionPolicy({ id: database.id })).toEqual({
      eviction_policy: 'allkeys_lru',
    });
    expect(
      await api.dbClusterSetMaintenanceWindow({ id: database.id, day: 'sunday', hour: '14:00' }),
    ).toEqual({
      ok: true,
    });
    expect((await api.dbClusterGet({ id: database.id })).database).toMatchObject({
      maintenance_window: { day: 'sunday', hour: '14:00:00' },
    });
    const { database: pg } = await api.dbClusterCreate({
      name: 'no-eviction',
      engine: 'pg',
      version: '16',
      region: 'nyc3',
      size: 'db-s-1vcpu-1gb',
      num_nodes: 1,
    });
    const refused = await api.dbClusterGetEvictionPolicy({ id: pg.id }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ClientApiError);
    expect((refused as ClientApiError).status).toBe(422);
    expect((refused as ClientApiError).apiMessage).toMatch(/Eviction policy is not supported for PostgreSQL/);
  });
});

describe('read-only replicas', () => {
  it('create sends tags as an array and leaves unset options out', async () => {
    const { api } = recordingApi();
    await api.dbClusterCreateReplica({ id: CLUSTER, name: 'read-1', size: 'db-s-2vcpu-4gb', tags: 'a, b' });
    await api.dbClusterCreateReplica({ id: CLUSTER, name: 'read-2', size: 'db-s-2vcpu-4gb', region: 'lon1' });
    expect(recorded.map((r) => r.body)).toEqual([
      { name: 'read-1', size: 'db-s-2vcpu-4gb', tags: ['a', 'b'] },
      { name: 'read-2', size: 'db-s-2vcpu-4gb', region: 'lon1' },
    ]);
  });

  it('against the sandbox: created with its own connection, promoted into a cluster of its own', async () => {
    const api = databasesApi(connection.client);
    const { database } = await api.dbClusterCreate({
      name: 'primary-db',
      engine: 'mysql',
      version: '8',
      region: 'nyc3',
      size: 'db-s-1vcpu-2gb',
      num_nodes: 1,
    });
    const small = await api
      .dbClusterCreateReplica({ id: database.id, name: 'read-small', size: 'db-s-1vcpu-1gb' })
      .catch((e: unknown) => e);
    expect((small as ClientApiError).apiMessage).toMatch(/smaller than the cluster/);
    const { replica } = await api.dbClusterCreateReplica({
      id: database.id,
      name: 'read-lon',
      size: 'db-s-2vcpu-4gb',
      region: 'lon1',
    });
    expect(replica).toMatchObject({ name: 'read-lon', region: 'lon1', status: 'creating' });
    expect(replica.connection?.host).not.toBe(database.connection.host);
    expect((await api.dbClusterListReplicas({ id: database.id })).replicas.map((r) => r.name)).toEqual([
      'read-lon',
    ]);
    const early = await api
      .dbClusterPromoteReplica({ id: database.id, name: 'read-lon' })
      .catch((e: unknown) => e);
    expect((early as ClientApiError).apiMessage).toMatch(/still creating/);
    await connection.sandbox.advanceClock(3_000);
    expect((await api.dbClusterGetReplica({ id: database.id, name: 'read-lon' })).replica.status).toBe(
      'online',
    );
    expect(await api.dbClusterPromoteReplica({ id: database.id, name: 'read-lon' })).toEqual({ ok: true });
    expect((await api.dbClusterListReplicas({ id: database.id })).replicas).toEqual([]);
    const promoted = await api.dbClusterGet({ id: replica.id });
    expect(promoted.database).toMatchObject({
      name: 'read-lon',
      engine: 'mysql',
      region: 'lon1',
      status: 'online',
    });

    await api.dbClusterCreateReplica({ id: database.id, name: 'read-gone', size: 'db-s-1vcpu-2gb' });
    expect(await api.dbClusterDeleteReplica({ id: database.id, name: 'read-gone' })).toEqual({ ok: true });
    const gone = await api
      .dbClusterGetReplica({ id: database.id, name: 'read-gone' })
      .catch((e: unknown) => e);
    expect((gone as ClientApiError).status).toBe(404);
  });
});
