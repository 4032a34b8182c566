/**
 * The platform's limits on what a request may hold, in one table, enforced for every route before
 * its handler runs: so an over-long value is refused with the platform's 422 naming the field, and
 * never reaches the world (a 20 MB key name once made every later write 27 times slower).
 */
import { LIMITS, MAX_DEPTH } from '@cloudcall/core/internal';
import { unprocessable } from './http.js';

/**
 * The largest request body the sandbox reads, in bytes. The API description documents no body
 * limit for any operation the sandbox serves, so 1 MiB everywhere: room for the largest legitimate
 * body (a certificate with its chain and key, or 64 KiB of user data) many times over.
 */
export const BODY_LIMIT = 1_048_576;

export interface FieldLimit {
  /** Longest string, in characters (UTF-16 code units, as the tools' schemas count them). */
  length?: number;
  /** Longest string in UTF-8 bytes, where the platform states its limit in bytes. */
  bytes?: number;
  /** Most items, for an array. */
  items?: number;
}

/**
 * Limits by field name, wherever the field appears in a request body (an array's items take the
 * array's limit). `maxLength`/`maxItems` where the API description gives them (a test holds the
 * table to it); otherwise the platform's documented limits as core's `LIMITS` records them.
 */
export const FIELD_LIMITS: Readonly<Record<string, FieldLimit>> = {
  // API description: droplet_single_create.name, droplet_multi_create.names[], tags.name.
  name: { length: LIMITS.name },
  names: { length: LIMITS.name },
  // API description: vpc_updatable.description.
  description: { length: LIMITS.description },
  // API description: project_base.purpose.
  purpose: { length: 255 },
  // API description: tags.name ("a limit of 255 characters per tag").
  tags: { length: LIMITS.tag },
  tag: { length: LIMITS.tag },
  public_key: { length: LIMITS.publicKey },
  // API description: droplet_create.user_data "may not exceed 64 KiB in size".
  user_data: { bytes: LIMITS.userData },
  leaf_certificate: { length: LIMITS.pem },
  certificate_chain: { length: LIMITS.pem },
  private_key: { length: LIMITS.pem },
  // An image import URL: room for pre-signed object-storage URLs (as image-create allows).
  url: { length: LIMITS.url },
  // API description: the engines' advanced configuration.
  default_time_zone: { length: 100 },
  sql_mode: { length: 1_024 },
  innodb_ft_server_stopword_table: { length: 1_024 },
  innodb_ft_user_stopword_table: { length: 1_024 },
  'pg_partman_bgw.role': { length: 64 },
  timezone: { length: 64 },
  redis_notify_keyspace_events: { length: 32 },
  valkey_notify_keyspace_events: { length: 32 },
  ignore_startup_parameters: { items: 32 },
  // API description: do_settings.service_cnames, vpc_peering_create.vpc_ids.
  service_cnames: { length: LIMITS.hostname, items: 16 },
  vpc_ids: { items: 2 },
};

/** Any other string, and any property name: ids, addresses, settings, record data. */
export const OTHER_FIELD_LENGTH = LIMITS.short;

/** The limit of a field name (an own entry only: a field may be called `constructor`). */
function limitOf(name: string): FieldLimit | undefined {
  return Object.hasOwn(FIELD_LIMITS, name) ? FIELD_LIMITS[name] : undefined;
}

/**
 * Throws the platform's 422 naming the first field of `body` over its limit, or nesting more than
 * core's `MAX_DEPTH` objects and arrays (deeper JSON would overflow the stack of whatever walks it
 * later). Iterative, so no input can overflow this walk itself. Without `lengths`, only the nesting
 * and the length of property names are checked: for the generic layer's operations, whose fields
 * (an agent's instructions, an app's spec) the table does not know, and which accept what the
 * platform accepts.
 */
export function checkFieldLimits(body: Record<string, unknown>, { lengths = true } = {}): void {
  const pending: { value: unknown; field: string; name: string; depth: number }[] = [];
  const pushEntries = (object: object, parent: string, depth: number) => {
    // Reversed, so that the walk (a stack) meets fields in the order they were sent.
    for (const [key, value] of Object.entries(object).reverse()) {
      if (key.length > OTHER_FIELD_LENGTH) {
        throw unprocessable(
          `${parent || 'the request body'} has a property name longer than ${OTHER_FIELD_LENGTH} characters`,
        );
      }
      pending.push({ value, field: parent ? `${parent}.${key}` : key, name: key, depth });
    }
  };
  pushEntries(body, '', 1);
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, field, name, depth } = next;
    const limit = limitOf(name);
    if (typeof value === 'string' && !lengths) continue;
    if (typeof value === 'string') {
      const inBytes = limit?.bytes !== undefined;
      const length = inBytes ? Buffer.byteLength(value) : value.length;
      const max = limit?.bytes ?? limit?.length ?? OTHER_FIELD_LENGTH;
      if (length > max) {
        throw unprocessable(
          `${field} is too long: at most ${max} ${inBytes ? 'bytes' : 'characters'} (got ${length})`,
        );
      }
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    // `depth` counts the objects and arrays from the top-level field down to this one.
    if (depth > MAX_DEPTH) throw unprocessable(`${field} is nested more than ${MAX_DEPTH} levels deep`);
    if (Array.isArray(value)) {
      if (lengths && limit?.items !== undefined && value.length > limit.items) {
        throw unprocessable(`${field} has too many items: at most ${limit.items} (got ${value.length})`);
      }
      for (let i = value.length - 1; i >= 0; i--) {
        pending.push({ value: value[i], field: `${field}[${i}]`, name, depth: depth + 1 });
      }
    } else {
      pushEntries(value, field, depth + 1);
    }
  }
}
