/**
 * The committed model and validation schemas are what scripts/generate.mjs makes from the
 * committed subset and rules.mjs now (nothing regenerates them but `pnpm generate`), and they carry
 * none of the description's prose: the subset is description-free, and nothing may bring prose back.
 */
import { staleness } from '@cloudcall/testing';
import { describe, expect, it } from 'vitest';
import { modelData } from './model.js';
import { validationData } from './validation.js';

const VALIDATION = validationData();

/** Keywords of a schema that hold prose (or examples of it), not what a value must be. */
const PROSE = new Set(['description', 'summary', 'example', 'examples', 'title', 'externalDocs', '$comment']);

/**
 * Every prose keyword in a schema, by where it is. Walks schemas only: the names under
 * `properties` (a body field may well be called `description`) and `discriminator.mapping` are
 * names, and `enum`, `default` and `required` hold values.
 */
function proseIn(schema: unknown, at: string, found: string[] = []): string[] {
  if (Array.isArray(schema)) {
    for (const [index, item] of schema.entries()) proseIn(item, `${at}/${index}`, found);
    return found;
  }
  if (schema === null || typeof schema !== 'object') return found;
  for (const [key, value] of Object.entries(schema)) {
    if (PROSE.has(key) || key.startsWith('x-')) found.push(`${at}/${key}`);
    else if (key === 'properties' && value && typeof value === 'object')
      for (const [name, sub] of Object.entries(value)) proseIn(sub, `${at}/properties/${name}`, found);
    else if (!['enum', 'default', 'required', 'discriminator', 'const'].includes(key))
      proseIn(value, `${at}/${key}`, found);
  }
  return found;
}

describe('the generated model', () => {
  it('is what scripts/generate.mjs makes now (refresh with pnpm generate)', () => {
    expect(staleness(new URL('../scripts/generate.mjs', import.meta.url))).toBe('');
  }, 60_000);

  it('holds no prose of the description in any validation schema', () => {
    const found: string[] = [];
    for (const [id, schemas] of Object.entries(VALIDATION.operations))
      proseIn(schemas, `/operations/${id}`, found);
    for (const [name, schema] of Object.entries(VALIDATION.components.schemas))
      proseIn(schema, `/components/schemas/${name}`, found);
    expect(found).toEqual([]);
  });

  it('finds prose where it is, and not in a field named description', () => {
    // The walk itself, on a schema with a prose keyword and a field named like one.
    const schema = {
      type: 'object',
      description: 'A thing.',
      properties: { description: { type: 'string', example: 'x' }, title: { type: 'string' } },
    };
    expect(proseIn(schema, '')).toEqual(['/description', '/properties/description/example']);
  });

  it('holds, per operation, only what the model says of it', () => {
    const keys = new Set([
      'id',
      'method',
      'path',
      'tags',
      'scopes',
      'params',
      'body',
      'contentTypes',
      'host',
      'types',
      'refs',
      'destroys',
      'members',
    ]);
    const model = modelData();
    expect(model.operations).toHaveLength(659);
    const unknown = model.operations.flatMap((operation) =>
      Object.keys(operation).filter((key) => !keys.has(key)),
    );
    expect(unknown).toEqual([]);
    // Every operation has its schemas, and nothing else has.
    expect(Object.keys(VALIDATION.operations).sort()).toEqual(
      model.operations.map((operation) => operation.id).sort(),
    );
  });
});
