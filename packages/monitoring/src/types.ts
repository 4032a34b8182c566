/**
 * The platform's answers to the monitoring tools, as library users receive them: the shapes of the
 * platform's OpenAPI description (@cloudcall/platform, generated). `Always` marks what the
 * description leaves optional and the platform always sends.
 */
import type { Always, ListAnswer, Schemas } from '@cloudcall/platform';

/** An alert policy: what it watches (`type`, `entities`, `tags`), when it fires and whom it tells. */
export type AlertPolicy = Schemas['alert_policy'];
export type AlertPolicyList = ListAnswer<'monitoring_list_alertPolicy', 'policies'>;

/** A metrics query's answer: the platform's Prometheus matrix, one series per label set. */
export type Metrics = Schemas['metrics'];
/** One series of a metrics answer: its labels and its `[unix seconds, "value"]` samples. */
export type MetricSeries = Schemas['metrics_result'];

/** An uptime check: the checks the platform answers always carry their id and settings. */
export type UptimeCheck = Always<Schemas['check'], 'id' | 'name' | 'type' | 'target' | 'regions'>;
export type UptimeCheckList = ListAnswer<'uptime_list_checks', 'checks', UptimeCheck>;
/** Each region's status (UP, DOWN, CHECKING) and the last outage of an uptime check. */
export type UptimeCheckState = Schemas['state'];

/** An alert of an uptime check (latency, down, down_global, ssl_expiry). */
export type UptimeAlert = Always<Schemas['alert'], 'id' | 'name' | 'type' | 'notifications' | 'period'>;
export type UptimeAlertList = ListAnswer<'uptime_list_alerts', 'alerts', UptimeAlert>;
