/**
 * A database cluster's sub-resources beyond the cluster routes (routes/databases.ts): its event
 * log, maintenance on demand, storage autoscaling, DigitalOcean settings (custom CNAMEs), and the
 * account's metrics-endpoint credentials; with the log sinks and OpenSearch indexes
 * (databases-logsinks.ts) and the Kafka schema registry (databases-schemas.ts).
 *
 * The event log holds the cluster's creation (derived from its creation time) and every change
 * made after it (resize, region migration, upgrade, configuration, maintenance window, CNAMEs,
 * autoscaling: `cluster_update`; updates installed: `cluster_maintenance_perform`; a replica
 * promoted: `cluster_master_promotion` on the new cluster), oldest first.
 */

import type { StoredCluster } from '../families/databases.js';
import {
  dbEventId,
  type MetricsCredentials,
  recordDbEvent,
  type StoredDbEvent,
} from '../families/databases-extra.js';
import { paginate, type Route, unprocessable } from '../http.js';
import { iso } from '../time.js';
import { base, clusterOf, findCluster, statusOf } from './databases.js';
import { databasesLogsinkRoutes } from './databases-logsinks.js';
import { databasesSchemaRoutes } from './databases-schemas.js';
import { AUTOSCALE_ENGINES, autoscaleView, checkAutoscale, checkDoSettings } from './databases-settings.js';

function eventView(cluster: StoredCluster, event: StoredDbEvent) {
  return {
    id: event.id,
    cluster_name: cluster.name,
    event_type: event.type,
    create_time: iso(event.at_ms),
  };
}

/** The cluster's creation, as its log shows it (the same id on every read). */
const creationEvent = (cluster: StoredCluster): StoredDbEvent => ({
  id: dbEventId(`cluster_create:${cluster.id}`),
  type: 'cluster_create',
  at_ms: cluster.created_ms,
});

/** A change that needs the cluster online, as resizes do; the platform's 422 otherwise. */
function requireOnline(cluster: StoredCluster, now: number, what: string): void {
  const status = statusOf(cluster, now);
  if (status !== 'online') throw unprocessable(`the cluster is ${status}; ${what} once it is online`);
}

/** Credentials for HTTP basic authentication: a user name holds no colon, as RFC 7617 has it. */
function checkCredentials(body: Record<string, unknown>): MetricsCredentials {
  const credentials = body.credentials;
  if (typeof credentials !== 'object' || credentials === null || Array.isArray(credentials)) {
    throw unprocessable(
      'credentials is required: an object with basic_auth_username and basic_auth_password',
    );
  }
  const { basic_auth_username: username, basic_auth_password: password } = credentials as Record<
    string,
    unknown
  >;
  if (typeof username !== 'string' || !/^[^\s:]{1,64}$/.test(username)) {
    throw unprocessable(
      'credentials.basic_auth_username is required: 1 to 64 characters, without spaces or ":"',
    );
  }
  if (typeof password !== 'string' || password.length < 8 || password.length > 128) {
    throw unprocessable('credentials.basic_auth_password is required: 8 to 128 characters');
  }
  return { basic_auth_username: username, basic_auth_password: password };
}

export const databasesExtraRoutes: Route[] = [
  // Metrics endpoints' credentials: one pair for every cluster of the account.
  {
    method: 'GET',
    path: '/v2/databases/metrics/credentials',
    handler: (_req, world) => ({
      // The description's schema nests `credentials` twice; its example, and godo
      // (`databaseMetricsCredentialsRoot`), which doctl uses against the platform, once: the
      // sandbox answers as they do (which the schema also admits).
      body: { credentials: { ...world.dbMetricsCredentials } },
    }),
  },
  {
    method: 'PUT',
    path: '/v2/databases/metrics/credentials',
    handler: (req, world) => {
      world.dbMetricsCredentials = checkCredentials(req.body);
      return { status: 204 };
    },
  },
  // The event log.
  {
    method: 'GET',
    path: `${base}/events`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const page = paginate([creationEvent(cluster), ...(cluster.events ?? [])], req);
      return {
        body: {
          events: page.items.map((event) => eventView(cluster, event)),
          links: page.links,
          meta: page.meta,
        },
      };
    },
  },
  // Maintenance on demand: the pending updates installed now, in a rolling replacement.
  {
    method: 'PUT',
    path: `${base}/install_update`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      requireOnline(cluster, req.now, 'install updates');
      recordDbEvent(cluster, 'cluster_maintenance_perform', req.now);
      return { status: 204 };
    },
  },
  // Storage autoscaling.
  {
    method: 'GET',
    path: `${base}/autoscale`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, [...AUTOSCALE_ENGINES], 'Storage autoscaling');
      const storage = autoscaleView(cluster.autoscale);
      // The description nests the settings in `autoscale`; godo (`GetStorageAutoscale`, which
      // doctl's storage-autoscale commands were shown working with against the platform) reads
      // them from `storage` at the top. Both are sent, so that clients of either kind read them.
      return { body: { autoscale: { storage }, storage: { ...storage } } };
    },
  },
  {
    method: 'PUT',
    path: `${base}/autoscale`,
    handler: (req, world) => {
      const cluster = clusterOf(world, req, [...AUTOSCALE_ENGINES], 'Storage autoscaling');
      const autoscale = checkAutoscale(req.body, '', cluster.autoscale);
      requireOnline(cluster, req.now, 'configure autoscaling');
      cluster.autoscale = autoscale;
      recordDbEvent(cluster, 'cluster_update', req.now);
      return { status: 204 };
    },
  },
  // DigitalOcean settings: the CNAMEs the nodes' certificates name.
  {
    method: 'GET',
    path: `${base}/do_settings`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      return { body: { do_settings: { service_cnames: [...(cluster.do_settings?.service_cnames ?? [])] } } };
    },
  },
  {
    method: 'PUT',
    path: `${base}/do_settings`,
    handler: (req, world) => {
      const cluster = findCluster(world, req);
      const settings = checkDoSettings(req.body.do_settings, 'do_settings');
      // The nodes are replaced (rolling, without downtime) to carry the new certificate.
      requireOnline(cluster, req.now, 'change its settings');
      const before = cluster.do_settings?.service_cnames ?? [];
      cluster.do_settings = settings;
      if (before.join(',') !== settings.service_cnames.join(',')) {
        recordDbEvent(cluster, 'cluster_update', req.now);
      }
      return { status: 204 };
    },
  },
  ...databasesLogsinkRoutes,
  ...databasesSchemaRoutes,
];
