/**
 * The build-time listing (src/listing.generated.json and tools-list.generated.json, which
 * listing.generated.ts reads; the build copies them as committed) is what the tool definitions
 * give now: a stale copy would list tools that no longer match what a call validates. Nothing
 * regenerates it but `pnpm generate`, so a changed definition fails here until the refreshed copy
 * is committed.
 */
import { readFileSync } from 'node:fs';
import { families, toolsOf } from '@cloudcall/catalog';
import { toolListing } from '@cloudcall/core';
import { guardTools } from '@cloudcall/guard';
import { describe, expect, it } from 'vitest';
import { LISTING } from './listing.generated.js';

describe('the build-time listing', () => {
  it('is what scripts/listing.mjs makes now (refresh with pnpm generate)', async () => {
    // The script's own source text, made in this process (which has the tool definitions loaded
    // already) rather than by the script's --check in a Node of its own: the same comparison.
    const script = new URL('../scripts/listing.mjs', import.meta.url).href;
    const made = (await import(script)) as Record<
      'listingJson' | 'toolsListJson' | 'listingSource' | 'protocolSource',
      () => string
    >;
    for (const [file, text] of [
      ['listing.generated.json', made.listingJson()],
      ['tools-list.generated.json', made.toolsListJson()],
      ['listing.generated.ts', made.listingSource()],
      ['protocol.generated.ts', made.protocolSource()],
    ] as const) {
      const committed = readFileSync(new URL(`./${file}`, import.meta.url), 'utf8');
      expect(committed === text, `src/${file} is stale: run pnpm generate`).toBe(true);
    }
  });

  it('is the tool definitions, tool for tool', () => {
    // The default listing first (its families, then the guard's tools), the families on request after.
    const byDefault = families.filter((family) => !family.onRequest);
    const tools = [...toolsOf(byDefault), ...guardTools, ...toolsOf(families.filter((f) => f.onRequest))];
    expect(LISTING.tools.map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name));
    for (const [index, tool] of tools.entries()) {
      const data = (form: typeof tool) => ({
        name: form.name,
        family: form.family,
        title: form.title,
        annotations: form.annotations,
        listing: toolListing(form),
      });
      expect(LISTING.tools[index], tool.name).toStrictEqual({
        ...data(tool),
        ...(tool.readOnlyForm ? { readOnlyForm: data(tool.readOnlyForm) } : {}),
      });
    }
    expect(LISTING.tools.find((tool) => tool.name === 'api-call')?.readOnlyForm?.listing).toMatchObject({
      inputSchema: { properties: { Method: { enum: ['GET', 'HEAD'] } } },
      annotations: { readOnlyHint: true },
    });
    expect(LISTING.families).toStrictEqual(
      families.map(({ name, title, description, alwaysListed, onRequest }) => ({
        name,
        title,
        description,
        ...(alwaysListed ? { alwaysListed } : {}),
        ...(onRequest ? { onRequest } : {}),
      })),
    );
    expect(LISTING.families.filter((family) => family.alwaysListed).map((family) => family.name)).toEqual([
      'api',
    ]);
  });
});
