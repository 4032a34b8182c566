/**
 * The one adapter from cloudcall tool definitions to MCP: tools/list from the definitions, and
 * tools/call running them, with every failure answered as an `isError` tool result.
 */
import {
  type AnyTool,
  type ApiClient,
  ApiError,
  CloudcallError,
  describeError,
  InputError,
  maskSecrets,
  runTool,
  type ToolProgress,
  toolListing,
} from '@cloudcall/core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestParamsSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export interface McpServerOptions {
  client: ApiClient;
  tools: readonly AnyTool[];
  version: string;
  /** True when the client talks to the built-in sandbox: said in the server instructions. */
  sandbox: boolean;
  /** Show secrets (database passwords) in results instead of hiding them. */
  showSecrets?: boolean;
  log: (line: string) => void;
}

const INSTRUCTIONS = `cloudcall manages DigitalOcean-compatible cloud infrastructure: account, managed databases, networking, VMs (droplets), images and sizes. Tool results are the platform's JSON. List tools take Page/PerPage (or page/per_page) and return links.pages.next while more pages exist. Actions (power, resize, snapshot...) return an action object: poll action-get or vm-action until its status is completed.`;

const SECRETS_NOTE =
  ' Secrets in results (database passwords, also inside connection URIs) are hidden; the person running this server can start it with --show-secrets to include them.';

const SANDBOX_NOTE =
  ' This server is connected to the cloudcall SANDBOX, an offline emulation of the platform: nothing created here is real or billed, and state lives only on this machine.';

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

/** The MCP listing of one tool, built from its definition (see @cloudcall/core's listing). */
export function toMcpTool(tool: AnyTool): Tool {
  return toolListing(tool) as Tool;
}

/**
 * The listings of a set of tools, built once: over HTTP every session has its own server, and
 * building 140 JSON schemas for each one cost about 20 ms and 0.25 MB of heap per session.
 */
const listings = new WeakMap<readonly AnyTool[], Tool[]>();
function listingOf(tools: readonly AnyTool[]): Tool[] {
  let listed = listings.get(tools);
  if (!listed) {
    listed = tools.map(toMcpTool);
    listings.set(tools, listed);
  }
  return listed;
}

/**
 * Passes a tool's progress reports on as `notifications/progress`, when the call asked for them
 * with a progress token; a report that cannot be sent (the caller has gone) is dropped.
 */
function progressSender(
  token: string | number | undefined,
  extra: { sendNotification: (notification: ServerNotification) => Promise<void> },
): ((update: ToolProgress) => void) | undefined {
  if (token === undefined) return undefined;
  return (update) => {
    extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...update } })
      .catch(() => undefined);
  };
}

/** The text of a failed call: what went wrong, in the platform's words where there are some. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.summary;
  if (error instanceof InputError) return `Invalid arguments: ${error.message}`;
  if (error instanceof CloudcallError && error.kind === 'network') return `Network error: ${error.message}`;
  if (error instanceof CloudcallError) return error.message;
  return `Internal error: ${describeError(error)}`;
}

export function createMcpServer(options: McpServerOptions): Server {
  const listed = listingOf(options.tools);
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const server = new Server(
    { name: 'cloudcall', title: 'cloudcall', version: options.version },
    {
      capabilities: { tools: {} },
      instructions:
        INSTRUCTIONS + (options.showSecrets ? '' : SECRETS_NOTE) + (options.sandbox ? SANDBOX_NOTE : ''),
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));

  server.setRequestHandler(CallToolRequest, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const tool = byName.get(name);
    if (!tool) {
      return failure(`Unknown tool ${name}. Call tools/list for the tools this server offers.`);
    }
    const started = Date.now();
    try {
      const progress = progressSender(request.params._meta?.progressToken, extra);
      const result = await runTool(tool, args ?? {}, {
        client: options.client,
        signal: extra.signal,
        progress,
      });
      options.log(`tool ${name}: ok in ${Date.now() - started} ms`);
      const shown = options.showSecrets ? result : maskSecrets(result);
      return { content: [{ type: 'text', text: JSON.stringify(shown, null, 2) }] };
    } catch (error) {
      const text = errorText(error);
      options.log(`tool ${name}: ${text}`);
      return failure(text);
    }
  });

  return server;
}

function failure(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}
