/**
 * The monitoring family's argument schemas, shared by its tools: notification targets (emails and
 * Slack webhooks, as alert policies and uptime alerts both take them), times of a metrics query,
 * and the ids of policies, checks and alerts.
 */
import { durationMs, LIMITS, pageArgs, uuid } from '@cloudcall/core/internal';
import { z } from 'zod';

/** Alert policies, uptime checks and their alerts page by 20 (the platform's default). */
export const page = pageArgs(20);

export const PolicyID = uuid('Alert policy UUID (from monitoring-alert-list)');
export const CheckID = (description = 'Uptime check id (from monitoring-uptime-list)') => uuid(description);
export const AlertID = uuid('Uptime alert id (from monitoring-uptime-alert-list)');

export const Emails = z
  .array(z.email({ error: 'expected an email address, such as "ops@example.com"' }).max(254))
  .max(50)
  .describe('Email addresses to notify');
export const SlackChannels = z
  .array(z.string().min(1).max(LIMITS.name))
  .max(50)
  .describe('Slack channels, such as "#ops"; each with a SlackUrls entry');
export const SlackUrls = z
  .array(
    z
      .url({ protocol: /^https$/, hostname: /./, error: 'expected an https:// Slack webhook URL' })
      .max(LIMITS.url),
  )
  .max(50)
  .describe('Slack incoming-webhook URLs, one per SlackChannels entry');

/** The targets of `Emails`, `SlackChannels` and `SlackUrls`, as the platform's `{ email, slack }`. */
export interface NotifyArgs {
  Emails?: string[] | undefined;
  SlackChannels?: string[] | undefined;
  SlackUrls?: string[] | undefined;
}

export function notifyBody(args: NotifyArgs) {
  const channels = args.SlackChannels ?? [];
  return {
    email: args.Emails ?? [],
    slack: channels.map((channel, index) => ({ channel, url: args.SlackUrls?.[index] as string })),
  };
}

/**
 * Checks the notification targets together, before any request: a Slack channel needs its webhook
 * URL, and (`required`) someone must be told: the platform refuses a policy or alert telling no one.
 */
export function checkNotify(args: NotifyArgs, context: z.RefinementCtx, required: boolean): void {
  const channels = args.SlackChannels?.length ?? 0;
  const urls = args.SlackUrls?.length ?? 0;
  if ((args.SlackChannels !== undefined || args.SlackUrls !== undefined) && channels !== urls) {
    context.addIssue({
      code: 'custom',
      path: ['SlackUrls'],
      message: `give one webhook URL per Slack channel (${channels} channels, ${urls} URLs)`,
    });
  }
  if (required && channels === 0 && (args.Emails?.length ?? 0) === 0) {
    context.addIssue({
      code: 'custom',
      path: ['Emails'],
      message: 'is required (or SlackChannels with SlackUrls): someone to notify',
    });
  }
}

const TIME_FORMS = 'UNIX seconds, an ISO 8601 time, "now", or a duration before now such as "1h" or "30m"';

/** A time as UNIX seconds, read from any of TIME_FORMS at `now` (ms), or undefined. */
export function secondsOf(value: number | string, now: number): number | undefined {
  if (typeof value === 'number') return value;
  const text = value.trim();
  if (text === 'now') return Math.floor(now / 1000);
  if (/^\d{9,11}(\.\d+)?$/.test(text)) return Math.floor(Number(text));
  if (/^\d{4}-\d\d-\d\dT/.test(text)) {
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
  }
  // A bare number is seconds to durationMs; a duration here needs its unit ("90s", "1h").
  if (!/[a-z]\s*$/i.test(text)) return undefined;
  const ago = durationMs(text);
  return ago === undefined ? undefined : Math.floor((now - ago) / 1000);
}

/**
 * A time of a metrics query, sent as UNIX seconds: read at parse time, so "1h" is an hour before
 * the call.
 */
export function timeArg(description: string) {
  return z
    .union([z.number().int().nonnegative(), z.string().max(64)])
    .transform((value, context) => {
      const seconds = secondsOf(value, Date.now());
      if (seconds === undefined) {
        context.addIssue({ code: 'custom', message: `expected ${TIME_FORMS}` });
        return z.NEVER;
      }
      return seconds;
    })
    .describe(description);
}
