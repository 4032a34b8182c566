// Types of the generator's exports that the sandbox's tests read.
import type { GenericData } from '../src/generic/data.js';

/** A schema with its `$ref`s followed. */
export function deref(node: unknown): Record<string, unknown>;
/** An object schema's properties, through allOf. */
export function propertiesOf(node: unknown): Record<string, unknown>;
/** A minimal value valid for a schema (its required properties, the first branch of a oneOf). */
export function sample(node: unknown): unknown;
export function buildAnswers(): GenericData;
