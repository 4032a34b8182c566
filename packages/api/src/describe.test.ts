/**
 * What api-describe shows of an operation: its parameters and body as compact TypeScript-like
 * types, each branch of a discriminated body with the values that select it, within the limit.
 */
import { describe, expect, it } from 'vitest';
import { BODY_TEXT_LIMIT, describeOperation, typeText } from './describe.js';
import { operationById, operations } from './model.js';

const described = (id: string) => {
  const operation = operationById(id);
  if (!operation) throw new Error(`${id} is no operation of the model`);
  return describeOperation(operation);
};

describe('typeText', () => {
  it('writes scalars, enums, lists, maps and nullables', () => {
    expect(typeText({ type: 'string', format: 'uuid', nullable: true }, 2)).toBe('string (uuid) | null');
    expect(typeText({ type: 'integer', format: 'int64' }, 2)).toBe('integer');
    expect(typeText({ enum: ['a', 1] }, 2)).toBe('"a" | 1');
    const many = Array.from({ length: 14 }, (_, index) => `v${index}`);
    expect(typeText({ enum: many }, 2)).toBe(
      `${many
        .slice(0, 12)
        .map((value) => `"${value}"`)
        .join(' | ')} | ...`,
    );
    expect(typeText({ type: 'array', items: { anyOf: [{ type: 'integer' }, { type: 'string' }] } }, 2)).toBe(
      '(integer | string)[]',
    );
    expect(
      typeText({ type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } }, 2),
    ).toBe('{ a?: string }[]');
    expect(typeText({ type: 'object', additionalProperties: { type: 'integer' } }, 2)).toBe(
      '{ [key: string]: integer }',
    );
    expect(typeText({ type: 'object' }, 2)).toBe('object');
    expect(typeText(true, 2)).toBe('any');
    expect(typeText(undefined, 2)).toBe('any');
    expect(typeText({}, 2)).toBe('any');
    expect(typeText(false, 2)).toBe('never');
  });

  it('marks what may be left out, leaves out what only the platform writes, and elides past the depth', () => {
    const schema = {
      type: 'object',
      required: ['a'],
      properties: {
        a: { type: 'string' },
        id: { type: 'integer', readOnly: true },
        inner: { type: 'object', properties: { b: { type: 'string' } } },
      },
    };
    expect(typeText(schema, 2)).toBe('{ a: string; inner?: { b?: string } }');
    expect(typeText(schema, 1)).toBe('{ a: string; inner?: {...} }');
  });

  it('merges allOf parts with the fields and required names beside them, skipping empty parts', () => {
    const schema = {
      allOf: [
        { properties: { a: { type: 'string' } } },
        {},
        { allOf: [{ properties: { b: { type: 'integer' } } }] },
      ],
      required: ['a'],
      properties: { c: { type: 'boolean' } },
    };
    expect(typeText(schema, 2)).toBe('{ c?: boolean; a: string; b?: integer }');
    expect(typeText({ allOf: [{ type: 'string' }] }, 2)).toBe('string');
    expect(typeText({ allOf: [{ properties: { a: { type: 'string' } } }], nullable: true }, 2)).toBe(
      '{ a?: string } | null',
    );
  });

  it('writes each branch of a discriminated union with the values that select it', () => {
    const text = typeText({ $ref: '#/components/schemas/volume_action_post_attach' }, 2);
    expect(text).toMatch(/droplet_id: integer/);
    const body = described('dropletActions_post').body ?? '';
    expect(body).toContain('{ type: "resize"; disk?: boolean; size?: string }');
    expect(body).toContain('{ type: "snapshot"; name?: string }');
    expect(body).toMatch(/\{ type: "change_backup_policy"; backup_policy: \{ hour\?: 0 \| 4/);
    expect(body).toMatch(/\{ type: "disable_backups" \| "enable_ipv6" \| [^}]*"power_off"/);
    expect(body).not.toContain('...');
    expect(described('dropletActions_post_byTag').body).toBe(
      '{ type: "disable_backups" | "enable_backups" | "enable_ipv6" | "power_cycle" | "power_off" | "power_on" | "shutdown" } | { type: "snapshot"; name?: string }',
    );
  });
});

describe('describeOperation', () => {
  it('gives every operation that takes a body its type, within the limit', () => {
    for (const operation of operations()) {
      const description = describeOperation(operation);
      expect(description.operationId).toBe(operation.id);
      if (!operation.body) {
        expect(description.body, operation.id).toBeUndefined();
        continue;
      }
      expect(description.body?.length, operation.id).toBeLessThanOrEqual(BODY_TEXT_LIMIT);
      expect(description.body_required).toBe(operation.body === 'required');
      expect(description.body, operation.id).not.toMatch(/undefined/);
    }
  });

  it('names the parameters, what the request names and whether it destroys', () => {
    expect(described('droplets_destroy_byTag')).toMatchObject({
      method: 'DELETE',
      destructive: true,
      query: { tag_name: 'string' },
      names: ['query tag_name: tag (changed, each member)'],
    });
    expect(described('projects_assign_resources').names).toEqual([
      'path project_id: project (changed)',
      'body resources: droplet by urn (changed)',
    ]);
    expect(described('databases_update_autoscale').body).toBe(
      '{ storage?: { enabled: boolean; increment_gib?: integer; threshold_percent?: integer } }',
    );
    expect(described('account_get')).toEqual({
      operationId: 'account_get',
      method: 'GET',
      path: '/v2/account',
      tags: ['Account'],
      scopes: [['account:read']],
      destructive: false,
    });
  });
});
