import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { boolAsString, commaList, intAsString, pageArgs } from './args.js';
import { InputError } from './errors.js';
import { annotations, buildRequest, camelName, defineTool, inputJsonSchema, parseArgs } from './tool.js';

const keyCreate = defineTool({
  name: 'key-create',
  family: 'account',
  title: 'Create SSH key',
  description: 'Adds an SSH public key to the account.',
  input: z.strictObject({
    Name: z.string().min(1).describe('A name for the key.'),
    PublicKey: z.string().describe('The public key.'),
    Tags: z.array(z.string()).optional().describe('Tags.'),
  }),
  annotations: annotations.create,
  request: {
    method: 'POST',
    path: '/v2/account/keys',
    body: { name: 'Name', public_key: 'PublicKey', tags: 'Tags' },
  },
});

const listTopics = defineTool({
  name: 'db-cluster-list-topics',
  family: 'databases',
  title: 'List topics',
  description: 'Lists Kafka topics.',
  input: z.strictObject({
    id: z.string(),
    page: intAsString('Page').optional(),
    with_projects: boolAsString('Include project fields').optional(),
    usecases: commaList('Use cases').optional(),
  }),
  annotations: annotations.read,
  request: {
    method: 'GET',
    path: '/v2/databases/{id}/topics',
    query: { page: 'page', with_projects: 'with_projects' },
  },
});

function inputError(fn: () => unknown): InputError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('expected an InputError');
}

describe('parseArgs', () => {
  it('names a missing required argument', () => {
    const error = inputError(() => parseArgs(keyCreate, { Name: 'laptop' }));
    expect(error.argument).toBe('PublicKey');
    expect(error.message).toBe('argument PublicKey: is required');
  });

  it('names an argument of the wrong type with what was expected', () => {
    const error = inputError(() => parseArgs(keyCreate, { Name: 5, PublicKey: 'x' }));
    expect(error.argument).toBe('Name');
    expect(error.message).toMatch(/expected string, received number/);
  });

  it('rejects unknown arguments, which catches wrong case', () => {
    const error = inputError(() => parseArgs(keyCreate, { name: 'a', Name: 'a', PublicKey: 'b' }));
    expect(error.argument).toBe('name');
    expect(error.message).toMatch(/case-sensitive/);
  });

  it('reads "integer as string" and "bool as string" from text or JSON values', () => {
    expect(parseArgs(listTopics, { id: 'u', page: '2', with_projects: 'true' })).toMatchObject({
      page: 2,
      with_projects: true,
    });
    expect(parseArgs(listTopics, { id: 'u', page: 3, with_projects: false })).toMatchObject({
      page: 3,
      with_projects: false,
    });
    expect(inputError(() => parseArgs(listTopics, { id: 'u', page: 'two' })).argument).toBe('page');
    expect(inputError(() => parseArgs(listTopics, { id: 'u', with_projects: 'yes' })).argument).toBe(
      'with_projects',
    );
  });

  it('splits comma-separated lists', () => {
    expect(parseArgs(listTopics, { id: 'u', usecases: 'a, b,,c ' }).usecases).toEqual(['a', 'b', 'c']);
  });

  it('fills page defaults', () => {
    const list = z.strictObject(pageArgs(30));
    expect(list.parse({})).toEqual({ Page: 1, PerPage: 30 });
  });
});

describe('buildRequest', () => {
  it('leaves unset optional arguments out of the body', () => {
    const request = buildRequest(keyCreate.request!, parseArgs(keyCreate, { Name: 'a', PublicKey: 'b' }));
    expect(request.body).toEqual({ name: 'a', public_key: 'b' });
    expect(JSON.stringify(request.body)).not.toContain('null');
  });

  it('fills path placeholders, encoded, and maps query fields', () => {
    const request = buildRequest(listTopics.request!, parseArgs(listTopics, { id: 'a/b', page: '2' }));
    expect(request.path).toBe('/v2/databases/a%2Fb/topics');
    expect(request.query).toEqual({ page: 2 });
    expect(request.body).toBeUndefined();
  });

  it('adds fixed body fields', () => {
    const request = buildRequest(
      { method: 'POST', path: '/x', body: { name: 'Name' }, fixed: { type: 'rename' } },
      { Name: 'n' },
    );
    expect(request.body).toEqual({ name: 'n', type: 'rename' });
  });
});

describe('defineTool', () => {
  it('refuses a path placeholder that is not an argument', () => {
    expect(() =>
      defineTool({
        name: 'x',
        family: 'account',
        title: 'x',
        description: 'x',
        input: z.strictObject({ ID: z.number() }),
        annotations: annotations.read,
        request: { method: 'GET', path: '/v2/x/{Id}' },
      }),
    ).toThrow(/Id/);
  });
});

describe('inputJsonSchema', () => {
  it('describes "integer as string" as string or integer, and keeps defaults and required', () => {
    const schema = inputJsonSchema(listTopics) as {
      properties: Record<string, { anyOf?: { type: string }[] }>;
    };
    expect(schema.properties.page?.anyOf?.map((s) => s.type)).toEqual(['string', 'integer']);
    const pages = inputJsonSchema(
      defineTool({
        name: 'key-list',
        family: 'account',
        title: 'List',
        description: 'Lists.',
        input: z.strictObject(pageArgs(30)),
        annotations: annotations.read,
        request: { method: 'GET', path: '/v2/account/keys', query: { page: 'Page', per_page: 'PerPage' } },
      }),
    ) as { properties: Record<string, { default?: number; type?: string }>; required?: string[] };
    expect(pages.properties.PerPage).toMatchObject({ type: 'integer', default: 30 });
    expect(pages.required ?? []).toEqual([]);
  });

  it('camel-cases tool names for the library API', () => {
    expect(camelName('db-cluster-get-ca')).toBe('dbClusterGetCa');
  });
});

describe('secrets in input errors', () => {
  it('never echoes the value of a secret-looking argument', () => {
    const tool = defineTool({
      name: 'custom-certificate-create',
      family: 'networking',
      title: 'x',
      description: 'x',
      input: z.strictObject({ PrivateKey: z.string().startsWith('-----BEGIN') }),
      annotations: annotations.create,
      request: { method: 'POST', path: '/v2/certificates', body: { private_key: 'PrivateKey' } },
    });
    const error = inputError(() => parseArgs(tool, { PrivateKey: 'MIIEsecretmaterial' }));
    expect(error.argument).toBe('PrivateKey');
    expect(error.message).not.toContain('MIIEsecretmaterial');
  });
});
