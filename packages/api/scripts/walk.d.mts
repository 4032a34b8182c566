// Types of the request walker's exports that src/rules.test.ts reads.

/** A property of a request body: where it is (`a.b[].c`), its name, and the path holding it. */
export interface Property {
  at: string;
  field: string;
  parent: string;
  schema: Record<string, unknown>;
}

export function resolve(subset: unknown, schema: unknown): Record<string, unknown> | undefined;
export function properties(subset: unknown, request: unknown, maxDepth?: number): Property[];
export function typesOf(subset: unknown, schema: unknown): Set<string>;
