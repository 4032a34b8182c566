/**
 * Calling the sandbox as real clients do: an operation of the API description by its
 * operationId, with the method and path the description gives it, and the answer checked against
 * the schema it declares for the status. Test support only (not built into dist).
 */
import { randomUUID } from 'node:crypto';
import { assertValidResponse, operation, subset } from '@cloudcall/openapi-subset';

/**
 * A clock for `startSandbox({ now })` that starts at the real time and moves 1 ms each time it is
 * read, never by itself: the sandbox's time then moves with `advanceClock`, so a state that lasts
 * seconds of sandbox time (a cluster being created, an action in progress) is still there however
 * slowly a loaded machine runs the test; and two things that happen one after the other never
 * share a millisecond (the sandbox tells an address reserved again from its earlier reservation,
 * or a resource made again from the one deleted, by their times).
 */
export function steppingClock(): () => number {
  let at = Date.now();
  return () => at++;
}

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

interface Template {
  operationId: string;
  method: string;
  pattern: RegExp;
  /** Segments that are not `{parameters}`: the more, the more specific the template. */
  literals: number;
}

let templates: Template[] | undefined;

/**
 * The operation of the API description a request is for, by its method and path (a query string is
 * ignored), or undefined when the subset has none. Where two templates match (`/v2/droplets/actions`
 * and `/v2/droplets/{droplet_id}`), the one with more literal segments wins, as routers do.
 */
export function operationFor(method: string, target: string): string | undefined {
  templates ??= Object.entries(subset.operations).map(([operationId, op]) => {
    const segments = op.path.split('/');
    const source = segments.map((s) => (/^\{\w+\}$/.test(s) ? '[^/]+' : s.replace(/[.]/g, '\\.'))).join('/');
    return {
      operationId,
      method: op.method,
      pattern: new RegExp(`^${source}/?$`),
      literals: segments.filter((s) => !s.startsWith('{')).length,
    };
  });
  const path = target.split('?')[0] ?? '';
  const found = templates
    .filter((t) => t.method === method.toUpperCase() && t.pattern.test(path))
    .sort((a, b) => b.literals - a.literals);
  return found[0]?.operationId;
}
