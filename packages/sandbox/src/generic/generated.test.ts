/**
 * The committed answers are what scripts/generate.mjs makes from the committed subset now (nothing
 * regenerates them but `pnpm generate`), cover every operation served at the API's own host, stay
 * small, and are each valid for the status they are sent with. They hold no prose: the subset they
 * are made from has none (tooling/openapi's tests hold it to that).
 */
import { readFileSync } from 'node:fs';
import { subset, validateResponse } from '@cloudcall/openapi-subset';
import { staleness } from '@cloudcall/testing';
import { describe, expect, it } from 'vitest';
import { buildAnswers } from '../../scripts/generate.mjs';
import { genericData } from './data.js';

describe('the generated answers', () => {
  it('are what scripts/generate.mjs makes now (refresh with pnpm generate)', () => {
    expect(staleness(new URL('../../scripts/generate.mjs', import.meta.url))).toBe('');
  }, 60_000);

  it('are, parsed, what the generator makes of the subset (a stale copy shows as a diff here)', () => {
    expect(buildAnswers()).toEqual(genericData());
  }, 60_000);

  it('cover every operation served at the API, in under 200 kB', () => {
    const served = Object.entries(subset.operations).filter(([, op]) => !op.host);
    expect(Object.keys(genericData().operations).sort()).toEqual(served.map(([id]) => id).sort());
    expect(readFileSync(new URL('./answers.generated.ts', import.meta.url)).length).toBeLessThan(200_000);
  });

  it('are valid for their status, a list with an item in it included', () => {
    const invalid: string[] = [];
    for (const [id, answer] of Object.entries(genericData().operations)) {
      // A withdrawn operation answers the platform's error body, made when sent.
      if (answer.role === 'gone') continue;
      const bodies = [answer.body];
      if (answer.list && answer.body)
        bodies.push({ ...(answer.body as object), [answer.list]: [answer.element] });
      for (const body of bodies) {
        const { valid, errors } = validateResponse(id, answer.status, body);
        if (!valid && !answer.type) invalid.push(`${id}: ${errors.join('; ')}`);
      }
    }
    expect(invalid).toEqual([]);
  });
});
