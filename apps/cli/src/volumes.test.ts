/**
 * Volumes and projects through the CLI run as a process against its sandbox, whose state persists
 * between invocations: volumes named where ids are expected, `--wait` on a volume action, a VM
 * created with a volume, the guard's confirmation for detach and delete, and resources moved into
 * a project by URN.
 */
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliRunner, type Json, VM_FLAGS } from './testing/run.js';

const cli = cliRunner();
const { ok } = cli;
/** A second sandbox on the CLI's state file, to move its clock. */
let helper: Sandbox;

beforeAll(async () => {
  await cli.stateText();
  helper = await startSandbox({ statePath: cli.statePath });
});
afterAll(async () => {
  await helper.close();
});

/**
 * A command with `--wait`, expecting exit 0: once it says what it waits for, the sandbox clock
 * moves on, so that nothing sleeps through the platform's time. The JSON printed.
 */
async function okWaiting(...args: string[]): Promise<Json> {
  const run = cli.start(['--sandbox', ...args]);
  // Named by the action's type and the volume's name.
  await run.until(/: action \w+ on volume logs: in-progress \(/);
  await helper.advanceClock(60_000);
  const result = await run.exit;
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.json;
}

describe('volumes through the CLI', () => {
  it('create, attach at VM creation, detach by name with --wait, attach, resize, snapshot, delete', async () => {
    const { volume } = await ok(
      'volume-create',
      '--name',
      'logs',
      '--size-gigabytes',
      '10',
      '--region',
      'nyc3',
    );
    expect(volume).toMatchObject({ name: 'logs', size_gigabytes: 10, droplet_ids: [] });
    const { droplet } = await ok('vm-create', '--name', 'cli-vol', ...VM_FLAGS, '--volumes', 'logs');
    expect(droplet.volume_ids).toEqual([volume.id]);

    // Destructive: refused without --force when no one can be asked, and nothing changes.
    const unconfirmed = await cli.sandbox('volume-detach', 'logs', '--vm-id', 'cli-vol');
    expect(unconfirmed.code).not.toBe(0);
    expect(unconfirmed.stderr).toContain('volume-detach is destructive');
    expect((await ok('volume-get', 'logs')).volume.droplet_ids).toEqual([droplet.id]);

    // Names where ids are expected (the volume's, the VM's); --wait follows the action to completion.
    const detached = await okWaiting('volume-detach', 'logs', '--vm-id', 'cli-vol', '--force', '--wait');
    expect(detached.action).toMatchObject({ type: 'detach_volume', status: 'completed' });
    expect((await ok('vm-get', 'cli-vol')).droplet.volume_ids).toEqual([]);

    const attached = await ok(
      'volume-attach-by-name',
      '--name',
      'logs',
      '--region',
      'nyc3',
      '--vm-id',
      'cli-vol',
    );
    expect(attached.action).toMatchObject({ type: 'attach_volume', status: 'in-progress' });
    // The wait polls the sandbox's time, which moves on while it waits.
    const waiting = ok('wait', '--kind', 'action', '--id', String(attached.action.id));
    await helper.advanceClock(60_000);
    const waited = await waiting;
    expect(waited.action.status).toBe('completed');

    const resized = await okWaiting('volume-resize', 'logs', '--size-gigabytes', '20', '--force', '--wait');
    expect(resized.action).toMatchObject({ type: 'resize_volume', status: 'completed' });
    const { snapshot } = await ok('volume-snapshot-create', 'logs', '--name', 'before-upgrade');
    expect(snapshot).toMatchObject({ min_disk_size: 20, resource_type: 'volume' });
    const listed = await ok('volume-snapshot-list', 'logs');
    expect(listed.snapshots.map((s: { id: string }) => s.id)).toEqual([snapshot.id]);

    // The platform's refusal, with its message: an attached volume is not deleted.
    const attachedDelete = await cli.sandbox('volume-delete', 'logs', '--force');
    expect(attachedDelete.code).not.toBe(0);
    expect(attachedDelete.stderr).toContain('detach it before deleting it');
    await ok('volume-detach', 'logs', '--vm-id', 'cli-vol', '--force');
    expect(await ok('volume-delete', 'logs', '--force')).toEqual({ ok: true });
    expect((await ok('volume-list')).volumes).toEqual([]);
    expect(await ok('volume-snapshot-delete', snapshot.id, '--force')).toEqual({ ok: true });
  }, 180_000);

  it('refuses bad input before any request', async () => {
    const result = await cli.sandbox(
      'volume-create',
      '--name',
      'Logs',
      '--size-gigabytes',
      '10',
      '--region',
      'nyc3',
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('--name: ');
    expect(result.stderr).toContain('lowercase letters');
  });
});

describe('projects through the CLI', () => {
  it('create a project, assign a VM by URN, list its resources, move it back, delete the project', async () => {
    const { project } = await ok('project-create', '--name', 'cli-project', '--purpose', 'Testing');
    const { droplet } = await ok('vm-create', '--name', 'cli-proj-vm', ...VM_FLAGS);
    const urn = `do:droplet:${droplet.id}`;
    const assigned = await ok('project-assign-resources', 'cli-project', '--resources', urn);
    expect(assigned.resources).toMatchObject([{ urn, status: 'assigned' }]);
    const held = await ok('project-list-resources', 'cli-project');
    expect(held.resources.map((r: { urn: string }) => r.urn)).toEqual([urn]);
    const refused = await cli.sandbox('project-delete', project.id, '--force');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('holds 1 resource');
    const { project: first } = await ok('project-get-default');
    await ok('project-assign-resources', first.id, '--resources', urn);
    expect(await ok('project-delete', 'cli-project', '--force')).toEqual({ ok: true });
  }, 120_000);
});
