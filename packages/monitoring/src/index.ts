/**
 * @cloudcall/monitoring: alert policies, VM metrics, uptime checks and their alerts, as tool
 * definitions and as a typed API.
 *
 * ```ts
 * import { createClient } from '@cloudcall/core';
 * import { monitoringApi } from '@cloudcall/monitoring';
 * const monitoring = monitoringApi(createClient({ token }));
 * const { policies } = await monitoring.monitoringAlertList({});
 * ```
 */
import { type ApiClient, type BoundTools, bindTools, type ToolFamily } from '@cloudcall/core';
import { monitoringTools, VM_METRICS } from './tools.js';

export type {
  AlertPolicy,
  AlertPolicyList,
  MetricSeries,
  Metrics,
  UptimeAlert,
  UptimeAlertList,
  UptimeCheck,
  UptimeCheckList,
  UptimeCheckState,
} from './types.js';
export { monitoringTools, VM_METRICS };

export const monitoringFamily: ToolFamily = {
  name: 'monitoring',
  title: 'Monitoring and uptime',
  description:
    'Alert policies (create, get, list, update, delete); VM metrics (CPU, memory, bandwidth, filesystem, load); uptime checks, their state and their alerts.',
  tools: monitoringTools,
  onRequest: true,
};

/** The monitoring tools bound to a client: `monitoringAlertCreate`, `monitoringMetricsGet`, `monitoringUptimeList`... */
export function monitoringApi(client: ApiClient): BoundTools<typeof monitoringTools> {
  return bindTools(client, monitoringTools);
}
