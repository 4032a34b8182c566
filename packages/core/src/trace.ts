/**
 * Tracing: the client's events (`ClientOptions.onEvent`) as lines a person reads, such as the
 * CLI's `--trace` prints to stderr. A request shows its method, path and query, and its JSON body
 * with secrets masked; the Authorization header is shown only as hidden. A response shows its
 * status, time, request id and the rate-limit headers.
 */
import type { ClientEvent } from './client.js';
import { maskSecrets } from './secrets.js';

/** The longest request body shown, in characters. */
const BODY_SHOWN = 400;

/** One line for an event, without a trailing newline. */
export function traceLine(event: ClientEvent): string {
  switch (event.type) {
    case 'request': {
      const again = event.attempt > 1 ? ` (attempt ${event.attempt})` : '';
      const body =
        event.body === undefined ? '' : ` body ${shorten(JSON.stringify(maskSecrets(event.body)))}`;
      return `> ${event.method} ${event.target}${again} authorization: Bearer [hidden]${body}`;
    }
    case 'response': {
      const parts = [`< ${event.status} ${event.method} ${event.target} in ${event.ms} ms`];
      if (event.rateLimit) {
        const reset = new Date(event.rateLimit.reset * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
        parts.push(`ratelimit ${event.rateLimit.remaining}/${event.rateLimit.limit} reset ${reset}`);
      }
      if (event.requestId) parts.push(`request id ${event.requestId}`);
      return parts.join('; ');
    }
    case 'retry':
      return `~ retry ${event.method} ${event.path} in ${event.delayMs} ms after attempt ${event.attempt}: ${event.reason}`;
  }
}

/**
 * A token shown without giving it away, as `auth list` shows it: its platform prefix (`dop_v1_`)
 * and last four characters, or only stars when it is too short to show any part safely.
 */
export function maskToken(token: string): string {
  if (token.length < 16) return '****';
  const prefix = /^[a-z]{2,5}_v\d+_/.exec(token)?.[0] ?? '';
  return `${prefix}****${token.slice(-4)}`;
}

function shorten(text: string): string {
  return text.length > BODY_SHOWN ? `${text.slice(0, BODY_SHOWN - 1)}…` : text;
}
