/**
 * The Kubernetes family: DOKS clusters (created with their node pools, upgraded, deleted alone or
 * with the volumes and load balancers they made), node pools and their nodes, a cluster's
 * kubeconfig and credentials, clusterlint, the versions, node sizes and regions clusters take, and
 * the 1-Click add-ons. Clusters provision for minutes: create and upgrade can be waited for
 * (`wait` with Kind kubernetes-cluster).
 */
import { annotations, defineTool, returns, sendRequest } from '@cloudcall/core';
import { LIMITS, pageArgs, pageQuery, regionSlug, slug, tagName, uuid } from '@cloudcall/core/internal';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type {
  AssociatedResources,
  Kubeconfig,
  KubernetesCluster,
  KubernetesClusterList,
  KubernetesCredentials,
  KubernetesRegion,
  KubernetesSize,
  KubernetesUpgrades,
  KubernetesVersion,
  LintResults,
  NodePool,
  OneClick,
} from './types.js';

/** Cluster lists page by 20 (the description's default). */
const page = pageArgs(20);

const ClusterId = uuid('From kubernetes-cluster-list');
const PoolId = uuid('From kubernetes-cluster-node-pool-list');

/** Cluster and pool names: lowercase letters, digits and "-", as the platform takes them. */
const ResourceName = (description: string) =>
  z
    .string()
    .max(LIMITS.name)
    .regex(
      /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/,
      'expected lowercase letters, digits and "-", starting and ending with a letter or digit',
    )
    .describe(description);

/** A version slug (`1.33.1-do.0`), a minor (`1.33`) or `latest`. */
const Version = z
  .string()
  .max(LIMITS.slug)
  .regex(/^(latest|\d+\.\d+(\.\d+-do\.\d+)?)$/, 'expected a version slug such as "1.33.1-do.0", or "latest"')
  .describe('From kubernetes-list-versions');

const Tags = z.array(tagName()).max(64).describe('Tag names');
/** Label keys and values as Kubernetes takes them; the platform checks their form. */
const Labels = z.record(z.string().min(1).max(316), z.string().max(63)).describe('Node labels, key: value');
const Taint = z.strictObject({
  Key: z.string().min(1).max(316).describe('Taint key'),
  Value: z.string().max(63).optional().describe('Taint value'),
  Effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).describe('Taint effect'),
});
const NodeCount = (description: string) => z.number().int().min(0).max(512).describe(description);

/** What a node pool is made of, in a cluster's create or on its own. */
const poolFields = {
  Name: ResourceName('Pool name'),
  Size: slug('Node size, from kubernetes-list-sizes', 's-2vcpu-4gb'),
  Count: NodeCount('Nodes').min(1),
  Tags: Tags.optional(),
  Labels: Labels.optional(),
  Taints: z.array(Taint).max(64).optional().describe('Node taints'),
  AutoScale: z.boolean().optional().describe('Autoscale between Min and MaxNodes'),
  MinNodes: NodeCount('Autoscaling minimum').optional(),
  MaxNodes: NodeCount('Autoscaling maximum').optional(),
};
const NodePoolSpec = z.strictObject(poolFields);
type PoolArgs = {
  Name?: string | undefined;
  Size?: string | undefined;
  Count?: number | undefined;
  Tags?: string[] | undefined;
  Labels?: Record<string, string> | undefined;
  Taints?: z.output<typeof Taint>[] | undefined;
  AutoScale?: boolean | undefined;
  MinNodes?: number | undefined;
  MaxNodes?: number | undefined;
};

/** A node pool as the platform takes it; unset fields are left out. */
function poolBody(pool: PoolArgs): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: pool.Name,
    size: pool.Size,
    count: pool.Count,
    tags: pool.Tags,
    labels: pool.Labels,
    taints: pool.Taints?.map((taint) => ({ key: taint.Key, value: taint.Value ?? '', effect: taint.Effect })),
    auto_scale: pool.AutoScale,
    min_nodes: pool.MinNodes,
    max_nodes: pool.MaxNodes,
  };
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

const DAYS = ['any', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const maintenanceFields = {
  MaintenanceDay: z.enum(DAYS).optional().describe('Maintenance day'),
  MaintenanceStartTime: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected a time of day as HH:MM (UTC), such as "04:00"')
    .optional()
    .describe('Maintenance start, HH:MM UTC'),
};

/** The maintenance window of a create or update, when either field is given. */
function maintenance(args: {
  MaintenanceDay?: string | undefined;
  MaintenanceStartTime?: string | undefined;
}) {
  if (args.MaintenanceDay === undefined && args.MaintenanceStartTime === undefined) return undefined;
  return Object.fromEntries(
    Object.entries({ day: args.MaintenanceDay, start_time: args.MaintenanceStartTime }).filter(
      ([, value]) => value !== undefined,
    ),
  );
}

const ExpirySeconds = z.number().int().min(0).max(31_536_000).optional().describe('Token life; 0: 7 days');

type Options = {
  options?: { versions?: KubernetesVersion[]; sizes?: KubernetesSize[]; regions?: KubernetesRegion[] };
};
type Part = keyof NonNullable<Options['options']>;

/** One list of `/v2/kubernetes/options` as a tool (doctl's `kubernetes options ...`), under `key`. */
function optionTool<const N extends string, const K extends string, P extends Part>(
  name: N,
  title: string,
  description: string,
  part: P,
  key: K,
) {
  type Items = NonNullable<NonNullable<Options['options']>[P]>;
  return defineTool({
    name,
    family: 'kubernetes',
    beyondSpec: true,
    title,
    description,
    details: `Lists the ${part} of the platform's Kubernetes options (what kubernetes-cluster-create takes), as doctl's \`kubernetes options ${part}\`.`,
    input: z.strictObject({}),
    annotations: annotations.read,
    handler: async (_args, context) => {
      const answer = await sendRequest<Options>(
        { method: 'GET', path: '/v2/kubernetes/options' },
        {},
        context,
      );
      return { [key]: answer.options?.[part] ?? [] } as Record<K, Items>;
    },
    result: returns<Record<K, Items>>(),
  });
}

export const kubernetesTools = [
  defineTool({
    name: 'kubernetes-cluster-list',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'List Kubernetes clusters',
    description: 'Kubernetes clusters.',
    details:
      'Lists the Kubernetes clusters of the account: region, version, status (status.state) and node pools of each. Paginated.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/kubernetes/clusters', query: pageQuery },
    result: returns<KubernetesClusterList>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-get',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Get Kubernetes cluster',
    description: 'One Kubernetes cluster.',
    details:
      'Shows one cluster: its status (status.state: provisioning, running, upgrading, degraded, error, deleting), version, endpoint, node pools and their nodes, maintenance window and settings.',
    input: z.strictObject({ ID: ClusterId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/kubernetes/clusters/{ID}' },
    result: returns<{ kubernetes_cluster: KubernetesCluster }>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-create',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Create Kubernetes cluster',
    description: 'Create a cluster with its node pools.',
    details:
      'Creates a DOKS cluster in a region with at least one node pool. It is "provisioning" for several minutes, then "running" (wait with Kind kubernetes-cluster). Version takes a slug of kubernetes-list-versions, a minor such as "1.33", or "latest" (the default). Each node is a VM of the account, counted against its VM limit. VpcID places it in a VPC of the region (else the default one).',
    input: z.strictObject({
      Name: ResourceName('Cluster name'),
      Region: regionSlug('From kubernetes-list-regions'),
      Version: Version.default('latest'),
      NodePools: z.array(NodePoolSpec).min(1).max(32).describe('At least one pool'),
      Tags: Tags.optional(),
      VpcID: uuid('From vpc-list').optional(),
      AutoUpgrade: z.boolean().optional().describe('Patch upgrades in the window'),
      SurgeUpgrade: z.boolean().optional().describe('New nodes before old go'),
      HA: z.boolean().optional().describe('Highly available control plane'),
      ...maintenanceFields,
    }),
    annotations: annotations.create,
    wait: { kind: 'kubernetes-cluster' },
    request: {
      method: 'POST',
      path: '/v2/kubernetes/clusters',
      body: (args) => ({
        name: args.Name,
        region: args.Region,
        version: args.Version,
        node_pools: args.NodePools.map(poolBody),
        tags: args.Tags,
        vpc_uuid: args.VpcID,
        auto_upgrade: args.AutoUpgrade,
        surge_upgrade: args.SurgeUpgrade,
        ha: args.HA,
        maintenance_policy: maintenance(args),
      }),
    },
    result: returns<{ kubernetes_cluster: KubernetesCluster }>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-update',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Update Kubernetes cluster',
    description: 'Rename, retag or change settings.',
    details:
      'Changes what is given of a cluster: its name, tags (the whole list), auto and surge upgrades, a highly available control plane (once on, it stays on) and its maintenance window. Node pools change with kubernetes-cluster-node-pool-update.',
    input: z.strictObject({
      ID: ClusterId,
      Name: ResourceName('New name').optional(),
      Tags: Tags.optional(),
      AutoUpgrade: z.boolean().optional().describe('Patch upgrades in the window'),
      SurgeUpgrade: z.boolean().optional().describe('New nodes before old go'),
      HA: z.boolean().optional().describe('Highly available control plane'),
      ...maintenanceFields,
    }),
    annotations: annotations.update,
    request: {
      method: 'PUT',
      path: '/v2/kubernetes/clusters/{ID}',
      body: (args) => ({
        name: args.Name,
        tags: args.Tags,
        auto_upgrade: args.AutoUpgrade,
        surge_upgrade: args.SurgeUpgrade,
        ha: args.HA,
        maintenance_policy: maintenance(args),
      }),
    },
    result: returns<{ kubernetes_cluster: KubernetesCluster }>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-delete',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Delete Kubernetes cluster',
    description: 'Delete a cluster and its nodes.',
    details:
      'Deletes a cluster, its node pools and nodes for good. The volumes and load balancers it made stay (kubernetes-cluster-list-associated-resources lists them; kubernetes-cluster-delete-selective and -dangerous delete them too).',
    input: z.strictObject({ ID: ClusterId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/kubernetes/clusters/{ID}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-list-associated-resources',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'List resources a cluster made',
    description: "A cluster's volumes, snapshots and LBs.",
    details:
      'Lists the volumes, volume snapshots and load balancers a cluster made (its storage and service controllers): what kubernetes-cluster-delete leaves, and the delete-selective and delete-dangerous tools delete with it.',
    input: z.strictObject({ ID: ClusterId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/kubernetes/clusters/{ID}/destroy_with_associated_resources' },
    result: returns<AssociatedResources>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-delete-selective',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Delete cluster and chosen resources',
    description: 'Delete a cluster and the resources named.',
    details:
      'Deletes a cluster and, with it, the volumes, volume snapshots and load balancers named (ids from kubernetes-cluster-list-associated-resources); the others stay.',
    input: z.strictObject({
      ID: ClusterId,
      Volumes: z.array(uuid('Volume id')).max(256).optional().describe('Volume ids'),
      VolumeSnapshots: z.array(uuid('Snapshot id')).max(256).optional().describe('Volume snapshot ids'),
      LoadBalancers: z.array(uuid('Load balancer id')).max(256).optional().describe('Load balancer ids'),
    }),
    annotations: annotations.destroy,
    request: {
      method: 'DELETE',
      path: '/v2/kubernetes/clusters/{ID}/destroy_with_associated_resources/selective',
      body: (args) => ({
        volumes: args.Volumes ?? [],
        volume_snapshots: args.VolumeSnapshots ?? [],
        load_balancers: args.LoadBalancers ?? [],
      }),
    },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-delete-dangerous',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Delete cluster and all it made',
    description: 'Delete a cluster, its volumes and LBs.',
    details:
      'Deletes a cluster and every volume, volume snapshot and load balancer it made (kubernetes-cluster-list-associated-resources lists them), for good: the data on those volumes is lost.',
    input: z.strictObject({ ID: ClusterId }),
    annotations: annotations.destroy,
    request: {
      method: 'DELETE',
      path: '/v2/kubernetes/clusters/{ID}/destroy_with_associated_resources/dangerous',
    },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-get-upgrades',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Get cluster upgrades',
    description: 'Versions a cluster can upgrade to.',
    details:
      'Lists the versions a cluster can be upgraded to now: a newer patch of its minor or the next minor (null when there is none).',
    input: z.strictObject({ ID: ClusterId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/kubernetes/clusters/{ID}/upgrades' },
    result: returns<KubernetesUpgrades>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-upgrade',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Upgrade Kubernetes cluster',
    description: 'Upgrade a running cluster.',
    details:
      'Upgrades a running cluster to a version of kubernetes-cluster-get-upgrades: the control plane, then each node, which is replaced (what pods keep on a node is lost; volumes stay). The cluster is "upgrading", then "running" (wait with Kind kubernetes-cluster).',
    input: z.strictObject({
      ID: ClusterId,
      Version: Version.describe('From kubernetes-cluster-get-upgrades'),
    }),
    annotations: annotations.destructive,
    wait: { kind: 'kubernetes-cluster', idArgument: 'ID' },
    request: {
      method: 'POST',
      path: '/v2/kubernetes/clusters/{ID}/upgrade',
      body: { version: 'Version' },
      noResponseBody: true,
    },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-get-kubeconfig',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Get kubeconfig',
    description: "A cluster's kubeconfig for kubectl.",
    details:
      'Gets the kubeconfig of a cluster (parsed from the YAML kubectl reads): its server, certificate authority and a user with a fresh token (a secret) that expires after ExpirySeconds (7 days when 0 or not given). The CLI writes it into ~/.kube/config with `kubernetes cluster kubeconfig save`.',
    input: z.strictObject({ ID: ClusterId, ExpirySeconds }),
    annotations: annotations.read,
    handler: async (args, context) => {
      const text = await sendRequest<string>(
        {
          method: 'GET',
          path: '/v2/kubernetes/clusters/{ID}/kubeconfig',
          query: { expiry_seconds: 'ExpirySeconds' },
        },
        args,
        context,
        { responseText: true },
      );
      return parseYaml(String(text)) as Kubeconfig;
    },
    result: returns<Kubeconfig>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-get-credentials',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Get cluster credentials',
    description: "A cluster's server, CA and token.",
    details:
      "Gets what a client needs to reach a cluster's API server: its address, certificate authority and a fresh bearer token (a secret) that expires at expires_at (after ExpirySeconds; 7 days when 0 or not given).",
    input: z.strictObject({ ID: ClusterId, ExpirySeconds }),
    annotations: annotations.read,
    request: {
      method: 'GET',
      path: '/v2/kubernetes/clusters/{ID}/credentials',
      query: { expiry_seconds: 'ExpirySeconds' },
    },
    result: returns<KubernetesCredentials>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-node-pool-list',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'List node pools',
    description: "A cluster's node pools and nodes.",
    details:
      'Lists the node pools of a cluster: size, count, autoscaling, labels, taints and the nodes of each with their state.',
    input: z.strictObject({ ClusterID: ClusterId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/kubernetes/clusters/{ClusterID}/node_pools' },
    result: returns<{ node_pools: NodePool[] }>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-node-pool-get',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Get node pool',
    description: 'One node pool and its nodes.',
    details: 'Shows one node pool of a cluster, with its nodes (id, name, state, VM id).',
    input: z.strictObject({ ClusterID: ClusterId, PoolID: PoolId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/kubernetes/clusters/{ClusterID}/node_pools/{PoolID}' },
    result: returns<{ node_pool: NodePool }>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-node-pool-create',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Create node pool',
    description: 'Add a node pool to a cluster.',
    details:
      'Adds a node pool to a cluster: Count nodes of one size (kubernetes-list-sizes), which provision in a few minutes. With AutoScale, the pool grows and shrinks between MinNodes and MaxNodes.',
    input: z.strictObject({ ClusterID: ClusterId, ...poolFields }),
    annotations: annotations.create,
    request: {
      method: 'POST',
      path: '/v2/kubernetes/clusters/{ClusterID}/node_pools',
      body: (args) => poolBody(args),
    },
    result: returns<{ node_pool: NodePool }>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-node-pool-update',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Update node pool',
    description: 'Rename, scale or relabel a node pool.',
    details:
      "Changes what is given of a node pool: its name, node count (a smaller count deletes nodes), autoscaling, and its tags, labels and taints (each replaced whole). A pool's size cannot change: add a pool of the new size instead.",
    input: z.strictObject({
      ClusterID: ClusterId,
      PoolID: PoolId,
      Name: poolFields.Name.optional(),
      Count: poolFields.Count.optional(),
      Tags: poolFields.Tags,
      Labels: poolFields.Labels,
      Taints: poolFields.Taints,
      AutoScale: poolFields.AutoScale,
      MinNodes: poolFields.MinNodes,
      MaxNodes: poolFields.MaxNodes,
    }),
    annotations: annotations.destructive,
    request: {
      method: 'PUT',
      path: '/v2/kubernetes/clusters/{ClusterID}/node_pools/{PoolID}',
      body: (args) => poolBody(args),
    },
    result: returns<{ node_pool: NodePool }>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-node-pool-delete',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Delete node pool',
    description: 'Delete a node pool and its nodes.',
    details:
      'Deletes a node pool: its nodes are drained and deleted. A cluster keeps at least one pool (delete the cluster instead).',
    input: z.strictObject({ ClusterID: ClusterId, PoolID: PoolId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/kubernetes/clusters/{ClusterID}/node_pools/{PoolID}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-node-pool-delete-node',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Delete or replace a node',
    description: 'Delete one node, or replace it.',
    details:
      "Deletes one node of a pool (node ids from kubernetes-cluster-node-pool-get): it is drained first unless SkipDrain, and the pool's count drops by one unless Replace, which provisions a new node in its place (doctl's replace-node, or recycling a node).",
    input: z.strictObject({
      ClusterID: ClusterId,
      PoolID: PoolId,
      NodeID: uuid('From kubernetes-cluster-node-pool-get'),
      SkipDrain: z.boolean().optional().describe('Delete without draining'),
      Replace: z.boolean().optional().describe('Provision a new node in its place'),
    }),
    annotations: annotations.destructive,
    request: {
      method: 'DELETE',
      path: '/v2/kubernetes/clusters/{ClusterID}/node_pools/{PoolID}/nodes/{NodeID}',
      query: { skip_drain: 'SkipDrain', replace: 'Replace' },
      noResponseBody: true,
    },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-lint-run',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Run clusterlint',
    description: "Check a cluster's workloads for problems.",
    details:
      'Starts a clusterlint run on a running cluster: checks of its workloads for practices that break upgrades or waste resources (groups basic, doks, security; the doks group when none is given). Answers the run_id; kubernetes-cluster-lint-get shows its diagnostics once done.',
    input: z.strictObject({
      ID: ClusterId,
      IncludeGroups: z.array(slug('Check group', 'doks')).max(16).optional().describe('Check groups'),
      IncludeChecks: z.array(slug('Check name', 'bare-pods')).max(64).optional().describe('Checks'),
      ExcludeGroups: z.array(slug('Check group', 'doks')).max(16).optional().describe('Groups left out'),
      ExcludeChecks: z.array(slug('Check name', 'bare-pods')).max(64).optional().describe('Checks left out'),
    }),
    annotations: annotations.action,
    request: {
      method: 'POST',
      path: '/v2/kubernetes/clusters/{ID}/clusterlint',
      body: {
        include_groups: 'IncludeGroups',
        include_checks: 'IncludeChecks',
        exclude_groups: 'ExcludeGroups',
        exclude_checks: 'ExcludeChecks',
      },
    },
    result: returns<{ run_id: string }>(),
  }),
  defineTool({
    name: 'kubernetes-cluster-lint-get',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Get clusterlint results',
    description: "A clusterlint run's diagnostics.",
    details:
      'Shows the diagnostics of a clusterlint run (the latest, or RunID from kubernetes-cluster-lint-run): each check, severity, message and the object it is about. A run still in progress has no completed_at yet.',
    input: z.strictObject({ ID: ClusterId, RunID: uuid('From kubernetes-cluster-lint-run').optional() }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/kubernetes/clusters/{ID}/clusterlint', query: { run_id: 'RunID' } },
    result: returns<LintResults>(),
  }),
  optionTool(
    'kubernetes-list-versions',
    'List Kubernetes versions',
    'Versions new clusters can run.',
    'versions',
    'kubernetes_versions',
  ),
  optionTool(
    'kubernetes-list-sizes',
    'List node sizes',
    'Node sizes for node pools.',
    'sizes',
    'kubernetes_sizes',
  ),
  optionTool(
    'kubernetes-list-regions',
    'List Kubernetes regions',
    'Regions that run clusters.',
    'regions',
    'kubernetes_regions',
  ),
  defineTool({
    name: 'kubernetes-1-click-list',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'List Kubernetes 1-Clicks',
    description: 'Add-ons a cluster can install.',
    details:
      'Lists the 1-Click applications that install on a cluster (monitoring, ingress-nginx, cert-manager...), by slug.',
    input: z.strictObject({}),
    annotations: annotations.read,
    handler: (_args, context) =>
      sendRequest<{ '1_clicks': OneClick[] }>(
        { method: 'GET', path: '/v2/1-clicks', query: { type: 'Type' } },
        { Type: 'kubernetes' },
        context,
      ),
    result: returns<{ '1_clicks': OneClick[] }>(),
  }),
  defineTool({
    name: 'kubernetes-1-click-install',
    family: 'kubernetes',
    beyondSpec: true,
    title: 'Install 1-Clicks on a cluster',
    description: 'Install add-ons on a cluster.',
    details:
      'Installs 1-Click applications (slugs from kubernetes-1-click-list) on a running cluster: the platform starts a job that deploys them into it.',
    input: z.strictObject({
      ClusterID: ClusterId,
      Slugs: z
        .array(slug('1-Click slug', 'monitoring'))
        .min(1)
        .max(32)
        .describe('From kubernetes-1-click-list'),
    }),
    annotations: annotations.action,
    request: {
      method: 'POST',
      path: '/v2/1-clicks/kubernetes',
      body: { addon_slugs: 'Slugs', cluster_uuid: 'ClusterID' },
    },
    result: returns<{ message: string }>(),
  }),
] as const;
