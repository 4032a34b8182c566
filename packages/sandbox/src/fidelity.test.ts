/**
 * What the platform's own clients send and the sandbox used to answer otherwise (issue 25): load
 * balancer settings kept, empty target lists, empty strings and nulls read as absent, ids sent as
 * strings, and two routes clients call that no tool does. Every answer is checked against the
 * OpenAPI response schema of its operation (`callOperation`).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from './server.js';
import { type CallOptions, callOperation, type Reply } from './testing/operations.js';

const cert = JSON.parse(
  readFileSync(new URL('../test-fixtures/networking-certificate.json', import.meta.url), 'utf8'),
) as { privateKey: string; leafCertificate: string };

const REGION = 'nyc3';
let sandbox: Sandbox;
let vmId = 0;

const call = (operationId: string, options?: CallOptions) => callOperation(sandbox.url, operationId, options);

function expectError(reply: Reply, status: number, mentions: RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual({
    id: expect.any(String),
    message: expect.stringMatching(mentions),
    request_id: expect.any(String),
  });
}

beforeAll(async () => {
  sandbox = await startSandbox();
  const created = await call('droplets_create', {
    json: {
      name: 'fidelity-1',
      region: REGION,
      size: 's-1vcpu-1gb',
      image: 'ubuntu-24-04-x64',
      tags: ['web'],
    },
  });
  expect(created.status, created.text).toBe(202);
  vmId = created.body.droplet.id;
});
afterAll(async () => {
  await sandbox.close();
});

describe('load balancer settings', () => {
  const rules = [{ entry_protocol: 'http', entry_port: 80, target_protocol: 'http', target_port: 8080 }];
  const settings = {
    health_check: {
      protocol: 'http',
      port: 8080,
      path: '/healthz',
      check_interval_seconds: 15,
      response_timeout_seconds: 4,
      healthy_threshold: 2,
      unhealthy_threshold: 6,
    },
    sticky_sessions: { type: 'cookies', cookie_name: 'SRV', cookie_ttl_seconds: 600 },
    redirect_http_to_https: true,
    enable_proxy_protocol: true,
    enable_backend_keepalive: true,
    http_idle_timeout_seconds: 120,
  };

  it('keeps what a create sets and answers it on every read, through an update that repeats it', async () => {
    const created = await call('loadBalancers_create', {
      json: { name: 'lb-kept', region: REGION, forwarding_rules: rules, ...settings },
    });
    expect(created.status, created.text).toBe(202);
    expect(created.body.load_balancer).toMatchObject(settings);
    const id = created.body.load_balancer.id;
    const got = await call('loadBalancers_get', { params: { lb_id: id } });
    expect(got.body.load_balancer).toMatchObject(settings);
    // godo's AsRequest: the whole balancer is sent back with one setting changed.
    const updated = await call('loadBalancers_update', {
      params: { lb_id: id },
      json: { ...got.body.load_balancer, region: REGION, http_idle_timeout_seconds: 300 },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.load_balancer).toMatchObject({ ...settings, http_idle_timeout_seconds: 300 });
    // An update that leaves the settings out keeps them (Terraform sends only what is set).
    const partial = await call('loadBalancers_update', {
      params: { lb_id: id },
      json: { name: 'lb-kept', region: REGION, forwarding_rules: rules },
    });
    expect(partial.body.load_balancer).toMatchObject({ ...settings, http_idle_timeout_seconds: 300 });
  });

  it("answers the platform's defaults when none are given, and fills a partial health check", async () => {
    const created = await call('loadBalancers_create', {
      json: { name: 'lb-defaults', region: REGION, forwarding_rules: rules },
    });
    expect(created.body.load_balancer).toMatchObject({
      health_check: { protocol: 'http', port: 8080, path: '/', check_interval_seconds: 10 },
      sticky_sessions: { type: 'none' },
      redirect_http_to_https: false,
      enable_proxy_protocol: false,
      enable_backend_keepalive: false,
      http_idle_timeout_seconds: 60,
    });
    const partial = await call('loadBalancers_create', {
      json: { name: 'lb-partial', region: REGION, forwarding_rules: rules, health_check: { path: '/up' } },
    });
    expect(partial.body.load_balancer.health_check).toEqual({
      protocol: 'http',
      port: 8080,
      path: '/up',
      check_interval_seconds: 10,
      response_timeout_seconds: 5,
      healthy_threshold: 3,
      unhealthy_threshold: 5,
    });
  });

  it('refuses settings out of range, naming the field, and creates nothing', async () => {
    const before = (await call('loadBalancers_list', { query: '?per_page=200' })).body.load_balancers.length;
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ http_idle_timeout_seconds: 5 }, /http_idle_timeout_seconds must be an integer from 30 to 600/],
      [{ health_check: { protocol: 'udp' } }, /health_check\.protocol/],
      [{ health_check: { healthy_threshold: 20 } }, /health_check\.healthy_threshold/],
      [{ sticky_sessions: { type: 'cookies' } }, /sticky_sessions\.cookie_name/],
      [{ redirect_http_to_https: 'yes' }, /redirect_http_to_https must be a boolean/],
    ];
    for (const [extra, message] of bad) {
      const reply = await call('loadBalancers_create', {
        json: { name: 'lb-bad', region: REGION, forwarding_rules: rules, ...extra },
      });
      expectError(reply, 422, message);
    }
    expect((await call('loadBalancers_list', { query: '?per_page=200' })).body.load_balancers).toHaveLength(
      before,
    );
  });
});

describe('firewalls', () => {
  it('accepts empty target lists beside addresses, and lists the firewalls of a VM', async () => {
    // A VM of its own, with a tag of its own: other tests' firewalls (run before or after, the
    // suite is shuffled in CI) apply to the shared VM.
    const own = await call('droplets_create', {
      json: {
        name: 'fidelity-fw',
        region: REGION,
        size: 's-1vcpu-1gb',
        image: 'ubuntu-24-04-x64',
        tags: ['fw-web'],
      },
    });
    expect(own.status, own.text).toBe(202);
    const vmId = own.body.droplet.id as number;
    const created = await call('firewalls_create', {
      json: {
        name: 'fw-empty-lists',
        droplet_ids: [vmId],
        tags: [],
        inbound_rules: [
          {
            protocol: 'tcp',
            ports: '22',
            sources: { addresses: ['0.0.0.0/0'], droplet_ids: [], tags: [], load_balancer_uids: [] },
          },
        ],
        outbound_rules: [
          { protocol: 'tcp', ports: 'all', destinations: { addresses: ['0.0.0.0/0'], droplet_ids: [] } },
        ],
      },
    });
    expect(created.status, created.text).toBe(202);
    expect(created.body.firewall.inbound_rules[0].sources).toEqual({ addresses: ['0.0.0.0/0'] });
    // By tag: applies to the VM through its tag `web`.
    const byTag = await call('firewalls_create', {
      json: {
        name: 'fw-by-tag',
        tags: ['fw-web'],
        inbound_rules: [{ protocol: 'tcp', ports: '80', sources: { addresses: ['0.0.0.0/0'] } }],
      },
    });
    const other = await call('firewalls_create', {
      json: {
        name: 'fw-other',
        tags: ['db'],
        inbound_rules: [{ protocol: 'tcp', ports: '5432', sources: { addresses: ['10.0.0.0/8'] } }],
      },
    });
    expect(other.status).toBe(202);
    const listed = await call('droplets_list_firewalls', { params: { droplet_id: vmId } });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.firewalls.map((fw: { id: string }) => fw.id).sort()).toEqual(
      [created.body.firewall.id, byTag.body.firewall.id].sort(),
    );
    expect(listed.body.meta.total).toBe(2);
    expect((await call('droplets_list_firewalls', { params: { droplet_id: 999_999_999 } })).status).toBe(404);
  });

  it('still refuses a rule whose target names nothing', async () => {
    const reply = await call('firewalls_create', {
      json: {
        name: 'fw-nothing',
        inbound_rules: [{ protocol: 'tcp', ports: '22', sources: { droplet_ids: [], tags: [] } }],
      },
    });
    expectError(reply, 422, /must name at least one address/);
  });
});

describe('reserved IPs', () => {
  it('takes an empty region beside droplet_id as an assignment, with the id as a number or a string', async () => {
    const asNumber = await call('reservedIPs_create', { json: { region: '', droplet_id: vmId } });
    expect(asNumber.status, asNumber.text).toBe(202);
    expect(asNumber.body.reserved_ip.droplet.id).toBe(vmId);
    await call('reservedIPs_delete', { params: { reserved_ip: asNumber.body.reserved_ip.ip } });
    const asString = await call('floatingIPs_create', { json: { region: '', droplet_id: String(vmId) } });
    expect(asString.status, asString.text).toBe(202);
    expect(asString.body.floating_ip.droplet.id).toBe(vmId);
    // Assigning by action with the id as a string.
    const free = await call('reservedIPs_create', { json: { region: REGION } });
    const ip = free.body.reserved_ip.ip;
    await call('reservedIPs_delete', { params: { reserved_ip: asString.body.floating_ip.ip } });
    const assigned = await call('reservedIPsActions_post', {
      params: { reserved_ip: ip },
      json: { type: 'assign', droplet_id: String(vmId) },
    });
    expect(assigned.status, assigned.text).toBe(201);
    expect((await call('reservedIPs_get', { params: { reserved_ip: ip } })).body.reserved_ip.droplet.id).toBe(
      vmId,
    );
  });

  it('refuses two present values, and an id that is not numeric with a type error', async () => {
    expectError(
      await call('reservedIPs_create', { json: { region: REGION, droplet_id: vmId } }),
      422,
      /give region or droplet_id, not both/,
    );
    for (const bad of ['web-1', '12a', '-4', 1.5, true]) {
      expectError(
        await call('reservedIPs_create', { json: { droplet_id: bad } }),
        422,
        /droplet_id must be a numeric id \(a number, or its digits in a string\); got/,
      );
    }
    expectError(
      await call('firewalls_create', {
        json: {
          name: 'fw-bad-id',
          inbound_rules: [{ protocol: 'tcp', ports: '22', sources: { droplet_ids: ['web'] } }],
        },
      }),
      422,
      /droplet_ids item must be a numeric id/,
    );
  });

  it('takes droplet ids as strings in firewalls and load balancers', async () => {
    const fw = await call('firewalls_create', {
      json: {
        name: 'fw-string-ids',
        droplet_ids: [String(vmId)],
        inbound_rules: [{ protocol: 'tcp', ports: '22', sources: { droplet_ids: [String(vmId)] } }],
      },
    });
    expect(fw.status, fw.text).toBe(202);
    expect(fw.body.firewall.droplet_ids).toEqual([vmId]);
    expect(fw.body.firewall.inbound_rules[0].sources.droplet_ids).toEqual([vmId]);
    const lb = await call('loadBalancers_create', {
      json: {
        name: 'lb-string-ids',
        region: REGION,
        droplet_ids: [String(vmId)],
        forwarding_rules: [
          { entry_protocol: 'http', entry_port: 80, target_protocol: 'http', target_port: 80 },
        ],
      },
    });
    expect(lb.status, lb.text).toBe(202);
    expect(lb.body.load_balancer.droplet_ids).toEqual([vmId]);
  });
});

describe('certificates', () => {
  it('takes "certificate_chain": null as absent', async () => {
    const reply = await call('certificates_create', {
      json: {
        name: 'chain-null',
        type: 'custom',
        private_key: cert.privateKey,
        leaf_certificate: cert.leafCertificate,
        certificate_chain: null,
      },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.certificate).toMatchObject({ name: 'chain-null', type: 'custom' });
  });
});

describe('database users', () => {
  it('resets a user password (and, on MySQL, its auth plugin)', async () => {
    const cluster = await call('databases_create_cluster', {
      json: { name: 'fidelity-mysql', engine: 'mysql', region: REGION, size: 'db-s-1vcpu-1gb', num_nodes: 1 },
    });
    expect(cluster.status, cluster.text).toBe(201);
    const uuid = cluster.body.database.id;
    const user = await call('databases_add_user', {
      params: { database_cluster_uuid: uuid },
      json: { name: 'app' },
    });
    const before = user.body.user.password;
    const reset = await call('databases_reset_auth', {
      params: { database_cluster_uuid: uuid, username: 'app' },
      json: { mysql_settings: { auth_plugin: 'mysql_native_password' } },
    });
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.user).toMatchObject({
      name: 'app',
      mysql_settings: { auth_plugin: 'mysql_native_password' },
    });
    expect(reset.body.user.password).not.toBe(before);
    const got = await call('databases_get_user', {
      params: { database_cluster_uuid: uuid, username: 'app' },
    });
    expect(got.body.user.password).toBe(reset.body.user.password);
    expect(
      (
        await call('databases_reset_auth', {
          params: { database_cluster_uuid: uuid, username: 'nobody' },
          json: {},
        })
      ).status,
    ).toBe(404);
  });
});
