/**
 * The build-time index (src/tool-index.generated.ts, written by scripts/tool-index.mjs before
 * each build) names every tool's family: a stale copy would load the wrong family for a command.
 */
import { families } from '@cloudcall/catalog';
import { describe, expect, it } from 'vitest';
import { TOOL_FAMILY } from './tool-index.generated.js';

describe('the build-time tool index', () => {
  it("names every tool's family (regenerate with node scripts/tool-index.mjs)", () => {
    const expected = Object.fromEntries(
      families.flatMap((family) => family.tools.map((tool) => [tool.name, family.name])),
    );
    expect(TOOL_FAMILY).toEqual(expected);
  });
});
