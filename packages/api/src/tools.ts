/**
 * The whole platform API as three tools: find an operation (`api-search`), read its parameters
 * and body (`api-describe`), and call it (`api-call`) with a concrete path. A call is checked
 * against its operation before anything is sent, and it runs under the same guard rails as every
 * named tool: the guard reads each request's operation from the model, so what it names is
 * protected, a destroying request is confirmed, and a read-only server lets through GET and HEAD.
 */
import {
  annotations,
  defineTool,
  InputError,
  type InputIssue,
  returns,
  type ToolContext,
  type ToolFamily,
} from '@cloudcall/core';
import { NO_CONTENT, pathSegmentProblem, slashedSegmentProblem } from '@cloudcall/core/internal';
import { z } from 'zod';
import { callableOperation, SLASHED_PARAMETERS } from './call.js';
import {
  describeOperation,
  type OperationDescription,
  type SearchHit,
  searchOperations,
} from './describe.js';
import { findOperation, methodsOf, namedOperation } from './model.js';
import { requestIssues } from './validate.js';

/** The largest answer `api-call` returns whole, in bytes of JSON; a larger one is cut. */
export const ANSWER_CAP = 32_768;

export const apiSearchTool = defineTool({
  name: 'api-search',
  family: 'api',
  title: 'Search API operations',
  description: 'Find platform API operations by words (vm snapshot, kubernetes node pool).',
  details:
    "Matches the words against each operation's id, tags, path and parameter names (vm, k8s and db read as droplet, kubernetes and database) and lists the best: operationId, method, path, tag, and whether it destroys. Every operation of the platform's API is there, beyond the named tools.",
  beyondSpec: true,
  input: z.strictObject({
    Text: z.string().min(1).max(200).describe('Words to find'),
    Limit: z.number().int().min(1).max(50).default(10).describe('Max results'),
  }),
  annotations: { ...annotations.read, openWorldHint: false },
  handler: async (args): Promise<{ operations: SearchHit[]; total: number }> => {
    const { hits, total } = searchOperations(args.Text, args.Limit);
    return { operations: hits, total };
  },
  result: returns<{ operations: SearchHit[]; total: number }>(),
});

export const apiDescribeTool = defineTool({
  name: 'api-describe',
  family: 'api',
  title: 'Describe an API operation',
  description: "An operation's parameters and body shape, by operationId or 'METHOD /v2/path'.",
  details:
    'Answers its method and path, token scopes, whether it destroys, path and query parameters with their types, the JSON body as a type (a ? marks what may be left out), and where a request names a resource (what protection rules look at).',
  beyondSpec: true,
  input: z.strictObject({
    Operation: z.string().min(1).max(300).describe('operationId, or METHOD /v2/path'),
  }),
  annotations: { ...annotations.read, openWorldHint: false },
  handler: async (args): Promise<OperationDescription> => {
    const operation = namedOperation(args.Operation);
    if (!operation) {
      // `METHOD /path` of a path with other methods: those are what it means.
      const [, method, path] = /^([A-Za-z]+)\s+(\/\S*)$/.exec(args.Operation.trim()) ?? [];
      const methods = path ? methodsOf(path) : [];
      if (methods.length)
        throw new InputError(
          `names no operation: ${path} takes ${methods.join(', ')}, not ${method?.toUpperCase()}`,
          'Operation',
        );
      const { hits } = searchOperations(path ?? args.Operation, 3);
      throw new InputError(
        `names no operation${hits.length ? `; did you mean ${hits.map((hit) => hit.operationId).join(', ')}?` : ' (api-search finds them)'}`,
        'Operation',
      );
    }
    return describeOperation(operation);
  },
  result: returns<OperationDescription>(),
});

const QueryValue = z.union([z.string().max(2_048), z.number(), z.boolean()]);
const Query = z
  .record(z.string().min(1).max(100), z.union([QueryValue, z.array(QueryValue).max(100)]))
  .describe('Query parameters');
const Body = z
  .union([z.record(z.string().max(1_024), z.unknown()), z.array(z.unknown()).max(10_000)])
  .describe('JSON body (api-describe shows its shape)');
const Path = z
  .string()
  .min(4)
  .max(2_048)
  .regex(/^\/v2\//, 'must start with /v2/')
  .describe('Concrete path, e.g. /v2/droplets/123');

/** What api-call answers when the platform's answer is larger than ANSWER_CAP. */
export interface Truncated {
  /** The list cut short, when the answer has one. */
  field?: string;
  shown?: number;
  total?: number;
  /** The size of the whole answer, in bytes of JSON. */
  bytes: number;
  cap: number;
  hint: string;
}

/**
 * The request an api-call makes, checked against its operation: the Path matched to an
 * operation (a literal segment before a parameter), each path value a single segment, the query
 * (the Path's own and Query's) and the body valid for it. Throws an InputError naming each
 * problem; nothing has been sent.
 */
export function checkedCall(args: {
  Method: string;
  Path: string;
  Query?: Record<string, unknown>;
  Body?: unknown;
}) {
  const [path = '', search] = args.Path.split('?', 2);
  const query: Record<string, unknown> = {};
  if (search !== undefined) {
    for (const [name, value] of new URLSearchParams(search)) {
      if (args.Query && Object.hasOwn(args.Query, name))
        throw new InputError(`names ${name} in both Path and Query`, 'Query');
      const held = query[name];
      query[name] = held === undefined ? value : [...(Array.isArray(held) ? held : [held]), value];
    }
  }
  Object.assign(query, args.Query ?? {});
  const match = findOperation(args.Method, path);
  if (!match) {
    const methods = methodsOf(path);
    throw new InputError(
      methods.length
        ? `${path} takes ${methods.join(', ')}, not ${args.Method}`
        : `${path} is no path of the platform's API; api-search finds operations, api-describe their paths`,
      methods.length ? 'Method' : 'Path',
    );
  }
  const operation = callableOperation(match.operation.id);
  const issues: InputIssue[] = [];
  for (const [name, value] of Object.entries(match.params)) {
    const problem = SLASHED_PARAMETERS.includes(name)
      ? slashedSegmentProblem(value)
      : pathSegmentProblem(value);
    if (problem) issues.push({ argument: 'Path', message: `{${name}} ${problem}` });
  }
  if (!issues.length)
    issues.push(...requestIssues(operation, { params: match.params, query, body: args.Body }));
  if (issues.length) throw new InputError(issues);
  return { operation, params: match.params, path, query };
}

async function call(
  args: { Method: string; Path: string; Query?: Record<string, unknown>; Body?: unknown },
  context: ToolContext,
  cap = ANSWER_CAP,
): Promise<unknown> {
  const { path, query } = checkedCall(args);
  const answer = await context.client.request<unknown>({
    method: args.Method as 'GET',
    path,
    ...(Object.keys(query).length ? { query: query as Record<string, never> } : {}),
    ...(args.Body !== undefined ? { body: args.Body } : {}),
    signal: context.signal,
  });
  const result = answer === undefined ? NO_CONTENT : answer;
  return cap === Number.POSITIVE_INFINITY ? result : capped(result, cap);
}

/**
 * The answer, or when its JSON is larger than ANSWER_CAP, as much of it as fits: the longest
 * list cut to the items that fit, or else (no list, or the rest of the answer too large on its
 * own) its JSON text cut, with `truncated` saying what was left out. What it gives back is never
 * larger than the cap, in bytes of JSON, the note included.
 */
export function capped(answer: unknown, cap = ANSWER_CAP): unknown {
  const text = JSON.stringify(answer) ?? 'null';
  const bytes = Buffer.byteLength(text);
  if (bytes <= cap) return answer;
  const hint =
    'Ask for less: per_page (and page for the rest) in Query, or the CLI (cloudcall api PATH --paginate), which prints whole answers.';
  const fits = (value: unknown) => Buffer.byteLength(JSON.stringify(value)) <= cap;
  /** The largest count in [0, limit] for which `fits(make(count))`, given that 0 does. */
  const most = (limit: number, make: (count: number) => unknown) => {
    let low = 0;
    let high = limit;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (fits(make(mid))) low = mid;
      else high = mid - 1;
    }
    return low;
  };
  const list =
    answer !== null && typeof answer === 'object' && !Array.isArray(answer)
      ? Object.entries(answer)
          .filter(([, value]) => Array.isArray(value))
          .sort(([, a], [, b]) => JSON.stringify(b).length - JSON.stringify(a).length)[0]
      : undefined;
  if (list) {
    const [field, items] = list as [string, unknown[]];
    const cut = (shown: number) => {
      const truncated: Truncated = { field, shown, total: items.length, bytes, cap, hint };
      return { ...(answer as Record<string, unknown>), [field]: items.slice(0, shown), truncated };
    };
    if (fits(cut(0))) return cut(most(items.length, cut));
  }
  const truncated: Truncated = { bytes, cap, hint };
  const cut = (length: number) => ({ text: text.slice(0, length), truncated });
  let length = most(text.length, cut);
  // Not between the halves of a surrogate pair (text counts UTF-16 units).
  if (length > 0 && /[\uD800-\uDBFF]/.test(text.charAt(length - 1))) length--;
  return cut(length);
}

/** What api-call's two forms share. */
const apiCall = {
  name: 'api-call',
  family: 'api',
  title: 'Call an API operation',
  beyondSpec: true,
  generic: true,
  result: returns<unknown>(),
} as const;

/** api-call on a read-only server: GET and HEAD only, the client refusing any other method. */
export const apiCallReadOnlyTool = defineTool({
  ...apiCall,
  description: 'Call any platform API read (GET, HEAD). Checked before sending.',
  details: `Path is concrete (/v2/droplets/123). The request is checked against its operation before anything is sent: an unknown path or a wrong parameter is refused. A read-only server sends only GET and HEAD. Answers over ${ANSWER_CAP} bytes of JSON are cut (truncated says how to get the rest).`,
  input: z.strictObject({
    Method: z.enum(['GET', 'HEAD']).describe('HTTP method'),
    Path,
    Query: Query.optional(),
  }),
  annotations: annotations.read,
  handler: (args, context) => call(args, context),
});

export const apiCallTool = defineTool({
  ...apiCall,
  description: 'Call any platform API operation. Checked before sending; guarded like every tool.',
  details: `Path is concrete (/v2/droplets/123). The request is checked against its operation before anything is sent: an unknown path, a wrong method or parameter, or a body that breaks the schema is refused. Protection rules see every resource it names, a destroying request asks as a destructive tool does, and answers over ${ANSWER_CAP} bytes of JSON are cut (truncated says how to get the rest).`,
  input: z.strictObject({
    Method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']).describe('HTTP method'),
    Path,
    Query: Query.optional(),
    Body: Body.optional(),
  }),
  annotations: annotations.destructive,
  // --read-only offers this form in its place.
  readOnlyForm: apiCallReadOnlyTool,
  handler: (args, context) => call(args, context),
});

/**
 * api-call answering whole, however large the answer: for the CLI (`cloudcall api`), which
 * prints to a terminal, a file or a pipe rather than into an agent's context. The same tool
 * otherwise (name, input, annotations, guard), so its calls are guarded and audited as api-call's.
 */
export const apiCallWholeTool = defineTool({
  ...apiCallTool,
  details: apiCallTool.details?.replace(/, and answers over .*$/, '.'),
  handler: (args, context) => call(args, context, Number.POSITIVE_INFINITY),
});

export const apiTools = [apiSearchTool, apiDescribeTool, apiCallTool] as const;

export const apiFamily: ToolFamily = {
  name: 'api',
  title: 'The whole API',
  description: "Every operation of the platform's API: search, describe and call any of them, guarded.",
  tools: apiTools,
  alwaysListed: true,
};
