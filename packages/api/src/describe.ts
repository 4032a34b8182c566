/**
 * Finding and describing operations, compactly enough for an agent's context: a search by words
 * over operationIds, tags, paths and parameter names, and an operation's parameters and body as a
 * TypeScript-like type (`{ name: string; size: string; tags?: string[] }`).
 */
import { operations } from './model.js';
import type { JsonSchema, OperationData } from './model-data.js';
import { validationData } from './validation.js';

/** Words people use for what the API names otherwise. */
const SYNONYMS: Record<string, string[]> = {
  vm: ['droplet', 'droplets'],
  vms: ['droplets', 'droplet'],
  server: ['droplet'],
  k8s: ['kubernetes'],
  doks: ['kubernetes'],
  db: ['database', 'databases'],
  lb: ['load', 'balancer', 'load_balancers'],
  docr: ['registry'],
  ip: ['reserved_ip', 'floating_ip', 'ip'],
  bucket: ['spaces'],
  function: ['functions'],
  app: ['apps'],
  alert: ['alerts', 'alert'],
  // The API deletes a VM or a cluster by `destroy`.
  delete: ['destroy'],
  destroy: ['delete'],
  remove: ['delete', 'destroy'],
};

/** Words of a question that name nothing ("create a snapshot of a volume"). */
const STOPWORDS = new Set(['a', 'an', 'the', 'of', 'for', 'to', 'in', 'with', 'my']);

export interface SearchHit {
  operationId: string;
  method: string;
  path: string;
  tag: string;
  /** Present when a request of it destroys or replaces (`true`, or the action types that do). */
  destructive?: true | string[];
}

interface Indexed {
  operation: OperationData;
  words: Set<string>;
  text: string;
  /** The words of its operationId: fewer is the plainer operation of a resource. */
  idWords: string[];
}

let indexed: Indexed[] | undefined;

function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function index(): Indexed[] {
  indexed ??= operations().map((operation) => {
    const parts = [
      operation.id,
      ...operation.tags,
      operation.path,
      ...(operation.params ?? []).map((param) => param.name),
      ...Object.keys(bodyProperties(operation.id)),
      ...(operation.types ?? []),
    ];
    const all = parts.flatMap(words);
    return { operation, words: new Set(all), text: ` ${all.join(' ')} `, idWords: words(operation.id) };
  });
  return indexed;
}

/**
 * The operations matching every word of `text` (a word, one of its synonyms, or the start of a
 * word of the operation), best first: more words matched whole, then the operationId holding
 * them, then the plainer operation (fewer words in its operationId: an action on one VM before
 * the same on every VM of a tag, a delete by id before one by name), then shorter paths.
 */
export function searchOperations(text: string, limit = 10): { hits: SearchHit[]; total: number } {
  const wanted = words(text).filter((word) => !STOPWORDS.has(word));
  if (!wanted.length) return { hits: [], total: 0 };
  const scored: { entry: Indexed; score: number }[] = [];
  for (const entry of index()) {
    let score = 0;
    let all = true;
    for (const word of wanted) {
      const synonyms = Object.hasOwn(SYNONYMS, word) ? (SYNONYMS[word] ?? []) : [];
      const forms = [word, ...synonyms, word.endsWith('s') ? word.slice(0, -1) : `${word}s`];
      if (forms.some((form) => entry.words.has(form))) score += 3;
      else if (forms.some((form) => entry.text.includes(` ${form}`))) score += 1;
      else {
        all = false;
        break;
      }
      if (forms.some((form) => entry.idWords.includes(form))) score += 2;
    }
    if (all) scored.push({ entry, score });
  }
  scored.sort(
    (a, b) =>
      b.score - a.score ||
      a.entry.idWords.length - b.entry.idWords.length ||
      a.entry.operation.path.length - b.entry.operation.path.length,
  );
  return {
    total: scored.length,
    hits: scored.slice(0, limit).map(({ entry: { operation } }) => ({
      operationId: operation.id,
      method: operation.method,
      path: operation.path,
      tag: operation.tags[0] ?? '',
      ...(operation.destroys ? { destructive: operation.destroys } : {}),
    })),
  };
}

/** What api-describe answers of an operation. */
export interface OperationDescription {
  operationId: string;
  method: string;
  path: string;
  tags: string[];
  /** Any one list of scopes lets a token make the call. */
  scopes: string[][];
  /** Whether a request destroys or replaces: `true`, `false`, or the action types that do. */
  destructive: boolean | string[];
  path_parameters?: Record<string, string>;
  /** Query parameters and their types; a name ending in `?` may be left out. */
  query?: Record<string, string>;
  /** The JSON body as a type (`?`: may be left out); absent when the operation takes none. */
  body?: string;
  body_required?: boolean;
  /** Where the request names a resource, and what it does to it (what the guard reads). */
  names?: string[];
  /** Set when the operation is served elsewhere than the API (not callable through api-call). */
  host?: string;
}

/** The most text a body's type takes in a description; deeper parts are elided to fit. */
export const BODY_TEXT_LIMIT = 6_000;

export function describeOperation(operation: OperationData): OperationDescription {
  const schemas = validationData().operations[operation.id] ?? {};
  const params = (where: 'path' | 'query') =>
    Object.fromEntries(
      (operation.params ?? [])
        .filter((param) => param.in === where)
        .map((param) => [
          `${param.name}${param.required || where === 'path' ? '' : '?'}`,
          typeText(schemas[where]?.[param.name] ?? {}, 2),
        ]),
    );
  const path = params('path');
  const query = params('query');
  let body: string | undefined;
  if (schemas.body !== undefined) {
    for (let depth = 6; depth >= 1; depth--) {
      body = typeText(schemas.body, depth);
      if (body.length <= BODY_TEXT_LIMIT) break;
    }
    if (body && body.length > BODY_TEXT_LIMIT) body = `${body.slice(0, BODY_TEXT_LIMIT - 3)}...`;
  }
  return {
    operationId: operation.id,
    method: operation.method,
    path: operation.path,
    tags: operation.tags,
    scopes: operation.scopes,
    destructive: operation.destroys ?? false,
    ...(Object.keys(path).length ? { path_parameters: path } : {}),
    ...(Object.keys(query).length ? { query } : {}),
    ...(body !== undefined ? { body, body_required: operation.body === 'required' } : {}),
    ...(operation.refs?.length
      ? {
          names: operation.refs.map(
            (ref) =>
              `${ref.in} ${ref.at}: ${ref.kind}${ref.by && ref.by !== 'members' ? ` by ${ref.by}` : ''} (${ROLE_TEXT[ref.role]}${ref.by === 'members' ? ', each member' : ''})`,
          ),
        }
      : {}),
    ...(operation.host ? { host: operation.host } : {}),
  };
}

const ROLE_TEXT = {
  target: 'changed',
  join: 'joined',
  source: 'copied from',
  use: 'used',
} as const;

function bodyProperties(id: string): Record<string, unknown> {
  const body = resolve(validationData().operations[id]?.body);
  const merged: Record<string, unknown> = {};
  for (const part of [
    body,
    ...(asArray(body?.allOf) ?? []),
    ...(asArray(body?.oneOf) ?? []),
    ...(asArray(body?.anyOf) ?? []),
  ]) {
    Object.assign(merged, (resolve(part)?.properties as Record<string, unknown>) ?? {});
  }
  return merged;
}

type Schema = Record<string, unknown>;

function resolve(schema: unknown, seen = new Set<string>()): Schema | undefined {
  let current = schema as Schema | undefined;
  while (current && typeof current.$ref === 'string') {
    const name = current.$ref.slice('#/components/schemas/'.length);
    if (seen.has(name)) return undefined;
    seen.add(name);
    current = validationData().components.schemas[name] as Schema | undefined;
  }
  return current && typeof current === 'object' ? current : undefined;
}

/** Keywords that say something of a schema without constraining it. */
const ANNOTATIONS = new Set([
  'description',
  'title',
  'readOnly',
  'writeOnly',
  'deprecated',
  'example',
  'nullable',
]);

function asArray(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

/** A schema as a compact TypeScript-like type, `depth` levels of objects deep. */
export function typeText(
  schema: JsonSchema | undefined,
  depth: number,
  seen: readonly string[] = [],
): string {
  if (schema === true || schema === undefined) return 'any';
  if (schema === false) return 'never';
  const ref = typeof schema.$ref === 'string' ? schema.$ref.slice('#/components/schemas/'.length) : undefined;
  if (ref !== undefined) {
    if (seen.includes(ref)) return ref;
    return typeText(validationData().components.schemas[ref], depth, [...seen, ref]);
  }
  const nullable = schema.nullable === true ? ' | null' : '';
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.slice(0, 12).map((value) => JSON.stringify(value));
    return `${values.join(' | ')}${schema.enum.length > 12 ? ' | ...' : ''}${nullable}`;
  }
  const discriminator = schema.discriminator as
    | { propertyName?: unknown; mapping?: Record<string, string> }
    | undefined;
  if (
    typeof discriminator?.propertyName === 'string' &&
    discriminator.mapping &&
    (schema.oneOf || schema.anyOf)
  ) {
    // Each branch with the values that select it (`{ type: "resize"; size?: string }`), rather
    // than every branch repeating the whole enum of the property it shares.
    const property = discriminator.propertyName;
    const valuesByRef = new Map<string, string[]>();
    for (const [value, target] of Object.entries(discriminator.mapping))
      valuesByRef.set(target, [...(valuesByRef.get(target) ?? []), value]);
    const texts = [...valuesByRef].map(([target, values]) =>
      typeText(
        { allOf: [{ $ref: target }, { properties: { [property]: { enum: values } }, required: [property] }] },
        depth,
        seen,
      ),
    );
    return `${texts.join(' | ')}${nullable}`;
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = asArray(schema[key]);
    if (branches) {
      const texts = [...new Set(branches.map((branch) => typeText(branch as JsonSchema, depth, seen)))];
      return `${texts.join(' | ')}${nullable}`;
    }
  }
  const parts = asArray(schema.allOf);
  if (parts) {
    // The parts merged, with the schema's own fields and required names beside its allOf (how the
    // description extends a base: `{ allOf: [base, { properties }], required: [...] }`).
    const merged: Schema = {
      type: 'object',
      properties: { ...((schema.properties as Schema) ?? {}) },
      required: [...((schema.required as string[]) ?? [])],
    };
    for (const part of parts) {
      const resolved = resolve(part);
      // An empty part (`allOf: [ref, {}]`) constrains nothing.
      if (!resolved || Object.keys(resolved).every((key) => ANNOTATIONS.has(key))) continue;
      if (!resolved.properties && !resolved.allOf) return typeText(part as JsonSchema, depth, seen);
      const flat = resolved.allOf ? flatten(resolved) : resolved;
      Object.assign(merged.properties as Schema, flat.properties ?? {});
      (merged.required as string[]).push(...((flat.required as string[]) ?? []));
    }
    return `${typeText(merged, depth, seen)}${nullable}`;
  }
  if (schema.type === 'array' || schema.items) {
    const item = typeText(schema.items as JsonSchema, depth, seen);
    return `${/[|{ ]/.test(item) && !item.startsWith('{') ? `(${item})` : item}[]${nullable}`;
  }
  if (schema.properties || schema.type === 'object') {
    const properties = Object.entries((schema.properties as Record<string, JsonSchema>) ?? {});
    if (!properties.length) {
      const values = schema.additionalProperties;
      return values && typeof values === 'object'
        ? `{ [key: string]: ${typeText(values as JsonSchema, depth - 1, seen)} }${nullable}`
        : `object${nullable}`;
    }
    if (depth <= 0) return `{...}${nullable}`;
    const required = new Set((schema.required as string[]) ?? []);
    const fields = properties
      .filter(([, sub]) => !(typeof sub === 'object' && resolve(sub)?.readOnly === true))
      .map(([name, sub]) => `${name}${required.has(name) ? '' : '?'}: ${typeText(sub, depth - 1, seen)}`);
    return `{ ${fields.join('; ')} }${nullable}`;
  }
  const type = typeof schema.type === 'string' ? schema.type : 'any';
  return `${type}${schema.format && type === 'string' ? ` (${schema.format})` : ''}${nullable}`;
}

function flatten(schema: Schema): Schema {
  const merged: Schema = {
    properties: { ...((schema.properties as Schema) ?? {}) },
    required: [...((schema.required as string[]) ?? [])],
  };
  for (const part of asArray(schema.allOf) ?? []) {
    const resolved = resolve(part);
    if (!resolved) continue;
    const flat = resolved.allOf ? flatten(resolved) : resolved;
    Object.assign(merged.properties as Schema, flat.properties ?? {});
    (merged.required as string[]).push(...((flat.required as string[]) ?? []));
  }
  return merged;
}
