/**
 * The monitoring family: alert policies (what the platform watches on VMs, load balancers,
 * database clusters and autoscale pools, and whom it tells), VM metrics over a time range, uptime
 * checks of URLs from the platform's regions, and the alerts of a check. Named as doctl's
 * `monitoring alert|metrics|uptime` commands, so the CLI's words are doctl's.
 */
import { annotations, defineTool, returns, sendRequest, type ToolContext } from '@cloudcall/core';
import { LIMITS, numericId, pageQuery, tagName, text } from '@cloudcall/core/internal';
import {
  ALERT_POLICY_COMPARE,
  ALERT_POLICY_TYPE,
  ALERT_POLICY_WINDOW,
  ALERT_UPDATABLE_COMPARISON,
  ALERT_UPDATABLE_PERIOD,
  ALERT_UPDATABLE_TYPE,
  CHECK_UPDATABLE_REGIONS,
  CHECK_UPDATABLE_TYPE,
} from '@cloudcall/platform';
import { z } from 'zod';
import {
  AlertID,
  CheckID,
  checkNotify,
  Emails,
  type NotifyArgs,
  notifyBody,
  PolicyID,
  page,
  SlackChannels,
  SlackUrls,
  timeArg,
} from './schemas.js';
import type {
  AlertPolicy,
  AlertPolicyList,
  Metrics,
  UptimeAlert,
  UptimeAlertList,
  UptimeCheck,
  UptimeCheckList,
  UptimeCheckState,
} from './types.js';

// --- alert policies ---

const policyArgs = {
  Type: z.enum(ALERT_POLICY_TYPE).describe('What it watches, e.g. v1/insights/droplet/cpu'),
  Compare: z.enum(ALERT_POLICY_COMPARE).describe('Fire above or below Value'),
  Value: z.number().nonnegative().describe('Threshold (percent for utilization types)'),
  Window: z.enum(ALERT_POLICY_WINDOW).describe('Averaged over'),
  Description: text('Shown in the alert', { max: LIMITS.description }),
  Entities: z
    .array(z.string().min(1).max(64))
    .max(200)
    .describe('Ids watched (VM ids for droplet types); none and no Tags: all'),
  Tags: z.array(tagName()).max(50).describe('Watch resources with these tags'),
  Emails,
  SlackChannels,
  SlackUrls,
  Enabled: z.boolean().describe('Default true'),
};

type PolicyArgs = { [K in keyof typeof policyArgs]?: z.output<(typeof policyArgs)[K]> };

/** A policy as the platform takes it, from arguments over what it has (`current`, for an update). */
function policyBody(args: PolicyArgs, current?: AlertPolicy) {
  const given = notifyBody(args as NotifyArgs);
  return {
    type: args.Type ?? current?.type,
    description: args.Description ?? current?.description,
    compare: args.Compare ?? current?.compare,
    value: args.Value ?? current?.value,
    window: args.Window ?? current?.window,
    entities: args.Entities ?? current?.entities ?? [],
    tags: args.Tags ?? current?.tags ?? [],
    alerts: {
      email: args.Emails ?? current?.alerts.email ?? [],
      slack: args.SlackChannels !== undefined ? given.slack : (current?.alerts.slack ?? []),
    },
    enabled: args.Enabled ?? current?.enabled ?? true,
  };
}

const alertPolicyTools = [
  defineTool({
    name: 'monitoring-alert-create',
    family: 'monitoring',
    beyondSpec: true,
    title: 'Create alert policy',
    description: 'Alert when a metric crosses a value.',
    details:
      'Creates an alert policy: when the metric of Type (CPU, memory, load, disk, bandwidth of VMs; load balancer, database and autoscale pool metrics) is above or below Value over Window, the platform emails Emails and posts to the Slack channels. Entities (VM ids for the droplet types, load balancer or database cluster ids for theirs) and Tags choose what it watches; with neither, every resource of the type.',
    input: z
      .strictObject({
        ...policyArgs,
        Entities: policyArgs.Entities.optional(),
        Tags: policyArgs.Tags.optional(),
        Emails: Emails.optional(),
        SlackChannels: SlackChannels.optional(),
        SlackUrls: SlackUrls.optional(),
        Enabled: policyArgs.Enabled.default(true),
      })
      .superRefine((args, context) => checkNotify(args, context, true)),
    annotations: annotations.create,
    request: { method: 'POST', path: '/v2/monitoring/alerts', body: (args) => policyBody(args) },
    result: returns<{ policy: AlertPolicy }>(),
  }),
  defineTool({
    name: 'monitoring-alert-get',
    family: 'monitoring',
    beyondSpec: true,
    title: 'Get alert policy',
    description: 'One alert policy.',
    details:
      'Shows one alert policy: its type, comparison, value, window, entities, tags and whom it notifies.',
    input: z.strictObject({ UUID: PolicyID }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/monitoring/alerts/{UUID}' },
    result: returns<{ policy: AlertPolicy }>(),
  }),
  defineTool({
    name: 'monitoring-alert-list',
    family: 'monitoring',
    beyondSpec: true,
    title: 'List alert policies',
    description: 'Alert policies of the account.',
    details: "Lists the account's alert policies. Paginated.",
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/monitoring/alerts', query: pageQuery },
    result: returns<AlertPolicyList>(),
  }),
  defineTool({
    name: 'monitoring-alert-update',
    family: 'monitoring',
    beyondSpec: true,
    title: 'Update alert policy',
    description: 'Change an alert policy; unset keeps.',
    details:
      'Changes the arguments given of an alert policy and keeps the others (the platform replaces a policy whole: the policy is read first). Emails, or SlackChannels with SlackUrls, replace that list; an empty list clears it.',
    input: z
      .strictObject({
        UUID: PolicyID,
        ...Object.fromEntries(Object.entries(policyArgs).map(([key, schema]) => [key, schema.optional()])),
      } as { UUID: typeof PolicyID } & {
        [K in keyof typeof policyArgs]: z.ZodOptional<(typeof policyArgs)[K]>;
      })
      .superRefine((args, context) => checkNotify(args, context, false)),
    annotations: annotations.update,
    handler: async (args, context) => {
      const { policy } = await sendRequest<{ policy: AlertPolicy }>(
        { method: 'GET', path: '/v2/monitoring/alerts/{UUID}' },
        args,
        context,
      );
      return sendRequest<{ policy: AlertPolicy }>(
        { method: 'PUT', path: '/v2/monitoring/alerts/{UUID}', body: () => policyBody(args, policy) },
        args,
        context,
      );
    },
    result: returns<{ policy: AlertPolicy }>(),
  }),
  defineTool({
    name: 'monitoring-alert-delete',
    family: 'monitoring',
    beyondSpec: true,
    title: 'Delete alert policy',
    description: 'Delete an alert policy.',
    details: 'Deletes an alert policy for good: the platform stops alerting on it.',
    input: z.strictObject({ UUID: PolicyID }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/monitoring/alerts/{UUID}' },
    result: returns<{ ok: true }>(),
  }),
] as const;

// --- VM metrics ---

/** The VM metrics the platform answers, each its own endpoint under /v2/monitoring/metrics/droplet. */
export const VM_METRICS = [
  'cpu',
  'memory_total',
  'memory_free',
  'memory_available',
  'memory_cached',
  'bandwidth',
  'filesystem_free',
  'filesystem_size',
  'load_1',
  'load_5',
  'load_15',
] as const;

const metricsTools = [
  defineTool({
    name: 'monitoring-metrics-get',
    family: 'monitoring',
    beyondSpec: true,
    title: 'Get VM metrics',
    description: 'A VM metric over a time range.',
    details:
      'Answers a VM metric as time series over Start to End: cpu (seconds per mode, counters), memory_total/free/available/cached and filesystem_free/size (bytes), bandwidth (Mbps; give Interface and Direction), load_1/5/15. Start and End take UNIX seconds, an ISO 8601 time, "now", or a duration before now ("1h"). Memory, filesystem and load need the VM\'s monitoring agent (an empty result without it).',
    input: z
      .strictObject({
        Metric: z.enum(VM_METRICS).describe('What to read'),
        VmID: numericId('VM id (from vm-list)'),
        Start: timeArg('From: time or "1h" ago').prefault('1h'),
        End: timeArg('To: time, "now"').prefault('now'),
        Interface: z.enum(['public', 'private']).optional().describe('bandwidth only'),
        Direction: z.enum(['inbound', 'outbound']).optional().describe('bandwidth only'),
      })
      .superRefine((args, context) => {
        if (args.Metric === 'bandwidth' && (args.Interface === undefined || args.Direction === undefined)) {
          context.addIssue({
            code: 'custom',
            path: ['Metric'],
            message: 'bandwidth needs Interface (public, private) and Direction (inbound, outbound)',
          });
        }
        for (const key of ['Interface', 'Direction'] as const) {
          if (args.Metric !== 'bandwidth' && args[key] !== undefined) {
            context.addIssue({ code: 'custom', path: [key], message: 'is for Metric bandwidth only' });
          }
        }
        if (!(args.Start < args.End)) {
          context.addIssue({
            code: 'custom',
            path: ['End'],
            message: `must be after Start (${new Date(args.Start * 1000).toISOString()})`,
          });
        }
      }),
    annotations: annotations.read,
    request: {
      method: 'GET',
      path: '/v2/monitoring/metrics/droplet/{Metric}',
      query: { host_id: 'VmID', start: 'Start', end: 'End', interface: 'Interface', direction: 'Direction' },
    },
    result: returns<Metrics>(),
  }),
] as const;

// --- uptime checks ---

const checkArgs = {
  Name: text('Check name', { max: LIMITS.name }),
  Target: z
    .url({ protocol: /^https?$/, hostname: /./, error: 'expected an http:// or https:// URL' })
    .max(LIMITS.url)
    .describe('URL to check (a ping check pings its host)'),
  Type: z.enum(CHECK_UPDATABLE_TYPE).describe('ping, http or https'),
  Regions: z.array(z.enum(CHECK_UPDATABLE_REGIONS)).min(1).describe('Probe from'),
  Enabled: z.boolean().describe('Probing on'),
};

const checkBody = {
  name: 'Name',
  target: 'Target',
  type: 'Type',
  regions: 'Regions',
  enabled: 'Enabled',
} as const;

const uptimeCheckTools = [
  defineTool({
    name: 'monitoring-uptime-create',
    family: 'monitoring',
    beyondSpec: true,
    title: 'Create uptime check',
    description: 'Probe a URL from regions.',
    details:
      "Creates an uptime check: the platform probes Target (https by default, from us_east unless Regions says) and records each region's status (monitoring-uptime-get-state). Add alerts with monitoring-uptime-alert-create.",
    input: z.strictObject({
      Name: checkArgs.Name,
      Target: checkArgs.Target,
      Type: checkArgs.Type.default('https'),
      Regions: checkArgs.Regions.default(['us_east']),
      Enabled: checkArgs.Enabled.default(true),
    }),
    annotations: annotations.create,
    request: { method: 'POST', path: '/v2/uptime/checks', body: checkBody },
    result: returns<{ check: UptimeCheck }>(),
  }),
  defineTool({
    name: 'monitoring-uptime-get',
    family: 'monitoring',
    beyondSpec: true,
    title: 'Get uptime check',
    description: 'One uptime check.',
    details: 'Shows one uptime check: its name, type, target, regions and whether it is enabled.',
    input: z.strictObject({ ID: CheckID() }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/uptime/checks/{ID}' },
    result: returns<{ check: UptimeCheck }>(),
  }),
  defineTool({
    name: 'monitoring-uptime-list',
    family: 'monitoring',
    beyondSpec: true,
    title: 'List uptime checks',
    description: 'Uptime checks of the account.',
    details: "Lists the account's uptime checks. Paginated.",
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/uptime/checks', query: pageQuery },
    result: returns<UptimeCheckList>(),
  }),
  defineTool({
    name: 'monitoring-uptime-get-state',
    family: 'monitoring',
    beyondSpec: true,
    title: 'Get uptime check state',
    description: "Each region's status; last outage.",
    details:
      "Shows an uptime check's state: each region's status (CHECKING until its first probe, then UP or DOWN), since when, its 30-day uptime, and the check's previous outage.",
    input: z.strictObject({ ID: CheckID() }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/uptime/checks/{ID}/state' },
    result: returns<{ state: UptimeCheckState }>(),
  }),
  defineTool({
    name: 'monitoring-uptime-update',
    family: 'monitoring',
    beyondSpec: true,
    title: 'Update uptime check',
    description: 'Change an uptime check; unset keeps.',
    details:
      'Changes the arguments given of an uptime check (name, target, type, regions, enabled) and keeps the others.',
    input: z.strictObject({
      ID: CheckID(),
      Name: checkArgs.Name.optional(),
      Target: checkArgs.Target.optional(),
      Type: checkArgs.Type.optional(),
      Regions: checkArgs.Regions.optional(),
      Enabled: checkArgs.Enabled.optional(),
    }),
    annotations: annotations.update,
    request: { method: 'PUT', path: '/v2/uptime/checks/{ID}', body: checkBody },
    result: returns<{ check: UptimeCheck }>(),
  }),
  defineTool({
    name: 'monitoring-uptime-delete',
    family: 'monitoring',
    beyondSpec: true,
    title: 'Delete uptime check',
    description: 'Delete an uptime check and its alerts.',
    details: 'Deletes an uptime check for good, with its alerts and its history.',
    input: z.strictObject({ ID: CheckID() }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/uptime/checks/{ID}' },
    result: returns<{ ok: true }>(),
  }),
] as const;

// --- uptime alerts ---

const uptimeAlertArgs = {
  Name: text('Alert name', { max: LIMITS.name }),
  Type: z.enum(ALERT_UPDATABLE_TYPE).describe('latency, down, down_global or ssl_expiry'),
  Threshold: z.number().int().positive().describe('ms (latency) or days (ssl_expiry)'),
  Comparison: z.enum(ALERT_UPDATABLE_COMPARISON).describe('For Threshold'),
  Period: z.enum(ALERT_UPDATABLE_PERIOD).describe('Lasting at least'),
  Emails,
  SlackChannels,
  SlackUrls,
};

type UptimeAlertArgs = { [K in keyof typeof uptimeAlertArgs]?: z.output<(typeof uptimeAlertArgs)[K]> };

/** An uptime alert as the platform takes it, from arguments over what it has (for an update). */
function uptimeAlertBody(args: UptimeAlertArgs, current?: UptimeAlert) {
  const given = notifyBody(args);
  const type = args.Type ?? current?.type;
  // A threshold belongs to latency and ssl_expiry alerts: one changed to down drops it.
  const measured = type === 'latency' || type === 'ssl_expiry';
  return {
    name: args.Name ?? current?.name,
    type,
    threshold: measured ? (args.Threshold ?? current?.threshold) : undefined,
    comparison: measured ? (args.Comparison ?? current?.comparison) : undefined,
    period: args.Period ?? current?.period,
    notifications: {
      email: args.Emails ?? current?.notifications?.email ?? [],
      slack: args.SlackChannels !== undefined ? given.slack : (current?.notifications?.slack ?? []),
    },
  };
}

/** A latency or ssl_expiry alert needs its threshold; the others have none. */
function checkThreshold(args: UptimeAlertArgs, context: z.RefinementCtx): void {
  if (args.Type === undefined) return;
  const measured = args.Type === 'latency' || args.Type === 'ssl_expiry';
  if (measured && args.Threshold === undefined) {
    context.addIssue({
      code: 'custom',
      path: ['Type'],
      message: `${args.Type} needs Threshold (${args.Type === 'latency' ? 'milliseconds' : 'days'})`,
    });
  }
  for (const key of ['Threshold', 'Comparison'] as const) {
    if (!measured && args[key] !== undefined) {
      context.addIssue({ code: 'custom', path: [key], message: 'is for Type latency or ssl_expiry only' });
    }
  }
}

const alertPath = '/v2/uptime/checks/{CheckID}/alerts/{AlertID}';

async function readAlert(args: { CheckID: string; AlertID: string }, context: ToolContext) {
  return sendRequest<{ alert: UptimeAlert }>({ method: 'GET', path: alertPath }, args, context);
}

const uptimeAlertTools = [
  defineTool({
    name: 'monitoring-uptime-alert-create',
    family: 'monitoring',
    beyondSpec: true,
    title: 'Create uptime alert',
    description: 'Alert on a check: down, latency, SSL.',
    details:
      'Adds an alert to an uptime check: "down" (down in a region), "down_global" (in every region), "latency" (slower than Threshold ms) or "ssl_expiry" (certificate expiring within Threshold days; https checks), lasting Period. It notifies Emails and the Slack channels.',
    input: z
      .strictObject({
        CheckID: CheckID(),
        Name: uptimeAlertArgs.Name,
        Type: uptimeAlertArgs.Type,
        Threshold: uptimeAlertArgs.Threshold.optional(),
        Comparison: uptimeAlertArgs.Comparison.optional(),
        Period: uptimeAlertArgs.Period,
        Emails: Emails.optional(),
        SlackChannels: SlackChannels.optional(),
        SlackUrls: SlackUrls.optional(),
      })
      .superRefine((args, context) => {
        checkNotify(args, context, true);
        checkThreshold(args, context);
      }),
    annotations: annotations.create,
    request: {
      method: 'POST',
      path: '/v2/uptime/checks/{CheckID}/alerts',
      body: (args) => uptimeAlertBody(args),
    },
    result: returns<{ alert: UptimeAlert }>(),
  }),
  defineTool({
    name: 'monitoring-uptime-alert-get',
    family: 'monitoring',
    beyondSpec: true,
    title: 'Get uptime alert',
    description: 'One alert of an uptime check.',
    details: 'Shows one alert of an uptime check: its type, threshold, period and whom it notifies.',
    input: z.strictObject({ CheckID: CheckID(), AlertID }),
    annotations: annotations.read,
    request: { method: 'GET', path: alertPath },
    result: returns<{ alert: UptimeAlert }>(),
  }),
  defineTool({
    name: 'monitoring-uptime-alert-list',
    family: 'monitoring',
    beyondSpec: true,
    title: 'List uptime alerts',
    description: 'Alerts of an uptime check.',
    details: "Lists an uptime check's alerts. Paginated.",
    input: z.strictObject({ CheckID: CheckID(), ...page }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/uptime/checks/{CheckID}/alerts', query: pageQuery },
    result: returns<UptimeAlertList>(),
  }),
  defineTool({
    name: 'monitoring-uptime-alert-update',
    family: 'monitoring',
    beyondSpec: true,
    title: 'Update uptime alert',
    description: 'Change an uptime alert; unset keeps.',
    details:
      'Changes the arguments given of an uptime alert and keeps the others (the platform replaces an alert whole: the alert is read first). Emails, or SlackChannels with SlackUrls, replace that list.',
    input: z
      .strictObject({
        CheckID: CheckID(),
        AlertID,
        Name: uptimeAlertArgs.Name.optional(),
        Type: uptimeAlertArgs.Type.optional(),
        Threshold: uptimeAlertArgs.Threshold.optional(),
        Comparison: uptimeAlertArgs.Comparison.optional(),
        Period: uptimeAlertArgs.Period.optional(),
        Emails: Emails.optional(),
        SlackChannels: SlackChannels.optional(),
        SlackUrls: SlackUrls.optional(),
      })
      .superRefine((args, context) => checkNotify(args, context, false)),
    annotations: annotations.update,
    handler: async (args, context) => {
      const { alert } = await readAlert(args, context);
      return sendRequest<{ alert: UptimeAlert }>(
        { method: 'PUT', path: alertPath, body: () => uptimeAlertBody(args, alert) },
        args,
        context,
      );
    },
    result: returns<{ alert: UptimeAlert }>(),
  }),
  defineTool({
    name: 'monitoring-uptime-alert-delete',
    family: 'monitoring',
    beyondSpec: true,
    title: 'Delete uptime alert',
    description: 'Delete an alert of an uptime check.',
    details: 'Deletes one alert of an uptime check; the check goes on.',
    input: z.strictObject({ CheckID: CheckID(), AlertID }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: alertPath },
    result: returns<{ ok: true }>(),
  }),
] as const;

export const monitoringTools = [
  ...alertPolicyTools,
  ...metricsTools,
  ...uptimeCheckTools,
  ...uptimeAlertTools,
] as const;
