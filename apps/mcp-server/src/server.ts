/**
 * The one adapter from cloudcall tool definitions to MCP: tools/list from the definitions, and
 * tools/call running them, with every failure answered as an `isError` tool result.
 */
import { closest, globPattern } from '@cloudcall/catalog/select';
import type { AnyTool, ApiClient, ToolClock, ToolProgress } from '@cloudcall/core';
import type { ErrorReport } from '@cloudcall/core/internal';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestParamsSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type RequestInfo,
  type ServerNotification,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { z } from 'zod';
import { boundedWait, CallerCounts, ShareRefusal, waitShareRefusal } from './fair-share.js';
import { guardReport, runGuarded, type ServerGuard } from './guard.js';
import { capabilitiesFor, instructionsFor, serverInfo } from './handshake.js';
import { type FamilyData, listingOf, type ToolData } from './tool-data.js';

export type ToolMode = 'static' | 'dynamic';

export interface McpServerOptions {
  /**
   * The API client, made when first needed: the first tools/call waits for it, tools/list never
   * does. The same promise serves every call (and, over HTTP, every session); with
   * `--auth token-passthrough` the request's own token (`auth`) makes a client for that call only.
   */
  client: (auth?: AuthInfo) => Promise<ApiClient>;
  /**
   * The time waits (the `wait` tool) count in: the sandbox's clock with `--sandbox`, so that moving
   * the sandbox clock forward ends a wait; real time when absent.
   */
  clock?: ToolClock;
  /** The tools offered, as listed at build time: after --families, --tools, --exclude-tools and --read-only. */
  tools: readonly ToolData[];
  /** Tools left out by a flag -> the reason naming it; a call to one is answered with it. */
  hidden?: ReadonlyMap<string, string>;
  /** The families the offered tools come from (for dynamic mode's toolset-list). */
  families?: readonly FamilyData[];
  /** `dynamic`: list only the toolset tools until the client enables families or tools. */
  toolMode?: ToolMode;
  version: string;
  /** True when the client talks to the built-in sandbox: said in the server instructions. */
  sandbox: boolean;
  /** Show secrets (database passwords) in results instead of hiding them. */
  showSecrets?: boolean;
  /** Confirmation, protection rules and the audit log (`--confirm`, `--protect`, `--policy`, `--audit-log`). */
  guard?: ServerGuard;
  log: (line: string) => void;
  /**
   * A successful call's line (the HTTP server logs it at debug: its request line says as much);
   * `log` when absent. `extra` tells which request it belongs to (HTTP: its request id).
   */
  logCall?: (line: string, extra: CallExtra) => void;
  /** A failed call's line (the HTTP server logs it at warn); `log` when absent. */
  warn?: (line: string, extra: CallExtra) => void;
  /** Told of every call to an offered tool when it ends (the HTTP server's metrics and request line). */
  onCall?: (tool: string, outcome: 'ok' | 'error', ms: number, extra: CallExtra) => void;
  /**
   * True when each request brings its caller's own API token (`--auth token-passthrough`): a
   * refused token is then the caller's to replace, not the server's environment.
   */
  tokenFromRequest?: boolean;
  /**
   * Which audit lines `audit-list` shows a caller: `all`, or `own` (a team service: only the
   * lines with the caller's own id). Default `all`.
   */
  auditScope?: 'all' | 'own';
  /**
   * Checks the request's own token with the platform (--auth token-passthrough), before a tool
   * that answers from this server's records alone (audit-list) and so would never show the
   * token to the API. Throws the platform's error for a token it refuses.
   */
  checkToken?: (auth?: AuthInfo) => Promise<void>;
  /**
   * No sessions (HTTP --stateless): no client can be asked to confirm a destructive call, so
   * `--confirm auto` refuses them (guard.ts).
   */
  stateless?: boolean | undefined;
  /**
   * `wait` for each caller of a team service (--auth static, token-passthrough): calls in flight
   * at once (--max-waits-per-caller) and seconds each (--max-wait-seconds). None: unbounded.
   */
  waits?: { perCaller: number; maxSeconds: number } | undefined;
}

/** A 401's hint when the token came with the request: the caller fixes it, not the server. */
const REQUEST_TOKEN_HINT =
  "The API token this request carried (Authorization: Bearer) is expired, revoked or not a token: create one in the control panel (API > Tokens) and send it in your MCP client's Authorization header.";

/**
 * tools/call as the SDK's CallToolRequestSchema describes it, except that params of the wrong
 * shape are refused with -32602 Invalid params and a sentence naming the field. The SDK's
 * Protocol parses a request with the handler's schema before anything else runs (the Server's
 * own tools/call check included) and answers any parse failure with -32603 and the validator's
 * raw issues; an McpError thrown while parsing is answered with its own code and message instead,
 * so the check lives here, in the schema.
 */
const CallToolRequest = z.object({
  method: z.literal('tools/call'),
  params: z.unknown().transform((params) => {
    const parsed = CallToolRequestParamsSchema.safeParse(params);
    if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, paramsProblem(params));
    return parsed.data;
  }),
});

function paramsProblem(params: unknown): string {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    return "Invalid params: params must be an object with the tool's name and arguments";
  }
  const { name, arguments: args } = params as Record<string, unknown>;
  if (typeof name !== 'string') return 'Invalid params: name must be the name of a tool, from tools/list';
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    return `Invalid params: arguments must be an object of the tool's arguments by name, not ${kindOf(args)}`;
  }
  return 'Invalid params: _meta or task does not have the shape MCP gives it';
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * What running a tool needs beyond the build-time listing: the definitions (zod schemas and
 * requests), core's runner and the catalog's error reports. Loaded once, on the first call, so
 * that the server answers initialize and tools/list without loading any of it.
 */
interface CallKit {
  tools: Map<string, AnyTool>;
  core: typeof import('@cloudcall/core');
  reportError: typeof import('@cloudcall/catalog').reportError;
  guard: typeof import('@cloudcall/guard');
  pendingWaits: typeof import('@cloudcall/wait').pendingWaits;
  /** The `wait` tool's name and its TimeoutSeconds when a call gives none. */
  wait: { name: string; defaultSeconds: number };
}

let callKit: Promise<CallKit> | undefined;
export function loadCallKit(): Promise<CallKit> {
  callKit ??= Promise.all([
    import('@cloudcall/core'),
    import('@cloudcall/catalog'),
    import('@cloudcall/guard'),
    import('@cloudcall/wait'),
  ]).then(([core, catalog, guard, waiting]) => ({
    tools: new Map(
      [...catalog.toolsOf(catalog.families), ...guard.guardTools].map((tool) => [tool.name, tool]),
    ),
    core,
    reportError: catalog.reportError,
    guard,
    pendingWaits: waiting.pendingWaits,
    wait: { name: waiting.waitTool.name, defaultSeconds: waiting.DEFAULT_WAIT_SECONDS },
  }));
  return callKit;
}

/**
 * The definition a listed tool runs: its read-only form when that is what was listed (selection
 * offers it with --read-only), so a call is held to what the listing said.
 */
function definitionOf(all: ReadonlyMap<string, AnyTool>, listed: ToolData): AnyTool | undefined {
  const definition = all.get(listed.name);
  return listed.annotations.readOnlyHint && !definition?.annotations.readOnlyHint
    ? definition?.readOnlyForm
    : definition;
}

/** Loads what calls need (the definitions, the API client) ahead of the first call. */
export function warmUp(options: Pick<McpServerOptions, 'client' | 'log'>): void {
  loadCallKit().catch((error: unknown) => options.log(`could not load the tools: ${String(error)}`));
  options.client().catch(() => undefined);
}

/**
 * Passes a tool's progress reports on as `notifications/progress`, when the call asked for them
 * with a progress token; a report that cannot be sent (the caller has gone) is dropped. `sent`
 * settles once every report so far is written: the call's answer waits for it, since a client
 * drops a report that comes after the answer (the last one, which fills a wait's bar).
 */
function progressSender(
  token: string | number | undefined,
  extra: { sendNotification: (notification: ServerNotification) => Promise<void> },
): { report: ((update: ToolProgress) => void) | undefined; sent: () => Promise<void> } {
  if (token === undefined) return { report: undefined, sent: () => Promise.resolve() };
  let last: Promise<void> = Promise.resolve();
  return {
    report: ({ progress, total, message }) => {
      const sending = extra
        .sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress, total, message },
        })
        .catch(() => undefined);
      last = Promise.all([last, sending]).then(() => undefined);
    },
    sent: () => last,
  };
}

let validator: AjvJsonSchemaValidator | undefined;
function sharedValidator(): AjvJsonSchemaValidator {
  validator ??= new AjvJsonSchemaValidator();
  return validator;
}

/** What a tools/call needs of the request it answers, from the SDK server or the HTTP fast path. */
export interface CallExtra {
  signal: AbortSignal;
  authInfo?: AuthInfo | undefined;
  requestId: string | number;
  sendNotification: (notification: ServerNotification) => Promise<void>;
  /** The session's SDK server, for confirmation through elicitation; none without a session. */
  server?: Server | undefined;
  /** Over HTTP, the request's headers (the SDK's requestInfo): how its log lines find it. */
  requestInfo?: RequestInfo | undefined;
}

export type ToolCall = (params: CallToolParams, extra: CallExtra) => Promise<CallToolResult>;
type CallToolParams = z.output<typeof CallToolRequest>['params'];

/**
 * tools/call for the offered tools (not dynamic mode's toolset tools, which are a session's).
 * Made once and shared: by every SDK server of the process, and by the stateless HTTP fast path.
 * Throws the -32602 McpError for a tool not offered.
 */
export function createToolCall(options: McpServerOptions): ToolCall {
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const hidden = options.hidden ?? new Map<string, string>();
  const dynamic = options.toolMode === 'dynamic';
  const logCall = options.logCall ?? options.log;
  /** The `wait` calls each caller has in flight, held to --max-waits-per-caller. */
  const waiting = new CallerCounts();
  // The definitions of the tools offered: what `plan` may plan.
  let offered: Map<string, AnyTool> | undefined;
  const offeredOf = (all: Map<string, AnyTool>) => {
    offered ??= new Map(
      options.tools.flatMap((tool) => {
        const definition = definitionOf(all, tool);
        return definition ? [[tool.name, definition] as const] : [];
      }),
    );
    return offered;
  };
  return async ({ name, arguments: args, _meta }, extra) => {
    if (!byName.has(name)) throw unknownTool(name, hidden.get(name), [...byName.keys()], dynamic);
    const started = Date.now();
    const [kit, client] = await Promise.all([loadCallKit(), options.client(extra.authInfo)]);
    const { maskSecrets, rateLimitNote } = kit.core;
    const definition = offeredOf(kit.tools).get(name);
    /** The caller whose wait this is, holding one of its --max-waits-per-caller. */
    let waiter: string | undefined;
    try {
      if (!definition) throw new Error(`tool ${name} is listed but has no definition; rebuild the server`);
      const { report: progress, sent: progressSent } = progressSender(_meta?.progressToken, extra);
      if (definition.name === kit.guard.auditListTool.name) await options.checkToken?.(extra.authInfo);
      let input = args ?? {};
      if (options.waits && definition.name === kit.wait.name) {
        // The key's name or the token's hash, as audit lines name the caller (http.ts).
        const caller = extra.authInfo?.clientId ?? '';
        if (!waiting.take(caller, options.waits.perCaller)) throw waitShareRefusal(options.waits.perCaller);
        waiter = caller;
        input = boundedWait(input, options.waits.maxSeconds, kit.wait.defaultSeconds);
      }
      const result = await runGuarded(
        kit.guard,
        definition,
        input,
        { client, signal: extra.signal, progress, clock: options.clock },
        {
          server: extra.server,
          guard: options.guard ?? { confirm: 'auto', rules: [] },
          offered: offeredOf(kit.tools),
          requestId: extra.requestId,
          // The key's name or the token's hash (http.ts); none on stdio: the guard's local user.
          caller: extra.authInfo?.clientId,
          auditScope: options.auditScope ?? 'all',
          sessionless: options.stateless,
        },
      );
      // The last progress report (a wait's full bar) goes out before the answer, which ends it.
      await progressSent();
      logCall(`tool ${name}: ok in ${Date.now() - started} ms`, extra);
      options.onCall?.(name, 'ok', Date.now() - started, extra);
      const budget = rateLimitNote(client.rateLimit);
      const waits = definition.wait ? kit.pendingWaits(definition.wait, args ?? {}, result) : [];
      return success(options.showSecrets ? result : maskSecrets(result), [
        ...(waits.length ? [waitNote(waits)] : []),
        ...(budget ? [`Note: ${budget}. Make fewer calls until then.`] : []),
      ]);
    } catch (error) {
      let report =
        error instanceof ShareRefusal
          ? error.report
          : (guardReport(kit.guard, error) ?? kit.reportError(error));
      if (options.tokenFromRequest && report.status === 401) report = { ...report, hint: REQUEST_TOKEN_HINT };
      (options.warn ?? options.log)(`tool ${name}: ${report.message}`, extra);
      options.onCall?.(name, 'error', Date.now() - started, extra);
      // A wait's last observed state is the platform's JSON too: its secrets are hidden alike.
      return failure(options.showSecrets ? report : (maskSecrets(report) as ErrorReport));
    } finally {
      if (waiter !== undefined) waiting.release(waiter);
    }
  };
}

/** An MCP server for one session (over HTTP with --stateless, one request); `call` may be shared. */
export function createMcpServer(options: McpServerOptions, call: ToolCall = createToolCall(options)): Server {
  const dynamic = options.toolMode === 'dynamic';
  const instructions = instructionsFor({
    version: options.version,
    sandbox: options.sandbox,
    showSecrets: Boolean(options.showSecrets),
    dynamic,
  });
  const server = new Server(serverInfo(options.version), {
    capabilities: capabilitiesFor({ dynamic }),
    instructions,
    // One validator for every instance: the SDK would build a new Ajv for each server, which is
    // for every request with --stateless (cloudcall asks clients for no input to validate).
    jsonSchemaValidator: sharedValidator(),
  });

  // Dynamic mode: the tools this session has enabled, in the order offered.
  const enabled = new Set<string>();
  const toolsets = dynamic ? createToolsets(options, enabled, () => server.sendToolListChanged()) : undefined;

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    // A client that lists tools is about to call one: load what calls need once this answer is out.
    setImmediate(() => warmUp(options));
    if (!toolsets) return { tools: listingOf(options.tools) };
    const listed = listingOf(options.tools);
    return { tools: [...toolsets.listing, ...listed.filter((tool) => enabled.has(tool.name))] };
  });

  server.setRequestHandler(CallToolRequest, async (request, extra): Promise<CallToolResult> => {
    const meta = toolsets?.byName.get(request.params.name);
    if (meta) return meta.call(request.params.arguments ?? {});
    return call(request.params, { ...extra, server });
  });

  return server;
}

/**
 * A call to a tool this server does not offer: the JSON-RPC error -32602 the specification lists
 * for an unknown tool (a protocol error, not a tool result), whether the name is no tool at all or
 * one a flag hides. The message says which, and `data` carries the same facts an error result's
 * structuredContent would (error_id, hint).
 */
function unknownTool(
  name: string,
  reason: string | undefined,
  offered: readonly string[],
  dynamic: boolean,
): McpError {
  if (reason) {
    return new McpError(ErrorCode.InvalidParams, `Tool ${name} is not available: ${reason}.`, {
      error_id: 'tool_hidden',
      hint: 'The person running this server chose the tools it offers; use another tool or ask them to change the flag.',
    });
  }
  const near = closest(name, offered);
  return new McpError(
    ErrorCode.InvalidParams,
    `Unknown tool ${name}.${near.length ? ` Did you mean ${near.join(', ')}?` : ''}`,
    {
      error_id: 'unknown_tool',
      hint: dynamic
        ? 'toolset-list shows the tools this server offers.'
        : 'tools/list shows the tools this server offers.',
    },
  );
}

/**
 * A result: compact JSON text, and the same object as structuredContent when it is an object.
 * A note (the API's rate limit running low) follows as a second text block, outside the data.
 */
function success(result: unknown, notes: readonly string[] = []): CallToolResult {
  const text = JSON.stringify(result) ?? 'null';
  const structured =
    typeof result === 'object' && result !== null && !Array.isArray(result)
      ? { structuredContent: result as Record<string, unknown> }
      : {};
  const content: CallToolResult['content'] = [
    { type: 'text', text },
    ...notes.map((note) => ({ type: 'text' as const, text: note })),
  ];
  return { content, ...structured };
}

/**
 * What a create or an action started, when its answer does not show it ready yet: the exact
 * `wait` calls that block until it is (from the tool's `wait` field, as the CLI's --wait uses).
 */
function waitNote(waits: readonly object[]): string {
  const calls = waits.map((wait) => JSON.stringify(wait)).join(', ');
  return `Next: this is not ready yet. To block until it is, call wait with ${calls}${waits.length > 1 ? ' (one call each)' : ''}.`;
}

/** A failure: the message as text (with the hint), and every fact as structuredContent. */
function failure(report: ErrorReport): CallToolResult {
  const text = report.hint ? `${report.message}\nHint: ${report.hint}` : report.message;
  // In the order of the SDK's result schema, whose parse (on the SDK's path) puts keys so: both
  // paths then write the same bytes.
  return {
    content: [{ type: 'text', text }],
    structuredContent: report as unknown as Record<string, unknown>,
    isError: true,
  };
}

interface MetaTool {
  listing: Tool;
  call: (args: Record<string, unknown>) => Promise<CallToolResult>;
}

/**
 * Dynamic mode's two tools, modelled on github-mcp-server's dynamic toolsets: one lists the
 * families and their tools with one-line summaries, the other adds families or tools to this
 * session's tool list and tells the client the list changed. Tools hidden by a flag stay hidden;
 * those of a family marked `alwaysListed` are enabled from the start.
 */
function createToolsets(
  options: McpServerOptions,
  enabled: Set<string>,
  listChanged: () => Promise<void>,
): { listing: Tool[]; byName: Map<string, MetaTool> } {
  const offered = options.tools;
  const hidden = options.hidden ?? new Map<string, string>();
  const familyNames = [...new Set(offered.map((tool) => tool.family))];
  const families = (options.families ?? []).filter((family) => familyNames.includes(family.name));
  // Families listed from the start (the api family: three tools that reach every operation).
  for (const tool of offered) {
    if (families.some((family) => family.alwaysListed && family.name === tool.family)) enabled.add(tool.name);
  }

  const ListArgs = z.strictObject({ Family: z.enum(familyNames as [string, ...string[]]).optional() });
  const EnableArgs = z.strictObject({
    Families: z.array(z.enum(familyNames as [string, ...string[]])).optional(),
    Tools: z.array(z.string().min(1).max(100)).max(200).optional(),
  });

  const list: MetaTool = {
    listing: {
      name: 'toolset-list',
      description: 'Families and their tools, with one-line summaries; enabled ones marked.',
      inputSchema: {
        type: 'object',
        properties: { Family: { type: 'string', enum: familyNames, description: 'Only this family' } },
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async call(raw) {
      const parsed = ListArgs.safeParse(raw);
      if (!parsed.success) return failure(metaInputError(parsed.error));
      const shown = families.filter((family) => !parsed.data.Family || family.name === parsed.data.Family);
      return success({
        families: shown.map((family) => ({
          name: family.name,
          description: family.description,
          tools: offered
            .filter((tool) => tool.family === family.name)
            .map((tool) => ({
              name: tool.name,
              summary: tool.title,
              ...(tool.annotations.readOnlyHint ? { read_only: true } : {}),
              ...(tool.annotations.destructiveHint ? { destructive: true } : {}),
              enabled: enabled.has(tool.name),
            })),
        })),
      });
    },
  };

  const enable: MetaTool = {
    listing: {
      name: 'toolset-enable',
      description: 'Add families or tools (names, globs like vm-*) to the tool list.',
      inputSchema: {
        type: 'object',
        properties: {
          Families: {
            type: 'array',
            items: { type: 'string', enum: familyNames },
            description: 'Whole families',
          },
          Tools: { type: 'array', items: { type: 'string' }, description: 'Tool names or globs' },
        },
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async call(raw) {
      const parsed = EnableArgs.safeParse(raw);
      if (!parsed.success) return failure(metaInputError(parsed.error));
      const { Families = [], Tools = [] } = parsed.data;
      if (!Families.length && !Tools.length) {
        return failure({
          message: 'Invalid arguments: give Families, Tools or both.',
          error_id: 'invalid_arguments',
          retryable: false,
          hint: 'toolset-list shows the families and tools.',
        });
      }
      const chosen = new Set(
        offered.filter((tool) => Families.includes(tool.family)).map((tool) => tool.name),
      );
      const problems: string[] = [];
      for (const pattern of Tools) {
        const regexp = globPattern(pattern);
        const matched = offered.filter((tool) => regexp.test(tool.name));
        for (const tool of matched) chosen.add(tool.name);
        if (matched.length) continue;
        const reason = hidden.get(pattern);
        problems.push(reason ? `${pattern} is not available: ${reason}` : `${pattern} matches no tool`);
      }
      if (problems.length) {
        return failure({
          message: `Nothing enabled: ${problems.join('; ')}.`,
          error_id: 'invalid_arguments',
          retryable: false,
          hint: 'toolset-list shows the tools this server offers.',
        });
      }
      const added = [...chosen].filter((name) => !enabled.has(name));
      for (const name of added) enabled.add(name);
      if (added.length) await listChanged();
      return success({
        enabled: added,
        already_enabled: [...chosen].filter((name) => !added.includes(name)),
      });
    },
  };

  return {
    listing: [list.listing, enable.listing],
    byName: new Map([
      ['toolset-list', list],
      ['toolset-enable', enable],
    ]),
  };
}

function metaInputError(error: z.ZodError): ErrorReport {
  const issues = error.issues.map((issue) => ({
    argument:
      issue.path.map(String).join('.') || (issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : ''),
    message: issue.message,
  }));
  return {
    message: `Invalid arguments: ${issues.map((issue) => `argument ${issue.argument}: ${issue.message}`).join('; ')}`,
    error_id: 'invalid_arguments',
    retryable: false,
    issues,
  };
}
