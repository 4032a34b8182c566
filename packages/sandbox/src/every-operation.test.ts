/**
 * Every operation of the API description (the 659 of the operation model, which packages/api
 * makes from the same subset), sent to the sandbox over raw HTTP as a client would send it: its
 * path filled with the keys of items created first (create, then read, change, delete), its body
 * and required query built from its schemas. Each is answered (never the 404 of a path the sandbox
 * does not emulate, nor a 405), every answer is valid against the description for its status, and
 * each operation the generic layer answers succeeds. The 15 operations served at another host
 * (inference) are not the sandbox's.
 */
import {
  type JsonSchema,
  responseContentTypes,
  type SubsetOperation,
  subset,
  validateResponse,
} from '@cloudcall/openapi-subset';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deref, propertiesOf, sample } from '../scripts/generate.mjs';
import { sshPublicKey } from './fixtures.js';
import { genericData } from './generic/data.js';
import { sandboxRouter } from './routes/index.js';
import { type Sandbox, startSandbox } from './server.js';
import { steppingClock } from './testing/operations.js';

type Body = Record<string, unknown>;

const shape = (path: string) => path.replace(/\{\w+\}/g, '{}');
const depth = (op: SubsetOperation) => op.path.split('/').length;

/**
 * Bodies the hand models accept, the `n`th of each kind: for the resources that operations of the
 * generic layer live under (a database's log sinks, a VM's associated resources), and so that the
 * hand models' own operations reach real resources too.
 */
const FIXTURES: Record<string, (n: number, keys: Map<string, string[]>) => Body> = {
  sshKeys_create: (n) => ({ name: `walk-${n}`, public_key: sshPublicKey() }),
  tags_create: (n) => ({ name: `walk-${n}` }),
  projects_create: (n) => ({ name: `walk-${n}`, purpose: 'Walk' }),
  volumes_create: (n) => ({ name: `walk-${n}`, region: 'nyc3', size_gigabytes: 10 }),
  reservedIPs_create: () => ({ region: 'nyc3' }),
  firewalls_create: (n) => ({
    name: `walk-${n}`,
    inbound_rules: [{ protocol: 'tcp', ports: '22', sources: { addresses: ['0.0.0.0/0'] } }],
  }),
  loadBalancers_create: (n) => ({
    name: `walk-${n}`,
    region: 'nyc3',
    forwarding_rules: [{ entry_protocol: 'http', entry_port: 80, target_protocol: 'http', target_port: 80 }],
  }),
  droplets_create: (n) => ({
    name: `walk-${n}`,
    region: 'nyc3',
    size: 's-1vcpu-1gb',
    image: 'ubuntu-24-04-x64',
  }),
  databases_create_cluster: (n) => ({
    name: `walk-${n}`,
    engine: 'pg',
    version: '16',
    region: 'nyc3',
    size: 'db-s-1vcpu-1gb',
    num_nodes: 1,
  }),
  databases_create_logsink: (n) => ({
    sink_name: `walk-${n}`,
    sink_type: 'rsyslog',
    config: { server: '192.0.2.10', port: 514, tls: false, format: 'rfc5424' },
  }),
  databases_update_logsink: () => ({
    config: { server: '192.0.2.11', port: 6514, tls: true, format: 'rfc3164' },
  }),
  databases_update_cluster_metrics_credentials: () => ({
    credentials: { basic_auth_username: 'walk', basic_auth_password: 'walk-password' },
  }),
  domains_create: (n) => ({ name: `walk-${n}.example.com` }),
  domains_create_record: (n) => ({ type: 'A', name: `www${n}`, data: '192.0.2.1', ttl: 1800 }),
  vpcs_create: (n) => ({ name: `walk-${n}`, region: 'nyc3', ip_range: `10.${200 + n}.0.0/20` }),
  vpcPeerings_create: (n, keys) => ({ name: `walk-${n}`, vpc_ids: keys.get('/v2/vpcs/{}')?.slice(0, 2) }),
  byoipPrefixes_create: (n) => ({ prefix: `203.0.${112 + n}.0/24`, region: 'nyc3', signature: 'walk' }),
  registries_create: (n) => ({ name: `walk-${n}`, subscription_tier_slug: 'professional', region: 'nyc3' }),
  spacesKey_create: (n) => ({ name: `walk-${n}`, grants: [{ bucket: `walk-${n}`, permission: 'read' }] }),
  cdn_create_endpoint: (n) => ({ origin: `walk-${n}.nyc3.digitaloceanspaces.com`, ttl: 3600 }),
  monitoring_create_alertPolicy: (n, keys) => ({
    type: 'v1/insights/droplet/cpu',
    description: `walk-${n}`,
    compare: 'GreaterThan',
    value: 80,
    window: '5m',
    entities: keys.get('/v2/droplets/{}')?.slice(0, 1) ?? [],
    tags: [],
    alerts: { email: ['walk@example.com'], slack: [] },
    enabled: true,
  }),
  monitoring_create_destination: (n) => ({
    name: `walk-${n}`,
    type: 'opensearch_ext',
    config: { endpoint: `walk-${n}.example.com`, credentials: { username: 'walk', password: 'walk' } },
  }),
  monitoring_create_sink: (n, keys) => ({
    destination_uuid: keys.get('/v2/monitoring/sinks/destinations/{}')?.[0],
    resources: [{ urn: `do:kubernetes:00000000-0000-4000-8000-00000000000${n}`, name: `walk-${n}` }],
  }),
  uptime_create_check: (n) => ({
    name: `walk-${n}`,
    type: 'https',
    target: `https://walk-${n}.example.com/`,
    regions: ['us_east', 'eu_west'],
    enabled: true,
  }),
  uptime_create_alert: (n) => ({
    name: `walk-${n}`,
    type: 'latency',
    threshold: 300,
    comparison: 'greater_than',
    notifications: { email: ['walk@example.com'], slack: [] },
    period: '2m',
  }),
  apps_create: (n) => ({ spec: appSpec(`walk-${n}`) }),
  // After apps_create: the first app's path, its own name.
  apps_update: () => ({ spec: appSpec('walk-1') }),
  apps_validate_appSpec: (n) => ({ spec: appSpec(`walk-proposed-${n}`) }),
  apps_list_metrics_bandwidth_daily: (_, keys) => ({ app_ids: keys.get('/v2/apps/{}') }),
  kubernetes_create_cluster: (n) => ({
    name: `walk-${n}`,
    region: 'nyc3',
    version: 'latest',
    node_pools: [{ name: `walk-${n}`, size: 's-1vcpu-2gb', count: 1 }],
  }),
  kubernetes_add_nodePool: (n) => ({ name: `walk-extra-${n}`, size: 's-1vcpu-2gb', count: 1 }),
  functions_create_namespace: (n) => ({ label: `walk-${n}`, region: 'nyc1' }),
  nfs_create: (n, keys) => ({
    name: `walk-${n}`,
    size_gib: 50,
    region: 'nyc3',
    vpc_ids: keys.get('/v2/vpcs/{}')?.slice(0, 1),
  }),
  vpcnatgateways_create: (n, keys) => ({
    name: `walk-${n}`,
    type: 'PUBLIC',
    region: 'nyc3',
    size: 1,
    vpcs: [{ vpc_uuid: keys.get('/v2/vpcs/{}')?.[0] }],
  }),
  partnerAttachments_create: (n, keys) => ({
    name: `walk-${n}`,
    connection_bandwidth_in_mbps: 1000,
    region: 'nyc',
    naas_provider: 'MEGAPORT',
    vpc_ids: keys.get('/v2/vpcs/{}')?.slice(0, 1),
  }),
  autoscalepools_create: (n) => ({
    name: `walk-${n}`,
    config: { target_number_instances: 1 },
    droplet_template: { region: 'nyc3', size: 's-1vcpu-1gb', image: 'ubuntu-24-04-x64', ssh_keys: [] },
  }),
};

/** An app spec App Platform takes: a service, a job and an alert, so that their operations reach them. */
function appSpec(name: string): Body {
  return {
    name,
    services: [{ name: 'web', github: { repo: 'digitalocean/sample-golang', branch: 'main' } }],
    jobs: [{ name: 'migrate', kind: 'PRE_DEPLOY', github: { repo: 'digitalocean/sample-golang' } }],
    alerts: [{ rule: 'DEPLOYMENT_FAILED' }],
  };
}

/** A value a parameter's schema takes, as text. */
function plausible(schema: JsonSchema | undefined): string {
  const value = sample(schema ?? {});
  return value === '' || value === null || typeof value === 'object' ? 'walk' : String(value);
}

/** A body from the operation's schema: its required fields, and names that differ each time. */
function bodyOf(op: SubsetOperation, n: number): Body | undefined {
  if (!op.request) return undefined;
  const body = sample(op.request) as Body;
  for (const [name, schema] of Object.entries(propertiesOf(op.request))) {
    if ((name === 'name' || name.endsWith('_name')) && deref(schema).type === 'string')
      body[name] = `walk-${n}`;
  }
  return body;
}

/** The key a create's answer gives: of the generic layer's item, else of the one object it holds. */
function keyOf(operationId: string, body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const plan = genericData().operations[operationId];
  if (plan?.key && plan.item !== undefined) {
    const item = (plan.item === '' ? body : (body as Body)[plan.item]) as Body | undefined;
    if (item?.[plan.key] !== undefined) return String(item[plan.key]);
  }
  const nested = Object.entries(body as Body)
    .filter(([name, value]) => name !== 'links' && name !== 'meta' && value && typeof value === 'object')
    .map(([, value]) => value as Body);
  for (const item of [...nested, body as Body]) {
    const key = item.id ?? item.uuid ?? item.ip ?? item.access_key ?? item.name;
    if (typeof key === 'string' || typeof key === 'number') return String(key);
  }
  return undefined;
}

interface Outcome {
  operationId: string;
  method: string;
  target: string;
  status: number;
  generic: boolean;
  problems: string[];
}

let sandbox: Sandbox;
const keys = new Map<string, string[]>();
const outcomes = new Map<string, Outcome>();

/** The operation's path with each parameter filled: a key created before, else a plausible value. */
function concretePath(op: SubsetOperation): string {
  const segments = op.path.split('/');
  return segments
    .map((segment, index) => {
      const name = /^\{(\w+)\}$/.exec(segment)?.[1];
      if (name === undefined) return segment;
      const created = keys.get(shape(segments.slice(0, index + 1).join('/')))?.[0];
      const schema = op.parameters?.find((param) => param.name === name)?.schema;
      return encodeURIComponent(created ?? plausible(schema));
    })
    .join('/');
}

/** Sends an operation, checks its answer, and records what it found (once per operation). */
async function send(operationId: string, n = 1): Promise<{ status: number; body: unknown }> {
  const op = subset.operations[operationId] as SubsetOperation;
  const path = concretePath(op);
  const query = new URLSearchParams();
  for (const param of op.parameters ?? [])
    if (param.in === 'query' && param.required) query.set(param.name, plausible(param.schema));
  const plan = genericData().operations[operationId];
  // The second page of one item, so that its links (first, previous) are there to check.
  if (plan?.role === 'list') {
    query.set('per_page', '1');
    query.set('page', '2');
  }
  const target = `${path}${query.size ? `?${query}` : ''}`;
  const fixture = FIXTURES[operationId];
  const json = fixture ? fixture(n, keys) : bodyOf(op, n);
  const response = await fetch(`${sandbox.url}${target}`, {
    method: op.method,
    headers: {
      authorization: 'Bearer walk',
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const problems: string[] = [];
  let body: unknown;
  if (text !== '' && !type.startsWith('application/json')) {
    // A file (a kubeconfig, an invoice): its content type must be declared for the status.
    const declared = responseContentTypes(operationId, response.status);
    if (!declared.includes(type)) problems.push(`content type ${type} is not one of: ${declared.join(', ')}`);
  } else {
    body = text === '' ? undefined : JSON.parse(text);
    try {
      problems.push(...validateResponse(operationId, response.status, body).errors);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (response.status === 405) problems.push('405: the method is not served');
  if (response.status === 404 && /does not emulate/.test(text))
    problems.push('404: the sandbox does not emulate it');
  const found = sandboxRouter().match(op.method, path);
  const generic = found.route?.operationId !== undefined;
  if (generic && response.status !== plan?.status)
    problems.push(
      `the generic layer answered ${response.status}, not ${plan?.status}: ${text.slice(0, 200)}`,
    );
  if (!outcomes.has(operationId))
    outcomes.set(operationId, {
      operationId,
      method: op.method,
      target,
      status: response.status,
      generic,
      problems,
    });
  return { status: response.status, body };
}

const all = Object.entries(subset.operations);
const elsewhere = all.filter(([, op]) => op.host);
const walked = all.filter(([, op]) => !op.host);

beforeAll(async () => {
  sandbox = await startSandbox({ now: steppingClock() });
});

afterAll(async () => {
  await sandbox.close();
});

describe('every operation of the API description', () => {
  it('is 659, of which 15 are served at another host (inference), not by the sandbox', () => {
    expect(all).toHaveLength(659);
    expect(elsewhere).toHaveLength(15);
    expect(new Set(elsewhere.map(([, op]) => op.host))).toEqual(
      new Set(['https://inference.do-ai.run', 'https://{agent_url}', 'https://']),
    );
    for (const [, op] of elsewhere)
      expect(sandboxRouter().match(op.method, concretePath(op)).route).toBeUndefined();
  });

  it('is answered, validly, with items created first: create, then read and change, then delete', async ({
    annotate,
  }) => {
    // An image to act on: the seeded catalogue's first.
    const images = await fetch(`${sandbox.url}/v2/images?per_page=1`, {
      headers: { authorization: 'Bearer walk' },
    });
    keys.set('/v2/images/{}', [
      String(((await images.json()) as { images: { id: number }[] }).images[0]?.id),
    ]);

    const data = genericData();
    // The hand models' resources first, in the fixtures' order; then the generic layer's, parents first.
    const creates = [
      ...Object.keys(FIXTURES).map((id) => [id, subset.operations[id] as SubsetOperation] as const),
      ...walked
        .filter(([id]) => data.operations[id]?.role === 'create' && !FIXTURES[id])
        .sort(([, a], [, b]) => depth(a) - depth(b)),
    ];
    // Two of each, so that lists have a second page.
    for (const [id, op] of creates) {
      for (const n of [1, 2]) {
        const { status, body } = await send(id, n);
        const key = status < 300 ? keyOf(id, body) : undefined;
        const itemPath = `${shape(op.path)}/{}`;
        if (key !== undefined) keys.set(itemPath, [...(keys.get(itemPath) ?? []), key]);
      }
    }
    const rest = walked.filter(([id]) => !outcomes.has(id));
    for (const [id] of rest.filter(([, op]) => op.method !== 'DELETE')) await send(id);
    const deletes = rest
      .filter(([, op]) => op.method === 'DELETE')
      .sort(([, a], [, b]) => depth(b) - depth(a));
    for (const [id] of deletes) await send(id);

    const results = [...outcomes.values()];
    const generic = results.filter((outcome) => outcome.generic).length;
    const counts =
      `every operation: ${results.length - generic} answered by hand models, ${generic} by the generic layer, ` +
      `${all.length - results.length} served at another host (not the sandbox's)`;
    process.stdout.write(`${counts}\n`);
    await annotate(counts);
    expect(results).toHaveLength(644);
    const failed = results
      .filter((outcome) => outcome.problems.length)
      .map(
        (outcome) =>
          `${outcome.operationId} ${outcome.method} ${outcome.target} -> ${outcome.status}: ${outcome.problems.join('; ')}`,
      );
    expect(failed).toEqual([]);
    // The generic layer answers what no hand model takes (GenAI, dedicated inference, vector
    // databases, security scans, add-ons, organizations): fewer as families are modelled by hand.
    expect(generic).toBeGreaterThan(0);
    expect(results.length - generic).toBeGreaterThan(450);
  }, 300_000);
});
