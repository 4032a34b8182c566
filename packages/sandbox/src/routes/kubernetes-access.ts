/**
 * Working with a cluster from outside: its kubeconfig (YAML) and credentials (JSON), each with a
 * fresh token that expires after `expiry_seconds` (7 days by default); clusterlint runs and their
 * diagnostics; the container registries integrated with clusters; and the 1-Click applications
 * (listed for droplets and clusters, installed on a cluster as add-ons).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  clusterState,
  KUBERNETES_ONE_CLICKS,
  LINT_MS,
  LINT_RUNS_KEPT,
  type StoredKubernetesCluster,
  type StoredLintRun,
} from '../families/kubernetes.js';
import { badRequest, FileBody, notFound, type Route, type SandboxRequest, unprocessable } from '../http.js';
import { imageKind } from '../seed/catalog.js';
import { iso } from '../time.js';
import type { World } from '../world.js';
import { clusterToChange, findCluster, settle } from './kubernetes-common.js';

/** A token's life when `expiry_seconds` is absent or 0: seven days. */
const DEFAULT_EXPIRY_S = 7 * 24 * 3600;

function expirySeconds(req: SandboxRequest): number {
  const text = req.query.get('expiry_seconds');
  if (text === null || text === '') return DEFAULT_EXPIRY_S;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) {
    throw badRequest(`expiry_seconds must be a whole number of seconds; got ${JSON.stringify(text)}`);
  }
  return value === 0 ? DEFAULT_EXPIRY_S : value;
}

/** A fresh token for the cluster's API server: made for each request, kept nowhere. */
const freshToken = () => randomBytes(32).toString('hex');

const serverOf = (cluster: StoredKubernetesCluster) => `https://${cluster.id}.k8s.ondigitalocean.com`;

/** The kubeconfig the platform writes: one cluster, context and user, named `do-<region>-<name>`. */
function kubeconfig(cluster: StoredKubernetesCluster, user: string[]): string {
  const name = `do-${cluster.region}-${cluster.name}`;
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${cluster.ca}`,
    `    server: ${serverOf(cluster)}`,
    `  name: ${name}`,
    'contexts:',
    '- context:',
    `    cluster: ${name}`,
    `    user: ${name}-admin`,
    `  name: ${name}`,
    `current-context: ${name}`,
    'kind: Config',
    'preferences: {}',
    'users:',
    `- name: ${name}-admin`,
    '  user:',
    ...user.map((line) => `    ${line}`),
    '',
  ].join('\n');
}

/** An SSO kubeconfig's user: doctl runs the sign-in and hands kubectl its credential. */
const ssoUser = (cluster: StoredKubernetesCluster) => [
  'exec:',
  '  apiVersion: client.authentication.k8s.io/v1beta1',
  '  args:',
  '  - kubernetes',
  '  - cluster',
  '  - kubeconfig',
  '  - exec-credential',
  '  - --version=v1beta1',
  `  - ${cluster.id}`,
  '  command: doctl',
  '  env: null',
  '  interactiveMode: IfAvailable',
  '  provideClusterInfo: false',
];

// ---------------------------------------------------------------------------------------------------
// Clusterlint

const LINT_GROUPS: Record<string, string[]> = {
  basic: [
    'bare-pods',
    'cronjob-concurrency',
    'default-namespace',
    'fully-qualified-image',
    'hostpath-volume',
    'latest-tag',
    'node-name-pod-selector',
    'resource-requirements',
    'unused-config-map',
    'unused-persistent-volume',
    'unused-secret',
  ],
  doks: [
    'admission-controller-webhook',
    'admission-controller-webhook-replacement',
    'admission-controller-webhook-timeout',
    'dobs-pod-owner',
    'node-labels-and-taints',
  ],
  security: ['privileged-containers', 'run-as-non-root'],
};
const LINT_CHECKS = new Set(Object.values(LINT_GROUPS).flat());

/**
 * What clusterlint finds in a new cluster: the sandbox runs no workloads, so only the system pods
 * every cluster has (the network agent, DNS) draw diagnostics, from the checks that flag them.
 */
function diagnostics(cluster: StoredKubernetesCluster, checks: readonly string[]) {
  const suffix = cluster.id.replace(/-/g, '').slice(0, 5);
  const pod = (name: string) => ({ kind: 'Pod', name, namespace: 'kube-system' });
  const found = [
    {
      check_name: 'privileged-containers',
      severity: 'warning',
      message: `Privileged container 'cilium-agent' found. Please ensure that the image is from a trusted source.`,
      object: pod(`cilium-${suffix}`),
    },
    {
      check_name: 'run-as-non-root',
      severity: 'warning',
      message: `Pod 'cilium-${suffix}' in namespace 'kube-system' does not run as a non-root user.`,
      object: pod(`cilium-${suffix}`),
    },
    {
      check_name: 'fully-qualified-image',
      severity: 'suggestion',
      message: `Use fully qualified image for container 'coredns'`,
      object: pod(`coredns-${suffix}`),
    },
  ];
  return found.filter((d) => checks.includes(d.check_name));
}

function nameList(value: unknown, field: string, known: (name: string) => boolean): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw unprocessable(`${field} must be an array of names`);
  for (const name of value) {
    if (typeof name !== 'string' || !known(name)) {
      throw unprocessable(`${field}: ${JSON.stringify(name)} is not a clusterlint ${field.split('_')[1]}`);
    }
  }
  return value as string[];
}

/** The checks a run covers: those included (the `doks` group when none is), less those excluded. */
function selectedChecks(body: Record<string, unknown>): string[] {
  const isGroup = (name: string) => name in LINT_GROUPS;
  const isCheck = (name: string) => LINT_CHECKS.has(name);
  const includeGroups = nameList(body.include_groups, 'include_groups', isGroup);
  const includeChecks = nameList(body.include_checks, 'include_checks', isCheck);
  const excludeGroups = nameList(body.exclude_groups, 'exclude_groups', isGroup);
  const excludeChecks = nameList(body.exclude_checks, 'exclude_checks', isCheck);
  const groups = includeGroups.length || includeChecks.length ? includeGroups : ['doks'];
  const included = new Set([...groups.flatMap((g) => LINT_GROUPS[g] ?? []), ...includeChecks]);
  const excluded = new Set([...excludeGroups.flatMap((g) => LINT_GROUPS[g] ?? []), ...excludeChecks]);
  return [...included].filter((check) => !excluded.has(check));
}

function lintView(cluster: StoredKubernetesCluster, run: StoredLintRun, now: number) {
  const done = now >= run.requested_ms + LINT_MS;
  return {
    run_id: run.run_id,
    requested_at: iso(run.requested_ms),
    // A run in progress has neither completion time nor diagnostics yet.
    ...(done
      ? { completed_at: iso(run.requested_ms + LINT_MS), diagnostics: diagnostics(cluster, run.checks) }
      : {}),
  };
}

// ---------------------------------------------------------------------------------------------------
// Registries

const REGISTRY_NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The clusters a registry request names: each must exist and not be being deleted. */
function namedClusters(world: World, req: SandboxRequest): StoredKubernetesCluster[] {
  settle(world, req.now);
  const ids = req.body.cluster_uuids;
  if (!Array.isArray(ids) || ids.length === 0) {
    throw unprocessable('cluster_uuids must be a non-empty array of cluster ids');
  }
  return [...new Set(ids)].map((id) => {
    const cluster = world.kubernetesClusters.find((c) => c.id === id);
    if (!cluster || clusterState(cluster, req.now) === 'gone') {
      throw notFound(`cluster_uuids: no Kubernetes cluster ${JSON.stringify(id)}`);
    }
    if (clusterState(cluster, req.now) === 'deleting') {
      throw unprocessable(`cluster ${cluster.id} is being deleted and cannot be changed`);
    }
    return cluster;
  });
}

function registryNames(req: SandboxRequest): string[] {
  const names = req.body.registries;
  if (!Array.isArray(names) || names.length === 0) {
    throw unprocessable('registries must be a non-empty array of registry names');
  }
  for (const name of names) {
    if (typeof name !== 'string' || !REGISTRY_NAME.test(name)) {
      throw unprocessable(`registries: ${JSON.stringify(name)} is not a registry name`);
    }
  }
  return [...new Set(names as string[])];
}

// ---------------------------------------------------------------------------------------------------
// 1-Click applications

function oneClicks(world: World, type: string | null) {
  if (type !== null && type !== 'droplet' && type !== 'kubernetes') {
    throw badRequest(`type must be droplet or kubernetes; got ${JSON.stringify(type)}`);
  }
  // A droplet 1-Click is an application image of the catalogue, by its slug.
  const droplet = world.images
    .filter((image) => imageKind[image.id] === 'application' && image.slug)
    .map((image) => ({ slug: image.slug as string, type: 'droplet' }));
  const kubernetes = KUBERNETES_ONE_CLICKS.map((slug) => ({ slug, type: 'kubernetes' }));
  if (type === 'droplet') return droplet;
  if (type === 'kubernetes') return kubernetes;
  return [...droplet, ...kubernetes];
}

export const kubernetesAccessRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/kubernetes/clusters/{cluster_id}/kubeconfig',
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      expirySeconds(req);
      const type = req.query.get('type') ?? 'token';
      let user: string[];
      if (type === 'token') user = [`token: ${freshToken()}`];
      else if (type === 'sso') {
        if (cluster.settings.sso?.enabled !== true) {
          throw unprocessable(`cluster ${cluster.id} does not have SSO enabled: ask for type=token`);
        }
        user = ssoUser(cluster);
      } else throw badRequest(`type must be token or sso; got ${JSON.stringify(type)}`);
      const text = kubeconfig(cluster, user);
      return { body: new FileBody('application/yaml', `${cluster.name}-kubeconfig.yaml`, Buffer.from(text)) };
    },
  },
  {
    method: 'GET',
    path: '/v2/kubernetes/clusters/{cluster_id}/credentials',
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const expiry = expirySeconds(req);
      return {
        body: {
          server: serverOf(cluster),
          certificate_authority_data: cluster.ca,
          // Certificate-based credentials belong to clusters older than token authentication.
          client_certificate_data: null,
          client_key_data: null,
          token: freshToken(),
          expires_at: iso(req.now + expiry * 1000),
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/v2/kubernetes/clusters/{cluster_id}/clusterlint',
    handler: (req, world) => {
      settle(world, req.now);
      const cluster = clusterToChange(world, req);
      const checks = selectedChecks(req.body);
      const state = clusterState(cluster, req.now);
      if (state === 'provisioning') {
        throw unprocessable(`cluster ${cluster.id} is provisioning: clusterlint runs once it is running`);
      }
      const run: StoredLintRun = { run_id: randomUUID(), requested_ms: req.now, checks };
      cluster.lint_runs = [...cluster.lint_runs, run].slice(-LINT_RUNS_KEPT);
      return { status: 202, body: { run_id: run.run_id } };
    },
  },
  {
    method: 'GET',
    path: '/v2/kubernetes/clusters/{cluster_id}/clusterlint',
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const runId = req.query.get('run_id');
      const run = runId
        ? cluster.lint_runs.find((r) => r.run_id === runId)
        : cluster.lint_runs[cluster.lint_runs.length - 1];
      if (!run) {
        throw notFound(
          runId ? `no clusterlint run ${runId} for this cluster` : 'this cluster has no clusterlint run yet',
        );
      }
      return { body: lintView(cluster, run, req.now) };
    },
  },
  {
    method: 'POST',
    path: '/v2/kubernetes/registry',
    handler: (req, world) => {
      for (const cluster of namedClusters(world, req)) cluster.registry_enabled = true;
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/kubernetes/registry',
    handler: (req, world) => {
      for (const cluster of namedClusters(world, req)) cluster.registry_enabled = false;
      return { status: 204 };
    },
  },
  {
    method: 'POST',
    path: '/v2/kubernetes/registries',
    handler: (req, world) => {
      const clusters = namedClusters(world, req);
      const names = registryNames(req);
      for (const cluster of clusters) cluster.registries = [...new Set([...cluster.registries, ...names])];
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/kubernetes/registries',
    handler: (req, world) => {
      const clusters = namedClusters(world, req);
      const names = registryNames(req);
      for (const cluster of clusters)
        cluster.registries = cluster.registries.filter((n) => !names.includes(n));
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/1-clicks',
    handler: (req, world) => ({ body: { '1_clicks': oneClicks(world, req.query.get('type')) } }),
  },
  {
    method: 'POST',
    path: '/v2/1-clicks/kubernetes',
    handler: (req, world) => {
      const slugs = req.body.addon_slugs;
      if (!Array.isArray(slugs) || slugs.length === 0) {
        throw unprocessable('addon_slugs must be a non-empty array of Kubernetes 1-Click slugs');
      }
      for (const slug of slugs) {
        if (typeof slug !== 'string' || !KUBERNETES_ONE_CLICKS.includes(slug)) {
          throw unprocessable(
            `addon_slugs: ${JSON.stringify(slug)} is not a Kubernetes 1-Click (see /v2/1-clicks?type=kubernetes)`,
          );
        }
      }
      const id = req.body.cluster_uuid;
      if (typeof id !== 'string' || id === '') throw unprocessable('cluster_uuid is required');
      const cluster = world.kubernetesClusters.find((c) => c.id === id);
      if (!cluster || clusterState(cluster, req.now) === 'gone') {
        throw notFound(`cluster_uuid: no Kubernetes cluster ${JSON.stringify(id)}`);
      }
      if (clusterState(cluster, req.now) === 'deleting') {
        throw unprocessable(`cluster ${id} is being deleted`);
      }
      return { body: { message: 'Successfully kicked off addon job.' } };
    },
  },
];
