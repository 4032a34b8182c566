/**
 * What the HTTP server prints at start: its URL and how to connect the usual MCP hosts to it.
 * The snippets come from `@cloudcall/catalog/hosts`, as the README's do.
 */
import { fileURLToPath } from 'node:url';
import { hostSnippets, hostsText } from '@cloudcall/catalog/hosts';

export interface ConnectMode {
  sandbox: boolean;
  sandboxState?: string | undefined;
  /** The URL of the server's entry (`dist/main.js`), which a host starts for its own stdio copy. */
  entry: string;
  /** How many tools this server lists (unknown in dynamic mode, where the client adds them). */
  tools?: number | undefined;
}

export function connectHelp(url: string, mode: ConnectMode): string {
  const entry = fileURLToPath(mode.entry);
  const args = mode.sandbox
    ? [entry, '--sandbox', ...(mode.sandboxState ? ['--sandbox-state', mode.sandboxState] : [])]
    : [entry];
  // The absolute path of this node: a desktop host does not read the shell's PATH (nvm, asdf).
  const snippets = hostSnippets({ url, command: process.execPath, args, tools: mode.tools });
  return `
cloudcall MCP server listening on ${url}${mode.sandbox ? '  (SANDBOX: offline emulation, nothing is real)' : ''}

Connect it:
${hostsText(snippets)}

Press Ctrl+C to stop.
`;
}
