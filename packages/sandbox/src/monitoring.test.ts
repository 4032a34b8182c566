/**
 * Monitoring as the platform runs it, over raw HTTP with every answer checked against the API
 * description (`callOperation`): alert policies (their entities must be the account's, their
 * refusals change nothing), the metrics queries (Prometheus matrices for the VM, balancer, pool,
 * app or cluster asked, on the sandbox clock), and log forwarding (destinations and sinks).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_POINTS } from './routes/monitoring-series.js';
import { type Sandbox, startSandbox } from './server.js';
import { type CallOptions, callOperation, type Reply, steppingClock } from './testing/operations.js';
import type { World } from './world.js';

let sandbox: Sandbox;
const call = (operationId: string, options?: CallOptions) => callOperation(sandbox.url, operationId, options);

function expectError(reply: Reply, status: number, mentions: RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual({
    id: expect.any(String),
    message: expect.stringMatching(mentions),
    request_id: expect.any(String),
  });
}

const monitoring = () =>
  sandbox.store.read((w: World) =>
    structuredClone({ policies: w.alertPolicies, destinations: w.logDestinations, sinks: w.logSinks }),
  );

/** Expects a refusal that changes nothing. */
async function refusedUnchanged(reply: Promise<Reply>, status: number, mentions: RegExp) {
  const before = await monitoring();
  expectError(await reply, status, mentions);
  expect(await monitoring()).toEqual(before);
}

async function vm(name: string, extra: Record<string, unknown> = {}) {
  const created = await call('droplets_create', {
    json: { name, region: 'nyc3', size: 's-2vcpu-4gb', image: 'ubuntu-24-04-x64', ...extra },
  });
  expect(created.status, created.text).toBe(202);
  return created.body.droplet as {
    id: number;
    memory: number;
    disk: number;
    vcpus: number;
    created_at: string;
  };
}

async function cluster(name: string, engine: string, version: string) {
  const created = await call('databases_create_cluster', {
    json: { name, engine, version, region: 'nyc3', size: 'db-s-2vcpu-4gb', num_nodes: 1 },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.database as { id: string; name: string };
}

const HTTP_RULE = { entry_protocol: 'http', entry_port: 80, target_protocol: 'http', target_port: 80 };
const TLS_RULE = {
  entry_protocol: 'https',
  entry_port: 443,
  target_protocol: 'https',
  target_port: 443,
  tls_passthrough: true,
};

async function loadBalancer(name: string, extra: Record<string, unknown>) {
  const created = await call('loadBalancers_create', {
    json: { name, region: 'nyc3', forwarding_rules: [HTTP_RULE], ...extra },
  });
  expect(created.status, created.text).toBe(202);
  return created.body.load_balancer as { id: string };
}

const policy = (extra: Record<string, unknown> = {}) => ({
  type: 'v1/insights/droplet/cpu',
  description: 'CPU high',
  compare: 'GreaterThan',
  value: 80,
  window: '5m',
  entities: [],
  tags: ['production'],
  alerts: { email: ['ops@example.com'], slack: [] },
  enabled: true,
  ...extra,
});

/** Seconds on the sandbox clock (what `now` means to it). */
const sandboxNow = async () =>
  Math.floor((Date.now() + (await sandbox.store.read((w: World) => w.clockOffsetMs))) / 1000);

/** A query string of the parameters given. */
const queryOf = (query: Record<string, string | number>) =>
  `?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`;

type Series = { metric: Record<string, string>; values: [number, string][] };

async function metric(operationId: string, query: Record<string, string | number>): Promise<Series[]> {
  const reply = await call(operationId, {
    query: queryOf(query),
  });
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body.status).toBe('success');
  expect(reply.body.data.resultType).toBe('matrix');
  return reply.body.data.result;
}

beforeAll(async () => {
  sandbox = await startSandbox({ now: steppingClock() });
});
afterAll(async () => {
  await sandbox.close();
});

describe('alert policies', () => {
  it('creates, reads, lists in pages, replaces and deletes a policy on VMs', async () => {
    const web = await vm('alert-web');
    const created = await call('monitoring_create_alertPolicy', {
      json: policy({ entities: [String(web.id)], alerts: { email: ['ops@example.com'] } }),
    });
    expect(created.status, created.text).toBe(200);
    const uuid = created.body.policy.uuid as string;
    expect(created.body.policy).toEqual({
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'v1/insights/droplet/cpu',
      description: 'CPU high',
      compare: 'GreaterThan',
      value: 80,
      window: '5m',
      entities: [String(web.id)],
      tags: ['production'],
      // Both lists are answered, the one not given empty.
      alerts: { email: ['ops@example.com'], slack: [] },
      enabled: true,
    });
    expect((await call('monitoring_get_alertPolicy', { params: { alert_uuid: uuid } })).body.policy).toEqual(
      created.body.policy,
    );

    for (const description of ['second', 'third']) {
      const more = await call('monitoring_create_alertPolicy', {
        json: policy({ description, type: 'v1/insights/droplet/memory_utilization_percent', value: 90 }),
      });
      expect(more.status, more.text).toBe(200);
    }
    const page2 = await call('monitoring_list_alertPolicy', { query: '?per_page=2&page=2' });
    expect(page2.body.meta.total).toBeGreaterThanOrEqual(3);
    expect(page2.body.policies).toHaveLength(Math.min(2, page2.body.meta.total - 2));
    expect(page2.body.links.pages.prev).toContain('page=1');
    const all = await call('monitoring_list_alertPolicy', { query: '?per_page=200' });
    expect(all.body.policies.map((p: { uuid: string }) => p.uuid)).toContain(uuid);

    const replaced = await call('monitoring_update_alertPolicy', {
      params: { alert_uuid: uuid },
      json: policy({
        description: 'CPU very high',
        compare: 'LessThan',
        value: 5,
        window: '1h',
        entities: [],
        tags: [],
        alerts: { email: [], slack: [{ url: 'https://hooks.slack.com/services/T0/B0/X', channel: '#ops' }] },
        enabled: false,
      }),
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.policy).toMatchObject({
      uuid,
      description: 'CPU very high',
      compare: 'LessThan',
      value: 5,
      window: '1h',
      entities: [],
      enabled: false,
      alerts: { email: [], slack: [{ channel: '#ops' }] },
    });
    expect((await call('monitoring_get_alertPolicy', { params: { alert_uuid: uuid } })).body.policy).toEqual(
      replaced.body.policy,
    );

    expect((await call('monitoring_delete_alertPolicy', { params: { alert_uuid: uuid } })).status).toBe(204);
    expectError(
      await call('monitoring_get_alertPolicy', { params: { alert_uuid: uuid } }),
      404,
      /not be found/,
    );
    expectError(
      await call('monitoring_delete_alertPolicy', { params: { alert_uuid: uuid } }),
      404,
      /not be found/,
    );
    expectError(
      await call('monitoring_update_alertPolicy', { params: { alert_uuid: uuid }, json: policy() }),
      404,
      /not be found/,
    );
  });

  it('watches load balancers and database clusters by their ids', async () => {
    const plain = await loadBalancer('alert-lb', {});
    const tls = await loadBalancer('alert-lb-tls', { forwarding_rules: [TLS_RULE] });
    const db = await cluster('alert-db', 'pg', '16');
    const lbPolicy = await call('monitoring_create_alertPolicy', {
      json: policy({ type: 'v1/insights/lbaas/avg_cpu_utilization_percent', entities: [plain.id, tls.id] }),
    });
    expect(lbPolicy.status, lbPolicy.text).toBe(200);
    const tlsPolicy = await call('monitoring_create_alertPolicy', {
      json: policy({
        type: 'v1/insights/lbaas/tls_connections_per_second_utilization_percent',
        entities: [tls.id],
      }),
    });
    expect(tlsPolicy.status, tlsPolicy.text).toBe(200);
    await refusedUnchanged(
      call('monitoring_create_alertPolicy', {
        json: policy({
          type: 'v1/insights/lbaas/tls_connections_per_second_utilization_percent',
          entities: [plain.id],
        }),
      }),
      400,
      /no HTTPS forwarding rule/,
    );
    const dbPolicy = await call('monitoring_create_alertPolicy', {
      json: policy({ type: 'v1/dbaas/alerts/cpu_alerts', entities: [db.id] }),
    });
    expect(dbPolicy.status, dbPolicy.text).toBe(200);
    // A VM's id is not a database cluster's.
    const web = await vm('alert-not-db');
    await refusedUnchanged(
      call('monitoring_create_alertPolicy', {
        json: policy({ type: 'v1/dbaas/alerts/cpu_alerts', entities: [String(web.id)] }),
      }),
      400,
      /not the id of one of your database clusters/,
    );
  });

  it('refuses a policy the platform would refuse, with a 400 naming the field, and stores nothing', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ type: undefined }, /missing required field 'type'/],
      [{ type: 'v1/insights/droplet/temperature' }, /not an alert policy type/],
      [{ compare: 'Equals' }, /compare must be one of GreaterThan, LessThan/],
      [{ window: '15m' }, /window must be one of 5m, 10m, 30m, 1h/],
      [{ value: '80' }, /value must be a number/],
      [{ value: 120 }, /at most 100/],
      [{ description: '' }, /description must be a non-empty string/],
      [{ entities: ['999999999'] }, /not the id of one of your Droplets/],
      [{ entities: [123] }, /entities must be an array of strings/],
      [
        { type: 'v1/insights/lbaas/droplet_health', entities: ['7d2bd4a4-0000-4000-8000-000000000000'] },
        /load balancers/,
      ],
      [{ tags: ['bad tag'] }, /not a valid tag name/],
      [{ alerts: { email: [], slack: [] } }, /at least one email address or Slack channel/],
      [{ alerts: { email: ['not-an-address'] } }, /not an email address/],
      [
        { alerts: { slack: [{ url: 'http://hooks.slack.com/x', channel: '#ops' }] } },
        /https:\/\/ webhook URL/,
      ],
      [{ alerts: undefined }, /missing required field 'alerts'/],
      [{ enabled: 'yes' }, /enabled must be true or false/],
    ];
    for (const [change, message] of cases) {
      await refusedUnchanged(call('monitoring_create_alertPolicy', { json: policy(change) }), 400, message);
    }
  });
});

describe('droplet metrics', () => {
  it('answers CPU seconds per mode that only grow, vcpus seconds a second in all, from creation to now', async () => {
    const host = await vm('metrics-cpu');
    const born = Math.floor(Date.parse(host.created_at) / 1000);
    await sandbox.advanceClock(2 * 3_600_000);
    const now = await sandboxNow();
    const window = { host_id: host.id, start: now - 3_600, end: now };
    const cpu = await metric('monitoring_get_DropletCpuMetrics', window);
    expect(cpu.map((s) => s.metric.mode).sort()).toEqual([
      'idle',
      'iowait',
      'irq',
      'nice',
      'softirq',
      'steal',
      'system',
      'user',
    ]);
    for (const s of cpu) {
      expect(s.metric.host_id).toBe(String(host.id));
      const times = s.values.map(([t]) => t);
      const step = (times[1] as number) - (times[0] as number);
      // One sample a step, on the step, within the window and the VM's life.
      expect(
        times.every((t, i) => t % step === 0 && (i === 0 || t - (times[i - 1] as number) === step)),
      ).toBe(true);
      expect(times[0]).toBeGreaterThanOrEqual(Math.max(born, window.start));
      expect(times.at(-1)).toBeLessThanOrEqual(window.end);
      const values = s.values.map(([, v]) => Number(v));
      for (let i = 1; i < values.length; i++)
        expect(values[i]).toBeGreaterThanOrEqual(values[i - 1] as number);
    }
    // All modes together: vcpus seconds for each second that passed.
    const total = (index: number) => cpu.reduce((sum, s) => sum + Number(s.values[index]?.[1]), 0);
    const first = cpu[0]?.values[0]?.[0] as number;
    const last = cpu[0]?.values.at(-1)?.[0] as number;
    expect(total((cpu[0]?.values.length as number) - 1) - total(0)).toBeCloseTo(
      host.vcpus * (last - first),
      -1,
    );
    const user = cpu.find((s) => s.metric.mode === 'user') as Series;
    const idle = cpu.find((s) => s.metric.mode === 'idle') as Series;
    expect(Number(idle.values.at(-1)?.[1])).toBeGreaterThan(Number(user.values.at(-1)?.[1]));

    // The same question, the same answer; a window before the VM existed has no samples.
    expect(await metric('monitoring_get_DropletCpuMetrics', window)).toEqual(cpu);
    expect(
      await metric('monitoring_get_DropletCpuMetrics', { ...window, start: born - 7_200, end: born - 60 }),
    ).toEqual([]);
  });

  it('answers memory within the size, and nothing from the agent for a VM without monitoring', async () => {
    const watched = await vm('metrics-agent', { monitoring: true });
    const bare = await vm('metrics-bare');
    await sandbox.advanceClock(3_600_000);
    const now = await sandboxNow();
    const window = (host: { id: number }) => ({ host_id: host.id, start: now - 1_800, end: now });
    const [total] = await metric('monitoring_get_dropletMemoryTotalMetrics', window(watched));
    const [available] = await metric('monitoring_get_dropletMemoryAvailableMetrics', window(watched));
    const [free] = await metric('monitoring_get_dropletMemoryFreeMetrics', window(watched));
    const [cached] = await metric('monitoring_get_dropletMemoryCachedMetrics', window(watched));
    expect(total?.metric).toEqual({ host_id: String(watched.id) });
    const size = watched.memory * 1_048_576;
    total?.values.forEach(([t, value], i) => {
      expect(Number(value)).toBeLessThanOrEqual(size);
      expect(Number(value)).toBeGreaterThan(size * 0.9);
      expect(available?.values[i]?.[0]).toBe(t);
      expect(Number(available?.values[i]?.[1])).toBeLessThanOrEqual(Number(value));
      expect(Number(free?.values[i]?.[1])).toBeLessThanOrEqual(Number(available?.values[i]?.[1]));
      expect(Number(free?.values[i]?.[1])).toBeGreaterThan(0);
      expect(Number(cached?.values[i]?.[1])).toBeLessThanOrEqual(Number(available?.values[i]?.[1]));
    });
    const [fsSize] = await metric('monitoring_get_dropletFilesystemSizeMetrics', window(watched));
    const [fsFree] = await metric('monitoring_get_dropletFilesystemFreeMetrics', window(watched));
    expect(fsSize?.metric).toEqual({
      device: '/dev/vda1',
      fstype: 'ext4',
      host_id: String(watched.id),
      mountpoint: '/',
    });
    expect(Number(fsSize?.values[0]?.[1])).toBeLessThanOrEqual(watched.disk * 1_073_741_824);
    expect(Number(fsFree?.values[0]?.[1])).toBeLessThan(Number(fsSize?.values[0]?.[1]));
    const [load1] = await metric('monitoring_get_dropletLoad1Metrics', window(watched));
    expect(load1?.values.every(([, v]) => Number(v) >= 0 && Number(v) < watched.vcpus * 2)).toBe(true);

    for (const op of [
      'monitoring_get_dropletMemoryTotalMetrics',
      'monitoring_get_dropletLoad5Metrics',
      'monitoring_get_dropletFilesystemFreeMetrics',
    ]) {
      expect(await metric(op, window(bare))).toEqual([]);
    }
    // CPU and bandwidth come from the hypervisor: every VM has them.
    expect(await metric('monitoring_get_DropletCpuMetrics', window(bare))).toHaveLength(8);
  });

  it('answers bandwidth for an interface and direction, in Mbps', async () => {
    const host = await vm('metrics-bw');
    await sandbox.advanceClock(1_800_000);
    const now = await sandboxNow();
    const query = {
      host_id: host.id,
      interface: 'public',
      direction: 'outbound',
      start: now - 900,
      end: now,
    };
    const [bandwidth] = await metric('monitoring_get_dropletBandwidthMetrics', query);
    expect(bandwidth?.metric).toEqual({
      direction: 'outbound',
      host_id: String(host.id),
      interface: 'public',
    });
    expect(bandwidth?.values.length).toBeGreaterThan(5);
    expect(bandwidth?.values.every(([, v]) => Number(v) > 0 && Number(v) < 10)).toBe(true);
    expectError(
      await call('monitoring_get_dropletBandwidthMetrics', {
        query: queryOf({ ...query, interface: 'eth0' }),
      }),
      400,
      /interface must be one of private, public/,
    );
  });

  it('keeps a long window within its samples, and refuses a bad window or an unknown VM', async () => {
    const host = await vm('metrics-window');
    await sandbox.advanceClock(10 * 86_400_000);
    const now = await sandboxNow();
    const [week] = await metric('monitoring_get_DropletCpuMetrics', {
      host_id: host.id,
      start: now - 7 * 86_400,
      end: now,
    });
    expect(week?.values.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(week?.values.length).toBeGreaterThan(100);
    const ask = (query: Record<string, string | number>) =>
      call('monitoring_get_DropletCpuMetrics', {
        query: queryOf(query),
      });
    expectError(
      await ask({ host_id: host.id, start: now, end: now - 60 }),
      400,
      /start .* must be before end/,
    );
    expectError(await ask({ host_id: host.id, end: now }), 400, /start is required/);
    expectError(
      await ask({ host_id: host.id, start: 'yesterday', end: now }),
      400,
      /start must be a UNIX timestamp/,
    );
    expectError(
      await ask({ host_id: 999_999_999, start: now - 60, end: now }),
      404,
      /Droplet 999999999 not found/,
    );
    expectError(await ask({ start: now - 60, end: now }), 400, /host_id is required/);
    // An RFC 3339 time is taken too; a window ending in the future stops at now.
    const later = await metric('monitoring_get_DropletCpuMetrics', {
      host_id: host.id,
      start: new Date((now - 600) * 1000).toISOString(),
      end: now + 3_600,
    });
    expect(later[0]?.values.at(-1)?.[0]).toBeLessThanOrEqual(now + 1);
  });
});

describe('other metrics', () => {
  it('answers a load balancer frontend, and its backends VM by VM', async () => {
    const a = await vm('lb-backend-a');
    const b = await vm('lb-backend-b');
    const lb = await loadBalancer('metrics-lb', { droplet_ids: [a.id, b.id], size_unit: 2 });
    await sandbox.advanceClock(3_600_000);
    const now = await sandboxNow();
    const window = { lb_id: lb.id, start: now - 1_800, end: now };
    const [limit] = await metric('monitoring_get_lb_frontend_connections_limit', window);
    expect(limit?.metric).toEqual({ lb_id: lb.id, region: 'nyc3' });
    expect(limit?.values.every(([, v]) => v === '20000')).toBe(true);
    const health = await metric('monitoring_get_lb_droplets_health_checks', window);
    expect(health.map((s) => s.metric.droplet_id).sort()).toEqual([String(a.id), String(b.id)].sort());
    expect(health.every((s) => s.values.every(([, v]) => v === '1'))).toBe(true);
    const responses = await metric('monitoring_get_lb_frontend_http_responses', window);
    expect(responses.map((s) => s.metric.code)).toEqual(['2xx', '3xx', '4xx', '5xx']);
    const p50 = await metric('monitoring_get_lb_droplets_http_response_time_50p', window);
    const p99 = await metric('monitoring_get_lb_droplets_http_response_time_99p', window);
    expect(Number(p99[0]?.values[0]?.[1])).toBeGreaterThan(Number(p50[0]?.values[0]?.[1]));
    // Network load balancer metrics are a network load balancer's only.
    expect(await metric('monitoring_get_lb_frontend_nlb_tcp_network_throughput', window)).toEqual([]);
    expect(await metric('monitoring_get_lb_frontend_firewall_dropped_packets', window)).toEqual([]);
    expectError(
      await call('monitoring_get_lb_frontend_cpu_utilization', {
        query: `?lb_id=7d2bd4a4-0000-4000-8000-000000000000&start=${now - 60}&end=${now}`,
      }),
      404,
      /load balancer .* not found/,
    );
  });

  it("answers a MySQL cluster's metrics, with the parameters each needs, and refuses another engine", async () => {
    const mysql = await cluster('metrics-mysql', 'mysql', '8');
    const pg = await cluster('metrics-pg', 'pg', '16');
    await sandbox.advanceClock(3_600_000);
    const now = await sandboxNow();
    const window = { db_id: mysql.id, start: now - 1_800, end: now };
    const [avg] = await metric('monitoring_get_database_mysql_cpu_usage', { ...window, aggregate: 'avg' });
    const [max] = await metric('monitoring_get_database_mysql_cpu_usage', { ...window, aggregate: 'max' });
    expect(avg?.metric).toMatchObject({ db_id: mysql.id });
    avg?.values.forEach(([, v], i) => {
      expect(Number(v)).toBeGreaterThan(0);
      expect(Number(v)).toBeLessThanOrEqual(Number(max?.values[i]?.[1]));
    });
    const [latency] = await metric('monitoring_get_database_mysql_schema_latency', {
      ...window,
      schema: 'defaultdb',
      metric: 'fetch',
    });
    expect(latency?.metric).toMatchObject({ db_id: mysql.id, schema: 'defaultdb' });
    const q = queryOf;
    expectError(
      await call('monitoring_get_database_mysql_cpu_usage', { query: q(window) }),
      400,
      /aggregate is required/,
    );
    expectError(
      await call('monitoring_get_database_mysql_load', {
        query: q({ ...window, metric: 'load2', aggregate: 'avg' }),
      }),
      400,
      /metric must be one of load1, load5, load15/,
    );
    expectError(
      await call('monitoring_get_database_mysql_schema_throughput', {
        query: q({ ...window, schema: 'nope', metric: 'insert' }),
      }),
      400,
      /not a database of the cluster/,
    );
    expectError(
      await call('monitoring_get_database_mysql_threads_active', { query: q({ ...window, db_id: pg.id }) }),
      400,
      /is pg: these metrics are MySQL's/,
    );
  });

  it('answers an app and an autoscale pool by their ids', async () => {
    const now = await sandboxNow();
    const app = '4f6c71e2-1e90-4762-9fee-6cc4a0a9f2cf';
    const [cpu] = await metric('monitoring_get_appCPUPercentageMetrics', {
      app_id: app,
      app_component: 'web',
      start: now - 3_600,
      end: now,
    });
    expect(cpu?.metric).toEqual({ app_id: app, app_component: 'web' });
    expect(cpu?.values.every(([, v]) => Number(v) > 0 && Number(v) <= 100)).toBe(true);
    const pool = '0d3db13e-a604-4944-9827-7ec2642d32ac';
    const [size] = await metric('monitoring_get_droplet_autoscale_current_instances', {
      autoscale_pool_id: pool,
      start: now - 3_600,
      end: now,
    });
    expect(size?.values.every(([, v]) => Number.isInteger(Number(v)) && Number(v) >= 2)).toBe(true);
    expectError(
      await call('monitoring_get_appMemoryPercentageMetrics', {
        query: `?app_id=web&start=${now - 60}&end=${now}`,
      }),
      404,
      /not found/,
    );
  });
});

describe('log forwarding', () => {
  it('keeps destinations without their credentials, and sinks that send to them', async () => {
    const search = await cluster('logs-search', 'opensearch', '2');
    const managed = await call('monitoring_create_destination', {
      json: {
        type: 'opensearch_dbaas',
        config: { endpoint: 'logs-search.example.com', cluster_uuid: search.id, index_name: 'logs' },
      },
    });
    expect(managed.status, managed.text).toBe(200);
    expect(managed.body.destination).toMatchObject({
      name: 'logs-search',
      type: 'opensearch_dbaas',
      config: {
        cluster_uuid: search.id,
        cluster_name: 'logs-search',
        index_name: 'logs',
        retention_days: 14,
      },
    });
    const external = await call('monitoring_create_destination', {
      json: {
        name: 'external',
        type: 'opensearch_ext',
        config: {
          endpoint: 'search.example.com',
          credentials: { username: 'u', password: 'hunter2' },
          retention_days: 7,
        },
      },
    });
    expect(external.status, external.text).toBe(200);
    expect(external.text).not.toContain('hunter2');
    const externalId = external.body.destination.id as string;
    const got = await call('monitoring_get_destination', { params: { destination_uuid: externalId } });
    expect(got.body.destination).toEqual(external.body.destination);
    expect(got.text).not.toContain('credentials');

    const updated = await call('monitoring_update_destination', {
      params: { destination_uuid: externalId },
      json: {
        name: 'external-2',
        type: 'opensearch_ext',
        config: { endpoint: 'search2.example.com', credentials: { username: 'u', password: 'p' } },
      },
    });
    expect(updated.status, updated.text).toBe(204);
    const listed = await call('monitoring_list_destinations');
    expect(listed.body.destinations.find((d: { id: string }) => d.id === externalId)).toMatchObject({
      name: 'external-2',
      config: { endpoint: 'search2.example.com' },
    });

    const urn = 'do:kubernetes:f453aa14-646e-4cf8-8c62-75a19fb24ec2';
    const sink = await call('monitoring_create_sink', {
      json: { destination_uuid: externalId, resources: [{ urn, name: 'prod-cluster' }] },
    });
    expect(sink.status, sink.text).toBe(202);
    const sinks = await call('monitoring_list_sinks', { query: `?resource_id=${encodeURIComponent(urn)}` });
    expect(sinks.body.sinks).toHaveLength(1);
    expect(sinks.body.sinks[0]).toMatchObject({
      destination: { id: externalId, name: 'external-2' },
      resources: [{ urn, name: 'prod-cluster' }],
    });
    expect(sinks.text).not.toContain('"p"');
    const sinkId = sinks.body.sinks[0].id as string;
    expect((await call('monitoring_get_sink', { params: { sink_uuid: sinkId } })).body.sink).toEqual(
      sinks.body.sinks[0],
    );
    const other = 'do:kubernetes:00000000-0000-4000-8000-000000000000';
    expect(
      (await call('monitoring_list_sinks', { query: `?resource_id=${encodeURIComponent(other)}` })).body
        .sinks,
    ).toEqual([]);

    // Deleting a destination deletes its sinks.
    expect(
      (await call('monitoring_delete_destination', { params: { destination_uuid: externalId } })).status,
    ).toBe(204);
    expectError(await call('monitoring_get_sink', { params: { sink_uuid: sinkId } }), 404, /not be found/);
    expectError(
      await call('monitoring_get_destination', { params: { destination_uuid: externalId } }),
      404,
      /not be found/,
    );
  });

  it('refuses a destination or a sink the platform would refuse, and stores nothing', async () => {
    const pg = await cluster('logs-pg', 'pg', '16');
    const kept = await call('monitoring_create_destination', {
      json: {
        type: 'opensearch_ext',
        config: { endpoint: 'kept.example.com', credentials: { username: 'u', password: 'p' } },
      },
    });
    const destination = kept.body.destination.id as string;
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ config: { endpoint: 'x.example.com' } }, 400, /missing required field 'type'/],
      [
        { type: 'elasticsearch', config: { endpoint: 'x' } },
        400,
        /type must be one of opensearch_dbaas, opensearch_ext/,
      ],
      [{ type: 'opensearch_ext' }, 400, /missing required field 'config'/],
      [
        { type: 'opensearch_ext', config: { credentials: { username: 'u', password: 'p' } } },
        400,
        /'endpoint'/,
      ],
      [{ type: 'opensearch_ext', config: { endpoint: 'x.example.com' } }, 400, /credentials are required/],
      [
        { type: 'opensearch_dbaas', config: { endpoint: 'x', cluster_uuid: pg.id } },
        400,
        /is pg, not OpenSearch/,
      ],
      [
        {
          type: 'opensearch_dbaas',
          config: { endpoint: 'x', cluster_uuid: '7d2bd4a4-0000-4000-8000-000000000000' },
        },
        404,
        /no database cluster/,
      ],
    ];
    for (const [json, status, message] of cases) {
      await refusedUnchanged(call('monitoring_create_destination', { json }), status, message);
    }
    const urn = 'do:kubernetes:f453aa14-646e-4cf8-8c62-75a19fb24ec2';
    await refusedUnchanged(
      call('monitoring_create_sink', {
        json: { destination_uuid: '7d2bd4a4-0000-4000-8000-000000000000', resources: [{ urn }] },
      }),
      404,
      /destination .* does not exist/,
    );
    await refusedUnchanged(
      call('monitoring_create_sink', {
        json: { destination_uuid: destination, resources: [{ urn: 'do:droplet:1' }] },
      }),
      400,
      /Kubernetes cluster's URN/,
    );
    await refusedUnchanged(
      call('monitoring_create_sink', { json: { destination_uuid: destination, resources: [] } }),
      400,
      /resources must be a non-empty array/,
    );
    await refusedUnchanged(
      call('monitoring_update_destination', {
        params: { destination_uuid: destination },
        json: { type: 'opensearch_ext', config: { endpoint: 'x.example.com' } },
      }),
      400,
      /credentials are required/,
    );
    expectError(
      await call('monitoring_delete_sink', { params: { sink_uuid: '7d2bd4a4-0000-4000-8000-000000000000' } }),
      404,
      /not be found/,
    );
  });
});

describe('state', () => {
  it('keeps policies, destinations and sinks in the state file across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudcall-sandbox-monitoring-'));
    const statePath = join(dir, 'state.json');
    let own = await startSandbox({ statePath, now: steppingClock() });
    try {
      const created = await callOperation(own.url, 'monitoring_create_alertPolicy', { json: policy() });
      const destination = await callOperation(own.url, 'monitoring_create_destination', {
        json: {
          type: 'opensearch_ext',
          config: { endpoint: 'e.example.com', credentials: { username: 'u', password: 'p' } },
        },
      });
      await own.close();
      own = await startSandbox({ statePath, now: steppingClock() });
      const again = await callOperation(own.url, 'monitoring_get_alertPolicy', {
        params: { alert_uuid: created.body.policy.uuid },
      });
      expect(again.body.policy).toEqual(created.body.policy);
      const listed = await callOperation(own.url, 'monitoring_list_destinations');
      expect(listed.body.destinations).toEqual([destination.body.destination]);
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
