/**
 * A database cluster's sub-resources as the platform runs them: the event log, maintenance on
 * demand, storage autoscaling, DigitalOcean settings, the metrics credentials, log sinks, the
 * OpenSearch indexes they fill, and the Kafka schema registry. Each rule is tried from the side
 * that breaks it, a refusal changes nothing, and every answer is checked against the description
 * (`callOperation`).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from './server.js';
import { type CallOptions, callOperation, type Reply, steppingClock } from './testing/operations.js';
import type { World } from './world.js';

let sandbox: Sandbox;
const call = (operationId: string, options?: CallOptions) => callOperation(sandbox.url, operationId, options);
const UNKNOWN = { database_cluster_uuid: '00000000-0000-4000-8000-000000000000' };

function expectError(reply: Reply, status: number, message: RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual({
    id: expect.any(String),
    message: expect.stringMatching(message),
    request_id: expect.any(String),
  });
}

/** The stored world's databases part, to show that a refusal changed nothing. */
const stored = () =>
  sandbox.store.read((w: World) =>
    structuredClone({ clusters: w.clusters, credentials: w.dbMetricsCredentials }),
  );

async function refusedUnchanged(reply: Promise<Reply>, status: number, message: RegExp) {
  const before = await stored();
  expectError(await reply, status, message);
  expect(await stored()).toEqual(before);
}

async function createCluster(engine: string, extra: Record<string, unknown> = {}) {
  const reply = await call('databases_create_cluster', {
    json: {
      name: `${engine}-${randomUUID().slice(0, 8)}`,
      engine,
      region: 'nyc3',
      size: 'db-s-1vcpu-1gb',
      num_nodes: engine === 'kafka' ? 3 : 1,
      ...extra,
    },
  });
  expect(reply.status, reply.text).toBe(201);
  return reply.body.database as { id: string; name: string; connection: { host: string } } & Record<
    string,
    unknown
  >;
}

const eventTypes = async (id: string) =>
  (await call('databases_list_events_logs', { params: { database_cluster_uuid: id } })).body.events.map(
    (e: { event_type: string }) => e.event_type,
  );

beforeAll(async () => {
  sandbox = await startSandbox({ now: steppingClock() });
});
afterAll(async () => {
  await sandbox?.close();
});

describe('events and maintenance', () => {
  it('logs the creation and each change, oldest first, in pages', async () => {
    const cluster = await createCluster('pg', { version: '16' });
    const params = { database_cluster_uuid: cluster.id };
    const first = await call('databases_list_events_logs', { params });
    expect(first.body.events).toEqual([
      {
        id: expect.stringMatching(/^[a-z0-9]{8}$/),
        cluster_name: cluster.name,
        event_type: 'cluster_create',
        create_time: cluster.created_at,
      },
    ]);
    // The creation's event is the same on every read.
    expect((await call('databases_list_events_logs', { params })).body.events).toEqual(first.body.events);

    // Maintenance waits for the cluster to be online; refused, it logs nothing.
    await refusedUnchanged(call('databases_install_update', { params }), 422, /creating/);
    await sandbox.advanceClock(3_000);
    expect((await call('databases_install_update', { params })).status).toBe(204);
    expect((await call('databases_update_clusterSize', { params, json: { num_nodes: 2 } })).status).toBe(202);
    await sandbox.advanceClock(3_000);
    expect(
      (await call('databases_update_maintenanceWindow', { params, json: { day: 'friday', hour: '03:00' } }))
        .status,
    ).toBe(204);
    expect(await eventTypes(cluster.id)).toEqual([
      'cluster_create',
      'cluster_maintenance_perform',
      'cluster_update',
      'cluster_update',
    ]);

    const second = await call('databases_list_events_logs', { params, query: '?per_page=3&page=2' });
    expect(second.body.events.map((e: { event_type: string }) => e.event_type)).toEqual(['cluster_update']);
    expect(second.body.meta.total).toBe(4);
    expect(second.body.links.pages.prev).toContain('page=1');
  });

  it('logs a promoted replica as a cluster of its own, and answers 404 for an unknown cluster', async () => {
    const primary = await createCluster('pg', { version: '16' });
    const params = { database_cluster_uuid: primary.id };
    await sandbox.advanceClock(3_000);
    const replica = await call('databases_create_replica', {
      params,
      json: { name: `read-${randomUUID().slice(0, 6)}`, size: 'db-s-1vcpu-1gb' },
    });
    expect(replica.status, replica.text).toBe(201);
    await sandbox.advanceClock(3_000);
    const promoted = { ...params, replica_name: replica.body.replica.name };
    expect((await call('databases_promote_replica', { params: promoted })).status).toBe(204);
    expect(await eventTypes(replica.body.replica.id)).toEqual(['cluster_create', 'cluster_master_promotion']);
    expect(await eventTypes(primary.id)).toEqual(['cluster_create']);

    expectError(await call('databases_list_events_logs', { params: UNKNOWN }), 404, /could not be found/);
    expectError(await call('databases_install_update', { params: UNKNOWN }), 404, /could not be found/);
  });
});

describe('storage autoscaling', () => {
  it('is off until configured; keeps its thresholds; shows on the cluster', async () => {
    const cluster = await createCluster('pg', { version: '16' });
    const params = { database_cluster_uuid: cluster.id };
    expect(cluster.autoscale).toBeUndefined();
    const off = await call('databases_get_autoscale', { params });
    expect(off.body).toEqual({ autoscale: { storage: { enabled: false } }, storage: { enabled: false } });

    await sandbox.advanceClock(3_000);
    const on = { storage: { enabled: true, threshold_percent: 70, increment_gib: 20 } };
    expect((await call('databases_update_autoscale', { params, json: on })).status).toBe(204);
    expect((await call('databases_get_autoscale', { params })).body.autoscale).toEqual(on);
    // Disabled, it keeps its thresholds; enabled again without them, it takes them back.
    await call('databases_update_autoscale', { params, json: { storage: { enabled: false } } });
    expect((await call('databases_get_autoscale', { params })).body.storage).toEqual({
      ...on.storage,
      enabled: false,
    });
    await call('databases_update_autoscale', { params, json: { storage: { enabled: true } } });
    const got = await call('databases_get_cluster', { params });
    expect(got.body.database.autoscale).toEqual(on);
    expect(await eventTypes(cluster.id)).toEqual(['cluster_create', ...Array(3).fill('cluster_update')]);

    await refusedUnchanged(
      call('databases_update_autoscale', {
        params,
        json: { storage: { enabled: true, threshold_percent: 5 } },
      }),
      422,
      /storage\.threshold_percent must be an integer from 15 to 95/,
    );
    await refusedUnchanged(
      call('databases_update_autoscale', { params, json: { storage: { threshold_percent: 50 } } }),
      422,
      /storage\.enabled is required/,
    );
    await refusedUnchanged(
      call('databases_update_autoscale', {
        params,
        json: { storage: { enabled: true, increment_gib: 501 } },
      }),
      422,
      /increment_gib/,
    );
    expectError(await call('databases_get_autoscale', { params: UNKNOWN }), 404, /could not be found/);
  });

  it('is set at creation, with defaults, and refused for in-memory engines', async () => {
    const created = await createCluster('mysql', { autoscale: { storage: { enabled: true } } });
    expect(created.autoscale).toEqual({
      storage: { enabled: true, threshold_percent: 80, increment_gib: 10 },
    });

    const valkey = await createCluster('valkey');
    const params = { database_cluster_uuid: valkey.id };
    expectError(await call('databases_get_autoscale', { params }), 422, /not supported for Valkey/);
    await refusedUnchanged(
      call('databases_update_autoscale', { params, json: { storage: { enabled: true } } }),
      422,
      /not supported/,
    );
    await refusedUnchanged(
      call('databases_create_cluster', {
        json: {
          name: 'valkey-autoscaled',
          engine: 'valkey',
          region: 'nyc3',
          size: 'db-s-1vcpu-1gb',
          num_nodes: 1,
          autoscale: { storage: { enabled: true } },
        },
      }),
      422,
      /Storage autoscaling is not supported for Valkey/,
    );
  });
});

describe('DigitalOcean settings and metrics credentials', () => {
  it('keeps the CNAMEs, refuses bad ones, clears them, and lists the metrics endpoints', async () => {
    const cluster = await createCluster('pg', { version: '16', num_nodes: 2 });
    const params = { database_cluster_uuid: cluster.id };
    expect(cluster.metrics_endpoints).toEqual([
      { host: cluster.connection.host, port: 9273 },
      { host: `replica-${cluster.connection.host}`, port: 9273 },
    ]);
    expect((await call('databases_get_do_settings', { params })).body).toEqual({
      do_settings: { service_cnames: [] },
    });
    const cnames = ['db.example.com', 'db-replica.example.com'];
    await refusedUnchanged(
      call('databases_update_do_settings', { params, json: { do_settings: { service_cnames: cnames } } }),
      422,
      /creating/,
    );
    await sandbox.advanceClock(3_000);
    expect(
      (
        await call('databases_update_do_settings', {
          params,
          json: { do_settings: { service_cnames: cnames } },
        })
      ).status,
    ).toBe(204);
    expect((await call('databases_get_do_settings', { params })).body.do_settings.service_cnames).toEqual(
      cnames,
    );
    expect((await call('databases_get_cluster', { params })).body.database.do_settings).toEqual({
      service_cnames: cnames,
    });

    await refusedUnchanged(
      call('databases_update_do_settings', {
        params,
        json: { do_settings: { service_cnames: ['localhost'] } },
      }),
      422,
      /service_cnames\[0\] must be a host name/,
    );
    await refusedUnchanged(
      call('databases_update_do_settings', {
        params,
        json: { do_settings: { service_cnames: ['a.example.com', 'A.example.com'] } },
      }),
      422,
      /twice/,
    );
    const many = Array.from({ length: 17 }, (_, i) => `db${i}.example.com`);
    await refusedUnchanged(
      call('databases_update_do_settings', { params, json: { do_settings: { service_cnames: many } } }),
      422,
      /at most 16/,
    );
    await refusedUnchanged(
      call('databases_update_do_settings', {
        params,
        json: { do_settings: { service_cnames: 'db.example.com' } },
      }),
      400,
      /must be an array/,
    );
    await refusedUnchanged(
      call('databases_update_do_settings', { params, json: {} }),
      400,
      /do_settings is required/,
    );

    // Omitted, they are cleared.
    expect((await call('databases_update_do_settings', { params, json: { do_settings: {} } })).status).toBe(
      204,
    );
    expect((await call('databases_get_do_settings', { params })).body.do_settings.service_cnames).toEqual([]);
    expect(await eventTypes(cluster.id)).toEqual(['cluster_create', 'cluster_update', 'cluster_update']);
    expectError(await call('databases_get_do_settings', { params: UNKNOWN }), 404, /could not be found/);
  });

  it('answers and replaces the account metrics credentials', async () => {
    const first = await call('databases_get_cluster_metrics_credentials');
    expect(first.body).toEqual({
      credentials: { basic_auth_username: expect.any(String), basic_auth_password: expect.any(String) },
    });
    const credentials = { basic_auth_username: 'prometheus', basic_auth_password: 'a-long-secret' };
    expect(
      (await call('databases_update_cluster_metrics_credentials', { json: { credentials } })).status,
    ).toBe(204);
    expect((await call('databases_get_cluster_metrics_credentials')).body).toEqual({ credentials });
    await refusedUnchanged(
      call('databases_update_cluster_metrics_credentials', {
        json: { credentials: { basic_auth_username: 'a:b', basic_auth_password: 'a-long-secret' } },
      }),
      422,
      /basic_auth_username/,
    );
    await refusedUnchanged(
      call('databases_update_cluster_metrics_credentials', {
        json: { credentials: { basic_auth_username: 'prom', basic_auth_password: 'short' } },
      }),
      422,
      /basic_auth_password/,
    );
    await refusedUnchanged(
      call('databases_update_cluster_metrics_credentials', { json: {} }),
      422,
      /credentials/,
    );
  });
});

const rsyslog = { server: '192.0.2.10', port: 514, tls: false, format: 'rfc5424' };

describe('log sinks', () => {
  it('are created, listed in pages, read, reconfigured and deleted', async () => {
    const cluster = await createCluster('pg', { version: '16' });
    const params = { database_cluster_uuid: cluster.id };
    const created = await call('databases_create_logsink', {
      params,
      json: { sink_name: 'syslog-1', sink_type: 'rsyslog', config: rsyslog },
    });
    expect(created.status, created.text).toBe(201);
    const sink = created.body.sink;
    expect(sink).toEqual({
      sink_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      sink_name: 'syslog-1',
      sink_type: 'rsyslog',
      config: rsyslog,
    });
    const search = {
      sink_name: 'search-1',
      sink_type: 'elasticsearch',
      config: { url: 'https://user:pw@203.0.113.5:9200', index_prefix: 'pg-logs', index_days_max: 3 },
    };
    expect((await call('databases_create_logsink', { params, json: search })).status).toBe(201);

    const list = await call('databases_list_logsink', { params });
    expect(list.body.sinks.map((s: { sink_name: string }) => s.sink_name)).toEqual(['syslog-1', 'search-1']);
    const page2 = await call('databases_list_logsink', { params, query: '?per_page=1&page=2' });
    expect(page2.body.sinks.map((s: { sink_name: string }) => s.sink_name)).toEqual(['search-1']);
    expect(page2.body.meta.total).toBe(2);

    const sinkParams = { ...params, logsink_id: sink.sink_id };
    expect((await call('databases_get_logsink', { params: sinkParams })).body).toEqual(sink);
    const changed = { ...rsyslog, format: 'custom', logline: '<%pri%> %HOSTNAME% %msg%', tls: true };
    const updated = await call('databases_update_logsink', { params: sinkParams, json: { config: changed } });
    expect(updated).toMatchObject({ status: 200, text: '' });
    expect((await call('databases_get_logsink', { params: sinkParams })).body.config).toEqual(changed);

    // A sink keeps its type: a config of another type is refused.
    await refusedUnchanged(
      call('databases_update_logsink', { params: sinkParams, json: { config: search.config } }),
      422,
      /config\.url is not a setting of rsyslog sinks/,
    );
    await refusedUnchanged(
      call('databases_update_logsink', {
        params: sinkParams,
        json: { config: { ...rsyslog, format: 'custom' } },
      }),
      422,
      /logline is required when format is custom/,
    );

    expect((await call('databases_delete_logsink', { params: sinkParams })).status).toBe(200);
    expectError(await call('databases_get_logsink', { params: sinkParams }), 404, /No log sink/);
    expectError(await call('databases_delete_logsink', { params: sinkParams }), 404, /No log sink/);
    expect((await call('databases_list_logsink', { params })).body.sinks).toHaveLength(1);
    expectError(await call('databases_list_logsink', { params: UNKNOWN }), 404, /could not be found/);
  });

  it('refuses bad sinks, and the types the engine does not forward to', async () => {
    const pg = await createCluster('pg', { version: '16' });
    const params = { database_cluster_uuid: pg.id };
    const create = (json: Record<string, unknown>, on = params) =>
      call('databases_create_logsink', { params: on, json });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ sink_type: 'rsyslog', config: rsyslog }, /sink_name is required/],
      [{ sink_name: 's', sink_type: 'kafka', config: rsyslog }, /sink_type must be one of/],
      [{ sink_name: 's', sink_type: 'rsyslog', config: { ...rsyslog, port: 70_000 } }, /config\.port/],
      [{ sink_name: 's', sink_type: 'rsyslog', config: { ...rsyslog, server: '2001:db8::1' } }, /IPv4/],
      [
        { sink_name: 's', sink_type: 'rsyslog', config: { ...rsyslog, key: '-----BEGIN PRIVATE KEY-----' } },
        /go together/,
      ],
      [
        { sink_name: 's', sink_type: 'opensearch', config: { url: 'ftp://x', index_prefix: 'a' } },
        /config\.url/,
      ],
      [
        { sink_name: 's', sink_type: 'opensearch', config: { url: 'https://h:9200', index_prefix: 'Logs' } },
        /index_prefix/,
      ],
      [
        {
          sink_name: 's',
          sink_type: 'opensearch',
          config: { url: 'https://h:9200', index_prefix: 'l', timeout: 5 },
        },
        /timeout/,
      ],
      [
        { sink_name: 's', sink_type: 'datadog', config: { site: 'x.datadoghq.com', datadog_api_key: 'k' } },
        /datadog sinks are not supported for pg/,
      ],
      [{ sink_name: 's', sink_type: 'rsyslog' }, /config is required/],
    ];
    for (const [json, message] of cases) await refusedUnchanged(create(json), 422, message);
    expect((await create({ sink_name: 'dup', sink_type: 'rsyslog', config: rsyslog })).status).toBe(201);
    await refusedUnchanged(
      create({ sink_name: 'dup', sink_type: 'rsyslog', config: rsyslog }),
      422,
      /already exists/,
    );

    // MongoDB forwards to Datadog only; the answer names the type as the description's does.
    const mongo = { database_cluster_uuid: (await createCluster('mongodb')).id };
    await refusedUnchanged(
      create({ sink_name: 'm', sink_type: 'rsyslog', config: rsyslog }, mongo),
      422,
      /rsyslog sinks are not supported for mongodb clusters; use datadog/,
    );
    const datadog = { site: 'http-intake.logs.datadoghq.com', datadog_api_key: 'a'.repeat(32) };
    const dd = await create({ sink_name: 'dd', sink_type: 'datadog', config: datadog }, mongo);
    expect(dd.status, dd.text).toBe(201);
    expect(dd.body.sink).toMatchObject({ sink_name: 'dd', sink_type: 'rsyslog', config: datadog });
  });
});

describe('OpenSearch indexes', () => {
  it('fill daily from the sinks that point at the cluster, and are deleted', async () => {
    const search = await createCluster('opensearch');
    const params = { database_cluster_uuid: search.id };
    const pg = await createCluster('pg', { version: '16' });
    const sink = await call('databases_create_logsink', {
      params: { database_cluster_uuid: pg.id },
      json: {
        sink_name: 'to-search',
        sink_type: 'opensearch',
        config: {
          url: `https://doadmin:pw@${search.connection.host}:25060`,
          index_prefix: 'pglogs',
          index_days_max: 2,
        },
      },
    });
    expect(sink.status, sink.text).toBe(201);
    // Nothing is written before the cluster is online.
    expect((await call('databases_list_opeasearch_indexes', { params })).body.indexes).toEqual([]);
    await sandbox.advanceClock(3_000 + 10 * 60_000);
    const [index] = (await call('databases_list_opeasearch_indexes', { params })).body.indexes;
    expect(index).toMatchObject({
      index_name: expect.stringMatching(/^pglogs-\d{4}-\d{2}-\d{2}$/),
      number_of_shards: 1,
      number_of_replicas: 0,
      status: 'open',
      health: 'green',
      size: expect.any(Number),
    });
    expect(index.created_time).toBe(index.create_time);
    await sandbox.advanceClock(10 * 60_000);
    const grown = (await call('databases_list_opeasearch_indexes', { params })).body.indexes[0];
    expect(grown.size).toBeGreaterThan(index.size);

    // A day later there are two; three days later still two (index_days_max).
    await sandbox.advanceClock(86_400_000);
    const two = (await call('databases_list_opeasearch_indexes', { params })).body.indexes;
    expect(two.map((i: { index_name: string }) => i.index_name)).toContain(index.index_name);
    expect(two).toHaveLength(2);
    await sandbox.advanceClock(3 * 86_400_000);
    const kept = (await call('databases_list_opeasearch_indexes', { params })).body.indexes;
    expect(kept).toHaveLength(2);
    expect(kept.map((i: { index_name: string }) => i.index_name)).not.toContain(index.index_name);
    const page2 = await call('databases_list_opeasearch_indexes', { params, query: '?per_page=1&page=2' });
    expect(page2.body.indexes).toEqual([kept[1]]);

    const name = kept[0].index_name;
    expect(
      (await call('databases_delete_opensearch_index', { params: { ...params, index_name: name } })).status,
    ).toBe(204);
    expect(
      (await call('databases_list_opeasearch_indexes', { params })).body.indexes.map(
        (i: { index_name: string }) => i.index_name,
      ),
    ).toEqual([kept[1].index_name]);
    await refusedUnchanged(
      call('databases_delete_opensearch_index', { params: { ...params, index_name: name } }),
      404,
      /No index/,
    );
  });

  it('exist on OpenSearch clusters only', async () => {
    const pg = { database_cluster_uuid: (await createCluster('pg', { version: '16' })).id };
    expectError(
      await call('databases_list_opeasearch_indexes', { params: pg }),
      422,
      /Index management is not supported for PostgreSQL/,
    );
    await refusedUnchanged(
      call('databases_delete_opensearch_index', { params: { ...pg, index_name: 'x' } }),
      422,
      /Index management is not supported for PostgreSQL/,
    );
    expectError(
      await call('databases_list_opeasearch_indexes', { params: UNKNOWN }),
      404,
      /could not be found/,
    );
  });
});

const customer = (fields: Record<string, unknown>[]) =>
  JSON.stringify({ type: 'record', name: 'Customer', fields: [{ name: 'id', type: 'string' }, ...fields] });

describe('Kafka schema registry', () => {
  it('registers versions, reuses ids, and holds them to the compatibility level', async () => {
    const kafka = await createCluster('kafka');
    const params = { database_cluster_uuid: kafka.id };
    expect((await call('databases_list_kafka_schemas', { params })).body.subjects).toEqual([]);
    const register = (subject_name: string, schema: string, schema_type = 'AVRO') =>
      call('databases_create_kafka_schema', { params, json: { subject_name, schema_type, schema } });

    const v1 = await register('customer-value', customer([]));
    expect(v1.status, v1.text).toBe(201);
    expect(v1.body).toEqual({
      schema_id: 1,
      subject_name: 'customer-value',
      schema_type: 'AVRO',
      schema: customer([]),
    });
    // The same schema again: the same id, no new version (however it is spaced).
    const again = await register('customer-value', JSON.stringify(JSON.parse(customer([])), null, 2));
    expect(again.body.schema_id).toBe(1);
    const subject = { ...params, subject_name: 'customer-value' };
    expect((await call('databases_get_kafka_schema', { params: subject })).body.version).toBe('1');

    // BACKWARD by default: a field added without a default cannot read the old data.
    await refusedUnchanged(
      register('customer-value', customer([{ name: 'email', type: 'string' }])),
      409,
      /incompatible with version 1 .*BACKWARD.*field email has no default/,
    );
    const v2 = await register('customer-value', customer([{ name: 'email', type: 'string', default: '' }]));
    expect(v2.body.schema_id).toBe(2);
    const latest = await call('databases_get_kafka_schema', { params: subject });
    expect(latest.body).toMatchObject({ schema_id: 2, version: '2' });
    const version = (v: string) =>
      call('databases_get_kafka_schema_version', { params: { ...subject, version: v } });
    expect((await version('1')).body).toMatchObject({ schema_id: 1, version: '1' });
    expect((await version('latest')).body).toEqual(latest.body);
    expectError(await version('3'), 404, /Version 3/);
    expectError(await version('first'), 404, /Version first/);

    // Registered under another subject, a schema keeps its id.
    expect((await register('archive-value', customer([]))).body).toMatchObject({ schema_id: 1 });
    const list = await call('databases_list_kafka_schemas', { params });
    expect(
      list.body.subjects.map((s: { subject_name: string; schema_id: number }) => [
        s.subject_name,
        s.schema_id,
      ]),
    ).toEqual([
      ['archive-value', 1],
      ['customer-value', 2],
    ]);
    const page2 = await call('databases_list_kafka_schemas', { params, query: '?per_page=1&page=2' });
    expect(page2.body.subjects.map((s: { subject_name: string }) => s.subject_name)).toEqual([
      'customer-value',
    ]);

    await refusedUnchanged(
      register('bad', '{"type": "record", "name": "X"}'),
      422,
      /not a valid AVRO schema: .*fields/,
    );
    await refusedUnchanged(register('bad', 'not json', 'JSON'), 422, /not a valid JSON schema/);
    await refusedUnchanged(register('bad', 'syntax = "proto3";', 'PROTOBUF'), 422, /PROTOBUF/);
    await refusedUnchanged(register('bad', '"string"', 'XML'), 422, /schema_type must be one of/);
    const proto = await register(
      'orders-value',
      'syntax = "proto3";\nmessage Order { string id = 1; }',
      'PROTOBUF',
    );
    expect(proto.body).toMatchObject({ schema_id: 3, schema_type: 'PROTOBUF' });

    expect((await call('databases_delete_kafka_schema', { params: subject })).status).toBe(204);
    expectError(await call('databases_get_kafka_schema', { params: subject }), 404, /Subject customer-value/);
    expectError(
      await call('databases_delete_kafka_schema', { params: subject }),
      404,
      /Subject customer-value/,
    );
  });

  it('sets the registry and subject compatibility levels', async () => {
    const kafka = await createCluster('kafka');
    const params = { database_cluster_uuid: kafka.id };
    expect((await call('databases_get_kafka_schema_config', { params })).body).toEqual({
      compatibility_level: 'BACKWARD',
    });
    const put = await call('databases_update_kafka_schema_config', {
      params,
      json: { compatibility_level: 'FORWARD' },
    });
    expect(put.body).toEqual({ compatibility_level: 'FORWARD' });
    await refusedUnchanged(
      call('databases_update_kafka_schema_config', { params, json: { compatibility_level: 'LOOSE' } }),
      422,
      /compatibility_level is required: one of NONE/,
    );

    const subject = { ...params, subject_name: 'events-value' };
    expectError(
      await call('databases_get_kafka_schema_subject_config', { params: subject }),
      404,
      /events-value/,
    );
    const register = (fields: Record<string, unknown>[]) =>
      call('databases_create_kafka_schema', {
        params,
        json: { subject_name: 'events-value', schema_type: 'AVRO', schema: customer(fields) },
      });
    expect((await register([{ name: 'kind', type: 'string' }])).status).toBe(201);
    // The subject follows the registry's level: FORWARD lets a field be added, not removed.
    expect((await call('databases_get_kafka_schema_subject_config', { params: subject })).body).toEqual({
      subject_name: 'events-value',
      compatibility_level: 'FORWARD',
    });
    expect(
      (
        await register([
          { name: 'kind', type: 'string' },
          { name: 'at', type: 'long' },
        ])
      ).status,
    ).toBe(201);
    await refusedUnchanged(register([{ name: 'at', type: 'long' }]), 409, /FORWARD.*field kind/);

    const none = await call('databases_update_kafka_schema_subject_config', {
      params: subject,
      json: { compatibility_level: 'NONE' },
    });
    expect(none.body).toEqual({ subject_name: 'events-value', compatibility_level: 'NONE' });
    expect((await register([{ name: 'at', type: 'long' }])).body).toMatchObject({
      subject_name: 'events-value',
    });
    expect((await call('databases_get_kafka_schema', { params: subject })).body.version).toBe('3');
    expect((await call('databases_get_kafka_schema_config', { params })).body.compatibility_level).toBe(
      'FORWARD',
    );
  });

  it('exists on Kafka clusters only', async () => {
    const pg = { database_cluster_uuid: (await createCluster('pg', { version: '16' })).id };
    const subject = { ...pg, subject_name: 'x' };
    expectError(await call('databases_list_kafka_schemas', { params: pg }), 404, /only Kafka clusters/);
    await refusedUnchanged(
      call('databases_create_kafka_schema', {
        params: pg,
        json: { subject_name: 'x', schema_type: 'AVRO', schema: '"string"' },
      }),
      404,
      /only Kafka clusters/,
    );
    expectError(await call('databases_get_kafka_schema', { params: subject }), 404, /only Kafka clusters/);
    expectError(
      await call('databases_get_kafka_schema_version', { params: { ...subject, version: '1' } }),
      404,
      /only Kafka clusters/,
    );
    expectError(await call('databases_get_kafka_schema_config', { params: pg }), 404, /only Kafka clusters/);
    expectError(await call('databases_list_kafka_schemas', { params: UNKNOWN }), 404, /could not be found/);
  });
});
