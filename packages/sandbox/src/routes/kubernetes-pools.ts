/**
 * A cluster's node pools and their nodes: add, list, get, update (name, count, autoscaling, tags,
 * labels, taints), delete; delete one node (drained first unless `skip_drain=1`, replaced when
 * `replace=1`), and recycle nodes (the deprecated way to replace them). A pool's nodes follow its
 * count: new ones provision for a few seconds, removed ones drain, are deleted, then are gone.
 */
import { NODE_PROVISION_MS } from '../families/kubernetes.js';
import { badRequest, notFound, type Route, type SandboxRequest, unprocessable } from '../http.js';
import type { World } from '../world.js';
import {
  checkDropletLimit,
  clusterToChange,
  findCluster,
  findPool,
  labelsField,
  liveNodes,
  newNode,
  newPool,
  poolAutoTags,
  poolView,
  resourceName,
  retireNode,
  scaleNodes,
  scaling,
  settle,
  tagList,
  taintsField,
} from './kubernetes-common.js';

/** The cluster and pool a path names, to change them. */
function poolToChange(world: World, req: SandboxRequest) {
  settle(world, req.now);
  const cluster = clusterToChange(world, req);
  return { cluster, pool: findPool(cluster, req) };
}

/** A 0-or-1 query flag (`skip_drain`, `replace`), or the platform's 400. */
function flag(req: SandboxRequest, name: string): boolean {
  const value = req.query.get(name);
  if (value === null || value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw badRequest(`${name} must be 0 or 1; got ${JSON.stringify(value)}`);
}

export const kubernetesPoolsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/kubernetes/clusters/{cluster_id}/node_pools',
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      return { body: { node_pools: cluster.node_pools.map((pool) => poolView(cluster, pool, req.now)) } };
    },
  },
  {
    method: 'POST',
    path: '/v2/kubernetes/clusters/{cluster_id}/node_pools',
    handler: (req, world) => {
      settle(world, req.now);
      const cluster = clusterToChange(world, req);
      const taken = cluster.node_pools.map((p) => p.name);
      const pool = newPool(world, req.body, cluster.region, taken, 'node pool');
      checkDropletLimit(world, req.now, pool.count);
      scaleNodes(world, pool, req.now);
      cluster.node_pools.push(pool);
      return { status: 201, body: { node_pool: poolView(cluster, pool, req.now) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/kubernetes/clusters/{cluster_id}/node_pools/{node_pool_id}',
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      return { body: { node_pool: poolView(cluster, findPool(cluster, req), req.now) } };
    },
  },
  {
    method: 'PUT',
    path: '/v2/kubernetes/clusters/{cluster_id}/node_pools/{node_pool_id}',
    handler: (req, world) => {
      const { cluster, pool } = poolToChange(world, req);
      const { body } = req;
      // The description requires name and count; clients (godo) leave out what they do not change,
      // and the platform keeps it.
      const name = body.name === undefined ? pool.name : resourceName(body.name, 'name');
      if (cluster.node_pools.some((p) => p !== pool && p.name === name)) {
        throw unprocessable(`a node pool named ${name} already exists in the cluster`);
      }
      if (body.size !== undefined && body.size !== pool.size) {
        throw unprocessable(
          `a node pool's size cannot change (${pool.name} is ${pool.size}): add a pool of the new size instead`,
        );
      }
      const scaled = scaling(body, pool);
      checkDropletLimit(world, req.now, scaled.count - pool.count);
      const tags = body.tags === undefined ? pool.tags : tagList(body.tags, 'tags', poolAutoTags(cluster.id));
      const labels = body.labels === undefined ? pool.labels : labelsField(body.labels);
      const taints = body.taints === undefined ? pool.taints : taintsField(body.taints);
      Object.assign(pool, { name, tags, labels, taints, ...scaled });
      scaleNodes(world, pool, req.now);
      cluster.updated_ms = req.now;
      return { status: 202, body: { node_pool: poolView(cluster, pool, req.now) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/kubernetes/clusters/{cluster_id}/node_pools/{node_pool_id}',
    handler: (req, world) => {
      const { cluster, pool } = poolToChange(world, req);
      if (cluster.node_pools.length === 1) {
        throw unprocessable(
          `node pool ${pool.name} is the cluster's only pool: a cluster keeps at least one; delete the cluster instead`,
        );
      }
      // Its nodes drain and are deleted with it.
      cluster.node_pools = cluster.node_pools.filter((p) => p !== pool);
      cluster.updated_ms = req.now;
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/kubernetes/clusters/{cluster_id}/node_pools/{node_pool_id}/nodes/{node_id}',
    handler: (req, world) => {
      const { pool } = poolToChange(world, req);
      const node = pool.nodes.find((n) => n.id === req.params.node_id);
      if (!node) throw notFound();
      const skipDrain = flag(req, 'skip_drain');
      const replace = flag(req, 'replace');
      if (node.deleting_ms !== undefined) throw unprocessable(`node ${node.id} is already being deleted`);
      if (!replace) {
        const floor = pool.auto_scale ? Math.max(1, pool.min_nodes) : 1;
        if (pool.count - 1 < floor) {
          throw unprocessable(
            `node ${node.id} cannot go without a replacement: node pool ${pool.name} keeps at least ${floor} node(s); replace it (replace=1) or delete the pool`,
          );
        }
        pool.count -= 1;
      }
      retireNode(node, req.now, skipDrain);
      if (replace) pool.nodes.push(newNode(world, pool, req.now, NODE_PROVISION_MS));
      return { status: 202 };
    },
  },
  {
    method: 'POST',
    path: '/v2/kubernetes/clusters/{cluster_id}/node_pools/{node_pool_id}/recycle',
    handler: (req, world) => {
      const { pool } = poolToChange(world, req);
      const ids = req.body.nodes;
      if (!Array.isArray(ids) || ids.length === 0) {
        throw unprocessable('nodes must be a non-empty array of the ids of nodes of the pool');
      }
      const live = liveNodes(pool);
      const nodes = [...new Set(ids)].map((id) => {
        const node = live.find((n) => n.id === id);
        if (!node)
          throw unprocessable(`nodes: ${JSON.stringify(id)} is not a node of node pool ${pool.name}`);
        return node;
      });
      // Each is replaced: the old one drains and is deleted, a new one provisions.
      for (const node of nodes) {
        retireNode(node, req.now);
        pool.nodes.push(newNode(world, pool, req.now, NODE_PROVISION_MS));
      }
      return { status: 202 };
    },
  },
];
