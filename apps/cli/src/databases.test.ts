import { readStateFile, type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { freePort, startRedisServer } from '@cloudcall/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { cliRunner } from './testing/run.js';

const cli = cliRunner();
const sandbox = (...args: string[]) => cli.run(['--sandbox', ...args]);
// biome-ignore lint/suspicious/noExplicitAny: results are checked field by field.
type Json = any;

let redis: { port: number; stop: () => Promise<void> };

async function create(name: string, engine: string, version: string, numNodes = 1): Promise<string> {
  const created = await sandbox(
    'db-cluster-create',
    // `--version=<v>`: a separate `--version <v>` is taken by the program's own --version flag
    // (commander reads program options after the tool name too); see the report.
    ...['--name', name, '--engine', engine, `--version=${version}`, '--region', 'nyc3'],
    ...['--size', 'db-s-1vcpu-1gb', '--num_nodes', String(numNodes)],
  );
  expect(created.code, created.stderr).toBe(0);
  return (created.json as Json).database.id;
}

/** A second sandbox on the CLI's state file, that moves the shared sandbox clock. */
let clockMover: Promise<Sandbox> | undefined;

/**
 * Lets the sandbox take what it takes (3 s of its time to bring a cluster or a replica online,
 * or to move a cluster): the sandbox clock moves on instead of the test sleeping.
 */
async function letTimePass(): Promise<void> {
  clockMover ??= startSandbox({ statePath: cli.statePath });
  await (await clockMover).advanceClock(5_000);
}

/** The cluster once it is online: 3 s of sandbox time after its creation. */
async function waitOnline(id: string): Promise<Json> {
  await letTimePass();
  const got = await sandbox('db-cluster-get', '--id', id);
  expect(got.code, got.stderr).toBe(0);
  expect((got.json as Json).database.status).toBe('online');
  return (got.json as Json).database;
}

const state = () => readStateFile(cli.statePath) as Json;

afterAll(async () => {
  await redis?.stop();
  await (await clockMover)?.close();
});

// The three scenarios run side by side on the shared state file, with a bounded per-test time.
const SCENARIO_MS = 60_000;

describe.concurrent('database scenarios through the CLI', () => {
  it(
    'valkey: create, wait until online, trust a source, migrate from redis-server, status, stop',
    async () => {
      redis = await startRedisServer();
      const id = await create('cache', 'valkey', '8');
      const online = await waitOnline(id);
      expect(online.connection).toMatchObject({ port: 25061, user: 'default' });

      const trusted = await sandbox(
        'db-cluster-update-firewall-rules',
        '--force',
        '--id',
        id,
        '--rules',
        JSON.stringify([{ type: 'ip_addr', value: '127.0.0.1' }]),
      );
      expect(trusted.code, trusted.stderr).toBe(0);
      const rules = await sandbox('db-cluster-get-firewall-rules', '--id', id);
      expect((rules.json as Json).rules).toEqual([
        expect.objectContaining({ type: 'ip_addr', value: '127.0.0.1' }),
      ]);

      const started = await sandbox(
        'db-cluster-start-online-migration',
        ...['--id', id, '--disable_ssl', 'true', '--ignore_dbs', 'db5,db6'],
        ...['--source', JSON.stringify({ host: '127.0.0.1', port: redis.port, dbname: '0' })],
      );
      expect(started.code, started.stderr).toBe(0);
      const migration = started.json as Json;
      expect(migration).toMatchObject({ id: expect.any(String), status: 'running' });
      expect(state().clusters.find((c: Json) => c.id === id).migrations[0]).toMatchObject({
        source: { host: '127.0.0.1', port: redis.port },
        source_version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
        ignore_dbs: ['db5', 'db6'],
      });

      const status = await sandbox('db-cluster-get-migration', '--id', id);
      expect(status.json).toEqual(migration);
      const stopped = await sandbox(
        'db-cluster-stop-online-migration',
        '--force',
        '--id',
        id,
        '--migration_id',
        migration.id,
      );
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(((await sandbox('db-cluster-get-migration', '--id', id)).json as Json).status).toBe('canceled');
    },
    SCENARIO_MS,
  );

  it(
    'kafka: a topic created, updated, deleted',
    async () => {
      const id = await create('events', 'kafka', '3.8', 3);
      const created = await sandbox(
        'db-cluster-create-topic',
        ...['--id', id, '--name', 'orders', '--partition_count', '3', '--replication_factor', '2'],
        ...['--config', '{"retention_ms":3600000}'],
      );
      expect(created.code, created.stderr).toBe(0);
      expect((created.json as Json).topic).toMatchObject({ name: 'orders', replication_factor: 2 });
      const updated = await sandbox(
        'db-cluster-update-topic',
        '--id',
        id,
        '--name',
        'orders',
        '--partition_count',
        '5',
      );
      expect(updated.code, updated.stderr).toBe(0);
      expect((updated.json as Json).topic.partitions).toHaveLength(5);
      const listed = await sandbox('db-cluster-list-topics', '--id', id);
      expect((listed.json as Json).topics.map((t: Json) => t.name)).toEqual(['orders']);
      const deleted = await sandbox('db-cluster-delete-topic', '--force', '--id', id, '--name', 'orders');
      expect(deleted.code, deleted.stderr).toBe(0);
      expect(((await sandbox('db-cluster-list-topics', '--id', id)).json as Json).topics).toEqual([]);
    },
    SCENARIO_MS,
  );

  it(
    'mysql: config updated through config_json',
    async () => {
      const id = await create('orders-db', 'mysql', '8');
      const updated = await sandbox(
        'db-cluster-update-mysql-config',
        ...['--ID', id, '--config_json', '{"wait_timeout":600,"sql_require_primary_key":true}'],
      );
      expect(updated.code, updated.stderr).toBe(0);
      const got = await sandbox('db-cluster-get-mysql-config', '--ID', id);
      expect((got.json as Json).config).toMatchObject({ wait_timeout: 600, sql_require_primary_key: true });
    },
    SCENARIO_MS,
  );
});

/** What `read` gives once the sandbox has had its time, checked with `done`. */
async function until(read: () => Promise<Json>, done: (value: Json) => boolean): Promise<Json> {
  await letTimePass();
  const value = await read();
  expect(done(value), JSON.stringify(value)).toBe(true);
  return value;
}

// The database tools beyond the spec, each as a command: what they change is read back through
// other commands, and the wrong engine is refused by the sandbox as the platform refuses it.
describe('database tools beyond the spec through the CLI', () => {
  it(
    'pg: a logical database, a pool, a read-only replica promoted, a maintenance window, a region move',
    async () => {
      const id = await create('app-pg', 'pg', '16');
      await waitOnline(id);
      const ok = async (...args: string[]): Promise<Json> => {
        const result = await sandbox(...args);
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
        return result.json;
      };

      expect((await ok('db-cluster-create-db', '--id', id, '--name', 'shop')).db).toEqual({ name: 'shop' });
      expect((await ok('db-cluster-list-dbs', '--id', id)).dbs.map((d: Json) => d.name)).toContain('shop');
      const pool = await ok(
        'db-cluster-create-pool',
        ...['--id', id, '--name', 'shop-pool', '--mode', 'transaction', '--size', '5', '--db', 'shop'],
      );
      expect(pool.pool).toMatchObject({ name: 'shop-pool', mode: 'transaction', size: 5, db: 'shop' });
      await ok(
        'db-cluster-update-pool',
        ...['--id', id, '--name', 'shop-pool', '--mode', 'session', '--size', '3', '--db', 'shop'],
      );
      expect((await ok('db-cluster-get-pool', '--id', id, '--name', 'shop-pool')).pool).toMatchObject({
        mode: 'session',
        size: 3,
      });
      await ok('db-cluster-delete-pool', '--force', '--id', id, '--name', 'shop-pool');
      expect((await ok('db-cluster-list-pools', '--id', id)).pools).toEqual([]);
      await ok('db-cluster-delete-db', '--force', '--id', id, '--name', 'shop');
      const missing = await sandbox('db-cluster-get-db', '--id', id, '--name', 'shop');
      expect(missing.code).toBe(3);
      expect(missing.stderr).toMatch(/API error 404/);

      const replica = await ok(
        'db-cluster-create-replica',
        ...['--id', id, '--name', 'app-pg-ro', '--size', 'db-s-1vcpu-1gb'],
      );
      expect(replica.replica).toMatchObject({ name: 'app-pg-ro', status: 'creating' });
      await until(
        () => ok('db-cluster-get-replica', '--id', id, '--name', 'app-pg-ro'),
        (got) => got.replica.status === 'online',
      );
      expect((await ok('db-cluster-list-replicas', '--id', id)).replicas).toHaveLength(1);
      await ok('db-cluster-promote-replica', '--force', '--id', id, '--name', 'app-pg-ro');
      const clusters = (await ok('db-cluster-list')).databases.map((d: Json) => d.name);
      expect(clusters).toEqual(expect.arrayContaining(['app-pg', 'app-pg-ro']));

      await ok('db-cluster-set-maintenance-window', '--id', id, '--day', 'monday', '--hour', '02:00');
      expect((await ok('db-cluster-get', '--id', id)).database.maintenance_window).toMatchObject({
        day: 'monday',
        hour: '02:00:00',
      });
      await ok('db-cluster-migrate-region', '--force', '--id', id, '--region', 'lon1');
      const moved = await until(
        () => ok('db-cluster-get', '--id', id),
        (got) => got.database.status === 'online',
      );
      expect(moved.database.region).toBe('lon1');

      const refused = await sandbox('db-cluster-get-eviction-policy', '--id', id);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/API error 422.*[Ee]viction policy is not supported/);
    },
    3 * SCENARIO_MS,
  );

  it(
    'valkey: the eviction policy read and set; a logical database refused for the engine',
    async () => {
      const id = await create('app-cache', 'valkey', '8');
      await waitOnline(id);
      const got = await sandbox('db-cluster-get-eviction-policy', '--id', id);
      expect(got.code, got.stderr).toBe(0);
      expect(got.json).toEqual({ eviction_policy: 'noeviction' });
      const set = await sandbox(
        'db-cluster-set-eviction-policy',
        ...['--id', id, '--eviction-policy', 'allkeys_lru'],
      );
      expect(set.code, set.stderr).toBe(0);
      expect((await sandbox('db-cluster-get-eviction-policy', '--id', id)).json).toEqual({
        eviction_policy: 'allkeys_lru',
      });
      const refused = await sandbox('db-cluster-create-db', ...['--id', id, '--name', 'shop']);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/API error 422.*not supported for Valkey/);
    },
    SCENARIO_MS,
  );
});

describe('bad input through the CLI', () => {
  it(
    'bad input: a clear error, and the state is unchanged',
    async () => {
      const before = state();
      const ids = Object.fromEntries(before.clusters.map((c: Json) => [c.engine, c.id]));

      const resize = await sandbox('db-cluster-resize', '--id', ids.valkey);
      expect(resize.code).toBe(2);
      expect(resize.stderr).toMatch(/invalid input: .*at least one of size, num_nodes, storage_size_mib/);

      const json = await sandbox(
        'db-cluster-update-mysql-config',
        '--ID',
        ids.mysql,
        '--config_json',
        '{"wait_timeout":',
      );
      expect(json.code).toBe(2);
      expect(json.stderr).toMatch(/--config_json: is not valid JSON/);

      const engine = await sandbox(
        'db-cluster-update-mongodb-config',
        '--id',
        ids.mysql,
        '--config',
        '{"verbosity":1}',
      );
      expect(engine.code).toBe(2);
      expect(engine.stderr).toMatch(/is a mysql cluster; this tool works on mongodb clusters/);

      const verbosity = await sandbox(
        'db-cluster-update-mongodb-config',
        '--id',
        ids.mysql,
        '--config',
        '{"verbosity":9}',
      );
      expect(verbosity.code).toBe(2);
      expect(verbosity.stderr).toMatch(/--config \(at verbosity\): .*5/);

      const closed = await freePort();
      const unreachable = await sandbox(
        'db-cluster-start-online-migration',
        ...['--id', ids.valkey, '--disable_ssl', 'true'],
        ...['--source', JSON.stringify({ host: '127.0.0.1', port: closed, password: 's3cret-pass' })],
      );
      expect(unreachable.code).toBe(3);
      expect(unreachable.stderr).toMatch(
        /API error 422 .*could not connect to the source at 127\.0\.0\.1:\d+: ECONNREFUSED/,
      );
      expect(unreachable.stderr).not.toMatch(/s3cret-pass/);

      expect(state().clusters).toEqual(before.clusters);
    },
    SCENARIO_MS,
  );
});
