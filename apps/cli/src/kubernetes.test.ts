/**
 * Kubernetes through the CLI against its sandbox, in doctl's words: `kubernetes cluster create
 * NAME --node-pool "name=...;size=...;count=..." --wait` (the cluster named in the progress),
 * `k8s cluster list` as doctl's table, clusters and node pools by name, `kubeconfig show` (YAML,
 * the token hidden) and `kubeconfig save` (merged into the kubeconfig file, other contexts kept,
 * no token printed), `options versions`, and deletion: refused by a protection rule with nothing
 * sent, unconfirmed without --force, done with it. doctl's other spellings: `cluster create`
 * without --node-pool (its default pool, --size and --count), `cluster delete --dangerous` (what
 * the cluster made goes too, each of it protected), and `node-pool replace-node` and `delete-node`
 * with the node given third.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { World } from '@cloudcall/sandbox';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cliRunner, type Json, sandboxBeside } from './testing/run.js';

const cli = cliRunner();
const { ok } = cli;
/** A second sandbox on the CLI's state file, to move its clock. */
const helper = sandboxBeside(cli);

const POOL = 'name=workers;size=s-2vcpu-4gb;count=2';

/** `kubernetes cluster create NAME ... --wait`: once the wait names the cluster, its clock moves on. */
async function createWaiting(name: string, ...flags: string[]): Promise<Json> {
  const run = cli.start(['--sandbox', 'kubernetes', 'cluster', 'create', name, ...flags, '--wait']);
  await run.until(new RegExp(`kubernetes-cluster ${name}: provisioning`));
  await helper().advanceClock(10_000);
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
    await helper().advanceClock(5_000);
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
    await helper().advanceClock(10_000);
    const still = await ok('kubernetes', 'cluster', 'get', created.kubernetes_cluster.id);
    expect(still.kubernetes_cluster.status.state).toBe('running');
  });

  it('shows the kubeconfig as YAML with its token hidden, and saves it into the kubeconfig file', async () => {
    const { id } = (
      await ok('kubernetes', 'cluster', 'create', 'kube-cfg', '--region', 'nyc3', '--node-pool', POOL)
    ).kubernetes_cluster;
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
      `Saved do-nyc3-kube-cfg to ${path} (kubectl gets each token from cloudcall's exec-credential); the current context is now do-nyc3-kube-cfg.\n`,
    );
    expect(`${saved.stdout}${saved.stderr}`).not.toMatch(/[0-9a-f]{64}/);
    const text = readFileSync(path, 'utf8');
    // doctl's form: no token to expire in the file, a command kubectl runs for one.
    expect(text).not.toMatch(/[0-9a-f]{64}/);
    const merged = parse(text);
    expect(merged['current-context']).toBe('do-nyc3-kube-cfg');
    expect(merged.contexts.map((c: Json) => c.name)).toEqual(['other', 'do-nyc3-kube-cfg']);
    expect(merged.users[0]).toEqual({ name: 'other', user: { token: 'keep-me' } });
    expect(merged.users[1].user).toEqual({
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        command: 'cloudcall',
        args: [
          'kubernetes',
          'cluster',
          'kubeconfig',
          'exec-credential',
          '--version=v1beta1',
          '--sandbox',
          id,
        ],
        interactiveMode: 'Never',
        provideClusterInfo: false,
      },
    });
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

  it("cluster create without --node-pool makes doctl's default pool; --size and --count shape it, not beside --node-pool", async () => {
    const made = await ok('kubernetes', 'cluster', 'create', 'pool-default', '--region', 'nyc3');
    expect(made.kubernetes_cluster.node_pools.map((p: Json) => [p.name, p.size, p.count])).toEqual([
      ['pool-default-default-pool', 's-1vcpu-2gb-intel', 3],
    ]);
    const shaped = await ok(
      'kubernetes',
      'cluster',
      'create',
      'pool-shaped',
      '--region',
      'nyc3',
      '--size',
      's-2vcpu-4gb',
      '--count',
      '2',
    );
    expect(shaped.kubernetes_cluster.node_pools.map((p: Json) => [p.name, p.size, p.count])).toEqual([
      ['pool-shaped-default-pool', 's-2vcpu-4gb', 2],
    ]);
    // As doctl: --size and --count shape the default pool only.
    for (const flag of [
      ['--size', 's-2vcpu-4gb'],
      ['--count', '2'],
    ]) {
      const both = await cli.sandbox(
        'kubernetes',
        'cluster',
        'create',
        'pool-both',
        '--region',
        'nyc3',
        '--node-pool',
        POOL,
        ...flag,
      );
      expect(both.code).toBe(2);
      expect(both.stderr).toContain(
        `${flag[0]}: cannot go with --node-pool: it shapes the default made when --node-pool is not given`,
      );
    }
    const count = await cli.sandbox(
      'kubernetes',
      'cluster',
      'create',
      'pool-bad',
      '--region',
      'nyc3',
      '--count',
      'many',
    );
    expect(count.code).toBe(2);
    expect(count.stderr).toContain('--count: expected a whole number of nodes, got "many"');
    const listed = await ok('kubernetes', 'cluster', 'list');
    expect(listed.kubernetes_clusters.map((c: Json) => c.name)).not.toContain('pool-both');
    expect(listed.kubernetes_clusters.map((c: Json) => c.name)).not.toContain('pool-bad');
  });

  it('cluster delete --dangerous deletes what the cluster made, asks first, and checks each of it against protection', async () => {
    const made = async (name: string) => {
      const { id } = (
        await ok('kubernetes', 'cluster', 'create', name, '--region', 'nyc3', '--node-pool', POOL)
      ).kubernetes_cluster;
      // A volume of the cluster's storage driver: tagged with the cluster's id, as the platform's are.
      const volume = await ok(
        'volume',
        'create',
        `${name}-pvc`,
        '--size',
        '10GiB',
        '--region',
        'nyc3',
        '--tag',
        `k8s:${id}`,
      );
      return { id, volume: volume.volume.id };
    };
    const dangerous = await made('doomed');
    const associated = await ok('kubernetes', 'cluster', 'list-associated-resources', 'doomed');
    expect(associated.volumes.map((v: Json) => v.id)).toEqual([dangerous.volume]);

    // Unconfirmed: the dangerous tool is named, nothing is sent.
    const unconfirmed = await cli.sandbox('kubernetes', 'cluster', 'delete', 'doomed', '--dangerous');
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('kubernetes-cluster-delete-dangerous is destructive');
    // A protected volume it made protects the cluster from --dangerous, not from a plain delete.
    const refused = await cli.sandbox(
      'kubernetes',
      'cluster',
      'delete',
      'doomed',
      '--dangerous',
      '--force',
      '--protect',
      'name:doomed-pvc',
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /kubernetes-cluster-delete-dangerous refused: volume doomed-pvc .*is protected by rule name:doomed-pvc \(--protect\)\. Nothing was sent\./,
    );
    const bad = await cli.sandbox(
      'kubernetes',
      'cluster',
      'delete',
      'doomed',
      '--dangerous=perhaps',
      '--force',
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--dangerous: expected true or false, got "perhaps"');
    // Nothing was sent: the cluster is not being deleted, its volume is there.
    expect((await ok('kubernetes', 'cluster', 'get', dangerous.id)).kubernetes_cluster.status.state).not.toBe(
      'deleting',
    );
    expect((await ok('volume', 'get', dangerous.volume)).volume.name).toBe('doomed-pvc');

    expect(await ok('kubernetes', 'cluster', 'delete', 'doomed', '--dangerous', '--force')).toEqual({
      ok: true,
    });
    const volume = await cli.sandbox('volume', 'get', dangerous.volume);
    expect(volume.code).toBe(3);
    await helper().advanceClock(5_000);
    expect((await cli.sandbox('kubernetes', 'cluster', 'get', dangerous.id)).code).not.toBe(0);

    // Without it (or with --dangerous=false), what the cluster made stays.
    const plain = await made('spared');
    expect(await ok('kubernetes', 'cluster', 'delete', 'spared', '--dangerous=false', '--force')).toEqual({
      ok: true,
    });
    expect((await ok('volume', 'get', plain.volume)).volume.name).toBe('spared-pvc');
  });

  it('node-pool replace-node and delete-node take the node third; --skip-drain reaches the platform', async () => {
    const { id } = (
      await ok(
        'kubernetes',
        'cluster',
        'create',
        'nodes-k8s',
        '--region',
        'nyc3',
        '--count',
        '2',
        '--size',
        's-2vcpu-4gb',
      )
    ).kubernetes_cluster;
    await helper().advanceClock(10_000);
    const pool = 'nodes-k8s-default-pool';
    const nodes = async () =>
      (await ok('kubernetes', 'cluster', 'node-pool', 'get', 'nodes-k8s', pool)).node_pool;
    const [first, second] = (await nodes()).nodes.map((node: Json) => node.id);
    const stored = async (node: string) =>
      helper().store.read((world: World) =>
        world.kubernetesClusters
          .find((cluster) => cluster.id === id)
          ?.node_pools.flatMap((p) => p.nodes)
          .find((n) => n.id === node),
      );

    // Destructive: asked about, refused unconfirmed.
    const unconfirmed = await cli.sandbox(
      'kubernetes',
      'cluster',
      'node-pool',
      'replace-node',
      'nodes-k8s',
      pool,
      first,
    );
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('kubernetes-cluster-node-pool-delete-node is destructive');
    expect((await stored(first))?.deleting_ms).toBeUndefined();

    expect(
      await ok(
        'kubernetes',
        'cluster',
        'node-pool',
        'replace-node',
        'nodes-k8s',
        pool,
        first,
        '--skip-drain',
        '--force',
      ),
    ).toEqual({ ok: true });
    expect(await stored(first)).toMatchObject({ skip_drain: true, deleting_ms: expect.any(Number) });
    const replaced = await nodes();
    // Replaced: the count stays, a new node provisions in the old one's place.
    expect(replaced.count).toBe(2);
    expect(replaced.nodes.filter((node: Json) => node.status.state === 'provisioning')).toHaveLength(1);

    expect(
      await ok('k8s', 'cluster', 'node-pool', 'delete-node', 'nodes-k8s', pool, second, '--force'),
    ).toEqual({
      ok: true,
    });
    // Deleted: drained first (no --skip-drain), and the pool is a node smaller.
    expect(await stored(second)).toMatchObject({ deleting_ms: expect.any(Number) });
    expect((await stored(second))?.skip_drain).toBeUndefined();
    expect((await nodes()).count).toBe(1);

    const bad = await cli.sandbox(
      'kubernetes',
      'cluster',
      'node-pool',
      'delete-node',
      'nodes-k8s',
      pool,
      'web-1',
      '--force',
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('<node-id>: expected a UUID');
  });
});
