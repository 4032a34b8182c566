import { randomUUID } from 'node:crypto';
import dns from 'node:dns';
import net, { createServer, type Server } from 'node:net';
import { DATABASE_CLUSTER_ENGINE } from '@cloudcall/platform';
import { freePort, startRedisServer } from '@cloudcall/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLUSTER_MIGRATE_MS, MIGRATION_MAX_MS } from './routes/databases.js';
import { isLoopbackHost } from './routes/databases-source.js';
import { type Sandbox, startSandbox } from './server.js';
import { type CallOptions, callOperation, type Reply, steppingClock } from './testing/operations.js';

let sandbox: Sandbox;
let redis: { port: number; stop: () => Promise<void> };
let newer: { port: number; server: Server };

const call = (operationId: string, options?: CallOptions) => callOperation(sandbox.url, operationId, options);

function expectError(reply: Reply, status: number, message: RegExp): void {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual({
    id: expect.any(String),
    message: expect.any(String),
    request_id: expect.any(String),
  });
  expect(reply.body.message).toMatch(message);
}

/** A loopback stand-in speaking RESP that reports a Redis version newer than any cluster's. */
async function startNewerSource(): Promise<{ port: number; server: Server }> {
  const server = createServer((socket) => {
    socket.on('data', (data) => {
      if (/INFO/i.test(data.toString())) {
        const info = '# Server\r\nredis_version:99.1.0\r\nredis_mode:standalone\r\n';
        socket.write(`$${Buffer.byteLength(info)}\r\n${info}\r\n`);
      } else socket.write('+OK\r\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

async function createCluster(engine: string, version: string, extra: Record<string, unknown> = {}) {
  const reply = await call('databases_create_cluster', {
    json: {
      name: `${engine}-${randomUUID().slice(0, 8)}`,
      engine,
      version,
      region: 'nyc3',
      size: 'db-s-1vcpu-1gb',
      num_nodes: engine === 'kafka' ? 3 : 1,
      ...extra,
    },
  });
  expect(reply.status).toBe(201);
  return reply.body.database as { id: string; status: string; [key: string]: unknown };
}

beforeAll(async () => {
  sandbox = await startSandbox({ now: steppingClock() });
});

afterAll(async () => {
  await sandbox?.close();
});

describe('clusters', () => {
  it('are created, come online on the sandbox clock, and carry the connection details', async () => {
    const created = await createCluster('pg', '16', { tags: ['prod', 'web'] });
    expect(created).toMatchObject({ engine: 'pg', version: '16', status: 'creating', tags: ['prod', 'web'] });
    expect(created.connection).toMatchObject({
      host: expect.stringMatching(/^pg-[0-9a-f]{8}-do-user-\d+-0\.b\.db\.ondigitalocean\.com$/),
      port: 25061,
      user: 'doadmin',
      password: expect.stringMatching(/^AVNS_/),
      uri: expect.stringMatching(
        /^postgresql:\/\/doadmin:AVNS_[^@]+@pg-.*:25061\/defaultdb\?sslmode=require$/,
      ),
      ssl: true,
    });
    await sandbox.advanceClock(3_000);
    const got = await call('databases_get_cluster', { params: { database_cluster_uuid: created.id } });
    expect(got.body.database.status).toBe('online');

    const list = await call('databases_list_clusters', { query: '?page=1&per_page=1' });
    expect(list.body.databases).toHaveLength(1);
    expect(list.body.meta.total).toBeGreaterThanOrEqual(1);
    const tagged = await call('databases_list_clusters', { query: '?tag_name=web' });
    expect(tagged.body.databases.map((d: { id: string }) => d.id)).toEqual([created.id]);

    const ca = await call('databases_get_ca', { params: { database_cluster_uuid: created.id } });
    expect(Buffer.from(ca.body.ca.certificate, 'base64').toString()).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });

  it('refuses bad creations with the field named', async () => {
    const body = {
      name: 'x-valid',
      engine: 'pg',
      version: '16',
      region: 'nyc3',
      size: 'db-s-1vcpu-1gb',
      num_nodes: 1,
    };
    expectError(
      await call('databases_create_cluster', { json: { ...body, engine: 'oracle' } }),
      422,
      /engine/,
    );
    expectError(
      await call('databases_create_cluster', { json: { ...body, version: '9' } }),
      422,
      /version 9/,
    );
    expectError(
      await call('databases_create_cluster', { json: { ...body, num_nodes: 7 } }),
      422,
      /num_nodes/,
    );
    expectError(
      await call('databases_create_cluster', { json: { ...body, size: 's-1vcpu-1gb' } }),
      422,
      /size/,
    );
  });

  it('options name a default version per engine, the one a creation without a version gets', async () => {
    const { options } = (await call('databases_list_options')).body;
    for (const engine of ['pg', 'mysql', 'valkey', 'mongodb', 'kafka', 'opensearch']) {
      const { versions, default_version: chosen } = options[engine];
      // The newest the engine offers.
      expect(chosen, engine).toBe(versions[versions.length - 1]);
      const unversioned = await call('databases_create_cluster', {
        json: {
          name: `${engine}-default-${randomUUID().slice(0, 4)}`,
          engine,
          region: 'nyc3',
          size: 'db-s-1vcpu-1gb',
          num_nodes: engine === 'kafka' ? 3 : 1,
        },
      });
      expect(unversioned.status, unversioned.text).toBe(201);
      expect(unversioned.body.database.version, engine).toBe(chosen);
    }
  });

  it('lists options, backups; resizes, upgrades and deletes', async () => {
    const options = await call('databases_list_options');
    expect(options.body.options.valkey.versions).toContain('8');
    expect(options.body.options.pg.layouts[0]).toMatchObject({ num_nodes: 1, sizes: expect.any(Array) });
    expect(options.body.version_availability.pg).toContainEqual(expect.objectContaining({ version: '16' }));

    const cluster = await createCluster('pg', '15');
    const params = { database_cluster_uuid: cluster.id };
    expectError(
      await call('databases_update_clusterSize', { params, json: { size: 'db-s-2vcpu-4gb' } }),
      422,
      /creating/,
    );
    await sandbox.advanceClock(3_000);
    expectError(
      await call('databases_update_clusterSize', { params, json: {} }),
      422,
      /at least one of size/,
    );
    const resized = await call('databases_update_clusterSize', {
      params,
      json: { size: 'db-s-2vcpu-4gb', num_nodes: 2 },
    });
    expect(resized).toEqual({ status: 202, text: '', body: undefined });
    const resizing = await call('databases_get_cluster', { params });
    expect(resizing.body.database).toMatchObject({
      status: 'resizing',
      size: 'db-s-2vcpu-4gb',
      num_nodes: 2,
    });

    await sandbox.advanceClock(2 * 86_400_000);
    const backups = await call('databases_list_backups', { params });
    expect(backups.body.backups.length).toBeGreaterThanOrEqual(1);
    expect(backups.body.backups[0]).toMatchObject({
      created_at: expect.any(String),
      size_gigabytes: expect.any(Number),
    });

    expectError(
      await call('databases_update_major_version', { params, json: { version: '14' } }),
      422,
      /not newer/,
    );
    expect((await call('databases_update_major_version', { params, json: { version: '17' } })).status).toBe(
      204,
    );
    expect((await call('databases_get_cluster', { params })).body.database.version).toBe('17');

    expect((await call('databases_destroy_cluster', { params })).status).toBe(204);
    expectError(await call('databases_get_cluster', { params }), 404, /could not be found/);
  });

  it('restores a backup into a new cluster, refusing a source or backup that does not exist', async () => {
    const source = await createCluster('pg', '16');
    const params = { database_cluster_uuid: source.id };
    const restore = (backup_restore: unknown, engine = 'pg') =>
      call('databases_create_cluster', {
        json: {
          name: `restored-${randomUUID().slice(0, 8)}`,
          engine,
          region: 'nyc3',
          size: 'db-s-1vcpu-1gb',
          num_nodes: 1,
          backup_restore,
        },
      });
    const count = async () =>
      (await call('databases_list_clusters', { query: '?per_page=200' })).body.meta.total;
    const before = await count();
    await sandbox.advanceClock(3_000);
    expectError(await restore({ database_name: source.name }), 422, /no backup yet/);
    await sandbox.advanceClock(2 * 86_400_000);
    expect((await call('databases_add', { params, json: { name: 'orders' } })).status).toBe(201);
    const backups = (await call('databases_list_backups', { params })).body.backups;
    expect(backups).toHaveLength(2);

    expectError(await restore({ database_name: 'nowhere' }), 422, /no database cluster is named nowhere/);
    expectError(await restore({ database_name: source.name }, 'mysql'), 422, /is a pg cluster/);
    expectError(await restore({}), 422, /database_name is required/);
    expectError(
      await restore({ database_name: source.name, backup_created_at: '2001-01-01T00:00:00Z' }),
      422,
      /no backup made at/,
    );
    expect(await count()).toBe(before);

    const restored = await restore({ database_name: source.name, backup_created_at: backups[1].created_at });
    expect(restored.status).toBe(201);
    expect(restored.body.database).toMatchObject({ engine: 'pg', status: 'creating' });
    expect(restored.body.database.id).not.toBe(source.id);
    expect(restored.body.database.db_names).toEqual(expect.arrayContaining(['defaultdb', 'orders']));
    expect((await restore({ database_name: source.name })).status).toBe(201);
  });
});

describe('every engine of the API description', () => {
  /** The description's options for an engine, from the sandbox's options answer. */
  const optionsOf = async (engine: string) => (await call('databases_list_options')).body.options[engine];

  it('options list each one with its versions and layouts, and a creation by them comes up', async () => {
    const { options, version_availability: availability } = (await call('databases_list_options')).body;
    expect(Object.keys(options).sort()).toEqual([...DATABASE_CLUSTER_ENGINE].sort());
    expect(Object.keys(availability).sort()).toEqual([...DATABASE_CLUSTER_ENGINE].sort());
    const uri: Record<string, RegExp> = {
      advanced_pg: /^postgresql:\/\/doadmin:[^@]+@[^/]+:25061\/defaultdb\?sslmode=require$/,
      advanced_mysql: /^mysql:\/\/doadmin:[^@]+@[^/]+:25061\/defaultdb\?ssl-mode=REQUIRED$/,
    };
    for (const engine of DATABASE_CLUSTER_ENGINE.filter((e) => e !== 'redis')) {
      const option = options[engine];
      expect(option.versions.length, engine).toBeGreaterThan(0);
      expect(option.default_version, engine).toBe(option.versions.at(-1));
      expect(availability[engine].map((a: { version: string }) => a.version)).toEqual(option.versions);
      // The first layout's first size, at its node count, with no version: the default one.
      const [layout] = option.layouts;
      const created = await call('databases_create_cluster', {
        json: {
          name: `every-${engine.replace('_', '-')}`,
          engine,
          region: 'nyc3',
          size: layout.sizes[0],
          num_nodes: layout.num_nodes,
        },
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body.database, engine).toMatchObject({
        engine,
        version: option.default_version,
        size: layout.sizes[0],
        num_nodes: layout.num_nodes,
        status: 'creating',
        connection: { port: 25061, ssl: true },
      });
      expect(created.body.database.storage_size_mib, engine).toBeGreaterThan(0);
      if (uri[engine]) expect(created.body.database.connection.uri, engine).toMatch(uri[engine]);
      await sandbox.advanceClock(3_000);
      const got = await call('databases_get_cluster', {
        params: { database_cluster_uuid: created.body.database.id },
      });
      expect(got.body.database.status, engine).toBe('online');
    }
  });

  it("Advanced Editions: their versions, sizes and node counts, and their standard edition's rules", async () => {
    const pg = await optionsOf('advanced_pg');
    const mysql = await optionsOf('advanced_mysql');
    expect(pg.versions).toEqual(['16', '17', '18']);
    expect(mysql.versions).toEqual(['8.4.8']);
    expect(pg.layouts.map((l: { num_nodes: number }) => l.num_nodes)).toEqual([1, 2, 3]);
    expect(mysql.layouts.map((l: { num_nodes: number }) => l.num_nodes)).toEqual([1, 3]);
    for (const option of [pg, mysql]) {
      expect(option.layouts[0].sizes).toEqual(
        expect.arrayContaining(['gd-2vcpu-8gb', 'so1_5-2vcpu-16gb-intel']),
      );
      // The description's create examples use a standard size.
      expect(option.layouts[0].sizes).toContain('db-s-2vcpu-4gb');
    }
    // A dedicated size: storage by its memory, 7.5 GiB a GB (120 GiB for 16 GB).
    const advancedPg = await createCluster('advanced_pg', '17', {
      name: 'advanced-pg-17',
      size: 'gd-4vcpu-16gb',
      num_nodes: 3,
    });
    expect(advancedPg).toMatchObject({ version: '17', semantic_version: '17.2', storage_size_mib: 122_880 });
    // The description's example body, as it is.
    const example = await call('databases_create_cluster', {
      json: {
        name: 'backend-advanced',
        engine: 'advanced_mysql',
        version: '8.4.8',
        region: 'nyc3',
        size: 'db-s-2vcpu-4gb',
        num_nodes: 3,
        storage_size_mib: 61440,
        tags: ['production'],
      },
    });
    expect(example.status, example.text).toBe(201);
    // "8", as Terraform's acceptance test names it, is 8.4.8.
    const eight = await createCluster('advanced_mysql', '8', {
      name: 'advanced-mysql-8',
      size: 'gd-2vcpu-8gb-intel',
    });
    expect(eight).toMatchObject({ engine: 'advanced_mysql', version: '8.4.8', storage_size_mib: 61_440 });
    const refused = (json: Record<string, unknown>, message: RegExp) =>
      call('databases_create_cluster', {
        json: { name: 'refused-advanced', region: 'nyc3', size: 'gd-2vcpu-8gb', num_nodes: 1, ...json },
      }).then((reply) => expectError(reply, 422, message));
    await refused({ engine: 'advanced_mysql', num_nodes: 2 }, /num_nodes must be 1 or 3 for advanced_mysql/);
    await refused({ engine: 'advanced_pg', version: '15' }, /version 15 is not available for advanced_pg/);
    await refused({ engine: 'advanced_pg', size: 'db-s-9vcpu-1gb' }, /size db-s-9vcpu-1gb/);
    // The standard editions keep their sizes.
    await refused({ engine: 'pg', version: '16' }, /size gd-2vcpu-8gb is not a database size for pg/);
    expect(
      (await call('databases_list_clusters', { query: '?per_page=200' })).body.databases,
    ).not.toContainEqual(expect.objectContaining({ name: 'refused-advanced' }));

    // An Advanced Edition follows its standard edition: databases and config keys of PostgreSQL,
    // SQL mode and auth plugins of MySQL; not another engine's endpoints.
    const pgParams = { database_cluster_uuid: advancedPg.id };
    const dbs = await call('databases_list', { params: pgParams });
    expect(dbs.body.dbs).toEqual([{ name: 'defaultdb' }]);
    await sandbox.advanceClock(3_000);
    expect(
      (await call('databases_patch_config', { params: pgParams, json: { config: { work_mem: 8 } } })).status,
    ).toBe(200);
    expectError(
      await call('databases_patch_config', { params: pgParams, json: { config: { sql_mode: 'ANSI' } } }),
      422,
      /sql_mode is not a PostgreSQL Advanced Edition config setting/,
    );
    expectError(
      await call('databases_list_kafka_topics', { params: pgParams }),
      422,
      /for PostgreSQL Advanced Edition clusters .*needs a kafka cluster/,
    );
    const mysqlParams = { database_cluster_uuid: eight.id };
    expect((await call('databases_get_sql_mode', { params: mysqlParams })).body.sql_mode).toMatch(/ANSI/);
    const user = await call('databases_add_user', { params: mysqlParams, json: { name: 'app' } });
    expect(user.body.user).toMatchObject({
      name: 'app',
      mysql_settings: { auth_plugin: 'caching_sha2_password' },
    });
  });

  it('redis (Caching): no longer created since 2025-04-30, as the description says; valkey instead', async () => {
    const redis = await optionsOf('redis');
    expect(redis.versions).toEqual(['7']);
    expect(redis.default_version).toBeUndefined();
    const { version_availability: availability } = (await call('databases_list_options')).body;
    expect(availability.redis).toEqual([
      { version: '7', end_of_availability: '2025-04-30T00:00:00Z', end_of_life: '2025-06-30T00:00:00Z' },
    ]);
    const before = await sandbox.store.read((w) => w.clusters.length);
    expectError(
      await call('databases_create_cluster', {
        json: {
          name: 'cache-now',
          engine: 'redis',
          version: '7',
          region: 'nyc3',
          size: 'db-s-1vcpu-1gb',
          num_nodes: 1,
        },
      }),
      422,
      /Caching \(Redis\) clusters are no longer created \(since 2025-04-30T00:00:00Z\); create a valkey cluster/,
    );
    expect(await sandbox.store.read((w) => w.clusters.length)).toBe(before);
  });

  it("redis before that date: created, and run with Valkey's rules", async () => {
    let at = Date.parse('2025-03-01T00:00:00Z');
    const earlier = await startSandbox({ now: () => at++ });
    try {
      const callEarlier = (operationId: string, options?: CallOptions) =>
        callOperation(earlier.url, operationId, options);
      const redis = (await callEarlier('databases_list_options')).body.options.redis;
      expect(redis.default_version).toBe('7');
      const created = await callEarlier('databases_create_cluster', {
        json: { name: 'cache-then', engine: 'redis', region: 'nyc3', size: 'db-s-1vcpu-2gb', num_nodes: 2 },
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body.database).toMatchObject({
        engine: 'redis',
        version: '7',
        connection: { user: 'default', port: 25061, uri: expect.stringMatching(/^rediss:\/\/default:/) },
      });
      const params = { database_cluster_uuid: created.body.database.id };
      const policy = await callEarlier('databases_update_evictionPolicy', {
        params,
        json: { eviction_policy: 'allkeys_lru' },
      });
      expect(policy.status, policy.text).toBe(204);
      expect((await callEarlier('databases_get_evictionPolicy', { params })).body.eviction_policy).toBe(
        'allkeys_lru',
      );
      const config = await callEarlier('databases_patch_config', {
        params,
        json: { config: { redis_timeout: 60 } },
      });
      expect(config.status, config.text).toBe(200);
      expect((await callEarlier('databases_get_config', { params })).body.config).toMatchObject({
        redis_timeout: 60,
      });
    } finally {
      await earlier.close();
    }
  });
});

describe('engine-specific endpoints', () => {
  it('answer only for their engine', async () => {
    const pg = await createCluster('pg', '16');
    const params = { database_cluster_uuid: pg.id };
    expectError(await call('databases_list_kafka_topics', { params }), 422, /kafka/);
    expectError(await call('databases_create_kafka_topic', { params, json: { name: 't' } }), 422, /kafka/);
    expectError(await call('databases_get_sql_mode', { params }), 422, /mysql/);
    expectError(
      await call('databases_patch_config', { params, json: { config: { verbosity: 3 } } }),
      422,
      /verbosity is not a PostgreSQL/,
    );
  });

  it('validate config types and ranges, and merge updates into the stored config', async () => {
    const mongo = await createCluster('mongodb', '7.0');
    const params = { database_cluster_uuid: mongo.id };
    const before = await call('databases_get_config', { params });
    expect(before.body.config).toMatchObject({ verbosity: 0, default_read_concern: 'local' });
    expectError(
      await call('databases_patch_config', { params, json: { config: { verbosity: 9 } } }),
      422,
      /verbosity must be from 0 to 5/,
    );
    expectError(
      await call('databases_patch_config', { params, json: { config: { verbosity: '3' } } }),
      422,
      /integer/,
    );
    expectError(await call('databases_patch_config', { params, json: {} }), 422, /config is required/);
    expect((await call('databases_get_config', { params })).body.config).toEqual(before.body.config);

    const patched = await call('databases_patch_config', { params, json: { config: { verbosity: 3 } } });
    expect(patched).toEqual({ status: 200, text: '', body: undefined });
    const after = await call('databases_get_config', { params });
    expect(after.body.config).toEqual({ ...before.body.config, verbosity: 3 });

    const valkey = await createCluster('valkey', '8');
    const vparams = { database_cluster_uuid: valkey.id };
    await call('databases_patch_config', {
      params: vparams,
      json: { config: { redis_maxmemory_policy: 'allkeys-lru' } },
    });
    expect((await call('databases_get_config', { params: vparams })).body.config.redis_maxmemory_policy).toBe(
      'allkeys-lru',
    );
    expectError(
      await call('databases_patch_config', { params: vparams, json: { config: { redis_io_threads: 64 } } }),
      422,
      /redis_io_threads must be from 1 to 32/,
    );
  });

  it('MySQL SQL mode and config', async () => {
    const mysql = await createCluster('mysql', '8');
    const params = { database_cluster_uuid: mysql.id };
    expect((await call('databases_get_sql_mode', { params })).body.sql_mode).toMatch(/STRICT_ALL_TABLES/);
    expect(
      (await call('databases_update_sql_mode', { params, json: { sql_mode: 'ANSI,TRADITIONAL' } })).status,
    ).toBe(204);
    expect((await call('databases_get_sql_mode', { params })).body.sql_mode).toBe('ANSI,TRADITIONAL');
    expectError(
      await call('databases_update_sql_mode', { params, json: { sql_mode: 'BOGUS' } }),
      422,
      /BOGUS/,
    );
    await call('databases_patch_config', { params, json: { config: { connect_timeout: 20 } } });
    expect((await call('databases_get_config', { params })).body.config).toMatchObject({
      connect_timeout: 20,
      sql_mode: 'ANSI,TRADITIONAL',
    });
  });
});

describe('trusted sources', () => {
  it('are replaced by the given list, keeping rules named by uuid', async () => {
    const cluster = await createCluster('valkey', '8');
    const params = { database_cluster_uuid: cluster.id };
    expect((await call('databases_list_firewall_rules', { params })).body.rules).toEqual([]);
    const put = await call('databases_update_firewall_rules', {
      params,
      json: {
        rules: [
          { type: 'ip_addr', value: '192.0.2.0/24' },
          { type: 'droplet', value: '480000001' },
        ],
      },
    });
    expect(put.status).toBe(204);
    const rules = (await call('databases_list_firewall_rules', { params })).body.rules;
    expect(rules).toEqual([
      expect.objectContaining({ type: 'ip_addr', value: '192.0.2.0/24', cluster_uuid: cluster.id }),
      expect.objectContaining({ type: 'droplet', value: '480000001' }),
    ]);
    await call('databases_update_firewall_rules', {
      params,
      json: {
        rules: [
          { uuid: rules[0].uuid, type: 'ip_addr', value: '192.0.2.0/24' },
          { type: 'tag', value: 'web' },
        ],
      },
    });
    const replaced = (await call('databases_list_firewall_rules', { params })).body.rules;
    expect(replaced.map((r: { type: string }) => r.type)).toEqual(['ip_addr', 'tag']);
    expect(replaced[0]).toEqual(rules[0]);
    expectError(
      await call('databases_update_firewall_rules', {
        params,
        json: { rules: [{ type: 'vm', value: '1' }] },
      }),
      422,
      /type must be one of/,
    );
    expectError(
      await call('databases_update_firewall_rules', {
        params,
        json: { rules: [{ type: 'ip_addr', value: '300.1.1.1' }] },
      }),
      422,
      /not an IP/,
    );
    expect((await call('databases_list_firewall_rules', { params })).body.rules).toEqual(replaced);
  });
});

describe('Kafka topics and users', () => {
  it('topics: create, list, get, update (partitions only grow), delete', async () => {
    const kafka = await createCluster('kafka', '3.8');
    const params = { database_cluster_uuid: kafka.id };
    const created = await call('databases_create_kafka_topic', {
      params,
      json: {
        name: 'orders',
        partition_count: 3,
        replication_factor: 2,
        config: { retention_ms: 3_600_000 },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.topic).toMatchObject({ name: 'orders', replication_factor: 2, state: 'active' });
    expect(created.body.topic.partitions).toHaveLength(3);
    expect(created.body.topic.config.retention_ms).toBe(3_600_000);
    const list = await call('databases_list_kafka_topics', { params, query: '?per_page=5' });
    expect(list.body.topics).toEqual([
      { name: 'orders', state: 'active', partition_count: 3, replication_factor: 2 },
    ]);
    const topic = { ...params, topic_name: 'orders' };
    const updated = await call('databases_update_kafka_topic', {
      params: topic,
      json: { partition_count: 6, config: { cleanup_policy: 'compact' } },
    });
    expect(updated.body.topic.partitions).toHaveLength(6);
    expect(updated.body.topic.config).toMatchObject({ cleanup_policy: 'compact', retention_ms: 3_600_000 });
    expectError(
      await call('databases_update_kafka_topic', { params: topic, json: { partition_count: 2 } }),
      422,
      /only grow/,
    );
    expect((await call('databases_get_kafka_topic', { params: topic })).body.topic.name).toBe('orders');
    expect((await call('databases_delete_kafka_topic', { params: topic })).status).toBe(204);
    expectError(await call('databases_get_kafka_topic', { params: topic }), 404, /could not be found/);
  });

  it('refuses topic and user names that could not be addressed in a path ("." and "..")', async () => {
    const kafka = await createCluster('kafka', '3.8');
    const params = { database_cluster_uuid: kafka.id };
    for (const name of ['.', '..']) {
      const topic = await call('databases_create_kafka_topic', { params, json: { name } });
      expect(topic.status).toBe(422);
      expect(topic.body.message).toMatch(/cannot be "\." or "\.\."/);
      const user = await call('databases_add_user', { params, json: { name } });
      expect(user.status).toBe(422);
      expect(user.body.message).toMatch(/^name may hold only/);
    }
    const topics = await call('databases_list_kafka_topics', { params });
    expect(topics.body.topics).toEqual([]);
    const users = await call('databases_list_users', { params });
    expect(users.body.users.map((u: { name: string }) => u.name)).toEqual(['doadmin']);
  });

  it('users: create with settings per engine, update (201), delete; the admin stays', async () => {
    const kafka = await createCluster('kafka', '3.8');
    const params = { database_cluster_uuid: kafka.id };
    const created = await call('databases_add_user', {
      params,
      json: { name: 'app', settings: { acl: [{ topic: 'orders', permission: 'produce' }] } },
    });
    expect(created.status).toBe(201);
    expect(created.body.user).toMatchObject({ name: 'app', role: 'normal', password: expect.any(String) });
    expect(created.body.user.settings.acl[0]).toMatchObject({
      topic: 'orders',
      permission: 'produce',
      id: expect.any(String),
    });
    expectError(
      await call('databases_add_user', {
        params,
        json: { name: 'x', mysql_settings: { auth_plugin: 'mysql_native_password' } },
      }),
      422,
      /MySQL/,
    );
    expectError(
      await call('databases_add_user', {
        params,
        json: { name: 'y', settings: { mongo_user_settings: { role: 'readOnly' } } },
      }),
      422,
      /MongoDB/,
    );
    const user = { ...params, username: 'app' };
    expectError(await call('databases_update_user', { params: user, json: {} }), 422, /settings is required/);
    const updated = await call('databases_update_user', {
      params: user,
      json: { settings: { acl: [{ topic: 'orders', permission: 'consume' }] } },
    });
    expect(updated.status).toBe(201);
    expect(updated.body.user.settings.acl[0].permission).toBe('consume');
    const list = await call('databases_list_users', { params });
    expect(list.body.users.map((u: { name: string }) => u.name)).toEqual(['doadmin', 'app']);
    expect((await call('databases_delete_user', { params: user })).status).toBe(204);
    expectError(
      await call('databases_delete_user', { params: { ...params, username: 'doadmin' } }),
      422,
      /admin/,
    );
    expectError(await call('databases_get_user', { params: user }), 404, /could not be found/);

    const mysql = await createCluster('mysql', '8');
    const native = await call('databases_add_user', {
      params: { database_cluster_uuid: mysql.id },
      json: { name: 'legacy', mysql_settings: { auth_plugin: 'mysql_native_password' } },
    });
    expect(native.body.user.mysql_settings).toEqual({ auth_plugin: 'mysql_native_password' });
  });
});

describe('online migration', () => {
  beforeAll(async () => {
    redis = await startRedisServer();
    newer = await startNewerSource();
  });
  afterAll(async () => {
    await redis?.stop();
    newer?.server.close();
  });

  const source = () => ({ host: '127.0.0.1', port: redis.port, dbname: '0' });

  it('needs a bearer token and a source', async () => {
    const cluster = await createCluster('valkey', '8');
    await sandbox.advanceClock(3_000);
    const params = { database_cluster_uuid: cluster.id };
    expectError(
      await call('databases_update_onlineMigration', { params, auth: false, json: { source: source() } }),
      401,
      /authenticate/,
    );
    expectError(
      await call('databases_update_onlineMigration', { params, json: { disable_ssl: true } }),
      422,
      /source is required/,
    );
    expectError(
      await call('databases_update_onlineMigration', {
        params,
        json: { source: { host: '127.0.0.1', port: 70_000 } },
      }),
      422,
      /source.port must be an integer/,
    );
    expectError(await call('databases_get_migrationStatus', { params }), 404, /No online migration/);
    // The platform requires only `source`: without a port, the engine's usual one is tried.
    const portless = await call('databases_update_onlineMigration', {
      params,
      json: { source: { host: '127.0.0.1' }, disable_ssl: true },
    });
    if (portless.status === 422) expectError(portless, 422, /127\.0\.0\.1:6379/);
    // Unless something on this machine listens there: then the migration runs from it.
    else expect(portless.body).toMatchObject({ status: 'running' });
  });

  it('starts from a real redis-server, refuses a second start, stops by id, keeping state', async () => {
    const cluster = await createCluster('valkey', '8');
    const params = { database_cluster_uuid: cluster.id };
    expectError(
      await call('databases_update_onlineMigration', {
        params,
        json: { source: source(), disable_ssl: true },
      }),
      422,
      /still being created/,
    );
    await sandbox.advanceClock(3_000);
    const started = await call('databases_update_onlineMigration', {
      params,
      json: { source: source(), disable_ssl: true, ignore_dbs: ['1'] },
    });
    expect(started.status).toBe(200);
    expect(started.body).toEqual({
      id: expect.any(String),
      status: 'running',
      created_at: expect.any(String),
    });
    expect((await call('databases_get_migrationStatus', { params })).body).toEqual(started.body);

    expectError(
      await call('databases_update_onlineMigration', {
        params,
        json: { source: source(), disable_ssl: true },
      }),
      422,
      /already in progress/,
    );
    expectError(
      await call('databases_delete_onlineMigration', { params: { ...params, migration_id: randomUUID() } }),
      404,
      /not the ongoing migration/,
    );
    const stopped = await call('databases_delete_onlineMigration', {
      params: { ...params, migration_id: started.body.id },
    });
    expect(stopped.status).toBe(204);
    const status = await call('databases_get_migrationStatus', { params });
    expect(status.body).toEqual({ ...started.body, status: 'canceled' });
    expectError(
      await call('databases_delete_onlineMigration', {
        params: { ...params, migration_id: started.body.id },
      }),
      404,
      /No migration is in progress/,
    );

    // A new one may start after the stop; it stops by itself two weeks later.
    const again = await call('databases_update_onlineMigration', {
      params,
      json: { source: source(), disable_ssl: true },
    });
    expect(again.body.status).toBe('running');
    await sandbox.advanceClock(MIGRATION_MAX_MS - 60_000);
    expect((await call('databases_get_migrationStatus', { params })).body.status).toBe('running');
    await sandbox.advanceClock(60_000);
    expect((await call('databases_get_migrationStatus', { params })).body).toEqual({
      ...again.body,
      status: 'canceled',
    });
  });

  it('fails clearly for an unreachable source, a TLS mismatch, a newer version, or a managed cluster; state unchanged', async () => {
    const cluster = await createCluster('valkey', '7.2');
    const other = await createCluster('valkey', '8');
    await sandbox.advanceClock(3_000);
    const params = { database_cluster_uuid: cluster.id };
    const closed = await freePort();
    expectError(
      await call('databases_update_onlineMigration', {
        params,
        json: { source: { host: '127.0.0.1', port: closed }, disable_ssl: true },
      }),
      422,
      new RegExp(`could not connect to the source at 127\\.0\\.0\\.1:${closed}: ECONNREFUSED`),
    );
    expectError(
      await call('databases_update_onlineMigration', { params, json: { source: source() } }),
      422,
      /TLS connection (to the source )?.*set disable_ssl/,
    );
    expectError(
      await call('databases_update_onlineMigration', {
        params,
        json: { source: { host: '127.0.0.1', port: newer.port }, disable_ssl: true },
      }),
      422,
      /source runs version 99\.1\.0, newer than the cluster's Valkey 7\.2\.8/,
    );
    const otherHost = (other.connection as { host: string }).host;
    expectError(
      await call('databases_update_onlineMigration', {
        params,
        json: { source: { host: otherHost, port: 25061 } },
      }),
      422,
      /managed database cluster/,
    );
    expectError(await call('databases_get_migrationStatus', { params }), 404, /No online migration/);
    // The same redis-server is fine for this 7.2 cluster (redis 7.0 is older).
    const ok = await call('databases_update_onlineMigration', {
      params,
      json: { source: source(), disable_ssl: true },
    });
    expect(ok.body.status).toBe('running');
  });

  it('probes only loopback sources: any other host fails as unreachable with no lookup or connection', async () => {
    const cluster = await createCluster('valkey', '8');
    await sandbox.advanceClock(3_000);
    const params = { database_cluster_uuid: cluster.id };
    // net and tls resolve names through dns.lookup and open sockets through Socket#connect, so
    // these see every lookup and connection the sandbox (and this test's own HTTP client) makes.
    const lookup = vi.spyOn(dns, 'lookup');
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const targets = () => [
      ...lookup.mock.calls.map((c) => String(c[0])),
      ...connect.mock.calls.map((c) => String((c[0] as { host?: string })?.host ?? 'localhost')),
    ];
    try {
      // 127.0.0.1.nip.io resolves to 127.0.0.1 on public DNS: asking it would be a lookup already.
      for (const host of ['src.example.com', '127.0.0.1.nip.io', '10.0.0.5', '::ffff:8.8.8.8']) {
        for (const disable_ssl of [true, false]) {
          expectError(
            await call('databases_update_onlineMigration', {
              params,
              json: { source: { host, port: redis.port }, disable_ssl },
            }),
            422,
            /source check failed: could not connect to the source at .*: the sandbox reaches only loopback sources/,
          );
        }
      }
      expect(targets().filter((t) => !isLoopbackHost(t))).toEqual([]);
      expectError(await call('databases_get_migrationStatus', { params }), 404, /No online migration/);
      // localhost is probed, resolved by the sandbox itself rather than the system resolver.
      const ok = await call('databases_update_onlineMigration', {
        params,
        json: { source: { host: 'localhost', port: redis.port }, disable_ssl: true },
      });
      expect(ok.body.status).toBe('running');
      expect(lookup.mock.calls.map((c) => c[0])).not.toContain('localhost');
    } finally {
      lookup.mockRestore();
      connect.mockRestore();
    }
  });

  it('knows loopback hosts by address, never by name', () => {
    for (const host of [
      '127.0.0.1',
      '127.255.3.4',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      'localhost',
      'LOCALHOST.',
    ])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of [
      '128.0.0.1',
      '10.0.0.5',
      '::2',
      '::ffff:8.8.8.8',
      'localhost.example.com',
      '127.0.0.1.nip.io',
      'src.example.com',
      '',
    ])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it('is refused for engines without online migration', async () => {
    const kafka = await createCluster('kafka', '3.8');
    await sandbox.advanceClock(3_000);
    expectError(
      await call('databases_update_onlineMigration', {
        params: { database_cluster_uuid: kafka.id },
        json: { source: source(), disable_ssl: true },
      }),
      422,
      /not supported for Kafka/,
    );
  });
});

describe('logical databases and connection pools', () => {
  it('databases: create (in db_names), list, get, delete; refused for engines without them', async () => {
    const pg = await createCluster('pg', '16');
    const params = { database_cluster_uuid: pg.id };
    expect(pg.db_names).toEqual(['defaultdb']);
    const created = await call('databases_add', { params, json: { name: 'app' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ db: { name: 'app' } });
    expectError(await call('databases_add', { params, json: { name: 'app' } }), 422, /already exists/);
    expectError(await call('databases_add', { params, json: { name: '../x' } }), 422, /name may hold/);
    expect((await call('databases_list', { params })).body.dbs).toEqual([
      { name: 'defaultdb' },
      { name: 'app' },
    ]);
    expect((await call('databases_get', { params: { ...params, database_name: 'app' } })).body).toEqual({
      db: { name: 'app' },
    });
    const cluster = await call('databases_get_cluster', { params });
    expect(cluster.body.database.db_names).toEqual(['defaultdb', 'app']);
    expect((await call('databases_delete', { params: { ...params, database_name: 'app' } })).status).toBe(
      204,
    );
    expectError(
      await call('databases_get', { params: { ...params, database_name: 'app' } }),
      404,
      /could not be found/,
    );
    expect((await call('databases_get_cluster', { params })).body.database.db_names).toEqual(['defaultdb']);

    const valkey = await createCluster('valkey', '8');
    const vparams = { database_cluster_uuid: valkey.id };
    expect(valkey.db_names).toBeNull();
    expectError(
      await call('databases_list', { params: vparams }),
      422,
      /Database management is not supported for Valkey/,
    );
    expectError(await call('databases_add', { params: vparams, json: { name: 'x' } }), 422, /pg or mysql/);
  });

  it('pools: create with connection details, list, get, update (204), delete; PostgreSQL only', async () => {
    const pg = await createCluster('pg', '16');
    const params = { database_cluster_uuid: pg.id };
    await call('databases_add', { params, json: { name: 'app' } });
    const created = await call('databases_add_connectionPool', {
      params,
      json: { name: 'backend-pool', mode: 'transaction', size: 10, db: 'app', user: 'doadmin' },
    });
    expect(created.status).toBe(201);
    expect(created.body.pool).toMatchObject({
      name: 'backend-pool',
      mode: 'transaction',
      size: 10,
      db: 'app',
      user: 'doadmin',
      connection: { database: 'backend-pool', user: 'doadmin', password: expect.any(String), port: 25061 },
    });
    expect(created.body.pool.connection.uri).toMatch(
      /^postgresql:\/\/doadmin:.+\/backend-pool\?sslmode=require$/,
    );
    const pool = { ...params, pool_name: 'backend-pool' };
    // A 1 GB primary allows 22 backend connections, shared by all pools.
    expectError(
      await call('databases_add_connectionPool', {
        params,
        json: { name: 'second', mode: 'session', size: 13, db: 'app' },
      }),
      422,
      /12 backend connections left/,
    );
    expectError(
      await call('databases_add_connectionPool', {
        params,
        json: { name: 'third', mode: 'session', size: 1, db: 'nope' },
      }),
      422,
      /database nope does not exist/,
    );
    expectError(
      await call('databases_add_connectionPool', {
        params,
        json: { name: 'fourth', mode: 'lazy', size: 1, db: 'app' },
      }),
      422,
      /mode must be/,
    );
    expectError(
      await call('databases_delete', { params: { ...params, database_name: 'app' } }),
      422,
      /backend-pool/,
    );
    expect(
      (
        await call('databases_update_connectionPool', {
          params: pool,
          json: { mode: 'session', size: 22, db: 'defaultdb' },
        })
      ).status,
    ).toBe(204);
    const got = await call('databases_get_connectionPool', { params: pool });
    expect(got.body.pool).toMatchObject({ mode: 'session', size: 22, db: 'defaultdb' });
    expect(got.body.pool.user).toBeUndefined();
    expect(
      (await call('databases_list_connectionPools', { params })).body.pools.map(
        (p: { name: string }) => p.name,
      ),
    ).toEqual(['backend-pool']);
    expect((await call('databases_delete_connectionPool', { params: pool })).status).toBe(204);
    expectError(await call('databases_get_connectionPool', { params: pool }), 404, /could not be found/);
    expect((await call('databases_list_connectionPools', { params })).body.pools).toEqual([]);

    const mysql = await createCluster('mysql', '8');
    const mparams = { database_cluster_uuid: mysql.id };
    expectError(
      await call('databases_list_connectionPools', { params: mparams }),
      422,
      /Connection pooling is not supported for MySQL/,
    );
    expectError(
      await call('databases_add_connectionPool', {
        params: mparams,
        json: { name: 'backend-pool', mode: 'transaction', size: 1, db: 'defaultdb' },
      }),
      422,
      /pg cluster/,
    );
  });
});

describe('eviction policy and maintenance window', () => {
  it('eviction policy: default noeviction, set (204) and kept; Valkey only; unknown policies refused', async () => {
    const valkey = await createCluster('valkey', '8');
    const params = { database_cluster_uuid: valkey.id };
    expect((await call('databases_get_evictionPolicy', { params })).body).toEqual({
      eviction_policy: 'noeviction',
    });
    expect(
      (await call('databases_update_evictionPolicy', { params, json: { eviction_policy: 'volatile_lru' } }))
        .status,
    ).toBe(204);
    expect((await call('databases_get_evictionPolicy', { params })).body).toEqual({
      eviction_policy: 'volatile_lru',
    });
    expectError(
      await call('databases_update_evictionPolicy', { params, json: { eviction_policy: 'lru' } }),
      422,
      /eviction_policy must be one of/,
    );
    const mysql = await createCluster('mysql', '8');
    expectError(
      await call('databases_get_evictionPolicy', { params: { database_cluster_uuid: mysql.id } }),
      422,
      /Eviction policy is not supported for MySQL/,
    );
  });

  it('maintenance window: set (204), shown on the cluster; bad day or hour refused', async () => {
    const pg = await createCluster('pg', '16');
    const params = { database_cluster_uuid: pg.id };
    expect(pg.maintenance_window).toMatchObject({ day: 'tuesday', hour: '01:00:00' });
    expect(
      (await call('databases_update_maintenanceWindow', { params, json: { day: 'friday', hour: '14:00' } }))
        .status,
    ).toBe(204);
    expect((await call('databases_get_cluster', { params })).body.database.maintenance_window).toMatchObject({
      day: 'friday',
      hour: '14:00:00',
      pending: false,
    });
    expectError(
      await call('databases_update_maintenanceWindow', { params, json: { day: 'someday', hour: '14:00' } }),
      422,
      /day must be/,
    );
    expectError(
      await call('databases_update_maintenanceWindow', { params, json: { day: 'friday', hour: '25:00' } }),
      422,
      /hour must be/,
    );
  });
});

describe('region migration', () => {
  it('moves an online cluster: migrating, then online in the new region; bad regions refused', async () => {
    const pg = await createCluster('pg', '16');
    const params = { database_cluster_uuid: pg.id };
    expectError(await call('databases_update_region', { params, json: { region: 'lon1' } }), 422, /creating/);
    await sandbox.advanceClock(3_000);
    expectError(
      await call('databases_update_region', { params, json: { region: 'nyc3' } }),
      422,
      /already in nyc3/,
    );
    expectError(await call('databases_update_region', { params, json: { region: 'mars1' } }), 422, /mars1/);
    expectError(await call('databases_update_region', { params, json: {} }), 422, /region/);
    const moved = await call('databases_update_region', { params, json: { region: 'lon1' } });
    expect(moved.status).toBe(202);
    expect(moved.body).toBeUndefined();
    const memberIds = async (vpc: string) =>
      (await call('vpcs_list_members', { params: { vpc_id: vpc }, query: '?per_page=200' })).body.members.map(
        (m: { urn: string }) => m.urn,
      );
    // As on the platform, the region (and the VPC) change only when the migration completes.
    const during = (await call('databases_get_cluster', { params })).body.database;
    expect(during).toMatchObject({
      status: 'migrating',
      region: 'nyc3',
      private_network_uuid: pg.private_network_uuid,
    });
    expect(await memberIds(pg.private_network_uuid as string)).toContain(`do:dbaas:${pg.id}`);
    // The sandbox clock runs on from real time: stop well short of the end, then pass it.
    await sandbox.advanceClock(CLUSTER_MIGRATE_MS / 2);
    expect((await call('databases_get_cluster', { params })).body.database).toMatchObject({
      status: 'migrating',
      region: 'nyc3',
    });
    await sandbox.advanceClock(CLUSTER_MIGRATE_MS / 2);
    const after = (await call('databases_get_cluster', { params })).body.database;
    expect(after).toMatchObject({ status: 'online', region: 'lon1' });
    expect(after.private_network_uuid).not.toBe(pg.private_network_uuid);
    const lon1 = (await call('vpcs_get', { params: { vpc_id: after.private_network_uuid } })).body.vpc;
    expect(lon1).toMatchObject({ region: 'lon1', default: true });
    expect(await memberIds(after.private_network_uuid)).toContain(`do:dbaas:${pg.id}`);
    expect(await memberIds(pg.private_network_uuid as string)).not.toContain(`do:dbaas:${pg.id}`);
    expect(
      (await call('databases_list_clusters', { query: '?per_page=200' })).body.databases.find(
        (c: { id: string }) => c.id === pg.id,
      ),
    ).toMatchObject({ region: 'lon1', status: 'online' });
  });
});

describe('read-only replicas', () => {
  it('PostgreSQL and MySQL only: create, list, get, promote (a cluster of its own), delete', async () => {
    const pg = await createCluster('pg', '16');
    const params = { database_cluster_uuid: pg.id };
    const created = await call('databases_create_replica', {
      params,
      json: { name: 'read-nyc3-01', size: 'db-s-2vcpu-4gb', tags: ['prod'] },
    });
    expect(created.status).toBe(201);
    expect(created.body.replica).toMatchObject({
      name: 'read-nyc3-01',
      region: 'nyc3',
      size: 'db-s-2vcpu-4gb',
      status: 'creating',
      tags: ['prod'],
      private_network_uuid: pg.private_network_uuid,
    });
    expectError(
      await call('databases_create_replica', {
        params,
        json: { name: 'read-nyc3-01', size: 'db-s-2vcpu-4gb' },
      }),
      422,
      /already exists/,
    );
    expectError(
      await call('databases_create_replica', { params, json: { name: 'r-2', size: 'db-s-9' } }),
      422,
      /size/,
    );
    const replica = { ...params, replica_name: 'read-nyc3-01' };
    expectError(await call('databases_promote_replica', { params: replica }), 422, /still creating/);
    await sandbox.advanceClock(3_000);
    expect((await call('databases_get_replica', { params: replica })).body.replica.status).toBe('online');
    expect((await call('databases_list_replicas', { params })).body.replicas).toHaveLength(1);
    expect((await call('databases_promote_replica', { params: replica })).status).toBe(204);
    const promoted = await call('databases_get_cluster', {
      params: { database_cluster_uuid: created.body.replica.id },
    });
    expect(promoted.body.database).toMatchObject({ name: 'read-nyc3-01', engine: 'pg', status: 'online' });
    expect((await call('databases_list_replicas', { params })).body.replicas).toEqual([]);
    await call('databases_create_replica', { params, json: { name: 'read-2', size: 'db-s-1vcpu-1gb' } });
    expect(
      (await call('databases_destroy_replica', { params: { ...params, replica_name: 'read-2' } })).status,
    ).toBe(204);
    expectError(
      await call('databases_get_replica', { params: { ...params, replica_name: 'read-2' } }),
      404,
      /could not be found/,
    );

    const valkey = await createCluster('valkey', '8');
    expectError(
      await call('databases_list_replicas', { params: { database_cluster_uuid: valkey.id } }),
      422,
      /Read-only replication is not supported for Valkey/,
    );
  });
});
