/**
 * @cloudcall/kubernetes: DOKS clusters and their node pools, kubeconfig and credentials, upgrades,
 * clusterlint, the versions, node sizes and regions clusters take, and 1-Click add-ons, as tool
 * definitions and as a typed API.
 *
 * ```ts
 * import { createClient } from '@cloudcall/core';
 * import { kubernetesApi } from '@cloudcall/kubernetes';
 * const kubernetes = kubernetesApi(createClient({ token }));
 * const { kubernetes_clusters } = await kubernetes.kubernetesClusterList({});
 * ```
 */
import { type ApiClient, type BoundTools, bindTools, type ToolFamily } from '@cloudcall/core';
import { kubernetesTools } from './tools.js';

export type {
  AssociatedResources,
  Kubeconfig,
  KubernetesCluster,
  KubernetesClusterList,
  KubernetesCredentials,
  KubernetesNode,
  KubernetesRegion,
  KubernetesSize,
  KubernetesUpgrades,
  KubernetesVersion,
  LintResults,
  NodePool,
  OneClick,
} from './types.js';
export { kubernetesTools };

export const kubernetesFamily: ToolFamily = {
  name: 'kubernetes',
  title: 'Kubernetes',
  description:
    'Kubernetes (DOKS): clusters with node pools, upgrades, kubeconfig and credentials, node pools and nodes, clusterlint, versions, sizes, regions, 1-Click add-ons.',
  tools: kubernetesTools,
  onRequest: true,
};

/** The Kubernetes tools bound to a client: `kubernetesClusterCreate`, `kubernetesClusterGetKubeconfig`... */
export function kubernetesApi(client: ApiClient): BoundTools<typeof kubernetesTools> {
  return bindTools(client, kubernetesTools);
}
