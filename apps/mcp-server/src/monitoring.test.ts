/**
 * The monitoring family through a real MCP client, in process over the SDK's in-memory transport,
 * against the built-in sandbox (each test its own): offered on request only (`--families
 * monitoring`), alert policies on a VM, the VM's metrics, uptime checks with their state and
 * alerts, and the guard: a destructive delete asks first (the policy's id typed to confirm), and a
 * protected uptime check is refused with nothing sent.
 */
import type { Sandbox } from '@cloudcall/sandbox';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, hintsOf, okCall } from './testing/client.js';
import { inProcessServer } from './testing/in-process.js';

const UBUNTU = 161928327;

let client: Client;
let close: () => Promise<void>;
let helper: Sandbox;
/** The confirmation questions the server asked, and the answers the test gives them in turn. */
let asked: string[];
let answers: string[];

// biome-ignore lint/suspicious/noExplicitAny: tool results are checked field by field.
type Json = any;

const ok = (name: string, args: Record<string, unknown> = {}): Promise<Json> => okCall(client, name, args);
const stateText = () => helper.store.read((world) => JSON.stringify(world));

beforeEach(async () => {
  let sandbox: Sandbox | undefined;
  ({ client, close, sandbox } = await inProcessServer({
    families: 'vms,monitoring',
    protect: ['name:keep-site'],
    client: { capabilities: { elicitation: { form: {} } } },
  }));
  helper = sandbox as Sandbox;
  asked = [];
  answers = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push((request.params as { message: string }).message);
    return { action: 'accept', content: { confirm: answers.shift() ?? '' } };
  });
});
afterEach(async () => {
  await close();
});

describe('the monitoring family over MCP', () => {
  it('is offered on request, its tools annotated by rule', async () => {
    const { client: plain, close: closePlain } = await inProcessServer();
    try {
      const listed = (await plain.listTools()).tools.map((tool) => tool.name);
      expect(listed.filter((name) => name.startsWith('monitoring-'))).toEqual([]);
    } finally {
      await closePlain();
    }
    const tools = (await client.listTools()).tools.filter((tool) => tool.name.startsWith('monitoring-'));
    expect(tools).toHaveLength(17);
    const hints = Object.fromEntries(tools.map((tool) => [tool.name, hintsOf(tool)]));
    for (const name of [
      'monitoring-alert-delete',
      'monitoring-uptime-delete',
      'monitoring-uptime-alert-delete',
    ]) {
      expect(hints[name], name).toMatchObject({
        destructiveHint: true,
        idempotentHint: true,
        readOnlyHint: false,
      });
    }
    for (const name of ['monitoring-metrics-get', 'monitoring-uptime-get-state', 'monitoring-alert-list']) {
      expect(hints[name], name).toMatchObject({ readOnlyHint: true });
    }
    for (const name of ['monitoring-alert-update', 'monitoring-uptime-update']) {
      expect(hints[name], name).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
      });
    }
    const create = tools.find((tool) => tool.name === 'monitoring-alert-create');
    expect((create?.inputSchema.properties?.Type as { enum?: string[] } | undefined)?.enum).toContain(
      'v1/insights/droplet/cpu',
    );
    expect(create?.inputSchema.required?.sort()).toEqual([
      'Compare',
      'Description',
      'Type',
      'Value',
      'Window',
    ]);
  });

  it('an alert policy on a VM: create, read, change, delete once its id is typed', async () => {
    const { droplet } = await ok('vm-create', {
      Name: 'watched',
      Size: 's-1vcpu-1gb',
      ImageID: UBUNTU,
      Region: 'nyc3',
    });
    const { policy } = await ok('monitoring-alert-create', {
      Type: 'v1/insights/droplet/memory_utilization_percent',
      Compare: 'GreaterThan',
      Value: 90,
      Window: '10m',
      Description: 'memory high',
      Entities: [String(droplet.id)],
      Emails: ['ops@example.com'],
    });
    expect(policy).toMatchObject({ entities: [String(droplet.id)], window: '10m', enabled: true });
    expect((await ok('monitoring-alert-get', { UUID: policy.uuid })).policy).toEqual(policy);
    expect((await ok('monitoring-alert-list')).policies).toEqual([policy]);

    const { policy: changed } = await ok('monitoring-alert-update', {
      UUID: policy.uuid,
      Window: '1h',
      Tags: ['web'],
    });
    expect(changed).toEqual({ ...policy, window: '1h', tags: ['web'] });

    // A refused platform check arrives as the tool's error, nothing changed.
    const bad = await call(client, 'monitoring-alert-update', { UUID: policy.uuid, Value: 150 });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('at most 100');

    // Destructive: asked first; a wrong answer sends nothing, the id typed deletes.
    answers.push('memory high', policy.uuid);
    const wrong = await call(client, 'monitoring-alert-delete', { UUID: policy.uuid });
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toContain('was not confirmed');
    expect((await ok('monitoring-alert-list')).policies).toHaveLength(1);
    await ok('monitoring-alert-delete', { UUID: policy.uuid });
    expect(asked).toEqual([
      expect.stringContaining(`To run it, type ${policy.uuid}.`),
      expect.stringContaining(`To run it, type ${policy.uuid}.`),
    ]);
    expect((await ok('monitoring-alert-list')).policies).toEqual([]);
  });

  it("a VM's metrics over a window, and bad arguments refused before any request", async () => {
    const { droplet } = await ok('vm-create', {
      Name: 'metered',
      Size: 's-1vcpu-1gb',
      ImageID: UBUNTU,
      Region: 'nyc3',
      Monitoring: true,
    });
    await helper.advanceClock(1_800_000);
    const born = Math.ceil(Date.parse(droplet.created_at) / 1000);
    const window = { VmID: droplet.id, Start: born, End: born + 1800 };
    const memory = await ok('monitoring-metrics-get', { ...window, Metric: 'memory_total' });
    expect(memory).toMatchObject({ status: 'success', data: { resultType: 'matrix' } });
    const [series] = memory.data.result;
    expect(series.metric).toEqual({ host_id: String(droplet.id) });
    expect(series.values.length).toBeGreaterThanOrEqual(29);
    // 1 GiB of memory, less what the kernel keeps: the same at every sample.
    const values = new Set(series.values.map(([, value]: [number, string]) => value));
    expect(values.size).toBe(1);
    expect(Number([...values][0])).toBeLessThan(1024 ** 3);

    const before = await stateText();
    const refused = await call(client, 'monitoring-metrics-get', { ...window, Metric: 'bandwidth' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('bandwidth needs Interface');
    expect(await stateText()).toBe(before);
  });

  it('an uptime check: create, its state settles, alerts, change; a protected check is refused, nothing sent', async () => {
    const { check } = await ok('monitoring-uptime-create', {
      Name: 'site',
      Target: 'https://example.com',
      Regions: ['us_east', 'eu_west'],
    });
    expect(check).toMatchObject({ name: 'site', type: 'https', enabled: true });
    const checking = await ok('monitoring-uptime-get-state', { ID: check.id });
    expect(Object.values(checking.state.regions).map((r: Json) => r.status)).toEqual([
      'CHECKING',
      'CHECKING',
    ]);
    await helper.advanceClock(10_000);
    const settled = await ok('monitoring-uptime-get-state', { ID: check.id });
    for (const region of Object.values(settled.state.regions) as Json[])
      expect(['UP', 'DOWN']).toContain(region.status);

    const { alert } = await ok('monitoring-uptime-alert-create', {
      CheckID: check.id,
      Name: 'cert',
      Type: 'ssl_expiry',
      Threshold: 14,
      Period: '1h',
      SlackChannels: ['#ops'],
      SlackUrls: ['https://hooks.slack.com/services/T/B/X'],
    });
    expect(alert).toMatchObject({ type: 'ssl_expiry', threshold: 14, comparison: 'less_than' });
    const { alert: sooner } = await ok('monitoring-uptime-alert-update', {
      CheckID: check.id,
      AlertID: alert.id,
      Threshold: 7,
    });
    expect(sooner).toEqual({ ...alert, threshold: 7 });
    expect((await ok('monitoring-uptime-alert-list', { CheckID: check.id })).alerts).toEqual([sooner]);
    // The platform keeps an https check https while it has an ssl_expiry alert.
    const http = await call(client, 'monitoring-uptime-update', { ID: check.id, Type: 'http' });
    expect(http.isError).toBe(true);
    expect(http.text).toContain('ssl_expiry');

    // The protected check: every change refused before anything is sent.
    const { check: kept } = await ok('monitoring-uptime-create', {
      Name: 'keep-site',
      Target: 'https://example.org',
    });
    const before = await stateText();
    for (const [name, args] of [
      ['monitoring-uptime-delete', { ID: kept.id }],
      ['monitoring-uptime-update', { ID: kept.id, Enabled: false }],
      [
        'monitoring-uptime-alert-create',
        { CheckID: kept.id, Name: 'd', Type: 'down', Period: '2m', Emails: ['a@example.com'] },
      ],
    ] as const) {
      const result = await call(client, name, args);
      expect(result.isError, name).toBe(true);
      expect(result.text, name).toContain('is protected by rule name:keep-site');
    }
    expect(await stateText()).toBe(before);
    expect(asked).toEqual([]);

    // The unprotected one goes, with its alerts, once its name is typed.
    answers.push('site');
    await ok('monitoring-uptime-delete', { ID: check.id });
    expect(asked).toEqual([expect.stringContaining('To run it, type site.')]);
    expect((await ok('monitoring-uptime-list')).checks.map((c: Json) => c.name)).toEqual(['keep-site']);
    expect((await call(client, 'monitoring-uptime-alert-list', { CheckID: check.id })).text).toContain('404');
  });
});
