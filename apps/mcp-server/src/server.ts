/**
 * The one adapter from cloudcall tool definitions to MCP: tools/list from the definitions, and
 * tools/call running them, with every failure answered as an `isError` tool result.
 */
import { globPattern } from '@cloudcall/catalog/select';
import type { ApiClient, ToolClock } from '@cloudcall/core';
import type { ErrorReport } from '@cloudcall/core/internal';
import {
  type AuthInfo,
  type CallToolResult,
  isSpecType,
  type JSONRPCRequest,
  ProtocolError,
  ProtocolErrorCode,
  type Result,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ServerGuard } from './guard.js';
import { capabilitiesFor, instructionsFor, serverInfo } from './handshake.js';
import type { SpentNonces, StateSeal } from './request-state.js';
import { type CallExtra, createToolCall, failure, success, type ToolCall, warmUp } from './tool-call.js';
import { type FamilyData, listingOf, type ToolData } from './tool-data.js';

// The tool runner lives in tool-call.ts, which loads no SDK; these names stay importable here.
export { type CallExtra, createToolCall, loadCallKit, type ToolCall, warmUp } from './tool-call.js';

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
  /**
   * How a confirmation question's state is sealed and its answer spent once, for requests at
   * protocol revision 2026-07-28 (multi round trip); without it, such requests are not asked.
   */
  requestState?: { seal: StateSeal; spent: SpentNonces } | undefined;
}

/**
 * The v2 server, whose own tools/call check answers params of the wrong shape with -32602 and
 * the validator's issues ("Invalid tools/call request: ..."): here a sentence naming the field
 * instead (paramsProblem), checked before the SDK's own.
 */
class LegacyServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>,
  ): (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result> {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== 'tools/call') return wrapped;
    return (request, ctx) => {
      if (!isSpecType.CallToolRequestParams(request.params)) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, paramsProblem(request.params));
      }
      return wrapped(request, ctx);
    };
  }
}

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

/** The 2025 path's answers to tools/list and tools/call, with dynamic mode's toolsets. */
interface SessionTools {
  list(): { tools: Tool[] };
  call(params: Parameters<ToolCall>[0], extra: CallExtra): Promise<CallToolResult>;
}

function sessionTools(
  options: McpServerOptions,
  call: ToolCall,
  listChanged: () => Promise<void>,
): SessionTools {
  // Dynamic mode: the tools this session has enabled, in the order offered.
  const enabled = new Set<string>();
  const toolsets = options.toolMode === 'dynamic' ? createToolsets(options, enabled, listChanged) : undefined;
  return {
    list() {
      // A client that lists tools is about to call one: load what calls need once this answer is out.
      setImmediate(() => warmUp(options));
      if (!toolsets) return { tools: listingOf(options.tools) };
      const listed = listingOf(options.tools);
      return { tools: [...toolsets.listing, ...listed.filter((tool) => enabled.has(tool.name))] };
    },
    call(params, extra) {
      const meta = toolsets?.byName.get(params.name);
      if (meta) return meta.call(params.arguments ?? {});
      return call(params, extra);
    },
  };
}

function serverOptions(options: McpServerOptions) {
  const dynamic = options.toolMode === 'dynamic';
  return {
    capabilities: capabilitiesFor({ dynamic }),
    instructions: instructionsFor({
      version: options.version,
      sandbox: options.sandbox,
      showSecrets: Boolean(options.showSecrets),
      dynamic,
    }),
  };
}

/**
 * An MCP server for one session at a 2025 revision, on the SDK's v2 line: it serves the
 * initialize handshake and its session when connected to a transport directly (stdio, a
 * Streamable HTTP session), or one request with --stateless.
 */
export function createLegacyServer(
  options: McpServerOptions,
  call: ToolCall = createToolCall(options),
): Server {
  const server = new LegacyServer(serverInfo(options.version), serverOptions(options));
  const tools = sessionTools(options, call, () => server.sendToolListChanged());
  server.setRequestHandler('tools/list', async () => tools.list() as never);
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const extra: CallExtra = {
      signal: ctx.mcpReq.signal,
      authInfo: ctx.http?.authInfo,
      requestId: ctx.mcpReq.id,
      sendNotification: (notification) => ctx.mcpReq.notify(notification as never),
      server,
      ...(ctx.http?.req ? { requestInfo: { headers: Object.fromEntries(ctx.http.req.headers) } } : {}),
    };
    return (await tools.call(request.params as never, extra)) as never;
  });
  return server;
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
