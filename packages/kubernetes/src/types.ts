/**
 * The platform's answers to the Kubernetes tools, as library users receive them: the shapes of the
 * platform's OpenAPI description (@cloudcall/platform, generated). `Always` marks what the
 * description leaves optional and the platform always sends.
 */
import type { Always, ListAnswer, Schemas } from '@cloudcall/platform';

/** A cluster: its node pools, version, status (`status.state`: provisioning, running...). */
export type KubernetesCluster = Always<
  Schemas['cluster_read'],
  'id' | 'name' | 'region' | 'version' | 'node_pools' | 'status' | 'created_at'
>;
export type KubernetesClusterList = ListAnswer<
  'kubernetes_list_clusters',
  'kubernetes_clusters',
  KubernetesCluster
>;

export type NodePool = Always<Schemas['kubernetes_node_pool'], 'id' | 'nodes'>;
export type KubernetesNode = Schemas['node'];

/** The versions a cluster may be upgraded to; null when there is none. */
export interface KubernetesUpgrades {
  available_upgrade_versions: Schemas['kubernetes_version'][] | null;
}

/** The resources a cluster made (volumes, volume snapshots, load balancers): what a full delete takes too. */
export type AssociatedResources = Required<Schemas['associated_kubernetes_resources']>;

/** A cluster's API server, certificate authority and a token (secret) that expires at `expires_at`. */
export type KubernetesCredentials = Schemas['credentials'];

/**
 * A kubeconfig as kubectl reads it (the platform's YAML, parsed): one cluster, context and user,
 * named `do-<region>-<cluster name>`. The user's `token` is a secret.
 */
export interface Kubeconfig {
  apiVersion: string;
  kind: string;
  clusters: { name: string; cluster: Record<string, unknown> }[];
  contexts: { name: string; context: { cluster: string; user: string; namespace?: string } }[];
  'current-context': string;
  users: { name: string; user: Record<string, unknown> }[];
  preferences?: Record<string, unknown>;
}

export type LintResults = Schemas['clusterlint_results'];

export type KubernetesVersion = Schemas['kubernetes_version'];
export type KubernetesSize = Schemas['kubernetes_size'];
export type KubernetesRegion = Schemas['kubernetes_region'];

/** A 1-Click application: its slug and type (`kubernetes`). */
export type OneClick = Schemas['oneClicks'];
