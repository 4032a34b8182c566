/**
 * The Kubernetes family as a library: the requests its tools send (checked against the API
 * description), the annotations each kind of tool must have, arguments refused before any
 * request, and the typed API against the sandbox (a cluster provisions, runs, gains a pool,
 * upgrades, is linted and deleted).
 */
import { type AnyTool, InputError, parseArgs, runTool } from '@cloudcall/core';
import { buildRequest } from '@cloudcall/core/internal';
import { connectSandbox, type SandboxConnection } from '@cloudcall/sandbox';
import { unrefusedPathValues } from '@cloudcall/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The description subset is a workspace tool; imported by path so the published package needs nothing.
import {
  assertValidResponse,
  noResponseBody,
  operation,
  validateRequest,
} from '../../../tooling/openapi/index.js';
import { kubernetesApi, kubernetesFamily, kubernetesTools } from './index.js';

const tool = (name: string) => kubernetesTools.find((t) => t.name === name) as AnyTool;
const request = (name: string, args: Record<string, unknown>) =>
  buildRequest(tool(name).request as never, parseArgs(tool(name), args) as Record<string, unknown>);

const C = '5a4981aa-9653-4bd1-bef5-d6bff52042e4';
const P = '7f3c1b0e-2d4a-4c5b-9e6f-0a1b2c3d4e5f';
const N = '0b2a1c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const POOL = { Name: 'workers', Size: 's-2vcpu-4gb', Count: 2 };

let connection: SandboxConnection;
beforeAll(async () => {
  connection = await connectSandbox();
});
afterAll(async () => {
  await connection.close();
});

/** Each tool, valid arguments, and the API operation it calls. */
const cases: [tool: string, args: Record<string, unknown>, operationId: string][] = [
  ['kubernetes-cluster-list', {}, 'kubernetes_list_clusters'],
  ['kubernetes-cluster-get', { ID: C }, 'kubernetes_get_cluster'],
  [
    'kubernetes-cluster-create',
    { Name: 'web', Region: 'nyc3', NodePools: [POOL] },
    'kubernetes_create_cluster',
  ],
  ['kubernetes-cluster-update', { ID: C, Name: 'web-2' }, 'kubernetes_update_cluster'],
  ['kubernetes-cluster-delete', { ID: C }, 'kubernetes_delete_cluster'],
  ['kubernetes-cluster-list-associated-resources', { ID: C }, 'kubernetes_list_associatedResources'],
  [
    'kubernetes-cluster-delete-selective',
    { ID: C, Volumes: [P] },
    'kubernetes_destroy_associatedResourcesSelective',
  ],
  ['kubernetes-cluster-delete-dangerous', { ID: C }, 'kubernetes_destroy_associatedResourcesDangerous'],
  ['kubernetes-cluster-get-upgrades', { ID: C }, 'kubernetes_get_availableUpgrades'],
  ['kubernetes-cluster-upgrade', { ID: C, Version: '1.33.1-do.0' }, 'kubernetes_upgrade_cluster'],
  ['kubernetes-cluster-get-kubeconfig', { ID: C }, 'kubernetes_get_kubeconfig'],
  ['kubernetes-cluster-get-credentials', { ID: C, ExpirySeconds: 300 }, 'kubernetes_get_credentials'],
  ['kubernetes-cluster-node-pool-list', { ClusterID: C }, 'kubernetes_list_nodePools'],
  ['kubernetes-cluster-node-pool-get', { ClusterID: C, PoolID: P }, 'kubernetes_get_nodePool'],
  ['kubernetes-cluster-node-pool-create', { ClusterID: C, ...POOL }, 'kubernetes_add_nodePool'],
  [
    'kubernetes-cluster-node-pool-update',
    { ClusterID: C, PoolID: P, Name: 'w', Count: 3 },
    'kubernetes_update_nodePool',
  ],
  ['kubernetes-cluster-node-pool-delete', { ClusterID: C, PoolID: P }, 'kubernetes_delete_nodePool'],
  [
    'kubernetes-cluster-node-pool-delete-node',
    { ClusterID: C, PoolID: P, NodeID: N, Replace: true },
    'kubernetes_delete_node',
  ],
  ['kubernetes-cluster-lint-run', { ID: C, IncludeGroups: ['basic'] }, 'kubernetes_run_clusterLint'],
  ['kubernetes-cluster-lint-get', { ID: C, RunID: P }, 'kubernetes_get_clusterLintResults'],
  ['kubernetes-list-versions', {}, 'kubernetes_list_options'],
  ['kubernetes-list-sizes', {}, 'kubernetes_list_options'],
  ['kubernetes-list-regions', {}, 'kubernetes_list_options'],
  ['kubernetes-1-click-list', {}, 'oneClicks_list'],
  ['kubernetes-1-click-install', { ClusterID: C, Slugs: ['monitoring'] }, 'oneClicks_install_kubernetes'],
];
const template = (path: string) => path.replace(/\{\w+\}/g, '{}');

/** Runs a tool against a client that records each request instead of sending it. */
async function sent(name: string, args: Record<string, unknown>) {
  const requests: {
    method: string;
    path: string;
    query?: unknown;
    noResponseBody?: boolean;
    responseText?: boolean;
  }[] = [];
  const client = {
    request: async (options: (typeof requests)[number]) => {
      requests.push(options);
      return options.path.endsWith('/kubeconfig') ? 'apiVersion: v1\nkind: Config\n' : {};
    },
    forCall: () => client,
  };
  await runTool(tool(name), args, { client: client as never });
  return requests;
}

describe('requests on the wire', () => {
  it('covers every tool', () => {
    expect(cases.map(([name]) => name).sort()).toEqual(kubernetesTools.map((t) => t.name).sort());
  });

  it.each(cases)(
    '%s calls its operation, with noResponseBody exactly where it answers without a body',
    async (name, args, operationId) => {
      const [sentRequest, ...more] = await sent(name, args);
      expect(more).toEqual([]);
      const expected = operation(operationId);
      expect(sentRequest?.method).toBe(expected.method);
      if (tool(name).request) expect(template(tool(name).request?.path ?? '')).toBe(template(expected.path));
      expect(sentRequest?.path).toMatch(new RegExp(`^${expected.path.replace(/\{\w+\}/g, '[^/]+')}$`));
      // The kubeconfig answers YAML, no JSON: it is read as text.
      const text = name === 'kubernetes-cluster-get-kubeconfig';
      expect(Boolean(sentRequest?.responseText)).toBe(text);
      expect(Boolean(sentRequest?.noResponseBody)).toBe(!text && noResponseBody(operationId));
    },
  );

  it('a cluster create sends its pools as the description takes them', () => {
    const body = request('kubernetes-cluster-create', {
      Name: 'web',
      Region: 'nyc3',
      NodePools: [
        {
          ...POOL,
          Tags: ['web'],
          Labels: { tier: 'front' },
          Taints: [{ Key: 'gpu', Effect: 'NoSchedule' }],
          AutoScale: true,
          MinNodes: 1,
          MaxNodes: 4,
        },
      ],
      MaintenanceDay: 'sunday',
      HA: true,
    }).body;
    expect(body).toEqual({
      name: 'web',
      region: 'nyc3',
      version: 'latest',
      node_pools: [
        {
          name: 'workers',
          size: 's-2vcpu-4gb',
          count: 2,
          tags: ['web'],
          labels: { tier: 'front' },
          taints: [{ key: 'gpu', value: '', effect: 'NoSchedule' }],
          auto_scale: true,
          min_nodes: 1,
          max_nodes: 4,
        },
      ],
      ha: true,
      maintenance_policy: { day: 'sunday' },
    });
    expect(validateRequest('kubernetes_create_cluster', body).valid).toBe(true);
  });

  it('delete-node replaces with ?replace=true, and the options and 1-Clicks ask for their part', async () => {
    expect(
      request('kubernetes-cluster-node-pool-delete-node', {
        ClusterID: C,
        PoolID: P,
        NodeID: N,
        SkipDrain: true,
      }).query,
    ).toEqual({ skip_drain: true });
    const [oneClicks] = await sent('kubernetes-1-click-list', {});
    expect(oneClicks?.query).toEqual({ type: 'kubernetes' });
    expect(request('kubernetes-cluster-delete-selective', { ID: C }).body).toEqual({
      volumes: [],
      volume_snapshots: [],
      load_balancers: [],
    });
  });
});

describe('annotations', () => {
  it('the family is offered on request, each tool by the rules of its kind', () => {
    expect(kubernetesFamily.onRequest).toBe(true);
    const by = (preset: string) =>
      kubernetesTools
        .filter((t) => {
          const a = t.annotations;
          return preset === 'read'
            ? a.readOnlyHint
            : preset === 'destructive'
              ? a.destructiveHint
              : !a.readOnlyHint && !a.destructiveHint;
        })
        .map((t) => t.name)
        .sort();
    expect(by('destructive')).toEqual([
      'kubernetes-cluster-delete',
      'kubernetes-cluster-delete-dangerous',
      'kubernetes-cluster-delete-selective',
      'kubernetes-cluster-node-pool-delete',
      'kubernetes-cluster-node-pool-delete-node',
      'kubernetes-cluster-node-pool-update',
      'kubernetes-cluster-upgrade',
    ]);
    expect(by('other')).toEqual([
      'kubernetes-1-click-install',
      'kubernetes-cluster-create',
      'kubernetes-cluster-lint-run',
      'kubernetes-cluster-node-pool-create',
      'kubernetes-cluster-update',
    ]);
    for (const t of kubernetesTools) {
      expect(t.annotations.openWorldHint, t.name).toBe(true);
      // Reads send GETs only; every deleting tool is idempotent, an upgrade or a node's replacement not.
      if (t.annotations.readOnlyHint) expect(t.annotations.idempotentHint, t.name).toBe(true);
      if (/-delete(-selective|-dangerous)?$/.test(t.name))
        expect(t.annotations.idempotentHint, t.name).toBe(true);
    }
    expect(tool('kubernetes-cluster-upgrade').annotations.idempotentHint).toBe(false);
    expect(tool('kubernetes-cluster-create').wait).toEqual({ kind: 'kubernetes-cluster' });
    expect(tool('kubernetes-cluster-upgrade').wait).toEqual({ kind: 'kubernetes-cluster', idArgument: 'ID' });
  });
});

describe('arguments are checked before any request', () => {
  it('path ids refuse dot segments, slashes and control characters; bad names, pools and versions too', async () => {
    const seen: string[] = [];
    const sandbox = await connectSandbox({ log: (line) => seen.push(line) });
    try {
      const problems = await unrefusedPathValues(
        cases,
        (name) => tool(name).request?.path,
        (name, args) => runTool(tool(name), args, { client: sandbox.client }).catch((e: unknown) => e),
        (error, arg) => error instanceof InputError && error.issues.some((i) => i.argument === arg),
      );
      expect(problems).toEqual([]);
      const kubernetes = kubernetesApi(sandbox.client);
      const refusal = (args: Record<string, unknown>) =>
        kubernetes
          .kubernetesClusterCreate({ Name: 'web', Region: 'nyc3', NodePools: [POOL], ...args } as never)
          .then(
            () => 'accepted',
            (e: unknown) => (e instanceof InputError ? e.message : String(e)),
          );
      expect(await refusal({ Name: 'Web_1' })).toMatch(/^argument Name: expected lowercase letters/);
      expect(await refusal({ NodePools: [] })).toMatch(/argument NodePools/);
      expect(await refusal({ NodePools: [{ ...POOL, Count: 0 }] })).toMatch(/argument NodePools\.0\.Count/);
      expect(await refusal({ NodePools: [{ ...POOL, size: 'x' }] })).toMatch(/NodePools\.0\.size/);
      expect(await refusal({ Version: '1.33; rm' })).toMatch(/argument Version: expected a version slug/);
      expect(await refusal({ MaintenanceStartTime: '25:00' })).toMatch(/argument MaintenanceStartTime/);
      expect(seen).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});

describe('kubernetesApi against the sandbox', () => {
  it('creates a cluster that provisions, then runs; lists, gets, updates and deletes it', async () => {
    const kubernetes = kubernetesApi(connection.client);
    const { kubernetes_versions } = await kubernetes.kubernetesListVersions({});
    expect(kubernetes_versions.length).toBeGreaterThan(1);
    const { kubernetes_sizes } = await kubernetes.kubernetesListSizes({});
    expect(kubernetes_sizes.map((s) => s.slug)).toContain('s-2vcpu-4gb');
    const { kubernetes_regions } = await kubernetes.kubernetesListRegions({});
    expect(kubernetes_regions.map((r) => r.slug)).toContain('nyc3');

    const created = await kubernetes.kubernetesClusterCreate({
      Name: 'lib',
      Region: 'nyc3',
      Version: kubernetes_versions[1]?.slug as string,
      NodePools: [POOL],
      Tags: ['team-a'],
    });
    assertValidResponse('kubernetes_create_cluster', 201, created);
    const id = created.kubernetes_cluster.id as string;
    expect(created.kubernetes_cluster.status.state).toBe('provisioning');
    await connection.sandbox.advanceClock(6_000);
    const got = await kubernetes.kubernetesClusterGet({ ID: id });
    assertValidResponse('kubernetes_get_cluster', 200, got);
    expect(got.kubernetes_cluster.status.state).toBe('running');
    const listed = await kubernetes.kubernetesClusterList({});
    assertValidResponse('kubernetes_list_clusters', 200, listed);
    expect(listed.kubernetes_clusters.map((c) => c.id)).toContain(id);

    const updated = await kubernetes.kubernetesClusterUpdate({ ID: id, Name: 'lib-2', AutoUpgrade: true });
    expect(updated.kubernetes_cluster).toMatchObject({ name: 'lib-2', auto_upgrade: true });

    // Its upgrades, and one: upgrading, then running the new version.
    const { available_upgrade_versions } = await kubernetes.kubernetesClusterGetUpgrades({ ID: id });
    const next = available_upgrade_versions?.[0]?.slug as string;
    expect(next).toBe(kubernetes_versions[0]?.slug);
    await expect(kubernetes.kubernetesClusterUpgrade({ ID: id, Version: next })).resolves.toEqual({
      ok: true,
    });
    expect((await kubernetes.kubernetesClusterGet({ ID: id })).kubernetes_cluster.status.state).toBe(
      'upgrading',
    );
    await connection.sandbox.advanceClock(6_000);
    expect((await kubernetes.kubernetesClusterGet({ ID: id })).kubernetes_cluster).toMatchObject({
      version: next,
      status: { state: 'running' },
    });

    await expect(kubernetes.kubernetesClusterListAssociatedResources({ ID: id })).resolves.toEqual({
      volumes: [],
      volume_snapshots: [],
      load_balancers: [],
    });
    await expect(kubernetes.kubernetesClusterDelete({ ID: id })).resolves.toEqual({ ok: true });
    await connection.sandbox.advanceClock(4_000);
    await expect(kubernetes.kubernetesClusterGet({ ID: id })).rejects.toMatchObject({ status: 404 });
  });

  it('adds, scales and deletes a node pool; replaces a node; gets the kubeconfig and credentials', async () => {
    const kubernetes = kubernetesApi(connection.client);
    const { kubernetes_cluster } = await kubernetes.kubernetesClusterCreate({
      Name: 'pools',
      Region: 'nyc3',
      NodePools: [POOL],
    });
    const id = kubernetes_cluster.id as string;
    await connection.sandbox.advanceClock(6_000);
    const { node_pool } = await kubernetes.kubernetesClusterNodePoolCreate({
      ClusterID: id,
      Name: 'batch',
      Size: 's-2vcpu-4gb',
      Count: 1,
      Labels: { role: 'batch' },
    });
    assertValidResponse('kubernetes_add_nodePool', 201, { node_pool });
    const scaled = await kubernetes.kubernetesClusterNodePoolUpdate({
      ClusterID: id,
      PoolID: node_pool.id as string,
      Count: 3,
    });
    expect(scaled.node_pool).toMatchObject({ name: 'batch', count: 3, labels: { role: 'batch' } });
    const { node_pools } = await kubernetes.kubernetesClusterNodePoolList({ ClusterID: id });
    expect(node_pools.map((p) => `${p.name}:${p.count}`)).toEqual(['workers:2', 'batch:3']);
    await connection.sandbox.advanceClock(5_000);
    const pool = (
      await kubernetes.kubernetesClusterNodePoolGet({ ClusterID: id, PoolID: node_pool.id as string })
    ).node_pool;
    const node = pool.nodes[0]?.id as string;
    await expect(
      kubernetes.kubernetesClusterNodePoolDeleteNode({
        ClusterID: id,
        PoolID: pool.id,
        NodeID: node,
        Replace: true,
      }),
    ).resolves.toEqual({ ok: true });
    const after = (await kubernetes.kubernetesClusterNodePoolGet({ ClusterID: id, PoolID: pool.id }))
      .node_pool;
    expect(after.count).toBe(3);
    expect(after.nodes.find((n) => n.id === node)?.status?.state).toBe('draining');
    await expect(
      kubernetes.kubernetesClusterNodePoolDelete({ ClusterID: id, PoolID: pool.id }),
    ).resolves.toEqual({ ok: true });

    // The kubeconfig, parsed: kubectl's shape, named do-<region>-<name>, with a token.
    const config = await kubernetes.kubernetesClusterGetKubeconfig({ ID: id });
    expect(config).toMatchObject({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'do-nyc3-pools',
      clusters: [{ name: 'do-nyc3-pools', cluster: { server: `https://${id}.k8s.ondigitalocean.com` } }],
      users: [{ name: 'do-nyc3-pools-admin', user: { token: expect.stringMatching(/^[0-9a-f]{64}$/) } }],
    });
    const credentials = await kubernetes.kubernetesClusterGetCredentials({ ID: id, ExpirySeconds: 3600 });
    assertValidResponse('kubernetes_get_credentials', 200, credentials);
    expect(credentials.server).toBe(`https://${id}.k8s.ondigitalocean.com`);
    expect(credentials.token).toMatch(/^[0-9a-f]{64}$/);

    // clusterlint: a run, then its diagnostics once done.
    const { run_id } = await kubernetes.kubernetesClusterLintRun({ ID: id, IncludeGroups: ['security'] });
    expect(
      (await kubernetes.kubernetesClusterLintGet({ ID: id, RunID: run_id })).completed_at,
    ).toBeUndefined();
    await connection.sandbox.advanceClock(3_000);
    const lint = await kubernetes.kubernetesClusterLintGet({ ID: id });
    expect(lint.diagnostics?.map((d) => d.check_name).sort()).toEqual([
      'privileged-containers',
      'run-as-non-root',
    ]);

    // 1-Click add-ons.
    const { '1_clicks': oneClicks } = await kubernetes.kubernetes1ClickList({});
    expect(oneClicks.every((o) => o.type === 'kubernetes')).toBe(true);
    await expect(
      kubernetes.kubernetes1ClickInstall({ ClusterID: id, Slugs: [oneClicks[0]?.slug as string] }),
    ).resolves.toMatchObject({ message: expect.any(String) });

    await expect(kubernetes.kubernetesClusterDeleteDangerous({ ID: id })).resolves.toEqual({ ok: true });
  });
});
