/**
 * The build-time index (src/tool-index.generated.ts, bundled as committed) names every tool's
 * family: a stale copy would load the wrong family for a command. Nothing regenerates it but
 * `pnpm generate`, so a changed tool table fails here until the refreshed copy is committed.
 */
import { families } from '@cloudcall/catalog';
import { staleness } from '@cloudcall/testing';
import { describe, expect, it } from 'vitest';
import { TOOL_FAMILY } from './tool-index.generated.js';

describe('the build-time tool index', () => {
  it('is what scripts/tool-index.mjs makes now (refresh with pnpm generate)', () => {
    expect(staleness(new URL('../scripts/tool-index.mjs', import.meta.url))).toBe('');
  });

  it("names every tool's family", () => {
    const expected = Object.fromEntries(
      families.flatMap((family) => family.tools.map((tool) => [tool.name, family.name])),
    );
    expect(TOOL_FAMILY).toEqual(expected);
  });
});
