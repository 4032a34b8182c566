/**
 * Kubernetes clusters as the platform runs them: polled through provisioning, running, upgrading
 * and deleting on the sandbox's clock; created, listed, updated and deleted, alone or with the
 * resources they made; kept in a state file. Each rule is tried from the side that breaks it, with
 * no change to state when refused, and every answer is checked against the OpenAPI response schema
 * of its operation (`callOperation`). Node pools: kubernetes-nodes.test.ts; access, clusterlint,
 * registries and 1-Clicks: kubernetes-access.test.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLUSTER_DELETE_MS, CLUSTER_PROVISION_MS, UPGRADE_MS } from './families/kubernetes.js';
import { nodesInUse } from './routes/kubernetes-common.js';
import { startSandbox } from './server.js';
import { expectError, MISSING, type Node, pool, useKubernetesSandbox } from './testing/kubernetes.js';
import { steppingClock } from './testing/operations.js';

const { bed, sandbox, call, refusedUnchanged, advance, cluster, runningCluster, get } =
  useKubernetesSandbox();

describe('options', () => {
  it('lists versions newest first, the regions open to new resources, and node sizes of 2 GiB or more', async () => {
    const reply = await call('kubernetes_list_options');
    expect(reply.status, reply.text).toBe(200);
    const { versions, regions, sizes } = reply.body.options;
    expect(versions.map((v: { slug: string }) => v.slug)).toEqual([
      '1.33.1-do.0',
      '1.32.2-do.0',
      '1.31.1-do.0',
    ]);
    expect(versions[0]).toEqual({
      slug: '1.33.1-do.0',
      kubernetes_version: '1.33.1',
      supported_features: expect.arrayContaining(['cluster-autoscaler', 'token-authentication']),
    });
    const regionSlugs = regions.map((r: { slug: string }) => r.slug);
    expect(regionSlugs).toContain('nyc1');
    expect(regionSlugs).not.toContain('nyc2');
    const sizeSlugs = sizes.map((s: { slug: string }) => s.slug);
    expect(sizeSlugs).toContain('s-1vcpu-2gb');
    expect(sizeSlugs).not.toContain('s-1vcpu-1gb');
    expect(sizes).toContainEqual({ name: 'c-2-4GiB', slug: 'c-2' });
  });
});

describe('clusters', () => {
  it('provisions, then runs: the endpoint, address and node names appear, polled through each state', async () => {
    const made = await cluster('lifecycle', {
      version: 'latest',
      tags: ['web', 'k8s'],
      node_pools: [pool('workers', { count: 2, labels: { tier: 'web' } })],
    });
    expect(made).toMatchObject({
      name: 'lifecycle',
      region: 'nyc1',
      version: '1.33.1-do.0',
      status: { state: 'provisioning', message: 'provisioning' },
      endpoint: '',
      ipv4: '',
      tags: ['web', 'k8s', `k8s:${made.id}`],
      maintenance_policy: { start_time: '00:00', day: 'any', duration: '4h0m0s' },
      auto_upgrade: false,
      surge_upgrade: false,
      ha: false,
      registry_enabled: false,
      cluster_subnet: '10.244.0.0/16',
      service_subnet: '10.245.0.0/16',
      vpc_uuid: expect.any(String),
    });
    const [workers] = made.node_pools;
    expect(workers).toMatchObject({
      name: 'workers',
      count: 2,
      labels: { tier: 'web' },
      taints: [],
      auto_scale: false,
      min_nodes: 0,
      max_nodes: 0,
      tags: ['web', 'k8s', `k8s:${made.id}`, 'k8s:worker'],
    });
    // Provisioning nodes show no name nor droplet yet.
    expect(workers?.nodes.map((n) => [n.status.state, n.name, n.droplet_id])).toEqual([
      ['provisioning', '', ''],
      ['provisioning', '', ''],
    ]);

    await advance(CLUSTER_PROVISION_MS - 1_000);
    expect((await get(made.id)).status.state).toBe('provisioning');
    await advance(1_000);
    const running = await get(made.id);
    expect(running).toMatchObject({
      status: { state: 'running' },
      endpoint: `https://${made.id}.k8s.ondigitalocean.com`,
      ipv4: expect.stringMatching(/^198\.1[89]\.\d+\.\d+$/),
    });
    expect(running.status.message).toBeUndefined();
    const nodes: Node[] = running.node_pools[0].nodes;
    expect(nodes.map((n) => n.status.state)).toEqual(['running', 'running']);
    for (const node of nodes) {
      expect(node.name).toMatch(/^workers-[a-z0-9]{5}$/);
      expect(node.droplet_id).toMatch(/^\d+$/);
    }
    // The worker droplets are the platform's: not VMs of the account.
    const vms = await call('droplets_list', { query: '?per_page=200' });
    const vmIds = vms.body.droplets.map((d: { id: number }) => String(d.id));
    expect(vmIds).not.toContain(nodes[0]?.droplet_id);
    // The VPC is the region's default, made for it.
    const vpc = await call('vpcs_get', { params: { vpc_id: running.vpc_uuid } });
    expect(vpc.body.vpc).toMatchObject({ region: 'nyc1', default: true });
  });

  it('resolves a minor version to its latest patch', async () => {
    const made = await cluster('minor', { version: '1.32' });
    expect(made.version).toBe('1.32.2-do.0');
  });

  it('refuses a bad create, naming the field, and creates nothing', async () => {
    await cluster('taken');
    const vpc = await call('vpcs_create', {
      json: { name: 'k8s-sfo3', region: 'sfo3', ip_range: '10.90.0.0/20' },
    });
    expect(vpc.status, vpc.text).toBe(201);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: 'Bad_Name' }, /name must be lowercase/],
      [{ name: 'taken' }, /named taken already exists/],
      [{ region: 'nowhere' }, /region "nowhere" is not a region that runs Kubernetes/],
      [{ region: 'nyc2' }, /region "nyc2"/],
      [{ version: '1.20.1-do.0' }, /version "1.20.1-do.0" is not a supported Kubernetes version/],
      [{ version: undefined }, /version is required/],
      [{ node_pools: [] }, /node_pools must hold at least one node pool/],
      [{ node_pools: [pool('p', { count: 0 })] }, /node_pools\[0\]: |count must be an integer from 1 to 512/],
      [{ node_pools: [pool('p', { count: 513 })] }, /count must be an integer from 1 to 512; got 513/],
      [
        { node_pools: [pool('p', { size: 's-1vcpu-1gb' })] },
        /size "s-1vcpu-1gb" is not a Kubernetes node size/,
      ],
      [{ region: 'blr1', node_pools: [pool('p', { size: 'm-2vcpu-16gb' })] }, /not available in blr1/],
      [{ node_pools: [pool('p'), pool('p')] }, /a node pool named p already exists/],
      [{ node_pools: [pool('P')] }, /node_pools\[0\]\.name must be lowercase/],
      [
        { node_pools: [pool('p', { auto_scale: true, min_nodes: 3, max_nodes: 2, count: 2 })] },
        /min_nodes \(3\) must not be more than max_nodes \(2\)/,
      ],
      [
        { node_pools: [pool('p', { auto_scale: true, min_nodes: 2, max_nodes: 4, count: 5 })] },
        /count \(5\) must be within min_nodes and max_nodes/,
      ],
      [
        { node_pools: [pool('p', { taints: [{ key: 'a', value: 'b', effect: 'Never' }] })] },
        /effect must be/,
      ],
      [{ node_pools: [pool('p', { labels: { 'bad key!': 'x' } })] }, /labels: "bad key!"/],
      [{ maintenance_policy: { start_time: '25:00' } }, /start_time must be a time of day/],
      [{ maintenance_policy: { day: 'someday' } }, /maintenance_policy\.day/],
      [{ tags: ['no spaces'] }, /tags: tag name "no spaces"/],
      [{ vpc_uuid: MISSING }, /vpc_uuid .* is not a VPC of this account/],
      [{ vpc_uuid: vpc.body.vpc.id }, /is a VPC in sfo3; the resource is in nyc1/],
      [{ cluster_subnet: '10.0.0.1/16' }, /cluster_subnet must be an IPv4 network/],
      [
        { region: 'sfo3', vpc_uuid: vpc.body.vpc.id, service_subnet: '10.90.0.0/16' },
        /service_subnet 10.90.0.0\/16 overlaps the VPC's range/,
      ],
      [{ sso: { enabled: true } }, /sso.issuer_url is required when sso.enabled is true/],
      [{ control_plane_firewall: { enabled: true, allowed_addresses: ['nope'] } }, /allowed_addresses/],
      [{ cluster_autoscaler_configuration: { expanders: ['fastest'] } }, /expanders must be/],
      [{ ha: 'yes' }, /ha must be a boolean/],
    ];
    for (const [json, message] of cases) {
      await refusedUnchanged(
        call('kubernetes_create_cluster', {
          json: { name: 'refused', region: 'nyc1', version: '1.31', node_pools: [pool('p')], ...json },
        }),
        422,
        message,
      );
    }
  });

  it('counts worker nodes against the Droplet limit', async () => {
    // Room for one node more than is in use, whatever other tests (in any order) left running.
    await sandbox().store.write((w) => {
      w.account.droplet_limit = w.droplets.length + nodesInUse(w, Number.MAX_SAFE_INTEGER) + 1;
    });
    await refusedUnchanged(
      call('kubernetes_create_cluster', {
        json: { name: 'too-big', region: 'nyc1', version: 'latest', node_pools: [pool('p', { count: 2 })] },
      }),
      422,
      /droplet limit is \d+ and it uses \d+: 2 more worker node/,
    );
  });

  it('lists a page at a time, with links, and 404s an unknown cluster', async () => {
    for (const name of ['page-a', 'page-b', 'page-c']) await cluster(name);
    const all = await call('kubernetes_list_clusters', { query: '?per_page=200' });
    const total = all.body.meta.total as number;
    expect(total).toBeGreaterThanOrEqual(3);
    expect(all.body.kubernetes_clusters.map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining(['page-a', 'page-b', 'page-c']),
    );
    const second = await call('kubernetes_list_clusters', { query: '?per_page=2&page=2' });
    expect(second.body.kubernetes_clusters).toHaveLength(Math.min(2, total - 2));
    expect(second.body.kubernetes_clusters[0].id).toBe(all.body.kubernetes_clusters[2].id);
    expect(second.body.links.pages).toMatchObject({ first: expect.stringContaining('page=1') });
    expect(second.body.meta.total).toBe(total);
    expectError(
      await call('kubernetes_get_cluster', { params: { cluster_id: MISSING } }),
      404,
      /could not be found/,
    );
    expectError(
      await call('kubernetes_list_nodePools', { params: { cluster_id: MISSING } }),
      404,
      /could not be found/,
    );
  });

  it('updates what an update gives and keeps the rest; ha cannot be turned off', async () => {
    const made = await cluster('to-update', {
      tags: ['a'],
      maintenance_policy: { start_time: '03:00', day: 'monday' },
    });
    const updated = await call('kubernetes_update_cluster', {
      params: { cluster_id: made.id },
      json: {
        name: 'updated',
        tags: ['b', 'c'],
        maintenance_policy: { day: 'sunday' },
        auto_upgrade: true,
        surge_upgrade: true,
        control_plane_firewall: { enabled: true, allowed_addresses: ['1.2.3.4/32', '5.6.7.8'] },
      },
    });
    expect(updated.status, updated.text).toBe(202);
    expect(updated.body.kubernetes_cluster).toMatchObject({
      name: 'updated',
      tags: ['b', 'c', 'k8s', `k8s:${made.id}`],
      maintenance_policy: { start_time: '03:00', day: 'sunday', duration: '4h0m0s' },
      auto_upgrade: true,
      surge_upgrade: true,
      ha: false,
      control_plane_firewall: { enabled: true, allowed_addresses: ['1.2.3.4/32', '5.6.7.8'] },
    });
    // The pools carry the cluster's tags.
    expect(updated.body.kubernetes_cluster.node_pools[0].tags).toEqual([
      'b',
      'c',
      'k8s',
      `k8s:${made.id}`,
      'k8s:worker',
    ]);
    // Only the name given: the rest stays.
    const renamed = await call('kubernetes_update_cluster', {
      params: { cluster_id: made.id },
      json: { name: 'again' },
    });
    expect(renamed.body.kubernetes_cluster).toMatchObject({
      name: 'again',
      tags: ['b', 'c', 'k8s', `k8s:${made.id}`],
    });
    expect(await get(made.id)).toMatchObject({ name: 'again', auto_upgrade: true });

    const ha = await call('kubernetes_update_cluster', {
      params: { cluster_id: made.id },
      json: { name: 'again', ha: true },
    });
    expect(ha.body.kubernetes_cluster.ha).toBe(true);
    await advance(CLUSTER_PROVISION_MS);
    // A highly available control plane has an endpoint but no single address.
    expect(await get(made.id)).toMatchObject({ ipv4: '', endpoint: expect.stringContaining(made.id) });
    await refusedUnchanged(
      call('kubernetes_update_cluster', {
        params: { cluster_id: made.id },
        json: { name: 'again', ha: false },
      }),
      422,
      /ha cannot be disabled/,
    );
    await cluster('other-name');
    await refusedUnchanged(
      call('kubernetes_update_cluster', { params: { cluster_id: made.id }, json: { name: 'other-name' } }),
      422,
      /named other-name already exists/,
    );
    await refusedUnchanged(
      call('kubernetes_update_cluster', { params: { cluster_id: MISSING }, json: { name: 'x' } }),
      404,
      /could not be found/,
    );
  });

  it('deletes: deleting, then gone; changes are refused meanwhile', async () => {
    const made = await runningCluster('doomed');
    const deleted = await call('kubernetes_delete_cluster', { params: { cluster_id: made.id } });
    expect(deleted.status, deleted.text).toBe(204);
    const deleting = await get(made.id);
    expect(deleting.status).toEqual({ state: 'deleting', message: 'deleting' });
    expect(deleting.node_pools[0].nodes.map((n: Node) => n.status.state)).toEqual(['deleting']);
    await refusedUnchanged(
      call('kubernetes_update_cluster', { params: { cluster_id: made.id }, json: { name: 'x' } }),
      422,
      /being deleted/,
    );
    await refusedUnchanged(
      call('kubernetes_add_nodePool', { params: { cluster_id: made.id }, json: pool('more') }),
      422,
      /being deleted/,
    );
    // Deleting again changes nothing.
    expect((await call('kubernetes_delete_cluster', { params: { cluster_id: made.id } })).status).toBe(204);
    await advance(CLUSTER_DELETE_MS);
    expectError(
      await call('kubernetes_get_cluster', { params: { cluster_id: made.id } }),
      404,
      /could not be found/,
    );
    const listed = await call('kubernetes_list_clusters', { query: '?per_page=200' });
    expect(listed.body.kubernetes_clusters.map((c: { id: string }) => c.id)).not.toContain(made.id);
    expectError(
      await call('kubernetes_delete_cluster', { params: { cluster_id: made.id } }),
      404,
      /could not be found/,
    );
    // Its name is free again.
    await cluster('doomed');
  });
});

describe('upgrades', () => {
  it('offers the next versions, upgrades through upgrading, and offers nothing past the newest', async () => {
    const made = await cluster('upgrade-me');
    const offered = async () =>
      (await call('kubernetes_get_availableUpgrades', { params: { cluster_id: made.id } })).body
        .available_upgrade_versions;
    expect((await offered()).map((v: { slug: string }) => v.slug)).toEqual(['1.32.2-do.0']);
    await refusedUnchanged(
      call('kubernetes_upgrade_cluster', {
        params: { cluster_id: made.id },
        json: { version: '1.32.2-do.0' },
      }),
      422,
      /is provisioning: it can be upgraded once it is running/,
    );
    await advance(CLUSTER_PROVISION_MS);
    // One minor at a time.
    await refusedUnchanged(
      call('kubernetes_upgrade_cluster', {
        params: { cluster_id: made.id },
        json: { version: '1.33.1-do.0' },
      }),
      422,
      /cannot be upgraded to 1.33.1-do.0; it can be upgraded to 1.32.2-do.0/,
    );
    const upgrade = await call('kubernetes_upgrade_cluster', {
      params: { cluster_id: made.id },
      json: { version: '1.32.2-do.0' },
    });
    expect(upgrade.status, upgrade.text).toBe(202);
    expect(await get(made.id)).toMatchObject({ status: { state: 'upgrading' }, version: '1.31.1-do.0' });
    await refusedUnchanged(
      call('kubernetes_upgrade_cluster', {
        params: { cluster_id: made.id },
        json: { version: '1.32.2-do.0' },
      }),
      422,
      /is upgrading/,
    );
    await advance(UPGRADE_MS);
    expect(await get(made.id)).toMatchObject({ status: { state: 'running' }, version: '1.32.2-do.0' });
    expect((await offered()).map((v: { slug: string }) => v.slug)).toEqual(['1.33.1-do.0']);
    await call('kubernetes_upgrade_cluster', {
      params: { cluster_id: made.id },
      json: { version: '1.33.1-do.0' },
    });
    await advance(UPGRADE_MS);
    expect((await get(made.id)).version).toBe('1.33.1-do.0');
    expect(await offered()).toBeNull();
  });
});

describe('deleting with associated resources', () => {
  async function withResources(name: string) {
    const made = await runningCluster(name);
    const tag = `k8s:${made.id}`;
    const volume = await call('volumes_create', {
      json: { name: `pvc-${name}`, region: 'nyc1', size_gigabytes: 5, tags: [tag] },
    });
    expect(volume.status, volume.text).toBe(201);
    const snapshot = await call('volumeSnapshots_create', {
      params: { volume_id: volume.body.volume.id },
      json: { name: `snap-${name}`, tags: [tag] },
    });
    expect(snapshot.status, snapshot.text).toBe(201);
    const lb = await call('loadBalancers_create', {
      json: {
        name: `lb-${name}`,
        region: 'nyc1',
        tag,
        forwarding_rules: [
          { entry_protocol: 'http', entry_port: 80, target_protocol: 'http', target_port: 30080 },
        ],
      },
    });
    expect(lb.status, lb.text).toBe(202);
    const unrelated = await call('volumes_create', {
      json: { name: `other-${name}`, region: 'nyc1', size_gigabytes: 5 },
    });
    return {
      id: made.id,
      volume: volume.body.volume.id as string,
      snapshot: snapshot.body.snapshot.id as string,
      lb: lb.body.load_balancer.id as string,
      unrelated: unrelated.body.volume.id as string,
    };
  }

  it('lists what the cluster made, and deletes only what is chosen', async () => {
    const made = await withResources('selective');
    const listed = await call('kubernetes_list_associatedResources', { params: { cluster_id: made.id } });
    expect(listed.body).toEqual({
      volumes: [{ id: made.volume, name: 'pvc-selective' }],
      volume_snapshots: [{ id: made.snapshot, name: 'snap-selective' }],
      load_balancers: [{ id: made.lb, name: 'lb-selective' }],
    });
    await refusedUnchanged(
      call('kubernetes_destroy_associatedResourcesSelective', {
        params: { cluster_id: made.id },
        json: { volumes: [made.unrelated] },
      }),
      422,
      /is not a resource associated with cluster/,
    );
    const gone = await call('kubernetes_destroy_associatedResourcesSelective', {
      params: { cluster_id: made.id },
      json: { volumes: [made.volume], load_balancers: [made.lb] },
    });
    expect(gone.status, gone.text).toBe(204);
    expect((await get(made.id)).status.state).toBe('deleting');
    expect((await call('volumes_get', { params: { volume_id: made.volume } })).status).toBe(404);
    expect((await call('loadBalancers_get', { params: { lb_id: made.lb } })).status).toBe(404);
    // The snapshot was not chosen: it stays, as does what the cluster never made.
    expect((await call('volumeSnapshots_get_byId', { params: { snapshot_id: made.snapshot } })).status).toBe(
      200,
    );
    expect((await call('volumes_get', { params: { volume_id: made.unrelated } })).status).toBe(200);
  });

  it('deletes everything the cluster made with the dangerous delete, and nothing with a plain one', async () => {
    const plain = await withResources('plain');
    expect((await call('kubernetes_delete_cluster', { params: { cluster_id: plain.id } })).status).toBe(204);
    expect((await call('volumes_get', { params: { volume_id: plain.volume } })).status).toBe(200);

    const made = await withResources('dangerous');
    const gone = await call('kubernetes_destroy_associatedResourcesDangerous', {
      params: { cluster_id: made.id },
    });
    expect(gone.status, gone.text).toBe(204);
    expect((await call('volumes_get', { params: { volume_id: made.volume } })).status).toBe(404);
    expect((await call('volumeSnapshots_get_byId', { params: { snapshot_id: made.snapshot } })).status).toBe(
      404,
    );
    expect((await call('loadBalancers_get', { params: { lb_id: made.lb } })).status).toBe(404);
    expect((await call('volumes_get', { params: { volume_id: made.unrelated } })).status).toBe(200);
    await advance(CLUSTER_DELETE_MS);
    expect((await call('kubernetes_get_cluster', { params: { cluster_id: made.id } })).status).toBe(404);
  });
});

describe('the state file', () => {
  it('keeps clusters across a restart, and their progress with the clock', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'cloudcall-kubernetes-')), 'state.json');
    const inMemory = bed.sandbox;
    bed.sandbox = await startSandbox({ statePath, now: steppingClock() });
    try {
      const made = await cluster('kept', { node_pools: [pool('kept', { count: 2 })] });
      const before = await get(made.id);
      expect(before.status.state).toBe('provisioning');
      await bed.sandbox.close();
      bed.sandbox = await startSandbox({ statePath, now: steppingClock() });
      expect(await get(made.id)).toMatchObject({ name: 'kept', status: { state: 'provisioning' } });
      await advance(CLUSTER_PROVISION_MS);
      const after = await get(made.id);
      expect(after.status.state).toBe('running');
      expect(after.node_pools[0].nodes.map((n: Node) => n.id)).toEqual(
        before.node_pools[0].nodes.map((n: Node) => n.id),
      );
    } finally {
      await bed.sandbox?.close();
      bed.sandbox = inMemory;
    }
  });
});
