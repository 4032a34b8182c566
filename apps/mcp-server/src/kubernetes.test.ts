/**
 * Kubernetes through a real MCP client, over stdio, against the built-in sandbox keeping its state
 * in a file: the family is offered on request only (`--families kubernetes`), with its
 * annotations; a cluster is created, waited for with the `wait` tool (named in its progress),
 * read, changed (a node pool added and scaled, the cluster renamed), its kubeconfig read with the
 * token hidden, and deleted once confirmed; a protected cluster is refused with nothing sent.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, hintsOf, okCall } from './testing/client.js';
import { killAll, stdioClient } from './testing/main.js';

afterAll(killAll);

let statePath = '';
let client: Client;
let close: () => Promise<void>;
let helper: Sandbox;
/** The questions the server asked (elicitation), answered with the name typed as asked. */
let asked: string[] = [];

// biome-ignore lint/suspicious/noExplicitAny: tool results are checked field by field.
type Json = any;

const ok = (name: string, args: Record<string, unknown> = {}): Promise<Json> => okCall(client, name, args);
const POOL = { Name: 'workers', Size: 's-2vcpu-4gb', Count: 2 };

beforeEach(async () => {
  statePath = join(mkdtempSync(join(tmpdir(), 'cloudcall-mcp-k8s-')), 'sandbox.json');
  helper = await startSandbox({ statePath });
  asked = [];
  ({ client, close } = await stdioClient(
    [
      '--sandbox',
      '--sandbox-state',
      statePath,
      '--families',
      'account,kubernetes',
      '--protect',
      'name:prod-*',
    ],
    {},
    { capabilities: { elicitation: { form: {} } } },
  ));
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const { message } = request.params as { message: string };
    asked.push(message);
    const name = /Type (\S+) to confirm/.exec(JSON.stringify(request.params))?.[1] ?? '';
    return { action: 'accept', content: { confirm: name } };
  });
});
afterEach(async () => {
  await close();
  await helper.close();
});

describe('kubernetes over MCP stdio', () => {
  it('is listed when asked for, with exact annotations, and not by default', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of [
      'kubernetes-cluster-delete',
      'kubernetes-cluster-delete-dangerous',
      'kubernetes-cluster-upgrade',
      'kubernetes-cluster-node-pool-update',
      'kubernetes-cluster-node-pool-delete-node',
    ]) {
      expect(hintsOf(byName.get(name) ?? {}).destructiveHint, name).toBe(true);
    }
    for (const name of [
      'kubernetes-cluster-create',
      'kubernetes-cluster-update',
      'kubernetes-1-click-install',
    ]) {
      expect(hintsOf(byName.get(name) ?? {}), name).toMatchObject({
        destructiveHint: false,
        readOnlyHint: false,
      });
    }
    for (const name of [
      'kubernetes-cluster-list',
      'kubernetes-cluster-get-kubeconfig',
      'kubernetes-list-versions',
    ]) {
      expect(hintsOf(byName.get(name) ?? {}).readOnlyHint, name).toBe(true);
    }
    const wait = byName.get('wait')?.inputSchema.properties as Json;
    expect(wait.Kind.enum).toContain('kubernetes-cluster');

    // The default listing leaves the family out.
    const plain = await stdioClient(['--sandbox', '--sandbox-state', ':memory:']);
    try {
      const names = (await plain.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('vm-create');
      expect(names.filter((name) => name.startsWith('kubernetes-'))).toEqual([]);
    } finally {
      await plain.close();
    }
  });

  it('creates a cluster, waits for it, reads, changes and deletes it (confirmed)', async () => {
    const { kubernetes_cluster: created } = await ok('kubernetes-cluster-create', {
      Name: 'mcp-k8s',
      Region: 'nyc3',
      NodePools: [POOL],
    });
    expect(created.status.state).toBe('provisioning');
    // The wait tool follows it until it runs: at its first progress, the sandbox clock moves on.
    let advanced: Promise<void> | undefined;
    const messages: string[] = [];
    const waited = (await client.callTool(
      { name: 'wait', arguments: { Kind: 'kubernetes-cluster', ID: created.id, TimeoutSeconds: 60 } },
      undefined,
      {
        onprogress: (progress) => {
          messages.push(String(progress.message));
          advanced ??= helper.advanceClock(10_000);
        },
      },
    )) as CallToolResult;
    await advanced;
    expect(waited.isError, JSON.stringify(waited.content)).toBeFalsy();
    expect(waited.structuredContent).toMatchObject({ kubernetes_cluster: { status: { state: 'running' } } });
    expect(messages[0]).toMatch(/^kubernetes-cluster mcp-k8s: provisioning → running/);

    const listed = await ok('kubernetes-cluster-list');
    expect(listed.kubernetes_clusters.map((c: Json) => c.name)).toEqual(['mcp-k8s']);
    const { node_pool } = await ok('kubernetes-cluster-node-pool-create', {
      ClusterID: created.id,
      Name: 'batch',
      Size: 's-2vcpu-4gb',
      Count: 1,
    });
    // Scaling a pool down or up may delete nodes: destructive, so it is confirmed first.
    const scaled = await ok('kubernetes-cluster-node-pool-update', {
      ClusterID: created.id,
      PoolID: node_pool.id,
      Count: 2,
    });
    expect(scaled.node_pool.count).toBe(2);
    expect(asked).toHaveLength(1);
    const renamed = await ok('kubernetes-cluster-update', { ID: created.id, Name: 'mcp-k8s-2' });
    expect(renamed.kubernetes_cluster.name).toBe('mcp-k8s-2');

    // The kubeconfig: kubectl's shape, its token hidden from the agent.
    const config = await ok('kubernetes-cluster-get-kubeconfig', { ID: created.id });
    expect(config).toMatchObject({ kind: 'Config', 'current-context': 'do-nyc3-mcp-k8s-2' });
    expect(config.users[0].user.token).toMatch(/^\[hidden/);
    const credentials = await ok('kubernetes-cluster-get-credentials', { ID: created.id });
    expect(credentials.token).toMatch(/^\[hidden/);

    expect(await ok('kubernetes-cluster-delete', { ID: created.id })).toEqual({ ok: true });
    expect(asked).toHaveLength(2);
    expect(asked[1]).toContain('mcp-k8s-2');
    await helper.advanceClock(5_000);
    expect((await ok('kubernetes-cluster-list')).kubernetes_clusters).toEqual([]);
  });

  it('refuses to delete a protected cluster, sending nothing, and bad input before any request', async () => {
    const { kubernetes_cluster: prod } = await ok('kubernetes-cluster-create', {
      Name: 'prod-eu',
      Region: 'nyc3',
      NodePools: [POOL],
    });
    for (const name of ['kubernetes-cluster-delete', 'kubernetes-cluster-delete-dangerous']) {
      const refused = await call(client, name, { ID: prod.id });
      expect(refused.isError, name).toBe(true);
      expect(refused.text).toContain('is protected by rule name:prod-*');
    }
    expect(asked).toEqual([]);
    await helper.advanceClock(10_000);
    expect((await ok('kubernetes-cluster-get', { ID: prod.id })).kubernetes_cluster.status.state).toBe(
      'running',
    );

    const bad = await call(client, 'kubernetes-cluster-create', {
      Name: 'Bad_Name',
      Region: 'nyc3',
      NodePools: [],
    });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('Name');
    expect(bad.text).toContain('NodePools');
  });
});
