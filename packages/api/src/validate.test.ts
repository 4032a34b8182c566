/**
 * A request checked against its operation before anything is sent: path parameters by their
 * schemas (as text), only the query parameters the operation takes, the required ones present,
 * and the body present, absent or valid as the operation says, a discriminator picking the branch.
 */
import { describe, expect, it, vi } from 'vitest';
import { operationById, operations } from './model.js';
import type { OperationData } from './model-data.js';
import { schemaValidator, withDiscriminators } from './openapi.js';
import { type RequestParts, requestIssues } from './validate.js';
import { validationData } from './validation.js';

const VALIDATION = validationData();

const operation = (id: string): OperationData => {
  const found = operationById(id);
  if (!found) throw new Error(`${id} is no operation of the model`);
  return found;
};
const issues = (id: string, request: RequestParts) => requestIssues(operation(id), request);
const VOLUME = '5a4981aa-9653-4bd1-bef5-d6bff52042e4';

/** Whether a schema only takes objects: typed so, or with fields, or each branch of it so. */
function describesObject(schema: unknown): boolean {
  let node = schema as Record<string, unknown> | undefined;
  while (node && typeof node.$ref === 'string')
    node = VALIDATION.components.schemas[node.$ref.split('/').pop() as string] as typeof node;
  if (!node || typeof node !== 'object') return false;
  if (node.type !== undefined) return node.type === 'object';
  if (node.properties || node.required) return true;
  const branches = (node.allOf ?? node.oneOf ?? node.anyOf) as unknown[] | undefined;
  return (
    Array.isArray(branches) && (node.allOf ? branches.some(describesObject) : branches.every(describesObject))
  );
}

describe('path parameters', () => {
  it('are read as the type their schema gives', () => {
    expect(issues('droplets_get', { params: { droplet_id: '7' } })).toEqual([]);
    expect(issues('droplets_get', { params: { droplet_id: 'abc' } })).toEqual([
      { argument: 'Path', message: '{droplet_id} must be integer; got "abc"' },
    ]);
    expect(issues('droplets_get', { params: { droplet_id: '0' } })).toEqual([
      { argument: 'Path', message: '{droplet_id} must be >= 1; got "0"' },
    ]);
    expect(issues('volumes_get', { params: { volume_id: VOLUME } })).toEqual([]);
    expect(issues('volumes_get', { params: { volume_id: 'data' } })[0]?.message).toMatch(
      /^\{volume_id\} must match format "uuid"; got "data"$/,
    );
  });

  it('are needed, each of them', () => {
    expect(issues('droplets_get', {})).toEqual([{ argument: 'Path', message: 'needs {droplet_id}' }]);
    expect(issues('droplets_get', { params: { droplet_id: '' } })).toEqual([
      { argument: 'Path', message: 'needs {droplet_id}' },
    ]);
    expect(issues('domains_get_record', { params: { domain_name: 'example.com' } })).toEqual([
      { argument: 'Path', message: 'needs {domain_record_id}' },
    ]);
  });
});

describe('query parameters', () => {
  it('refuses one the operation does not take, naming those it does', () => {
    expect(issues('droplets_list', { query: { bogus: 1 } })).toEqual([
      {
        argument: 'Query.bogus',
        message: 'is not a parameter of droplets_list (it takes per_page, page, tag_name, name, type)',
      },
    ]);
    expect(issues('account_get', { query: { page: 1 } })).toEqual([
      { argument: 'Query.page', message: 'is not a parameter of account_get (it takes none)' },
    ]);
    // An undefined value is no parameter at all.
    expect(issues('account_get', { query: { page: undefined } })).toEqual([]);
  });

  it('checks each by its schema, as text or as given', () => {
    expect(issues('droplets_list', { query: { per_page: '5', page: 2, tag_name: 'web' } })).toEqual([]);
    expect(issues('droplets_list', { query: { per_page: 'x' } })).toEqual([
      { argument: 'Query.per_page', message: 'must be integer; got "x"' },
    ]);
    expect(issues('droplets_list', { query: { per_page: 500 } })).toEqual([
      { argument: 'Query.per_page', message: 'must be <= 200; got 500' },
    ]);
  });

  it('needs a required one', () => {
    expect(issues('droplets_destroy_byTag', {})).toEqual([
      { argument: 'Query.tag_name', message: 'is required' },
    ]);
    expect(issues('droplets_destroy_byTag', { query: { tag_name: 'web' } })).toEqual([]);
  });
});

describe('the body', () => {
  it('is needed when the operation requires one, and refused when it takes none', () => {
    expect(issues('tags_create', {})).toEqual([{ argument: 'Body', message: 'tags_create needs a body' }]);
    expect(issues('tags_create', { body: { name: 'web' } })).toEqual([]);
    expect(issues('tags_list', { body: {} })).toEqual([
      { argument: 'Body', message: 'tags_list takes no body' },
    ]);
    // Optional: absent is fine, and so is one that fits.
    const optional = operation('droplets_destroy_withAssociatedResourcesSelective');
    expect(optional.body).toBe('optional');
    expect(requestIssues(optional, { params: { droplet_id: '7' } })).toEqual([]);
    expect(requestIssues(optional, { params: { droplet_id: '7' }, body: { volumes: ['v-1'] } })).toEqual([]);
  });

  it('names the field that breaks the schema (Body.x), and the whole body when it is the wrong type', () => {
    expect(issues('tags_create', { body: { name: 5 } })).toEqual([
      { argument: 'Body.name', message: 'must be string' },
    ]);
    expect(issues('tags_create', { body: [] })).toEqual([
      {
        argument: 'Body',
        message: 'must be an object of fields (api-describe tags_create shows them); got []',
      },
    ]);
    const nested = issues('firewalls_add_rules', {
      params: { firewall_id: VOLUME },
      body: { inbound_rules: [{ protocol: 'tcp', ports: '22', sources: { droplet_ids: ['x'] } }] },
    });
    expect(nested).toEqual([
      { argument: 'Body.inbound_rules.0.sources.droplet_ids.0', message: 'must be integer' },
    ]);
    expect(issues('tags_create', {})[0]?.argument).toBe('Body');
  });

  it('is an object of fields, also where the schema says so only by its properties', () => {
    // These schemas have `properties` and `required` but no `type`: JSON Schema lets a list or a
    // scalar through them. A list of VMs to add to a load balancer is still no body of it.
    const add = (body: unknown) => issues('loadBalancers_add_droplets', { params: { lb_id: 'lb-1' }, body });
    expect(add({ droplet_ids: [7] })).toEqual([]);
    for (const body of [[7], 'text', 7, true, null])
      expect(
        add(body).map((issue) => issue.argument),
        JSON.stringify(body),
      ).toEqual(['Body']);
    // Every operation's body is an object of fields: the rule above refuses nothing the API takes.
    for (const op of operations().filter((each) => each.body)) {
      expect(describesObject(VALIDATION.operations[op.id]?.body), op.id).toBe(true);
    }
  });

  it('names a missing required field', () => {
    expect(issues('sshKeys_create', { body: { name: 'laptop' } })).toEqual([
      { argument: 'Body', message: "must have required property 'public_key'" },
    ]);
  });

  it('checks the branch a discriminator selects (a volume attach needs droplet_id)', () => {
    const action = (body: unknown) =>
      issues('volumeActions_post_byId', { params: { volume_id: VOLUME }, body });
    expect(action({ type: 'attach' })).toEqual([
      { argument: 'Body', message: "must have required property 'droplet_id'" },
    ]);
    expect(action({ type: 'attach', droplet_id: 'x' })).toEqual([
      { argument: 'Body.droplet_id', message: 'must be integer' },
    ]);
    expect(action({ type: 'attach', droplet_id: 7 })).toEqual([]);
    // Each type its own branch: a resize needs its size, not a VM.
    expect(action({ type: 'resize' })).toEqual([
      { argument: 'Body', message: "must have required property 'size_gigabytes'" },
    ]);
    expect(action({ type: 'resize', size_gigabytes: 100 })).toEqual([]);
    expect(action({ type: 'explode' })).toEqual(
      expect.arrayContaining([
        {
          argument: 'Body.type',
          message: 'must be equal to one of the allowed values: "attach", "detach", "resize"',
        },
      ]),
    );
  });

  it('selects the by-tag VM action branch that a plain oneOf could not (snapshot extends the base)', () => {
    const byTag = (body: unknown) =>
      issues('dropletActions_post_byTag', { query: { tag_name: 'web' }, body });
    expect(byTag({ type: 'snapshot', name: 'nightly' })).toEqual([]);
    expect(byTag({ type: 'power_off' })).toEqual([]);
    expect(byTag({ type: 'snapshot', name: 5 })).toEqual([
      { argument: 'Body.name', message: 'must be string' },
    ]);
  });

  it("takes the action types a discriminator maps, also those its base schema's enum forgets", () => {
    // change_backup_policy is mapped to its schema, but missing from the VM action base's `type` enum.
    const action = (body: unknown) => issues('dropletActions_post', { params: { droplet_id: '7' }, body });
    expect(
      action({ type: 'change_backup_policy', backup_policy: { plan: 'weekly', weekday: 'SUN', hour: 4 } }),
    ).toEqual([]);
    expect(action({ type: 'change_backup_policy' })).toEqual([
      { argument: 'Body', message: "must have required property 'backup_policy'" },
    ]);
    // Not on every VM of a tag: the by-tag mapping has no such action.
    expect(
      issues('dropletActions_post_byTag', {
        query: { tag_name: 'web' },
        body: { type: 'change_backup_policy', backup_policy: { plan: 'weekly' } },
      }),
    ).not.toEqual([]);
  });

  it('reads a field name with a slash or tilde back from its JSON pointer', () => {
    // A map's keys become pointer tokens (~1 for /, ~0 for ~); the issue names the key as written.
    const found = issues('security_update_settings_plan', {
      body: { tier_coverage: { 'a/b~c': { tags: 5 } } },
    });
    expect(found.map((issue) => issue.argument)).toContain('Body.tier_coverage.a/b~c.tags');
  });
});

describe('schemaValidator', () => {
  const document = {
    components: {
      schemas: {
        base: { type: 'object', properties: { kind: { type: 'string', enum: ['a'] } }, required: ['kind'] },
        b: {
          allOf: [
            { $ref: '#/components/schemas/base' },
            { required: ['count'], properties: { count: { type: 'integer', format: 'uint32' } } },
          ],
        },
      },
    },
    operations: {
      pick: {
        oneOf: [{ $ref: '#/components/schemas/base' }, { $ref: '#/components/schemas/b' }],
        discriminator: {
          propertyName: 'kind',
          mapping: { a: '#/components/schemas/base', b: '#/components/schemas/b' },
        },
      },
      id: { type: 'string', format: 'string' },
      range: { type: 'string', format: 'cidr' },
      big: { type: 'integer', format: 'uint64' },
    },
  };

  it("selects by discriminator, admits mapped values, and knows the description's formats without a warning", () => {
    const warn = vi.spyOn(console, 'warn');
    try {
      const validator = schemaValidator(document);
      expect(validator.validate('/operations/pick', { kind: 'a' })).toEqual({ valid: true, errors: [] });
      // `b` is mapped, though base's enum lacks it: it selects b, which needs its count.
      expect(validator.validate('/operations/pick', { kind: 'b' }).errors).toEqual([
        "/ must have required property 'count'",
      ]);
      expect(validator.validate('/operations/pick', { kind: 'b', count: 3 }).valid).toBe(true);
      expect(validator.validate('/operations/pick', { kind: 'b', count: -1 }).errors).toEqual([
        '/count must match format "uint32"',
      ]);
      expect(validator.validate('/operations/pick', { kind: 'c' }).valid).toBe(false);
      expect(validator.validate('/operations/id', 'anything').valid).toBe(true);
      expect(validator.validate('/operations/range', '10.0.0.0/16').valid).toBe(true);
      expect(validator.validate('/operations/big', 2 ** 40).valid).toBe(true);
      expect(validator.validate('/operations/big', 1.5).valid).toBe(false);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
    // The document given is left as it was: the validator rewrites a copy.
    expect(document.components.schemas.base.properties.kind.enum).toEqual(['a']);
  });

  it('rewrites a discriminated oneOf into a chain of if/then/else, once', () => {
    const rewritten = withDiscriminators(structuredClone(document));
    const pick = rewritten.operations.pick as Record<string, unknown>;
    expect(pick.oneOf).toBeUndefined();
    expect(pick.if).toEqual({ properties: { kind: { enum: ['a'] } }, required: ['kind'] });
    expect(withDiscriminators(structuredClone(rewritten))).toEqual(rewritten);
    expect(rewritten.components.schemas.base.properties.kind.enum).toEqual(['a', 'b']);
  });
});
