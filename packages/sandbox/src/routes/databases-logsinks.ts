/**
 * Log forwarding of a database cluster (log sinks), and the indexes of an OpenSearch cluster.
 *
 * Sinks: rsyslog, elasticsearch and opensearch from every engine but MongoDB, datadog from MongoDB
 * only (the description's `sink_type`). Each type's config is checked as its schema and its prose
 * give it (an rsyslog `custom` format needs its `logline`; a client key needs its certificate;
 * OpenSearch index prefixes are lowercase, as its index names are). A sink keeps its type; an
 * update replaces its config.
 *
 * Indexes: an OpenSearch cluster of the account that an elasticsearch or opensearch sink points at
 * (its `url` naming the cluster's host or private host) receives the forwarded lines in daily
 * indexes `<index_prefix>-<YYYY-MM-DD>`, from the later of the sink's (last) configuration and the
 * cluster's coming online, keeping the newest `index_days_max` (7 by default). They are derived
 * from the sinks and the clock when read; an index deleted through the API gets no more lines.
 * (The sandbox keeps no index a sink no longer feeds: deleting a sink, or its cluster, takes its
 * indexes with it, and a new configuration starts them afresh.)
 */

import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { LOGSINK_BASE_SINK_TYPE, RSYSLOG_LOGSINK_FORMAT } from '@cloudcall/platform';
import { cloneData } from '../clone.js';
import type { StoredCluster } from '../families/databases.js';
import type { LogsinkType, StoredLogsink } from '../families/databases-extra.js';
import {
  notFound,
  paginate,
  type Route,
  requireString,
  type SandboxRequest,
  unprocessable,
} from '../http.js';
import { iso } from '../time.js';
import type { World } from '../world.js';
import { base, clusterOf, findCluster, likeOf } from './databases.js';

const DAY_MS = 86_400_000;
/** How many lines a sink forwards a minute: enough for an index to grow between two reads. */
const LINES_PER_MINUTE = 6;
/** Bytes a forwarded line takes in an index, and an empty index's size (the description's example). */
const LINE_BYTES = 420;
const EMPTY_INDEX_BYTES = 208;

const HOST_NAME =
  /^(?=.{1,253}$)[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
/** OpenSearch's rule for index names, which a prefix starts: lowercase, not starting with - _ +. */
const INDEX_PREFIX = /^[a-z0-9][a-z0-9._-]{0,199}$/;
const PEM = /^-----BEGIN [A-Z ]+-----/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The sink types a cluster forwards to. */
function sinkTypesOf(cluster: StoredCluster): LogsinkType[] {
  // The description's `sink_type`: datadog for MongoDB clusters only; rsyslog (and the other
  // types) for the others.
  return likeOf(cluster) === 'mongodb' ? ['datadog'] : ['rsyslog', 'elasticsearch', 'opensearch'];
}

function optionalString(config: Record<string, unknown>, key: string): void {
  if (config[key] !== undefined && typeof config[key] !== 'string') {
    throw unprocessable(`config.${key} must be a string`);
  }
}

function pemField(config: Record<string, unknown>, key: string): void {
  optionalString(config, key);
  if (typeof config[key] === 'string' && !PEM.test((config[key] as string).trim())) {
    throw unprocessable(`config.${key} must be PEM encoded (-----BEGIN ...)`);
  }
}

function checkRsyslog(config: Record<string, unknown>): void {
  const { server, port, tls, format } = config;
  if (typeof server !== 'string' || (isIP(server) !== 4 && (isIP(server) !== 0 || !HOST_NAME.test(server)))) {
    throw unprocessable('config.server is required: a DNS name or an IPv4 address');
  }
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw unprocessable('config.port is required: an integer from 1 to 65535');
  }
  if (typeof tls !== 'boolean') throw unprocessable('config.tls is required and must be true or false');
  if (typeof format !== 'string' || !(RSYSLOG_LOGSINK_FORMAT as readonly string[]).includes(format)) {
    throw unprocessable(`config.format is required: one of ${RSYSLOG_LOGSINK_FORMAT.join(', ')}`);
  }
  optionalString(config, 'logline');
  optionalString(config, 'sd');
  if (format === 'custom' && (typeof config.logline !== 'string' || config.logline.trim() === '')) {
    throw unprocessable('config.logline is required when format is custom');
  }
  for (const key of ['ca', 'key', 'cert']) pemField(config, key);
  if ((config.key === undefined) !== (config.cert === undefined)) {
    throw unprocessable('config.key and config.cert go together: the client key and its certificate');
  }
}

function checkSearch(config: Record<string, unknown>, type: string): void {
  const { url, index_prefix: prefix, index_days_max: days, timeout } = config;
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.hostname === '') {
    throw unprocessable(
      `config.url is required: the ${type} connection URL, such as https://user:password@host:9200`,
    );
  }
  if (typeof prefix !== 'string' || !INDEX_PREFIX.test(prefix)) {
    throw unprocessable(
      'config.index_prefix is required: lowercase letters, digits, ".", "_" and "-", starting with a letter or digit',
    );
  }
  if (
    days !== undefined &&
    (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > 10_000)
  ) {
    throw unprocessable('config.index_days_max must be an integer from 1 to 10000');
  }
  if (timeout !== undefined && (typeof timeout !== 'number' || timeout < 10 || timeout > 120)) {
    throw unprocessable('config.timeout must be a number of seconds from 10 to 120');
  }
  pemField(config, 'ca');
}

function checkDatadog(config: Record<string, unknown>): void {
  if (typeof config.site !== 'string' || !HOST_NAME.test(config.site)) {
    throw unprocessable(
      'config.site is required: the Datadog intake host, such as http-intake.logs.datadoghq.com',
    );
  }
  if (typeof config.datadog_api_key !== 'string' || config.datadog_api_key.trim() === '') {
    throw unprocessable('config.datadog_api_key is required');
  }
}

const CONFIG_KEYS: Record<LogsinkType, readonly string[]> = {
  rsyslog: ['server', 'port', 'tls', 'format', 'logline', 'sd', 'ca', 'key', 'cert'],
  elasticsearch: ['url', 'index_prefix', 'index_days_max', 'timeout', 'ca'],
  opensearch: ['url', 'index_prefix', 'index_days_max', 'timeout', 'ca'],
  datadog: ['site', 'datadog_api_key'],
};

/** A sink's config, checked for its type; kept as given (the platform answers it back so). */
function checkConfig(type: LogsinkType, raw: unknown): Record<string, unknown> {
  if (!isObject(raw)) throw unprocessable(`config is required: the ${type} sink's settings`);
  for (const key of Object.keys(raw)) {
    if (!CONFIG_KEYS[type].includes(key))
      throw unprocessable(`config.${key} is not a setting of ${type} sinks`);
  }
  if (type === 'rsyslog') checkRsyslog(raw);
  else if (type === 'datadog') checkDatadog(raw);
  else checkSearch(raw, type);
  return cloneData(raw);
}

function sinkView(sink: StoredLogsink) {
  return {
    sink_id: sink.id,
    sink_name: sink.name,
    // The description's answer admits no datadog type (its `logsink_base_verbose`), and its own
    // example answers a datadog sink's creation with `rsyslog`: the sandbox answers so.
    sink_type: sink.type === 'datadog' ? ('rsyslog' as const) : sink.type,
    config: cloneData(sink.config),
  };
}

function findSink(cluster: StoredCluster, req: SandboxRequest): StoredLogsink {
  const sink = cluster.logsinks?.find((s) => s.id === req.params.sink);
  if (!sink) throw notFound(`No log sink ${req.params.sink} on this cluster.`);
  return sink;
}

// ---------------------------------------------------------------------------------------------
// OpenSearch indexes

interface DerivedIndex {
  name: string;
  created_ms: number;
  lines: number;
}

const dayName = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The sink's target host, lowercase, or undefined when its URL names none. */
function targetHost(sink: StoredLogsink): string | undefined {
  try {
    return new URL(String(sink.config.url)).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The indexes the account's sinks fill on an OpenSearch cluster at `now`, by name. */
function indexesOf(world: World, target: StoredCluster, now: number): DerivedIndex[] {
  const hosts = new Set([target.host.toLowerCase(), target.private_host.toLowerCase()]);
  const deleted = new Set(target.deleted_indexes ?? []);
  const found = new Map<string, DerivedIndex>();
  for (const source of world.clusters) {
    for (const sink of source.logsinks ?? []) {
      if (sink.type !== 'opensearch' && sink.type !== 'elasticsearch') continue;
      const host = targetHost(sink);
      if (host === undefined || !hosts.has(host)) continue;
      const from = Math.max(sink.since_ms, target.online_ms);
      if (now <= from) continue;
      const keep = typeof sink.config.index_days_max === 'number' ? sink.config.index_days_max : 7;
      const today = Math.floor(now / DAY_MS);
      for (let day = Math.max(Math.floor(from / DAY_MS), today - keep + 1); day <= today; day++) {
        const name = `${sink.config.index_prefix}-${dayName(day)}`;
        if (deleted.has(name)) continue;
        const start = Math.max(from, day * DAY_MS);
        const end = Math.min(now, (day + 1) * DAY_MS);
        const lines = Math.floor(((end - start) / 60_000) * LINES_PER_MINUTE);
        const known = found.get(name);
        if (known) {
          known.lines += lines;
          known.created_ms = Math.min(known.created_ms, start);
        } else found.set(name, { name, created_ms: start, lines });
      }
    }
  }
  return [...found.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function indexView(target: StoredCluster, index: DerivedIndex) {
  const created = iso(index.created_ms);
  return {
    index_name: index.name,
    number_of_shards: 1,
    // One replica of each shard on another node, when the cluster has another.
    number_of_replicas: Math.min(1, target.num_nodes - 1),
    size: EMPTY_INDEX_BYTES + index.lines * LINE_BYTES,
    // The description names it created_time; godo (DatabaseIndex) reads create_time, and the
    // document count from docs: both are sent.
    created_time: created,
    create_time: created,
    docs: index.lines,
    status: 'open' as const,
    health: 'green' as const,
  };
}

const sinkTypes = LOGSINK_BASE_SINK_TYPE as readonly string[];

export const databasesLogsinkRoutes: Route[] = [
  {
    method: 'GET',
    path: `${base}/logsink`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const page = paginate(cluster.logsinks ?? [], req);
      return { body: { sinks: page.items.map(sinkView), links: page.links, meta: page.meta } };
    },
  },
  {
    method: 'POST',
    path: `${base}/logsink`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const name = requireString(req.body, 'sink_name');
      if (name.length > 255) throw unprocessable('sink_name must be at most 255 characters');
      const type = requireString(req.body, 'sink_type');
      if (!sinkTypes.includes(type)) throw unprocessable(`sink_type must be one of ${sinkTypes.join(', ')}`);
      const allowed = sinkTypesOf(cluster);
      if (!allowed.includes(type as LogsinkType)) {
        throw unprocessable(
          `${type} sinks are not supported for ${cluster.engine} clusters; use ${allowed.join(', ')}`,
        );
      }
      const config = checkConfig(type as LogsinkType, req.body.config);
      if (cluster.logsinks?.some((s) => s.name === name)) {
        throw unprocessable(`a log sink named ${name} already exists on this cluster`);
      }
      const sink: StoredLogsink = {
        id: randomUUID(),
        name,
        type: type as LogsinkType,
        config,
        created_ms: req.now,
        since_ms: req.now,
      };
      cluster.logsinks ??= [];
      cluster.logsinks.push(sink);
      return { status: 201, body: { sink: sinkView(sink) } };
    },
  },
  {
    method: 'GET',
    path: `${base}/logsink/{sink}`,
    handler: (req, world) => ({ body: sinkView(findSink(findCluster(world, req), req)) }),
  },
  {
    method: 'PUT',
    path: `${base}/logsink/{sink}`,
    handler: (req, world) => {
      const sink = findSink(findCluster(world, req), req);
      // The type stays; the config is replaced whole, checked for that type.
      sink.config = checkConfig(sink.type, req.body.config);
      sink.since_ms = req.now;
      return { status: 200 };
    },
  },
  {
    method: 'DELETE',
    path: `${base}/logsink/{sink}`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const sink = findSink(cluster, req);
      cluster.logsinks = (cluster.logsinks ?? []).filter((s) => s.id !== sink.id);
      return { status: 200 };
    },
  },
  {
    method: 'GET',
    path: `${base}/indexes`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, ['opensearch'], 'Index management');
      const page = paginate(indexesOf(world, cluster, req.now), req);
      return {
        body: {
          indexes: page.items.map((index) => indexView(cluster, index)),
          links: page.links,
          meta: page.meta,
        },
      };
    },
  },
  {
    method: 'DELETE',
    path: `${base}/indexes/{index}`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, ['opensearch'], 'Index management');
      const name = req.params.index ?? '';
      if (!indexesOf(world, cluster, req.now).some((index) => index.name === name)) {
        throw notFound(`No index ${name} on this cluster.`);
      }
      cluster.deleted_indexes ??= [];
      cluster.deleted_indexes.push(name);
      return { status: 204 };
    },
  },
];
