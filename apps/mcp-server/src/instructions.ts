/**
 * What the HTTP server prints at start: its URL and how to connect the usual MCP hosts to it.
 */
import { fileURLToPath } from 'node:url';

export function connectHelp(
  url: string,
  mode: { sandbox: boolean; sandboxState?: string | undefined },
): string {
  const main = fileURLToPath(new URL('./main.js', import.meta.url));
  const stdioArgs = mode.sandbox
    ? [main, '--sandbox', ...(mode.sandboxState ? ['--sandbox-state', mode.sandboxState] : [])]
    : [main];
  const desktop = JSON.stringify({ mcpServers: { cloudcall: { command: 'node', args: stdioArgs } } }, null, 2)
    .split('\n')
    .join('\n    ');
  const cursor = JSON.stringify({ mcpServers: { cloudcall: { url } } });
  return `
cloudcall MCP server listening on ${url}${mode.sandbox ? '  (SANDBOX: offline emulation, nothing is real)' : ''}

Connect it:
  Claude Code      claude mcp add --transport http cloudcall ${url}
  Cursor           add to ~/.cursor/mcp.json (or .cursor/mcp.json in a project):
                   ${cursor}
  MCP Inspector    npx @modelcontextprotocol/inspector
                   then choose "Streamable HTTP" and enter ${url}
  Claude Desktop   add to claude_desktop_config.json (Desktop starts its own copy over stdio):
    ${desktop}

Press Ctrl+C to stop.
`;
}
