// Types of the generator's exports that src/generated.test.ts reads.
export function openapiDocument(subset: unknown): {
  paths: Record<string, Record<string, { operationId: string }>>;
};
export function enumLists(subset: unknown): Map<string, readonly string[]>;
export function enumsSource(subset: unknown): string;
export function schemasSource(subset: unknown): Promise<string>;
export function scopeList(subset: unknown): string[];
export function scopesSource(subset: unknown): string;
