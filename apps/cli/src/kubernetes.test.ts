/**
 * Kubernetes through the CLI against its sandbox, in doctl's words: `kubernetes cluster create
 * NAME --node-pool "name=...;size=...;count=..." --wait` (the cluster named in the progress),
 * `k8s cluster list` as doctl's table, clusters and node pools by name, `kubeconfig show` (YAML,
 * the token hidden) and `kubeconfig save` (merged into the kubeconfig file, other contexts kept,
 * no token printed), `options versions`, and deletion: refused by a protection rule with nothing
 * sent, unconfirmed without --force, done with it.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cliRunner, type Json } from './testing/run.js';

const cli = cliRunner();
const { ok } = cli;
/** A second sandbox on the CLI's state file, to move its clock. */
let helper: Sandbox;

beforeAll(async () => {
  await cli.stateText();
  helper = await startSandbox({ statePath: cli.statePath });
});
afterAll(async () => {
  await helper.close();
});

const POOL = 'name=workers;size=s-2vcpu-4gb;count=2';

/** `kubernetes cluster create NAME ... --wait`: once the wait names the cluster, its clock moves on. */
async function createWaiting(name: string, ...flags: string[]): Promise<Json> {
  const run = cli.start(['--sandbox', 'kubernetes', 'cluster', 'create', name, ...flags, '--wait']);
  await run.until(new RegExp(`kubernetes-cluster ${name}: provisioning`));
  await helper.advanceClock(10_000);
  const result = await run.exit;
  expect(result.code, result.stderr).toBe(0);
  return result.json;
}

describe('kubernetes through the CLI, in doctl words', () => {
  it('creates a cluster with --node-pool and --wait, lists it as doctl does, changes and deletes it by name', async () => {
    const created = await createWaiting(
      'cli-k8s',
      '--region',
      'nyc3',
      '--version',
      'latest',
      '--node-pool',
      `${POOL};tag=web;label=tier=front name=batch;size=s-2vcpu-4gb;count=1;taint=gpu=yes:NoSchedule`,
    );
    expect(created.kubernetes_cluster).toMatchObject({ name: 'cli-k8s', status: { state: 'running' } });
    const pools = created.kubernetes_cluster.node_pools;
    expect(pools.map((p: Json) => [p.name, p.count])).toEqual([
      ['workers', 2],
      ['batch', 1],
    ]);
    expect(pools[0]).toMatchObject({ labels: { tier: 'front' }, tags: expect.arrayContaining(['web']) });
    expect(pools[1].taints).toEqual([{ key: 'gpu', value: 'yes', effect: 'NoSchedule' }]);

    // doctl's table and columns, through its alias k8s.
    const table = await cli.sandbox('k8s', 'cluster', 'list', '-o', 'table');
    expect(table.code, table.stderr).toBe(0);
    // Other tests' clusters may share the state file (tests run in any order): this one's row.
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    const row = rows.find((line) => / cli-k8s /.test(line));
    expect(header?.split(/\s{2,}/)).toEqual([
      'ID',
      'Name',
      'Region',
      'Version',
      'Auto Upgrade',
      'Status',
      'Node Pools',
    ]);
    expect(row).toMatch(/ cli-k8s +nyc3 +1\.\d+\.\d+-do\.\d+ +false +running +workers,batch$/);

    // By name: the cluster, then a pool inside it; a change, a new pool.
    const got = await ok('kubernetes', 'cluster', 'get', 'cli-k8s');
    expect(got.kubernetes_cluster.id).toBe(created.kubernetes_cluster.id);
    const pool = await ok('kubernetes', 'cluster', 'node-pool', 'get', 'cli-k8s', 'batch');
    expect(pool.node_pool.id).toBe(pools[1].id);
    const scaled = await ok(
      'kubernetes',
      'cluster',
      'node-pool',
      'update',
      'cli-k8s',
      'batch',
      '--count',
      '3',
      '--force',
    );
    expect(scaled.node_pool.count).toBe(3);
    const updated = await ok('kubernetes', 'cluster', 'update', 'cli-k8s', '--auto-upgrade', 'true');
    expect(updated.kubernetes_cluster.auto_upgrade).toBe(true);
    const listed = await ok('kubernetes', 'cluster', 'node-pool', 'list', 'cli-k8s');
    expect(listed.node_pools.map((p: Json) => `${p.name}:${p.count}`)).toEqual(['workers:2', 'batch:3']);
    const versions = await ok('kubernetes', 'options', 'versions');
    expect(versions.kubernetes_versions[0].slug).toBe(created.kubernetes_cluster.version);

    // Deleting is destructive: refused unconfirmed, done with --force, by name.
    const unconfirmed = await cli.sandbox('kubernetes', 'cluster', 'delete', 'cli-k8s');
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('kubernetes-cluster-delete is destructive');
    expect(await ok('kubernetes', 'cluster', 'delete', 'cli-k8s', '--force')).toEqual({ ok: true });
    await helper.advanceClock(5_000);
    const gone = await cli.sandbox('kubernetes', 'cluster', 'get', 'cli-k8s');
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain('no Kubernetes cluster has the id or name "cli-k8s"');
  });

  it('refuses to delete a protected cluster, sending nothing', async () => {
    // --node-pool once a pool, as doctl takes it: every one counts, not the last.
    const created = await ok(
      'kubernetes',
      'cluster',
      'create',
      'prod-eu',
      '--region',
      'nyc3',
      '--node-pool',
      POOL,
      '--node-pool',
      'name=spare;size=s-1vcpu-2gb;count=1',
    );
    expect(created.kubernetes_cluster.node_pools.map((pool: Json) => [pool.name, pool.count])).toEqual([
      ['workers', 2],
      ['spare', 1],
    ]);
    const refused = await cli.sandbox(
      'k8s',
      'cluster',
      'delete',
      'prod-eu',
      '--protect',
      'name:prod-*',
      '--force',
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /kubernetes-cluster-delete refused: .*prod-eu.* is protected by rule name:prod-\* \(--protect\)\. Nothing was sent\./,
    );
    const dangerous = await cli.sandbox(
      'kubernetes',
      'cluster',
      'delete-dangerous',
      'prod-eu',
      '--protect',
      'name:prod-*',
      '--force',
    );
    expect(dangerous.stderr).toContain('is protected by rule name:prod-*');
    // Still there, not being deleted.
    await helper.advanceClock(10_000);
    const still = await ok('kubernetes', 'cluster', 'get', created.kubernetes_cluster.id);
    expect(still.kubernetes_cluster.status.state).toBe('running');
  });

  it('shows the kubeconfig as YAML with its token hidden, and saves it into the kubeconfig file', async () => {
    await ok('kubernetes', 'cluster', 'create', 'kube-cfg', '--region', 'nyc3', '--node-pool', POOL);
    const shown = await cli.sandbox('kubernetes', 'cluster', 'kubeconfig', 'show', 'kube-cfg');
    expect(shown.code, shown.stderr).toBe(0);
    const config = parse(shown.stdout);
    expect(config).toMatchObject({ kind: 'Config', 'current-context': 'do-nyc3-kube-cfg' });
    expect(config.users[0].user.token).toMatch(/^\[hidden/);
    const secret = await cli.sandbox(
      'kubernetes',
      'cluster',
      'kubeconfig',
      'show',
      'kube-cfg',
      '--show-secrets',
    );
    expect(parse(secret.stdout).users[0].user.token).toMatch(/^[0-9a-f]{64}$/);

    // A kubeconfig with another cluster's context: kept, the new one added and made current.
    const path = join(cli.home, 'kube', 'config');
    mkdirSync(join(cli.home, 'kube'));
    writeFileSync(
      path,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: other, cluster: {server: "https://other.example"}}]',
        'contexts: [{name: other, context: {cluster: other, user: other}}]',
        'users: [{name: other, user: {token: keep-me}}]',
        'current-context: other',
        '',
      ].join('\n'),
    );
    const saved = await cli.run(['--sandbox', 'k8s', 'cluster', 'kubeconfig', 'save', 'kube-cfg'], {
      KUBECONFIG: path,
    });
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toBe(
      `Saved the credentials of do-nyc3-kube-cfg to ${path}; the current context is now do-nyc3-kube-cfg.\n`,
    );
    expect(`${saved.stdout}${saved.stderr}`).not.toMatch(/[0-9a-f]{64}/);
    const merged = parse(readFileSync(path, 'utf8'));
    expect(merged['current-context']).toBe('do-nyc3-kube-cfg');
    expect(merged.contexts.map((c: Json) => c.name)).toEqual(['other', 'do-nyc3-kube-cfg']);
    expect(merged.users.map((u: Json) => u.user.token)).toEqual([
      'keep-me',
      expect.stringMatching(/^[0-9a-f]{64}$/),
    ]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // Saved again: the cluster's entries replaced, not doubled.
    await cli.run(['--sandbox', 'kubernetes', 'cluster', 'kubeconfig', 'save', 'kube-cfg'], {
      KUBECONFIG: path,
    });
    expect(parse(readFileSync(path, 'utf8')).clusters.map((c: Json) => c.name)).toEqual([
      'other',
      'do-nyc3-kube-cfg',
    ]);
  });
});
