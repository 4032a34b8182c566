/**
 * A Kubernetes cluster's node pools as the platform runs them: added, scaled (nodes provision,
 * drain, are deleted, then gone), autoscaled, updated and deleted; single nodes deleted, drained or
 * not, replaced or not; nodes recycled. Refusals change nothing; every answer is checked against
 * the OpenAPI response schema of its operation.
 */
import { describe, expect, it } from 'vitest';
import { NODE_DELETE_MS, NODE_DRAIN_MS, NODE_PROVISION_MS } from './families/kubernetes.js';
import {
  expectError,
  MISSING,
  type Node,
  type Pool,
  pool,
  states,
  useKubernetesSandbox,
} from './testing/kubernetes.js';

const { call, refusedUnchanged, advance, cluster, runningCluster, getPool } = useKubernetesSandbox();

describe('node pools', () => {
  it('adds a pool whose nodes provision, then scales it up and down', async () => {
    const made = await runningCluster('pools');
    const added = await call('kubernetes_add_nodePool', {
      params: { cluster_id: made.id },
      json: pool('extra', {
        count: 2,
        tags: ['batch'],
        taints: [{ key: 'batch', value: 'true', effect: 'NoSchedule' }],
      }),
    });
    expect(added.status, added.text).toBe(201);
    const extra: Pool = added.body.node_pool;
    expect(extra).toMatchObject({
      name: 'extra',
      count: 2,
      tags: ['batch', 'k8s', `k8s:${made.id}`, 'k8s:worker'],
      taints: [{ key: 'batch', value: 'true', effect: 'NoSchedule' }],
      labels: null,
    });
    expect(states(extra)).toEqual(['provisioning', 'provisioning']);
    await advance(NODE_PROVISION_MS);
    expect(states(await getPool(made.id, extra.id))).toEqual(['running', 'running']);
    const listed = await call('kubernetes_list_nodePools', { params: { cluster_id: made.id } });
    expect(listed.body.node_pools.map((p: Pool) => p.name)).toEqual(['pools-pool', 'extra']);

    // Up to 3: one more provisions.
    const up = await call('kubernetes_update_nodePool', {
      params: { cluster_id: made.id, node_pool_id: extra.id },
      json: { name: 'extra', count: 3, labels: { role: 'batch' } },
    });
    expect(up.status, up.text).toBe(202);
    expect(up.body.node_pool).toMatchObject({
      count: 3,
      labels: { role: 'batch' },
      tags: expect.arrayContaining(['batch']),
    });
    expect(states(up.body.node_pool)).toEqual(['provisioning', 'running', 'running']);
    await advance(NODE_PROVISION_MS);

    // Down to 1: the two newest drain, are deleted, then are gone.
    const down = await call('kubernetes_update_nodePool', {
      params: { cluster_id: made.id, node_pool_id: extra.id },
      json: { name: 'extra', count: 1 },
    });
    expect(states(down.body.node_pool)).toEqual(['draining', 'draining', 'running']);
    await advance(NODE_DRAIN_MS);
    expect(states(await getPool(made.id, extra.id))).toEqual(['deleting', 'deleting', 'running']);
    await advance(NODE_DELETE_MS);
    const after = await getPool(made.id, extra.id);
    expect(states(after)).toEqual(['running']);
    expect(after.nodes[0]?.id).toBe(extra.nodes[0]?.id);
  });

  it('autoscales between its bounds, and reports the bounds as 0 when it does not', async () => {
    const made = await cluster('autoscale');
    const [first] = made.node_pools;
    const params = { cluster_id: made.id, node_pool_id: first?.id as string };
    const scaled = await call('kubernetes_update_nodePool', {
      params,
      json: { name: 'autoscale-pool', count: 2, auto_scale: true, min_nodes: 1, max_nodes: 5 },
    });
    expect(scaled.body.node_pool).toMatchObject({ auto_scale: true, min_nodes: 1, max_nodes: 5, count: 2 });
    await refusedUnchanged(
      call('kubernetes_update_nodePool', { params, json: { name: 'autoscale-pool', count: 6 } }),
      422,
      /count \(6\) must be within min_nodes and max_nodes \(1 to 5\)/,
    );
    const off = await call('kubernetes_update_nodePool', {
      params,
      json: { name: 'autoscale-pool', count: 2, auto_scale: false },
    });
    expect(off.body.node_pool).toMatchObject({ auto_scale: false, min_nodes: 0, max_nodes: 0 });
    // An autoscaling pool added without a count starts at its minimum.
    const added = await call('kubernetes_add_nodePool', {
      params: { cluster_id: made.id },
      json: { name: 'elastic', size: 's-2vcpu-4gb', auto_scale: true, min_nodes: 2, max_nodes: 4 },
    });
    expect(added.status, added.text).toBe(201);
    expect(added.body.node_pool).toMatchObject({ count: 2, min_nodes: 2, max_nodes: 4 });
    expect(added.body.node_pool.nodes).toHaveLength(2);
  });

  it('refuses bad pool changes, and finds a pool under its own cluster only', async () => {
    const made = await cluster('pool-rules');
    const other = await cluster('pool-other');
    const first = made.node_pools[0] as Pool;
    const params = { cluster_id: made.id, node_pool_id: first.id };
    const second = await call('kubernetes_add_nodePool', {
      params: { cluster_id: made.id },
      json: pool('second'),
    });
    expect(second.status, second.text).toBe(201);
    await refusedUnchanged(
      call('kubernetes_add_nodePool', { params: { cluster_id: made.id }, json: pool('second') }),
      422,
      /a node pool named second already exists/,
    );
    await refusedUnchanged(
      call('kubernetes_add_nodePool', {
        params: { cluster_id: made.id },
        json: { name: 'nosize', count: 1 },
      }),
      422,
      /size is required/,
    );
    await refusedUnchanged(
      call('kubernetes_update_nodePool', { params, json: { name: 'second', count: 1 } }),
      422,
      /a node pool named second already exists/,
    );
    await refusedUnchanged(
      call('kubernetes_update_nodePool', {
        params,
        json: { name: first.name, count: 1, size: 's-2vcpu-4gb' },
      }),
      422,
      /size cannot change/,
    );
    await refusedUnchanged(
      call('kubernetes_update_nodePool', { params, json: { name: first.name, count: 0 } }),
      422,
      /count must be an integer from 1 to 512/,
    );
    await refusedUnchanged(
      call('kubernetes_get_nodePool', { params: { cluster_id: other.id, node_pool_id: first.id } }),
      404,
      /could not be found/,
    );
    // Deleting a pool; the last one stays.
    const removed = await call('kubernetes_delete_nodePool', {
      params: { cluster_id: made.id, node_pool_id: second.body.node_pool.id },
    });
    expect(removed.status, removed.text).toBe(204);
    expectError(
      await call('kubernetes_get_nodePool', {
        params: { cluster_id: made.id, node_pool_id: second.body.node_pool.id },
      }),
      404,
      /could not be found/,
    );
    await refusedUnchanged(call('kubernetes_delete_nodePool', { params }), 422, /the cluster's only pool/);
  });

  it('deletes a node, drained or not, replaced or not; recycles nodes', async () => {
    const made = await runningCluster('nodes', { node_pools: [pool('n', { count: 3 })] });
    const p = made.node_pools[0] as Pool;
    const nodes = (await getPool(made.id, p.id)).nodes;
    const [a, b, c] = nodes as [Node, Node, Node];
    const remove = (node: Node, query = '') =>
      call('kubernetes_delete_node', {
        params: { cluster_id: made.id, node_pool_id: p.id, node_id: node.id },
        query,
      });

    // Drained, not replaced: the pool shrinks.
    expect((await remove(a)).status).toBe(202);
    let now = await getPool(made.id, p.id);
    expect(now.count).toBe(2);
    expect(now.nodes.find((n) => n.id === a.id)?.status.state).toBe('draining');
    await refusedUnchanged(remove(a), 422, /already being deleted/);

    // Not drained, replaced: a new node provisions, the count stays.
    expect((await remove(b, '?skip_drain=1&replace=1')).status).toBe(202);
    now = await getPool(made.id, p.id);
    expect(now.count).toBe(2);
    expect(now.nodes.find((n) => n.id === b.id)?.status.state).toBe('deleting');
    expect(now.nodes.filter((n) => n.status.state === 'provisioning')).toHaveLength(1);
    await advance(NODE_DRAIN_MS + NODE_DELETE_MS);
    now = await getPool(made.id, p.id);
    expect(now.nodes.map((n) => n.id)).not.toContain(a.id);
    expect(now.nodes.map((n) => n.id)).not.toContain(b.id);
    await advance(NODE_PROVISION_MS);

    // Recycle: each named node is replaced.
    const recycled = await call('kubernetes_recycle_node_pool', {
      params: { cluster_id: made.id, node_pool_id: p.id },
      json: { nodes: [c.id] },
    });
    expect(recycled.status, recycled.text).toBe(202);
    now = await getPool(made.id, p.id);
    expect(now.count).toBe(2);
    expect(states(now)).toEqual(['draining', 'provisioning', 'running']);
    await refusedUnchanged(
      call('kubernetes_recycle_node_pool', {
        params: { cluster_id: made.id, node_pool_id: p.id },
        json: { nodes: [MISSING] },
      }),
      422,
      /is not a node of node pool n/,
    );
    await refusedUnchanged(remove({ ...c, id: MISSING }), 404, /could not be found/);
    await refusedUnchanged(remove(c, '?replace=yes'), 400, /replace must be 0 or 1/);

    // The pool's last node goes only with a replacement.
    await advance(NODE_DRAIN_MS + NODE_DELETE_MS + NODE_PROVISION_MS);
    const [last, spare] = (await getPool(made.id, p.id)).nodes as [Node, Node];
    expect((await remove(spare)).status).toBe(202);
    await refusedUnchanged(remove(last), 422, /cannot go without a replacement/);
  });
});
