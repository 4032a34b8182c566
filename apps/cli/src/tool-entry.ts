/**
 * A tool as the command line knows it before its family is loaded: what help, completion and the
 * parsing of its flags read, from the build-time index (tool-index.generated.ts and
 * tool-index/<family>.generated.ts, made from the definitions by scripts/tool-index.mjs). Every
 * start reads the tools' names; a family's entries are loaded when a command needs them (one
 * family for a tool's command). Running the tool loads its definition (the zod schema, the request
 * mapping or handler) with its family; nothing else needs them.
 */
import type { FamilyName, ToolAnnotations, ToolWait } from '@cloudcall/core';
import type { JsonSchema } from './flags.js';
import { INDEX_LOADERS, TOOL_NAMES } from './tool-index.generated.js';

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

/** The families, in the catalog's order. */
export const FAMILY_NAMES = Object.keys(TOOL_NAMES) as FamilyName[];

let toolFamily: Map<string, FamilyName> | undefined;

/** The family that defines a tool, or undefined for a name that is no tool. */
export function familyOf(tool: string): FamilyName | undefined {
  toolFamily ??= new Map(
    FAMILY_NAMES.flatMap((family) => TOOL_NAMES[family].split(' ').map((name) => [name, family] as const)),
  );
  return toolFamily.get(tool);
}

const loaded = new Map<FamilyName, Promise<FamilyEntry>>();

/** The index entries of the families named (all by default), in the catalog's order. */
export function loadIndex(names: readonly FamilyName[] = FAMILY_NAMES): Promise<FamilyEntry[]> {
  return Promise.all(
    FAMILY_NAMES.filter((name) => names.includes(name)).map((name) => {
      let family = loaded.get(name);
      if (!family) {
        family = INDEX_LOADERS[name]();
        loaded.set(name, family);
      }
      return family;
    }),
  );
}
