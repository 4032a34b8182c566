/**
 * The spec's plain HTTP operation: starting an online migration into a cluster with
 * `PUT {base_url}/v2/databases/{database_cluster_uuid}/online-migration` and a bearer token.
 * The `db-cluster-start-online-migration` tool (and so the CLI command) goes through it.
 */
import type { ApiClient } from '@cloudcall/core';
import type { OnlineMigration, OnlineMigrationRequest } from './types.js';

/**
 * Starts an online migration of `body.source` into the cluster. The client sends its token as
 * `Authorization: Bearer <token>`; unset optional fields are left out of the body.
 */
export function startOnlineMigration(
  client: ApiClient,
  clusterId: string,
  body: OnlineMigrationRequest,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<OnlineMigration> {
  const wire: Record<string, unknown> = { source: body.source };
  if (body.disable_ssl !== undefined) wire.disable_ssl = body.disable_ssl;
  if (body.ignore_dbs !== undefined) wire.ignore_dbs = body.ignore_dbs;
  return client.request<OnlineMigration>({
    method: 'PUT',
    path: `/v2/databases/${encodeURIComponent(clusterId)}/online-migration`,
    body: wire,
    signal: options.signal,
  });
}
