/**
 * The field-limit table against the API description: wherever the description gives a property of
 * an operation the sandbox emulates a `maxLength` or `maxItems`, the table holds that limit for that
 * field name. (What the sandbox does
 * with the table over HTTP is tested in requests.test.ts.)
 */
import { type JsonSchema, subset } from '@cloudcall/openapi-subset';
import { describe, expect, it } from 'vitest';
import { FIELD_LIMITS, type FieldLimit } from './limits.js';
import { handRoutes } from './routes/families.js';

const routes = await handRoutes();

/** `/v2/droplets/{droplet_id}` -> `/v2/droplets/{}`: a route and an operation compared whatever their names. */
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');

/** The operations of the description the sandbox has a route for that the table of limits checks. */
function emulated() {
  const served = new Set(
    routes.filter((route) => !route.ownLengths).map((route) => `${route.method} ${shape(route.path)}`),
  );
  return Object.values(subset.operations).filter((operation) =>
    served.has(`${operation.method} ${shape(operation.path)}`),
  );
}

/**
 * Every property the schemas of the emulated operations give a maxLength or maxItems (items'
 * maxLength counts as the property's), following their references into the component schemas.
 */
function declaredLimits(): Map<string, FieldLimit[]> {
  const found = new Map<string, FieldLimit[]>();
  const record = (name: string, limit: FieldLimit) => found.set(name, [...(found.get(name) ?? []), limit]);
  const stack: unknown[] = [emulated()];
  const reached = new Set<string>();
  while (stack.length) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && !reached.has(ref)) {
      reached.add(ref);
      stack.push(subset.components.schemas[ref.slice('#/components/schemas/'.length)]);
    }
    const properties = (node as { properties?: unknown }).properties;
    if (properties && typeof properties === 'object' && !Array.isArray(properties)) {
      for (const [name, schema] of Object.entries(properties as Record<string, JsonSchema>)) {
        if (typeof schema !== 'object') continue;
        const items = schema.items as { maxLength?: number } | undefined;
        const length = (schema.maxLength as number | undefined) ?? items?.maxLength;
        const count = schema.maxItems as number | undefined;
        if (length !== undefined) record(name, { length });
        if (count !== undefined) record(name, { items: count });
      }
    }
    stack.push(...Object.values(node));
  }
  return found;
}

describe('FIELD_LIMITS', () => {
  it('holds every limit the API description gives a property', () => {
    const declared = declaredLimits();
    // The subset does give some: the walk finds them, over the sandbox's operations.
    expect(emulated().length).toBeGreaterThan(150);
    expect(declared.get('name')).toContainEqual({ length: 255 });
    expect(declared.get('vpc_ids')).toContainEqual({ items: 2 });
    // Where operations disagree (a project's name is at most 175 characters, other names 255), the
    // table holds the loosest and the operation's own route checks the narrower one (a project's
    // name: volumes.test.ts). Only those listed here may be narrower. (Families whose routes check
    // lengths themselves, such as apps and registries, are not held to the table.)
    const narrowerInRoutes = new Set(['name:175']);
    for (const [name, limits] of declared) {
      const loosest = (key: 'length' | 'items') =>
        Math.max(...limits.map((limit) => limit[key] ?? Number.NEGATIVE_INFINITY));
      for (const limit of limits) {
        const key = limit.length !== undefined ? 'length' : 'items';
        if (limit[key] !== loosest(key)) {
          expect(narrowerInRoutes, `${name}: ${limit[key]}`).toContain(`${name}:${limit[key]}`);
          continue;
        }
        expect(FIELD_LIMITS[name], name).toMatchObject(limit);
      }
    }
  });

  it('limits what the issue named: names, descriptions, tags, SSH keys, user data', () => {
    expect(FIELD_LIMITS).toMatchObject({
      name: { length: 255 },
      description: { length: 255 },
      tags: { length: 255 },
      public_key: { length: 16_384 },
      user_data: { bytes: 65_536 },
    });
  });
});
