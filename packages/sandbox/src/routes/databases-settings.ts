/**
 * A database cluster's storage autoscaling and DigitalOcean settings (custom CNAMEs), checked as the
 * platform checks them, and the fields they add to the cluster's view. A leaf module: the cluster
 * routes (routes/databases.ts, at creation and in the view) and the sub-resource routes
 * (routes/databases-extra.ts) both use it.
 */

import type { StandardEngine, StoredCluster } from '../families/databases.js';
import type { StoredAutoscale } from '../families/databases-extra.js';
import { badRequest, unprocessable } from '../http.js';

/** The port of every cluster's metrics endpoint (Prometheus), as the platform lists it. */
export const METRICS_PORT = 9273;

/**
 * The engines whose storage autoscales: all but the in-memory ones (Valkey, and Caching, which
 * follows it), whose nodes hold their data in memory.
 */
export const AUTOSCALE_ENGINES: readonly StandardEngine[] = ['pg', 'mysql', 'mongodb', 'kafka', 'opensearch'];

/** What autoscaling gets when enabled without its thresholds: the description's example values. */
export const AUTOSCALE_DEFAULTS = { threshold_percent: 80, increment_gib: 10 } as const;

/** The description's pattern for a CNAME: an RFC 1123 host name of at least two labels. */
const CNAME = /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)+$/;
const MAX_CNAMES = 16;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An optional integer within bounds, or the platform's 422 naming the field. */
function boundedInt(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw unprocessable(`${field} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/**
 * The autoscaling settings of a body `{storage: {enabled, threshold_percent, increment_gib}}`
 * (`prefix` names where it is: `autoscale.` in a cluster's creation, nothing in its own PUT).
 * Thresholds not given keep the cluster's (`previous`), else take the defaults once enabled.
 */
export function checkAutoscale(raw: unknown, prefix: string, previous?: StoredAutoscale): StoredAutoscale {
  if (!isObject(raw)) throw unprocessable(`${prefix || 'the body '}must be an object holding storage`);
  for (const key of Object.keys(raw)) {
    if (key !== 'storage')
      throw unprocessable(`${prefix}${key} is not an autoscaling setting (only storage is)`);
  }
  const storage = raw.storage;
  if (!isObject(storage)) throw unprocessable(`${prefix}storage is required and must be an object`);
  for (const key of Object.keys(storage)) {
    if (!['enabled', 'threshold_percent', 'increment_gib'].includes(key)) {
      throw unprocessable(`${prefix}storage.${key} is not a storage autoscaling setting`);
    }
  }
  if (typeof storage.enabled !== 'boolean') {
    throw unprocessable(`${prefix}storage.enabled is required and must be true or false`);
  }
  const threshold =
    boundedInt(storage.threshold_percent, `${prefix}storage.threshold_percent`, 15, 95) ??
    previous?.threshold_percent;
  const increment =
    boundedInt(storage.increment_gib, `${prefix}storage.increment_gib`, 10, 500) ?? previous?.increment_gib;
  if (storage.enabled) {
    return {
      enabled: true,
      threshold_percent: threshold ?? AUTOSCALE_DEFAULTS.threshold_percent,
      increment_gib: increment ?? AUTOSCALE_DEFAULTS.increment_gib,
    };
  }
  return {
    enabled: false,
    ...(threshold === undefined ? {} : { threshold_percent: threshold }),
    ...(increment === undefined ? {} : { increment_gib: increment }),
  };
}

/** The storage autoscaling settings as the platform shows them. */
export function autoscaleView(autoscale: StoredAutoscale | undefined) {
  if (!autoscale) return { enabled: false };
  return {
    enabled: autoscale.enabled,
    ...(autoscale.threshold_percent === undefined ? {} : { threshold_percent: autoscale.threshold_percent }),
    ...(autoscale.increment_gib === undefined ? {} : { increment_gib: autoscale.increment_gib }),
  };
}

/**
 * DigitalOcean settings `{service_cnames}`: a body of the wrong shape is a 400, as the description
 * gives this operation; CNAMEs that are not host names, repeated, or too many are a 422. No
 * `service_cnames` (or null) clears them, as the description says.
 */
export function checkDoSettings(raw: unknown, field: string): { service_cnames: string[] } {
  if (!isObject(raw)) throw badRequest(`${field} is required and must be an object`);
  for (const key of Object.keys(raw)) {
    if (key !== 'service_cnames')
      throw unprocessable(`${field}.${key} is not a setting (only service_cnames is)`);
  }
  const cnames = raw.service_cnames;
  if (cnames === undefined || cnames === null) return { service_cnames: [] };
  if (!Array.isArray(cnames)) throw badRequest(`${field}.service_cnames must be an array of host names`);
  if (cnames.length > MAX_CNAMES) {
    throw unprocessable(
      `${field}.service_cnames holds ${cnames.length} names; at most ${MAX_CNAMES} are allowed`,
    );
  }
  const seen = new Set<string>();
  cnames.forEach((cname, i) => {
    if (typeof cname !== 'string' || cname.length > 253 || !CNAME.test(cname)) {
      throw unprocessable(
        `${field}.service_cnames[${i}] must be a host name such as db.example.com (RFC 1123, at most 253 characters)`,
      );
    }
    const key = cname.toLowerCase();
    if (seen.has(key)) throw unprocessable(`${field}.service_cnames names ${cname} twice`);
    seen.add(key);
  });
  return { service_cnames: [...(cnames as string[])] };
}

/** The cluster's metrics endpoints: its primary node's, and its standbys' when it has any. */
export function metricsEndpoints(cluster: StoredCluster) {
  return [
    { host: cluster.host, port: METRICS_PORT },
    ...(cluster.num_nodes > 1 ? [{ host: `replica-${cluster.host}`, port: METRICS_PORT }] : []),
  ];
}

/**
 * What these settings add to a cluster's view: autoscaling once configured (absent: not
 * configured, as the description says), CNAMEs once set, and the metrics endpoints.
 */
export function clusterSettingsView(cluster: StoredCluster) {
  return {
    ...(cluster.autoscale ? { autoscale: { storage: autoscaleView(cluster.autoscale) } } : {}),
    ...(cluster.do_settings
      ? { do_settings: { service_cnames: [...cluster.do_settings.service_cnames] } }
      : {}),
    metrics_endpoints: metricsEndpoints(cluster),
  };
}
