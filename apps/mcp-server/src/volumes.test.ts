/**
 * Volumes and projects through a real MCP client, over stdio, against the built-in sandbox keeping
 * its state in a file: a VM gets a volume (attached at creation, detached, attached by name,
 * resized, snapshotted, a second volume made from the snapshot), the wait tool follows a volume
 * action, the resources move into a project, and the guard holds: a protection rule on a volume
 * refuses every tool that changes it (attach, detach, delete), and detach and delete are listed as
 * destructive.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, hintsOf, okCall } from './testing/client.js';
import { killAll, stdioClient } from './testing/main.js';

// Servers started through ./testing/main.js that a test left running.
afterAll(killAll);

const UBUNTU = 161928327;
/** Each test's own sandbox state: a test sees only what it made, whatever ran before it. */
let statePath = '';
let client: Client;
let close: () => Promise<void>;
let helper: Sandbox;

// biome-ignore lint/suspicious/noExplicitAny: tool results are checked field by field.
type Json = any;

const ok = (name: string, args: Record<string, unknown> = {}): Promise<Json> => okCall(client, name, args);

async function refused(name: string, args: Record<string, unknown>, text: string) {
  const result = await call(client, name, args);
  expect(result.isError, `${name}: ${result.text}`).toBe(true);
  expect(result.text).toContain(text);
}

beforeEach(async () => {
  statePath = join(mkdtempSync(join(tmpdir(), 'cloudcall-mcp-volumes-')), 'sandbox.json');
  helper = await startSandbox({ statePath });
  ({ client, close } = await stdioClient([
    '--sandbox',
    '--sandbox-state',
    statePath,
    '--families',
    'account,vms',
    '--protect',
    'name:keep-me',
  ]));
});
afterEach(async () => {
  await close();
  await helper.close();
});

/** A 10 GB volume `data` attached to the VM `with-volume` at its creation. */
async function vmWithVolume(): Promise<{ vm: number; data: string }> {
  const { volume } = await ok('volume-create', {
    Name: 'data',
    SizeGigabytes: 10,
    Region: 'nyc3',
    FilesystemType: 'ext4',
    Tags: ['storage'],
  });
  const { droplet } = await ok('vm-create', {
    Name: 'with-volume',
    Size: 's-1vcpu-1gb',
    ImageID: UBUNTU,
    Region: 'nyc3',
    Volumes: [volume.id],
  });
  return { vm: droplet.id, data: volume.id };
}

describe('volumes over MCP stdio', () => {
  it('lists the volume and project tools with their annotations', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of [
      'volume-detach',
      'volume-delete',
      'volume-resize',
      'volume-snapshot-delete',
      'project-delete',
    ]) {
      expect(hintsOf(byName.get(name) ?? {}).destructiveHint, name).toBe(true);
    }
    for (const name of [
      'volume-attach',
      'volume-attach-by-name',
      'volume-create',
      'volume-snapshot-create',
      'project-assign-resources',
    ]) {
      expect(hintsOf(byName.get(name) ?? {}).destructiveHint, name).toBe(false);
    }
    for (const name of [
      'volume-list',
      'volume-get',
      'volume-action-list',
      'volume-action-get',
      'volume-snapshot-list',
      'project-list',
      'project-list-resources',
    ]) {
      expect(hintsOf(byName.get(name) ?? {}).readOnlyHint, name).toBe(true);
    }
    expect(Object.keys((byName.get('vm-create')?.inputSchema.properties ?? {}) as object)).toContain(
      'Volumes',
    );
  });

  it('creates a VM with a volume attached, detaches it, attaches it by name, waiting on the action', async () => {
    const the = await vmWithVolume();
    expect((await ok('vm-get', { ID: the.vm })).droplet.volume_ids).toEqual([the.data]);
    const detached = await ok('volume-detach', { ID: the.data, VmID: the.vm });
    expect(detached.action).toMatchObject({
      type: 'detach_volume',
      status: 'in-progress',
      resource_type: 'volume',
    });
    // The wait tool follows a volume action to its end: at its first progress (the action still in
    // progress), the sandbox clock moves past the action's few seconds, as time would.
    let advanced: Promise<void> | undefined;
    const waited = (await client.callTool(
      { name: 'wait', arguments: { Kind: 'action', ID: String(detached.action.id), TimeoutSeconds: 60 } },
      undefined,
      {
        onprogress: () => {
          advanced ??= helper.advanceClock(10_000);
        },
      },
    )) as CallToolResult;
    await advanced;
    expect(waited.isError, JSON.stringify(waited.content)).toBeFalsy();
    expect(advanced).toBeDefined();
    expect(waited.structuredContent).toMatchObject({
      action: { id: detached.action.id, status: 'completed' },
    });
    expect((await ok('vm-get', { ID: the.vm })).droplet.volume_ids).toEqual([]);

    const attached = await ok('volume-attach-by-name', { Name: 'data', Region: 'nyc3', VmID: the.vm });
    expect(attached.action.type).toBe('attach_volume');
    expect((await ok('volume-get', { ID: the.data })).volume.droplet_ids).toEqual([the.vm]);
    const actions = await ok('volume-action-list', { ID: the.data });
    expect(actions.actions.map((a: Json) => a.type)).toEqual(['attach_volume', 'detach_volume']);
    expect((await ok('volume-action-get', { ID: the.data, ActionID: attached.action.id })).action.id).toBe(
      attached.action.id,
    );
  });

  it("refuses what the platform refuses with the platform's message, and bad input before any request", async () => {
    const the = await vmWithVolume();
    await refused('volume-delete', { ID: the.data }, 'detach it before deleting it');
    await refused('volume-resize', { ID: the.data, SizeGigabytes: 5 }, 'a volume only grows');
    await refused('volume-create', { Name: 'Data', SizeGigabytes: 10, Region: 'nyc3' }, 'lowercase letters');
    await refused(
      'volume-create',
      { Name: 'nowhere', SizeGigabytes: 10 },
      'is required unless SnapshotID is given',
    );
    await refused('volume-attach', { ID: the.data, VmID: 'web' }, 'VmID');
  });

  it('resizes, snapshots, and makes a volume of the snapshot', async () => {
    const the = { ...(await vmWithVolume()), snapshot: '', copy: '' };
    const resized = await ok('volume-resize', { ID: the.data, SizeGigabytes: 20 });
    expect(resized.action.type).toBe('resize_volume');
    const { snapshot } = await ok('volume-snapshot-create', { ID: the.data, Name: 'first' });
    the.snapshot = snapshot.id;
    expect(snapshot).toMatchObject({ min_disk_size: 20, regions: ['nyc3'], resource_type: 'volume' });
    expect((await ok('volume-snapshot-list', { ID: the.data })).snapshots.map((s: Json) => s.id)).toEqual([
      the.snapshot,
    ]);
    expect((await ok('volume-snapshot-get', { ID: the.snapshot })).snapshot.name).toBe('first');
    const { volume } = await ok('volume-create', {
      Name: 'copy',
      SizeGigabytes: 20,
      SnapshotID: the.snapshot,
    });
    the.copy = volume.id;
    expect(volume.region.slug).toBe('nyc3');
    expect((await ok('volume-list', { Name: 'copy' })).volumes.map((v: Json) => v.id)).toEqual([the.copy]);
  });

  it('holds a protection rule on a volume: its attach, detach and delete are refused, nothing sent', async () => {
    const the = await vmWithVolume();
    const { volume } = await ok('volume-create', { Name: 'keep-me', SizeGigabytes: 1, Region: 'nyc3' });
    // Every tool that changes a protected resource is refused, not only the destructive ones.
    await refused('volume-attach', { ID: volume.id, VmID: the.vm }, 'is protected by rule name:keep-me');
    await refused('volume-detach', { ID: volume.id, VmID: the.vm }, 'is protected by rule name:keep-me');
    await refused('volume-delete', { ID: volume.id }, 'is protected by rule name:keep-me');
    // Nothing was sent: the volume is still there, attached to nothing.
    expect((await ok('volume-get', { ID: volume.id })).volume.droplet_ids).toEqual([]);
  });
});

describe('projects over MCP stdio', () => {
  it('creates a project, moves the VM and its volume into it, and deletes it once emptied', async () => {
    const the = { ...(await vmWithVolume()), project: '' };
    const { project: first } = await ok('project-get-default');
    expect(first.is_default).toBe(true);
    // What is made lands in the default project.
    const inDefault = await ok('project-list-resources', { ID: first.id, PerPage: 200 });
    expect(inDefault.resources.map((r: Json) => r.urn)).toEqual(
      expect.arrayContaining([`do:droplet:${the.vm}`, `do:volume:${the.data}`]),
    );

    const { project } = await ok('project-create', {
      Name: 'storage',
      Purpose: 'Data',
      Environment: 'Staging',
    });
    the.project = project.id;
    const assigned = await ok('project-assign-resources', {
      ID: the.project,
      Resources: [`do:droplet:${the.vm}`, `do:volume:${the.data}`],
    });
    expect(assigned.resources.map((r: Json) => r.status)).toEqual(['assigned', 'assigned']);
    const held = await ok('project-list-resources', { ID: the.project });
    expect(held.resources.map((r: Json) => r.urn)).toEqual([`do:droplet:${the.vm}`, `do:volume:${the.data}`]);
    const updated = await ok('project-update', { ID: the.project, Description: 'volumes' });
    expect(updated.project).toMatchObject({
      name: 'storage',
      description: 'volumes',
      environment: 'Staging',
    });
    await refused(
      'project-assign-resources',
      { ID: the.project, Resources: ['droplet:1'] },
      'expected a URN',
    );
    await refused('project-delete', { ID: the.project }, 'holds 2 resource');
    await refused('project-delete', { ID: first.id }, 'the default project cannot be deleted');
    await ok('project-assign-resources', {
      ID: first.id,
      Resources: [`do:droplet:${the.vm}`, `do:volume:${the.data}`],
    });
    expect(await ok('project-delete', { ID: the.project })).toEqual({ ok: true });
    const renamed = await ok('project-update-default', { Description: 'everything else' });
    expect(renamed.project).toMatchObject({ id: first.id, description: 'everything else' });
    expect((await ok('project-list')).projects.map((p: Json) => p.id)).toEqual([first.id]);
  });
});
