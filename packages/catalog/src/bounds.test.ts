/**
 * Every string a tool accepts has a bound, so no call can carry megabytes in one argument: each
 * string in every tool's input JSON Schema (nested ones included: array items, object fields,
 * record keys and values) must be bounded as defined by `boundedString` below.
 */
import { inputJsonSchema } from '@cloudcall/core/internal';
import { describe, expect, it } from 'vitest';
import { families, toolsOf } from './index.js';

type Schema = boolean | { [keyword: string]: unknown };

/**
 * Whether a regular expression (as JSON Schema's `pattern`, ECMA-262 syntax, no flags) only
 * matches strings of bounded length: it starts with `^`, ends with an unescaped `$`, has no `|`
 * outside a group (so both anchors bind every alternative), and has no unbounded quantifier
 * (`*`, `+`, `{n,}`) outside a character class. Each piece then matches a bounded number of
 * characters, and so does the whole. Conservative: `.*` inside a lookahead counts as unbounded.
 */
function boundedPattern(pattern: string): boolean {
  if (!pattern.startsWith('^') || !pattern.endsWith('$')) return false;
  let depth = 0;
  let inClass = false;
  for (let i = 1; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') {
      // An escaped character, such as \$ at the very end: then the pattern is not anchored.
      if (i === pattern.length - 2) return false;
      i++;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    if (char === '[') inClass = true;
    else if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === '|' && depth === 0) return false;
    else if (char === '*' || char === '+') return false;
    else if (char === '{' && /^\{\d*,\}/.test(pattern.slice(i))) return false;
  }
  return depth === 0 && !inClass;
}

/**
 * A string schema is bounded when it has `maxLength`, or `enum` or `const` (finitely many
 * values), or a `pattern` that `boundedPattern` accepts.
 */
function boundedString(schema: Record<string, unknown>): boolean {
  if (typeof schema.maxLength === 'number') return true;
  if (Array.isArray(schema.enum) || 'const' in schema) return true;
  return typeof schema.pattern === 'string' && boundedPattern(schema.pattern);
}

const COMPOSITES = ['anyOf', 'oneOf', 'allOf'] as const;

/**
 * The strings of a schema that have no bound, as argument paths (`rules[].value`, `config.*`,
 * `GLBSettings.region_priorities<key>`). A schema that accepts any value (`{}` or `true`) accepts
 * strings of any length, so it is reported too.
 */
function unboundedStrings(root: Record<string, unknown>): string[] {
  const found: string[] = [];
  const defs = (root.$defs ?? {}) as Record<string, Schema>;
  const seen = new Set<Schema>();
  const visit = (schema: Schema | undefined, path: string) => {
    if (schema === undefined || schema === false) return;
    if (schema === true) {
      found.push(`${path} (accepts any value)`);
      return;
    }
    if (seen.has(schema)) return;
    seen.add(schema);
    if (typeof schema.$ref === 'string') {
      visit(defs[schema.$ref.replace('#/$defs/', '')], path);
      return;
    }
    const types = ([] as unknown[]).concat(schema.type ?? []);
    const constrained =
      types.length > 0 || COMPOSITES.some((key) => key in schema) || 'enum' in schema || 'const' in schema;
    if (!constrained && !('not' in schema)) found.push(`${path} (accepts any value)`);
    if (types.includes('string') && !boundedString(schema)) found.push(path);
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
      visit(property, path ? `${path}.${name}` : name);
    }
    if (Array.isArray(schema.prefixItems)) {
      for (const [index, item] of (schema.prefixItems as Schema[]).entries())
        visit(item, `${path}[${index}]`);
    }
    visit(schema.items as Schema | undefined, `${path}[]`);
    visit(schema.additionalProperties as Schema | undefined, `${path}.*`);
    visit(schema.propertyNames as Schema | undefined, `${path}<key>`);
    for (const key of COMPOSITES) {
      for (const branch of (schema[key] ?? []) as Schema[]) visit(branch, path);
    }
  };
  visit(root, '');
  return found;
}

describe('bounds of string arguments', () => {
  it('boundedPattern accepts anchored patterns of bounded quantifiers only', () => {
    expect(boundedPattern('^[a-z]{3}\\d$')).toBe(true);
    expect(boundedPattern('^(?!\\.{1,2}$)[a-zA-Z0-9._-]{1,249}$')).toBe(true);
    expect(boundedPattern('^(ab|cd){1,4}$')).toBe(true);
    expect(boundedPattern('^[+*]{1,2}$')).toBe(true);
    expect(boundedPattern('^[a-z]+$')).toBe(false);
    expect(boundedPattern('^a*$')).toBe(false);
    expect(boundedPattern('^a{2,}$')).toBe(false);
    expect(boundedPattern('[a-z]{1,3}')).toBe(false);
    expect(boundedPattern('^a$|^b')).toBe(false);
    expect(boundedPattern('^a|b$')).toBe(false);
    expect(boundedPattern('^a\\$')).toBe(false);
    expect(boundedPattern('^\\s*\\d+\\s*$')).toBe(false);
  });

  it('unboundedStrings finds strings at any depth, and values of any type', () => {
    const schema = {
      type: 'object',
      properties: {
        ok: { type: 'string', maxLength: 5 },
        choice: { type: 'string', enum: ['a'] },
        rules: { type: 'array', items: { type: 'object', properties: { value: { type: 'string' } } } },
        either: { anyOf: [{ type: 'string', pattern: '^x+$' }, { type: 'number' }] },
        map: { type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} },
      },
    };
    expect(unboundedStrings(schema)).toEqual([
      'rules[].value',
      'either',
      'map.* (accepts any value)',
      'map<key>',
    ]);
  });

  it('every string argument of every tool is bounded', () => {
    const offenders = toolsOf(families).flatMap((tool) =>
      unboundedStrings(inputJsonSchema(tool)).map((path) => `${tool.name}: ${path}`),
    );
    // The generic call's body is any JSON the operation takes: it is checked against the
    // operation's own schema before anything is sent, and the transport bounds its size.
    expect(offenders).toEqual([
      'api-call: Body.* (accepts any value)',
      'api-call: Body[] (accepts any value)',
    ]);
  });
});
