import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  buildSubset,
  decideSecrets,
  readOperationIds,
  SECRET_FIELDS_PATH,
  SUBSET_PATH,
  secretFieldsSource,
  secretKind,
  staleness,
} from '../generate.mjs';

const STRIPPED = ['description', 'summary', 'example', 'examples', 'title', 'externalDocs'];
const OPERATION_KEYS = new Set([
  'method',
  'path',
  'tags',
  'host',
  'scopes',
  'scopeSets',
  'parameters',
  'request',
  'requestRequired',
  'requestContentTypes',
  'responses',
  'responseContentTypes',
  'responseHeaders',
]);

/** Lists the annotation keywords left in a schema, walking it as a schema (property names are not keywords). */
function leftoverKeywords(schema, at, found = []) {
  if (schema === null || typeof schema !== 'object') return found;
  for (const [key, value] of Object.entries(schema)) {
    if (STRIPPED.includes(key) || key.startsWith('x-')) found.push(`${at}/${key}`);
    if (key === 'properties' || key === 'patternProperties') {
      for (const [name, sub] of Object.entries(value)) leftoverKeywords(sub, `${at}/${key}/${name}`, found);
    } else if (key === 'allOf' || key === 'anyOf' || key === 'oneOf') {
      for (const [i, sub] of value.entries()) leftoverKeywords(sub, `${at}/${key}/${i}`, found);
    } else if (key === 'items' || key === 'additionalProperties' || key === 'not') {
      leftoverKeywords(value, `${at}/${key}`, found);
    }
  }
  return found;
}

describe('subset.json', () => {
  const committed = readFileSync(SUBSET_PATH, 'utf8');
  const subset = JSON.parse(committed);

  it('holds every operation of the description, each with its tags, and the host of those served elsewhere', () => {
    expect(Object.keys(subset.operations)).toHaveLength(659);
    for (const [id, op] of Object.entries(subset.operations)) expect(op.tags.length, id).toBeGreaterThan(0);
    expect(subset.operations.kubernetes_create_cluster.tags).toEqual(['Kubernetes']);
    expect(subset.operations.droplets_create.host).toBeUndefined();
    expect(subset.operations.inference_create_chat_completion.host).toBe('https://inference.do-ai.run');
  });

  it('keeps no description, summary, example, title, externalDocs or x-* keyword anywhere', () => {
    const found = [];
    for (const [name, schema] of Object.entries(subset.components.schemas)) {
      leftoverKeywords(schema, `#/components/schemas/${name}`, found);
    }
    for (const [id, op] of Object.entries(subset.operations)) {
      for (const key of Object.keys(op)) expect(OPERATION_KEYS.has(key), `${id}.${key}`).toBe(true);
      if (op.request) leftoverKeywords(op.request, `${id}/request`, found);
      for (const [status, schema] of Object.entries(op.responses))
        leftoverKeywords(schema, `${id}/${status}`, found);
      for (const param of op.parameters ?? []) leftoverKeywords(param.schema, `${id}/${param.name}`, found);
    }
    expect(found).toEqual([]);
    expect(Object.keys(subset).sort()).toEqual(['components', 'info', 'openapi', 'operations', 'secrets']);
    expect(Object.keys(subset.components)).toEqual(['schemas']);
  });

  it('keeps properties that are named like annotation keywords', () => {
    // The size object has a `description` field, and so has the VPC body.
    expect(subset.components.schemas.size.properties.description).toEqual({ type: 'string' });
    expect(subset.components.schemas.size.required).toContain('description');
    expect(subset.components.schemas.vpc_updatable.properties.description).toMatchObject({ type: 'string' });
  });

  it('holds exactly the schemas reachable from the operations, and every $ref resolves', () => {
    const reached = new Set();
    const visit = (node) => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') {
          expect(value).toMatch(/^#\/components\/schemas\/[^/]+$/);
          const name = value.slice('#/components/schemas/'.length);
          expect(subset.components.schemas[name], value).toBeDefined();
          if (!reached.has(name)) {
            reached.add(name);
            visit(subset.components.schemas[name]);
          }
        } else if (key === 'mapping') {
          for (const ref of Object.values(value)) visit({ $ref: ref });
        } else visit(value);
      }
    };
    visit(subset.operations);
    expect([...reached].sort()).toEqual(Object.keys(subset.components.schemas).sort());
  });

  it('records scopes and response headers', () => {
    expect(subset.operations.sizes_list.scopes).toEqual(['sizes:read', 'regions:read']);
    expect(subset.operations.domains_create_record.scopeSets).toEqual([['domain:create'], ['domain:update']]);
    expect(subset.operations.sshKeys_list.responseHeaders['200']).toEqual([
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
    ]);
    expect(subset.operations.sshKeys_delete.responses['204']).toBeNull();
  });
});

describe('generator', () => {
  const spec = {
    openapi: '3.0.0',
    info: { title: 'Some API', version: '1.0', description: 'prose' },
    security: [{ bearer_auth: [] }],
    paths: {
      '/v2/things/{id}': {
        parameters: [{ $ref: '#/components/parameters/id' }],
        get: {
          operationId: 'things_get',
          summary: 'prose',
          'x-codeSamples': [],
          security: [{ bearer_auth: ['thing:read'] }],
          responses: {
            200: { $ref: '#/components/responses/thing' },
            204: { description: 'prose' },
          },
        },
        post: { operationId: 'things_unused', responses: {} },
      },
    },
    components: {
      parameters: {
        id: { in: 'path', name: 'id', required: true, description: 'prose', schema: { type: 'integer' } },
      },
      responses: {
        thing: {
          description: 'prose',
          headers: { 'ratelimit-limit': { schema: { type: 'integer' } } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/thing' }, example: {} } },
        },
      },
      schemas: {
        thing: {
          type: 'object',
          title: 'prose',
          description: 'prose',
          example: { description: 'x' },
          'x-order': 1,
          required: ['description'],
          properties: {
            description: { type: 'string', description: 'prose', example: 'x' },
            example: { $ref: '#/components/schemas/part' },
            title: { type: 'array', items: { type: 'string', title: 'prose' } },
          },
        },
        part: { type: 'integer', externalDocs: { url: 'https://example.com' }, nullable: true },
        unused: { type: 'string' },
      },
    },
  };

  it('strips annotation keywords but keeps fields of the same name, and keeps only reachable schemas', () => {
    const subset = buildSubset(spec, ['things_get']);
    expect(subset).toEqual({
      openapi: '3.0.0',
      info: { version: '1.0' },
      operations: {
        things_get: {
          method: 'GET',
          path: '/v2/things/{id}',
          tags: [],
          scopes: ['thing:read'],
          scopeSets: [['thing:read']],
          parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'integer' } }],
          responses: { 200: { $ref: '#/components/schemas/thing' }, 204: null },
          responseHeaders: { 200: ['ratelimit-limit'] },
        },
      },
      components: {
        schemas: {
          part: { nullable: true, type: 'integer' },
          thing: {
            properties: {
              description: { type: 'string' },
              example: { $ref: '#/components/schemas/part' },
              title: { items: { type: 'string' }, type: 'array' },
            },
            required: ['description'],
            type: 'object',
          },
        },
      },
      secrets: {},
    });
  });

  it('marks secret fields by the description: format password, a private key example, prose; never an enum or a name', () => {
    expect(secretKind('password', { type: 'string', format: 'password' })).toBe('secret');
    expect(secretKind('access_key', { type: 'string', example: '-----BEGIN PRIVATE KEY-----\nMIIE' })).toBe(
      'secret',
    );
    expect(secretKind('secret', { type: 'string', description: 'The secret key used to sign.' })).toBe(
      'secret',
    );
    expect(secretKind('uri', { type: 'string', example: 'postgres://doadmin:pw@host:25060/db' })).toBe('uri');
    expect(
      secretKind('name', { type: 'string', description: 'The name of the access key.' }),
    ).toBeUndefined();
    expect(secretKind('auth_plugin', { type: 'string', enum: ['mysql_native_password'] })).toBeUndefined();
    expect(secretKind('ip_address', { type: 'string', writeOnly: true })).toBeUndefined();
    expect(secretKind('size', { type: 'integer', description: 'Password length' })).toBeUndefined();
  });

  it('the committed subset marks passwords, private keys, tokens, API keys and connection URIs, as core lists them', () => {
    const subset = JSON.parse(readFileSync(SUBSET_PATH, 'utf8'));
    expect(subset.secrets).toMatchObject({
      access_key: { kind: 'secret', unless: ['grants'] },
      api_key: { kind: 'secret' },
      client_key_data: { kind: 'secret' },
      key: { kind: 'secret', unless: ['value'] },
      password: { kind: 'secret' },
      private_key: { kind: 'secret' },
      secret_key: { kind: 'secret' },
      token: { kind: 'secret', unless: ['logprob'] },
      uri: { kind: 'uri' },
    });
    expect(subset.secrets.logline).toBeUndefined();
    expect(readFileSync(SECRET_FIELDS_PATH, 'utf8')).toBe(secretFieldsSource(subset));
    expect(staleness(JSON.stringify(subset), JSON.stringify(subset), '', 'stale')).toEqual([
      'packages/core/src/secret-fields.generated.ts differs from a fresh generation: run generate.mjs',
    ]);
  });

  it('refuses a field secret in one place and not another until it is reviewed', () => {
    const places = new Map([
      [
        'key',
        [
          { kind: 'secret', siblings: ['cert'] },
          { kind: undefined, siblings: ['value'] },
        ],
      ],
      [
        'url',
        [
          { kind: 'uri', siblings: [] },
          { kind: undefined, siblings: [] },
        ],
      ],
      ['name', [{ kind: undefined, siblings: [] }]],
    ]);
    expect(() => decideSecrets(places, {})).toThrow(
      'secret in some places of the description and not in others: key; decide them in SECRET_REVIEW',
    );
    expect(decideSecrets(places, { key: { kind: 'secret', unless: ['value'] } })).toEqual({
      key: { kind: 'secret', unless: ['value'] },
      url: { kind: 'uri' },
    });
    expect(decideSecrets(places, { key: null })).toEqual({ url: { kind: 'uri' } });
  });

  it('fails loudly on a missing operationId or an unknown schema keyword', () => {
    expect(() => buildSubset(spec, ['things_get', 'nope_list'])).toThrow(/nope_list/);
    const odd = structuredClone(spec);
    odd.components.schemas.part.const = 3;
    expect(() => buildSubset(odd, ['things_get'])).toThrow(/unknown schema keyword "const"/);
  });

  it('--check names a missing or moved API-map operation and a stale file', () => {
    const committed = JSON.stringify({ operations: { keys_get: { method: 'GET', path: '/v2/keys/{id}' } } });
    const map = [
      '| Tool | operationId | Request |',
      '|---|---|---|',
      '| key-get | keys_get | GET /v2/account/keys/{id} |',
      '| key-list | keys_list | GET /v2/account/keys |',
    ].join('\n');
    expect(staleness(committed, committed, map)).toEqual([
      'keys_get is GET /v2/keys/{id}, the API map says GET /v2/account/keys/{id}',
      'keys_list (GET /v2/account/keys) is missing',
    ]);
    expect(staleness(committed, `${committed} `, '')).toEqual([
      'subset.json differs from a fresh generation: run generate.mjs',
    ]);
    expect(staleness(committed, committed, '')).toEqual([]);
  });

  it('reads the operationId column of the API map tables', () => {
    const markdown = [
      '# Title',
      '| tool | operationId | request |',
      '|---|---|---|',
      '| a-get | a_get | GET /v2/a |',
      '| a-get-again | a_get | GET /v2/a |',
      '',
      'text | with a pipe',
      '| tool | operationId | request |',
      '|---|---|---|',
      '| b-list | b_list | GET /v2/b |',
    ].join('\n');
    expect(readOperationIds(markdown)).toEqual(['a_get', 'b_list']);
    expect(() => readOperationIds('| tool | operationId |\n|---|---|\n| x | not an id |')).toThrow(
      /not an id/,
    );
  });
});
