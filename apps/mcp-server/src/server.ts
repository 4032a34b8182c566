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
  inputJsonSchema,
  maskSecrets,
  runTool,
} from '@cloudcall/core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';

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

/** The MCP listing of one tool, built from its definition. */
export function toMcpTool(tool: AnyTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputJsonSchema(tool) as Tool['inputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
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
  const listed = options.tools.map(toMcpTool);
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

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const tool = byName.get(name);
    if (!tool) {
      return failure(`Unknown tool ${name}. Call tools/list for the tools this server offers.`);
    }
    const started = Date.now();
    try {
      const result = await runTool(tool, args ?? {}, { client: options.client, signal: extra.signal });
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
