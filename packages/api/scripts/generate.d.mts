// Types of the generator's exports that src/generated.test.ts and src/rules.test.ts read.
import type { ModelData, ValidationData } from '../src/model-data.js';
import type * as RULES from './rules.mjs';
import type { BodyRule } from './rules.mjs';
import type { Property } from './walk.mjs';

/** The reviewed table as buildModel reads it: rules.mjs's exports, or a test's own. */
export type Rules = typeof RULES;

export const SUBSET_URL: URL;
export function bodyRule(
  id: string,
  property: Pick<Property, 'field' | 'parent'>,
  rules?: BodyRule[],
): BodyRule | undefined;
export function buildModel(subset: unknown, rules?: Rules): { model: ModelData; validation: ValidationData };
