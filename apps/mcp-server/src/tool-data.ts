/**
 * What the server knows of its tools before it loads them: the listing an agent sees, and what
 * selection and toolset-list read. Generated at build time from the tool definitions
 * (scripts/listing.mjs writes listing.generated.ts), so that answering tools/list needs neither
 * zod nor the families; they load on the first call.
 */
import type { FamilyName, ToolAnnotations } from '@cloudcall/core';
import type { Tool } from '@modelcontextprotocol/server';

export interface ToolData {
  name: string;
  family: FamilyName;
  /** A one-line summary, for toolset-list. */
  title: string;
  annotations: ToolAnnotations;
  /** The tools/list entry (core's toolListing). */
  listing: Tool;
  /** The tool as --read-only offers it in its place (same name, only reads), when it has one. */
  readOnlyForm?: ToolData;
}

export interface FamilyData {
  name: FamilyName;
  title: string;
  description: string;
  /** Listed from the start in dynamic mode, beside the toolset tools. */
  alwaysListed?: true;
  onRequest?: true;
}

/** The default listing (no --families, --tools or --read-only): the first `count` tools. */
export interface ListingDefaults {
  count: number;
  /** Where their entries end in the JSON text of every entry (before its closing bracket). */
  textEnd: number;
}

export interface ListingData {
  families: FamilyData[];
  defaults: ListingDefaults;
  tools: ToolData[];
}

/**
 * The listing without the tools/list entries, which come as one JSON text beside it (a read-only
 * form, the entry of no tool listed by default, holds its own).
 */
export interface ListingIndex {
  families: FamilyData[];
  defaults: ListingDefaults;
  tools: Omit<ToolData, 'listing'>[];
}

/**
 * The listing: the index's own objects, each tool's `listing` read from `entries` (the JSON text
 * of the array of every tool's tools/list entry, in the index's order), parsed once the first one
 * is read. The tools are not copied, and one getter serves them all: copies each with a getter of
 * its own were 160 KB of V8's young generation at every start, before the tools/list answer.
 */
export function listingData(index: ListingIndex, entries: () => string): ListingData {
  let parsed: Tool[] | undefined;
  let positions: Map<object, number> | undefined;
  const listing: PropertyDescriptor = {
    enumerable: true,
    get(this: object): Tool {
      parsed ??= JSON.parse(entries()) as Tool[];
      positions ??= new Map(index.tools.map((tool, at) => [tool, at]));
      return parsed[positions.get(this) as number] as Tool;
    },
  };
  for (const tool of index.tools) Object.defineProperty(tool, 'listing', listing);
  return index as ListingData;
}

/** The tools/list entries of a set of tools, collected once per set (over HTTP, one per session). */
const listings = new WeakMap<readonly ToolData[], Tool[]>();
export function listingOf(tools: readonly ToolData[]): Tool[] {
  let listed = listings.get(tools);
  if (!listed) {
    listed = tools.map((tool) => tool.listing);
    listings.set(tools, listed);
  }
  return listed;
}

/**
 * What --families means when it is not given: every family in dynamic mode (a toolset costs the
 * listing nothing until enabled) and when --tools names the tools (`all`); else the default ones
 * (undefined), which leave out the families offered on request.
 */
export function familiesByDefault(dynamic: boolean, tools: string | undefined): string | undefined {
  return dynamic || tools !== undefined ? 'all' : undefined;
}
