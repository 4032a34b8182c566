/**
 * The monitoring family as a library: the requests its tools send (checked against the API
 * description), arguments refused before any request, and the typed API against the sandbox.
 */
import { type AnyTool, InputError, runTool } from '@cloudcall/core';
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
import { monitoringApi, monitoringTools, VM_METRICS } from './index.js';
import { secondsOf } from './schemas.js';

const tool = (name: string) => monitoringTools.find((t) => t.name === name) as AnyTool;
const POLICY = '9cc10173-e9ea-4176-9dbc-a4cee4c4ff30';
const CHECK = '4de7ac8b-495b-4884-9a69-1050c6793cd6';
const ALERT = '5a4981aa-9653-4bd1-bef5-d6bff52042e4';
const CPU = {
  Type: 'v1/insights/droplet/cpu',
  Compare: 'GreaterThan',
  Value: 80,
  Window: '5m',
  Description: 'CPU high',
  Emails: ['ops@example.com'],
};

const STORED_POLICY = {
  uuid: POLICY,
  type: 'v1/insights/droplet/cpu',
  description: 'CPU high',
  compare: 'GreaterThan',
  value: 80,
  window: '5m',
  entities: [],
  tags: [],
  alerts: { email: ['ops@example.com'], slack: [] },
  enabled: true,
};
const STORED_ALERT = {
  id: ALERT,
  name: 'down',
  type: 'down',
  period: '2m',
  notifications: { email: ['ops@example.com'], slack: [] },
};

interface Sent {
  method: string;
  path: string;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
  noResponseBody?: boolean;
}

/** Runs a tool against a client that records each request, answering a read with `answer`. */
async function sent(name: string, args: Record<string, unknown>, answer: unknown = {}) {
  const requests: Sent[] = [];
  const client = {
    request: async (options: Sent) => {
      requests.push(options);
      return options.method === 'GET' ? answer : undefined;
    },
    forCall: () => client,
  };
  await runTool(tool(name), args, { client: client as never });
  return requests;
}

/** Each tool, valid arguments, and the operations it calls, in order. */
const cases: [tool: string, args: Record<string, unknown>, operationIds: string[]][] = [
  ['monitoring-alert-create', CPU, ['monitoring_create_alertPolicy']],
  ['monitoring-alert-get', { UUID: POLICY }, ['monitoring_get_alertPolicy']],
  ['monitoring-alert-list', {}, ['monitoring_list_alertPolicy']],
  [
    'monitoring-alert-update',
    { UUID: POLICY, Value: 90 },
    ['monitoring_get_alertPolicy', 'monitoring_update_alertPolicy'],
  ],
  ['monitoring-alert-delete', { UUID: POLICY }, ['monitoring_delete_alertPolicy']],
  ['monitoring-metrics-get', { Metric: 'cpu', VmID: 7 }, ['monitoring_get_DropletCpuMetrics']],
  ['monitoring-uptime-create', { Name: 'site', Target: 'https://example.com' }, ['uptime_create_check']],
  ['monitoring-uptime-get', { ID: CHECK }, ['uptime_get_check']],
  ['monitoring-uptime-list', {}, ['uptime_list_checks']],
  ['monitoring-uptime-get-state', { ID: CHECK }, ['uptime_get_checkState']],
  ['monitoring-uptime-update', { ID: CHECK, Enabled: false }, ['uptime_update_check']],
  ['monitoring-uptime-delete', { ID: CHECK }, ['uptime_delete_check']],
  [
    'monitoring-uptime-alert-create',
    { CheckID: CHECK, Name: 'down', Type: 'down', Period: '2m', Emails: ['ops@example.com'] },
    ['uptime_create_alert'],
  ],
  ['monitoring-uptime-alert-get', { CheckID: CHECK, AlertID: ALERT }, ['uptime_get_alert']],
  ['monitoring-uptime-alert-list', { CheckID: CHECK }, ['uptime_list_alerts']],
  [
    'monitoring-uptime-alert-update',
    { CheckID: CHECK, AlertID: ALERT, Period: '5m' },
    ['uptime_get_alert', 'uptime_update_alert'],
  ],
  ['monitoring-uptime-alert-delete', { CheckID: CHECK, AlertID: ALERT }, ['uptime_delete_alert']],
];

const pattern = (template: string) => new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);

describe('requests on the wire', () => {
  it('covers every tool', () => {
    expect(cases.map(([name]) => name).sort()).toEqual(monitoringTools.map((t) => t.name).sort());
  });

  it.each(cases)('%s calls its operations', async (name, args, operationIds) => {
    const requests = await sent(name, args, { policy: { ...STORED_POLICY }, alert: { ...STORED_ALERT } });
    expect(requests.map((r) => `${r.method} ${r.path}`)).toHaveLength(operationIds.length);
    operationIds.forEach((id, index) => {
      const expected = operation(id);
      const request = requests[index] as Sent;
      expect(request.method, id).toBe(expected.method);
      expect(request.path, id).toMatch(pattern(expected.path));
      expect(Boolean(request.noResponseBody), id).toBe(noResponseBody(id));
      // The description requires an uptime check's `method`, which the platform does not ask for
      // (digitalocean/openapi#775): not sent.
      const errors = request.body ? validateRequest(id, request.body).errors : [];
      expect(
        errors.filter((e) => !(id === 'uptime_create_check' && /'method'/.test(e))),
        id,
      ).toEqual([]);
    });
  });

  it('monitoring-metrics-get reaches each VM metric endpoint, with its window in UNIX seconds', async () => {
    for (const Metric of VM_METRICS) {
      const extra = Metric === 'bandwidth' ? { Interface: 'public', Direction: 'inbound' } : {};
      const [request] = await sent('monitoring-metrics-get', {
        Metric,
        VmID: 7,
        Start: 1_700_000_000,
        End: '2023-11-14T23:13:20Z',
        ...extra,
      });
      expect(request).toMatchObject({
        method: 'GET',
        path: `/v2/monitoring/metrics/droplet/${Metric}`,
        query: { host_id: 7, start: 1_700_000_000, end: 1_700_003_600 },
      });
      if (Metric === 'bandwidth')
        expect(request?.query).toMatchObject({ interface: 'public', direction: 'inbound' });
    }
  });

  it('monitoring-metrics-get defaults to the last hour', async () => {
    const before = Math.floor(Date.now() / 1000);
    const [request] = await sent('monitoring-metrics-get', { Metric: 'load_5', VmID: 7 });
    const { start, end } = (request?.query ?? {}) as { start: number; end: number };
    expect(end - start).toBe(3600);
    expect(end).toBeGreaterThanOrEqual(before);
    expect(end).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('monitoring-alert-create sends the policy with its targets, enabled unless told', async () => {
    const [request] = await sent('monitoring-alert-create', {
      ...CPU,
      Entities: ['480000001'],
      Tags: ['web'],
      SlackChannels: ['#ops'],
      SlackUrls: ['https://hooks.slack.com/services/T/B/X'],
    });
    expect(request?.body).toEqual({
      type: 'v1/insights/droplet/cpu',
      description: 'CPU high',
      compare: 'GreaterThan',
      value: 80,
      window: '5m',
      entities: ['480000001'],
      tags: ['web'],
      alerts: {
        email: ['ops@example.com'],
        slack: [{ channel: '#ops', url: 'https://hooks.slack.com/services/T/B/X' }],
      },
      enabled: true,
    });
  });
});

describe('time arguments', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  it.each([
    [1_700_000_000, 1_700_000_000],
    ['1700000000', 1_700_000_000],
    ['now', now / 1000],
    ['1h', now / 1000 - 3600],
    ['30m', now / 1000 - 1800],
    ['2d', now / 1000 - 172_800],
    ['2026-01-01T11:00:00Z', now / 1000 - 3600],
  ])('%s is %d', (value, seconds) => {
    expect(secondsOf(value, now)).toBe(seconds);
  });

  it.each(['yesterday', '90', '', '2026-13-45T00:00:00Z', '1 fortnight'])('%j is no time', (value) => {
    expect(secondsOf(value, now)).toBeUndefined();
  });
});

describe('arguments are checked before any request', () => {
  /** The refusal of a call, naming its arguments, with nothing sent. */
  async function refused(name: string, args: Record<string, unknown>) {
    const seen: unknown[] = [];
    const client = { request: async (r: unknown) => void seen.push(r), forCall: () => client };
    const error = await runTool(tool(name), args, { client: client as never }).catch((e: unknown) => e);
    expect(seen, name).toEqual([]);
    expect(error, name).toBeInstanceOf(InputError);
    return (error as InputError).issues.map((issue) => `${issue.argument}: ${issue.message}`);
  }

  it('path ids refuse dot segments, slashes and control characters, naming the argument', async () => {
    const problems: string[] = [];
    for (const [name, args] of cases) {
      for (const arg of ['UUID', 'ID', 'CheckID', 'AlertID'].filter((a) => a in args)) {
        for (const value of PATH_HOSTILE) {
          const issues = await refused(name, { ...args, [arg]: value });
          if (!issues.some((issue) => issue.startsWith(`${arg}:`)))
            problems.push(`${name} ${arg}: ${issues}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('an alert policy must notify someone, each Slack channel with its webhook', async () => {
    const { Emails: _, ...silent } = CPU;
    expect(await refused('monitoring-alert-create', silent)).toEqual([
      'Emails: is required (or SlackChannels with SlackUrls): someone to notify; got undefined',
    ]);
    expect(
      await refused('monitoring-alert-create', {
        ...silent,
        SlackChannels: ['#ops', '#dev'],
        SlackUrls: ['https://hooks.slack.com/x'],
      }),
    ).toEqual([
      expect.stringMatching(/^SlackUrls: give one webhook URL per Slack channel \(2 channels, 1 URLs\)/),
    ]);
    expect(
      await refused('monitoring-alert-create', {
        ...silent,
        SlackChannels: ['#ops'],
        SlackUrls: ['http://hooks.slack.com/x'],
      }),
    ).toEqual([expect.stringMatching(/^SlackUrls\.0: expected an https:\/\/ Slack webhook URL/)]);
    expect(await refused('monitoring-alert-create', { ...CPU, Emails: ['not-an-address'] })).toEqual([
      expect.stringMatching(/^Emails\.0: expected an email address/),
    ]);
    expect(await refused('monitoring-alert-create', { ...CPU, Type: 'v1/insights/droplet/gpu' })).toEqual([
      expect.stringMatching(/^Type: /),
    ]);
    expect(await refused('monitoring-alert-create', { ...CPU, Window: '15m' })).toEqual([
      expect.stringMatching(/^Window: /),
    ]);
  });

  it('metrics: bandwidth needs its interface and direction, others refuse them; End after Start', async () => {
    expect(
      await refused('monitoring-metrics-get', { Metric: 'bandwidth', VmID: 7, Interface: 'public' }),
    ).toEqual([
      'Metric: bandwidth needs Interface (public, private) and Direction (inbound, outbound); got "bandwidth"',
    ]);
    expect(await refused('monitoring-metrics-get', { Metric: 'cpu', VmID: 7, Interface: 'public' })).toEqual([
      'Interface: is for Metric bandwidth only; got "public"',
    ]);
    expect(
      await refused('monitoring-metrics-get', { Metric: 'cpu', VmID: 7, Start: 'now', End: '1h' }),
    ).toEqual([expect.stringMatching(/^End: must be after Start/)]);
    expect(
      await refused('monitoring-metrics-get', { Metric: 'cpu', VmID: 7, Start: 'last tuesday' }),
    ).toEqual([
      expect.stringMatching(/^Start: expected UNIX seconds, an ISO 8601 time, "now", or a duration/),
    ]);
  });

  it('uptime: targets are http(s) URLs; latency and ssl_expiry alerts need a threshold, others refuse it', async () => {
    expect(await refused('monitoring-uptime-create', { Name: 'x', Target: 'ftp://example.com' })).toEqual([
      expect.stringMatching(/^Target: expected an http:\/\/ or https:\/\/ URL/),
    ]);
    expect(
      await refused('monitoring-uptime-create', {
        Name: 'x',
        Target: 'https://example.com',
        Regions: ['mars'],
      }),
    ).toEqual([expect.stringMatching(/^Regions\.0: /)]);
    const alert = { CheckID: CHECK, Name: 'a', Period: '2m', Emails: ['ops@example.com'] };
    expect(await refused('monitoring-uptime-alert-create', { ...alert, Type: 'latency' })).toEqual([
      'Type: latency needs Threshold (milliseconds); got "latency"',
    ]);
    expect(await refused('monitoring-uptime-alert-create', { ...alert, Type: 'down', Threshold: 5 })).toEqual(
      ['Threshold: is for Type latency or ssl_expiry only; got 5'],
    );
  });
});

describe('monitoringApi against the sandbox', () => {
  let connection: SandboxConnection;
  beforeAll(async () => {
    connection = await connectSandbox();
  });
  afterAll(async () => {
    await connection.close();
  });

  it('alert policies: create on a VM, get, list, update keeping what is not given, delete', async () => {
    const monitoring = monitoringApi(connection.client);
    const { droplet } = await connection.client.request<{ droplet: { id: number } }>({
      method: 'POST',
      path: '/v2/droplets',
      body: { name: 'watched', region: 'nyc3', size: 's-1vcpu-1gb', image: 161928327 },
    });
    const created = await monitoring.monitoringAlertCreate({
      ...CPU,
      Entities: [String(droplet.id)],
    } as never);
    assertValidResponse('monitoring_create_alertPolicy', 200, created);
    const { uuid } = created.policy;
    expect(created.policy).toMatchObject({ entities: [String(droplet.id)], enabled: true, value: 80 });
    expect((await monitoring.monitoringAlertGet({ UUID: uuid })).policy).toEqual(created.policy);
    const listed = await monitoring.monitoringAlertList({});
    assertValidResponse('monitoring_list_alertPolicy', 200, listed);
    expect(listed.policies.map((p) => p.uuid)).toContain(uuid);

    const updated = await monitoring.monitoringAlertUpdate({
      UUID: uuid,
      Value: 95,
      Enabled: false,
      SlackChannels: ['#ops'],
      SlackUrls: ['https://hooks.slack.com/services/T/B/X'],
    });
    assertValidResponse('monitoring_update_alertPolicy', 200, updated);
    expect(updated.policy).toEqual({
      ...created.policy,
      value: 95,
      enabled: false,
      alerts: {
        email: ['ops@example.com'],
        slack: [{ channel: '#ops', url: 'https://hooks.slack.com/services/T/B/X' }],
      },
    });
    // The platform's own checks still apply: a VM that is not the account's.
    await expect(monitoring.monitoringAlertUpdate({ UUID: uuid, Entities: ['999'] })).rejects.toMatchObject({
      status: 400,
    });

    await expect(monitoring.monitoringAlertDelete({ UUID: uuid })).resolves.toEqual({ ok: true });
    await expect(monitoring.monitoringAlertGet({ UUID: uuid })).rejects.toMatchObject({ status: 404 });
  });

  it("VM metrics: the platform's series over the window asked for", async () => {
    const monitoring = monitoringApi(connection.client);
    const { droplet } = await connection.client.request<{ droplet: { id: number; created_at: string } }>({
      method: 'POST',
      path: '/v2/droplets',
      body: { name: 'metered', region: 'nyc3', size: 's-1vcpu-1gb', image: 161928327, monitoring: true },
    });
    await connection.sandbox.advanceClock(3_600_000);
    const { droplet: now } = await connection.client.request<{ droplet: { created_at: string } }>({
      method: 'GET',
      path: `/v2/droplets/${droplet.id}`,
    });
    const born = Date.parse(now.created_at) / 1000;
    const window = { VmID: droplet.id, Start: born, End: born + 3600 };
    const load = await monitoring.monitoringMetricsGet({ ...window, Metric: 'load_1' });
    assertValidResponse('monitoring_get_dropletLoad1Metrics', 200, load);
    const [series] = load.data.result;
    expect(series?.metric).toEqual({ host_id: String(droplet.id) });
    expect(series?.values.length).toBeGreaterThan(50);
    const cpu = await monitoring.monitoringMetricsGet({ ...window, Metric: 'cpu' });
    expect(cpu.data.result.map((s) => s.metric.mode).sort()).toEqual([
      'idle',
      'iowait',
      'irq',
      'nice',
      'softirq',
      'steal',
      'system',
      'user',
    ]);
    const bandwidth = await monitoring.monitoringMetricsGet({
      ...window,
      Metric: 'bandwidth',
      Interface: 'private',
      Direction: 'outbound',
    });
    expect(bandwidth.data.result[0]?.metric).toMatchObject({ interface: 'private', direction: 'outbound' });
    await expect(
      monitoring.monitoringMetricsGet({ ...window, VmID: 999, Metric: 'cpu' }),
    ).rejects.toMatchObject({
      status: 404,
    });
  });

  it('uptime checks and their alerts: create, state, update, alerts, delete with its alerts', async () => {
    const monitoring = monitoringApi(connection.client);
    const { check } = await monitoring.monitoringUptimeCreate({
      Name: 'site',
      Target: 'https://example.com',
    });
    assertValidResponse('uptime_create_check', 201, { check });
    expect(check).toMatchObject({ name: 'site', type: 'https', regions: ['us_east'], enabled: true });
    expect((await monitoring.monitoringUptimeGetState({ ID: check.id })).state.regions).toMatchObject({
      us_east: { status: 'CHECKING' },
    });
    await connection.sandbox.advanceClock(6_000);
    const { state } = await monitoring.monitoringUptimeGetState({ ID: check.id });
    assertValidResponse('uptime_get_checkState', 200, { state });
    expect(['UP', 'DOWN']).toContain((state.regions as Record<string, { status: string }>).us_east?.status);

    const { check: renamed } = await monitoring.monitoringUptimeUpdate({
      ID: check.id,
      Name: 'site-2',
      Regions: ['eu_west', 'us_east'],
    });
    expect(renamed).toEqual({ ...check, name: 'site-2', regions: ['us_east', 'eu_west'] });
    expect((await monitoring.monitoringUptimeList({})).checks.map((c) => c.id)).toContain(check.id);

    const { alert } = await monitoring.monitoringUptimeAlertCreate({
      CheckID: check.id,
      Name: 'slow',
      Type: 'latency',
      Threshold: 500,
      Period: '2m',
      Emails: ['ops@example.com'],
    });
    expect(alert).toMatchObject({ type: 'latency', threshold: 500, comparison: 'greater_than' });
    // Changed to a down alert: its threshold goes, the rest stays.
    const { alert: down } = await monitoring.monitoringUptimeAlertUpdate({
      CheckID: check.id,
      AlertID: alert.id,
      Type: 'down',
    });
    expect(down).toEqual({
      id: alert.id,
      name: 'slow',
      type: 'down',
      period: '2m',
      notifications: { email: ['ops@example.com'], slack: [] },
    });
    const alerts = await monitoring.monitoringUptimeAlertList({ CheckID: check.id });
    assertValidResponse('uptime_list_alerts', 200, alerts);
    expect(alerts.alerts).toEqual([down]);
    expect(
      (await monitoring.monitoringUptimeAlertGet({ CheckID: check.id, AlertID: alert.id })).alert,
    ).toEqual(down);
    await expect(
      monitoring.monitoringUptimeAlertDelete({ CheckID: check.id, AlertID: alert.id }),
    ).resolves.toEqual({ ok: true });
    expect((await monitoring.monitoringUptimeAlertList({ CheckID: check.id })).alerts).toEqual([]);

    await expect(monitoring.monitoringUptimeDelete({ ID: check.id })).resolves.toEqual({ ok: true });
    await expect(monitoring.monitoringUptimeGet({ ID: check.id })).rejects.toMatchObject({ status: 404 });
  });
});
