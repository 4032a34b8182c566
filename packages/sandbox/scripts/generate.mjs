#!/usr/bin/env node
// Writes src/generic/answers.generated.ts from the committed, description-free OpenAPI subset
// (tooling/openapi/subset.json): for every operation served at the API's own host, what the
// sandbox's generic emulation (src/generic/) needs to answer it without a hand-written model:
//   - its success status and a minimal answer valid for it (required fields, the item's key,
//     values of the right types: enums' first value, formats respected), checked here against
//     the description before it is written;
//   - its role (create, list, read, replace, merge, delete... or a plain answer), where the item
//     sits in the answer, and which of the item's fields a request may fill (simple values only);
//   - for each collection, how its items are keyed (an integer, a UUID or a name).
// Nothing regenerates it on its own: `pnpm generate` does, and src/generic/generated.test.ts (this
// script's --check) fails when the committed copy is stale.
// Usage: node scripts/generate.mjs [--check]
import { subset, validateResponse } from '@cloudcall/openapi-subset';
// Relative, not a dependency: tooling/scripts/generated.mjs uses Node's standard library only.
import { emit, jsonModule } from '../../../tooling/scripts/generated.mjs';

const REF = '#/components/schemas/';
const components = subset.components.schemas;

/** A schema with its `$ref`s followed. */
export function deref(node) {
  let found = node;
  for (let i = 0; found && typeof found.$ref === 'string' && i < 50; i++)
    found = components[found.$ref.slice(REF.length)];
  return found ?? {};
}

/** An object schema's properties and required names, through allOf. */
function shapeOf(node, out = { properties: {}, required: new Set() }) {
  const found = deref(node);
  for (const [name, property] of Object.entries(found.properties ?? {})) out.properties[name] ??= property;
  for (const name of found.required ?? []) out.required.add(name);
  for (const branch of found.allOf ?? []) shapeOf(branch, out);
  return out;
}

/** An object schema's properties, through allOf. */
export const propertiesOf = (node) => shapeOf(node).properties;

const isObject = (node) => {
  const found = deref(node);
  return found.type === 'object' || !!found.properties || !!found.allOf;
};
const isArray = (node) => {
  const found = deref(node);
  return found.type === 'array' || !!found.items;
};

/** Values of the formats the description uses, each valid for its format. */
const FORMATS = {
  'date-time': '2024-01-01T00:00:00Z',
  date: '2024-01-01',
  time: '00:00:00Z',
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  email: 'sammy@example.com',
  uri: 'https://example.com',
  url: 'https://example.com',
  hostname: 'example.com',
  cidr: '192.0.2.0/24',
};

/** Strings tried, in order, for a value a `pattern` must match. */
const PATTERN_TRIES = [
  '',
  'a',
  'a1',
  'example',
  '1',
  '0',
  'nyc1',
  '2024-01-01',
  '192.0.2.1',
  '1.0.0',
  'a-1',
  'A',
];

function stringSample(node) {
  let value = FORMATS[node.format];
  if (value === undefined && node.pattern) {
    const pattern = new RegExp(node.pattern);
    value = PATTERN_TRIES.find((each) => pattern.test(each.padEnd(node.minLength ?? 0, 'a')));
    if (value === undefined) throw new Error(`no sample matches the pattern ${node.pattern}`);
  }
  value ??= '';
  if (node.minLength > value.length) value = value.padEnd(node.minLength, 'a');
  return value;
}

function numberSample(node) {
  let value = node.minimum ?? (node.exclusiveMinimum !== undefined ? node.exclusiveMinimum + 1 : 0);
  if (node.maximum !== undefined && value > node.maximum) value = node.maximum;
  return value;
}

/**
 * A minimal value valid for a schema: required properties only (and, where `extra` names them,
 * more of the top level), the first branch of a oneOf/anyOf unless `choices` picks another.
 */
export function sample(node, context = { choices: [], points: [] }, depth = 0, extra = () => []) {
  const found = deref(node);
  if (depth > 16) return null;
  if ('const' in found) return found.const;
  if (Array.isArray(found.enum)) return found.enum.find((value) => value !== null) ?? null;
  const alternatives = found.oneOf ?? found.anyOf;
  let value;
  if (alternatives) {
    const point = context.points.length;
    context.points.push(alternatives.length);
    const chosen = context.choices[point] ?? 0;
    value = sample(alternatives[chosen], context, depth + 1);
    const discriminator = found.discriminator;
    if (discriminator?.mapping && value && typeof value === 'object') {
      const ref = alternatives[chosen].$ref;
      const tag = Object.entries(discriminator.mapping).find(([, target]) => target === ref)?.[0];
      if (tag !== undefined) value[discriminator.propertyName] = tag;
    }
    if (!found.properties && !found.allOf && !found.type) return value;
  }
  const type = found.type ?? (found.properties || found.allOf ? 'object' : found.items ? 'array' : undefined);
  if (type === 'object') {
    const object = value && typeof value === 'object' && !Array.isArray(value) ? value : {};
    const { properties, required } = shapeOf(found);
    for (const name of new Set([...required, ...extra(properties)])) {
      if (name in object) continue;
      object[name] = sample(properties[name] ?? {}, context, depth + 1);
    }
    // A branch of allOf that is itself a oneOf/anyOf adds what its chosen branch requires.
    for (const branch of found.allOf ?? []) {
      const inner = deref(branch);
      if (inner.oneOf || inner.anyOf)
        Object.assign(object, { ...sample(inner, context, depth + 1), ...object });
    }
    return object;
  }
  if (type === 'array') {
    return Array.from({ length: found.minItems ?? 0 }, () => sample(found.items ?? {}, context, depth + 1));
  }
  if (type === 'string') return stringSample(found);
  if (type === 'integer' || type === 'number') return numberSample(found);
  if (type === 'boolean') return false;
  return value ?? (found.nullable ? null : '');
}

/** Formats of text a request may fill, which the sandbox checks as the validator does. */
const FIELD_FORMATS = ['uri', 'url', 'ipv4', 'email'];

/** What a request may fill in an item: its simple top-level fields, each with a type code. */
function fieldsOf(node) {
  const fields = {};
  for (const [name, property] of Object.entries(shapeOf(node).properties)) {
    const found = deref(property);
    const nullable = found.nullable ? '?' : '';
    const bounds = (min, max) => (min !== undefined || max !== undefined ? `:${min ?? ''}:${max ?? ''}` : '');
    let code;
    if (Array.isArray(found.enum)) {
      if (found.enum.every((value) => typeof value === 'string')) code = found.enum;
    } else if (found.type === 'string') {
      if (found.format === 'date-time') code = 'd';
      else if (found.format === 'uuid') code = 'u';
      else if (FIELD_FORMATS.includes(found.format) && !found.pattern)
        code = found.format === 'url' ? 'uri' : found.format;
      else if (!found.format && !found.pattern) code = `s${bounds(found.minLength, found.maxLength)}`;
    } else if (found.type === 'integer' && !found.multipleOf)
      code = `i${bounds(found.minimum, found.maximum)}`;
    else if (found.type === 'number' && !found.multipleOf) code = `n${bounds(found.minimum, found.maximum)}`;
    else if (found.type === 'boolean') code = 'b';
    else if (found.type === 'array' && !found.minItems && !found.maxItems && !found.uniqueItems) {
      const items = deref(found.items ?? {});
      if (Array.isArray(items.enum) && items.enum.every((value) => typeof value === 'string'))
        code = { each: items.enum };
      else if (items.type === 'string' && !items.enum && !items.format && !items.pattern && !items.minLength)
        code = 'S';
    }
    if (code !== undefined) fields[name] = typeof code === 'string' ? `${nullable}${code}` : code;
  }
  return fields;
}

const shape = (path) => path.replace(/\{[^}]+\}/g, '{}');
const lastParam = (path) => /\/\{(\w+)\}$/.exec(path)?.[1];
const parentOf = (path) => path.slice(0, path.lastIndexOf('/'));

/** The success status an operation answers, or (for one the platform has withdrawn) its error. */
function statusOf(op) {
  const statuses = Object.keys(op.responses);
  const success = statuses.filter((status) => /^2\d\d$/.test(status)).sort()[0];
  if (success) return Number(success);
  return Number(statuses.find((status) => /^4\d\d$/.test(status) && !['401', '429'].includes(status)));
}

/** An answer's own properties, without the `links` and `meta` of a page. */
const ownProperties = (schema) =>
  Object.entries(shapeOf(schema).properties).filter(([name]) => name !== 'links' && name !== 'meta');

/**
 * Where an answer holds its item: the one property holding an object (`kubernetes_cluster`, beside
 * values such as a status), or `prefer` when it is one of several; '' when the answer is the item
 * itself (only values); undefined when there is no telling.
 */
function itemOf(schema, prefer) {
  if (!schema || !isObject(schema) || isArray(schema)) return undefined;
  const own = ownProperties(schema);
  const objects = own.filter(([, node]) => isObject(node) && !isArray(node)).map(([name]) => name);
  if (prefer !== undefined && objects.includes(prefer)) return prefer;
  if (objects.length === 1) return objects[0];
  if (objects.length === 0 && own.length > 0 && !own.some(([, node]) => isArray(node))) return '';
  return undefined;
}

/** Where a list answer holds its items: its one array of objects. */
function listOf(schema) {
  if (!schema || !isObject(schema)) return undefined;
  const arrays = ownProperties(schema).filter(
    ([, node]) => isArray(node) && isObject(deref(node).items ?? {}),
  );
  return arrays.length === 1 ? arrays[0][0] : undefined;
}

const itemSchema = (schema, at) => (at === '' ? schema : shapeOf(schema).properties[at]);

/**
 * The field of an item schema that holds the key a path names as `param`: the field named so, or
 * by its last part (`id` for `cluster_id`), or one that ends `param` or that `param` ends
 * (`sink_id` for `logsink_id`), else `fallback`.
 */
function keyField(properties, param, fallback = []) {
  const names = Object.keys(properties);
  return [
    param,
    param.replace(/^.*_/, ''),
    names.find((name) => /_(id|uuid|name)$/.test(name) && (param.endsWith(name) || name.endsWith(param))),
    ...fallback,
  ].find((name) => name && name in properties);
}

/** A key of each kind, to check that an answer holding one is valid. */
const SAMPLE_KEYS = { integer: 100000001, uuid: FORMATS.uuid, name: 'example' };

/**
 * Where an operation's answer shows its item's key: the item's field for it, or the collection's
 * key field added where the item schema lets it be (a create that would not otherwise say which
 * item it made), as long as the answer stays valid with a key in it.
 */
function keyIn(id, entry, schema, collection, param = '') {
  if (!collection || !schema) return undefined;
  const key = keyField(shapeOf(schema).properties, param, [collection.key]) ?? collection.key;
  if (!key || entry.body === undefined) return undefined;
  const body = structuredClone(entry.body);
  const item = entry.item === '' ? body : body?.[entry.item];
  if (!item || typeof item !== 'object') return undefined;
  item[key] = SAMPLE_KEYS[collection.id];
  return validateResponse(id, entry.status, body).valid ? key : undefined;
}

const ROLE_ON_ITEM = { GET: 'read', PUT: 'replace', PATCH: 'merge', POST: 'update', DELETE: 'delete' };

/**
 * The generic data for every operation of the subset served at the API's own host: its
 * collections (a path whose POST creates items kept at path/{key}) and, per operation, its answer
 * and role.
 */
export function buildAnswers() {
  const operations = Object.entries(subset.operations).filter(([, op]) => !op.host);
  const byShape = new Map(operations.map(([id, op]) => [`${op.method} ${shape(op.path)}`, { id, ...op }]));
  const find = (method, path) => byShape.get(`${method} ${shape(path)}`);
  const successSchema = (op) => op.responses[String(statusOf(op))] ?? null;
  /** The operations on path/{key}: the items of a collection at path. */
  const itemOps = (path) =>
    operations.filter(([, op]) => lastParam(op.path) && shape(parentOf(op.path)) === shape(path));

  const collections = {};
  /** The parameter naming a collection's items in its item paths. */
  const itemParams = new Map();
  for (const [, op] of operations) {
    if (op.method !== 'POST') continue;
    const items = itemOps(op.path);
    if (!items.length) continue;
    const read = find('GET', `${op.path}/{}`);
    const readAt = read && itemOf(successSchema(read));
    const created = itemOf(successSchema(op), readAt);
    const itemPath = (read ?? items[0][1]).path;
    const param = lastParam(itemPath);
    // A create answers the item as its read does, or the item alone (`{sink}` read bare), or only
    // its key (`{test_case_uuid}`).
    const answersKey = created === '' && param in shapeOf(successSchema(op)).properties;
    if (created === undefined || (read && readAt !== created && readAt !== '' && !answersKey)) continue;
    const schema = itemSchema(successSchema(read ?? op), created);
    const properties = shapeOf(schema ?? {}).properties;
    const key = keyField(properties, param, ['id', 'uuid', 'name']);
    const keySchema = deref(key ? properties[key] : {});
    const paramSchema = deref(
      items.flatMap(([, each]) => each.parameters ?? []).find((each) => each.name === param)?.schema ?? {},
    );
    const id =
      /name$/.test(param) || (key === 'name' && paramSchema.type !== 'integer')
        ? 'name'
        : keySchema.type === 'integer' || (!key && paramSchema.type === 'integer')
          ? 'integer'
          : 'uuid';
    // Strict: an item must have been created to be read, changed or deleted (a 404 otherwise).
    collections[shape(op.path)] = { ...(key ? { key } : {}), id, ...(read ? { strict: true } : {}) };
    itemParams.set(shape(op.path), param);
  }

  // The fields of an item schema that is a component are kept once, under its name.
  const fieldSets = {};
  const fieldsNamed = (schema) => {
    if (typeof schema?.$ref !== 'string') return fieldsOf(schema);
    const name = schema.$ref.slice(REF.length);
    fieldSets[name] ??= fieldsOf(schema);
    return name;
  };
  const answers = {};
  const problems = [];
  for (const [id, op] of operations) {
    const status = statusOf(op);
    const schema = op.responses[String(status)] ?? null;
    const entry = { method: op.method, path: op.path, status };
    const type = op.responseContentTypes?.[String(status)]?.[0];
    if (type) entry.type = type;
    const path = shape(op.path);
    const parent = lastParam(op.path) ? shape(parentOf(op.path)) : undefined;
    let role = 'answer';
    if (status >= 300) role = 'gone';
    else if (collections[path] && op.method === 'POST') role = 'create';
    else if (collections[path] && op.method === 'GET' && listOf(schema) !== undefined) role = 'list';
    else if (parent && collections[parent]) role = ROLE_ON_ITEM[op.method];
    else if (!collections[path]) {
      // A singleton (a cluster's autoscale settings, the registry): written and read at one path.
      const writable = ['PUT', 'PATCH', 'POST'].some((method) => find(method, op.path));
      const read = find('GET', op.path);
      if (read && writable && listOf(successSchema(read)) === undefined)
        role = op.method === 'GET' ? 'get' : op.method === 'DELETE' ? 'unset' : 'set';
    }
    entry.role = role;
    if (role === 'create' || role === 'list') entry.collection = path;
    else if (ROLE_ON_ITEM[op.method] === role && parent && collections[parent]) entry.collection = parent;
    // The answer's top level in full when small (a wrapper: `{cluster, links}`), and its `meta`.
    const tops = (properties) =>
      Object.keys(properties).filter((name) => name === 'meta' || Object.keys(properties).length <= 6);
    if (schema && role !== 'gone') {
      const body = validSample(id, status, schema, tops, problems);
      if (body !== undefined) entry.body = body;
    }
    const read = entry.collection && find('GET', `${entry.collection}/{}`);
    const readKey = read ? itemOf(successSchema(read)) : undefined;
    const at = role === 'list' ? undefined : itemOf(schema, readKey);
    if (at !== undefined && role !== 'answer' && role !== 'unset') {
      entry.item = at;
      entry.fields = fieldsNamed(itemSchema(schema, at));
      const param = role === 'create' ? itemParams.get(path) : lastParam(op.path);
      const key = keyIn(id, entry, itemSchema(schema, at), collections[entry.collection], param);
      if (key) entry.key = key;
    }
    // A replace sets what its request can name, and keeps the rest (a cluster's region).
    if (role === 'replace' && op.request) entry.sets = Object.keys(shapeOf(op.request).properties);
    if (role === 'list') {
      entry.list = listOf(schema);
      const elementSchema = deref(shapeOf(schema).properties[entry.list]).items;
      entry.element = sample(elementSchema);
      entry.fields = fieldsNamed(elementSchema);
      const key = keyField(shapeOf(elementSchema).properties, itemParams.get(path) ?? '', [
        collections[path]?.key,
      ]);
      if (key) entry.key = key;
      const { links, meta } = shapeOf(schema).properties;
      if (links && 'previous' in shapeOf(shapeOf(links).properties.pages ?? {}).properties)
        entry.previous = true;
      // The page's numbers its `meta` has room for, which the sandbox fills in.
      const numbers = Object.keys(shapeOf(meta ?? {}).properties).filter((name) =>
        ['page', 'pages', 'total'].includes(name),
      );
      if (meta && entry.body?.meta)
        for (const name of numbers) entry.body.meta[name] = name === 'total' ? 0 : 1;
    }
    answers[id] = entry;
  }
  if (problems.length) throw new Error(`no valid answer could be made for:\n  ${problems.join('\n  ')}`);
  return { version: subset.info.version, collections, fields: fieldSets, operations: answers };
}

/** The first sample valid against the description, trying each branch of each oneOf/anyOf in turn. */
function validSample(id, status, schema, tops, problems) {
  const first = { choices: [], points: [] };
  const attempts = [first];
  let body = sample(schema, first, 0, tops);
  for (let i = 0; i < first.points.length; i++)
    for (let choice = 1; choice < first.points[i]; choice++) {
      const choices = [];
      choices[i] = choice;
      attempts.push({ choices, points: [] });
    }
  for (const [index, context] of attempts.entries()) {
    if (index > 0) body = sample(schema, context, 0, tops);
    const { valid, errors } = validateResponse(id, status, body);
    if (valid) return body;
    if (index === attempts.length - 1) problems.push(`${id} ${status}: ${errors.join('; ')}`);
  }
  return undefined;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const answers = buildAnswers();
  emit(
    new URL('../src/generic/answers.generated.ts', import.meta.url),
    jsonModule('ANSWERS_TEXT', answers, {
      by: 'scripts/generate.mjs from the OpenAPI subset',
      what: 'How the generic emulation answers each operation (GenericData, as JSON).',
    }),
  );
}
