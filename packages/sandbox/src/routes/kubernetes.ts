/**
 * Kubernetes clusters: create (with node pools), list, get, update, delete (alone, or with the
 * volumes, volume snapshots and load balancers the cluster made), upgrades, options, the cluster's
 * user and status messages. A cluster provisions for a few seconds of sandbox time, then runs (its
 * endpoint and address appear); an upgrade shows `upgrading`, then the new version; a deleted
 * cluster shows `deleting`, then is gone. Node pools, access (kubeconfig, credentials), clusterlint,
 * registries and 1-Click add-ons are in the routes this file gathers.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  CLUSTER_PROVISION_MS,
  clusterState,
  KUBERNETES_VERSIONS,
  type StoredKubernetesCluster,
  type StoredNodePool,
  upgradesFrom,
  versionAt,
} from '../families/kubernetes.js';
import { cidrsOverlap, isNetworkAddress, parseCidr } from '../families/networking.js';
import { badRequest, listBody, type Route, type SandboxRequest, unprocessable } from '../http.js';
import { nextId, type World } from '../world.js';
import { kubernetesAccessRoutes } from './kubernetes-access.js';
import {
  checkDropletLimit,
  clusterAutoTags,
  clusterToChange,
  clusterView,
  findCluster,
  kubernetesRegions,
  kubernetesSizes,
  nameTaken,
  newPool,
  optionalBoolean,
  requireKubernetesRegion,
  resolveVersion,
  resourceName,
  scaleNodes,
  settle,
  tagList,
} from './kubernetes-common.js';
import { kubernetesPoolsRoutes } from './kubernetes-pools.js';
import {
  DEFAULT_MAINTENANCE,
  defaultSettings,
  maintenancePolicy,
  mergeSettings,
} from './kubernetes-settings.js';
import { vpcFor } from './networking-common.js';
import { dropFromProject } from './projects.js';

/** The platform's default overlay and service networks; others are chosen when the VPC overlaps them. */
const DEFAULT_SUBNETS = ['10.244.0.0/16', '10.245.0.0/16', '10.246.0.0/16', '10.247.0.0/16'];

/** A given subnet (an IPv4 network in CIDR notation), or undefined when none is given. */
function subnetField(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || parseCidr(value)?.family !== 'ipv4' || !isNetworkAddress(value)) {
    throw unprocessable(`${field} must be an IPv4 network in CIDR notation, such as 10.244.0.0/16`);
  }
  return value;
}

/** The cluster and service subnets: as given (not overlapping each other nor the VPC), else defaults. */
function subnets(body: Record<string, unknown>, vpcRange: string): [string, string] {
  const cluster = subnetField(body.cluster_subnet, 'cluster_subnet');
  const service = subnetField(body.service_subnet, 'service_subnet');
  for (const [field, value] of [
    ['cluster_subnet', cluster],
    ['service_subnet', service],
  ] as const) {
    if (value && cidrsOverlap(value, vpcRange)) {
      throw unprocessable(`${field} ${value} overlaps the VPC's range ${vpcRange}`);
    }
  }
  if (cluster && service && cidrsOverlap(cluster, service)) {
    throw unprocessable(`cluster_subnet ${cluster} and service_subnet ${service} overlap`);
  }
  const free = DEFAULT_SUBNETS.filter(
    (s) => !cidrsOverlap(s, vpcRange) && ![cluster, service].some((given) => given && cidrsOverlap(s, given)),
  );
  const chosenCluster = cluster ?? free.shift() ?? '10.244.0.0/16';
  const chosenService = service ?? free.shift() ?? '10.245.0.0/16';
  return [chosenCluster, chosenService];
}

/** A certificate authority's PEM, base64-encoded as credentials and kubeconfigs carry it. */
function certificateAuthority(): string {
  const body = randomBytes(720).toString('base64').replace(/.{64}/g, '$&\n');
  const pem = `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;
  return Buffer.from(pem).toString('base64');
}

/**
 * The control plane's public address: from 198.18.0.0/15 (reserved for testing, RFC 2544), which
 * no other family of the sandbox hands out.
 */
function controlPlaneAddress(world: World): string {
  const n = nextId(world, 'kubernetesAddress') - 1;
  return `198.${18 + (Math.floor(n / 254 / 256) % 2)}.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
}

function createCluster(req: SandboxRequest, world: World): StoredKubernetesCluster {
  const { body, now } = req;
  settle(world, now);
  const name = resourceName(body.name, 'name');
  const taken = nameTaken(world, name, now);
  if (taken) throw taken;
  const region = requireKubernetesRegion(world, body.region);
  const version = resolveVersion(body.version);
  if (!Array.isArray(body.node_pools) || body.node_pools.length === 0) {
    throw unprocessable('node_pools must hold at least one node pool, of at least one node');
  }
  const pools: StoredNodePool[] = [];
  body.node_pools.forEach((raw, index) => {
    pools.push(
      newPool(
        world,
        raw,
        region,
        pools.map((p) => p.name),
        `node_pools[${index}]`,
      ),
    );
  });
  checkDropletLimit(
    world,
    now,
    pools.reduce((sum, p) => sum + p.count, 0),
  );
  const id = randomUUID();
  const ha = optionalBoolean(body.ha, 'ha', false);
  const isolated = optionalBoolean(body.isolated_workers, 'isolated_workers', false);
  const policy = maintenancePolicy(body.maintenance_policy, DEFAULT_MAINTENANCE);
  const settings = mergeSettings(body, defaultSettings());
  const tags = tagList(body.tags, 'tags', clusterAutoTags(id));
  const workerSubnet = body.worker_subnet_uuid;
  if (workerSubnet !== undefined && workerSubnet !== null && workerSubnet !== '') {
    if (!body.vpc_uuid) throw unprocessable('worker_subnet_uuid needs vpc_uuid');
    if (typeof workerSubnet !== 'string' || !/^[0-9a-f-]{36}$/i.test(workerSubnet)) {
      throw unprocessable('worker_subnet_uuid must be the UUID of a subnet of the VPC');
    }
  }
  // Last of the checks: a VPC named must exist in the region, else the region's default is made.
  const vpc = vpcFor(world, body.vpc_uuid, region, now);
  const [clusterSubnet, serviceSubnet] = subnets(body, vpc.ip_range);
  const cluster: StoredKubernetesCluster = {
    id,
    name,
    region,
    version: version.slug,
    cluster_subnet: clusterSubnet,
    service_subnet: serviceSubnet,
    vpc_uuid: vpc.id,
    ...(typeof workerSubnet === 'string' && workerSubnet ? { worker_subnet_uuid: workerSubnet } : {}),
    ipv4: controlPlaneAddress(world),
    ca: certificateAuthority(),
    tags,
    node_pools: pools,
    maintenance_policy: policy,
    auto_upgrade: optionalBoolean(body.auto_upgrade, 'auto_upgrade', false),
    surge_upgrade: optionalBoolean(body.surge_upgrade, 'surge_upgrade', false),
    ha,
    isolated_workers: isolated,
    settings,
    registry_enabled: false,
    registries: [],
    lint_runs: [],
    created_ms: now,
    updated_ms: now,
    ready_ms: now + CLUSTER_PROVISION_MS,
  };
  // The first nodes run when the cluster does.
  for (const pool of pools) scaleNodes(world, pool, now, CLUSTER_PROVISION_MS);
  world.kubernetesClusters.push(cluster);
  return cluster;
}

function updateCluster(req: SandboxRequest, world: World): StoredKubernetesCluster {
  settle(world, req.now);
  const cluster = clusterToChange(world, req);
  const { body } = req;
  // The description requires `name`, but clients (godo, doctl) leave out what they do not change,
  // and the platform keeps it: an update changes what it gives.
  const name = body.name === undefined ? cluster.name : resourceName(body.name, 'name');
  const taken = nameTaken(world, name, req.now, cluster.id);
  if (taken) throw taken;
  const tags =
    body.tags === undefined ? cluster.tags : tagList(body.tags, 'tags', clusterAutoTags(cluster.id));
  const ha = optionalBoolean(body.ha, 'ha', cluster.ha);
  if (cluster.ha && !ha) throw unprocessable('ha cannot be disabled once a cluster is highly available');
  const policy = maintenancePolicy(body.maintenance_policy, cluster.maintenance_policy);
  const autoUpgrade = optionalBoolean(body.auto_upgrade, 'auto_upgrade', cluster.auto_upgrade);
  const surgeUpgrade = optionalBoolean(body.surge_upgrade, 'surge_upgrade', cluster.surge_upgrade);
  const settings = mergeSettings(body, cluster.settings);
  Object.assign(cluster, {
    name,
    tags,
    ha,
    maintenance_policy: policy,
    auto_upgrade: autoUpgrade,
    surge_upgrade: surgeUpgrade,
    settings,
    updated_ms: req.now,
  });
  return cluster;
}

// ---------------------------------------------------------------------------------------------------
// Deletion, with the resources the cluster made

/**
 * What a cluster made outside itself, that the platform offers to delete with it: the volumes and
 * volume snapshots its storage driver tagged `k8s:<cluster id>`, and the load balancers its cloud
 * controller made, which target the cluster's nodes by that same tag.
 */
function associated(world: World, cluster: StoredKubernetesCluster) {
  const tag = `k8s:${cluster.id}`;
  return {
    volumes: world.volumes.filter((v) => v.tags.includes(tag)),
    volume_snapshots: world.volumeSnapshots.filter((s) => s.tags.includes(tag)),
    load_balancers: world.loadBalancers.filter((lb) => lb.tag === tag),
  };
}

type AssociatedKind = keyof ReturnType<typeof associated>;
const KINDS: AssociatedKind[] = ['volumes', 'volume_snapshots', 'load_balancers'];

/** Deletes resources of each kind by id (ids already checked to be associated with the cluster). */
function destroyResources(world: World, ids: Record<AssociatedKind, string[]>): void {
  const volumes = new Set(ids.volumes);
  const snapshots = new Set(ids.volume_snapshots);
  const balancers = new Set(ids.load_balancers);
  if (volumes.size) world.volumes = world.volumes.filter((v) => !volumes.has(v.id));
  if (snapshots.size) world.volumeSnapshots = world.volumeSnapshots.filter((s) => !snapshots.has(s.id));
  if (balancers.size) {
    world.loadBalancers = world.loadBalancers.filter((lb) => !balancers.has(lb.id));
    // A global load balancer in front of one deleted no longer points at it.
    for (const lb of world.loadBalancers) {
      if (lb.target_load_balancer_ids.some((id) => balancers.has(id))) {
        lb.target_load_balancer_ids = lb.target_load_balancer_ids.filter((id) => !balancers.has(id));
      }
    }
  }
  for (const id of volumes) dropFromProject(world, `do:volume:${id}`);
  for (const id of balancers) dropFromProject(world, `do:loadbalancer:${id}`);
}

/** Starts a cluster's deletion: it shows `deleting`, then is gone (a second delete changes nothing). */
function startDeletion(cluster: StoredKubernetesCluster, now: number): void {
  if (cluster.deleting_ms === undefined) cluster.deleting_ms = now;
}

/** The ids a selective delete names, each checked to be the cluster's. */
function selection(body: Record<string, unknown>, world: World, cluster: StoredKubernetesCluster) {
  const found = associated(world, cluster);
  const ids = {} as Record<AssociatedKind, string[]>;
  for (const kind of KINDS) {
    const value = body[kind] ?? [];
    if (!Array.isArray(value) || !value.every((id) => typeof id === 'string')) {
      throw unprocessable(`${kind} must be an array of ids`);
    }
    for (const id of value as string[]) {
      if (!found[kind].some((r) => r.id === id)) {
        throw unprocessable(`${kind}: ${id} is not a resource associated with cluster ${cluster.id}`);
      }
    }
    ids[kind] = [...new Set(value as string[])];
  }
  return ids;
}

export const kubernetesRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/kubernetes/clusters',
    handler: (req, world) => {
      const live = world.kubernetesClusters.filter((c) => clusterState(c, req.now) !== 'gone');
      const page = listBody('kubernetes_clusters', live, req);
      const clusters = (page.kubernetes_clusters as StoredKubernetesCluster[]).map((c) =>
        clusterView(c, req.now),
      );
      return { body: { ...page, kubernetes_clusters: clusters } };
    },
  },
  {
    method: 'POST',
    path: '/v2/kubernetes/clusters',
    handler: (req, world) => {
      const cluster = createCluster(req, world);
      return { status: 201, body: { kubernetes_cluster: clusterView(cluster, req.now) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/kubernetes/clusters/{cluster_id}',
    handler: (req, world) => ({
      body: { kubernetes_cluster: clusterView(findCluster(world, req), req.now) },
    }),
  },
  {
    method: 'PUT',
    path: '/v2/kubernetes/clusters/{cluster_id}',
    handler: (req, world) => {
      const cluster = updateCluster(req, world);
      return { status: 202, body: { kubernetes_cluster: clusterView(cluster, req.now) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/kubernetes/clusters/{cluster_id}',
    handler: (req, world) => {
      settle(world, req.now);
      startDeletion(findCluster(world, req), req.now);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/kubernetes/clusters/{cluster_id}/destroy_with_associated_resources',
    handler: (req, world) => {
      const found = associated(world, findCluster(world, req));
      const brief = (items: { id: string; name: string }[]) => items.map(({ id, name }) => ({ id, name }));
      return {
        body: {
          volumes: brief(found.volumes),
          volume_snapshots: brief(found.volume_snapshots),
          load_balancers: brief(found.load_balancers),
        },
      };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/kubernetes/clusters/{cluster_id}/destroy_with_associated_resources/selective',
    handler: (req, world) => {
      settle(world, req.now);
      const cluster = findCluster(world, req);
      destroyResources(world, selection(req.body, world, cluster));
      startDeletion(cluster, req.now);
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/kubernetes/clusters/{cluster_id}/destroy_with_associated_resources/dangerous',
    handler: (req, world) => {
      settle(world, req.now);
      const cluster = findCluster(world, req);
      const found = associated(world, cluster);
      const ids = (items: { id: string }[]) => items.map((r) => r.id);
      destroyResources(world, {
        volumes: ids(found.volumes),
        volume_snapshots: ids(found.volume_snapshots),
        load_balancers: ids(found.load_balancers),
      });
      startDeletion(cluster, req.now);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/kubernetes/clusters/{cluster_id}/upgrades',
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const versions = upgradesFrom(versionAt(cluster, req.now));
      // The platform answers null, not an empty list, when there is nothing to upgrade to.
      return { body: { available_upgrade_versions: versions.length ? versions : null } };
    },
  },
  {
    method: 'POST',
    path: '/v2/kubernetes/clusters/{cluster_id}/upgrade',
    handler: (req, world) => {
      settle(world, req.now);
      const cluster = clusterToChange(world, req);
      const state = clusterState(cluster, req.now);
      if (state !== 'running') {
        throw unprocessable(`cluster ${cluster.id} is ${state}: it can be upgraded once it is running`);
      }
      const version = req.body.version;
      if (typeof version !== 'string' || version === '') throw unprocessable('version is required');
      const offered = upgradesFrom(cluster.version);
      if (!offered.some((v) => v.slug === version)) {
        throw unprocessable(
          `cluster ${cluster.id} runs ${cluster.version} and cannot be upgraded to ${version}; ` +
            (offered.length
              ? `it can be upgraded to ${offered.map((v) => v.slug).join(', ')}`
              : 'no newer version is available'),
        );
      }
      cluster.upgrade = { version, started_ms: req.now };
      return { status: 202 };
    },
  },
  {
    method: 'GET',
    path: '/v2/kubernetes/clusters/{cluster_id}/user',
    handler: (req, world) => {
      findCluster(world, req);
      return {
        body: {
          kubernetes_cluster_user: { username: world.account.email, groups: ['k8saas:authenticated'] },
        },
      };
    },
  },
  {
    method: 'GET',
    path: '/v2/kubernetes/clusters/{cluster_id}/status_messages',
    handler: (req, world) => {
      findCluster(world, req);
      const since = req.query.get('since');
      if (since !== null && Number.isNaN(Date.parse(since))) {
        throw badRequest(
          `since must be a date-time such as 2024-01-02T03:04:05Z; got ${JSON.stringify(since)}`,
        );
      }
      // Status messages tell of problems in a cluster's life (a node that cannot join, a quota hit);
      // the sandbox's clusters meet none.
      return { body: { messages: [] } };
    },
  },
  {
    method: 'GET',
    path: '/v2/kubernetes/options',
    handler: (_req, world) => ({
      body: {
        options: {
          regions: kubernetesRegions(world).map((r) => ({ name: r.name, slug: r.slug })),
          versions: KUBERNETES_VERSIONS.map((v) => ({ ...v, supported_features: [...v.supported_features] })),
          sizes: kubernetesSizes(world).map((s) => ({
            // CPU-optimized sizes carry their memory in their name (c-2-4GiB), as the platform lists them.
            name: s.slug.startsWith('c-') ? `${s.slug}-${s.memory / 1024}GiB` : s.slug,
            slug: s.slug,
          })),
        },
      },
    }),
  },
  ...kubernetesPoolsRoutes,
  ...kubernetesAccessRoutes,
];
