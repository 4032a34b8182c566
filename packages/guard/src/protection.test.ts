import { runTool } from '@cloudcall/core';
import { describe, expect, it } from 'vitest';
import { GuardRefusal, guardedRun, parseRule, planCall } from './index.js';
import { tool, useSandbox } from './testing/sandbox.js';

const sandbox = useSandbox();
const { seen, mutating } = sandbox;

const run = (name: string, args: unknown, rules: string[]) =>
  guardedRun(
    tool(name),
    args,
    { client: sandbox.connection.client },
    { frontEnd: 'mcp', rules: rules.map((rule) => parseRule(rule, '--protect')), unconfirmed: 'run' },
  );

describe('a protected VM', () => {
  it('is refused by every tool that changes it, destructive or not, sending nothing', async () => {
    const id = await sandbox.createVm('db-main', ['data'], { settle: true });
    const { firewall } = (await runTool(
      tool('firewall-create'),
      {
        Name: 'fw',
        InboundProtocol: 'tcp',
        InboundPortRange: '22',
        InboundSource: '0.0.0.0/0',
        OutboundProtocol: 'tcp',
        OutboundPortRange: 'all',
        OutboundDestination: '0.0.0.0/0',
      },
      { client: sandbox.connection.client },
    )) as { firewall: { id: string } };
    const { reserved_ip: ip } = (await runTool(
      tool('reserved-ip-reserve'),
      { Region: 'nyc3', Type: 'ipv4' },
      { client: sandbox.connection.client },
    )) as { reserved_ip: { ip: string } };
    await runTool(tool('tag-create'), { Name: 'anything' }, { client: sandbox.connection.client });
    const vm = [{ resource_id: id, resource_type: 'droplet' }];
    const attempts: [string, Record<string, unknown>][] = [
      // The attack of the issue: a rename first would leave `name:db-main` nothing to match.
      ['rename-vm', { ID: id, Name: 'innocent' }],
      ['resize-vm', { ID: id, Size: 's-2vcpu-2gb' }],
      ['rebuild-vm-by-slug', { ID: id, ImageSlug: 'ubuntu-24-04-x64' }],
      ['restore-vm', { ID: id, ImageID: 161928327 }],
      ['power-on-vm', { ID: id }],
      ['power-cycle-vm', { ID: id }],
      ['vm-reboot', { ID: id }],
      ['reset-vm-password', { ID: id }],
      ['enable-backups-vm', { ID: id }],
      ['snapshot-vm', { ID: id, Name: 'copy' }],
      ['change-kernel-vm', { ID: id, KernelID: 1 }],
      // Its membership: tagged or untagged with any tag, added to a firewall, given an IP.
      ['tag-resources', { Tag: 'anything', Resources: vm }],
      ['untag-resources', { Tag: 'data', Resources: vm }],
      ['firewall-add-vms', { ID: firewall.id, VmIDs: [id] }],
      ['reserved-ip-assign', { IP: ip.ip, VmID: id, Type: 'ipv4' }],
      ['vm-delete', { ID: id }],
    ];
    for (const [name, args] of attempts) {
      seen.length = 0;
      const call = run(name, args, ['name:db-main']);
      await expect(call, name).rejects.toThrow(GuardRefusal);
      await expect(call, name).rejects.toThrow(
        `${name} refused: droplet db-main (id ${id}; tags data) is protected by rule name:db-main (--protect). Nothing was sent.`,
      );
      expect(mutating(), name).toEqual([]);
    }
    // Still there, by the name the rule protects.
    const { droplet } = (await runTool(
      tool('vm-get'),
      { ID: id },
      { client: sandbox.connection.client },
    )) as {
      droplet: { name: string; tags: string[] };
    };
    expect(droplet).toMatchObject({ name: 'db-main', tags: ['data'] });
  });

  it('is matched by its name now, not the name a call gives it', async () => {
    // Renaming an unprotected VM to a protected name is not a change to a protected resource.
    const id = await sandbox.createVm('scratch-1', [], { settle: true });
    await run('rename-vm', { ID: id, Name: 'db-main-copy' }, ['name:db-main*']);
    expect(mutating()).toEqual([`POST /v2/droplets/${id}/actions`]);
    // From then on, it is protected.
    await sandbox.connection.sandbox.advanceClock(120_000);
    seen.length = 0;
    await expect(run('rename-vm', { ID: id, Name: 'scratch-1' }, ['name:db-main*'])).rejects.toThrow(
      /droplet db-main-copy .* is protected by rule name:db-main\*/,
    );
    expect(mutating()).toEqual([]);
  });

  it('lets through only the tools a policy allows by name', async () => {
    const id = await sandbox.createVm('db-allow', ['prod'], { settle: true });
    const rules = ['tag:prod', 'allow:vm-reboot'];
    await run('vm-reboot', { ID: id }, rules);
    expect(mutating()).toEqual([`POST /v2/droplets/${id}/actions`]);
    await sandbox.connection.sandbox.advanceClock(120_000);
    seen.length = 0;
    await expect(run('power-cycle-vm', { ID: id }, rules)).rejects.toThrow(/protected by rule tag:prod/);
    await expect(run('rename-vm', { ID: id, Name: 'x' }, rules)).rejects.toThrow(
      /protected by rule tag:prod/,
    );
    expect(mutating()).toEqual([]);
    // A plan says the same as the call.
    const plans = await Promise.all(
      ['vm-reboot', 'power-cycle-vm'].map((name) =>
        planCall(tool(name), { ID: id }, { client: sandbox.connection.client }, [
          parseRule('tag:prod', '--protect'),
          parseRule('allow:vm-reboot', '--protect'),
        ]),
      ),
    );
    expect(plans.map((plan) => plan.refused_by)).toEqual([undefined, 'tag:prod (--protect)']);
  });

  it('keeps new members out of a protected tag: a create carrying it is refused', async () => {
    await expect(
      run(
        'vm-create',
        { Name: 'sneaky', Size: 's-1vcpu-1gb', ImageID: 161928327, Region: 'nyc3', Tags: ['web', 'prod'] },
        ['tag:prod'],
      ),
    ).rejects.toThrow(
      'vm-create refused: tag prod is protected by rule tag:prod (--protect). Nothing was sent.',
    );
    expect(mutating()).toEqual([]);
    await run(
      'vm-create',
      { Name: 'fine', Size: 's-1vcpu-1gb', ImageID: 161928327, Region: 'nyc3', Tags: ['web'] },
      ['tag:prod'],
    );
    expect(mutating()).toEqual(['POST /v2/droplets']);
  });
});

describe('a tag-wide action', () => {
  it('checks every member of the tag across all pages, not only the first 200', async () => {
    // 250 VMs tagged fleet, ten per request; the protected one is the last, on page 2. The
    // account's VM limit is raised as the platform raises it for an account that asks.
    await sandbox.connection.sandbox.store.write((world) => {
      world.account.droplet_limit = 1000;
    });
    for (let batch = 0; batch < 25; batch++) {
      await sandbox.connection.client.request({
        method: 'POST',
        path: '/v2/droplets',
        body: {
          names: Array.from({ length: 10 }, (_, index) => `fleet-${batch * 10 + index}`),
          size: 's-1vcpu-1gb',
          image: 161928327,
          region: 'nyc3',
          tags: ['fleet'],
        },
      });
    }
    const last = await sandbox.createVm('fleet-db', ['fleet', 'prod'], { settle: true });
    seen.length = 0;
    const call = run('power-cycle-vms-tag', { Tag: 'fleet' }, [`id:${last}`]);
    await expect(call).rejects.toThrow(
      new RegExp(
        `power-cycle-vms-tag refused: every resource tagged fleet \\(251: .*\\) is protected by rule id:${last}`,
      ),
    );
    expect(mutating()).toEqual([]);
    expect(seen).toEqual([
      'GET /v2/droplets?tag_name=fleet&page=1&per_page=200',
      'GET /v2/droplets?tag_name=fleet&page=2&per_page=200',
    ]);
    // Without the protected member, the action goes.
    await sandbox.connection.client.request({
      method: 'DELETE',
      path: '/v2/tags/fleet/resources',
      body: { resources: [{ resource_id: String(last), resource_type: 'droplet' }] },
    });
    seen.length = 0;
    await run('power-cycle-vms-tag', { Tag: 'fleet' }, [`id:${last}`]);
    expect(mutating()).toEqual(['POST /v2/droplets/actions?tag_name=fleet']);
  });
});
