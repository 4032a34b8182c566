/**
 * Any operation of the platform by its operationId, through the core client, typed by the
 * platform's generated shapes (`@cloudcall/platform`): path and query parameters and the body are
 * checked against the operation before anything is sent, as the generic tool checks them.
 */
import { type ApiClient, InputError } from '@cloudcall/core';
import { fillPath, NO_CONTENT } from '@cloudcall/core/internal';
import type { operations } from '@cloudcall/platform';
import { operationById } from './model.js';
import type { OperationData } from './model-data.js';
import { requestIssues } from './validate.js';

/** An operationId of the platform's API description: `droplets_create`, `kubernetes_list_clusters`... */
export type OperationId = keyof operations & string;

type Parameters<Id extends OperationId> = operations[Id]['parameters'];
type PathOf<Id extends OperationId> = Parameters<Id> extends { path: infer P } ? P : never;
type QueryOf<Id extends OperationId> = Parameters<Id> extends { query?: infer Q } ? Q : never;

/**
 * The JSON body the operation takes, or never. An operation without one declares
 * `requestBody?: never`, which matched `{ requestBody?: { content: ... } }` (never fits anything)
 * and let any body through: the body's type is read from the property, not matched against it.
 */
type BodyOf<Id extends OperationId> = operations[Id] extends { requestBody?: infer Request }
  ? [Exclude<Request, undefined>] extends [never]
    ? never
    : Exclude<Request, undefined> extends { content: { 'application/json': infer Body } }
      ? Body
      : never
  : never;

/** What a call of the operation takes: `path` (when it has parameters), `query`, `body`. */
export type OperationInput<Id extends OperationId> = ([PathOf<Id>] extends [never | undefined]
  ? { path?: undefined }
  : { path: PathOf<Id> }) &
  ([QueryOf<Id>] extends [never | undefined] ? { query?: undefined } : { query?: QueryOf<Id> }) &
  ([BodyOf<Id>] extends [never]
    ? { body?: undefined }
    : operations[Id] extends { requestBody: unknown }
      ? { body: BodyOf<Id> }
      : { body?: BodyOf<Id> });

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206;

/** The operation's answer: the JSON of a success, or `{ ok: true }` for one with no body. */
export type OperationResult<Id extends OperationId> = {
  [Status in keyof operations[Id]['responses']]: Status extends SuccessStatus
    ? operations[Id]['responses'][Status] extends { content: { 'application/json': infer Body } }
      ? Body
      : typeof NO_CONTENT
    : never;
}[keyof operations[Id]['responses']];

/** An operation the API serves, or an InputError saying why not. */
export function callableOperation(id: string): OperationData {
  const operation = operationById(id);
  if (!operation)
    throw new InputError(`is no operation of the platform's API (api-search finds them)`, 'Operation');
  if (operation.host)
    throw new InputError(
      `is served at ${operation.host}, with a model access key, not at the API with a token: cloudcall does not call it`,
      'Operation',
    );
  return operation;
}

/**
 * Path parameters whose value may hold `/`, sent as `%2F`: the API description says so of a
 * registry repository's name (`team/api`). Each part between the slashes is checked as a segment.
 */
export const SLASHED_PARAMETERS: readonly string[] = ['repository_name'];

/**
 * Calls an operation by its operationId:
 * `callOperation(client, 'droplets_get', { path: { droplet_id: 7 } })`. Throws an InputError
 * naming each problem (`Body.size`, `Query.page`, `Path`) before anything is sent, and the
 * client's errors (an ApiError with the platform's message, id and request id) after.
 */
export async function callOperation<Id extends OperationId>(
  client: ApiClient,
  id: Id,
  input: OperationInput<Id>,
  options: { signal?: AbortSignal } = {},
): Promise<OperationResult<Id>> {
  const operation = callableOperation(id);
  const {
    path: params,
    query,
    body,
  } = input as { path?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown };
  const issues = requestIssues(operation, { params, query, body });
  if (issues.length) throw new InputError(issues);
  const answer = await client.request({
    method: operation.method,
    path: fillPath(operation.path, params ?? {}, SLASHED_PARAMETERS),
    ...(query ? { query: query as Record<string, never> } : {}),
    ...(body !== undefined ? { body } : {}),
    signal: options.signal,
  });
  return (answer === undefined ? NO_CONTENT : answer) as OperationResult<Id>;
}
