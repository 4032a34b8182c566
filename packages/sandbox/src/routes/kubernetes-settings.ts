/**
 * The settings of a Kubernetes cluster a create or an update gives, checked as the platform checks
 * them: the maintenance window, the control plane firewall, the cluster autoscaler's configuration,
 * SSO, and the plugins that are only switched on or off. An update merges what it gives into what
 * the cluster has; what it leaves out stays.
 */
import { isIP } from 'node:net';
import type { MaintenancePolicy, StoredKubernetesCluster } from '../families/kubernetes.js';
import { parseCidr } from '../families/networking.js';
import { unprocessable } from '../http.js';
import { optionalBoolean } from './kubernetes-common.js';

const DAYS = new Set(['any', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']);
const START_TIME = /^([01]?\d|2[0-3]):[0-5]\d$/;

/** The plugins a cluster switches on or off (`{enabled}`), all off by default. */
const PLUGINS = [
  'routing_agent',
  'amd_gpu_device_plugin',
  'amd_gpu_device_metrics_exporter_plugin',
  'nvidia_gpu_device_plugin',
  'rdma_shared_dev_plugin',
  'coredns_autoscaler',
  'p2p_oci_registry_plugin',
] as const;

const EXPANDERS = new Set(['random', 'priority', 'least_waste']);
/** A Go duration, as the autoscaler reads `scale_down_unneeded_time` (`1m0s`, `90s`). */
const DURATION = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;

export const DEFAULT_MAINTENANCE: MaintenancePolicy = { start_time: '00:00', day: 'any' };

function objectField(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw unprocessable(`${field} must be an object`);
  return value as Record<string, unknown>;
}

/** A maintenance window: `start_time` as HH:MM (UTC) and a `day`, merged into `current`. */
export function maintenancePolicy(value: unknown, current: MaintenancePolicy): MaintenancePolicy {
  const given = objectField(value, 'maintenance_policy');
  if (!given) return { ...current };
  const policy = { ...current };
  if (given.start_time !== undefined) {
    if (typeof given.start_time !== 'string' || !START_TIME.test(given.start_time)) {
      throw unprocessable(
        `maintenance_policy.start_time must be a time of day as HH:MM (UTC); got ${JSON.stringify(given.start_time)}`,
      );
    }
    const [hours = '0', minutes = '00'] = given.start_time.split(':');
    policy.start_time = `${hours.padStart(2, '0')}:${minutes}`;
  }
  if (given.day !== undefined) {
    if (typeof given.day !== 'string' || !DAYS.has(given.day)) {
      throw unprocessable('maintenance_policy.day must be any, or a day of the week (monday to sunday)');
    }
    policy.day = given.day as MaintenancePolicy['day'];
  }
  return policy;
}

function isAddressOrCidr(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  if (text.includes('/')) return parseCidr(text)?.family === 'ipv4';
  return isIP(text) === 4;
}

/** The defaults of the settings objects a cluster shows. */
export function defaultSettings(): StoredKubernetesCluster['settings'] {
  const settings: StoredKubernetesCluster['settings'] = {
    control_plane_firewall: { enabled: false, allowed_addresses: [] },
    cluster_autoscaler_configuration: {
      scale_down_utilization_threshold: 0.5,
      scale_down_unneeded_time: '10m0s',
    },
    sso: { enabled: false, required: false },
  };
  for (const plugin of PLUGINS) settings[plugin] = { enabled: false };
  return settings;
}

/** Merges the settings a body gives into `current` (a copy is answered; `current` is unchanged). */
export function mergeSettings(
  body: Record<string, unknown>,
  current: StoredKubernetesCluster['settings'],
): StoredKubernetesCluster['settings'] {
  const next: StoredKubernetesCluster['settings'] = {};
  for (const [key, value] of Object.entries(current)) next[key] = { ...value };

  for (const plugin of PLUGINS) {
    const given = objectField(body[plugin], plugin);
    if (given) next[plugin] = { enabled: optionalBoolean(given.enabled, `${plugin}.enabled`, false) };
  }

  const firewall = objectField(body.control_plane_firewall, 'control_plane_firewall');
  if (firewall) {
    const was = next.control_plane_firewall ?? {};
    const addresses = firewall.allowed_addresses ?? was.allowed_addresses ?? [];
    if (!Array.isArray(addresses) || !addresses.every(isAddressOrCidr)) {
      throw unprocessable(
        'control_plane_firewall.allowed_addresses must be IPv4 addresses or CIDR blocks (such as 1.2.3.4/32)',
      );
    }
    next.control_plane_firewall = {
      enabled: optionalBoolean(
        firewall.enabled,
        'control_plane_firewall.enabled',
        (was.enabled as boolean) ?? false,
      ),
      allowed_addresses: [...new Set(addresses as string[])],
    };
  }

  const autoscaler = objectField(body.cluster_autoscaler_configuration, 'cluster_autoscaler_configuration');
  if (autoscaler) {
    const config = { ...(next.cluster_autoscaler_configuration ?? {}) };
    const threshold = autoscaler.scale_down_utilization_threshold;
    if (threshold !== undefined && threshold !== null) {
      if (typeof threshold !== 'number' || threshold < 0 || threshold > 1) {
        throw unprocessable(
          'cluster_autoscaler_configuration.scale_down_utilization_threshold must be a number from 0 to 1',
        );
      }
      config.scale_down_utilization_threshold = threshold;
    }
    const unneeded = autoscaler.scale_down_unneeded_time;
    if (unneeded !== undefined && unneeded !== null) {
      if (typeof unneeded !== 'string' || !DURATION.test(unneeded)) {
        throw unprocessable(
          'cluster_autoscaler_configuration.scale_down_unneeded_time must be a duration such as 1m0s',
        );
      }
      config.scale_down_unneeded_time = unneeded;
    }
    const expanders = autoscaler.expanders;
    if (expanders !== undefined && expanders !== null) {
      if (!Array.isArray(expanders) || !expanders.every((e) => EXPANDERS.has(e))) {
        throw unprocessable(
          'cluster_autoscaler_configuration.expanders must be a list of random, priority and least_waste',
        );
      }
      // An empty list unsets the expanders (the autoscaler then uses random).
      if (expanders.length) config.expanders = [...new Set(expanders as string[])];
      else delete config.expanders;
    }
    next.cluster_autoscaler_configuration = config;
  }

  const sso = objectField(body.sso, 'sso');
  if (sso) {
    const merged = { ...(next.sso ?? {}), ...sso };
    const enabled = optionalBoolean(merged.enabled, 'sso.enabled', false);
    const required = optionalBoolean(merged.required, 'sso.required', false);
    if (required && !enabled) throw unprocessable('sso.required can only be true when sso.enabled is true');
    const view: Record<string, unknown> = { enabled, required };
    for (const field of ['issuer_url', 'client_id'] as const) {
      const value = merged[field];
      if (value === undefined || value === null || value === '') {
        if (enabled) throw unprocessable(`sso.${field} is required when sso.enabled is true`);
        continue;
      }
      if (typeof value !== 'string') throw unprocessable(`sso.${field} must be a string`);
      if (field === 'issuer_url' && !/^https:\/\/[^\s/]+/.test(value)) {
        throw unprocessable('sso.issuer_url must be an https URL');
      }
      view[field] = value;
    }
    next.sso = view;
  }
  return next;
}
