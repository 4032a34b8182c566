/**
 * The spec's plain HTTP operation: starting an online migration into a cluster with
 * `PUT {base_url}/v2/databases/{database_cluster_uuid}/online-migration` and a bearer token.
 * The `db-cluster-start-online-migration` tool (and so the CLI command) goes through it.
 */
import { type ApiClient, InputError, sendRequest } from '@cloudcall/core';
import { UUID_PATTERN } from '@cloudcall/core/internal';
import type { OnlineMigration, OnlineMigrationRequest } from './types.js';

/**
 * Starts an online migration of `body.source` into the cluster. The client sends its token as
 * `Authorization: Bearer <token>`; unset optional fields are left out of the body. A `clusterId`
 * that is not a UUID is an InputError naming it, and no request is sent.
 */
export async function startOnlineMigration(
  client: ApiClient,
  clusterId: string,
  body: OnlineMigrationRequest,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<OnlineMigration> {
  if (typeof clusterId !== 'string' || !UUID_PATTERN.test(clusterId)) {
    throw new InputError(
      'expected a cluster UUID, such as "9cc10173-e9ea-4176-9dbc-a4cee4c4ff30"',
      'clusterId',
    );
  }
  return sendRequest<OnlineMigration>(
    {
      method: 'PUT',
      path: '/v2/databases/{clusterId}/online-migration',
      body: () => ({ source: body.source, disable_ssl: body.disable_ssl, ignore_dbs: body.ignore_dbs }),
    },
    { clusterId },
    { client, signal: options.signal },
  );
}
