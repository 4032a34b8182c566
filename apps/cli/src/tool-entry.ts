/**
 * A tool as the command line knows it before its family is loaded: what help, completion and the
 * parsing of its flags read, from the build-time index (tool-index.generated.ts, made from the
 * definitions by scripts/tool-index.mjs). Running the tool loads its definition (the zod schema,
 * the request mapping or handler) with its family; nothing else needs them.
 */
import type { FamilyName, ToolAnnotations, ToolWait } from '@cloudcall/core';
import type { JsonSchema } from './flags.js';
import { FAMILY_INDEX } from './tool-index.generated.js';

export interface ToolEntry {
  name: string;
  title: string;
  description: string;
  details?: string;
  annotations: ToolAnnotations;
  /** The path of the one request it sends; absent for a tool with a handler. */
  request?: { path: string };
  wait?: ToolWait;
  /** The argument that takes a page number (core's pageArgument): `--all` follows the pages. */
  page?: string;
  /** Its arguments as JSON Schema (core's inputJsonSchema), cut to what flags.ts reads. */
  inputSchema: JsonSchema;
}

export interface FamilyEntry {
  name: FamilyName;
  title: string;
  description: string;
  tools: readonly ToolEntry[];
}

const TOOL_FAMILY = new Map(
  FAMILY_INDEX.flatMap((family) => family.tools.map((tool) => [tool.name, family.name] as const)),
);

/** The family that defines a tool, or undefined for a name that is no tool. */
export function familyOf(tool: string): FamilyName | undefined {
  return TOOL_FAMILY.get(tool);
}
