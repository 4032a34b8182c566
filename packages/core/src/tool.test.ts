import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { boolAsString, commaList, intAsString, pageArgs } from './args.js';
import { InputError } from './errors.js';
import {
  annotations,
  buildRequest,
  camelName,
  defineTool,
  fillPath,
  inputJsonSchema,
  MAX_DEPTH,
  parseArgs,
} from './tool.js';

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
    const request = buildRequest(listTopics.request!, parseArgs(listTopics, { id: 'a b?#', page: '2' }));
    expect(request.path).toBe('/v2/databases/a%20b%3F%23/topics');
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

describe('path safety', () => {
  // Each of these, sent as a segment, would name another resource once the path is normalised
  // (or decoded again by a server): `users/..` is the cluster itself.
  const hostile: [string, RegExp][] = [
    ['', /is required/],
    ['.', /cannot be "\."/],
    ['..', /cannot be "\.\."/],
    ['%2e%2e', /cannot be "%2e%2e"/],
    ['%2E.', /cannot be/],
    ['%252e%252e', /cannot be/],
    ['a/b', /cannot contain "\/"/],
    ['../droplets', /cannot contain "\/"/],
    ['..%2Fdroplets', /cannot contain "\/"/],
    ['a\\b', /cannot contain/],
    ['x\u0000y', /control character/],
    ['x\ny', /control character/],
    ['\u007f', /control character/],
    ['x\ud800', /lone surrogate/],
  ];
  it.each(hostile)('refuses %j as a path segment, naming the argument', (value, message) => {
    const error = inputError(() => fillPath('/v2/databases/{id}/users/{user}', { id: 'c', user: value }));
    expect(error.argument).toBe('user');
    expect(error.message).toMatch(message);
  });

  it('sends a slashed argument (a repository team/api) as one segment, each part checked', () => {
    const path = '/v2/registries/r/repositories/{repo}/tags';
    expect(fillPath(path, { repo: 'team/api' }, ['repo'])).toBe(
      '/v2/registries/r/repositories/team%2Fapi/tags',
    );
    expect(inputError(() => fillPath(path, { repo: 'team/api' })).message).toMatch(/cannot contain "\/"/);
    for (const [value, message] of [
      ['team//api', /empty part/],
      ['/api', /empty part/],
      ['team/', /empty part/],
      ['team/..', /cannot be "\.\."/],
      ['team/%2e%2e', /cannot be "%2e%2e"/],
      ['team%2F..', /cannot contain "\/"/],
      ['team/a\\b', /cannot contain/],
      ['team/a\nb', /control character/],
      ['', /is required/],
    ] as const) {
      const error = inputError(() => fillPath(path, { repo: value }, ['repo']));
      expect(error.argument, value).toBe('repo');
      expect(error.message, value).toMatch(message);
    }
  });

  it('encodes every other value as exactly one segment', () => {
    expect(fillPath('/v2/x/{a}/{b}', { a: 'é ?#&', b: 7 })).toBe('/v2/x/%C3%A9%20%3F%23%26/7');
    expect(fillPath('/v2/x/{a}', { a: '...' })).toBe('/v2/x/...');
  });

  it('leaves ":" and "@" as they are (legal in a segment), so an IPv6 address is sent unencoded', () => {
    expect(fillPath('/v2/reserved_ipv6/{ip}', { ip: '2409:40d0::1' })).toBe('/v2/reserved_ipv6/2409:40d0::1');
    expect(fillPath('/v2/x/{a}', { a: 'u@h:1;=+&,$' })).toBe('/v2/x/u@h:1%3B%3D%2B%26%2C%24');
    // Still refused when a ":" hides a dot segment or a slash.
    expect(inputError(() => fillPath('/v2/x/{a}', { a: '%2E%2e' })).argument).toBe('a');
    expect(inputError(() => fillPath('/v2/x/{a}', { a: ':/..' })).argument).toBe('a');
  });
});

describe('argument depth', () => {
  it('refuses a value nested deeper than the limit, naming the argument, without overflowing', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const error = inputError(() => parseArgs(keyCreate, { Name: 'n', PublicKey: 'k', Tags: deep }));
    expect(error.argument).toBe('Tags');
    expect(error.message).toBe(`argument Tags: is nested more than ${MAX_DEPTH} levels deep`);
  });

  it('accepts values up to the limit', () => {
    let nested: unknown = 'x';
    for (let i = 1; i < MAX_DEPTH; i++) nested = { a: nested };
    const schema = defineTool({
      name: 'x-update',
      family: 'account',
      title: 'Update x',
      description: 'Updates x.',
      annotations: annotations.update,
      input: z.strictObject({ config: z.unknown() }),
      request: { method: 'PATCH', path: '/v2/x', body: { config: 'config' } },
    });
    expect(() => parseArgs(schema, { config: nested })).not.toThrow();
  });

  it('names the arguments object when it is not an object', () => {
    const error = inputError(() => parseArgs(keyCreate, 'Name=x'));
    expect(error.argument).toBe('arguments');
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

  it('refuses a read-only form that is named otherwise or changes resources', () => {
    const renamed = defineTool({ ...listTopics, name: 'db-cluster-list-topics-read' });
    const changing = defineTool({ ...keyCreate, name: listTopics.name });
    for (const readOnlyForm of [renamed, changing]) {
      expect(() => defineTool({ ...listTopics, annotations: annotations.update, readOnlyForm })).toThrow(
        'tool db-cluster-list-topics: its read-only form must have its name and only read',
      );
    }
    expect(
      defineTool({ ...listTopics, annotations: annotations.update, readOnlyForm: listTopics }).readOnlyForm,
    ).toBe(listTopics);
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
