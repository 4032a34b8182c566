/**
 * The tool contract. A tool is defined once, as data: its spec name, title, description, zod input
 * schema, annotations, and either a declarative request mapping or a handler. The MCP server, the
 * CLI and the typed library API are all derived from that one definition; nothing here knows MCP.
 */
import { z } from 'zod';
import type { ApiClient, HttpMethod, QueryValue, RequestOptions } from './client.js';
import { depthOf } from './depth.js';
import { InputError, type InputIssue } from './errors.js';
import type { ToolClock } from './retry.js';

export type { ToolClock } from './retry.js';

// biome-ignore format: one family a line, so that a family is added by a line of its own.
export type FamilyName =
  | 'account'
  | 'databases'
  | 'networking'
  | 'vms'
  | 'images'
  | 'kubernetes'
  | 'registry'
  | 'apps'
  | 'monitoring'
  | 'spaces'
  | 'api';

/** MCP's tool hints, all four required so that no tool leaves one to a client's guess. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Annotation presets by kind of operation; every tool picks one. */
export const annotations = {
  /** Reads: change nothing. */
  read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  /** Creates something new each call. */
  create: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  /** Changes something in place; doing it twice is the same as once. */
  update: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  /** Starts an action (each call starts another) that loses nothing. */
  action: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  /** Deletes, replaces a whole set, powers off, rebuilds, restores or resizes: may lose data. */
  destructive: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  /** Destructive, and repeating it changes nothing more (deletes). */
  destroy: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
} as const satisfies Record<string, ToolAnnotations>;

/** A progress report of a long call, such as a wait's poll. */
export interface ToolProgress {
  /** Grows with every report of a call (MCP requires it to increase). */
  progress: number;
  /** The value `progress` reaches at the end, when known. */
  total?: number;
  /** What is happening, in a line a person reads. */
  message: string;
  /** What is watched, such as `vm 123`, and its status now: apps show a line per change. */
  subject?: string;
  status?: string;
}

/** What can be waited for until ready: the kinds of the `wait` tool. */
export type WaitKind =
  | 'action'
  | 'vm'
  | 'database'
  | 'load-balancer'
  | 'certificate'
  | 'image'
  | 'vpc-peering'
  | 'database-replica'
  | 'byoip-prefix'
  | 'app-deployment'
  | 'kubernetes-cluster'
  | 'registry-garbage-collection';

/**
 * What a tool that starts an action, or creates a resource that becomes ready later, yields to
 * wait for. Apps read it to offer waiting (the CLI's `--wait`); the `wait` tool's logic does it.
 * The id comes from the answer (`action.id`, `droplet.id`...; each of `actions` for a tool that
 * starts several), or from the argument `idArgument` when the answer holds none (a 204).
 */
export interface ToolWait {
  kind: WaitKind;
  idArgument?: string;
  /** The argument naming what the id is of (a replica's name with its cluster's id, a collection's registry). */
  nameArgument?: string;
  /** The answer's own field holding the id, for an answer not wrapped in the resource's key (`{ uuid, status }`). */
  idField?: string;
  /**
   * Dotted paths into the answer to the id (the first present), for a kind addressed by a parent's
   * id the answer holds elsewhere (an app's, `app.id`, for its deployment).
   */
  idPaths?: readonly string[];
  /**
   * Dotted paths into the answer to the Name (the first present), for a kind addressed by its
   * parent's id and an id of its own the answer holds (an app's deployment: `deployment.id`).
   */
  namePaths?: readonly string[];
}

export interface ToolContext {
  client: ApiClient;
  signal?: AbortSignal | undefined;
  /** Receives progress reports of tools that take a while (`wait`); apps pass them on. */
  progress?: ((update: ToolProgress) => void) | undefined;
  /** Real time when absent. */
  clock?: ToolClock | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: a tool's own input schema fixes its argument types.
export type InputSchema = z.ZodObject<any>;

type Args<S extends InputSchema> = z.output<S>;
type ArgName<A> = Extract<keyof A, string>;

/** Wire field name -> argument name. Unset arguments are left out of the request. */
export type FieldMap<A> = Record<string, ArgName<A>>;

/**
 * How a tool's arguments become one HTTP request. `{Arg}` in the path is replaced by that
 * argument's value; `query` and `body` map wire names to argument names; `fixed` adds constant
 * body fields (such as an action's `type`). A function builds bodies a table cannot express.
 */
export interface RequestMapping<A> {
  method: HttpMethod;
  path: string;
  query?: FieldMap<A>;
  body?: FieldMap<A> | ((args: A) => Record<string, unknown>);
  fixed?: Record<string, unknown>;
  /**
   * The operation answers a success with no body (as the API description declares it, such as a
   * 202 to a resize): an empty answer is then "no content". Otherwise only a 204 may be empty.
   */
  noResponseBody?: true;
  /**
   * Path arguments whose value may hold `/`, as the platform names them (a registry repository
   * `team/api`): sent as one segment, each `/` as `%2F`, as the API description asks. Each part
   * between the slashes is checked as a segment is (not empty, no dot segment, no control
   * character), so the value still names one resource.
   */
  slashed?: readonly (keyof A & string)[];
}

export interface ToolDefinition<S extends InputSchema = InputSchema, R = unknown, N extends string = string> {
  /** Exactly as the spec names it. */
  name: N;
  family: FamilyName;
  title: string;
  /**
   * What the tool does, in a sentence or two: what MCP hosts list (every byte of it is in an
   * agent's context on every turn) and the CLI's help shows first. Shared conventions (pages, ids,
   * actions) are in the MCP server's instructions, not here.
   */
  description: string;
  /** Longer notes for people, shown by the CLI's help after the description; not listed over MCP. */
  details?: string;
  /**
   * A tool the service specification does not name, added because real work needs it (`wait`,
   * `region-list`...). Marked so in the tools table (docs/tools.md); the spec test holds every other tool to
   * the spec.
   */
  beyondSpec?: true;
  /**
   * The caller gives the request (`api-call`): its annotations say what it may do at most, and
   * the guard decides from each request's operation whether it reads, changes or destroys.
   */
  generic?: true;
  /**
   * The tool as a read-only server (`--read-only`) offers it: same name, only reads (`api-call`
   * taking GET and HEAD). Selection offers it in the tool's place; a tool that changes resources
   * and has none is not offered there.
   */
  readOnlyForm?: AnyTool;
  input: S;
  annotations: ToolAnnotations;
  /** Set on tools whose answer can be waited for (see ToolWait). */
  wait?: ToolWait;
  /**
   * Secret fields of the answer that are the point of the call and can never be read again (a
   * Spaces key's `secret_key`, answered once, by its creation): the apps show them in this tool's
   * answer without --show-secrets. Logs, audit lines and errors hide them still.
   */
  reveals?: readonly string[];
  request?: RequestMapping<Args<S>>;
  handler?: (args: Args<S>, context: ToolContext) => Promise<R>;
  /**
   * For a handler tool that pages as a request mapping would (its own `query` maps `page` and
   * `per_page`): those arguments, so that its pages can be followed (`runAllPages`, the CLI's
   * `--all`) as a request tool's are. A request tool's come from its `request.query`.
   */
  pages?: { page: string; per_page?: string };
  /** Type of the platform's answer, for the typed API; never read at run time. */
  readonly result?: R;
}

// biome-ignore lint/suspicious/noExplicitAny: heterogeneous tool lists.
export type AnyTool = ToolDefinition<InputSchema, any, string>;

export interface ToolFamily {
  name: FamilyName;
  title: string;
  description: string;
  tools: readonly AnyTool[];
  /**
   * Listed from the start in dynamic mode (`--tool-mode dynamic`), beside the toolset tools: a
   * few tools that reach what the other families do (the api family's three).
   */
  alwaysListed?: true;
  /**
   * Offered only when asked for (`--families kubernetes`, `--families all`, a `--tools` pattern,
   * or a toolset in dynamic mode), not in the default listing: a family beyond the spec's, whose
   * tools would take the default listing past what hosts can take (VS Code's 128 tools, the
   * listing's 50,000 bytes). The CLI has every family's commands either way.
   */
  onRequest?: true;
}

/** Declares a tool; checks the definition is complete. `R` types the platform's answer. */
export function defineTool<S extends InputSchema, R = unknown, const N extends string = string>(
  definition: ToolDefinition<S, R, N>,
): ToolDefinition<S, R, N> {
  if (!definition.request === !definition.handler) {
    throw new TypeError(`tool ${definition.name}: give exactly one of request and handler`);
  }
  for (const placeholder of definition.request?.path.match(/\{(\w+)\}/g) ?? []) {
    const arg = placeholder.slice(1, -1);
    if (!(arg in definition.input.shape)) {
      throw new TypeError(`tool ${definition.name}: path names ${arg}, which is not an argument`);
    }
  }
  const form = definition.readOnlyForm;
  if (form && (form.name !== definition.name || !form.annotations.readOnlyHint || form.readOnlyForm)) {
    throw new TypeError(`tool ${definition.name}: its read-only form must have its name and only read`);
  }
  return definition;
}

/** Marks the result type of a tool: `result: returns<{ ssh_key: SshKey }>()`. */
export function returns<R>(): R {
  return undefined as R;
}

/**
 * Validates raw arguments against a tool's schema; throws an InputError naming each bad argument.
 * A refusal quotes the value it got from `shown` when given: the arguments as the caller wrote
 * them, where `raw` holds stand-ins (the CLI validates names as ids of their kind before looking
 * them up, and quotes the names).
 */
export function parseArgs<S extends InputSchema>(
  tool: ToolDefinition<S, unknown, string>,
  raw: unknown,
  shown?: Record<string, unknown>,
): Args<S> {
  const input = raw === undefined || raw === null ? {} : raw;
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new InputError('must be an object of named arguments', 'arguments');
  }
  const tooDeep = Object.entries(input).filter(([, value]) => depthOf(value, MAX_DEPTH) > MAX_DEPTH);
  if (tooDeep.length) {
    throw new InputError(
      tooDeep.map(([argument]) => ({ argument, message: `is nested more than ${MAX_DEPTH} levels deep` })),
    );
  }
  const parsed = tool.input.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new InputError(parsed.error.issues.flatMap((issue) => describeIssue(issue, input, shown ?? input)));
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown, shown: unknown): InputIssue[] {
  const argument = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      // An empty name is shown quoted, so the refusal still names what was sent.
      argument: argument ? `${argument}.${key || '""'}` : key || '""',
      message: 'is not an argument of this tool (names are case-sensitive)',
    }));
  }
  const value = valueAt(input, issue.path);
  if (value === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_union')) {
    return [{ argument, message: 'is required' }];
  }
  const got = SECRET_ARGUMENT.test(argument) ? '' : `; got ${preview(valueAt(shown, issue.path))}`;
  if (issue.code === 'invalid_union') {
    const messages = issue.errors.flat().map((sub) => sub.message.replace(/^Invalid input: /, ''));
    return [{ argument, message: `${[...new Set(messages)].join(', or ')}${got}` }];
  }
  const message = issue.message.replace(/^Invalid input: /, '');
  return [{ argument, message: issue.code === 'invalid_type' ? message : `${message}${got}` }];
}

/** No argument of any tool nests deeper; deeper values are refused before validation walks them. */
export const MAX_DEPTH = 32;

/** Arguments whose values are never echoed back in an error. */
const SECRET_ARGUMENT = /password|private_?key|secret|token|signature/i;

function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = typeof value;
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/**
 * Why a value cannot fill a path segment, or undefined when it can. A segment that is empty, a dot
 * segment (`.` or `..`, also percent-encoded), or that holds a slash, backslash, control character
 * or lone surrogate would change which resource the request names once a URL parser or a server
 * normalises the path, so it never leaves: `user: ".."` must not turn
 * `DELETE /v2/databases/{id}/users/{user}` into a delete of the whole cluster.
 */
export function pathSegmentProblem(value: string): string | undefined {
  if (value === '') return 'is required';
  if (!value.isWellFormed()) return 'contains a lone surrogate (not valid Unicode text)';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (/[\u0000-\u001f\u007f-\u009f]/.test(value)) return 'contains a control character';
  let decoded = value;
  for (let round = 0; round < 3 && /%[0-9a-f]{2}/i.test(decoded); round++) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      break;
    }
  }
  for (const text of new Set([value, decoded])) {
    if (text === '.' || text === '..') return `cannot be "${value}": it would change the request path`;
    if (/[/\\]/.test(text)) return 'cannot contain "/" or "\\": it would change the request path';
  }
  return undefined;
}

/**
 * Fills a path template's `{Arg}` placeholders with the arguments' values, each percent-encoded
 * as one segment. Throws an InputError naming the argument whose value cannot be one segment.
 */
export function fillPath(
  template: string,
  args: Record<string, unknown>,
  /** Arguments that may hold `/` (RequestMapping's `slashed`), sent as `%2F`. */
  slashed: readonly string[] = [],
): string {
  return template.replace(/\{(\w+)\}/g, (_, arg: string) => {
    const value = args[arg];
    const text = value === undefined || value === null ? '' : String(value);
    const problem = slashed.includes(arg) ? slashedSegmentProblem(text) : pathSegmentProblem(text);
    if (problem) throw new InputError(problem, arg);
    return encodeSegment(text);
  });
}

/** Why a value whose `/` are sent as `%2F` cannot fill a segment: a part of it that could not. */
export function slashedSegmentProblem(value: string): string | undefined {
  if (value === '') return 'is required';
  for (const part of value.split('/')) {
    const problem = pathSegmentProblem(part);
    if (problem) return part === '' ? 'cannot hold an empty part ("//", or "/" first or last)' : problem;
  }
  return undefined;
}

/**
 * Percent-encodes one path segment. `:` and `@` are legal in a segment (RFC 3986 pchar) and stay
 * as they are, so an IPv6 address is sent as the platform's clients send it; our paths are
 * absolute, so a colon in a segment cannot be read as a scheme. The other sub-delimiters stay
 * encoded: some servers give `;`, `=`, `+` or `&` in a path a meaning of their own.
 */
export function encodeSegment(text: string): string {
  return encodeURIComponent(text).replace(/%3A/g, ':').replace(/%40/g, '@');
}

/** Turns validated arguments into the request the tool's mapping describes. */
export function buildRequest<A extends Record<string, unknown>>(
  mapping: RequestMapping<A>,
  args: A,
): RequestOptions {
  const path = fillPath(mapping.path, args, mapping.slashed);
  const query: Record<string, QueryValue> = {};
  for (const [wire, arg] of Object.entries(mapping.query ?? {})) {
    const value = args[arg];
    if (value !== undefined) query[wire] = value as QueryValue;
  }
  let body: Record<string, unknown> | undefined;
  if (typeof mapping.body === 'function') {
    body = omitUndefined(mapping.body(args));
  } else if (mapping.body) {
    body = {};
    for (const [wire, arg] of Object.entries(mapping.body)) {
      if (args[arg] !== undefined) body[wire] = args[arg];
    }
  }
  if (mapping.fixed) body = { ...body, ...mapping.fixed };
  const request: RequestOptions = { method: mapping.method, path, query, body };
  if (mapping.noResponseBody) request.noResponseBody = true;
  return request;
}

/** Copies an object without its undefined members (unset arguments never reach the wire as null). */
export function omitUndefined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The answer a tool gives when the platform answers with no body (204 No Content). */
export const NO_CONTENT = { ok: true } as const;

/**
 * Sends the request a mapping makes of validated arguments: what a request tool does, and what a
 * handler calls for each request it makes, so every path is filled by `fillPath`.
 */
export async function sendRequest<R, A extends Record<string, unknown> = Record<string, unknown>>(
  mapping: RequestMapping<A>,
  args: A,
  context: ToolContext,
  options: Pick<RequestOptions, 'deadline' | 'responseText'> = {},
): Promise<R> {
  const data = await context.client.request<R>({
    ...buildRequest(mapping, args),
    signal: context.signal,
    ...options,
  });
  return (data === undefined ? NO_CONTENT : data) as R;
}

/** Validates the arguments, then runs the tool's request or handler. */
export async function runTool<S extends InputSchema, R>(
  tool: ToolDefinition<S, R, string>,
  raw: unknown,
  context: ToolContext,
): Promise<R> {
  const args = parseArgs(tool, raw);
  // What the annotations promise, the client holds the tool to: a read-only tool sends only reads.
  if (tool.annotations.readOnlyHint) {
    context = { ...context, client: context.client.forCall({ readOnly: tool.name }) };
  }
  // `return await`: settles this call's promise a turn sooner than returning the inner one.
  if (tool.handler) return await tool.handler(args, context);
  return await sendRequest<R, Args<S>>(tool.request as RequestMapping<Args<S>>, args, context);
}

/** The JSON Schema of a tool's input, as MCP's tools/list and the CLI's flags see it. */
export function inputJsonSchema(tool: AnyTool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  return schema;
}

type Camel<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<Camel<Tail>>}`
  : S;

/** The typed library API of a tool list: `api.keyCreate({ Name, PublicKey })` for `key-create`. */
export type BoundTools<T extends readonly AnyTool[]> = {
  [Tool in T[number] as Camel<Tool['name']>]: Tool extends ToolDefinition<infer S, infer R, string>
    ? (args: z.input<S>, options?: { signal?: AbortSignal }) => Promise<R>
    : never;
};

export function camelName(name: string): string {
  return name.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());
}

/** Binds tools to a client as camel-cased async functions: the family packages' library API. */
export function bindTools<const T extends readonly AnyTool[]>(client: ApiClient, tools: T): BoundTools<T> {
  const api: Record<string, unknown> = {};
  for (const tool of tools) {
    api[camelName(tool.name)] = (args: unknown, options?: { signal?: AbortSignal }) =>
      runTool(tool, args, { client, signal: options?.signal });
  }
  return api as BoundTools<T>;
}
