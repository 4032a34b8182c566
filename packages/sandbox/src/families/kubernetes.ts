/**
 * Kubernetes state of the sandbox world: clusters with their node pools and nodes, clusterlint runs
 * and registry integrations. What moves by itself (a cluster provisioning, upgrading or being
 * deleted; a node provisioning, draining, being deleted) is stored as the time it started and
 * derived when read (`clusterState`, `nodeState`), never advanced by timers: a client that polls
 * sees every state, and the state holds across processes.
 *
 * A node's droplet id is handed out from the world's droplet ids (so it never collides with a VM's)
 * but the node is not a VM of `droplets`: the platform manages worker droplets itself.
 */
import type { Schemas } from '@cloudcall/platform';

/** How long a new cluster provisions before it runs (its control plane and first nodes). */
export const CLUSTER_PROVISION_MS = 5_000;
/** How long a node added later (a new pool, a scale-up, a replacement) provisions. */
export const NODE_PROVISION_MS = 4_000;
/** How long an upgrade takes: the cluster is `upgrading` meanwhile, then runs the new version. */
export const UPGRADE_MS = 5_000;
/** How long a deleted cluster shows `deleting` before it is gone. */
export const CLUSTER_DELETE_MS = 3_000;
/** How long a node being deleted drains (skipped with `skip_drain=1`), then how long it is `deleting`. */
export const NODE_DRAIN_MS = 1_500;
export const NODE_DELETE_MS = 2_000;
/** How long a clusterlint run takes before its diagnostics are there. */
export const LINT_MS = 2_000;
/** The most nodes a pool holds (and the most an autoscaling pool may grow to). */
export const MAX_POOL_NODES = 512;
/** The clusterlint runs kept per cluster, newest last. */
export const LINT_RUNS_KEPT = 10;

export type KubernetesVersion = Required<Schemas['kubernetes_version']>;

const FEATURES = ['cluster-autoscaler', 'docr-integration', 'ha-control-plane', 'token-authentication'];

/**
 * The versions offered for new clusters, newest first: the latest patch of each supported minor,
 * as `/v2/kubernetes/options` lists them. `latest` and a minor (`1.32`) resolve to one of these.
 */
export const KUBERNETES_VERSIONS: KubernetesVersion[] = [
  { slug: '1.33.1-do.0', kubernetes_version: '1.33.1', supported_features: FEATURES },
  { slug: '1.32.2-do.0', kubernetes_version: '1.32.2', supported_features: FEATURES },
  { slug: '1.31.1-do.0', kubernetes_version: '1.31.1', supported_features: FEATURES },
];

/** The 1-Click applications a cluster can install (`/v2/1-clicks?type=kubernetes`). */
export const KUBERNETES_ONE_CLICKS = [
  'monitoring',
  'ingress-nginx',
  'cert-manager',
  'metrics-server',
  'argocd',
  'external-dns',
];

export type Taint = Required<Schemas['kubernetes_node_pool_taint']>;

export interface StoredNode {
  id: string;
  /** The name it shows once provisioned: its pool's name and five characters. */
  name: string;
  droplet_id: number;
  created_ms: number;
  /** When it finishes provisioning. */
  ready_ms: number;
  /** When its deletion was asked for (a delete, a scale-down, a recycle, its cluster's deletion). */
  deleting_ms?: number;
  /** Deleted without draining first. */
  skip_drain?: boolean;
}

export interface StoredNodePool {
  id: string;
  name: string;
  size: string;
  count: number;
  /** The tags given to the pool; the view adds the cluster's and the platform's own. */
  tags: string[];
  labels: Record<string, string> | null;
  taints: Taint[];
  auto_scale: boolean;
  min_nodes: number;
  max_nodes: number;
  nodes: StoredNode[];
}

export interface MaintenancePolicy {
  start_time: string;
  day: 'any' | 'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday' | 'sunday';
}

export interface StoredLintRun {
  run_id: string;
  requested_ms: number;
  /** The checks the run covers, as its request selected them. */
  checks: string[];
}

export interface StoredKubernetesCluster {
  id: string;
  name: string;
  region: string;
  /** The version it runs (the one before an upgrade in progress). */
  version: string;
  /** An upgrade asked for: `version` becomes this once it is done. */
  upgrade?: { version: string; started_ms: number };
  cluster_subnet: string;
  service_subnet: string;
  vpc_uuid: string;
  worker_subnet_uuid?: string;
  /** The control plane's public address, shown once running (not with a highly available one). */
  ipv4: string;
  /** A base64 PEM certificate authority, as credentials carry it. */
  ca: string;
  /** The tags given to the cluster; the view adds `k8s` and `k8s:<id>`. */
  tags: string[];
  node_pools: StoredNodePool[];
  maintenance_policy: MaintenancePolicy;
  auto_upgrade: boolean;
  surge_upgrade: boolean;
  ha: boolean;
  isolated_workers: boolean;
  /** The settings objects of the description (firewall, autoscaler, SSO, plugins), as given or defaulted. */
  settings: Record<string, Record<string, unknown>>;
  /** Integrated with the account's registry (`/v2/kubernetes/registry`). */
  registry_enabled: boolean;
  /** Registries integrated by name (`/v2/kubernetes/registries`). */
  registries: string[];
  lint_runs: StoredLintRun[];
  created_ms: number;
  updated_ms: number;
  /** When it finishes provisioning. */
  ready_ms: number;
  deleting_ms?: number;
}

export interface KubernetesState {
  kubernetesClusters: StoredKubernetesCluster[];
}

export function seedKubernetesState(): KubernetesState {
  return { kubernetesClusters: [] };
}

export type ClusterState = 'provisioning' | 'running' | 'upgrading' | 'deleting' | 'gone';

/** A cluster's state at `now`, derived from its timestamps. */
export function clusterState(cluster: StoredKubernetesCluster, now: number): ClusterState {
  if (cluster.deleting_ms !== undefined) {
    return now < cluster.deleting_ms + CLUSTER_DELETE_MS ? 'deleting' : 'gone';
  }
  if (now < cluster.ready_ms) return 'provisioning';
  if (cluster.upgrade && now < cluster.upgrade.started_ms + UPGRADE_MS) return 'upgrading';
  return 'running';
}

/** The version a cluster runs at `now`: an upgrade's once it is done. */
export function versionAt(cluster: StoredKubernetesCluster, now: number): string {
  const upgrade = cluster.upgrade;
  return upgrade && now >= upgrade.started_ms + UPGRADE_MS ? upgrade.version : cluster.version;
}

export type NodeState = 'provisioning' | 'running' | 'draining' | 'deleting' | 'gone';

/** When a node being deleted stops draining, and when it is gone. */
function deletionTimes(node: StoredNode): { drained: number; gone: number } | undefined {
  if (node.deleting_ms === undefined) return undefined;
  const drained = node.deleting_ms + (node.skip_drain ? 0 : NODE_DRAIN_MS);
  return { drained, gone: drained + NODE_DELETE_MS };
}

/** A node's state at `now`, derived from its timestamps. */
export function nodeState(node: StoredNode, now: number): NodeState {
  const deletion = deletionTimes(node);
  if (deletion) {
    if (now < deletion.drained) return 'draining';
    return now < deletion.gone ? 'deleting' : 'gone';
  }
  return now < node.ready_ms ? 'provisioning' : 'running';
}

/** When a node last changed state, as of `now` (its `updated_at`). */
export function nodeUpdatedMs(node: StoredNode, now: number): number {
  const deletion = deletionTimes(node);
  const moments = [node.created_ms, node.ready_ms, node.deleting_ms, deletion?.drained];
  return Math.max(...moments.filter((ms): ms is number => ms !== undefined && ms <= now));
}

/** A version slug's numbers, for ordering: `1.32.2-do.1` is [1, 32, 2, 1]. */
export function versionNumbers(slug: string): number[] | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)-do\.(\d+)$/.exec(slug);
  return match ? match.slice(1).map(Number) : undefined;
}

/**
 * The versions a cluster on `current` may upgrade to: a newer patch of its minor, or the next
 * minor (the platform upgrades one minor at a time).
 */
export function upgradesFrom(current: string): KubernetesVersion[] {
  const from = versionNumbers(current);
  if (!from) return [];
  return KUBERNETES_VERSIONS.filter((candidate) => {
    const to = versionNumbers(candidate.slug);
    if (!to || to[0] !== from[0]) return false;
    if (to[1] === (from[1] ?? 0) + 1) return true;
    if (to[1] !== from[1]) return false;
    return (to[2] ?? 0) > (from[2] ?? 0) || (to[2] === from[2] && (to[3] ?? 0) > (from[3] ?? 0));
  });
}
