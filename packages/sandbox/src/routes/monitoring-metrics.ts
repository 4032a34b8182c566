/**
 * The metrics queries of the monitoring API: VMs (CPU, memory, load, filesystem, bandwidth), load
 * balancers, apps, autoscale pools and MySQL clusters. Each answers the platform's Prometheus
 * matrix (monitoring-series.ts) for the resource and window asked, from values derived from the
 * resource's id, its size and the time:
 *
 * - VM CPU is one counter of CPU seconds per mode (idle, iowait, irq, nice, softirq, steal, system,
 *   user), growing from the VM's creation, all the modes together `vcpus` seconds per second.
 * - Memory is in bytes, within the size's memory (free <= available <= total; cached within
 *   available); the filesystem in bytes, within the size's disk; bandwidth in Mbps.
 * - Memory, load and filesystem come from the metrics agent: a VM created without `monitoring`
 *   has none (an empty result), as on the platform; CPU and bandwidth come from the hypervisor.
 * - The resource must exist (404), start must come before end (400), the enumerated parameters
 *   hold one of their values (400). Samples start when the resource was created and stop at now.
 */
import { UUID_PATTERN } from '@cloudcall/core/internal';
import type { StoredLoadBalancer } from '../families/networking.js';
import { dropletAt } from '../families/vms.js';
import { badRequest, notFound, type Route, type SandboxRequest } from '../http.js';
import type { World } from '../world.js';
import {
  activity,
  choiceParam,
  matrix,
  type SeriesDef,
  seedOf,
  unit,
  wave,
  windowOf,
} from './monitoring-series.js';
import { dropletById } from './networking-common.js';

/** What a query is about: its series, and when its samples begin (unix seconds). */
interface Subject {
  series: SeriesDef[];
  born: number;
}

type Query = (req: SandboxRequest, world: World) => Subject;

const seconds = (ms: number) => ms / 1000;

/** A series whose value is `f(t)`. */
const series = (labels: Record<string, string>, value: (t: number) => number, digits = 2): SeriesDef => ({
  labels,
  value,
  digits,
});

// --- VMs ---

const CPU_MODES = ['idle', 'iowait', 'irq', 'nice', 'softirq', 'steal', 'system', 'user'] as const;
/** Each busy mode's share of a vCPU: `base + swing * activity`. */
const CPU_SHARES: Record<Exclude<(typeof CPU_MODES)[number], 'idle'>, [number, number]> = {
  iowait: [0.002, 0.01],
  irq: [0, 0],
  nice: [0.0005, 0],
  softirq: [0.001, 0.002],
  steal: [0.0015, 0.001],
  system: [0.015, 0.04],
  user: [0.04, 0.16],
};

interface Vm {
  id: number;
  vcpus: number;
  memoryBytes: number;
  diskBytes: number;
  born: number;
  agent: boolean;
  active: boolean;
}

function vmOf(req: SandboxRequest, world: World): Vm {
  const hostId = req.query.get('host_id');
  if (hostId === null || hostId === '') throw badRequest('host_id is required: the id of a Droplet');
  const stored = /^[1-9]\d{0,15}$/.test(hostId) ? dropletById(world, Number(hostId)) : undefined;
  if (!stored) throw notFound(`Droplet ${hostId} not found`);
  const droplet = dropletAt(stored, req.now);
  return {
    id: droplet.id,
    vcpus: droplet.vcpus,
    memoryBytes: droplet.memory * 1_048_576,
    diskBytes: droplet.disk * 1_073_741_824,
    born: seconds(Date.parse(droplet.created_at)),
    agent: droplet.features.includes('monitoring'),
    active: droplet.status === 'active',
  };
}

/** Whole pages (4 KiB), as the kernel counts memory. */
const pages = (bytes: number) => Math.floor(bytes / 4096) * 4096;

/** A VM's series from the agent: none without it. */
const agentOnly = (vm: Vm, make: () => SeriesDef[]): Subject => ({
  born: vm.born,
  series: vm.agent ? make() : [],
});

const vmQuery =
  (make: (vm: Vm, labels: Record<string, string>, req: SandboxRequest) => SeriesDef[], agent = true): Query =>
  (req, world) => {
    const vm = vmOf(req, world);
    const labels = { host_id: String(vm.id) };
    return agent
      ? agentOnly(vm, () => make(vm, labels, req))
      : { born: vm.born, series: make(vm, labels, req) };
  };

function cpuSeries(vm: Vm, labels: Record<string, string>): SeriesDef[] {
  const w = wave(`droplet:${vm.id}:cpu`);
  /** Seconds a mode has run since boot: its share integrated over time. */
  const busy = (mode: keyof typeof CPU_SHARES, t: number) => {
    const [base, swing] = CPU_SHARES[mode];
    const elapsed = Math.max(0, t - vm.born);
    return vm.vcpus * (base * elapsed + swing * (0.5 * elapsed + 0.5 * w.integral(vm.born, t)));
  };
  const modes = Object.keys(CPU_SHARES) as (keyof typeof CPU_SHARES)[];
  return CPU_MODES.map((mode) =>
    series({ ...labels, mode }, (t) =>
      mode === 'idle'
        ? vm.vcpus * Math.max(0, t - vm.born) - modes.reduce((sum, m) => sum + busy(m, t), 0)
        : busy(mode, t),
    ),
  );
}

/** The load average over `minutes`: longer averages swing less. */
function loadSeries(minutes: 1 | 5 | 15) {
  return vmQuery((vm, labels) => {
    const busy = activity(wave(`droplet:${vm.id}:cpu`));
    const jitter = wave(`droplet:${vm.id}:load`);
    const damp = { 1: 1, 5: 0.5, 15: 0.25 }[minutes];
    return [
      series(labels, (t) =>
        Math.max(0, vm.vcpus * (0.05 + 0.6 * busy(t - 30 * minutes) + 0.08 * damp * jitter.at(t))),
      ),
    ];
  });
}

/** Memory as the agent reads it: MemTotal is the size's memory less what the kernel keeps. */
function memory(vm: Vm) {
  const total = pages(vm.memoryBytes * 0.958);
  const used = activity(wave(`droplet:${vm.id}:memory`));
  const cache = activity(wave(`droplet:${vm.id}:cache`));
  const available = (t: number) => pages(total * (1 - (0.3 + 0.15 * used(t))));
  const cached = (t: number) => pages(total * (0.18 + 0.06 * cache(t)));
  return { total, available, cached, free: (t: number) => pages(available(t) - 0.85 * cached(t)) };
}

const FILESYSTEM = { device: '/dev/vda1', fstype: 'ext4', mountpoint: '/' };

function filesystem(vm: Vm) {
  const size = pages(vm.diskBytes * 0.967);
  const swing = activity(wave(`droplet:${vm.id}:disk`));
  // The root filesystem fills slowly with the VM's age (logs, packages), up to 60%.
  const used = (t: number) =>
    Math.min(0.6, 0.12 + (0.004 * Math.max(0, t - vm.born)) / 86_400) + 0.01 * swing(t);
  return { size, free: (t: number) => pages(size * (1 - used(t))) };
}

/** Mbps a VM sends or receives on an interface, around its usual level. */
const BANDWIDTH_LEVEL = {
  public: { inbound: 0.3, outbound: 0.8 },
  private: { inbound: 0.06, outbound: 0.05 },
} as const;

const dropletQueries: Record<string, Query> = {
  cpu: vmQuery(cpuSeries, false),
  bandwidth: vmQuery((vm, labels, req) => {
    const iface = choiceParam(req.query, 'interface', ['private', 'public'] as const);
    const direction = choiceParam(req.query, 'direction', ['inbound', 'outbound'] as const);
    const busy = activity(wave(`droplet:${vm.id}:${iface}:${direction}`));
    const level = BANDWIDTH_LEVEL[iface][direction];
    return [
      series(
        { direction, ...labels, interface: iface },
        (t) => (vm.active ? level * (0.2 + 1.6 * busy(t)) : 0),
        6,
      ),
    ];
  }, false),
  filesystem_free: vmQuery((vm, labels) => [series({ ...FILESYSTEM, ...labels }, filesystem(vm).free, 0)]),
  filesystem_size: vmQuery((vm, labels) => {
    const { size } = filesystem(vm);
    return [series({ ...FILESYSTEM, ...labels }, () => size, 0)];
  }),
  load_1: loadSeries(1),
  load_5: loadSeries(5),
  load_15: loadSeries(15),
  memory_total: vmQuery((vm, labels) => {
    const { total } = memory(vm);
    return [series(labels, () => total, 0)];
  }),
  memory_available: vmQuery((vm, labels) => [series(labels, memory(vm).available, 0)]),
  memory_free: vmQuery((vm, labels) => [series(labels, memory(vm).free, 0)]),
  memory_cached: vmQuery((vm, labels) => [series(labels, memory(vm).cached, 0)]),
};

// --- load balancers ---

interface Lb {
  stored: StoredLoadBalancer;
  labels: Record<string, string>;
  busy: (t: number) => number;
  network: boolean;
  protocols: Set<string>;
  units: number;
  backends: number[];
}

function lbOf(req: SandboxRequest, world: World): Lb {
  const id = req.query.get('lb_id');
  if (id === null || id === '') throw badRequest('lb_id is required: the id of a load balancer');
  const stored = world.loadBalancers.find((lb) => lb.id === id);
  if (!stored) throw notFound(`load balancer ${id} not found`);
  const tagged = stored.tag
    ? world.droplets.filter((d) => d.tags.includes(stored.tag as string)).map((d) => d.id)
    : [];
  const backends = [...new Set([...stored.droplet_ids, ...tagged])].filter((d) => dropletById(world, d));
  return {
    stored,
    labels: { lb_id: stored.id, ...(stored.region ? { region: stored.region } : {}) },
    busy: activity(wave(`lb:${stored.id}`)),
    network: stored.type === 'REGIONAL_NETWORK',
    protocols: new Set(stored.forwarding_rules.map((rule) => String(rule.entry_protocol))),
    units: Math.max(1, stored.size_unit ?? 1),
    backends,
  };
}

/** An HTTP status class's share of responses. */
const RESPONSE_CLASSES = { '2xx': 0.9, '3xx': 0.04, '4xx': 0.05, '5xx': 0.01 } as const;

const lbQuery =
  (make: (lb: Lb, world: World, req: SandboxRequest) => SeriesDef[]): Query =>
  (req, world) => {
    const lb = lbOf(req, world);
    return { born: seconds(lb.stored.created_ms), series: make(lb, world, req) };
  };

/** A frontend series, when the balancer is of the kind it is about (`when`); none otherwise. */
const frontend = (when: (lb: Lb) => boolean, value: (lb: Lb) => (t: number) => number, digits = 2) =>
  lbQuery((lb) => (when(lb) ? [series(lb.labels, value(lb), digits)] : []));

const http = (lb: Lb) => !lb.network && ['http', 'https', 'http2', 'http3'].some((p) => lb.protocols.has(p));
const tls = (lb: Lb) => !lb.network && ['https', 'http2', 'http3'].some((p) => lb.protocols.has(p));
const always = () => true;
const requestsPerSecond = (lb: Lb) => (t: number) => lb.units * (0.5 + 40 * lb.busy(t));

/** One series per backend VM of the balancer: `value(vm id)` at a time. */
const perDroplet = (value: (lb: Lb, dropletId: number, world: World) => (t: number) => number, digits = 4) =>
  lbQuery((lb, world) =>
    lb.backends.map((id) => series({ ...lb.labels, droplet_id: String(id) }, value(lb, id, world), digits)),
  );

/** A backend VM's typical response time in seconds; percentiles scale it. */
const responseTime = (scale: number) =>
  perDroplet((lb, id) => {
    const busy = activity(wave(`lb:${lb.stored.id}:${id}`));
    return (t) => scale * (0.02 + 0.08 * busy(t));
  });

const healthy = (world: World, id: number, now: number) => {
  const droplet = dropletById(world, id);
  return droplet !== undefined && dropletAt(droplet, now).status === 'active';
};

const loadBalancerQueries: Record<string, Query> = {
  frontend_connections_current: frontend(always, (lb) => (t) => lb.units * (5 + 150 * lb.busy(t)), 0),
  // Each node of a balancer holds 10,000 connections.
  frontend_connections_limit: frontend(always, (lb) => () => lb.units * 10_000, 0),
  frontend_cpu_utilization: frontend(always, (lb) => (t) => 2 + 25 * lb.busy(t)),
  // "Currently only supported for network load balancers."
  frontend_firewall_dropped_bytes: frontend(
    (lb) => lb.network,
    (lb) => (t) => 2_000 * lb.busy(t),
    0,
  ),
  frontend_firewall_dropped_packets: frontend(
    (lb) => lb.network,
    (lb) => (t) => 20 * lb.busy(t),
  ),
  frontend_http_requests_per_second: frontend(http, requestsPerSecond),
  frontend_http_responses: lbQuery((lb) =>
    http(lb)
      ? Object.entries(RESPONSE_CLASSES).map(([code, share]) =>
          series({ ...lb.labels, code }, (t) => share * requestsPerSecond(lb)(t), 4),
        )
      : [],
  ),
  frontend_network_throughput_http: frontend(http, (lb) => (t) => lb.units * (2e4 + 5e5 * lb.busy(t)), 0),
  frontend_network_throughput_tcp: frontend(
    (lb) => !lb.network && lb.protocols.has('tcp'),
    (lb) => (t) => lb.units * (1e4 + 3e5 * lb.busy(t)),
    0,
  ),
  frontend_network_throughput_udp: frontend(
    (lb) => !lb.network && lb.protocols.has('udp'),
    (lb) => (t) => lb.units * (5e3 + 1e5 * lb.busy(t)),
    0,
  ),
  frontend_nlb_tcp_network_throughput: frontend(
    (lb) => lb.network && lb.protocols.has('tcp'),
    (lb) => (t) => 1e4 + 8e5 * lb.busy(t),
    0,
  ),
  frontend_nlb_udp_network_throughput: frontend(
    (lb) => lb.network && lb.protocols.has('udp'),
    (lb) => (t) => 5e3 + 2e5 * lb.busy(t),
    0,
  ),
  frontend_tls_connections_current: frontend(tls, (lb) => (t) => lb.units * (0.2 + 8 * lb.busy(t))),
  // Each node takes 250 new TLS connections a second.
  frontend_tls_connections_limit: frontend(tls, (lb) => () => lb.units * 250, 0),
  frontend_tls_connections_exceeding_rate_limit: frontend(tls, () => () => 0, 0),
  droplets_http_session_duration_avg: responseTime(1.5),
  droplets_http_session_duration_50p: responseTime(1),
  droplets_http_session_duration_95p: responseTime(3.5),
  droplets_http_response_time_avg: responseTime(1),
  droplets_http_response_time_50p: responseTime(0.7),
  droplets_http_response_time_95p: responseTime(2.8),
  droplets_http_response_time_99p: responseTime(4.5),
  droplets_queue_size: perDroplet(() => () => 0, 0),
  droplets_http_responses: lbQuery((lb) =>
    lb.backends.flatMap((id) =>
      Object.entries(RESPONSE_CLASSES).map(([code, share]) =>
        series(
          { ...lb.labels, droplet_id: String(id), code },
          (t) => (share * requestsPerSecond(lb)(t)) / Math.max(1, lb.backends.length),
          4,
        ),
      ),
    ),
  ),
  droplets_connections: perDroplet((lb, id) => {
    const busy = activity(wave(`lb:${lb.stored.id}:${id}`));
    return (t) => 1 + 40 * busy(t);
  }, 0),
  // 1 while the VM answers its health checks (it is running), 0 otherwise.
  droplets_health_checks: lbQuery((lb, world, req) =>
    lb.backends.map((id) =>
      series({ ...lb.labels, droplet_id: String(id) }, () => (healthy(world, id, req.now) ? 1 : 0), 0),
    ),
  ),
  droplets_downtime: lbQuery((lb, world, req) =>
    lb.backends.map((id) =>
      series({ ...lb.labels, droplet_id: String(id) }, () => (healthy(world, id, req.now) ? 0 : 1), 0),
    ),
  ),
};

// --- apps and autoscale pools (other families keep them: the sandbox checks the id's shape) ---

function uuidParam(req: SandboxRequest, name: string, what: string): string {
  const id = req.query.get(name);
  if (id === null || id === '') throw badRequest(`${name} is required: the id of ${what}`);
  if (!UUID_PATTERN.test(id)) throw notFound(`${what} ${id} not found`);
  return id;
}

const appQuery =
  (value: (id: string) => (t: number) => number, digits = 2): Query =>
  (req) => {
    const id = uuidParam(req, 'app_id', 'an app');
    const component = req.query.get('app_component');
    const labels = { app_id: id, ...(component ? { app_component: component } : {}) };
    return { born: 0, series: [series(labels, value(`${id}:${component ?? ''}`), digits)] };
  };

const appQueries: Record<string, Query> = {
  cpu_percentage: appQuery((key) => {
    const busy = activity(wave(`app:${key}:cpu`));
    return (t) => 1 + 30 * busy(t);
  }),
  memory_percentage: appQuery((key) => {
    const busy = activity(wave(`app:${key}:memory`));
    return (t) => 20 + 25 * busy(t);
  }),
  // A restart every few days: a count that steps up now and then.
  restart_count: appQuery((key) => {
    const every = 86_400 * (3 + 7 * unit(seedOf(key), 1));
    return (t) => Math.floor(t / every) % 4;
  }, 0),
};

const poolQuery =
  (value: (id: string) => (t: number) => number, digits = 4): Query =>
  (req) => {
    const id = uuidParam(req, 'autoscale_pool_id', 'an autoscale pool');
    return { born: 0, series: [series({ autoscale_pool_id: id }, value(id), digits)] };
  };

const poolBusy = (id: string) => activity(wave(`pool:${id}`));
const instances = (id: string, lead: number) => (t: number) => 2 + Math.round(2 * poolBusy(id)(t + lead));

const autoscaleQueries: Record<string, Query> = {
  current_instances: poolQuery((id) => instances(id, 0), 0),
  // The target leads the current size: the pool grows or shrinks towards it.
  target_instances: poolQuery((id) => instances(id, 300), 0),
  current_cpu_utilization: poolQuery((id) => (t) => 0.2 + 0.5 * poolBusy(id)(t)),
  target_cpu_utilization: poolQuery(() => () => 0.6),
  current_memory_utilization: poolQuery((id) => (t) => 0.3 + 0.3 * activity(wave(`pool:${id}:memory`))(t)),
  target_memory_utilization: poolQuery(() => () => 0.7),
};

// --- MySQL clusters ---

function mysqlQuery(
  make: (cluster: { id: string; vcpus: number; key: string }, req: SandboxRequest) => SeriesDef[],
  extra: (req: SandboxRequest, world: World, clusterId: string) => Record<string, string> = () => ({}),
): Query {
  return (req, world) => {
    const id = req.query.get('db_id');
    if (id === null || id === '') throw badRequest('db_id is required: the id of a MySQL cluster');
    const cluster = world.clusters.find((c) => c.id === id);
    if (!cluster) throw notFound(`database cluster ${id} not found`);
    if (cluster.engine !== 'mysql' && cluster.engine !== 'advanced_mysql') {
      throw badRequest(`database cluster ${cluster.name} is ${cluster.engine}: these metrics are MySQL's`);
    }
    const vcpus = Number(/(\d+)vcpu/.exec(cluster.size)?.[1] ?? 1);
    const labels = { db_id: id, service: req.query.get('service') || cluster.name, ...extra(req, world, id) };
    const made = make({ id, vcpus, key: `db:${id}:${Object.values(labels).join(':')}` }, req);
    return {
      born: seconds(cluster.online_ms),
      series: made.map((s) => ({ ...s, labels: { ...labels, ...s.labels } })),
    };
  };
}

/** avg, max or min of a percentage over the sampling window. */
function aggregated(name: string, base: number, swing: number, aggregates: readonly string[]) {
  return mysqlQuery((cluster, req) => {
    const aggregate = choiceParam(req.query, 'aggregate', aggregates);
    const busy = activity(wave(`${cluster.key}:${name}`));
    const factor = { avg: 1, max: 1.25, min: 0.7 }[aggregate] ?? 1;
    return [series({}, (t) => Math.min(100, factor * (base + swing * busy(t))))];
  });
}

/** The schema a schema metric names: one of the cluster's databases. */
function schemaLabel(req: SandboxRequest, world: World, clusterId: string): Record<string, string> {
  const schema = req.query.get('schema');
  if (schema === null || schema === '') throw badRequest('schema is required: a database of the cluster');
  const dbs = world.clusters.find((c) => c.id === clusterId)?.dbs ?? ['defaultdb'];
  if (!dbs.includes(schema))
    throw badRequest(`schema ${JSON.stringify(schema)} is not a database of the cluster`);
  return { schema };
}

const OP_LEVEL = { select: 120, insert: 15, update: 8, delete: 2, fetch: 150 } as Record<string, number>;

const mysqlQueries: Record<string, Query> = {
  cpu_usage: aggregated('cpu', 5, 35, ['avg', 'max', 'min']),
  memory_usage: aggregated('memory', 35, 20, ['avg', 'max', 'min']),
  disk_usage: aggregated('disk', 4, 3, ['avg', 'max', 'min']),
  load: mysqlQuery((cluster, req) => {
    const metric = choiceParam(req.query, 'metric', ['load1', 'load5', 'load15'] as const);
    const aggregate = choiceParam(req.query, 'aggregate', ['avg', 'max'] as const);
    const busy = activity(wave(`${cluster.key}:load`));
    const damp = { load1: 1, load5: 0.7, load15: 0.5 }[metric];
    const factor = aggregate === 'max' ? 1.3 : 1;
    return [series({}, (t) => factor * cluster.vcpus * (0.1 + 0.7 * damp * busy(t)))];
  }),
  threads_connected: mysqlQuery((cluster) => {
    const busy = activity(wave(`${cluster.key}:threads`));
    return [series({}, (t) => 4 + 20 * busy(t), 0)];
  }),
  threads_created_rate: mysqlQuery((cluster) => {
    const busy = activity(wave(`${cluster.key}:threads`));
    return [series({}, (t) => 0.01 + 0.3 * busy(t), 4)];
  }),
  threads_active: mysqlQuery((cluster) => {
    const busy = activity(wave(`${cluster.key}:threads`));
    return [series({}, (t) => 1 + 4 * busy(t), 0)];
  }),
  index_vs_sequential_reads: mysqlQuery((cluster) => {
    const busy = activity(wave(`${cluster.key}:index`));
    return [series({}, (t) => 85 + 14 * busy(t))];
  }),
  op_rates: mysqlQuery((cluster, req) => {
    const metric = choiceParam(req.query, 'metric', ['select', 'insert', 'update', 'delete'] as const);
    const busy = activity(wave(`${cluster.key}:${metric}`));
    return [series({}, (t) => (OP_LEVEL[metric] ?? 1) * (0.2 + 1.6 * busy(t)), 4)];
  }),
  schema_throughput: mysqlQuery((cluster, req) => {
    const metric = choiceParam(req.query, 'metric', ['insert', 'fetch', 'update', 'delete'] as const);
    const busy = activity(wave(`${cluster.key}:${metric}:rows`));
    return [series({}, (t) => (OP_LEVEL[metric] ?? 1) * (0.1 + busy(t)), 4)];
  }, schemaLabel),
  schema_latency: mysqlQuery((cluster, req) => {
    const metric = choiceParam(req.query, 'metric', ['insert', 'fetch', 'update', 'delete'] as const);
    const busy = activity(wave(`${cluster.key}:${metric}:latency`));
    return [series({}, (t) => 0.0005 + 0.02 * busy(t), 6)];
  }, schemaLabel),
};

/** One GET route per query, under /v2/monitoring/metrics/<prefix>/<name>. */
const routesOf = (prefix: string, queries: Record<string, Query>): Route[] =>
  Object.entries(queries).map(([name, query]) => ({
    method: 'GET',
    path: `/v2/monitoring/metrics/${prefix}/${name}`,
    handler: (req, world) => {
      // The resource first (404), then the window (400), then the query's own parameters.
      const subject = query(req, world);
      return { body: matrix(subject.series, windowOf(req.query), subject.born, req.now) };
    },
  }));

export const monitoringMetricRoutes: Route[] = [
  ...routesOf('droplet', dropletQueries),
  ...routesOf('load_balancer', loadBalancerQueries),
  ...routesOf('apps', appQueries),
  ...routesOf('droplet_autoscale', autoscaleQueries),
  ...routesOf('database/mysql', mysqlQueries),
];
