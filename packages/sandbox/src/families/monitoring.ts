/**
 * Monitoring state of the sandbox world: alert policies, and the log sinks (destinations, and the
 * sinks that forward resources' logs to them). Metrics are not stored: routes/monitoring-metrics.ts
 * derives every series from the resource it is about and the time asked for, so the same query
 * answers the same numbers in any process.
 */

/** Where an alert policy sends its alerts. */
export interface StoredAlertTargets {
  email: string[];
  slack: { url: string; channel: string }[];
}

export interface StoredAlertPolicy {
  uuid: string;
  type: string;
  description: string;
  compare: 'GreaterThan' | 'LessThan';
  value: number;
  window: '5m' | '10m' | '30m' | '1h';
  /** Ids of the resources the policy watches, as strings (a VM's digits, a load balancer's UUID). */
  entities: string[];
  tags: string[];
  alerts: StoredAlertTargets;
  enabled: boolean;
  created_ms: number;
}

/** An OpenSearch cluster that logs are forwarded to. */
export interface StoredDestination {
  id: string;
  name: string;
  type: 'opensearch_dbaas' | 'opensearch_ext';
  config: {
    /** The configuration's own id, as the platform shows it. */
    id: string;
    endpoint: string;
    cluster_uuid?: string;
    cluster_name?: string;
    index_name?: string;
    retention_days: number;
    /** Kept, never shown: the platform omits credentials from every answer. */
    credentials?: { username?: string; password?: string };
  };
  created_ms: number;
}

/** Resources whose logs go to one destination. */
export interface StoredSink {
  id: string;
  destination_id: string;
  resources: { urn: string; name?: string }[];
  created_ms: number;
}

export interface MonitoringState {
  alertPolicies: StoredAlertPolicy[];
  logDestinations: StoredDestination[];
  logSinks: StoredSink[];
}

export function seedMonitoringState(): MonitoringState {
  return { alertPolicies: [], logDestinations: [], logSinks: [] };
}
