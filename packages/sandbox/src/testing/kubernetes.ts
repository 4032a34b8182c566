/**
 * What the Kubernetes tests share: a sandbox on a stepping clock (started and closed by the hooks
 * `useKubernetesSandbox` registers), calls checked against the description, refusals checked to
 * change nothing, and clusters made in one call. Test support only (not built into dist).
 */
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { CLUSTER_PROVISION_MS } from '../families/kubernetes.js';
import { type Sandbox, startSandbox } from '../server.js';
import type { World } from '../world.js';
import { type CallOptions, callOperation, type Reply, steppingClock } from './operations.js';

export interface Node {
  id: string;
  name: string;
  droplet_id: string;
  status: { state: string };
}

export interface Pool {
  id: string;
  name: string;
  count: number;
  nodes: Node[];
  tags: string[];
  labels: Record<string, string> | null;
  taints: unknown[];
  auto_scale: boolean;
  min_nodes: number;
  max_nodes: number;
}

/** A cluster id no cluster has. */
export const MISSING = '8a6b3f6e-0000-4000-8000-000000000000';

export const pool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  size: 's-1vcpu-2gb',
  count: 1,
  ...extra,
});

/** The states of a pool's nodes, sorted. */
export const states = (p: Pool) => p.nodes.map((n) => n.status.state).sort();

export function expectError(reply: Reply, status: number, mentions: RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual({
    id: expect.any(String),
    message: expect.stringMatching(mentions),
    request_id: expect.any(String),
  });
}

/** Registers the hooks of a test file and answers its helpers, bound to its sandbox. */
export function useKubernetesSandbox() {
  const bed: { sandbox?: Sandbox } = {};
  const sandbox = () => {
    if (!bed.sandbox) throw new Error('the sandbox is not started');
    return bed.sandbox;
  };

  beforeAll(async () => {
    bed.sandbox = await startSandbox({ now: steppingClock() });
  });
  beforeEach(async () => {
    // Worker nodes count against the Droplet limit: room for every test's clusters.
    await sandbox().store.write((w) => {
      w.account.droplet_limit = 500;
    });
  });
  afterAll(async () => {
    await bed.sandbox?.close();
  });

  const call = (operationId: string, options?: CallOptions) =>
    callOperation(sandbox().url, operationId, options);

  const state = () =>
    sandbox().store.read((w: World) =>
      structuredClone({
        clusters: w.kubernetesClusters,
        volumes: w.volumes,
        snapshots: w.volumeSnapshots,
        balancers: w.loadBalancers,
        vpcs: w.vpcs,
        nextId: w.nextId,
      }),
    );

  /** Expects a refusal that changes nothing. */
  async function refusedUnchanged(reply: Promise<Reply>, status: number, mentions: RegExp) {
    const before = await state();
    expectError(await reply, status, mentions);
    expect(await state()).toEqual(before);
  }

  const advance = (ms: number) => sandbox().advanceClock(ms);

  async function cluster(name: string, extra: Record<string, unknown> = {}) {
    const created = await call('kubernetes_create_cluster', {
      json: { name, region: 'nyc1', version: '1.31', node_pools: [pool(`${name}-pool`)], ...extra },
    });
    expect(created.status, created.text).toBe(201);
    return created.body.kubernetes_cluster as { id: string; node_pools: Pool[]; [key: string]: unknown };
  }

  /** A cluster made and provisioned: running. */
  async function runningCluster(name: string, extra: Record<string, unknown> = {}) {
    const made = await cluster(name, extra);
    await advance(CLUSTER_PROVISION_MS);
    return made;
  }

  const get = async (id: string) => {
    const reply = await call('kubernetes_get_cluster', { params: { cluster_id: id } });
    expect(reply.status, reply.text).toBe(200);
    return reply.body.kubernetes_cluster;
  };

  const getPool = async (clusterId: string, poolId: string): Promise<Pool> => {
    const reply = await call('kubernetes_get_nodePool', {
      params: { cluster_id: clusterId, node_pool_id: poolId },
    });
    expect(reply.status, reply.text).toBe(200);
    return reply.body.node_pool;
  };

  return { bed, sandbox, call, refusedUnchanged, advance, cluster, runningCluster, get, getPool };
}
