/**
 * The reviewed table (scripts/rules.mjs) held to its examples, through the generated model: each
 * body rule and extra reference finds exactly the values its example gives, of its kind and role,
 * at the places it decides; the destructive table and the containers reach the model; and the
 * generator refuses what the table has not decided.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bodyRule, buildModel, type Rules, SUBSET_URL } from '../scripts/generate.mjs';
import type { BodyRule } from '../scripts/rules.mjs';
import * as RULES from '../scripts/rules.mjs';
import { properties } from '../scripts/walk.mjs';
import {
  destroys,
  type Named,
  namedBy,
  namedOperation,
  type OperationData,
  operationById,
  operations,
} from './model.js';

const { BODY_RULES, CONTAINERS, DESTRUCTIVE, EXTRA_REFERENCES, KINDS } = RULES;

interface SubsetOperation {
  method: string;
  path: string;
  request?: unknown;
  parameters?: { in: string; name: string; required?: boolean; schema?: unknown }[];
}
const subset = JSON.parse(readFileSync(SUBSET_URL, 'utf8')) as {
  operations: Record<string, SubsetOperation>;
};

const operation = (id: string): OperationData => {
  const found = operationById(id);
  if (!found) throw new Error(`${id} is no operation of the model`);
  return found;
};

/** A value as the examples write it: `kind:value` for URNs and typed pairs, which carry their kind. */
const shown = (named: Named) =>
  named.kind !== undefined && (named.ref.by === 'typed' || named.ref.by === 'urn')
    ? `${named.kind}:${named.value}`
    : named.value;

/** The body places of an operation a rule decides (`inbound_rules[].sources.tags`...). */
const placesOf = (rule: BodyRule, id: string) =>
  properties(subset, subset.operations[id]?.request ?? {})
    .filter((property) => bodyRule(id, property) === rule)
    .map((property) => property.at);

const ruleName = (rule: BodyRule) =>
  `${rule.field}${rule.under ? ` under ${rule.under}` : ''}${rule.ops ? ` of ${rule.ops.join(', ')}` : ''} (${rule.role}) in ${rule.test.op}`;

describe('each body rule, by its example', () => {
  it.each(BODY_RULES.map((rule) => [ruleName(rule), rule] as const))('%s', (_name, rule) => {
    const op = operation(rule.test.op);
    const places = placesOf(rule, op.id);
    // The example's operation has a field the rule decides: the example tests this rule.
    expect(places.length, `${op.id} has no field ${rule.field} that this rule decides`).toBeGreaterThan(0);
    const refs = (op.refs ?? []).filter((ref) => ref.in === 'body' && places.includes(ref.at));
    if (rule.role === 'none') expect(refs, 'a role none rule puts no reference in the model').toEqual([]);
    else {
      expect(refs.map((ref) => ref.at).sort()).toEqual([...places].sort());
      for (const ref of refs) {
        expect(ref.kind).toBe(rule.kind);
        expect(ref.role).toBe(rule.role);
        expect(ref.by).toBe(rule.by === 'id' ? undefined : rule.by);
      }
    }
    const named = namedBy(op, { body: rule.test.body }).filter(
      (each) => each.ref.in === 'body' && places.includes(each.ref.at),
    );
    expect(named.map(shown)).toEqual(rule.test.values);
  });
});

describe('each extra reference, by its example', () => {
  it.each(EXTRA_REFERENCES.map((entry) => [`${entry.in} ${entry.at} of ${entry.op}`, entry] as const))(
    '%s',
    (_name, entry) => {
      const op = operation(entry.op);
      const refs = (op.refs ?? []).filter((ref) => ref.in === entry.in && ref.at === entry.at);
      expect(refs).toHaveLength(1);
      expect(refs[0]).toMatchObject({ kind: entry.kind, role: entry.role });
      const named = namedBy(op, { query: entry.test.query, body: entry.test.body }).filter(
        (each) => each.ref.in === entry.in && each.ref.at === entry.at,
      );
      expect(named.map(shown)).toEqual(entry.test.values);
      // A name narrowed by a sibling carries the sibling's value.
      if (entry.within) {
        const where = (entry.in === 'query' ? entry.test.query : entry.test.body) as Record<string, unknown>;
        expect(named.map((each) => each.within)).toEqual(named.map(() => where[entry.within as string]));
      }
    },
  );
});

describe('what destroys', () => {
  it.each(Object.entries(DESTRUCTIVE))('%s', (id, types) => {
    const op = operation(id);
    expect(op.method).not.toBe('GET');
    if (types === true) {
      expect(destroys(op)).toBe(true);
      expect(destroys(op, { type: 'anything' })).toBe(true);
      return;
    }
    // The listed action types destroy; the operation's other types do not, nor a body without one.
    expect(types.length).toBeGreaterThan(0);
    for (const type of types) expect(destroys(op, { type }), type).toBe(true);
    const others = (op.types ?? []).filter((type) => !types.includes(type));
    expect(others.length, `${id} has action types that do not destroy`).toBeGreaterThan(0);
    for (const type of others) expect(destroys(op, { type }), type).toBe(false);
    expect(destroys(op)).toBe(false);
    expect(destroys(op, { type: 7 })).toBe(false);
  });

  it('every DELETE destroys, no GET does, and nothing else does unless the table says so', () => {
    for (const op of operations()) {
      if (op.method === 'DELETE') expect(destroys(op), op.id).toBe(true);
      else if (op.method === 'GET') expect(op.destroys, op.id).toBeUndefined();
      else if (!(op.id in DESTRUCTIVE)) expect(op.destroys, op.id).toBeUndefined();
    }
  });
});

describe('containers and kinds', () => {
  it.each(Object.entries(CONTAINERS))('%s carries where its members are', (id, container) => {
    expect(operation(id).members).toEqual(container);
    expect(destroys(operation(id))).toBe(true);
  });

  it.each(Object.entries(KINDS).filter(([, kind]) => kind.read))(
    'kind %s is read by a GET of the model',
    (_kind, data) => {
      const read = namedOperation(`GET ${data.read}`);
      expect(read?.method).toBe('GET');
      expect(read?.params?.filter((param) => param.in === 'path')).toHaveLength(1);
    },
  );

  it('names only kinds it knows in a reference by a rule', () => {
    const ruled = new Set([...BODY_RULES, ...EXTRA_REFERENCES].map((rule) => rule.kind));
    for (const kind of ruled) expect(KINDS, kind).toHaveProperty(kind);
  });
});

/** A small table for the generator's refusals: one kind, one rule, nothing else. */
const small = (overrides: Partial<Rules> = {}): Rules => ({
  ...RULES,
  KINDS: { droplet: { read: '/v2/droplets/{id}' } },
  BODY_RULES: [
    {
      field: 'droplet_id',
      kind: 'droplet',
      role: 'target',
      test: { op: 'volumes_attach', body: { droplet_id: 7 }, values: [7] },
    },
  ],
  EXTRA_REFERENCES: [],
  NOT_REFERENCE_QUERIES: [],
  DESTRUCTIVE: {},
  CONTAINERS: {},
  ...overrides,
});

/** A hand-made subset: a droplet read, and a volume action whose body holds `fields`. */
const subsetWith = (fields: Record<string, unknown> = { droplet_id: { type: 'integer' } }, extra = {}) => ({
  info: { version: '2.0' },
  components: { schemas: { attach: { type: 'object', properties: fields } } },
  operations: {
    droplets_get: {
      method: 'GET',
      path: '/v2/droplets/{droplet_id}',
      tags: ['Droplets'],
      scopeSets: [['droplet:read']],
      parameters: [{ in: 'path', name: 'droplet_id', required: true, schema: { type: 'integer' } }],
      responses: { 200: { properties: { droplet: { type: 'object' } } } },
    },
    volumes_attach: {
      method: 'POST',
      path: '/v2/volumes/{volume_id}/actions',
      tags: ['Block Storage Actions'],
      scopeSets: [['block_storage_action:create']],
      parameters: [{ in: 'path', name: 'volume_id', required: true, schema: { type: 'string' } }],
      request: { $ref: '#/components/schemas/attach' },
      requestRequired: true,
    },
    ...extra,
  },
});

const refusal = (build: () => unknown) => {
  try {
    build();
  } catch (error) {
    return (error as Error).message;
  }
  return 'built';
};

describe('the generator', () => {
  it('builds a hand-made subset with a reviewed table', () => {
    const { model, validation } = buildModel(subsetWith(), small());
    const attach = model.operations.find((op) => op.id === 'volumes_attach');
    expect(attach).toMatchObject({
      method: 'POST',
      body: 'required',
      refs: [
        { in: 'path', at: 'volume_id', kind: 'volume', role: 'target' },
        { in: 'body', at: 'droplet_id', kind: 'droplet', role: 'target' },
      ],
    });
    expect(validation.operations.volumes_attach?.body).toEqual({ $ref: '#/components/schemas/attach' });
    expect(Object.keys(validation.components.schemas)).toEqual(['attach']);
  });

  it('refuses a field that looks like a reference and that no rule covers, naming it', () => {
    const message = refusal(() =>
      buildModel(
        subsetWith({ droplet_id: { type: 'integer' }, backup_policy_uuid: { type: 'string' } }),
        small(),
      ),
    );
    expect(message).toMatch(
      /volumes_attach: body field backup_policy_uuid looks like a reference; give it a rule/,
    );
    // Listed as no reference, it passes.
    expect(
      buildModel(
        subsetWith({ droplet_id: { type: 'integer' }, backup_policy_uuid: { type: 'string' } }),
        small({ NOT_REFERENCES: ['backup_policy_uuid'] }),
      ).model.operations,
    ).toHaveLength(2);
  });

  it('refuses a rule that covers no field (a dead rule)', () => {
    const message = refusal(() => buildModel(subsetWith({ name: { type: 'string' } }), small()));
    expect(message).toMatch(/the rule for droplet_id \(droplet\) covers no field: remove it/);
  });

  it('refuses a rule, an extra reference or a destructive entry naming no operation', () => {
    const rules = small({
      BODY_RULES: [{ ...(small().BODY_RULES[0] as BodyRule), ops: ['volumes_attach', 'volumes_glue'] }],
      EXTRA_REFERENCES: [
        {
          op: 'volumes_detach',
          in: 'query',
          at: 'name',
          kind: 'droplet',
          role: 'target',
          test: { values: [] },
        },
      ],
      DESTRUCTIVE: { droplets_shred: true },
    });
    const message = refusal(() => buildModel(subsetWith(), rules));
    expect(message).toMatch(/the rule for droplet_id names volumes_glue, which is no operation/);
    expect(message).toMatch(/the extra reference name names volumes_detach, which is no operation/);
    expect(message).toMatch(/the destructive table names droplets_shred, which is no operation/);
  });

  it('refuses a kind with no read, a rule of an unknown kind, and an action type that is none', () => {
    const rules = small({
      KINDS: { droplet: { read: '/v2/droplets/{id}' }, volume: { read: '/v2/volumes/{id}' } },
      BODY_RULES: [{ ...(small().BODY_RULES[0] as BodyRule), kind: 'vm' }],
      DESTRUCTIVE: { volumes_attach: ['detach'] },
    });
    const message = refusal(() => buildModel(subsetWith(), rules));
    expect(message).toMatch(/kind volume: no GET \/v2\/volumes\/\{id\}/);
    expect(message).toMatch(/the rule for droplet_id names kind vm, which KINDS lacks/);
    expect(message).toMatch(/volumes_attach: destructive types detach are not among/);
  });

  it('refuses a query parameter of a changing request that the table has not decided', () => {
    const withQuery = subsetWith(undefined, {
      volumes_delete_byName: {
        method: 'DELETE',
        path: '/v2/volumes',
        tags: ['Block Storage'],
        scopeSets: [['block_storage:delete']],
        parameters: [{ in: 'query', name: 'name', schema: { type: 'string' } }],
      },
    });
    expect(refusal(() => buildModel(withQuery, small()))).toMatch(
      /volumes_delete_byName: query parameter name of a changing request; decide it in rules.mjs/,
    );
    expect(refusal(() => buildModel(withQuery, small({ NOT_REFERENCE_QUERIES: ['name'] })))).toBe('built');
  });

  it('builds the real subset with the real table as the committed model has it', () => {
    const { model } = buildModel(JSON.parse(readFileSync(SUBSET_URL, 'utf8')));
    expect(model.operations.length).toBe(operations().length);
  });
});
