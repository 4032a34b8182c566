/**
 * The committed generated files are what scripts/generate.mjs makes from the committed subset now:
 * nothing regenerates them but `pnpm generate`, so a changed subset fails here until the refreshed
 * copies are committed.
 */
import { readFileSync } from 'node:fs';
import { staleness } from '@cloudcall/testing';
import { describe, expect, it } from 'vitest';
import { enumLists, openapiDocument, scopeList, scopesSource } from '../scripts/generate.mjs';
import { DROPLET_STATUS, PLATFORM_SCOPES, REGION_SLUG } from './index.js';

const subset = JSON.parse(
  readFileSync(new URL(import.meta.resolve('@cloudcall/openapi-subset/subset.json')), 'utf8'),
);

describe('the generated platform shapes', () => {
  it('are what scripts/generate.mjs makes now (refresh with pnpm generate)', () => {
    expect(staleness(new URL('../scripts/generate.mjs', import.meta.url))).toBe('');
    // openapi-typescript reads the whole subset: seconds alone, longer on a busy machine.
  }, 120_000);

  it('hold no prose of the OpenAPI description', () => {
    for (const file of ['schemas.generated.ts', 'enums.generated.ts', 'scopes.generated.ts']) {
      const text = readFileSync(new URL(file, import.meta.url), 'utf8');
      // openapi-typescript writes a description as a JSDoc line; only its own tags may appear.
      const prose = text
        .split('\n')
        .filter((line) => /^\s*\*\s+\S/.test(line) && !/^\s*\*\s+(@|Format:)/.test(line));
      expect(prose, file).toEqual([]);
    }
  });

  it('give every string value list of the subset a constant, values in the subset order', () => {
    const lists = enumLists(subset);
    expect(lists.get('DROPLET_STATUS')).toEqual(subset.components.schemas.droplet.properties.status.enum);
    expect(DROPLET_STATUS).toEqual(subset.components.schemas.droplet.properties.status.enum);
    expect(REGION_SLUG).toEqual(subset.components.schemas.region_slug.enum);
    const count = JSON.stringify(subset.components).match(/"enum":/g)?.length ?? 0;
    // Lists reached through the same $ref are named once; every other one has its constant.
    expect(lists.size).toBeGreaterThan(0);
    expect(lists.size).toBeLessThanOrEqual(count);
  });

  it("list every operation's scopes once, sorted", () => {
    const named = Object.values(subset.operations as Record<string, { scopes?: string[] }>).flatMap(
      (operation) => operation.scopes ?? [],
    );
    expect(PLATFORM_SCOPES).toEqual([...new Set(named)].sort());
    expect(PLATFORM_SCOPES).toContain('droplet:create');
    expect(PLATFORM_SCOPES).toContain('account:read');
    expect(PLATFORM_SCOPES.every((scope) => /^[a-z_]+:[a-z_]+$/.test(scope))).toBe(true);
    // The committed file holds them as the generator writes them.
    expect(scopesSource(subset)).toBe(readFileSync(new URL('scopes.generated.ts', import.meta.url), 'utf8'));
    expect(
      scopeList({ operations: { a: { scopes: ['b:read', 'a:read'] }, b: { scopes: ['a:read'] }, c: {} } }),
    ).toEqual(['a:read', 'b:read']);
  });

  it('names a clash by number rather than dropping a list', () => {
    const lists = enumLists({
      components: {
        schemas: {
          a_b: { properties: { c: { enum: ['x'] } } },
          a: { properties: { b_c: { enum: ['y'] } } },
        },
      },
    });
    expect([...lists]).toEqual([
      ['A_B_C', ['y']],
      ['A_B_C_2', ['x']],
    ]);
  });

  it('puts every operation of the subset under its method and path', () => {
    const document = openapiDocument(subset);
    for (const [id, operation] of Object.entries(subset.operations) as [
      string,
      { method: string; path: string },
    ][])
      expect(document.paths[operation.path]?.[operation.method.toLowerCase()]?.operationId, id).toBe(id);
  });
});
