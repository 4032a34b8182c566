/**
 * Calling the sandbox as real clients do: an operation of the API description by its
 * operationId, with the method and path the description gives it, and the answer checked against
 * the schema it declares for the status. Test support only (not built into dist).
 */
import { randomUUID } from 'node:crypto';
import { assertValidResponse, operation } from '@cloudcall/openapi-subset';

export interface Reply {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field.
  body: any;
}

export interface CallOptions {
  /** Values of the path's `{parameters}`, percent-encoded into it. */
  params?: Record<string, string | number>;
  /** A query string, `?` included. */
  query?: string;
  json?: unknown;
  /** `false` sends no Authorization header. */
  auth?: boolean;
}

export async function callOperation(
  baseUrl: string,
  operationId: string,
  options: CallOptions = {},
): Promise<Reply> {
  const { method, path } = operation(operationId);
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = options.params?.[name];
    if (value === undefined) throw new Error(`${operationId} needs path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
  const headers: Record<string, string> = {};
  if (options.auth !== false) headers.authorization = `Bearer ${randomUUID()}`;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${filled}${options.query ?? ''}`, {
    method,
    headers,
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
  });
  const text = await response.text();
  const body = text === '' ? undefined : JSON.parse(text);
  assertValidResponse(operationId, response.status, body);
  return { status: response.status, text, body };
}
