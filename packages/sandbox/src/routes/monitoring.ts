/**
 * Monitoring: alert policies (create, list, get, replace, delete) and log forwarding (destinations,
 * and sinks that send resources' logs to them). The metrics queries are in monitoring-metrics.ts.
 *
 * The platform's rules, as modelled:
 * - A policy's `type` names what it watches, and so what its `entities` are: VM ids for the
 *   `v1/insights/droplet/*` types, load balancer ids for `v1/insights/lbaas/*`, database cluster
 *   ids for `v1/dbaas/*`, autoscale pool ids for `v1/droplet/autoscale_alerts/*`. Each entity must
 *   be one of the account's (a pool only needs a pool's id shape: the sandbox keeps no pools here).
 *   No entities and no tags means every resource of the type.
 * - `v1/insights/lbaas/tls_connections_per_second_utilization_percent` needs each load balancer
 *   to have an HTTPS forwarding rule, as the API description says.
 * - A policy notifies someone: at least one email or Slack channel.
 * - Errors in a request are 400 `bad_request`: the monitoring service answers a request it cannot
 *   take so (digitalocean/openapi#707 shows its `bad_request` for a body it cannot decode), not with
 *   the 422 of the older endpoints.
 * - Deleting a destination deletes the sinks that send to it (the API description says so).
 * - Credentials of a destination are never answered.
 */
import { randomUUID } from 'node:crypto';
import { UUID_PATTERN } from '@cloudcall/core/internal';
import type {
  StoredAlertPolicy,
  StoredAlertTargets,
  StoredDestination,
  StoredSink,
} from '../families/monitoring.js';
import { badRequest, listBody, notFound, type Route, type SandboxRequest } from '../http.js';
import type { World } from '../world.js';
import { dropletById, findOr404 } from './networking-common.js';

/** Every policy type of the API description, by the kind of entity it watches. */
const POLICY_TYPES = {
  droplet: [
    'load_1',
    'load_5',
    'load_15',
    'memory_utilization_percent',
    'disk_utilization_percent',
    'cpu',
    'disk_read',
    'disk_write',
    'public_outbound_bandwidth',
    'public_inbound_bandwidth',
    'private_outbound_bandwidth',
    'private_inbound_bandwidth',
  ].map((name) => `v1/insights/droplet/${name}`),
  lbaas: [
    'avg_cpu_utilization_percent',
    'connection_utilization_percent',
    'droplet_health',
    'tls_connections_per_second_utilization_percent',
    'increase_in_http_error_rate_percentage_5xx',
    'increase_in_http_error_rate_percentage_4xx',
    'increase_in_http_error_rate_count_5xx',
    'increase_in_http_error_rate_count_4xx',
    'high_http_request_response_time',
    'high_http_request_response_time_50p',
    'high_http_request_response_time_95p',
    'high_http_request_response_time_99p',
  ].map((name) => `v1/insights/lbaas/${name}`),
  dbaas: ['load_15_alerts', 'memory_utilization_alerts', 'disk_utilization_alerts', 'cpu_alerts'].map(
    (name) => `v1/dbaas/alerts/${name}`,
  ),
  autoscale: [
    'current_instances',
    'target_instances',
    'current_cpu_utilization',
    'target_cpu_utilization',
    'current_memory_utilization',
    'target_memory_utilization',
    'scale_up',
    'scale_down',
  ].map((name) => `v1/droplet/autoscale_alerts/${name}`),
} as const;

type EntityKind = keyof typeof POLICY_TYPES;

const KIND_OF_TYPE = new Map<string, EntityKind>(
  Object.entries(POLICY_TYPES).flatMap(([kind, types]) => types.map((type) => [type, kind as EntityKind])),
);

/** Types whose value is a percentage of something (so at most 100), as the description's table says. */
const PERCENT_TYPES = new Set([
  'v1/insights/droplet/cpu',
  'v1/insights/droplet/memory_utilization_percent',
  'v1/insights/droplet/disk_utilization_percent',
  'v1/insights/lbaas/avg_cpu_utilization_percent',
  'v1/insights/lbaas/connection_utilization_percent',
  'v1/insights/lbaas/tls_connections_per_second_utilization_percent',
  'v1/dbaas/alerts/memory_utilization_alerts',
  'v1/dbaas/alerts/disk_utilization_alerts',
  'v1/dbaas/alerts/cpu_alerts',
]);

const WINDOWS = ['5m', '10m', '30m', '1h'] as const;
const COMPARES = ['GreaterThan', 'LessThan'] as const;
const TAG_NAME = /^[a-zA-Z0-9_:-]{1,255}$/;
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

const missing = (field: string) => badRequest(`missing required field '${field}'`);

/** A required string field, or the platform's 400 naming it. */
function requiredText(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (value === undefined || value === null) throw missing(field);
  if (typeof value !== 'string' || value.trim() === '')
    throw badRequest(`${field} must be a non-empty string`);
  return value;
}

/** A required field holding one of `values`. */
function requiredChoice<T extends string>(
  body: Record<string, unknown>,
  field: string,
  values: readonly T[],
): T {
  const value = body[field];
  if (value === undefined || value === null || value === '') throw missing(field);
  if (typeof value !== 'string' || !values.includes(value as T)) {
    throw badRequest(`${field} must be one of ${values.join(', ')}; got ${JSON.stringify(value)}`);
  }
  return value as T;
}

/** An optional array of strings (absent or null is empty). */
function stringList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw badRequest(`${field} must be an array of strings`);
  }
  return [...new Set(value as string[])];
}

/**
 * Email addresses and Slack channels to notify, as `alerts` (alert policies) and `notifications`
 * (uptime alerts) hold them: both lists are answered, empty or not, and at least one target is
 * required (a policy notifying no one was a 500 of the platform once, digitalocean/doctl#1006; the
 * sandbox says what is wrong instead).
 */
export function notificationTargets(value: unknown, field: string): StoredAlertTargets {
  if (value === undefined || value === null) throw missing(field);
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest(`${field} must be an object with email and slack lists`);
  }
  const given = value as Record<string, unknown>;
  const email = stringList(given.email, `${field}.email`);
  for (const address of email) {
    if (!EMAIL.test(address))
      throw badRequest(`${field}.email: ${JSON.stringify(address)} is not an email address`);
  }
  const rawSlack = given.slack ?? [];
  if (!Array.isArray(rawSlack)) throw badRequest(`${field}.slack must be an array of {url, channel}`);
  const slack = rawSlack.map((entry, index) => {
    const where = `${field}.slack[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw badRequest(`${where} must be an object with url and channel`);
    }
    const { url, channel } = entry as Record<string, unknown>;
    if (typeof url !== 'string' || !isHttpsUrl(url))
      throw badRequest(`${where}.url must be an https:// webhook URL`);
    if (typeof channel !== 'string' || channel.trim() === '')
      throw badRequest(`${where}.channel is required`);
    return { url, channel };
  });
  if (email.length === 0 && slack.length === 0) {
    throw badRequest(`${field} must name at least one email address or Slack channel to notify`);
  }
  return { email, slack };
}

function isHttpsUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Whether a load balancer has a forwarding rule that takes HTTPS (or HTTP/2) from clients. */
const takesTls = (world: World, id: string) =>
  world.loadBalancers
    .find((lb) => lb.id === id)
    ?.forwarding_rules.some((rule) => ['https', 'http2', 'http3'].includes(String(rule.entry_protocol))) ??
  false;

/** Checks one entity of a policy of `kind` against the account. */
function checkEntity(world: World, kind: EntityKind, type: string, entity: string): void {
  switch (kind) {
    case 'droplet': {
      const id = /^[1-9]\d{0,15}$/.test(entity) ? Number(entity) : undefined;
      if (id === undefined || !dropletById(world, id)) {
        throw badRequest(`entities: ${JSON.stringify(entity)} is not the id of one of your Droplets`);
      }
      return;
    }
    case 'lbaas':
      if (!world.loadBalancers.some((lb) => lb.id === entity)) {
        throw badRequest(`entities: ${JSON.stringify(entity)} is not the id of one of your load balancers`);
      }
      if (type.endsWith('/tls_connections_per_second_utilization_percent') && !takesTls(world, entity)) {
        throw badRequest(
          `entities: load balancer ${entity} has no HTTPS forwarding rule; ${type} needs at least one`,
        );
      }
      return;
    case 'dbaas':
      if (!world.clusters.some((cluster) => cluster.id === entity)) {
        throw badRequest(
          `entities: ${JSON.stringify(entity)} is not the id of one of your database clusters`,
        );
      }
      return;
    case 'autoscale':
      // Pools are another family's: the sandbox checks the id's shape only.
      if (!UUID_PATTERN.test(entity)) {
        throw badRequest(`entities: ${JSON.stringify(entity)} is not an autoscale pool id`);
      }
  }
}

/** A policy from a create or replace body, checked as the platform checks it (not yet stored). */
function policyFrom(
  world: World,
  body: Record<string, unknown>,
  uuid: string,
  created_ms: number,
): StoredAlertPolicy {
  const type = body.type;
  if (type === undefined || type === null || type === '') throw missing('type');
  const kind = typeof type === 'string' ? KIND_OF_TYPE.get(type) : undefined;
  if (kind === undefined) {
    throw badRequest(
      `type ${JSON.stringify(type)} is not an alert policy type (such as v1/insights/droplet/cpu)`,
    );
  }
  const description = requiredText(body, 'description');
  const compare = requiredChoice(body, 'compare', COMPARES);
  const value = body.value;
  if (value === undefined || value === null) throw missing('value');
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw badRequest(`value must be a number, 0 or more; got ${JSON.stringify(value)}`);
  }
  if (PERCENT_TYPES.has(type as string) && value > 100) {
    throw badRequest(`value is a percentage for ${type}: at most 100; got ${value}`);
  }
  const window = requiredChoice(body, 'window', WINDOWS);
  const entities = stringList(body.entities, 'entities');
  for (const entity of entities) checkEntity(world, kind, type as string, entity);
  const tags = stringList(body.tags, 'tags');
  for (const tag of tags) {
    if (!TAG_NAME.test(tag)) throw badRequest(`tags: ${JSON.stringify(tag)} is not a valid tag name`);
  }
  const alerts = notificationTargets(body.alerts, 'alerts');
  // godo sends `enabled: null` when its caller leaves it unset: the platform takes that as enabled.
  const enabled = body.enabled ?? true;
  if (typeof enabled !== 'boolean') throw badRequest('enabled must be true or false');
  return {
    uuid,
    type: type as string,
    description,
    compare,
    value,
    window,
    entities,
    tags,
    alerts,
    enabled,
    created_ms,
  };
}

const policyView = (policy: StoredAlertPolicy) => ({
  uuid: policy.uuid,
  type: policy.type,
  description: policy.description,
  compare: policy.compare,
  value: policy.value,
  window: policy.window,
  entities: [...policy.entities],
  tags: [...policy.tags],
  alerts: {
    email: [...policy.alerts.email],
    slack: policy.alerts.slack.map((s) => ({ url: s.url, channel: s.channel })),
  },
  enabled: policy.enabled,
});

const findPolicy = (world: World, request: SandboxRequest) =>
  findOr404(world.alertPolicies, (p) => p.uuid === request.params.alert_uuid);

// --- log forwarding ---

const DESTINATION_TYPES = ['opensearch_dbaas', 'opensearch_ext'] as const;
/** A sink's resource: a Kubernetes cluster's URN, as the API description's pattern has it. */
const SINK_URN = /^do:kubernetes:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A destination from a create or update body (not yet stored). */
function destinationFrom(
  world: World,
  body: Record<string, unknown>,
  id: string,
  configId: string,
  created_ms: number,
): StoredDestination {
  const type = requiredChoice(body, 'type', DESTINATION_TYPES);
  const config = body.config;
  if (config === undefined || config === null) throw missing('config');
  if (typeof config !== 'object' || Array.isArray(config)) throw badRequest('config must be an object');
  const given = config as Record<string, unknown>;
  const endpoint = requiredText(given, 'endpoint');
  const retention = given.retention_days ?? 14;
  if (typeof retention !== 'number' || !Number.isInteger(retention) || retention < 1 || retention > 3650) {
    throw badRequest(
      `config.retention_days must be a whole number of days; got ${JSON.stringify(retention)}`,
    );
  }
  const optionalText = (field: string) => {
    const value = given[field];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') throw badRequest(`config.${field} must be a string`);
    return value;
  };
  const index = optionalText('index_name');
  let credentials: StoredDestination['config']['credentials'];
  if (given.credentials !== undefined && given.credentials !== null) {
    if (typeof given.credentials !== 'object' || Array.isArray(given.credentials)) {
      throw badRequest('config.credentials must be an object with username and password');
    }
    const { username, password } = given.credentials as Record<string, unknown>;
    if (typeof username !== 'string' || username === '' || typeof password !== 'string' || password === '') {
      throw badRequest('config.credentials needs a username and a password');
    }
    credentials = { username, password };
  }
  let clusterUuid = optionalText('cluster_uuid');
  let clusterName = optionalText('cluster_name');
  if (type === 'opensearch_dbaas') {
    // A managed cluster of the account: its credentials are the platform's to find.
    if (clusterUuid === undefined) throw missing('config.cluster_uuid');
    const cluster = world.clusters.find((c) => c.id === clusterUuid);
    if (!cluster) throw notFound(`config.cluster_uuid: no database cluster ${clusterUuid}`);
    if (cluster.engine !== 'opensearch') {
      throw badRequest(`config.cluster_uuid: cluster ${cluster.name} is ${cluster.engine}, not OpenSearch`);
    }
    clusterName ??= cluster.name;
  } else {
    if (credentials === undefined)
      throw badRequest('config.credentials are required for an opensearch_ext destination');
    clusterUuid = undefined;
    clusterName = undefined;
  }
  const name = body.name ?? clusterName ?? endpoint;
  if (typeof name !== 'string' || name.trim() === '') throw badRequest('name must be a non-empty string');
  return {
    id,
    name,
    type,
    config: {
      id: configId,
      endpoint,
      ...(clusterUuid === undefined ? {} : { cluster_uuid: clusterUuid }),
      ...(clusterName === undefined ? {} : { cluster_name: clusterName }),
      ...(index === undefined ? {} : { index_name: index }),
      retention_days: retention,
      ...(credentials === undefined ? {} : { credentials }),
    },
    created_ms,
  };
}

/** A destination as answered: never its credentials. */
function destinationView(destination: StoredDestination) {
  const { credentials: _secret, ...config } = destination.config;
  return { id: destination.id, name: destination.name, type: destination.type, config: { ...config } };
}

/**
 * A sink as answered. The API description's `sinks_response` requires a `urn` it does not
 * describe: the sandbox answers the sink's own URN there (`do:sink:<id>`), and its `id`, which the
 * get and delete paths take.
 */
function sinkView(world: World, sink: StoredSink) {
  const destination = world.logDestinations.find((d) => d.id === sink.destination_id);
  return {
    id: sink.id,
    urn: `do:sink:${sink.id}`,
    ...(destination ? { destination: destinationView(destination) } : {}),
    resources: sink.resources.map((r) => ({ urn: r.urn, ...(r.name === undefined ? {} : { name: r.name }) })),
  };
}

function sinkResources(value: unknown): StoredSink['resources'] {
  if (value === undefined || value === null) throw missing('resources');
  if (!Array.isArray(value) || value.length === 0) throw badRequest('resources must be a non-empty array');
  const seen = new Set<string>();
  return value.map((entry, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw badRequest(`resources[${index}] must be an object with a urn`);
    }
    const { urn, name } = entry as Record<string, unknown>;
    if (typeof urn !== 'string' || !SINK_URN.test(urn)) {
      throw badRequest(
        `resources[${index}].urn must be a Kubernetes cluster's URN (do:kubernetes:<id>); got ${JSON.stringify(urn)}`,
      );
    }
    if (seen.has(urn)) throw badRequest(`resources: ${urn} is named twice`);
    seen.add(urn);
    if (name !== undefined && name !== null && typeof name !== 'string') {
      throw badRequest(`resources[${index}].name must be a string`);
    }
    return { urn, ...(typeof name === 'string' ? { name } : {}) };
  });
}

const findDestination = (world: World, request: SandboxRequest) =>
  findOr404(world.logDestinations, (d) => d.id === request.params.destination_uuid);

const findSink = (world: World, request: SandboxRequest) =>
  findOr404(world.logSinks, (s) => s.id === request.params.sink_uuid);

export const monitoringAlertRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/monitoring/alerts',
    handler: (req, world) => {
      const body = listBody('policies', world.alertPolicies, req);
      return { body: { ...body, policies: (body.policies as StoredAlertPolicy[]).map(policyView) } };
    },
  },
  {
    method: 'POST',
    path: '/v2/monitoring/alerts',
    handler: (req, world) => {
      const policy = policyFrom(world, req.body, randomUUID(), req.now);
      world.alertPolicies.push(policy);
      return { body: { policy: policyView(policy) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/monitoring/alerts/{alert_uuid}',
    handler: (req, world) => ({ body: { policy: policyView(findPolicy(world, req)) } }),
  },
  {
    method: 'PUT',
    path: '/v2/monitoring/alerts/{alert_uuid}',
    handler: (req, world) => {
      const stored = findPolicy(world, req);
      const policy = policyFrom(world, req.body, stored.uuid, stored.created_ms);
      Object.assign(stored, policy);
      return { body: { policy: policyView(policy) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/monitoring/alerts/{alert_uuid}',
    handler: (req, world) => {
      const policy = findPolicy(world, req);
      world.alertPolicies = world.alertPolicies.filter((p) => p.uuid !== policy.uuid);
      return { status: 204 };
    },
  },
];

export const monitoringSinkRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/monitoring/sinks/destinations',
    handler: (_req, world) => ({ body: { destinations: world.logDestinations.map(destinationView) } }),
  },
  {
    method: 'POST',
    path: '/v2/monitoring/sinks/destinations',
    handler: (req, world) => {
      const destination = destinationFrom(world, req.body, randomUUID(), randomUUID(), req.now);
      world.logDestinations.push(destination);
      return { body: { destination: destinationView(destination) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/monitoring/sinks/destinations/{destination_uuid}',
    handler: (req, world) => ({ body: { destination: destinationView(findDestination(world, req)) } }),
  },
  {
    // The API description's prose says PATCH; its method, and the platform's, is POST.
    method: 'POST',
    path: '/v2/monitoring/sinks/destinations/{destination_uuid}',
    handler: (req, world) => {
      const stored = findDestination(world, req);
      const next = destinationFrom(world, req.body, stored.id, stored.config.id, stored.created_ms);
      Object.assign(stored, next);
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/monitoring/sinks/destinations/{destination_uuid}',
    handler: (req, world) => {
      const destination = findDestination(world, req);
      world.logDestinations = world.logDestinations.filter((d) => d.id !== destination.id);
      // "To delete a destination and all associated sinks": its sinks go with it.
      world.logSinks = world.logSinks.filter((s) => s.destination_id !== destination.id);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/monitoring/sinks',
    handler: (req, world) => {
      const resource = req.query.get('resource_id');
      const sinks = world.logSinks.filter((s) => !resource || s.resources.some((r) => r.urn === resource));
      return { body: { sinks: sinks.map((s) => sinkView(world, s)) } };
    },
  },
  {
    method: 'POST',
    path: '/v2/monitoring/sinks',
    handler: (req, world) => {
      const destinationId = req.body.destination_uuid;
      if (destinationId === undefined || destinationId === null || destinationId === '') {
        throw missing('destination_uuid');
      }
      if (typeof destinationId !== 'string') throw badRequest('destination_uuid must be a string');
      const resources = sinkResources(req.body.resources);
      if (!world.logDestinations.some((d) => d.id === destinationId)) {
        throw notFound(`destination ${destinationId} does not exist`);
      }
      world.logSinks.push({
        id: randomUUID(),
        destination_id: destinationId,
        resources,
        created_ms: req.now,
      });
      return { status: 202 };
    },
  },
  {
    method: 'GET',
    path: '/v2/monitoring/sinks/{sink_uuid}',
    handler: (req, world) => ({ body: { sink: sinkView(world, findSink(world, req)) } }),
  },
  {
    method: 'DELETE',
    path: '/v2/monitoring/sinks/{sink_uuid}',
    handler: (req, world) => {
      const sink = findSink(world, req);
      world.logSinks = world.logSinks.filter((s) => s.id !== sink.id);
      return { status: 204 };
    },
  },
];
