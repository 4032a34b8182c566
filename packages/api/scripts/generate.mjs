#!/usr/bin/env node
// Writes the operation model from the committed, description-free OpenAPI subset
// (tooling/openapi/subset.json, every operation of the platform's API) and the reviewed table
// beside this script (rules.mjs):
//   src/operations.generated.ts  each operation's id, method, path, tags, scopes and parameters,
//                                whether it takes a body, every place its request names a resource
//                                (with the kind and what the request does to it), whether it
//                                destroys, and for a container's delete, where its members are;
//   src/validation.generated.ts  the schemas its parameters and request body are validated with.
// Nothing regenerates them on its own: `pnpm generate` does, and src/generated.test.ts (this
// script's --check) fails when a committed copy is stale.
// Usage: node scripts/generate.mjs [--check]
import { readFileSync } from 'node:fs';
// Relative, not a dependency: the subset is a file of the repository's tooling, and
// tooling/scripts/generated.mjs uses Node's standard library only.
import { emit, jsonModule } from '../../../tooling/scripts/generated.mjs';
import * as RULES from './rules.mjs';
import { properties, resolve } from './walk.mjs';

export const SUBSET_URL = new URL('../../../tooling/openapi/subset.json', import.meta.url);

/** `/v2/droplets/{droplet_id}` -> `/v2/droplets/{}`: templates compared whatever their names. */
const shape = (template) => template.replace(/\{[^}]+\}/g, '{}');

/** The kind of a path parameter's resource: the key of the read's answer (`droplet`), or its name. */
function pathKind(subset, read, param) {
  const answer = read && resolve(subset, read.responses['200']);
  const keys = Object.keys(answer?.properties ?? {}).filter((key) => key !== 'links' && key !== 'meta');
  if (keys.length === 1) return keys[0];
  return param.replace(/_(id|uuid|name|identifier|slug)$/, '');
}

/** The action types an operation's body takes (its `type` enum or discriminator), if any. */
function actionTypes(subset, schema, found = new Set(), depth = 0) {
  const resolved = resolve(subset, schema);
  if (!resolved || depth > 6) return found;
  for (const value of Object.keys(resolved.discriminator?.mapping ?? {})) found.add(value);
  for (const value of resolve(subset, resolved.properties?.type)?.enum ?? []) found.add(value);
  for (const key of ['allOf', 'oneOf', 'anyOf'])
    for (const sub of resolved[key] ?? []) actionTypes(subset, sub, found, depth + 1);
  return found;
}

/**
 * The body rule that covers a property of operation `id`, or undefined: of the rules for its
 * field whose `under` and `ops` (when given) match, the most specific (both given, then `ops`,
 * then `under`, then neither), and of those the first.
 */
export function bodyRule(id, property, rules = RULES.BODY_RULES) {
  const specificity = (rule) => (rule.ops ? 2 : 0) + (rule.under ? 1 : 0);
  let best;
  for (const rule of rules) {
    if (rule.field !== property.field) continue;
    if (rule.under && !rule.under.test(property.parent)) continue;
    if (rule.ops && !rule.ops.includes(id)) continue;
    if (!best || specificity(rule) > specificity(best)) best = rule;
  }
  return best;
}

/** A reference as the model keeps it: only what the guard reads. */
function reference(entry) {
  const { in: where, at, kind, role, by, within } = entry;
  return { in: where, at, kind, role, ...(by && by !== 'id' ? { by } : {}), ...(within ? { within } : {}) };
}

/**
 * The model and the validation schemas, from a parsed subset and the reviewed table (rules.mjs's
 * exports; a test gives a small one of its own). Throws, naming each, for what the reviewed table
 * must decide first: a field that looks like a reference and that no rule covers, a query
 * parameter of a changing request, a rule naming an operation or kind that does not exist.
 */
export function buildModel(subset, rules = RULES) {
  const {
    BODY_RULES,
    CONTAINERS,
    DESTRUCTIVE,
    EXTRA_REFERENCES,
    KINDS,
    NOT_REFERENCE_QUERIES,
    NOT_REFERENCES,
    REFERENCE_LIKE,
  } = rules;
  const problems = [];
  const operations = Object.entries(subset.operations);
  const gets = new Map(
    operations.filter(([, op]) => op.method === 'GET').map(([, op]) => [shape(op.path), op]),
  );
  for (const [name, kind] of Object.entries(KINDS)) {
    if (kind.read && !gets.has(shape(kind.read))) problems.push(`kind ${name}: no GET ${kind.read}`);
  }
  const known = (id, where) => {
    if (!subset.operations[id]) problems.push(`${where} names ${id}, which is no operation`);
  };
  for (const rule of BODY_RULES)
    for (const id of [...(rule.ops ?? []), rule.test.op]) known(id, `the rule for ${rule.field}`);
  for (const rule of [...BODY_RULES, ...EXTRA_REFERENCES])
    if (!KINDS[rule.kind])
      problems.push(`the rule for ${rule.field ?? rule.at} names kind ${rule.kind}, which KINDS lacks`);
  for (const entry of EXTRA_REFERENCES) known(entry.op, `the extra reference ${entry.at}`);
  for (const id of [...Object.keys(DESTRUCTIVE), ...Object.keys(CONTAINERS)])
    known(id, 'the destructive table');

  const model = [];
  const validation = {};
  const used = new Set();
  const referenced = new Set();
  for (const [id, op] of operations) {
    const entry = { id, method: op.method, path: op.path, tags: op.tags, scopes: op.scopeSets };
    const params = (op.parameters ?? []).filter((param) => param.in === 'path' || param.in === 'query');
    if (params.length)
      entry.params = params.map(({ in: where, name, required }) => ({
        in: where,
        name,
        ...(required ? { required } : {}),
      }));
    if (op.request) entry.body = op.requestRequired ? 'required' : 'optional';
    if (op.requestContentTypes) entry.contentTypes = op.requestContentTypes;
    if (op.host) entry.host = op.host;
    const types = op.request ? [...actionTypes(subset, op.request)] : [];
    const refs = [];
    if (op.method !== 'GET') {
      // Every path parameter names what the request acts on, read where the path up to it is read.
      const segments = op.path.split('/');
      segments.forEach((segment, index) => {
        const param = /^\{(\w+)\}$/.exec(segment)?.[1];
        if (!param) return;
        const prefix = segments.slice(0, index + 1).join('/');
        const read = gets.get(shape(prefix));
        refs.push({
          in: 'path',
          at: param,
          kind: pathKind(subset, read, param),
          role: 'target',
          ...(read ? { read: prefix } : {}),
        });
      });
      for (const property of op.request ? properties(subset, op.request) : []) {
        const rule = bodyRule(id, property, BODY_RULES);
        if (rule) {
          used.add(rule);
          if (rule.role !== 'none') refs.push(reference({ ...rule, in: 'body', at: property.at }));
        } else if (REFERENCE_LIKE.test(property.field) && !NOT_REFERENCES.includes(property.field)) {
          problems.push(
            `${id}: body field ${property.at} looks like a reference; give it a rule in rules.mjs`,
          );
        }
      }
      const extras = EXTRA_REFERENCES.filter((extra) => extra.op === id);
      for (const extra of extras) refs.push(reference(extra));
      for (const param of params.filter((each) => each.in === 'query')) {
        const covered = extras.some((extra) => extra.in === 'query' && extra.at === param.name);
        if (!covered && !NOT_REFERENCE_QUERIES.includes(param.name))
          problems.push(`${id}: query parameter ${param.name} of a changing request; decide it in rules.mjs`);
      }
      const destroys = op.method === 'DELETE' ? true : DESTRUCTIVE[id];
      if (Array.isArray(destroys)) {
        const unknown = destroys.filter((type) => !types.includes(type));
        if (unknown.length)
          problems.push(`${id}: destructive types ${unknown.join(', ')} are not among ${types.join(', ')}`);
      }
      if (destroys) entry.destroys = destroys;
      if (CONTAINERS[id]) entry.members = CONTAINERS[id];
    }
    if (types.length) entry.types = types;
    if (refs.length) entry.refs = refs;
    model.push(entry);
    const schemas = {};
    for (const param of params) {
      schemas[param.in] ??= {};
      schemas[param.in][param.name] = param.schema ?? {};
    }
    if (op.request) schemas.body = op.request;
    validation[id] = schemas;
    collectRefs(schemas, subset, referenced);
  }
  for (const [id, container] of Object.entries(CONTAINERS)) {
    for (const read of [container.read, ...(container.tagged ?? [])].filter(Boolean))
      if (!gets.has(shape(read))) problems.push(`the container ${id} is read at ${read}, which is no GET`);
  }
  for (const rule of BODY_RULES) {
    if (!used.has(rule))
      problems.push(`the rule for ${rule.field} (${rule.note ?? rule.kind}) covers no field: remove it`);
  }
  if (problems.length) throw new Error(`the operation model cannot be made:\n  ${problems.join('\n  ')}`);
  const components = Object.fromEntries(
    [...referenced].sort().map((name) => [name, subset.components.schemas[name]]),
  );
  return {
    model: { version: subset.info.version, operations: model, kinds: KINDS },
    validation: { operations: validation, components: { schemas: components } },
  };
}

/** Every component schema reachable from `node`, into `found`. */
function collectRefs(node, subset, found) {
  if (Array.isArray(node)) {
    for (const item of node) collectRefs(item, subset, found);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') {
      const name = value.slice('#/components/schemas/'.length);
      if (!found.has(name)) {
        found.add(name);
        collectRefs(subset.components.schemas[name], subset, found);
      }
    } else if (key === 'mapping' && value && typeof value === 'object') {
      for (const ref of Object.values(value)) collectRefs({ $ref: ref }, subset, found);
    } else collectRefs(value, subset, found);
  }
}

const GENERATED_BY = 'scripts/generate.mjs from the OpenAPI subset and scripts/rules.mjs';

if (import.meta.url === `file://${process.argv[1]}`) {
  const subset = JSON.parse(readFileSync(SUBSET_URL, 'utf8'));
  const { model, validation } = buildModel(subset);
  emit(
    new URL('../src/operations.generated.ts', import.meta.url),
    jsonModule('MODEL_TEXT', model, {
      by: GENERATED_BY,
      what: 'Every operation of the platform, and what its requests name (ModelData, as JSON).',
    }),
  );
  emit(
    new URL('../src/validation.generated.ts', import.meta.url),
    jsonModule('VALIDATION_TEXT', validation, {
      by: GENERATED_BY,
      what: "Schemas of every operation's parameters and request body (ValidationData, as JSON).",
    }),
  );
}
