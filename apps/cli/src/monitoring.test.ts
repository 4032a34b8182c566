import { describe, expect, it } from 'vitest';
import { cliRunner, sandboxBeside, VM_FLAGS } from './testing/run.js';

const cli = cliRunner();
const { ok } = cli;
/** A second sandbox on the CLI's state file, to move its clock. */
const helper = sandboxBeside(cli);

/** A command's table (`-o table`), expecting exit 0. */
async function table(...args: string[]): Promise<string> {
  const result = await cli.sandbox(...args, '-o', 'table');
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** A command the guard refuses: its exit code is not 0, its message says why, the state is as it was. */
async function refused(text: string, ...args: string[]) {
  const before = await cli.stateText();
  const result = await cli.sandbox(...args);
  expect(result.code, args.join(' ')).not.toBe(0);
  expect(result.stderr).toContain(text);
  expect(await cli.stateText()).toBe(before);
}

describe('monitoring through the CLI, in doctl words', () => {
  it('alert policies: create on a VM, list in doctl columns, update, delete guarded', async () => {
    const { droplet } = await ok('compute', 'droplet', 'create', 'watched', ...VM_FLAGS);
    const { policy } = await ok(
      'monitoring',
      'alert',
      'create',
      '--type',
      'v1/insights/droplet/cpu',
      '--compare',
      'GreaterThan',
      '--value',
      '80',
      '--window',
      '5m',
      '--entities',
      String(droplet.id),
      '--emails',
      'ops@example.com,dev@example.com',
      '--slack-channels',
      '#ops',
      '--slack-urls',
      'https://hooks.slack.com/services/T/B/X',
      '--description',
      'CPU high',
    );
    expect(policy).toMatchObject({
      type: 'v1/insights/droplet/cpu',
      value: 80,
      entities: [String(droplet.id)],
      alerts: { email: ['ops@example.com', 'dev@example.com'], slack: [{ channel: '#ops' }] },
    });
    const listed = (await table('monitoring', 'alert', 'list')).split('\n');
    expect(listed[0]?.split(/\s{2,}/)).toEqual([
      'UUID',
      'Type',
      'Description',
      'Compare',
      'Value',
      'Window',
      'Entities',
      'Tags',
      'Emails',
      'Slack Channels',
      'Enabled',
    ]);
    expect(listed[1]).toMatch(
      new RegExp(
        `^${policy.uuid}\\s+v1/insights/droplet/cpu\\s+CPU high\\s+GreaterThan\\s+80\\s+5m\\s+${droplet.id}\\s+ops@example.com,dev@example.com\\s+#ops\\s+true$`,
      ),
    );

    const updated = await ok('monitoring', 'alert', 'update', policy.uuid, '--value', '90', '--window', '1h');
    expect(updated.policy).toEqual({ ...policy, value: 90, window: '1h' });
    expect((await ok('monitoring', 'alert', 'get', policy.uuid)).policy).toEqual(updated.policy);

    // Bad input is refused before any request.
    await refused('--window', 'monitoring', 'alert', 'update', policy.uuid, '--window', '15m');
    // Destructive: refused off a terminal without --force; a protected policy even with it.
    await refused('is destructive', 'monitoring', 'alert', 'delete', policy.uuid);
    await refused(
      `is protected by rule id:${policy.uuid}`,
      'monitoring',
      'alert',
      'delete',
      policy.uuid,
      '--force',
      '--protect',
      `id:${policy.uuid}`,
    );
    await ok('monitoring', 'alert', 'delete', policy.uuid, '--force');
    expect((await ok('monitoring', 'alert', 'list')).policies).toEqual([]);
  });

  it('alert --entities: VMs by name or id for a VM metric, looked up before anything is sent', async () => {
    const { droplet: web } = await ok('compute', 'droplet', 'create', 'entity-web', ...VM_FLAGS);
    const { droplet: db } = await ok('compute', 'droplet', 'create', 'entity-db', ...VM_FLAGS);
    const alert = (type: string, entities: string) => [
      'monitoring',
      'alert',
      'create',
      '--type',
      type,
      '--compare',
      'GreaterThan',
      '--value',
      '70',
      '--window',
      '5m',
      '--entities',
      entities,
      '--emails',
      'ops@example.com',
      '--description',
      'Watched by name',
    ];
    const { policy } = await ok(
      ...alert('v1/insights/droplet/memory_utilization_percent', `entity-web,${db.id}`),
    );
    expect(policy.entities).toEqual([String(web.id), String(db.id)]);
    // Updated by name too (the policy's type kept: a VM metric's).
    const updated = await ok('monitoring', 'alert', 'update', policy.uuid, '--entities', 'entity-db');
    expect(updated.policy.entities).toEqual([String(db.id)]);

    // A name no VM has: refused naming it, nothing made.
    await refused(
      '--entities: no VM has the id or name "entity-gone"',
      ...alert('v1/insights/droplet/cpu', 'entity-web,entity-gone'),
    );
    // Another kind's policy: its entities are not VM names, and go to the platform as they are.
    const lbaas = await cli.sandbox(...alert('v1/insights/lbaas/avg_cpu_utilization_percent', 'entity-web'));
    expect(lbaas.code).toBe(3);
    expect(lbaas.stderr).toContain('"entity-web" is not the id of one of your load balancers');
    await ok('monitoring', 'alert', 'delete', policy.uuid, '--force');
  });

  it('metrics droplet: a VM named, a window, a table of time and value', async () => {
    const { droplet } = await ok(
      'compute',
      'droplet',
      'create',
      'metered',
      ...VM_FLAGS,
      '--enable-monitoring',
    );
    await helper().advanceClock(1_800_000);
    const born = Math.ceil(Date.parse(droplet.created_at) / 60_000) * 60;
    const window = ['--start', String(born), '--end', new Date((born + 600) * 1000).toISOString()];
    const load = await ok('monitoring', 'metrics', 'droplet', 'load_5', 'metered', ...window);
    expect(load.data.result[0].metric).toEqual({ host_id: String(droplet.id) });
    expect(load.data.result[0].values).toHaveLength(11);

    const memory = (await table('monitoring', 'metrics', 'droplet', 'memory_free', 'metered', ...window))
      .trim()
      .split('\n');
    expect(memory[0]?.split(/\s{2,}/)).toEqual(['Time', 'Value', 'Series']);
    expect(memory).toHaveLength(12);
    expect(memory[1]).toMatch(
      new RegExp(`^${new Date(born * 1000).toISOString().replace('.000Z', 'Z')}\\s+\\d+$`),
    );

    // CPU's counters per mode, shown as the share of time busy between samples.
    const cpu = (await table('monitoring', 'metrics', 'droplet', 'cpu', 'metered', ...window))
      .trim()
      .split('\n');
    expect(cpu).toHaveLength(11);
    for (const row of cpu.slice(1)) {
      const [, value] = row.split(/\s{2,}/);
      expect(Number(value)).toBeGreaterThan(0);
      expect(Number(value)).toBeLessThan(100);
      expect(row).toMatch(/CPU used %$/);
    }

    const bandwidth = await ok(
      'monitoring',
      'metrics',
      'droplet',
      'bandwidth',
      'metered',
      '--interface',
      'public',
      '--direction',
      'outbound',
      ...window,
    );
    expect(bandwidth.data.result[0].metric).toMatchObject({ interface: 'public', direction: 'outbound' });
    await refused('bandwidth needs Interface', 'monitoring', 'metrics', 'droplet', 'bandwidth', 'metered');
  });

  it('uptime checks by name: create, state, alerts, update; a protected check refused, nothing sent', async () => {
    const { check } = await ok(
      'monitoring',
      'uptime',
      'create',
      'site',
      '--target',
      'https://example.com',
      '--regions',
      'us_east,eu_west',
    );
    expect(check).toMatchObject({
      name: 'site',
      type: 'https',
      regions: ['us_east', 'eu_west'],
      enabled: true,
    });
    const checks = (await table('monitoring', 'uptime', 'list')).split('\n');
    expect(checks[0]?.split(/\s{2,}/)).toEqual(['ID', 'Name', 'Type', 'Target', 'Regions', 'Enabled']);
    expect(checks[1]).toMatch(
      new RegExp(`^${check.id}\\s+site\\s+https\\s+https://example.com\\s+us_east,eu_west\\s+true$`),
    );

    expect(await table('monitoring', 'uptime', 'get-state', 'site')).toMatch(/^us_east\s+CHECKING\s/m);
    await helper().advanceClock(10_000);
    expect(await table('monitoring', 'uptime', 'get-state', 'site')).toMatch(/^eu_west\s+(UP|DOWN)\s/m);

    const { alert } = await ok(
      'monitoring',
      'uptime',
      'alert',
      'create',
      'site',
      '--name',
      'slow',
      '--type',
      'latency',
      '--threshold',
      '500',
      '--period',
      '5m',
      '--emails',
      'ops@example.com',
    );
    expect(alert).toMatchObject({
      name: 'slow',
      type: 'latency',
      threshold: 500,
      comparison: 'greater_than',
    });
    const changed = await ok(
      'monitoring',
      'uptime',
      'alert',
      'update',
      'site',
      alert.id,
      '--threshold',
      '800',
    );
    expect(changed.alert).toEqual({ ...alert, threshold: 800 });
    const alerts = (await table('monitoring', 'uptime', 'alert', 'list', 'site')).split('\n');
    expect(alerts[0]?.split(/\s{2,}/)).toEqual([
      'ID',
      'Name',
      'Type',
      'Threshold',
      'Comparison',
      'Period',
      'Emails',
      'Slack Channels',
    ]);
    expect(alerts[1]).toMatch(
      new RegExp(`^${alert.id}\\s+slow\\s+latency\\s+800\\s+greater_than\\s+5m\\s+ops@example.com$`),
    );

    const renamed = await ok('monitoring', 'uptime', 'update', 'site', '--name', 'site-2', '--enabled=false');
    expect(renamed.check).toMatchObject({ id: check.id, name: 'site-2', enabled: false });

    await refused(
      'is protected by rule name:site-2',
      'monitoring',
      'uptime',
      'delete',
      'site-2',
      '--force',
      '--protect',
      'name:site-2',
    );
    await refused('is destructive', 'monitoring', 'uptime', 'alert', 'delete', 'site-2', alert.id);
    await ok('monitoring', 'uptime', 'alert', 'delete', 'site-2', alert.id, '--force');
    await ok('monitoring', 'uptime', 'delete', 'site-2', '--force');
    expect((await ok('monitoring', 'uptime', 'list')).checks).toEqual([]);
  });
});
