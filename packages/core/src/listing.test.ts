import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { boolAsString, intAsString, numericId, text, uuid } from './args.js';
import { listedAnnotations, listingSchema, shapeOf, toolListing } from './listing.js';
import { annotations, defineTool } from './tool.js';

const tool = defineTool({
  name: 'thing-create',
  family: 'networking',
  title: 'Create thing',
  description: 'Create a thing.',
  details: 'Longer notes for people, never listed.',
  input: z.strictObject({
    ID: numericId('Thing id'),
    Owner: uuid('Owner UUID'),
    Name: text('Name', { max: 255 }),
    Count: intAsString('How many'),
    Public: boolAsString('Public?'),
    Port: z.number().int().min(1).max(65535).describe('Port'),
    Size: z.number().int().describe('Any integer'),
    Mode: z.enum(['a', 'b']).default('a').describe('Mode'),
    Rules: z
      .array(
        z.strictObject({
          Protocol: z.enum(['tcp', 'udp']).describe('nested, not listed'),
          Sources: z.array(z.string()).optional(),
        }),
      )
      .describe('Rules'),
    Tags: z.array(z.string().max(255).describe('nested, not listed')).optional().describe('Tags'),
  }),
  annotations: annotations.create,
  request: { method: 'POST', path: '/v2/things' },
});

describe('toolListing', () => {
  it('lists name, description, compact schema and hints; no title, no details', () => {
    const listed = toolListing(tool);
    expect(Object.keys(listed)).toEqual(['name', 'description', 'inputSchema', 'annotations']);
    expect(JSON.stringify(listed)).not.toContain('Longer notes');
    expect(JSON.stringify(listed)).not.toContain('Create thing');
  });

  it('keeps types, enums, defaults and real ranges; drops what only validation needs', () => {
    const schema = listingSchema(tool);
    const properties = schema.properties ?? {};
    expect(properties.ID).toEqual({ type: 'integer', description: 'Thing id' });
    expect(properties.Owner).toEqual({ type: 'string', format: 'uuid', description: 'Owner UUID' });
    expect(properties.Name).toEqual({ type: 'string', description: 'Name' });
    expect(properties.Count).toEqual({ type: ['string', 'integer'], description: 'How many' });
    expect(properties.Public).toEqual({ type: ['string', 'boolean'], description: 'Public?' });
    expect(properties.Port).toEqual({ type: 'integer', minimum: 1, maximum: 65535, description: 'Port' });
    expect(properties.Size).toEqual({ type: 'integer', description: 'Any integer' });
    expect(properties.Mode).toMatchObject({ type: 'string', enum: ['a', 'b'], default: 'a' });
    expect(properties.Tags).toEqual({ type: 'array', items: { type: 'string' }, description: 'Tags' });
    expect(schema.required?.sort()).toEqual([
      'Count',
      'ID',
      'Name',
      'Owner',
      'Port',
      'Public',
      'Rules',
      'Size',
    ]);
    expect(JSON.stringify(schema)).not.toMatch(
      /additionalProperties|pattern|maxLength|minLength|nested, not listed/,
    );
  });

  it('lists objects inside an argument as a one-line shape', () => {
    expect(listingSchema(tool).properties?.Rules).toEqual({
      type: 'array',
      items: { type: 'object' },
      description: 'Rules: [{Protocol:tcp|udp,Sources?:[str]}]',
    });
  });
});

describe('shapeOf', () => {
  it('writes types, optional keys, enums, unions and nesting', () => {
    expect(
      shapeOf({
        type: 'object',
        properties: {
          a: { type: 'integer' },
          b: { type: 'array', items: { type: 'string', enum: ['x', 'y'] } },
          c: { type: 'object', properties: { d: { type: 'boolean' } }, required: ['d'] },
          e: { type: 'string', format: 'uuid' },
          f: { anyOf: [{ type: 'number' }, { type: 'string' }] },
        },
        required: ['a'],
      }),
    ).toBe('{a:int,b?:(x|y)[],c?:{d:bool},e?:uuid,f?:num|str}');
    const wide = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, { type: 'string' }]));
    expect(shapeOf({ type: 'object', properties: wide })).toBe('{…}');
  });
});

describe('listedAnnotations', () => {
  it('says read-only alone, and always says whether any other tool is destructive', () => {
    expect(listedAnnotations(annotations.read)).toEqual({ readOnlyHint: true });
    expect(listedAnnotations(annotations.create)).toEqual({ destructiveHint: false });
    expect(listedAnnotations(annotations.update)).toEqual({ destructiveHint: false, idempotentHint: true });
    expect(listedAnnotations(annotations.destructive)).toEqual({ destructiveHint: true });
    expect(listedAnnotations(annotations.destroy)).toEqual({ destructiveHint: true, idempotentHint: true });
    expect(listedAnnotations({ ...annotations.read, openWorldHint: false })).toEqual({
      readOnlyHint: true,
      openWorldHint: false,
    });
  });
});
