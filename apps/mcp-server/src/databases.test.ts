import type { Sandbox } from '@cloudcall/sandbox';
import { afterEveryTest, freePort, startRedisServer } from '@cloudcall/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LISTING } from './listing.generated.js';
import { call as callTool } from './testing/client.js';
import { inProcessServer } from './testing/in-process.js';

let client: Client;
let close: () => Promise<void>;
let clock: Sandbox;
let redis: { port: number; stop: () => Promise<void> };
/** Each test's own sandbox (state in memory), with the six clusters made before it: a test sees only those and what it made. */
const called = new Set<string>();

// biome-ignore lint/suspicious/noExplicitAny: results are checked field by field.
type Json = any;

async function call(name: string, args: Record<string, unknown> = {}) {
  called.add(name);
  const result = await callTool(client, name, args);
  return result as { isError: boolean; text: string; json: Json };
}

async function ok(name: string, args: Record<string, unknown> = {}): Promise<Json> {
  const result = await call(name, args);
  expect(result.isError, `${name}: ${result.text}`).toBe(false);
  return result.json;
}

async function createCluster(engine: string, version: string, extra: Record<string, unknown> = {}) {
  const { database } = await ok('db-cluster-create', {
    name: `${engine}-mcp`,
    engine,
    version,
    region: 'nyc3',
    size: 'db-s-1vcpu-1gb',
    num_nodes: engine === 'kafka' ? 3 : 1,
    ...extra,
  });
  expect(database).toMatchObject({ engine, version, status: 'creating' });
  return database.id as string;
}

const ids: Record<string, string> = {};

beforeEach(async () => {
  let sandbox: Sandbox | undefined;
  ({ client, close, sandbox } = await inProcessServer({ families: 'databases' }));
  clock = sandbox as Sandbox;
  ids.valkey = await createCluster('valkey', '8', { tags: 'cache, prod' });
  for (const [engine, version] of [
    ['pg', '16'],
    ['mysql', '8'],
    ['mongodb', '7.0'],
    ['kafka', '3.8'],
    ['opensearch', '2'],
  ] as const) {
    ids[engine] = await createCluster(engine, version);
  }
  await clock.advanceClock(3_000);
}, 30_000);

afterEach(async () => {
  await close?.();
});
afterAll(async () => {
  await redis?.stop();
});

describe('the databases family over MCP stdio', () => {
  it('lists the 56 tools, destructive ones marked', async () => {
    const { tools } = await client.listTools();
    expect(tools.filter((t) => t.name.startsWith('db-cluster-'))).toHaveLength(56);
    const destructive = tools.filter((t) => t.annotations?.destructiveHint).map((t) => t.name);
    expect(destructive.sort()).toEqual(
      [
        'db-cluster-delete',
        'db-cluster-delete-db',
        'db-cluster-delete-pool',
        'db-cluster-delete-replica',
        'db-cluster-delete-topic',
        'db-cluster-delete-user',
        'db-cluster-resize',
        'db-cluster-stop-online-migration',
        'db-cluster-update-firewall-rules',
        'db-cluster-upgrade-major-version',
      ].sort(),
    );
    const mysql = tools.find((t) => t.name === 'db-cluster-update-mysql-config');
    expect(mysql?.inputSchema.required?.sort()).toEqual(['ID', 'config_json']);
  });

  it('clusters: list, get, CA, options, backups, resize, upgrade, delete', async () => {
    const list = await ok('db-cluster-list', { page: '1', per_page: 2 });
    expect(list.databases).toHaveLength(2);
    expect(list.meta.total).toBe(6);
    expect((await ok('db-cluster-list', { page: 3, per_page: '2' })).databases).toHaveLength(2);

    const { database } = await ok('db-cluster-get', { id: ids.valkey });
    expect(database).toMatchObject({ status: 'online', tags: ['cache', 'prod'] });
    expect(database.connection).toMatchObject({ port: 25061, user: 'default', password: expect.any(String) });
    expect(database.connection.uri).toMatch(/^rediss:\/\/default:/);

    expect((await ok('db-cluster-get-ca', { id: ids.valkey })).ca.certificate).toEqual(expect.any(String));
    expect((await ok('db-cluster-list-options')).options.kafka.versions).toContain('3.8');

    const none = await call('db-cluster-resize', { id: ids.pg });
    expect(none.isError).toBe(true);
    expect(none.text).toMatch(/at least one of size, num_nodes, storage_size_mib/);
    expect((await ok('db-cluster-get', { id: ids.pg })).database.size).toBe('db-s-1vcpu-1gb');
    await ok('db-cluster-resize', { id: ids.pg, size: 'db-s-2vcpu-4gb' });
    expect((await ok('db-cluster-get', { id: ids.pg })).database).toMatchObject({
      size: 'db-s-2vcpu-4gb',
      status: 'resizing',
    });
    await clock.advanceClock(86_400_000 + 3_000);
    const backups = await ok('db-cluster-list-backups', { id: ids.pg, page: '1', per_page: 5 });
    expect(backups.backups.length).toBeGreaterThan(0);
    await ok('db-cluster-upgrade-major-version', { id: ids.pg, version: '17' });
    expect((await ok('db-cluster-get', { id: ids.pg })).database.version).toBe('17');

    const doomed = await createCluster('pg', '15', { name: 'doomed' });
    expect(await ok('db-cluster-delete', { id: doomed })).toEqual({ ok: true });
    const gone = await call('db-cluster-get', { id: doomed });
    expect(gone.isError).toBe(true);
    expect(gone.text).toMatch(/404/);
  });

  it('online migration from a real redis-server: start, status, stop', async () => {
    redis = await startRedisServer();
    const unreachable = await call('db-cluster-start-online-migration', {
      id: ids.valkey,
      source: { host: '127.0.0.1', port: await freePort() },
      disable_ssl: true,
    });
    expect(unreachable.isError).toBe(true);
    expect(unreachable.text).toMatch(/could not connect to the source at 127\.0\.0\.1:\d+/);
    expect((await call('db-cluster-get-migration', { id: ids.valkey })).isError).toBe(true);

    const started = await ok('db-cluster-start-online-migration', {
      id: ids.valkey,
      source: { host: '127.0.0.1', port: redis.port, dbname: '0', password: 'not-needed-secret' },
      disable_ssl: true,
      ignore_dbs: 'db1, db2',
    });
    expect(started).toMatchObject({ id: expect.any(String), status: 'running' });
    expect(JSON.stringify(started)).not.toMatch(/not-needed-secret/);
    expect(await ok('db-cluster-get-migration', { id: ids.valkey })).toEqual(started);
    await ok('db-cluster-stop-online-migration', { id: ids.valkey, migration_id: started.id });
    expect((await ok('db-cluster-get-migration', { id: ids.valkey })).status).toBe('canceled');
  });

  it('trusted sources: vm rules go out as droplet, the list is replaced', async () => {
    await ok('db-cluster-update-firewall-rules', {
      id: ids.valkey,
      rules: [
        { type: 'ip_addr', value: '203.0.113.7' },
        { type: 'vm', value: '480000001' },
      ],
    });
    const { rules } = await ok('db-cluster-get-firewall-rules', { id: ids.valkey });
    expect(rules.map((r: Json) => [r.type, r.value])).toEqual([
      ['ip_addr', '203.0.113.7'],
      ['droplet', '480000001'],
    ]);
    await ok('db-cluster-update-firewall-rules', { id: ids.valkey, rules: [rules[1]] });
    expect((await ok('db-cluster-get-firewall-rules', { id: ids.valkey })).rules).toEqual([rules[1]]);
  });

  it('Kafka: topics and cluster config', async () => {
    const created = await ok('db-cluster-create-topic', {
      id: ids.kafka,
      name: 'events',
      partition_count: '3',
      replication_factor: '2',
      config: { retention_ms: 86_400_000 },
    });
    expect(created.topic).toMatchObject({ name: 'events', replication_factor: 2 });
    const listed = await ok('db-cluster-list-topics', {
      id: ids.kafka,
      page: '1',
      per_page: 10,
      only_deployed: 'true',
    });
    expect(listed.topics.map((t: Json) => t.name)).toEqual(['events']);
    const updated = await ok('db-cluster-update-topic', {
      id: ids.kafka,
      name: 'events',
      partition_count: '6',
    });
    expect(updated.topic.partitions).toHaveLength(6);
    expect(
      (await ok('db-cluster-get-topic', { id: ids.kafka, name: 'events' })).topic.config.retention_ms,
    ).toBe(86_400_000);
    await ok('db-cluster-delete-topic', { id: ids.kafka, name: 'events' });
    expect((await call('db-cluster-get-topic', { id: ids.kafka, name: 'events' })).isError).toBe(true);

    const wrong = await call('db-cluster-create-topic', { id: ids.pg, name: 'x' });
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toMatch(/kafka/);

    await ok('db-cluster-update-kafka-config', {
      id: ids.kafka,
      config: { auto_create_topics_enable: true },
    });
    expect(
      (await ok('db-cluster-get-kafka-config', { id: ids.kafka })).config.auto_create_topics_enable,
    ).toBe(true);
  });

  it('engine configs: MongoDB, MySQL (config_json), SQL mode, OpenSearch, PostgreSQL, Redis', async () => {
    const nine = await call('db-cluster-update-mongodb-config', {
      id: ids.mongodb,
      config: { verbosity: 9 },
    });
    expect(nine.isError).toBe(true);
    expect(nine.text).toMatch(/verbosity/);
    await ok('db-cluster-update-mongodb-config', { id: ids.mongodb, config: { verbosity: 2 } });
    expect((await ok('db-cluster-get-mongodb-config', { id: ids.mongodb })).config).toMatchObject({
      verbosity: 2,
      default_read_concern: 'local',
    });
    const wrongEngine = await call('db-cluster-get-mongodb-config', { id: ids.pg });
    expect(wrongEngine.isError).toBe(true);
    expect(wrongEngine.text).toMatch(/is a pg cluster/);

    const invalid = await call('db-cluster-update-mysql-config', {
      ID: ids.mysql,
      config_json: '{"wait_timeout": ',
    });
    expect(invalid.isError).toBe(true);
    expect(invalid.text).toMatch(/config_json.*not valid JSON/);
    await ok('db-cluster-update-mysql-config', { ID: ids.mysql, config_json: '{"wait_timeout": 600}' });
    expect((await ok('db-cluster-get-mysql-config', { ID: ids.mysql })).config.wait_timeout).toBe(600);
    await ok('db-cluster-set-sql-mode', { id: ids.mysql, modes: 'ANSI, STRICT_ALL_TABLES' });
    expect((await ok('db-cluster-get-sql-mode', { id: ids.mysql })).sql_mode).toBe('ANSI,STRICT_ALL_TABLES');

    await ok('db-cluster-update-os-config', { id: ids.opensearch, config: { ism_enabled: false } });
    expect((await ok('db-cluster-get-opensearch-config', { id: ids.opensearch })).config.ism_enabled).toBe(
      false,
    );
    await ok('db-cluster-update-psql-config', { id: ids.pg, config: { jit: true, timezone: 'UTC' } });
    expect((await ok('db-cluster-get-postgresql-config', { id: ids.pg })).config).toMatchObject({
      jit: true,
      timezone: 'UTC',
    });
    await ok('db-cluster-update-redis-config', { id: ids.valkey, config: { redis_timeout: 60 } });
    expect((await ok('db-cluster-get-redis-config', { id: ids.valkey })).config.redis_timeout).toBe(60);
  });

  it('users: create, list, get, update settings, delete', async () => {
    const { user } = await ok('db-cluster-create-user', {
      id: ids.kafka,
      name: 'producer',
      settings: { acl: [{ topic: 'events', permission: 'produce' }] },
    });
    expect(user).toMatchObject({ name: 'producer', role: 'normal', password: expect.any(String) });
    const native = await ok('db-cluster-create-user', {
      id: ids.mysql,
      name: 'legacy',
      mysql_auth_plugin: 'mysql_native_password',
    });
    expect(native.user.mysql_settings).toEqual({ auth_plugin: 'mysql_native_password' });
    const listed = await ok('db-cluster-list-users', { id: ids.kafka, page: '1', per_page: 10 });
    expect(listed.users.map((u: Json) => u.name)).toEqual(['doadmin', 'producer']);
    const same = await ok('db-cluster-update-user', { id: ids.kafka, user: 'producer' });
    expect(same.user.settings.acl[0].permission).toBe('produce');
    const updated = await ok('db-cluster-update-user', {
      id: ids.kafka,
      user: 'producer',
      settings: { acl: [{ topic: 'events', permission: 'produceconsume' }] },
    });
    expect(updated.user.settings.acl[0].permission).toBe('produceconsume');
    expect((await ok('db-cluster-get-user', { id: ids.kafka, user: 'producer' })).user.name).toBe('producer');
    await ok('db-cluster-delete-user', { id: ids.kafka, user: 'producer' });
    expect((await call('db-cluster-get-user', { id: ids.kafka, user: 'producer' })).isError).toBe(true);
  });

  it('logical databases and connection pools; pool secrets masked; wrong engines refused', async () => {
    expect(await ok('db-cluster-create-db', { id: ids.pg, name: 'app' })).toEqual({ db: { name: 'app' } });
    expect((await ok('db-cluster-list-dbs', { id: ids.pg })).dbs).toEqual([
      { name: 'defaultdb' },
      { name: 'app' },
    ]);
    expect((await ok('db-cluster-get-db', { id: ids.pg, name: 'app' })).db.name).toBe('app');
    expect((await ok('db-cluster-get', { id: ids.pg })).database.db_names).toEqual(['defaultdb', 'app']);

    const { pool } = await ok('db-cluster-create-pool', {
      id: ids.pg,
      name: 'backend-pool',
      mode: 'transaction',
      size: 10,
      db: 'app',
      user: 'doadmin',
    });
    expect(pool).toMatchObject({ name: 'backend-pool', mode: 'transaction', size: 10, db: 'app' });
    // Without --show-secrets the pool's password and the one inside its URI are hidden.
    expect(pool.connection.password).toMatch(/hidden/);
    expect(pool.connection.uri).toMatch(/^postgresql:\/\/doadmin:\[hidden[^@]*\]@/);
    expect(
      await ok('db-cluster-update-pool', {
        id: ids.pg,
        name: 'backend-pool',
        mode: 'session',
        size: 20,
        db: 'app',
      }),
    ).toEqual({ ok: true });
    expect((await ok('db-cluster-get-pool', { id: ids.pg, name: 'backend-pool' })).pool).toMatchObject({
      mode: 'session',
      size: 20,
    });
    expect((await ok('db-cluster-list-pools', { id: ids.pg })).pools.map((p: Json) => p.name)).toEqual([
      'backend-pool',
    ]);
    const inUse = await call('db-cluster-delete-db', { id: ids.pg, name: 'app' });
    expect(inUse.isError).toBe(true);
    expect(inUse.text).toMatch(/backend-pool/);
    expect(await ok('db-cluster-delete-pool', { id: ids.pg, name: 'backend-pool' })).toEqual({ ok: true });
    expect(await ok('db-cluster-delete-db', { id: ids.pg, name: 'app' })).toEqual({ ok: true });
    expect((await call('db-cluster-get-db', { id: ids.pg, name: 'app' })).isError).toBe(true);

    const noPools = await call('db-cluster-list-pools', { id: ids.mysql });
    expect(noPools.isError).toBe(true);
    expect(noPools.text).toMatch(/Connection pooling is not supported for MySQL/);
    const noDbs = await call('db-cluster-create-db', { id: ids.valkey, name: 'x' });
    expect(noDbs.isError).toBe(true);
    expect(noDbs.text).toMatch(/Database management is not supported for Valkey/);
  });

  it('eviction policy (Valkey only) and maintenance window', async () => {
    expect(
      await ok('db-cluster-set-eviction-policy', { id: ids.valkey, eviction_policy: 'allkeys_lru' }),
    ).toEqual({
      ok: true,
    });
    expect(await ok('db-cluster-get-eviction-policy', { id: ids.valkey })).toEqual({
      eviction_policy: 'allkeys_lru',
    });
    const wrong = await call('db-cluster-get-eviction-policy', { id: ids.pg });
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toMatch(/Eviction policy is not supported for PostgreSQL/);
    const badHour = await call('db-cluster-set-maintenance-window', {
      id: ids.pg,
      day: 'monday',
      hour: '9am',
    });
    expect(badHour.isError).toBe(true);
    expect(badHour.text).toMatch(/hour/);
    await ok('db-cluster-set-maintenance-window', { id: ids.pg, day: 'monday', hour: '09:30' });
    expect((await ok('db-cluster-get', { id: ids.pg })).database.maintenance_window).toMatchObject({
      day: 'monday',
      hour: '09:30:00',
    });
  });

  it('migrate a cluster to another region', async () => {
    const before = (await ok('db-cluster-get', { id: ids.mongodb })).database;
    expect(before.region).not.toBe('lon1');
    expect(await ok('db-cluster-migrate-region', { id: ids.mongodb, region: 'lon1' })).toEqual({ ok: true });
    // The region changes when the migration completes, as on the platform.
    expect((await ok('db-cluster-get', { id: ids.mongodb })).database).toMatchObject({
      status: 'migrating',
      region: before.region,
    });
    const again = await call('db-cluster-migrate-region', { id: ids.mongodb, region: 'fra1' });
    expect(again.isError).toBe(true);
    expect(again.text).toMatch(/migrating/);
  });

  it('read-only replicas: create, list, get, promote, delete; Valkey refused', async () => {
    const { replica } = await ok('db-cluster-create-replica', {
      id: ids.mysql,
      name: 'read-mcp',
      size: 'db-s-1vcpu-1gb',
      tags: 'prod',
    });
    expect(replica).toMatchObject({ name: 'read-mcp', status: 'creating', tags: ['prod'] });
    expect(replica.connection.password).toMatch(/hidden/);
    await ok('db-cluster-create-replica', { id: ids.mysql, name: 'read-two', size: 'db-s-1vcpu-1gb' });
    expect((await ok('db-cluster-list-replicas', { id: ids.mysql })).replicas).toHaveLength(2);
    await clock.advanceClock(3_000);
    expect((await ok('db-cluster-get-replica', { id: ids.mysql, name: 'read-mcp' })).replica.status).toBe(
      'online',
    );
    expect(await ok('db-cluster-promote-replica', { id: ids.mysql, name: 'read-mcp' })).toEqual({ ok: true });
    expect((await ok('db-cluster-get', { id: replica.id })).database.name).toBe('read-mcp');
    expect(await ok('db-cluster-delete-replica', { id: ids.mysql, name: 'read-two' })).toEqual({ ok: true });
    expect((await ok('db-cluster-list-replicas', { id: ids.mysql })).replicas).toEqual([]);
    const wrong = await call('db-cluster-list-replicas', { id: ids.valkey });
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toMatch(/Read-only replication is not supported for Valkey/);
  });

  // Called every one of the 56 tools: checked once all the tests above ran, in any order.
  // biome-ignore lint/correctness/noEmptyPattern: Vitest hands the suite second, after fixtures read from a pattern.
  afterAll(({}, suite) =>
    afterEveryTest(suite, () => {
      const all = LISTING.tools.map((t) => t.name).filter((n) => n.startsWith('db-cluster-'));
      expect(all).toHaveLength(56);
      expect(all.filter((n) => !called.has(n))).toEqual([]);
    }),
  );
});
