/**
 * The vms family as a library: the requests its tools send (checked against the API description),
 * arguments refused before any request, and the typed API bound to a client, against the sandbox.
 */
import { type AnyTool, ClientApiError, InputError, parseArgs, runTool } from '@cloudcall/core';
import { buildRequest } from '@cloudcall/core/internal';
import { connectSandbox, type SandboxConnection } from '@cloudcall/sandbox';
import { PATH_HOSTILE } from '@cloudcall/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The description subset is a workspace tool; imported by path so the published package needs nothing.
import {
  assertValidResponse,
  noResponseBody,
  operation,
  validateRequest,
} from '../../../tooling/openapi/index.js';
import { vmsApi, vmsTools } from './index.js';

const UBUNTU = 161928327;
const tool = (name: string) => vmsTools.find((t) => t.name === name) as AnyTool;
const request = (name: string, args: Record<string, unknown>) =>
  buildRequest(tool(name).request as never, parseArgs(tool(name), args) as Record<string, unknown>);

/** The API operation of each tool (API-MAP): the single-VM and by-tag actions share theirs. */
const OPERATIONS: Record<string, string> = {
  'vm-create': 'droplets_create',
  'vm-delete': 'droplets_destroy',
  'vm-get': 'droplets_get',
  'vm-list': 'droplets_list',
  'vm-action': 'dropletActions_get',
  'vm-list-snapshots': 'droplets_list_snapshots',
  'vm-list-backups': 'droplets_list_backups',
  'vm-list-kernels': 'droplets_list_kernels',
  'vm-get-backup-policy': 'droplets_get_backup_policy',
  'vm-list-neighbors': 'droplets_list_neighbors',
  'vm-list-associated-resources': 'droplets_list_associatedResources',
  'tag-create': 'tags_create',
  'tag-list': 'tags_list',
  'tag-get': 'tags_get',
  'tag-delete': 'tags_delete',
  'tag-resources': 'tags_assign_resources',
  'untag-resources': 'tags_unassign_resources',
  'volume-list': 'volumes_list',
  'volume-get': 'volumes_get',
  'volume-create': 'volumes_create',
  'volume-delete': 'volumes_delete',
  'volume-attach': 'volumeActions_post_byId',
  'volume-attach-by-name': 'volumeActions_post',
  'volume-detach': 'volumeActions_post_byId',
  'volume-resize': 'volumeActions_post_byId',
  'volume-action-list': 'volumeActions_list',
  'volume-action-get': 'volumeActions_get',
  'volume-snapshot-create': 'volumeSnapshots_create',
  'volume-snapshot-list': 'volumeSnapshots_list',
  'volume-snapshot-get': 'volumeSnapshots_get_byId',
  'volume-snapshot-delete': 'volumeSnapshots_delete_byId',
};
const operationOf = (name: string) =>
  OPERATIONS[name] ?? (name.endsWith('-vms-tag') ? 'dropletActions_post_byTag' : 'dropletActions_post');
/** Arguments each tool adds to the VM's ID or the Tag. */
const actionArgs: Record<string, Record<string, unknown>> = {
  'rename-vm': { Name: 'web-2' },
  'change-kernel-vm': { KernelID: 10487 },
  'rebuild-vm-by-slug': { ImageSlug: 'debian-12-x64' },
  'rebuild-vm': { ImageID: UBUNTU },
  'restore-vm': { ImageID: 171000001 },
  'resize-vm': { Size: 's-2vcpu-4gb' },
  'snapshot-vm': { Name: 'snap' },
  'snapshot-vms-tag': { Name: 'snap' },
  'vm-update-backup-policy': { Plan: 'weekly', Weekday: 'WED', Hour: 8 },
  'tag-create': { Name: 'web' },
  'tag-get': { Name: 'web' },
  'tag-delete': { Name: 'web' },
  'tag-resources': { Tag: 'web', Resources: [{ resource_id: 42, resource_type: 'droplet' }] },
  'untag-resources': { Tag: 'web', Resources: [{ resource_id: '42', resource_type: 'droplet' }] },
};
/** Action types the description's type enum leaves out, though the API takes them. */
const UNLISTED_TYPES = new Set(['enable_private_networking', 'change_backup_policy']);
const template = (path: string) => path.replace(/\{\w+\}/g, '{}');

describe('requests on the wire', () => {
  it.each(vmsTools.map((t) => [t.name, operationOf(t.name), t] as const))(
    '%s calls %s, with noResponseBody exactly where the operation answers without a body',
    (_, operationId, t) => {
      const expected = operation(operationId);
      expect(t.request?.method).toBe(expected.method);
      expect(template(t.request?.path ?? '')).toBe(template(expected.path));
      expect(Boolean(t.request?.noResponseBody)).toBe(noResponseBody(operationId));
    },
  );

  it('vm-create sends the numeric image id, backups/monitoring defaulting to false, nothing unset', () => {
    const sent = request('vm-create', {
      Name: 'web-1',
      Size: 's-1vcpu-1gb',
      ImageID: UBUNTU,
      Region: 'nyc3',
    });
    expect(sent).toMatchObject({ method: 'POST', path: '/v2/droplets' });
    expect(sent.body).toEqual({
      name: 'web-1',
      size: 's-1vcpu-1gb',
      image: UBUNTU,
      region: 'nyc3',
      backups: false,
      monitoring: false,
    });
    expect(validateRequest('droplets_create', sent.body)).toEqual({ valid: true, errors: [] });
    const withBackups = request('vm-create', {
      Name: 'web-1',
      Size: 's-1vcpu-1gb',
      ImageID: UBUNTU,
      Region: 'nyc3',
      Backup: true,
    });
    expect(withBackups.body).toMatchObject({ backups: true, monitoring: false });
  });

  it('vm-create sends keys, tags, user data, VPC, IPv6 and the agent choice by their wire names', () => {
    const sent = request('vm-create', {
      Name: 'web-1',
      Size: 's-1vcpu-1gb',
      ImageID: UBUNTU,
      Region: 'nyc3',
      SshKeys: [289794, '3b:16:e4:bf:8b:00:8b:b8:59:8c:a9:d3:f0:19:fa:45', '512190'],
      Tags: ['env:prod', 'web'],
      UserData: '#cloud-config\nruncmd:\n  - touch /test.txt\n',
      VpcID: '760e09ef-dc84-11e8-981e-3cfdfeaae000',
      IPv6: true,
      WithVmAgent: false,
    });
    expect(sent.body).toMatchObject({
      ssh_keys: [289794, '3b:16:e4:bf:8b:00:8b:b8:59:8c:a9:d3:f0:19:fa:45', 512190],
      tags: ['env:prod', 'web'],
      user_data: '#cloud-config\nruncmd:\n  - touch /test.txt\n',
      vpc_uuid: '760e09ef-dc84-11e8-981e-3cfdfeaae000',
      ipv6: true,
      with_droplet_agent: false,
    });
    expect(validateRequest('droplets_create', sent.body)).toEqual({ valid: true, errors: [] });
    expect(request('vm-list', { Tag: 'env:prod' }).query).toMatchObject({ tag_name: 'env:prod' });
    expect(request('vm-list', {}).query).not.toHaveProperty('tag_name');
  });

  it('vm-create refuses a malformed key, a bad tag, user data over 64 KiB (in bytes) and a non-UUID VPC', () => {
    const base = { Name: 'web-1', Size: 's-1vcpu-1gb', ImageID: UBUNTU, Region: 'nyc3' };
    const input = vmsTools.find((t) => t.name === 'vm-create')!.input;
    const refused = (extra: Record<string, unknown>) => {
      const result = input.safeParse({ ...base, ...extra });
      return result.success ? [] : result.error.issues.map((i) => String(i.path[0]));
    };
    expect(refused({ SshKeys: ['not-a-fingerprint'] })).toEqual(['SshKeys']);
    expect(refused({ SshKeys: [0] })).toEqual(['SshKeys']);
    expect(refused({ Tags: ['has space'] })).toEqual(['Tags']);
    expect(refused({ UserData: 'x'.repeat(65_536) })).toEqual([]);
    // 2 bytes each in UTF-8: under the limit in characters, over it in bytes.
    expect(refused({ UserData: 'é'.repeat(40_000) })).toEqual(['UserData']);
    expect(refused({ VpcID: 'default' })).toEqual(['VpcID']);
    expect(refused({ IPv6: 'yes' })).toEqual(['IPv6']);
  });

  const posting = vmsTools.filter(
    (t) =>
      t.request?.method === 'POST' &&
      t.request.path.startsWith('/v2/droplets') &&
      t.request.path.endsWith('/actions'),
  );

  const VOLUME = '7d2bd4a4-37b6-11e9-8c6a-0a58ac14d123';
  it.each([
    ['volume-attach', { ID: VOLUME, VmID: 42 }, { type: 'attach', droplet_id: 42 }],
    ['volume-detach', { ID: VOLUME, VmID: 42 }, { type: 'detach', droplet_id: 42 }],
    [
      'volume-resize',
      { ID: VOLUME, SizeGigabytes: 100, Region: 'nyc3' },
      { type: 'resize', size_gigabytes: 100, region: 'nyc3' },
    ],
  ] as const)('%s sends its action type and fields to the volume', (name, args, body) => {
    const sent = request(name, args);
    expect(sent.path).toBe(`/v2/volumes/${VOLUME}/actions`);
    expect(sent.body).toEqual(body);
    expect(validateRequest('volumeActions_post_byId', sent.body)).toEqual({ valid: true, errors: [] });
  });

  it('volume-attach-by-name names the volume and its region; volume-create and vm-create send what the API takes', () => {
    const byName = request('volume-attach-by-name', { Name: 'logs', Region: 'nyc3', VmID: 42 });
    expect(byName).toMatchObject({ method: 'POST', path: '/v2/volumes/actions' });
    expect(byName.body).toEqual({ type: 'attach', volume_name: 'logs', region: 'nyc3', droplet_id: 42 });
    expect(validateRequest('volumeActions_post', byName.body)).toEqual({ valid: true, errors: [] });
    const created = request('volume-create', {
      Name: 'logs',
      SizeGigabytes: 10,
      Region: 'nyc3',
      FilesystemType: 'xfs',
      FilesystemLabel: 'logs',
      Tags: ['db'],
    });
    expect(created.body).toEqual({
      name: 'logs',
      size_gigabytes: 10,
      region: 'nyc3',
      filesystem_type: 'xfs',
      filesystem_label: 'logs',
      tags: ['db'],
    });
    expect(validateRequest('volumes_create', created.body)).toEqual({ valid: true, errors: [] });
    const vm = request('vm-create', {
      Name: 'web-1',
      Size: 's-1vcpu-1gb',
      ImageID: UBUNTU,
      Region: 'nyc3',
      Volumes: [VOLUME],
    });
    expect(vm.body).toMatchObject({ volumes: [VOLUME] });
    expect(validateRequest('droplets_create', vm.body)).toEqual({ valid: true, errors: [] });
    const input = tool('volume-create').input;
    const refused = (args: Record<string, unknown>) => {
      const result = input.safeParse(args);
      return result.success ? [] : result.error.issues.map((i) => String(i.path[0]));
    };
    expect(refused({ Name: 'logs', SizeGigabytes: 10 })).toEqual(['Region']);
    expect(refused({ Name: 'logs', SizeGigabytes: 10, SnapshotID: VOLUME })).toEqual([]);
    expect(refused({ Name: 'logs', SizeGigabytes: 10, Region: 'nyc3', FilesystemLabel: 'x' })).toEqual([
      'FilesystemLabel',
    ]);
    expect(
      refused({
        Name: 'logs',
        SizeGigabytes: 10,
        Region: 'nyc3',
        FilesystemType: 'xfs',
        FilesystemLabel: 'thirteen-long',
      }),
    ).toEqual(['FilesystemLabel']);
    expect(refused({ Name: 'Logs', SizeGigabytes: 10, Region: 'nyc3' })).toEqual(['Name']);
    expect(refused({ Name: 'logs', SizeGigabytes: 16_385, Region: 'nyc3' })).toEqual(['SizeGigabytes']);
  });

  it.each(posting.map((t) => [t.name, t] as const))('%s sends its action type and fields', (name, t) => {
    const byTag = name.endsWith('-vms-tag');
    const sent = request(name, { ...(byTag ? { Tag: 'web' } : { ID: 42 }), ...actionArgs[name] });
    expect(sent.path).toBe(byTag ? '/v2/droplets/actions' : '/v2/droplets/42/actions');
    expect(sent.query).toEqual(byTag ? { tag_name: 'web' } : {});
    expect(sent.body).toMatchObject({ type: t.request?.fixed?.type });
    const result = validateRequest(byTag ? 'dropletActions_post_byTag' : 'dropletActions_post', sent.body);
    // The description's action-type enum lacks some types the API accepts.
    expect(result.valid, result.errors.join('; ')).toBe(
      !UNLISTED_TYPES.has(t.request?.fixed?.type as string),
    );
  });

  it('vm-update-backup-policy nests plan, weekday and hour in backup_policy; refuses what the platform refuses', () => {
    expect(
      request('vm-update-backup-policy', { ID: 7, Plan: 'weekly', Weekday: 'WED', Hour: 8 }).body,
    ).toEqual({
      type: 'change_backup_policy',
      backup_policy: { plan: 'weekly', weekday: 'WED', hour: 8 },
    });
    expect(request('vm-update-backup-policy', { ID: 7, Plan: 'daily' }).body).toEqual({
      type: 'change_backup_policy',
      backup_policy: { plan: 'daily' },
    });
    const refused = (args: Record<string, unknown>) => {
      try {
        parseArgs(tool('vm-update-backup-policy'), { ID: 7, ...args });
        return [];
      } catch (error) {
        return (error as InputError).issues.map((i) => i.argument);
      }
    };
    expect(refused({ Plan: 'monthly' })).toEqual(['Plan']);
    expect(refused({ Plan: 'daily', Weekday: 'MON' })).toEqual(['Weekday']);
    expect(refused({ Plan: 'weekly', Weekday: 'Wednesday' })).toEqual(['Weekday']);
    expect(refused({ Plan: 'weekly', Hour: 5 })).toEqual(['Hour']);
  });

  it('the VM lists page by 50; the tag tools send the bodies the description takes', () => {
    for (const name of ['vm-list-snapshots', 'vm-list-backups', 'vm-list-kernels']) {
      expect(request(name, { ID: 7 }).query, name).toEqual({ page: 1, per_page: 50 });
    }
    expect(request('tag-list', { PerPage: 5 }).query).toEqual({ page: 1, per_page: 5 });
    const created = request('tag-create', { Name: 'env:prod' });
    expect(created.body).toEqual({ name: 'env:prod' });
    expect(validateRequest('tags_create', created.body)).toEqual({ valid: true, errors: [] });
    expect(request('tag-get', { Name: 'env:prod' }).path).toBe('/v2/tags/env:prod');
    const resources = [
      { resource_id: 42, resource_type: 'droplet' },
      { resource_id: '171000001', resource_type: 'image' },
      { resource_id: '3d80cb72-342b-4aaa-b92e-4e4abb24a933', resource_type: 'volume' },
    ];
    for (const [name, operationId] of [
      ['tag-resources', 'tags_assign_resources'],
      ['untag-resources', 'tags_unassign_resources'],
    ] as const) {
      const sent = request(name, { Tag: 'web', Resources: resources });
      expect(sent.body).toEqual({
        resources: resources.map((r) => ({ ...r, resource_id: String(r.resource_id) })),
      });
      expect(validateRequest(operationId, sent.body)).toEqual({ valid: true, errors: [] });
    }
  });

  it('tag names and resources are checked before any request', () => {
    const refused = (name: string, args: Record<string, unknown>) => {
      try {
        parseArgs(tool(name), args);
        return [];
      } catch (error) {
        return (error as InputError).issues.map((i) => i.argument);
      }
    };
    expect(refused('tag-create', { Name: 'has space' })).toEqual(['Name']);
    expect(refused('tag-create', { Name: 't'.repeat(256) })).toEqual(['Name']);
    expect(refused('tag-get', { Name: 'a/b' })).toEqual(['Name']);
    const tagging = (Resources: unknown) => refused('tag-resources', { Tag: 'web', Resources });
    expect(tagging([])).toEqual(['Resources']);
    expect(tagging([{ resource_id: 1, resource_type: 'load_balancer' }])).toEqual([
      'Resources.0.resource_type',
    ]);
    expect(tagging([{ resource_id: 'abc', resource_type: 'droplet' }])).toEqual(['Resources.0.resource_id']);
    expect(tagging([{ resource_id: 42, resource_type: 'database' }])).toEqual(['Resources.0.resource_id']);
    expect(tagging([{ resource_id: 42, resource_type: 'droplet', extra: 1 }])).toEqual(['Resources.0.extra']);
    expect(
      tagging([{ resource_id: '9cc10173-e9ea-4176-9dbc-a4cee4c4ff30', resource_type: 'database' }]),
    ).toEqual([]);
  });

  it('resize-vm sends disk false unless ResizeDisk; rebuild-vm-by-slug sends the slug as image', () => {
    expect(request('resize-vm', { ID: 1, Size: 's-2vcpu-4gb' }).body).toEqual({
      type: 'resize',
      size: 's-2vcpu-4gb',
      disk: false,
    });
    expect(request('resize-vm', { ID: 1, Size: 's-2vcpu-4gb', ResizeDisk: true }).body).toMatchObject({
      disk: true,
    });
    expect(request('rebuild-vm-by-slug', { ID: 1, ImageSlug: 'debian-12-x64' }).body).toEqual({
      type: 'rebuild',
      image: 'debian-12-x64',
    });
    expect(request('change-kernel-vm', { ID: 1, KernelID: 10487 }).body).toEqual({
      type: 'change_kernel',
      kernel: 10487,
    });
  });
});

let connection: SandboxConnection;
beforeAll(async () => {
  connection = await connectSandbox();
});
afterAll(async () => {
  await connection.close();
});

describe('arguments are checked before any request', () => {
  it('path ids and the Tag of the by-tag tools refuse dot segments, slashes and control characters', async () => {
    const seen: string[] = [];
    const sandbox = await connectSandbox({ log: (line) => seen.push(line) });
    try {
      const problems: string[] = [];
      for (const t of vmsTools as readonly AnyTool[]) {
        const byTag = t.name.endsWith('-vms-tag');
        const valid: Record<string, unknown> = {
          ...(byTag ? { Tag: 'web' } : { ID: 42, VmID: 42, ActionID: 7 }),
          ...actionArgs[t.name],
        };
        const args = Object.fromEntries(Object.entries(valid).filter(([arg]) => arg in t.input.shape));
        const targets = byTag
          ? ['Tag']
          : (t.request?.path.match(/\{\w+\}/g) ?? []).map((p) => p.slice(1, -1));
        for (const arg of targets) {
          for (const value of PATH_HOSTILE) {
            const error = await runTool(t, { ...args, [arg]: value }, { client: sandbox.client }).catch(
              (e: unknown) => e,
            );
            if (!(error instanceof InputError && error.issues.some((i) => i.argument === arg))) {
              problems.push(`${t.name} ${arg}=${JSON.stringify(value)}: ${String(error)}`);
            }
          }
        }
      }
      expect(problems).toEqual([]);
      expect(seen).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });

  it("names and slugs have the platform's character set and length", () => {
    const refused = (name: string, args: Record<string, unknown>) => {
      try {
        parseArgs(tool(name), args);
        return [];
      } catch (error) {
        return (error as InputError).issues.map((i) => i.argument);
      }
    };
    const vm = { Name: 'web-1', Size: 's-1vcpu-1gb', ImageID: UBUNTU, Region: 'nyc3' };
    expect(refused('vm-create', vm)).toEqual([]);
    expect(refused('vm-create', { ...vm, Name: 'web_1' })).toEqual(['Name']);
    expect(refused('vm-create', { ...vm, Name: `${'a'.repeat(255)}b` })).toEqual(['Name']);
    expect(refused('vm-create', { ...vm, Size: 'S 1' })).toEqual(['Size']);
    expect(refused('vm-create', { ...vm, Region: 'new york' })).toEqual(['Region']);
    expect(refused('rename-vm', { ID: 1, Name: 'web-2.' })).toEqual(['Name']);
    expect(refused('rebuild-vm-by-slug', { ID: 1, ImageSlug: `u${'x'.repeat(64)}` })).toEqual(['ImageSlug']);
    expect(refused('snapshot-vm', { ID: 1, Name: 's'.repeat(256) })).toEqual(['Name']);
    expect(refused('power-on-vms-tag', { Tag: 'env:prod' })).toEqual([]);
    expect(refused('power-on-vms-tag', { Tag: 'env prod' })).toEqual(['Tag']);
    expect(refused('power-on-vms-tag', { Tag: 't'.repeat(256) })).toEqual(['Tag']);
  });
});

describe('vmsApi', () => {
  it('creates, gets, acts on and deletes a VM with typed calls', async () => {
    const vms = vmsApi(connection.client);
    const { droplet } = await vms.vmCreate({
      Name: 'lib-1',
      Size: 's-1vcpu-1gb',
      ImageID: UBUNTU,
      Region: 'nyc3',
    });
    expect(droplet.status).toBe('new');
    await connection.sandbox.advanceClock(3_000);
    expect((await vms.vmGet({ ID: droplet.id })).droplet.status).toBe('active');
    const { action } = await vms.powerOffVm({ ID: droplet.id });
    expect(action.type).toBe('power_off');
    await connection.sandbox.advanceClock(2_000);
    expect((await vms.vmAction({ VmID: droplet.id, ActionID: action.id })).action.status).toBe('completed');
    expect((await vms.vmList({})).droplets.map((d) => d.id)).toContain(droplet.id);
    await expect(vms.vmDelete({ ID: droplet.id })).resolves.toEqual({ ok: true });
    await expect(vms.vmGet({ ID: droplet.id })).rejects.toBeInstanceOf(ClientApiError);
  });

  it('creates a VM from a public image slug, as the platform takes one, or from an id given as digits', async () => {
    const vms = vmsApi(connection.client);
    const { droplet } = await vms.vmCreate({
      Name: 'lib-slug',
      Size: 's-1vcpu-1gb',
      ImageID: 'ubuntu-24-04-x64',
      Region: 'nyc3',
    });
    expect(droplet.image.slug).toBe('ubuntu-24-04-x64');
    expect(
      request('vm-create', { Name: 'a', Size: 's-1vcpu-1gb', ImageID: 'ubuntu-24-04-x64', Region: 'nyc3' })
        .body,
    ).toMatchObject({ image: 'ubuntu-24-04-x64' });
    expect(
      request('vm-create', { Name: 'a', Size: 's-1vcpu-1gb', ImageID: String(UBUNTU), Region: 'nyc3' }).body,
    ).toMatchObject({ image: UBUNTU });
    await expect(
      vms.vmCreate({ Name: 'lib-bad', Size: 's-1vcpu-1gb', ImageID: 'Ubuntu 24.04', Region: 'nyc3' }),
    ).rejects.toThrow(/ImageID/);
  });

  it('tags a VM, reads its snapshots, backups, kernels, policy and neighbours, as the description answers them', async () => {
    const vms = vmsApi(connection.client);
    const { droplet } = await vms.vmCreate({
      Name: 'lib-tags',
      Size: 's-1vcpu-1gb',
      ImageID: UBUNTU,
      Region: 'nyc3',
      Tags: ['lib-new'],
    });
    await connection.sandbox.advanceClock(3_000);
    const created = await vms.tagCreate({ Name: 'lib-web' });
    assertValidResponse('tags_create', 201, created);
    expect(created.tag.resources.count).toBe(0);
    await expect(
      vms.tagResources({
        Tag: 'lib-web',
        Resources: [{ resource_id: droplet.id, resource_type: 'droplet' }],
      }),
    ).resolves.toEqual({ ok: true });
    expect((await vms.vmGet({ ID: droplet.id })).droplet.tags).toEqual(['lib-new', 'lib-web']);
    expect((await vms.vmList({ Tag: 'lib-web' })).droplets.map((d) => d.id)).toEqual([droplet.id]);
    const tag = await vms.tagGet({ Name: 'lib-web' });
    assertValidResponse('tags_get', 200, tag);
    expect(tag.tag.resources.droplets).toEqual({
      count: 1,
      last_tagged_uri: expect.stringMatching(new RegExp(`/v2/droplets/${droplet.id}$`)),
    });
    const listed = await vms.tagList({});
    assertValidResponse('tags_list', 200, listed);
    expect(listed.tags.map((t) => t.name)).toEqual(expect.arrayContaining(['lib-new', 'lib-web']));

    await vms.snapshotVm({ ID: droplet.id, Name: 'lib-snap' });
    await connection.sandbox.advanceClock(4_000);
    const snapshots = await vms.vmListSnapshots({ ID: droplet.id });
    assertValidResponse('droplets_list_snapshots', 200, snapshots);
    expect(snapshots.snapshots).toEqual([expect.objectContaining({ name: 'lib-snap', type: 'snapshot' })]);
    await vms.enableBackupsVm({ ID: droplet.id });
    await connection.sandbox.advanceClock(7_000);
    const backups = await vms.vmListBackups({ ID: droplet.id });
    assertValidResponse('droplets_list_backups', 200, backups);
    expect(backups.backups).toEqual([expect.objectContaining({ type: 'backup' })]);
    const { action } = await vms.vmUpdateBackupPolicy({
      ID: droplet.id,
      Plan: 'weekly',
      Weekday: 'FRI',
      Hour: 16,
    });
    expect(action.type).toBe('change_backup_policy');
    await connection.sandbox.advanceClock(3_000);
    const policy = await vms.vmGetBackupPolicy({ ID: droplet.id });
    assertValidResponse('droplets_get_backup_policy', 200, policy);
    expect(policy.policy).toMatchObject({
      backup_enabled: true,
      backup_policy: { plan: 'weekly', weekday: 'FRI', hour: 16, retention_period_days: 28 },
    });
    const kernels = await vms.vmListKernels({ ID: droplet.id, PerPage: 2 });
    assertValidResponse('droplets_list_kernels', 200, kernels);
    expect(kernels.kernels).toHaveLength(2);
    const neighbors = await vms.vmListNeighbors({ ID: droplet.id });
    assertValidResponse('droplets_list_neighbors', 200, neighbors);
    const associated = await vms.vmListAssociatedResources({ ID: droplet.id });
    assertValidResponse('droplets_list_associatedResources', 200, associated);
    expect(associated.snapshots.map((s) => s.name)).toEqual(['lib-snap']);

    await vms.untagResources({
      Tag: 'lib-web',
      Resources: [{ resource_id: droplet.id, resource_type: 'droplet' }],
    });
    expect((await vms.tagGet({ Name: 'lib-web' })).tag.resources.count).toBe(0);
    await expect(vms.tagDelete({ Name: 'lib-new' })).resolves.toEqual({ ok: true });
    expect((await vms.vmGet({ ID: droplet.id })).droplet.tags).toEqual([]);
    const missing = await vms.tagGet({ Name: 'lib-new' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ClientApiError);
    expect(missing).toMatchObject({ status: 404 });
  });

  it('refuses bad arguments before any request', async () => {
    const vms = vmsApi(connection.client);
    await expect(vms.resizeVm({ ID: 1 } as never)).rejects.toBeInstanceOf(InputError);
    await expect(vms.vmGet({ ID: 'x' } as never)).rejects.toThrow(/argument ID/);
  });
});
