/**
 * Where new resources land, and what a VM keeps from its create request. A VM, a load balancer or
 * a database cluster asked into a VPC joins that VPC (shown on the resource and in the VPC's
 * members); an unknown VPC, or one in another region, is refused with a 422 and changes nothing,
 * never a silent fall back to the region's default. Driven over HTTP as real clients send it;
 * every answer is checked against the OpenAPI description.
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshPublicKey } from './fixtures.js';
import { type Sandbox, startSandbox } from './server.js';
import { type CallOptions, callOperation, type Reply } from './testing/operations.js';

let sandbox: Sandbox;

const call = (operationId: string, options?: CallOptions) => callOperation(sandbox.url, operationId, options);

/** A refusal that leaves the world exactly as it was. */
async function refused(send: () => Promise<Reply>, message: RegExp): Promise<void> {
  const before = await sandbox.store.read((world) => JSON.stringify(world));
  const reply = await send();
  expect(reply.status, JSON.stringify(reply.body)).toBe(422);
  expect(reply.body).toMatchObject({ id: 'unprocessable_entity', message: expect.stringMatching(message) });
  expect(await sandbox.store.read((world) => JSON.stringify(world))).toBe(before);
}

const UBUNTU = 161928327;
const short = () => randomUUID().slice(0, 8);

async function createVpc(region: string) {
  const reply = await call('vpcs_create', { json: { name: `vpc-${short()}`, region } });
  expect(reply.status).toBe(201);
  return reply.body.vpc as { id: string; ip_range: string; region: string };
}

async function members(vpcId: string, type?: string): Promise<string[]> {
  const reply = await call('vpcs_list_members', {
    params: { vpc_id: vpcId },
    query: type ? `?resource_type=${type}` : '',
  });
  expect(reply.status).toBe(200);
  return reply.body.members.map((m: { urn: string }) => m.urn);
}

const dropletBody = (extra: Record<string, unknown> = {}) => ({
  name: `vm-${short()}`,
  region: 'nyc3',
  size: 's-1vcpu-1gb',
  image: UBUNTU,
  ...extra,
});

/** Whether an IPv4 address lies in a CIDR block. */
function inRange(ip: string, cidr: string): boolean {
  const [base = '', bits = '32'] = cidr.split('/');
  const toInt = (a: string) => a.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
  const size = 2 ** (32 - Number(bits));
  return toInt(ip) >= toInt(base) && toInt(ip) < toInt(base) + size;
}

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

describe('droplets_create keeps what it is given', () => {
  it('SSH keys by id and fingerprint, tags (filterable), user data (kept, not shown), IPv6, the agent choice', async () => {
    const publicKey = sshPublicKey();
    const key = await call('sshKeys_create', { json: { name: `key-${short()}`, public_key: publicKey } });
    expect(key.status).toBe(201);
    const fingerprint = createHash('md5')
      .update(Buffer.from(publicKey.split(' ')[1] ?? '', 'base64'))
      .digest('hex')
      .replace(/(..)(?!$)/g, '$1:');
    expect(key.body.ssh_key.fingerprint).toBe(fingerprint);
    const tag = `team:${short()}`;
    const userData = '#cloud-config\nruncmd:\n  - touch /tmp/booted\n';
    const created = await call('droplets_create', {
      json: dropletBody({
        ssh_keys: [key.body.ssh_key.id, fingerprint],
        tags: [tag, 'web'],
        user_data: userData,
        ipv6: true,
        with_droplet_agent: false,
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const droplet = created.body.droplet;
    expect(droplet.tags).toEqual([tag, 'web']);
    expect(droplet.features).toContain('ipv6');
    expect(droplet.networks.v6).toEqual([expect.objectContaining({ type: 'public', netmask: 64 })]);
    expect(JSON.stringify(droplet)).not.toContain('touch /tmp/booted');
    const stored = await sandbox.store.read((world) => world.droplets.find((d) => d.id === droplet.id));
    expect(stored).toMatchObject({
      _user_data: userData,
      _ssh_key_ids: [key.body.ssh_key.id],
      _with_droplet_agent: false,
    });

    await call('droplets_create', { json: dropletBody({ tags: ['web'] }) });
    const tagged = await call('droplets_list', { query: `?tag_name=${encodeURIComponent(tag)}` });
    expect(tagged.status).toBe(200);
    expect(tagged.body.droplets.map((d: { id: number }) => d.id)).toEqual([droplet.id]);
  });

  it('refuses an unknown SSH key, user data over 64 KiB and a non-boolean agent choice', async () => {
    await refused(
      () => call('droplets_create', { json: dropletBody({ ssh_keys: [987654321] }) }),
      /ssh_keys 987654321 are invalid key identifiers/,
    );
    await refused(
      () =>
        call('droplets_create', {
          json: dropletBody({ ssh_keys: ['00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff'] }),
        }),
      /ssh_keys "00:11:.*:ff" are invalid key identifiers/,
    );
    await refused(
      () => call('droplets_create', { json: dropletBody({ user_data: 'é'.repeat(40_000) }) }),
      /user_data is too long: at most 65536 bytes \(got 80000\)/,
    );
    await refused(
      () => call('droplets_create', { json: dropletBody({ with_droplet_agent: 'yes' }) }),
      /with_droplet_agent must be a boolean/,
    );
  });
});

describe('the VPC asked for', () => {
  it('droplets_create: joins the named VPC (vpc_uuid, private address in its range, a member of it)', async () => {
    await createVpc('nyc1');
    const vpc = await createVpc('nyc1');
    expect((await call('vpcs_get', { params: { vpc_id: vpc.id } })).body.vpc.default).toBe(false);
    const reply = await call('droplets_create', { json: dropletBody({ region: 'nyc1', vpc_uuid: vpc.id }) });
    expect(reply.status).toBe(202);
    const droplet = reply.body.droplet;
    expect(droplet.vpc_uuid).toBe(vpc.id);
    const privateV4 = droplet.networks.v4.find((n: { type: string }) => n.type === 'private');
    expect(inRange(privateV4.ip_address, vpc.ip_range), `${privateV4.ip_address} in ${vpc.ip_range}`).toBe(
      true,
    );
    expect(await members(vpc.id, 'droplet')).toEqual([`do:droplet:${droplet.id}`]);
    const got = await call('droplets_get', { params: { droplet_id: droplet.id } });
    expect(got.body.droplet.vpc_uuid).toBe(vpc.id);
  });

  it('droplets_create: an unknown VPC or one in another region is refused, not swapped for the default', async () => {
    const elsewhere = await createVpc('sfo3');
    await refused(
      () => call('droplets_create', { json: dropletBody({ vpc_uuid: randomUUID() }) }),
      /vpc_uuid .* is not a VPC of this account/,
    );
    await refused(
      () => call('droplets_create', { json: dropletBody({ vpc_uuid: elsewhere.id }) }),
      /vpc_uuid .* is a VPC in sfo3; the resource is in nyc3/,
    );
  });

  it('loadBalancers_create: shows the named VPC and is its member; PUT keeps it, refuses another', async () => {
    // The first VPC of a region is its default: the one asked for is another.
    const regionDefault = await createVpc('ams3');
    const vpc = await createVpc('ams3');
    const other = await createVpc('ams3');
    const far = await createVpc('lon1');
    const rule = { entry_protocol: 'http', entry_port: 80, target_protocol: 'http', target_port: 8080 };
    const body = { name: `lb-${short()}`, region: 'ams3', forwarding_rules: [rule], droplet_ids: [] };
    await refused(
      () => call('loadBalancers_create', { json: { ...body, vpc_uuid: randomUUID() } }),
      /vpc_uuid .* is not a VPC of this account/,
    );
    await refused(
      () => call('loadBalancers_create', { json: { ...body, vpc_uuid: far.id } }),
      /is a VPC in lon1; the resource is in ams3/,
    );
    const created = await call('loadBalancers_create', { json: { ...body, vpc_uuid: vpc.id } });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const lb = created.body.load_balancer;
    expect(lb.vpc_uuid).toBe(vpc.id);
    expect(await members(vpc.id)).toEqual([`do:loadbalancer:${lb.id}`]);
    expect(await members(regionDefault.id)).toEqual([]);
    const got = await call('loadBalancers_get', { params: { lb_id: lb.id } });
    expect(got.body.load_balancer.vpc_uuid).toBe(vpc.id);
    // Clients PUT back the object they read, VPC included.
    const kept = await call('loadBalancers_update', {
      params: { lb_id: lb.id },
      json: { ...body, vpc_uuid: vpc.id },
    });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.load_balancer.vpc_uuid).toBe(vpc.id);
    await refused(
      () => call('loadBalancers_update', { params: { lb_id: lb.id }, json: { ...body, vpc_uuid: other.id } }),
      /vpc_uuid cannot change/,
    );
  });

  it('databases_create_cluster: private_network_uuid names an existing VPC of the region; shown and a member', async () => {
    const fraDefault = await createVpc('fra1');
    const vpc = await createVpc('fra1');
    const elsewhere = await createVpc('sgp1');
    const body = {
      name: `pg-${short()}`,
      engine: 'pg',
      version: '16',
      region: 'fra1',
      size: 'db-s-1vcpu-1gb',
      num_nodes: 1,
    };
    await refused(
      () => call('databases_create_cluster', { json: { ...body, private_network_uuid: randomUUID() } }),
      /private_network_uuid .* is not a VPC of this account/,
    );
    await refused(
      () => call('databases_create_cluster', { json: { ...body, private_network_uuid: elsewhere.id } }),
      /private_network_uuid .* is a VPC in sgp1; the resource is in fra1/,
    );
    const created = await call('databases_create_cluster', {
      json: { ...body, private_network_uuid: vpc.id },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const cluster = created.body.database;
    expect(cluster.private_network_uuid).toBe(vpc.id);
    const got = await call('databases_get_cluster', { params: { database_cluster_uuid: cluster.id } });
    expect(got.body.database.private_network_uuid).toBe(vpc.id);
    expect(await members(vpc.id, 'dbaas')).toEqual([`do:dbaas:${cluster.id}`]);

    expect(await members(fraDefault.id)).toEqual([]);

    // Without one, the cluster joins the region's default VPC, an existing one.
    const plain = await call('databases_create_cluster', { json: { ...body, name: `pg-${short()}` } });
    expect(plain.status).toBe(201);
    expect((await call('vpcs_get', { params: { vpc_id: fraDefault.id } })).body.vpc.default).toBe(true);
    expect(plain.body.database.private_network_uuid).toBe(fraDefault.id);
    expect(await members(fraDefault.id, 'dbaas')).toContain(`do:dbaas:${plain.body.database.id}`);
  });
});
