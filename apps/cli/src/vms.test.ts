/**
 * The vms and images tools through the CLI against its sandbox, whose state persists between
 * invocations: a VM's whole lifecycle, and a bulk tag action across three VMs. Time passes by
 * moving the shared sandbox clock through a second sandbox on the same state file.
 */
import { readFileSync } from 'node:fs';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliRunner, VM_FLAGS } from './testing/run.js';

const UBUNTU = '161928327';

/** Each test's own config directory, and so its own sandbox state. */
let cli: ReturnType<typeof cliRunner>;
const sandbox = (...args: string[]) => cli.run(['--sandbox', ...args]);

// biome-ignore lint/suspicious/noExplicitAny: command output is checked field by field.
type Json = any;

async function ok(...args: string[]): Promise<Json> {
  const result = await sandbox(...args);
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.json;
}

let helper: Sandbox | undefined;
/** A second sandbox on the CLI's state file: moves the shared clock, tags VMs via the API. */
async function shared(): Promise<Sandbox> {
  helper ??= await startSandbox({ statePath: cli.statePath });
  return helper;
}
const advance = async (ms: number) => (await shared()).advanceClock(ms);

beforeEach(() => {
  cli = cliRunner();
});
afterEach(async () => {
  await helper?.close();
  helper = undefined;
});

describe('a VM lifecycle through the CLI', () => {
  it('create, wait until active, power off, snapshot, list the snapshot, restore, resize, delete', async () => {
    const created = await ok('vm-create', '--name', 'cli-1', ...VM_FLAGS);
    const id = String(created.droplet.id);
    expect(created.droplet).toMatchObject({ status: 'new', features: [] });

    // The boot takes 3 s of sandbox time.
    await advance(5_000);
    expect((await ok('vm-get', '--ID', id)).droplet.status).toBe('active');

    const off = await ok('power-off-vm', '--force', '--ID', id);
    expect(off.action).toMatchObject({ type: 'power_off', status: 'in-progress' });
    await advance(2_000);
    expect((await ok('vm-action', '--VmID', id, '--ActionID', String(off.action.id))).action.status).toBe(
      'completed',
    );
    expect((await ok('vm-get', '--ID', id)).droplet.status).toBe('off');

    const snap = await ok('snapshot-vm', '--ID', id, '--Name', 'cli-snap');
    expect(snap.action.type).toBe('snapshot');
    await advance(3_000);
    const mine = await ok('image-list', '--Type', 'user');
    const snapshot = mine.images.find((i: Json) => i.name === 'cli-snap');
    expect(snapshot).toMatchObject({ type: 'snapshot', public: false });

    await ok('restore-vm', '--force', '--ID', id, '--ImageID', String(snapshot.id));
    await advance(2_000);
    expect((await ok('vm-get', '--ID', id)).droplet.image.id).toBe(snapshot.id);

    await ok('resize-vm', '--force', '--ID', id, '--Size', 's-2vcpu-4gb', '--ResizeDisk', 'true');
    await advance(2_000);
    expect((await ok('vm-get', '--ID', id)).droplet).toMatchObject({ size_slug: 's-2vcpu-4gb', disk: 80 });

    const deleted = await ok('vm-delete', '--force', '--ID', id);
    expect(deleted).toEqual({ ok: true });
    const gone = await sandbox('vm-get', '--ID', id);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/API error 404/);
    // The MCP server's hint, from the same table.
    expect(gone.stderr).toMatch(/\nhint: No VM has that id: vm-list shows the VMs of the account\./);
  }, 60_000);

  it('a bulk tag action across three VMs', async () => {
    const server = await shared();
    const ids: number[] = [];
    for (const name of ['bulk-a', 'bulk-b', 'bulk-c']) {
      const response = await fetch(`${server.url}/v2/droplets`, {
        method: 'POST',
        headers: { authorization: 'Bearer test', 'content-type': 'application/json' },
        body: JSON.stringify({
          name,
          region: 'nyc3',
          size: 's-1vcpu-1gb',
          image: Number(UBUNTU),
          tags: ['bulk'],
        }),
      });
      expect(response.status).toBe(202);
      ids.push(((await response.json()) as Json).droplet.id);
    }
    await advance(3_000);
    const result = await ok('shutdown-vms-tag', '--force', '--Tag', 'bulk');
    expect(result.actions.map((a: Json) => a.resource_id).sort()).toEqual([...ids].sort());
    await advance(2_000);
    const listed = await ok('vm-list', '--PerPage', '100');
    const bulk = listed.droplets.filter((d: Json) => ids.includes(d.id));
    expect(bulk.map((d: Json) => d.status)).toEqual(['off', 'off', 'off']);

    const none = await sandbox('power-on-vms-tag', '--Tag', 'nobody');
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/API error 404/);
  });

  it('bad input exits 2 naming the argument; a refused create exits 3 naming the problem; state unchanged', async () => {
    const before = await cli.stateText();
    const missing = await sandbox('vm-create', '--Name', 'x', '--Size', 's-1vcpu-1gb', '--Region', 'nyc3');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--image-id: is required/);
    const wrongType = await sandbox('vm-get', '--ID', 'seven');
    expect(wrongType.code).toBe(2);
    const badSize = await sandbox(
      'vm-create',
      '--Name',
      'x',
      '--Size',
      's-1vcpu-512mb-10gb',
      '--ImageID',
      UBUNTU,
      '--Region',
      'lon1',
    );
    expect(badSize.code).toBe(3);
    expect(badSize.stderr).toMatch(/422 .*s-1vcpu-512mb-10gb is not available in region lon1/);
    expect(readFileSync(cli.statePath, 'utf8')).toBe(before);
  });

  it('tags beyond the spec: tag-create, tag-resources (JSON), vm-list --Tag, tag-get, snapshot-list, tag-delete', async () => {
    const created = await ok('vm-create', '--name', 'cli-tagged', ...VM_FLAGS, '--tags', 'cli-new');
    const id: number = created.droplet.id;
    expect((await ok('tag-get', '--Name', 'cli-new')).tag.resources.droplets.count).toBe(1);
    expect((await ok('tag-create', '--Name', 'cli-web')).tag.name).toBe('cli-web');
    const resources = JSON.stringify([{ resource_id: id, resource_type: 'droplet' }]);
    expect(await ok('tag-resources', '--Tag', 'cli-web', '--Resources', resources)).toEqual({ ok: true });
    expect((await ok('vm-list', '--Tag', 'cli-web')).droplets.map((d: Json) => d.id)).toEqual([id]);
    expect((await ok('tag-list', '--PerPage', '200')).tags.map((t: Json) => t.name)).toEqual(
      expect.arrayContaining(['cli-new', 'cli-web']),
    );
    await advance(3_000);
    await ok('snapshot-vm', '--ID', String(id), '--Name', 'cli-snap');
    await advance(4_000);
    const { snapshots } = await ok('snapshot-list', '--ResourceType', 'droplet', '--PerPage', '200');
    expect(snapshots.filter((s: Json) => s.resource_id === String(id)).map((s: Json) => s.name)).toEqual([
      'cli-snap',
    ]);

    const badType = await sandbox(
      'tag-resources',
      '--Tag',
      'cli-web',
      '--Resources',
      '[{"resource_id":1,"resource_type":"vm"}]',
    );
    expect(badType.code).toBe(2);
    expect(badType.stderr).toMatch(/--Resources \(at 0\.resource_type\): Invalid option: .*got "vm"/);
    expect(await ok('tag-delete', '--Name', 'cli-web', '--force')).toEqual({ ok: true });
    expect((await ok('vm-get', '--ID', String(id))).droplet.tags).toEqual(['cli-new']);
    const gone = await sandbox('tag-get', '--Name', 'cli-web');
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/API error 404/);
  });

  it('region-list names the regions a Region argument takes', async () => {
    const { regions, meta } = await ok('region-list', '--PerPage', '3');
    expect(regions).toHaveLength(3);
    expect(meta.total).toBeGreaterThan(3);
    const all = await ok('region-list', '--PerPage', '200');
    expect(all.regions.find((r: Json) => r.slug === 'lon1')).toMatchObject({ available: true });
  });
});
