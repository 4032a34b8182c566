/**
 * Uptime: checks (create, list, get, update, delete), a check's state, and its alerts.
 *
 * The platform's rules, as modelled:
 * - A create names `name`, `type` (ping, http, https), `target`, `regions` (us_east, us_west,
 *   eu_west, se_asia) and `enabled`; a missing one is a 400 `bad_request` "missing required field
 *   'enabled'", as the platform answers it (digitalocean/openapi#775 records those answers; the
 *   `method` the API description also lists as required is not asked for there). A target is an
 *   http(s) URL on a domain name or a public IPv4 address, for every type (the description's `url`
 *   format); a ping check pings its host.
 * - An update changes the fields it gives and keeps the others.
 * - Deleting a check deletes its alerts.
 * - A check's state is derived from the time: its regions are CHECKING until their first probe
 *   (CHECK_SETTLE_MS after the check was created or enabled), then UP or DOWN. A target no probe
 *   can reach (a host under .invalid, .test, .example or .localhost) is DOWN; any other has a short outage now and then in one region or another, picked
 *   from the check's id and the time, which make `previous_outage` and the 30-day uptime. A
 *   disabled check's state stays as it was when it was disabled.
 * - An alert's `type` is latency (threshold in ms), down, down_global or ssl_expiry (threshold in
 *   days; an https check's only); it notifies at least one email or Slack channel.
 */
import { randomUUID } from 'node:crypto';
import {
  type StoredUptimeAlert,
  type StoredUptimeCheck,
  UPTIME_REGIONS,
  type UptimeRegion,
} from '../families/uptime.js';
import { badRequest, listBody, type Route, type SandboxRequest } from '../http.js';
import { iso } from '../time.js';
import type { World } from '../world.js';
import { notificationTargets } from './monitoring.js';
import { seedOf, unit } from './monitoring-series.js';
import { findOr404 } from './networking-common.js';

/** How long after a check is created or enabled its first probes report. */
export const CHECK_SETTLE_MS = 5_000;
/** Outages are drawn per slot of this length, per region. */
const OUTAGE_SLOT_S = 6 * 3_600;
/** The chance that a slot holds an outage. */
const OUTAGE_CHANCE = 0.125;
const THIRTY_DAYS_S = 30 * 86_400;

const CHECK_TYPES = ['ping', 'http', 'https'] as const;
const ALERT_TYPES = ['latency', 'down', 'down_global', 'ssl_expiry'] as const;
const PERIODS = ['2m', '3m', '5m', '10m', '15m', '30m', '1h'] as const;
const COMPARISONS = ['greater_than', 'less_than'] as const;

const missing = (field: string) => badRequest(`missing required field '${field}'`);
const given = (body: Record<string, unknown>, field: string) =>
  body[field] !== undefined && body[field] !== null;

function choice<T extends string>(value: unknown, field: string, values: readonly T[]): T {
  if (typeof value !== 'string' || !values.includes(value as T)) {
    throw badRequest(`${field} must be one of ${values.join(', ')}; got ${JSON.stringify(value)}`);
  }
  return value as T;
}

function nameOf(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw badRequest('name must be a non-empty string');
  return value;
}

/** An http(s) URL: scheme, optional user info, host, optional port, optional path. */
const TARGET_URL = /^https?:\/\/(?:[^\s/@]+@)?([^\s/:?#@[\]]+)(?::(\d{2,5}))?(?:\/\S*)?$/i;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const LABEL = /^[a-z0-9\u00a1-\uffff]+(-[a-z0-9\u00a1-\uffff]+)*$/iu;
const TOP_LEVEL = /^[a-z\u00a1-\uffff]{2,}$/iu;

/** Why an IPv4 address is no target for probes on the internet, if it is none. */
function privateAddress(host: string): string | undefined {
  const octets = host.split('.').map(Number);
  const [a = 0, b = 0, , d = 0] = octets;
  if (octets.some((o) => o > 255)) return 'not an IPv4 address';
  if (a === 10 || (a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168)) return 'a private address';
  if (a === 127 || a === 0 || (a === 169 && b === 254)) return 'a loopback or link-local address';
  if (a >= 224 || d === 0 || d === 255) return 'not a host address';
  return undefined;
}

/**
 * A check's target, checked. The API description gives every check's target the `url` format,
 * whatever its type: an http(s) URL whose host is a domain name or a public IPv4 address (the
 * probes run on the internet, so a private, loopback or link-local address is refused; an IPv6
 * literal is not a `url` there either). A ping check pings the URL's host.
 */
function targetOf(value: unknown, type: StoredUptimeCheck['type']): string {
  if (typeof value !== 'string' || value.trim() === '') throw badRequest('target must be a non-empty string');
  const match = TARGET_URL.exec(value);
  if (!match) {
    throw badRequest(
      `target ${JSON.stringify(value)} must be an http:// or https:// URL such as https://example.com` +
        (type === 'ping' ? ' (a ping check pings its host)' : ''),
    );
  }
  const host = match[1] as string;
  if (IPV4.test(host)) {
    const problem = privateAddress(host);
    if (problem) throw badRequest(`target host ${host} is ${problem}: uptime probes check from the internet`);
  } else {
    const labels = host.split('.');
    if (
      labels.length < 2 ||
      !labels.every((l) => LABEL.test(l)) ||
      !TOP_LEVEL.test(labels.at(-1) as string)
    ) {
      throw badRequest(`target host ${JSON.stringify(host)} is not a domain name or a public IPv4 address`);
    }
  }
  return value;
}

function regionsOf(value: unknown): UptimeRegion[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw badRequest(`regions must be a non-empty array of ${UPTIME_REGIONS.join(', ')}`);
  }
  const regions = value.map((region) => choice(region, 'regions', UPTIME_REGIONS));
  return UPTIME_REGIONS.filter((region) => regions.includes(region));
}

function enabledOf(value: unknown): boolean {
  if (typeof value !== 'boolean') throw badRequest('enabled must be true or false');
  return value;
}

const checkView = (check: StoredUptimeCheck) => ({
  id: check.id,
  name: check.name,
  type: check.type,
  target: check.target,
  regions: [...check.regions],
  enabled: check.enabled,
});

const findCheck = (world: World, request: SandboxRequest) =>
  findOr404(world.uptimeChecks, (c) => c.id === request.params.check_id);

// --- state ---

/** The host a check probes. */
const hostOf = (check: StoredUptimeCheck) => TARGET_URL.exec(check.target)?.[1] ?? check.target;

/** Whether no probe can reach a host: names under the TLDs reserved for tests and examples. */
function unreachable(host: string): boolean {
  return /\.(invalid|test|example|localhost|local|internal)$/.test(host.toLowerCase().replace(/\.$/, ''));
}

interface Outage {
  region: UptimeRegion;
  start: number;
  end: number;
}

/** The outage a region has in a slot, if it has one (unix seconds). */
function outageIn(check: StoredUptimeCheck, region: UptimeRegion, slot: number): Outage | undefined {
  const seed = seedOf(`${check.id}:${region}`);
  if (unit(seed, slot * 3) >= OUTAGE_CHANCE) return undefined;
  const duration = 60 + Math.floor(unit(seed, slot * 3 + 1) * 540);
  const start = slot * OUTAGE_SLOT_S + Math.floor(unit(seed, slot * 3 + 2) * (OUTAGE_SLOT_S - duration));
  return { region, start, end: start + duration };
}

/** A region's outages between two times (unix seconds), oldest first. */
function outagesBetween(check: StoredUptimeCheck, region: UptimeRegion, from: number, to: number): Outage[] {
  const found: Outage[] = [];
  for (let slot = Math.floor(from / OUTAGE_SLOT_S); slot <= Math.floor(to / OUTAGE_SLOT_S); slot++) {
    const outage = outageIn(check, region, slot);
    if (outage && outage.end > from && outage.start < to) {
      found.push({ region, start: Math.max(outage.start, from), end: Math.min(outage.end, to) });
    }
  }
  return found;
}

/** A check's state at `now`, as the platform shows it. */
function stateView(check: StoredUptimeCheck, now: number) {
  const at = check.enabled ? now : (check.disabled_ms ?? now);
  const atS = Math.floor(at / 1000);
  const probedFrom = check.enabled_ms + CHECK_SETTLE_MS;
  const probedFromS = Math.ceil(probedFrom / 1000);
  const down = unreachable(hostOf(check));
  const since = Math.max(Math.ceil(check.created_ms / 1000), atS - THIRTY_DAYS_S);
  const regions: Record<string, unknown> = {};
  let previous: Outage | undefined;
  for (const region of check.regions) {
    if (at < probedFrom) {
      regions[region] = {
        status: 'CHECKING',
        status_changed_at: iso(check.enabled_ms),
        thirty_day_uptime_percentage: 0,
      };
      continue;
    }
    if (down) {
      regions[region] = {
        status: 'DOWN',
        status_changed_at: iso(probedFrom),
        thirty_day_uptime_percentage: 0,
      };
      continue;
    }
    const outages = outagesBetween(check, region, Math.max(since, probedFromS), atS);
    const current = outages.find((o) => o.start <= atS && atS < o.end);
    const last = outages.filter((o) => o.end <= atS).at(-1);
    if (last && (!previous || last.end > previous.end)) previous = last;
    const observed = Math.max(1, atS - Math.max(since, probedFromS));
    const downtime = outages.reduce((sum, o) => sum + (Math.min(o.end, atS) - o.start), 0);
    const changed = current ? current.start : (last?.end ?? probedFromS);
    regions[region] = {
      status: current ? 'DOWN' : 'UP',
      status_changed_at: iso(changed * 1000),
      thirty_day_uptime_percentage: Math.round((10_000 * (observed - downtime)) / observed) / 100,
    };
  }
  return {
    regions,
    previous_outage: previous
      ? {
          region: previous.region,
          started_at: iso(previous.start * 1000),
          ended_at: iso(previous.end * 1000),
          duration_seconds: previous.end - previous.start,
        }
      : {},
  };
}

// --- alerts ---

const alertView = (alert: StoredUptimeAlert) => ({
  id: alert.id,
  name: alert.name,
  type: alert.type,
  ...(alert.threshold === undefined ? {} : { threshold: alert.threshold }),
  ...(alert.comparison === undefined ? {} : { comparison: alert.comparison }),
  notifications: {
    email: [...alert.notifications.email],
    slack: alert.notifications.slack.map((s) => ({ url: s.url, channel: s.channel })),
  },
  period: alert.period,
});

/** An alert from a create or replace body (not yet stored). */
function alertFrom(
  check: StoredUptimeCheck,
  body: Record<string, unknown>,
  id: string,
  created_ms: number,
): StoredUptimeAlert {
  for (const field of ['name', 'type', 'notifications', 'period'])
    if (!given(body, field)) throw missing(field);
  const name = nameOf(body.name);
  const type = choice(body.type, 'type', ALERT_TYPES);
  const period = choice(body.period, 'period', PERIODS);
  const notifications = notificationTargets(body.notifications, 'notifications');
  let threshold: number | undefined;
  let comparison: StoredUptimeAlert['comparison'];
  if (type === 'latency' || type === 'ssl_expiry') {
    if (!given(body, 'threshold')) throw missing('threshold');
    threshold = body.threshold as number;
    if (!Number.isInteger(threshold) || threshold < 1) {
      throw badRequest(
        `threshold must be a whole number of ${type === 'latency' ? 'milliseconds' : 'days'}, 1 or more; got ${JSON.stringify(body.threshold)}`,
      );
    }
    comparison = given(body, 'comparison')
      ? choice(body.comparison, 'comparison', COMPARISONS)
      : type === 'latency'
        ? 'greater_than'
        : 'less_than';
    if (type === 'ssl_expiry' && check.type !== 'https') {
      throw badRequest(`an ssl_expiry alert needs an https check; check ${check.name} is ${check.type}`);
    }
  }
  return {
    id,
    check_id: check.id,
    name,
    type,
    ...(threshold === undefined ? {} : { threshold }),
    ...(comparison === undefined ? {} : { comparison }),
    notifications,
    period,
    created_ms,
  };
}

const findAlert = (world: World, request: SandboxRequest) => {
  const check = findCheck(world, request);
  const alert = findOr404(
    world.uptimeAlerts,
    (a) => a.id === request.params.alert_id && a.check_id === check.id,
  );
  return { check, alert };
};

export const uptimeRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/uptime/checks',
    handler: (req, world) => {
      const body = listBody('checks', world.uptimeChecks, req);
      return { body: { ...body, checks: (body.checks as StoredUptimeCheck[]).map(checkView) } };
    },
  },
  {
    method: 'POST',
    path: '/v2/uptime/checks',
    handler: (req, world) => {
      const body = req.body;
      for (const field of ['name', 'type', 'target', 'regions', 'enabled'])
        if (!given(body, field)) throw missing(field);
      const type = choice(body.type, 'type', CHECK_TYPES);
      const check: StoredUptimeCheck = {
        id: randomUUID(),
        name: nameOf(body.name),
        type,
        target: targetOf(body.target, type),
        regions: regionsOf(body.regions),
        enabled: enabledOf(body.enabled),
        created_ms: req.now,
        enabled_ms: req.now,
      };
      if (!check.enabled) check.disabled_ms = req.now;
      world.uptimeChecks.push(check);
      return { status: 201, body: { check: checkView(check) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/uptime/checks/{check_id}',
    handler: (req, world) => ({ body: { check: checkView(findCheck(world, req)) } }),
  },
  {
    method: 'PUT',
    path: '/v2/uptime/checks/{check_id}',
    handler: (req, world) => {
      const check = findCheck(world, req);
      const body = req.body;
      // Everything is checked before anything changes.
      const type = given(body, 'type') ? choice(body.type, 'type', CHECK_TYPES) : check.type;
      const name = given(body, 'name') ? nameOf(body.name) : check.name;
      const target = targetOf(given(body, 'target') ? body.target : check.target, type);
      const regions = given(body, 'regions') ? regionsOf(body.regions) : check.regions;
      const enabled = given(body, 'enabled') ? enabledOf(body.enabled) : check.enabled;
      if (type !== 'https') {
        const ssl = world.uptimeAlerts.find((a) => a.check_id === check.id && a.type === 'ssl_expiry');
        if (ssl) throw badRequest(`alert ${ssl.name} is an ssl_expiry alert: the check must stay https`);
      }
      if (enabled && !check.enabled) {
        check.enabled_ms = req.now;
        delete check.disabled_ms;
      } else if (!enabled && check.enabled) {
        check.disabled_ms = req.now;
      }
      Object.assign(check, { type, name, target, regions, enabled });
      return { body: { check: checkView(check) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/uptime/checks/{check_id}',
    handler: (req, world) => {
      const check = findCheck(world, req);
      world.uptimeChecks = world.uptimeChecks.filter((c) => c.id !== check.id);
      world.uptimeAlerts = world.uptimeAlerts.filter((a) => a.check_id !== check.id);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/uptime/checks/{check_id}/state',
    handler: (req, world) => ({ body: { state: stateView(findCheck(world, req), req.now) } }),
  },
  {
    method: 'GET',
    path: '/v2/uptime/checks/{check_id}/alerts',
    handler: (req, world) => {
      const check = findCheck(world, req);
      const body = listBody(
        'alerts',
        world.uptimeAlerts.filter((a) => a.check_id === check.id),
        req,
      );
      return { body: { ...body, alerts: (body.alerts as StoredUptimeAlert[]).map(alertView) } };
    },
  },
  {
    method: 'POST',
    path: '/v2/uptime/checks/{check_id}/alerts',
    handler: (req, world) => {
      const check = findCheck(world, req);
      const alert = alertFrom(check, req.body, randomUUID(), req.now);
      world.uptimeAlerts.push(alert);
      return { status: 201, body: { alert: alertView(alert) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/uptime/checks/{check_id}/alerts/{alert_id}',
    handler: (req, world) => ({ body: { alert: alertView(findAlert(world, req).alert) } }),
  },
  {
    method: 'PUT',
    path: '/v2/uptime/checks/{check_id}/alerts/{alert_id}',
    handler: (req, world) => {
      const { check, alert } = findAlert(world, req);
      const next = alertFrom(check, req.body, alert.id, alert.created_ms);
      delete alert.threshold;
      delete alert.comparison;
      Object.assign(alert, next);
      return { body: { alert: alertView(alert) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/uptime/checks/{check_id}/alerts/{alert_id}',
    handler: (req, world) => {
      const { alert } = findAlert(world, req);
      world.uptimeAlerts = world.uptimeAlerts.filter((a) => a.id !== alert.id);
      return { status: 204 };
    },
  },
];
