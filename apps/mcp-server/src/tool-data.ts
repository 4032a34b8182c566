/**
 * What the server knows of its tools before it loads them: the listing an agent sees, and what
 * selection and toolset-list read. Generated at build time from the tool definitions
 * (scripts/listing.mjs writes listing.generated.ts), so that answering tools/list needs neither
 * zod nor the families; they load on the first call.
 */
import type { FamilyName, ToolAnnotations } from '@cloudcall/core';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

export interface ToolData {
  name: string;
  family: FamilyName;
  /** A one-line summary, for toolset-list. */
  title: string;
  annotations: ToolAnnotations;
  /** The tools/list entry (core's toolListing). */
  listing: Tool;
}

export interface FamilyData {
  name: FamilyName;
  title: string;
  description: string;
}

export interface ListingData {
  families: FamilyData[];
  tools: ToolData[];
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
