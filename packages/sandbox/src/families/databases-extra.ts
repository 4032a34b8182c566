/**
 * The database sub-resources beyond the cluster itself: a cluster's events, log sinks, Kafka schema
 * registry, storage autoscaling and DigitalOcean settings (kept on the stored cluster, in the
 * optional fields below), the OpenSearch indexes that log sinks fill (derived when read, with only
 * the deleted ones stored), and the account's metrics-endpoint credentials (kept in the world).
 * The routes are routes/databases-extra.ts, routes/databases-logsinks.ts and
 * routes/databases-schemas.ts.
 */

import { createHash, randomBytes } from 'node:crypto';
import type { EVENTS_LOGS_EVENT_TYPE } from '@cloudcall/platform';

export type DbEventType = (typeof EVENTS_LOGS_EVENT_TYPE)[number];

/** An event of a cluster's log. Its creation is not stored: it is derived from `created_ms`. */
export interface StoredDbEvent {
  id: string;
  type: DbEventType;
  at_ms: number;
}

/** The sink types the platform forwards logs to; datadog only from MongoDB clusters. */
export type LogsinkType = 'rsyslog' | 'elasticsearch' | 'opensearch' | 'datadog';

export interface StoredLogsink {
  id: string;
  name: string;
  type: LogsinkType;
  config: Record<string, unknown>;
  created_ms: number;
  /** When its configuration last changed: an OpenSearch sink writes to its indexes from then. */
  since_ms: number;
}

export type SchemaType = 'AVRO' | 'JSON' | 'PROTOBUF';

/** A schema as the registry stores it: one id for the same schema under any subject. */
export interface StoredSchema {
  id: number;
  schema_type: SchemaType;
  schema: string;
}

export interface StoredSubject {
  name: string;
  /** The subject's own compatibility level; absent: the registry's. */
  compatibility?: string;
  /** Oldest first; `version` counts from 1. Empty for a subject that has only a compatibility level. */
  versions: { version: number; schema_id: number; created_ms: number }[];
}

/** A Kafka cluster's schema registry. */
export interface StoredSchemaRegistry {
  /** Absent: the registry's default, BACKWARD. */
  compatibility?: string;
  schemas: StoredSchema[];
  subjects: StoredSubject[];
}

export interface StoredAutoscale {
  enabled: boolean;
  threshold_percent?: number;
  increment_gib?: number;
}

/** The fields of a stored cluster that this module's routes own (all optional: older worlds lack them). */
export interface ClusterExtras {
  /** Events after creation, oldest first (the creation's is derived from `created_ms`). */
  events?: StoredDbEvent[];
  logsinks?: StoredLogsink[];
  schema_registry?: StoredSchemaRegistry;
  autoscale?: StoredAutoscale;
  do_settings?: { service_cnames: string[] };
  /** OpenSearch only: the indexes deleted through the API (sinks write no more lines to them). */
  deleted_indexes?: string[];
}

/** The account's credentials for every cluster's metrics endpoint. */
export interface MetricsCredentials {
  basic_auth_username: string;
  basic_auth_password: string;
}

export interface DatabasesExtraState {
  dbMetricsCredentials: MetricsCredentials;
}

export function seedDatabasesExtraState(): DatabasesExtraState {
  return {
    dbMetricsCredentials: {
      basic_auth_username: 'doadmin-metrics',
      basic_auth_password: randomBytes(18).toString('base64url'),
    },
  };
}

/** How many events a cluster keeps (the oldest go first); its creation's always stays. */
export const MAX_DB_EVENTS = 500;

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** An event id as the platform writes them: eight lowercase letters and digits (`pe8u2huh`). */
export function dbEventId(seed?: string): string {
  const bytes = seed === undefined ? randomBytes(8) : createHash('sha256').update(seed).digest();
  return Array.from(bytes.subarray(0, 8), (byte) => ID_ALPHABET[byte % ID_ALPHABET.length]).join('');
}

/** Records an event in a cluster's log. */
export function recordDbEvent(cluster: ClusterExtras, type: DbEventType, now: number): void {
  cluster.events ??= [];
  cluster.events.push({ id: dbEventId(), type, at_ms: now });
  if (cluster.events.length > MAX_DB_EVENTS) cluster.events.splice(0, cluster.events.length - MAX_DB_EVENTS);
}
