/**
 * @cloudcall/catalog: every cloudcall family, composed once. The MCP server and the CLI take their
 * tools from here, so a family package added to this list reaches both apps untouched.
 */
import { accountFamily } from '@cloudcall/account';
import { apiFamily } from '@cloudcall/api';
import { appsFamily } from '@cloudcall/apps';
import type { AnyTool, FamilyName, ToolFamily } from '@cloudcall/core';
import { databasesFamily } from '@cloudcall/databases';
import { imagesFamily } from '@cloudcall/images';
import { kubernetesFamily } from '@cloudcall/kubernetes';
import { monitoringFamily } from '@cloudcall/monitoring';
import { networkingFamily } from '@cloudcall/networking';
import { registryFamily } from '@cloudcall/registry';
import { spacesFamily } from '@cloudcall/spaces';
import { vmsFamily } from '@cloudcall/vms';
import { chooseFamilies } from './select.js';

/**
 * All families: the spec's, in the order it lists them, then the five offered on request
 * (`onRequest`), then the whole API's.
 */
export const families: readonly ToolFamily[] = [
  accountFamily,
  databasesFamily,
  networkingFamily,
  vmsFamily,
  imagesFamily,
  kubernetesFamily,
  registryFamily,
  appsFamily,
  monitoringFamily,
  spacesFamily,
  apiFamily,
];

/**
 * The families named in a comma-separated list such as `account,vms`, or `all`; the default
 * ones (all but those offered on request) when the list is empty or absent. Throws an Error
 * naming unknown families and the valid ones.
 */
export function selectFamilies(list?: string): ToolFamily[] {
  return chooseFamilies(list, families);
}

/** The tools of the given families, checked for unique names. */
export function toolsOf(selected: readonly ToolFamily[]): AnyTool[] {
  const tools = selected.flatMap((family) => family.tools);
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) throw new Error(`two tools are named ${tool.name}`);
    seen.add(tool.name);
  }
  return tools;
}

export { hintFor, reportError, scopesFor } from './hints.js';
export {
  DOCUMENTED_SETUP,
  HOSTS_END,
  HOSTS_START,
  type HostSetup,
  type HostSnippet,
  hostSnippets,
  hostsMarkdown,
  hostsText,
  SMALL_PROFILE,
  VSCODE_TOOL_LIMIT,
  withHostsSection,
} from './hosts.js';
export { TOOLS_END, TOOLS_START, toolsMarkdown, withToolsTable } from './markdown.js';
export {
  chooseFamilies,
  closest,
  globPattern,
  parseToolList,
  SELECTION_ENV,
  type SelectableTool,
  type SelectedTools,
  selectTools,
  type ToolSelection,
} from './select.js';
export type { FamilyName, ToolFamily };
