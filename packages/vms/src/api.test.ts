/**
 * The vms family as a library: the requests its tools send (checked against the API description),
 * arguments refused before any request, and the typed API bound to a client, against the sandbox.
 */
import { type AnyTool, buildRequest, ClientApiError, InputError, parseArgs, runTool } from '@cloudcall/core';
import { connectSandbox, type SandboxConnection } from '@cloudcall/sandbox';
import { PATH_HOSTILE } from '@cloudcall/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The description subset is a workspace tool; imported by path so the published package needs nothing.
import { noResponseBody, operation, validateRequest } from '../../../tooling/openapi/index.js';
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
};
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

  const posting = vmsTools.filter((t) => t.request?.method === 'POST' && t.name !== 'vm-create');

  it.each(posting.map((t) => [t.name, t] as const))('%s sends its action type and fields', (name, t) => {
    const byTag = name.endsWith('-vms-tag');
    const sent = request(name, { ...(byTag ? { Tag: 'web' } : { ID: 42 }), ...actionArgs[name] });
    expect(sent.path).toBe(byTag ? '/v2/droplets/actions' : '/v2/droplets/42/actions');
    expect(sent.query).toEqual(byTag ? { tag_name: 'web' } : {});
    expect(sent.body).toMatchObject({ type: t.request?.fixed?.type });
    const result = validateRequest(byTag ? 'dropletActions_post_byTag' : 'dropletActions_post', sent.body);
    // The description's action-type enum lacks enable_private_networking, which the API accepts.
    expect(result.valid, result.errors.join('; ')).toBe(
      t.request?.fixed?.type !== 'enable_private_networking',
    );
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

  it('refuses bad arguments before any request', async () => {
    const vms = vmsApi(connection.client);
    await expect(vms.resizeVm({ ID: 1 } as never)).rejects.toBeInstanceOf(InputError);
    await expect(vms.vmGet({ ID: 'x' } as never)).rejects.toThrow(/argument ID/);
  });
});
