/**
 * Protection decided from the operation model, attacked the ways issue 32 found it broken and
 * the earlier ways, each through a named tool and through the generic `api-call`: a protected
 * volume attached by name or to a new VM, a create joining a protected project or VPC, a copy of
 * a protected volume or VM made from its snapshot, its snapshot deleted, a project holding a
 * protected resource deleted. Every refusal names the resource and the rule, the sandbox sees no
 * request that changes anything, and its state shows nothing changed.
 */
import { apiCallReadOnlyTool, apiCallTool } from '@cloudcall/api';
import { type AnyTool, ReadOnlyViolationError, runTool } from '@cloudcall/core';
import { describe, expect, it } from 'vitest';
import { type Decision, GuardRefusal, guardedRun, parseRule, planCall } from './index.js';
import { tool, useSandbox } from './testing/sandbox.js';

const sandbox = useSandbox();
const { seen, mutating } = sandbox;
const client = () => sandbox.connection.client;

const run = (which: AnyTool | string, args: unknown, rules: string[]) =>
  guardedRun(
    typeof which === 'string' ? tool(which) : which,
    args,
    { client: client() },
    { frontEnd: 'mcp', rules: rules.map((rule) => parseRule(rule, '--protect')), unconfirmed: 'run' },
  );

const request = <T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) =>
  client().request<T>({ method, path, ...(body !== undefined ? { body } : {}) });

/** A call refused naming `pattern`, with nothing sent that changes anything. */
async function refused(call: Promise<unknown>, pattern: RegExp, what: string) {
  await expect(call, what).rejects.toThrow(GuardRefusal);
  await expect(call, what).rejects.toThrow(pattern);
  expect(mutating(), what).toEqual([]);
}

/** Runs an attack through the named tool and through api-call, both refused. */
async function bothRefused(
  named: [string, Record<string, unknown>],
  api: { Method: string; Path: string; Body?: unknown; Query?: Record<string, unknown> },
  rules: string[],
  pattern: RegExp,
) {
  seen.length = 0;
  await refused(run(named[0], named[1], rules), pattern, named[0]);
  seen.length = 0;
  await refused(run(apiCallTool, api, rules), pattern, `api-call ${api.Method} ${api.Path}`);
}

async function volume(name: string, region = 'nyc3'): Promise<string> {
  const { volume } = await request<{ volume: { id: string } }>('POST', '/v2/volumes', {
    name,
    size_gigabytes: 10,
    region,
  });
  seen.length = 0;
  return volume.id;
}

async function project(name: string): Promise<string> {
  const { project } = await request<{ project: { id: string } }>('POST', '/v2/projects', {
    name,
    purpose: 'Service or API',
  });
  seen.length = 0;
  return project.id;
}

const count = async (path: string, key: string) =>
  ((await request<Record<string, unknown[]>>('GET', `${path}?per_page=200`))[key] ?? []).length;

describe('a protected volume', () => {
  it('is not attached by name, through the named tool or api-call', async () => {
    await volume('db-data');
    const vm = await sandbox.createVm('web-attach', [], { settle: true });
    await bothRefused(
      ['volume-attach-by-name', { Name: 'db-data', Region: 'nyc3', VmID: vm }],
      {
        Method: 'POST',
        Path: '/v2/volumes/actions',
        Body: { type: 'attach', volume_name: 'db-data', region: 'nyc3', droplet_id: vm },
      },
      ['name:db-data'],
      /refused: volume db-data \(id [0-9a-f-]+\) is protected by rule name:db-data/,
    );
    const { droplet } = await request<{ droplet: { volume_ids: string[] } }>('GET', `/v2/droplets/${vm}`);
    expect(droplet.volume_ids).toEqual([]);
  });

  it('is not attached to a new VM, given by id or as the Go client sends it ({ id })', async () => {
    const id = await volume('db-data-2');
    const before = await count('/v2/droplets', 'droplets');
    const vm = { name: 'sneaky', size: 's-1vcpu-1gb', image: 161928327, region: 'nyc3' };
    await bothRefused(
      [
        'vm-create',
        { Name: 'sneaky', Size: 's-1vcpu-1gb', ImageID: 161928327, Region: 'nyc3', Volumes: [id] },
      ],
      { Method: 'POST', Path: '/v2/droplets', Body: { ...vm, volumes: [id] } },
      ['tag:never', `id:${id}`],
      new RegExp(`volume db-data-2 \\(id ${id}\\) is protected by rule id:${id}`),
    );
    // The Go client's spelling ({ id }) breaks the description's schema (ids): refused before
    // anything is read or sent. The model reads it all the same (src/model.test.ts in @cloudcall/api).
    seen.length = 0;
    await expect(
      run(apiCallTool, { Method: 'POST', Path: '/v2/droplets', Body: { ...vm, volumes: [{ id }] } }, [
        `id:${id}`,
      ]),
    ).rejects.toThrow('argument Body.volumes.0: must be string');
    expect(seen).toEqual([]);
    expect(await count('/v2/droplets', 'droplets')).toBe(before);
  });

  it('keeps its snapshot protected: no volume is made from it, and it is not deleted', async () => {
    const id = await volume('db-data-3');
    const { snapshot } = await request<{ snapshot: { id: string } }>('POST', `/v2/volumes/${id}/snapshots`, {
      name: 'db-snap',
    });
    seen.length = 0;
    const copy =
      /snapshot db-snap \(id [0-9a-f-]+\) is a copy of volume db-data-3 \(id [0-9a-f-]+\), which is protected by rule name:db-data-3/;
    const volumes = await count('/v2/volumes', 'volumes');
    await bothRefused(
      ['volume-create', { Name: 'copy', SizeGigabytes: 10, SnapshotID: snapshot.id }],
      {
        Method: 'POST',
        Path: '/v2/volumes',
        Body: { name: 'copy', size_gigabytes: 10, snapshot_id: snapshot.id, region: 'nyc3' },
      },
      ['name:db-data-3'],
      copy,
    );
    await bothRefused(
      ['volume-snapshot-delete', { ID: snapshot.id }],
      { Method: 'DELETE', Path: `/v2/volumes/snapshots/${snapshot.id}` },
      ['name:db-data-3'],
      copy,
    );
    await bothRefused(
      ['snapshot-delete', { ID: snapshot.id }],
      { Method: 'DELETE', Path: `/v2/snapshots/${snapshot.id}` },
      ['name:db-data-3'],
      copy,
    );
    expect(await count('/v2/volumes', 'volumes')).toBe(volumes);
    await expect(request('GET', `/v2/snapshots/${snapshot.id}`)).resolves.toMatchObject({
      snapshot: { name: 'db-snap' },
    });
  });
});

describe('a protected project or VPC', () => {
  it('is not joined by a create that names it in its body', async () => {
    const id = await project('prod-project');
    const rules = ['name:prod-project'];
    const pattern = /project prod-project \(id [0-9a-f-]+\) is protected by rule name:prod-project/;
    await bothRefused(
      ['reserved-ip-reserve', { Region: 'nyc3', Type: 'ipv4', ProjectID: id }],
      { Method: 'POST', Path: '/v2/reserved_ips', Body: { region: 'nyc3', project_id: id } },
      rules,
      pattern,
    );
    const forwarding = { EntryProtocol: 'http', EntryPort: 80, TargetProtocol: 'http', TargetPort: 80 };
    await bothRefused(
      ['load-balancer-create', { Name: 'lb', Region: 'nyc3', ForwardingRules: [forwarding], ProjectID: id }],
      {
        Method: 'POST',
        Path: '/v2/load_balancers',
        Body: {
          name: 'lb',
          region: 'nyc3',
          forwarding_rules: [
            { entry_protocol: 'http', entry_port: 80, target_protocol: 'http', target_port: 80 },
          ],
          droplet_ids: [],
          project_id: id,
        },
      },
      rules,
      pattern,
    );
    const db = {
      name: 'db-prod',
      engine: 'pg',
      version: '16',
      region: 'nyc3',
      size: 'db-s-1vcpu-1gb',
      num_nodes: 1,
    };
    await bothRefused(
      ['db-cluster-create', { ...db, project_id: id }],
      { Method: 'POST', Path: '/v2/databases', Body: { ...db, project_id: id } },
      rules,
      pattern,
    );
    expect(await count('/v2/reserved_ips', 'reserved_ips')).toBe(0);
    expect(await count('/v2/load_balancers', 'load_balancers')).toBe(0);
    expect(await count('/v2/databases', 'databases')).toBe(0);
  });

  it('is not joined by a VM made in a protected VPC', async () => {
    const { vpc } = await request<{ vpc: { id: string } }>('POST', '/v2/vpcs', {
      name: 'prod-vpc',
      region: 'nyc3',
      ip_range: '10.20.0.0/20',
    });
    seen.length = 0;
    const before = await count('/v2/droplets', 'droplets');
    await bothRefused(
      [
        'vm-create',
        { Name: 'in-vpc', Size: 's-1vcpu-1gb', ImageID: 161928327, Region: 'nyc3', VpcID: vpc.id },
      ],
      {
        Method: 'POST',
        Path: '/v2/droplets',
        Body: { name: 'in-vpc', size: 's-1vcpu-1gb', image: 161928327, region: 'nyc3', vpc_uuid: vpc.id },
      },
      ['name:prod-*'],
      /vpc prod-vpc \(id [0-9a-f-]+\) is protected by rule name:prod-\*/,
    );
    expect(await count('/v2/droplets', 'droplets')).toBe(before);
  });

  it('holding a protected resource is not deleted: its members are read first', async () => {
    const id = await project('holds-db');
    const vm = await sandbox.createVm('db-main-p', ['data'], { settle: true });
    await request('POST', `/v2/projects/${id}/resources`, { resources: [`do:droplet:${vm}`] });
    seen.length = 0;
    await bothRefused(
      ['project-delete', { ID: id }],
      { Method: 'DELETE', Path: `/v2/projects/${id}` },
      ['name:db-main-p'],
      new RegExp(`droplet db-main-p \\(id ${vm}; tags data\\) is protected by rule name:db-main-p`),
    );
    expect(seen).toContain(`GET /v2/projects/${id}/resources?page=1&per_page=200`);
    await expect(request('GET', `/v2/projects/${id}`)).resolves.toMatchObject({
      project: { name: 'holds-db' },
    });
  });
});

describe('a protected VM', () => {
  it('keeps its snapshot protected: no VM is made or rebuilt from it', async () => {
    const vm = await sandbox.createVm('db-main-s', [], { settle: true });
    await request('POST', `/v2/droplets/${vm}/actions`, { type: 'snapshot', name: 'db-main-s-snap' });
    await sandbox.connection.sandbox.advanceClock(600_000);
    const { snapshots } = await request<{ snapshots: { id: number }[] }>(
      'GET',
      `/v2/droplets/${vm}/snapshots`,
    );
    const image = snapshots[0]?.id as number;
    expect(image).toBeTypeOf('number');
    const other = await sandbox.createVm('scratch-s', [], { settle: true });
    const copy = new RegExp(
      `image db-main-s-snap \\(id ${image}\\) is a copy of droplet db-main-s \\(id ${vm}\\), which is protected by rule name:db-main-s`,
    );
    await bothRefused(
      ['vm-create', { Name: 'clone', Size: 's-1vcpu-1gb', ImageID: image, Region: 'nyc3' }],
      {
        Method: 'POST',
        Path: '/v2/droplets',
        Body: { name: 'clone', size: 's-1vcpu-1gb', image, region: 'nyc3' },
      },
      ['name:db-main-s'],
      copy,
    );
    await bothRefused(
      ['rebuild-vm', { ID: other, ImageID: image }],
      { Method: 'POST', Path: `/v2/droplets/${other}/actions`, Body: { type: 'rebuild', image } },
      ['name:db-main-s'],
      copy,
    );
    await bothRefused(
      ['image-delete', { ID: image }],
      { Method: 'DELETE', Path: `/v2/images/${image}` },
      ['name:db-main-s'],
      copy,
    );
  });

  it('is refused every change through api-call as through the named tools, however it is spelled', async () => {
    const id = await sandbox.createVm('db-main-a', ['data'], { settle: true });
    const { firewall } = await request<{ firewall: { id: string } }>('POST', '/v2/firewalls', {
      name: 'fw-a',
      inbound_rules: [{ protocol: 'tcp', ports: '22', sources: { addresses: ['0.0.0.0/0'] } }],
    });
    await request('POST', '/v2/tags', { name: 'anything' });
    const { project: other } = await request<{ project: { id: string } }>('POST', '/v2/projects', {
      name: 'elsewhere',
      purpose: 'Other',
    });
    seen.length = 0;
    const attempts: { Method: string; Path: string; Body?: unknown; Query?: Record<string, unknown> }[] = [
      { Method: 'POST', Path: `/v2/droplets/${id}/actions`, Body: { type: 'rename', name: 'innocent' } },
      { Method: 'POST', Path: `/v2/droplets/${id}/actions`, Body: { type: 'power_off' } },
      { Method: 'POST', Path: `/v2/droplets/${id}/actions`, Body: { type: 'snapshot', name: 'x' } },
      // The same VM by another spelling of its id: the guard reads what the platform shows.
      { Method: 'POST', Path: `/v2/droplets/0${id}/actions`, Body: { type: 'reboot' } },
      { Method: 'DELETE', Path: `/v2/droplets/${id}` },
      {
        Method: 'POST',
        Path: '/v2/tags/anything/resources',
        Body: { resources: [{ resource_id: String(id), resource_type: 'droplet' }] },
      },
      {
        Method: 'DELETE',
        Path: '/v2/tags/data/resources',
        Body: { resources: [{ resource_id: String(id), resource_type: 'droplet' }] },
      },
      { Method: 'POST', Path: `/v2/firewalls/${firewall.id}/droplets`, Body: { droplet_ids: [id] } },
      {
        Method: 'POST',
        Path: `/v2/projects/${other.id}/resources`,
        Body: { resources: [`do:droplet:${id}`] },
      },
      {
        Method: 'POST',
        Path: '/v2/droplets/actions',
        Query: { tag_name: 'data' },
        Body: { type: 'power_cycle' },
      },
      { Method: 'POST', Path: '/v2/droplets/actions?tag_name=data', Body: { type: 'enable_backups' } },
      { Method: 'DELETE', Path: '/v2/droplets', Query: { tag_name: 'data' } },
    ];
    for (const args of attempts) {
      seen.length = 0;
      await refused(
        run(apiCallTool, args, ['name:db-main-a']),
        /db-main-a.* is protected by rule name:db-main-a/,
        `${args.Method} ${args.Path}`,
      );
    }
    const { droplet } = await request<{ droplet: { name: string; status: string; tags: string[] } }>(
      'GET',
      `/v2/droplets/${id}`,
    );
    expect(droplet).toMatchObject({ name: 'db-main-a', status: 'active', tags: ['data'] });
  });

  it('under a tag rule, is refused a tag-wide action whose member it is, on any page', async () => {
    const id = await sandbox.createVm('fleet-member', ['wide', 'prod'], { settle: true });
    await refused(
      run(
        apiCallTool,
        {
          Method: 'POST',
          Path: '/v2/droplets/actions',
          Query: { tag_name: 'wide' },
          Body: { type: 'power_off' },
        },
        ['tag:prod'],
      ),
      /every resource tagged wide \(1: fleet-member\) is protected by rule tag:prod/,
      'tag-wide',
    );
    expect(seen).toContain('GET /v2/droplets?tag_name=wide&page=1&per_page=200');
    void id;
  });
});

describe('deleting a tag', () => {
  it('is refused when a member is protected by name, not only when the tag is', async () => {
    const id = await sandbox.createVm('tagged-db', ['strip-me'], { settle: true });
    await bothRefused(
      ['tag-delete', { Name: 'strip-me' }],
      { Method: 'DELETE', Path: '/v2/tags/strip-me' },
      ['name:tagged-db'],
      new RegExp(`droplet tagged-db \\(id ${id}; tags strip-me\\) is protected by rule name:tagged-db`),
    );
  });
});

describe('confirmation and read-only, decided from each request', () => {
  const asking = (answer: Decision, asked: string[]) => ({
    frontEnd: 'mcp' as const,
    confirm: async ({ message }: { message: string }) => {
      asked.push(message);
      return answer;
    },
    unconfirmed: 'run' as const,
  });

  it('asks before a destroying api-call, and not before one that only creates', async () => {
    const id = await sandbox.createVm('ask-me', [], { settle: true });
    const asked: string[] = [];
    await expect(
      guardedRun(
        apiCallTool,
        { Method: 'DELETE', Path: `/v2/droplets/${id}` },
        { client: client() },
        asking('decline', asked),
      ),
    ).rejects.toThrow(/declined: nothing was sent/);
    expect(asked).toEqual([
      expect.stringMatching(
        /^Call an API operation \(api-call, DELETE \/v2\/droplets\/\d+\): droplet ask-me/,
      ),
    ]);
    expect(mutating()).toEqual([]);
    // A power-off destroys state (an action type the model names); a rename does not.
    await expect(
      guardedRun(
        apiCallTool,
        { Method: 'POST', Path: `/v2/droplets/${id}/actions`, Body: { type: 'power_off' } },
        { client: client() },
        asking('decline', asked),
      ),
    ).rejects.toThrow(GuardRefusal);
    expect(asked).toHaveLength(2);
    await guardedRun(
      apiCallTool,
      { Method: 'POST', Path: '/v2/tags', Body: { name: 'made-without-asking' } },
      { client: client() },
      asking('decline', asked),
    );
    expect(asked).toHaveLength(2);
    expect(mutating()).toEqual(['POST /v2/tags']);
  });

  it('refuses a destroying api-call where nobody can be asked, and runs the rest', async () => {
    const id = await sandbox.createVm('no-one-asks', [], { settle: true });
    const options = { frontEnd: 'cli' as const, unconfirmed: { refuse: 'add --force' } };
    await expect(
      guardedRun(
        apiCallTool,
        { Method: 'DELETE', Path: `/v2/droplets/${id}` },
        { client: client() },
        options,
      ),
    ).rejects.toThrow('api-call is destructive: add --force');
    expect(mutating()).toEqual([]);
    await guardedRun(
      apiCallTool,
      { Method: 'POST', Path: '/v2/tags', Body: { name: 'unasked' } },
      { client: client() },
      options,
    );
    expect(mutating()).toEqual(['POST /v2/tags']);
  });

  it('lets the read-only api-call read, and nothing else, whatever it is given', async () => {
    await expect(
      runTool(apiCallReadOnlyTool, { Method: 'GET', Path: '/v2/account' }, { client: client() }),
    ).resolves.toMatchObject({
      account: { status: 'active' },
    });
    await expect(
      runTool(
        apiCallReadOnlyTool,
        { Method: 'POST', Path: '/v2/tags', Body: { name: 'x' } },
        { client: client() },
      ),
    ).rejects.toThrow(/Method/);
    // Even a definition whose schema let a POST through: core's read-only client sends only reads.
    const loose = { ...apiCallReadOnlyTool, input: apiCallTool.input } as AnyTool;
    await expect(
      runTool(loose, { Method: 'POST', Path: '/v2/tags', Body: { name: 'x' } }, { client: client() }),
    ).rejects.toThrow(ReadOnlyViolationError);
    expect(mutating()).toEqual([]);
  });

  it('plans an api-call: the request, whether it destroys, and the rule that would refuse it', async () => {
    const id = await sandbox.createVm('plan-me', ['prod'], { settle: true });
    const plan = await planCall(
      apiCallTool,
      { Method: 'DELETE', Path: `/v2/droplets/${id}` },
      { client: client() },
      [parseRule('tag:prod', '--protect')],
    );
    expect(plan).toMatchObject({
      destructive: true,
      request: { method: 'DELETE', path: `/v2/droplets/${id}` },
      target: { kind: 'droplet', name: 'plan-me' },
      refused_by: 'tag:prod (--protect)',
    });
    const create = await planCall(
      apiCallTool,
      { Method: 'POST', Path: '/v2/tags', Body: { name: 'p' } },
      { client: client() },
    );
    expect(create).toMatchObject({ destructive: false, request: { method: 'POST', path: '/v2/tags' } });
    // The price change is the named tool's: it is read from the request, whoever makes it.
    const body = { name: 'priced', size: 's-1vcpu-2gb', image: 161928327, region: 'nyc3' };
    const priced = await planCall(
      apiCallTool,
      { Method: 'POST', Path: '/v2/droplets', Body: body },
      { client: client() },
    );
    const named = await planCall(
      tool('vm-create'),
      { Name: 'priced', Size: 's-1vcpu-2gb', ImageID: 161928327, Region: 'nyc3' },
      { client: client() },
    );
    expect(priced.price).toMatchObject({ monthly_before: 0, monthly_delta: expect.any(Number) });
    expect(priced.price).toEqual(named.price);
    expect(mutating()).toEqual([]);
  });
});
