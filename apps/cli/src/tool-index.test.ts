/**
 * The build-time index (src/tool-index.generated.ts and src/tool-index/, bundled as committed) is what help,
 * completion and every command's flags are made of, and names every tool's family: a stale copy
 * would show other flags than the tool takes, or load the wrong family. Nothing regenerates it
 * but `pnpm generate`, so a changed tool table fails here until the refreshed copy is committed.
 */
import { families } from '@cloudcall/catalog';
import { inputJsonSchema } from '@cloudcall/core/internal';
import { staleness } from '@cloudcall/testing';
import { describe, expect, it } from 'vitest';
import { type FlagSpec, flagsOf, type JsonSchema } from './flags.js';
import { FAMILY_NAMES, familyOf, loadIndex } from './tool-entry.js';

const FAMILY_INDEX = await loadIndex();

/** A flag as it reads words: the function that reads a union's words, tried on a few words. */
const readable = (flags: FlagSpec[]) =>
  flags.map(({ union, ...flag }) => ({
    ...flag,
    union: union && ['123', 'abc', 'true', '6b0b3ae4-2e7c-4a3c-8b5e-2b5d3b1d9c1a'].map(union),
  }));

describe('the build-time tool index', () => {
  it('is what scripts/tool-index.mjs makes now (refresh with pnpm generate)', () => {
    expect(staleness(new URL('../scripts/tool-index.mjs', import.meta.url))).toBe('');
  });

  it("names every tool's family, in the catalog's order", () => {
    expect(FAMILY_NAMES).toEqual(families.map((family) => family.name));
    expect(FAMILY_INDEX.map((family) => family.name)).toEqual(families.map((family) => family.name));
    for (const family of families) {
      for (const tool of family.tools) expect(familyOf(tool.name), tool.name).toBe(family.name);
    }
    expect(familyOf('constructor')).toBeUndefined();
  });

  it("gives each tool the flags its definition's schema makes", () => {
    for (const family of families) {
      const entries = FAMILY_INDEX.find((entry) => entry.name === family.name)?.tools ?? [];
      expect(entries.map((entry) => entry.name)).toEqual(family.tools.map((tool) => tool.name));
      for (const tool of family.tools) {
        const entry = entries.find((candidate) => candidate.name === tool.name);
        expect(readable(flagsOf(entry?.inputSchema ?? {})), tool.name).toEqual(
          readable(flagsOf(inputJsonSchema(tool) as JsonSchema)),
        );
      }
    }
  });
});
