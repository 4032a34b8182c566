/**
 * Uptime as the platform runs it, over raw HTTP with every answer checked against the API
 * description (`callOperation`): checks (the platform's 400s for what a create lacks, updates that
 * keep what they do not name), a check's state moving from CHECKING to UP or DOWN on the sandbox
 * clock with its outages and 30-day uptime, and alerts per check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_SETTLE_MS } from './routes/uptime.js';
import { type Sandbox, startSandbox } from './server.js';
import { type CallOptions, callOperation, type Reply, steppingClock } from './testing/operations.js';
import type { World } from './world.js';

let sandbox: Sandbox;
const call = (operationId: string, options?: CallOptions) => callOperation(sandbox.url, operationId, options);

function expectError(reply: Reply, status: number, mentions: RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body).toEqual({
    id: expect.any(String),
    message: expect.stringMatching(mentions),
    request_id: expect.any(String),
  });
}

const uptime = () =>
  sandbox.store.read((w: World) => structuredClone({ checks: w.uptimeChecks, alerts: w.uptimeAlerts }));

async function refusedUnchanged(reply: Promise<Reply>, status: number, mentions: RegExp) {
  const before = await uptime();
  expectError(await reply, status, mentions);
  expect(await uptime()).toEqual(before);
}

const checkBody = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'https',
  target: `https://${name}.example.com/health`,
  regions: ['us_east', 'eu_west'],
  enabled: true,
  ...extra,
});

async function check(name: string, extra: Record<string, unknown> = {}) {
  const created = await call('uptime_create_check', { json: checkBody(name, extra) });
  expect(created.status, created.text).toBe(201);
  return created.body.check as { id: string; name: string; type: string; target: string; regions: string[] };
}

const state = async (id: string) => {
  const reply = await call('uptime_get_checkState', { params: { check_id: id } });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.state as {
    regions: Record<
      string,
      { status: string; status_changed_at: string; thirty_day_uptime_percentage: number }
    >;
    previous_outage: { region?: string; started_at?: string; ended_at?: string; duration_seconds?: number };
  };
};

const statuses = async (id: string) =>
  Object.fromEntries(Object.entries((await state(id)).regions).map(([region, s]) => [region, s.status]));

const alertBody = (extra: Record<string, unknown> = {}) => ({
  name: 'slow landing page',
  type: 'latency',
  threshold: 300,
  comparison: 'greater_than',
  notifications: { email: ['ops@example.com'], slack: [] },
  period: '2m',
  ...extra,
});

beforeAll(async () => {
  sandbox = await startSandbox({ now: steppingClock() });
});
afterAll(async () => {
  await sandbox.close();
});

describe('uptime checks', () => {
  it('creates, reads, lists in pages, updates what it names and deletes', async () => {
    const made = [await check('landing'), await check('api'), await check('docs')];
    expect(made[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      ...checkBody('landing'),
    });
    expect(
      (await call('uptime_get_check', { params: { check_id: made[0]?.id as string } })).body.check,
    ).toEqual(made[0]);

    const page2 = await call('uptime_list_checks', { query: '?per_page=2&page=2' });
    expect(page2.body.meta.total).toBeGreaterThanOrEqual(3);
    expect(page2.body.links.pages).toMatchObject({ first: expect.stringContaining('page=1') });
    const all = await call('uptime_list_checks', { query: '?per_page=200' });
    expect(all.body.checks.map((c: { id: string }) => c.id)).toEqual(
      expect.arrayContaining(made.map((c) => c.id)),
    );

    // An update changes what it names and keeps the rest; regions come back in the platform's order.
    const updated = await call('uptime_update_check', {
      params: { check_id: made[0]?.id as string },
      json: { name: 'landing-2', regions: ['se_asia', 'us_west', 'se_asia'] },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.check).toEqual({ ...made[0], name: 'landing-2', regions: ['us_west', 'se_asia'] });
    expect(
      (await call('uptime_get_check', { params: { check_id: made[0]?.id as string } })).body.check,
    ).toEqual(updated.body.check);

    const doomed = made[2]?.id as string;
    await call('uptime_create_alert', { params: { check_id: doomed }, json: alertBody() });
    expect((await call('uptime_delete_check', { params: { check_id: doomed } })).status).toBe(204);
    expectError(await call('uptime_get_check', { params: { check_id: doomed } }), 404, /not be found/);
    expectError(await call('uptime_get_checkState', { params: { check_id: doomed } }), 404, /not be found/);
    expectError(await call('uptime_delete_check', { params: { check_id: doomed } }), 404, /not be found/);
    // Its alerts went with it.
    expect((await uptime()).alerts.filter((a) => a.check_id === doomed)).toEqual([]);
  });

  it('refuses what the platform refuses, with its 400 naming the field, and creates nothing', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ enabled: undefined }, /missing required field 'enabled'/],
      [{ regions: undefined }, /missing required field 'regions'/],
      [{ type: undefined }, /missing required field 'type'/],
      [{ name: undefined }, /missing required field 'name'/],
      [{ target: undefined }, /missing required field 'target'/],
      [{ type: 'tcp' }, /type must be one of ping, http, https/],
      [{ target: 'landing.example.com' }, /must be an http:\/\/ or https:\/\/ URL/],
      [{ target: 'ftp://files.example.com' }, /must be an http:\/\/ or https:\/\/ URL/],
      [
        { type: 'ping', target: '192.0.2.10' },
        /URL such as https:\/\/example.com \(a ping check pings its host\)/,
      ],
      [
        { target: 'http://10.0.0.5:8080/' },
        /10.0.0.5 is a private address: uptime probes check from the internet/,
      ],
      [{ target: 'https://localhost/' }, /"localhost" is not a domain name or a public IPv4 address/],
      [{ regions: [] }, /regions must be a non-empty array/],
      [{ regions: ['us_east', 'ap_south'] }, /regions must be one of us_east, us_west, eu_west, se_asia/],
      [{ enabled: 'yes' }, /enabled must be true or false/],
      [{ name: '' }, /name must be a non-empty string/],
    ];
    for (const [change, message] of cases) {
      await refusedUnchanged(
        call('uptime_create_check', { json: checkBody('refused', change) }),
        400,
        message,
      );
    }
    const kept = await check('kept');
    await refusedUnchanged(
      call('uptime_update_check', {
        params: { check_id: kept.id },
        json: { type: 'http', target: 'ssh://x' },
      }),
      400,
      /must be an http:\/\/ or https:\/\/ URL/,
    );
    await refusedUnchanged(
      call('uptime_update_check', {
        params: { check_id: '7d2bd4a4-0000-4000-8000-000000000000' },
        json: { name: 'x' },
      }),
      404,
      /not be found/,
    );
    // A ping check takes a URL, whose host it pings.
    for (const target of ['http://192.0.2.10', 'https://example.com/']) {
      expect(
        (await call('uptime_create_check', { json: checkBody('ping', { type: 'ping', target }) })).status,
      ).toBe(201);
    }
  });
});

describe('check state', () => {
  it('is CHECKING until the first probes, then UP in every region, on the sandbox clock', async () => {
    const landing = await check('state-up', { regions: ['us_east', 'us_west', 'eu_west', 'se_asia'] });
    expect(await statuses(landing.id)).toEqual({
      us_east: 'CHECKING',
      us_west: 'CHECKING',
      eu_west: 'CHECKING',
      se_asia: 'CHECKING',
    });
    await sandbox.advanceClock(CHECK_SETTLE_MS + 1_000);
    const up = await state(landing.id);
    expect(Object.values(up.regions).map((r) => r.status)).toEqual(['UP', 'UP', 'UP', 'UP']);
    expect(Object.values(up.regions).every((r) => r.thirty_day_uptime_percentage === 100)).toBe(true);
    expect(up.previous_outage).toEqual({});
  });

  it('is DOWN for a target no probe can reach', async () => {
    const internal = await check('state-down', {
      type: 'http',
      target: 'http://printer.test:8080/',
      regions: ['eu_west'],
    });
    const reserved = await check('state-invalid', { target: 'https://shop.invalid/', regions: ['us_east'] });
    await sandbox.advanceClock(CHECK_SETTLE_MS + 1_000);
    expect(await statuses(internal.id)).toEqual({ eu_west: 'DOWN' });
    expect((await state(reserved.id)).regions.us_east).toMatchObject({
      status: 'DOWN',
      thirty_day_uptime_percentage: 0,
    });
  });

  it('has short outages now and then, which make its previous outage and 30-day uptime', async () => {
    const busy = await check('state-outages', { regions: ['us_east', 'us_west', 'eu_west', 'se_asia'] });
    await sandbox.advanceClock(30 * 86_400_000);
    const month = await state(busy.id);
    const outage = month.previous_outage;
    expect(outage.region).toMatch(/^(us_east|us_west|eu_west|se_asia)$/);
    expect(outage.duration_seconds).toBeGreaterThanOrEqual(60);
    expect(outage.duration_seconds).toBeLessThanOrEqual(600);
    expect(Date.parse(outage.ended_at as string) - Date.parse(outage.started_at as string)).toBe(
      (outage.duration_seconds as number) * 1000,
    );
    for (const region of Object.values(month.regions)) {
      expect(region.thirty_day_uptime_percentage).toBeGreaterThan(95);
      expect(region.thirty_day_uptime_percentage).toBeLessThanOrEqual(100);
    }
    expect(Math.min(...Object.values(month.regions).map((r) => r.thirty_day_uptime_percentage))).toBeLessThan(
      100,
    );
    // Derived, not drawn: asked again, the same state.
    expect(await state(busy.id)).toEqual(month);
  });

  it('stays as it was while the check is disabled, and checks again once enabled', async () => {
    const paused = await check('state-paused', { regions: ['us_east'] });
    await sandbox.advanceClock(CHECK_SETTLE_MS + 1_000);
    const before = await state(paused.id);
    expect(before.regions.us_east?.status).toBe('UP');
    const off = await call('uptime_update_check', {
      params: { check_id: paused.id },
      json: { enabled: false },
    });
    expect(off.body.check.enabled).toBe(false);
    await sandbox.advanceClock(7 * 86_400_000);
    expect(await state(paused.id)).toEqual(before);
    await call('uptime_update_check', { params: { check_id: paused.id }, json: { enabled: true } });
    expect(await statuses(paused.id)).toEqual({ us_east: 'CHECKING' });
    await sandbox.advanceClock(CHECK_SETTLE_MS + 1_000);
    expect((await statuses(paused.id)).us_east).toMatch(/^(UP|DOWN)$/);
  });
});

describe('uptime alerts', () => {
  it('creates, reads, lists in pages, replaces and deletes the alerts of a check', async () => {
    const site = await check('alerts-site');
    const other = await check('alerts-other');
    const latency = await call('uptime_create_alert', { params: { check_id: site.id }, json: alertBody() });
    expect(latency.status, latency.text).toBe(201);
    expect(latency.body.alert).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), ...alertBody() });
    const down = await call('uptime_create_alert', {
      params: { check_id: site.id },
      json: {
        name: 'site down',
        type: 'down_global',
        notifications: { slack: [{ url: 'https://hooks.slack.com/services/T0/B0/X', channel: '#ops' }] },
        period: '5m',
      },
    });
    expect(down.status, down.text).toBe(201);
    expect(down.body.alert).toEqual({
      id: expect.any(String),
      name: 'site down',
      type: 'down_global',
      notifications: {
        email: [],
        slack: [{ url: 'https://hooks.slack.com/services/T0/B0/X', channel: '#ops' }],
      },
      period: '5m',
    });
    const ssl = await call('uptime_create_alert', {
      params: { check_id: site.id },
      json: alertBody({ name: 'cert', type: 'ssl_expiry', threshold: 14, comparison: undefined }),
    });
    expect(ssl.body.alert).toMatchObject({ type: 'ssl_expiry', threshold: 14, comparison: 'less_than' });

    const ids = { check_id: site.id, alert_id: latency.body.alert.id as string };
    expect((await call('uptime_get_alert', { params: ids })).body.alert).toEqual(latency.body.alert);
    const page2 = await call('uptime_list_alerts', {
      params: { check_id: site.id },
      query: '?per_page=2&page=2',
    });
    expect(page2.body.alerts.map((a: { name: string }) => a.name)).toEqual(['cert']);
    expect(page2.body.meta).toEqual({ total: 3 });
    expect((await call('uptime_list_alerts', { params: { check_id: other.id } })).body.alerts).toEqual([]);

    const replaced = await call('uptime_update_alert', {
      params: ids,
      json: {
        name: 'site down anywhere',
        type: 'down',
        notifications: { email: ['oncall@example.com'] },
        period: '10m',
      },
    });
    expect(replaced.status, replaced.text).toBe(200);
    // The threshold and comparison of a latency alert are gone from a down alert.
    expect(replaced.body.alert).toEqual({
      id: ids.alert_id,
      name: 'site down anywhere',
      type: 'down',
      notifications: { email: ['oncall@example.com'], slack: [] },
      period: '10m',
    });
    // An alert is found under its own check only.
    expectError(
      await call('uptime_get_alert', { params: { ...ids, check_id: other.id } }),
      404,
      /not be found/,
    );
    expect((await call('uptime_delete_alert', { params: ids })).status).toBe(204);
    expectError(await call('uptime_get_alert', { params: ids }), 404, /not be found/);
    expectError(await call('uptime_delete_alert', { params: ids }), 404, /not be found/);
  });

  it('refuses an alert the platform would refuse, and stores nothing', async () => {
    const site = await check('alerts-refused', { type: 'http', target: 'http://plain.example.com/' });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: undefined }, /missing required field 'name'/],
      [{ period: undefined }, /missing required field 'period'/],
      [{ notifications: undefined }, /missing required field 'notifications'/],
      [{ type: 'slow' }, /type must be one of latency, down, down_global, ssl_expiry/],
      [{ period: '1m' }, /period must be one of 2m, 3m, 5m, 10m, 15m, 30m, 1h/],
      [{ threshold: undefined }, /missing required field 'threshold'/],
      [{ threshold: 0 }, /threshold must be a whole number of milliseconds/],
      [{ comparison: 'equals' }, /comparison must be one of greater_than, less_than/],
      [{ notifications: { email: [], slack: [] } }, /at least one email address or Slack channel/],
      [{ type: 'ssl_expiry', threshold: 7 }, /an ssl_expiry alert needs an https check/],
    ];
    for (const [change, message] of cases) {
      await refusedUnchanged(
        call('uptime_create_alert', { params: { check_id: site.id }, json: alertBody(change) }),
        400,
        message,
      );
    }
    await refusedUnchanged(
      call('uptime_create_alert', {
        params: { check_id: '7d2bd4a4-0000-4000-8000-000000000000' },
        json: alertBody(),
      }),
      404,
      /not be found/,
    );
    // A check with an ssl_expiry alert stays https.
    const secure = await check('alerts-secure');
    await call('uptime_create_alert', {
      params: { check_id: secure.id },
      json: alertBody({ type: 'ssl_expiry', threshold: 7 }),
    });
    await refusedUnchanged(
      call('uptime_update_check', {
        params: { check_id: secure.id },
        json: { type: 'http', target: 'http://x.example.com' },
      }),
      400,
      /the check must stay https/,
    );
  });
});
