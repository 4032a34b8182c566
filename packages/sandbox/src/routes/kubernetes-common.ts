/**
 * What the Kubernetes routes share: finding a cluster or a pool, the views (a cluster, a pool, a
 * node, as the platform shows them at a moment), the checks of a node pool's fields, and the nodes
 * a pool gains or loses as its count changes.
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { Schemas } from '@cloudcall/platform';
import { cloneData } from '../clone.js';
import {
  clusterState,
  KUBERNETES_VERSIONS,
  type KubernetesVersion,
  MAX_POOL_NODES,
  NODE_PROVISION_MS,
  nodeState,
  nodeUpdatedMs,
  type StoredKubernetesCluster,
  type StoredNode,
  type StoredNodePool,
  type Taint,
  UPGRADE_MS,
  versionAt,
} from '../families/kubernetes.js';
import { type HttpError, notFound, type SandboxRequest, unprocessable } from '../http.js';
import { iso } from '../time.js';
import { nextId, type World } from '../world.js';
import { tagNameProblem } from './tags.js';

/**
 * The tags the platform puts on every cluster, and on every pool with `k8s:worker`. The
 * description's prose for a pool's `tags` says `k8s-worker`, but its response examples and
 * responses recorded from the platform (in client test fixtures) all show `k8s:worker`: the
 * platform's, followed here.
 */
export const clusterAutoTags = (id: string) => ['k8s', `k8s:${id}`];
export const poolAutoTags = (id: string) => ['k8s', `k8s:${id}`, 'k8s:worker'];

/** Lowercase letters, digits and "-", starting and ending with a letter or digit (a DNS label's characters). */
const NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const NAME_LIMIT = 255;

/** A cluster's or a pool's name, or the platform's 422 naming the field. */
export function resourceName(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw unprocessable(`${field} is required`);
  if (!NAME.test(value) || value.length > NAME_LIMIT) {
    throw unprocessable(
      `${field} must be lowercase letters, digits and "-", start and end with a letter or digit, and be at most ${NAME_LIMIT} characters; got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** A `tags` field: tag names (the platform's own `k8s` tags are dropped: they are always there). */
export function tagList(value: unknown, field: string, own: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw unprocessable(`${field} must be an array of tag names`);
  for (const tag of value) {
    const problem = tagNameProblem(tag);
    if (problem) throw unprocessable(`${field}: ${problem}`);
  }
  return [...new Set(value as string[])].filter((tag) => !own.includes(tag));
}

export function optionalBoolean(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw unprocessable(`${field} must be a boolean`);
  return value;
}

/** The cluster a path names, unless it is gone: a deleting cluster is still shown. */
export function findCluster(world: World, req: SandboxRequest): StoredKubernetesCluster {
  const cluster = world.kubernetesClusters.find((c) => c.id === req.params.cluster_id);
  if (!cluster || clusterState(cluster, req.now) === 'gone') throw notFound();
  return cluster;
}

/** Refuses a change to a cluster being deleted. */
export function refuseIfDeleting(cluster: StoredKubernetesCluster, now: number): void {
  if (clusterState(cluster, now) === 'deleting') {
    throw unprocessable(`cluster ${cluster.id} is being deleted and cannot be changed`);
  }
}

/** The cluster a path names, to change it: not one being deleted. */
export function clusterToChange(world: World, req: SandboxRequest): StoredKubernetesCluster {
  const cluster = findCluster(world, req);
  refuseIfDeleting(cluster, req.now);
  return cluster;
}

export function findPool(cluster: StoredKubernetesCluster, req: SandboxRequest): StoredNodePool {
  const pool = cluster.node_pools.find((p) => p.id === req.params.node_pool_id);
  if (!pool) throw notFound();
  return pool;
}

/**
 * Folds what time has finished into the stored state, before a change: gone clusters and nodes
 * leave, a finished upgrade becomes the version. Reads derive the same from timestamps instead.
 */
export function settle(world: World, now: number): void {
  if (world.kubernetesClusters.some((c) => clusterState(c, now) === 'gone')) {
    world.kubernetesClusters = world.kubernetesClusters.filter((c) => clusterState(c, now) !== 'gone');
  }
  for (const cluster of world.kubernetesClusters) {
    if (cluster.upgrade && now >= cluster.upgrade.started_ms + UPGRADE_MS) {
      cluster.version = cluster.upgrade.version;
      cluster.updated_ms = cluster.upgrade.started_ms + UPGRADE_MS;
      delete cluster.upgrade;
    }
    for (const pool of cluster.node_pools) {
      if (pool.nodes.some((n) => nodeState(n, now) === 'gone')) {
        pool.nodes = pool.nodes.filter((n) => nodeState(n, now) !== 'gone');
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Versions, regions and sizes

/** A create's `version`: a slug of the options, a minor (`1.32`, its latest patch) or `latest`. */
export function resolveVersion(value: unknown): KubernetesVersion {
  if (typeof value !== 'string' || value === '') throw unprocessable('version is required');
  const found =
    value === 'latest'
      ? KUBERNETES_VERSIONS[0]
      : KUBERNETES_VERSIONS.find((v) => v.slug === value || v.kubernetes_version.startsWith(`${value}.`));
  if (!found) {
    throw unprocessable(
      `version ${JSON.stringify(value)} is not a supported Kubernetes version; use one of ${KUBERNETES_VERSIONS.map((v) => v.slug).join(', ')}, a minor version or "latest"`,
    );
  }
  return found;
}

/** Regions that run clusters: those open to new resources. */
export const kubernetesRegions = (world: World) => world.regions.filter((r) => r.available);

/** Node sizes: the available sizes with at least 2 GiB of memory (the platform's smallest node). */
export const kubernetesSizes = (world: World) =>
  world.sizes.filter((size) => size.available && size.memory >= 2048);

export function requireKubernetesRegion(world: World, value: unknown): string {
  if (typeof value !== 'string' || value === '') throw unprocessable('region is required');
  if (!kubernetesRegions(world).some((r) => r.slug === value)) {
    throw unprocessable(`region ${JSON.stringify(value)} is not a region that runs Kubernetes clusters`);
  }
  return value;
}

// ---------------------------------------------------------------------------------------------------
// Node pools

const LABEL_NAME = /^[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_PREFIX = /^[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?$/;

/** A Kubernetes label key (`[prefix/]name`), as the cluster's API server accepts it. */
function labelKeyProblem(key: string): string | undefined {
  const parts = key.split('/');
  const name = parts.pop() ?? '';
  if (parts.length > 1 || (parts.length === 1 && !LABEL_PREFIX.test(parts[0] ?? ''))) {
    return `${JSON.stringify(key)} has an invalid prefix`;
  }
  if (!LABEL_NAME.test(name)) {
    return `${JSON.stringify(key)} must be at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit`;
  }
  return undefined;
}

function labelValueOk(value: string): boolean {
  return value === '' || LABEL_NAME.test(value);
}

export function labelsField(value: unknown): Record<string, string> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw unprocessable('labels must be an object of label names and values');
  }
  const labels: Record<string, string> = {};
  for (const [key, text] of Object.entries(value)) {
    const problem = labelKeyProblem(key);
    if (problem) throw unprocessable(`labels: ${problem}`);
    if (typeof text !== 'string' || !labelValueOk(text)) {
      throw unprocessable(`labels: the value of ${key} must be a label value (at most 63 characters)`);
    }
    labels[key] = text;
  }
  return Object.keys(labels).length ? labels : null;
}

const EFFECTS = new Set(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);

export function taintsField(value: unknown): Taint[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw unprocessable('taints must be an array of {key, value, effect}');
  return value.map((raw, index) => {
    const field = `taints[${index}]`;
    if (typeof raw !== 'object' || raw === null) throw unprocessable(`${field} must be an object`);
    const { key, value: text = '', effect } = raw as Record<string, unknown>;
    if (typeof key !== 'string' || key === '') throw unprocessable(`${field}.key is required`);
    const problem = labelKeyProblem(key);
    if (problem) throw unprocessable(`${field}.key: ${problem}`);
    if (typeof text !== 'string' || !labelValueOk(text)) throw unprocessable(`${field}.value is not valid`);
    if (typeof effect !== 'string' || !EFFECTS.has(effect)) {
      throw unprocessable(`${field}.effect must be NoSchedule, PreferNoSchedule or NoExecute`);
    }
    return { key, value: text, effect: effect as Taint['effect'] };
  });
}

function nodeCount(value: unknown, field: string, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > MAX_POOL_NODES) {
    throw unprocessable(
      `${field} must be an integer from ${min} to ${MAX_POOL_NODES}; got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * The count and autoscaling of a pool, checked together; `current` fills what an update leaves
 * out. An autoscaling pool created without a count starts at its minimum (at least one node).
 */
export function scaling(
  body: Record<string, unknown>,
  current?: Pick<StoredNodePool, 'count' | 'auto_scale' | 'min_nodes' | 'max_nodes'>,
) {
  const autoScale = optionalBoolean(body.auto_scale, 'auto_scale', current?.auto_scale ?? false);
  const min = !autoScale
    ? 0
    : body.min_nodes === undefined && current?.auto_scale
      ? current.min_nodes
      : nodeCount(body.min_nodes ?? 0, 'min_nodes', 0);
  const max = !autoScale
    ? 0
    : body.max_nodes === undefined && current?.auto_scale
      ? current.max_nodes
      : nodeCount(body.max_nodes, 'max_nodes', 1);
  const count =
    body.count !== undefined
      ? nodeCount(body.count, 'count', 1)
      : current
        ? current.count
        : autoScale
          ? Math.max(1, min)
          : nodeCount(body.count, 'count', 1);
  if (!autoScale) return { count, auto_scale: false, min_nodes: 0, max_nodes: 0 };
  if (min > max) throw unprocessable(`min_nodes (${min}) must not be more than max_nodes (${max})`);
  if (count < min || count > max) {
    throw unprocessable(
      `count (${count}) must be within min_nodes and max_nodes (${min} to ${max}) of an autoscaling pool`,
    );
  }
  return { count, auto_scale: true, min_nodes: min, max_nodes: max };
}

/** A pool's size: a node size offered in the cluster's region. */
export function poolSize(world: World, value: unknown, region: string): string {
  if (typeof value !== 'string' || value === '') throw unprocessable('size is required');
  const size = kubernetesSizes(world).find((s) => s.slug === value);
  if (!size) throw unprocessable(`size ${JSON.stringify(value)} is not a Kubernetes node size`);
  if (!size.regions.includes(region)) throw unprocessable(`size ${value} is not available in ${region}`);
  return value;
}

/** How many worker nodes the account holds in all its clusters (each is a Droplet). */
export function nodesInUse(world: World, now: number): number {
  return world.kubernetesClusters
    .filter((c) => clusterState(c, now) !== 'gone' && clusterState(c, now) !== 'deleting')
    .reduce((sum, c) => sum + c.node_pools.reduce((n, p) => n + p.count, 0), 0);
}

/**
 * Refuses `more` nodes beyond the account's Droplet limit: the platform counts worker nodes as
 * Droplets (a cluster of 30 nodes needs a limit of 30).
 */
export function checkDropletLimit(world: World, now: number, more: number): void {
  if (more <= 0) return;
  const limit = world.account.droplet_limit;
  const used = world.droplets.length + nodesInUse(world, now);
  if (used + more > limit) {
    throw unprocessable(
      `the account's droplet limit is ${limit} and it uses ${used}: ${more} more worker node(s) would exceed it`,
    );
  }
}

const NAME_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function newNode(world: World, pool: StoredNodePool, now: number, provisionMs: number): StoredNode {
  const suffix = Array.from({ length: 5 }, () => NAME_CHARS[randomInt(NAME_CHARS.length)]).join('');
  return {
    id: randomUUID(),
    name: `${pool.name}-${suffix}`,
    droplet_id: nextId(world, 'droplet'),
    created_ms: now,
    ready_ms: now + provisionMs,
  };
}

/** Nodes that are not being deleted. */
export const liveNodes = (pool: StoredNodePool) => pool.nodes.filter((n) => n.deleting_ms === undefined);

/** Marks a node for deletion: it drains (unless skipped), then is deleted. */
export function retireNode(node: StoredNode, now: number, skipDrain = false): void {
  node.deleting_ms = now;
  if (skipDrain) node.skip_drain = true;
}

/** Adds or retires nodes until the pool has `count` live ones (the newest go first). */
export function scaleNodes(world: World, pool: StoredNodePool, now: number, provisionMs = NODE_PROVISION_MS) {
  const live = liveNodes(pool);
  for (let n = live.length; n < pool.count; n++) pool.nodes.push(newNode(world, pool, now, provisionMs));
  for (const node of live.slice(pool.count).reverse()) retireNode(node, now);
}

/** Checks a new pool's fields; its nodes are made by `scaleNodes` once it is stored. */
export function newPool(
  world: World,
  body: unknown,
  region: string,
  taken: readonly string[],
  field = 'node_pool',
): StoredNodePool {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw unprocessable(`${field} must be an object`);
  }
  const fields = body as Record<string, unknown>;
  const name = resourceName(fields.name, `${field}.name`);
  if (taken.includes(name)) throw unprocessable(`a node pool named ${name} already exists in the cluster`);
  return {
    id: randomUUID(),
    name,
    size: poolSize(world, fields.size, region),
    ...scaling(fields),
    tags: tagList(fields.tags, `${field}.tags`, []),
    labels: labelsField(fields.labels),
    taints: taintsField(fields.taints),
    nodes: [],
  };
}

// ---------------------------------------------------------------------------------------------------
// Views

type NodeView = Schemas['node'];
type PoolView = Schemas['kubernetes_node_pool'];
/** The states a view shows: every state but `gone`, which no view is made for. */
type ShownNodeState = NonNullable<NonNullable<NodeView['status']>['state']>;
type ShownClusterState = NonNullable<NonNullable<Schemas['cluster_read']['status']>['state']>;

function nodeView(node: StoredNode, now: number, clusterDeleting: boolean): NodeView {
  const state = nodeState(node, now);
  const shown = state !== 'provisioning';
  return {
    id: node.id,
    // Provisioning nodes show no name nor droplet yet, as the platform's do.
    name: shown ? node.name : '',
    status: { state: clusterDeleting ? 'deleting' : (state as ShownNodeState) },
    droplet_id: shown ? String(node.droplet_id) : '',
    created_at: iso(node.created_ms),
    updated_at: iso(nodeUpdatedMs(node, now)),
  };
}

export function poolView(cluster: StoredKubernetesCluster, pool: StoredNodePool, now: number): PoolView {
  const deleting = clusterState(cluster, now) === 'deleting';
  const tags = [...new Set([...cluster.tags, ...pool.tags, ...poolAutoTags(cluster.id)])];
  return {
    id: pool.id,
    name: pool.name,
    size: pool.size,
    count: pool.count,
    tags,
    labels: pool.labels ? { ...pool.labels } : null,
    taints: pool.taints.map((t) => ({ ...t })),
    auto_scale: pool.auto_scale,
    min_nodes: pool.min_nodes,
    max_nodes: pool.max_nodes,
    nodes: pool.nodes
      .filter((node) => nodeState(node, now) !== 'gone')
      .map((node) => nodeView(node, now, deleting)),
  };
}

const STATUS_MESSAGES: Record<string, string | undefined> = {
  provisioning: 'provisioning',
  upgrading: 'upgrading',
  deleting: 'deleting',
};

/** A cluster as the platform shows it at `now`. */
export function clusterView(cluster: StoredKubernetesCluster, now: number): Schemas['cluster_read'] {
  const state = clusterState(cluster, now);
  const started = now >= cluster.ready_ms;
  const message = STATUS_MESSAGES[state];
  const moments = [cluster.updated_ms, cluster.ready_ms, cluster.deleting_ms];
  if (cluster.upgrade) moments.push(cluster.upgrade.started_ms, cluster.upgrade.started_ms + UPGRADE_MS);
  const updated = Math.max(...moments.filter((ms): ms is number => ms !== undefined && ms <= now));
  return {
    id: cluster.id,
    name: cluster.name,
    region: cluster.region,
    version: versionAt(cluster, now),
    cluster_subnet: cluster.cluster_subnet,
    service_subnet: cluster.service_subnet,
    vpc_uuid: cluster.vpc_uuid,
    ...(cluster.worker_subnet_uuid ? { worker_subnet_uuid: cluster.worker_subnet_uuid } : {}),
    // A highly available control plane has no single address.
    ipv4: started && !cluster.ha ? cluster.ipv4 : '',
    endpoint: started ? `https://${cluster.id}.k8s.ondigitalocean.com` : '',
    tags: [...cluster.tags, ...clusterAutoTags(cluster.id)],
    node_pools: cluster.node_pools.map((pool) => poolView(cluster, pool, now)),
    maintenance_policy: { ...cluster.maintenance_policy, duration: '4h0m0s' },
    auto_upgrade: cluster.auto_upgrade,
    isolated_workers: cluster.isolated_workers,
    status: { state: state as ShownClusterState, ...(message ? { message } : {}) },
    created_at: iso(cluster.created_ms),
    updated_at: iso(updated),
    surge_upgrade: cluster.surge_upgrade,
    registry_enabled: cluster.registry_enabled || cluster.registries.length > 0,
    registries: [...cluster.registries],
    ha: cluster.ha,
    ...cloneData(cluster.settings),
  };
}

/** The 422 for a second cluster of the same name in the account. */
export function nameTaken(world: World, name: string, now: number, except?: string): HttpError | undefined {
  const other = world.kubernetesClusters.find(
    (c) => c.name === name && c.id !== except && clusterState(c, now) !== 'gone',
  );
  return other ? unprocessable(`a Kubernetes cluster named ${name} already exists`) : undefined;
}
