#!/usr/bin/env node
// Generates subset.json: a description-free subset of the platform's OpenAPI description holding, for
// each of its operations, method, path, tags, scopes, parameters and request/response JSON schemas,
// plus the component schemas reachable from them, and which fields hold secrets.
//
// Usage: node generate.mjs [--check] [path/to/digitalocean-v2.json] [path/to/API-MAP.md]
// Defaults: the `shared` folder beside the repository (../../../shared/...). With --check it writes
// nothing and fails when the committed subset.json differs from a fresh generation or lacks an
// operation of the API map with the method and path the map gives (the tests cannot check this:
// they never read ../shared, which a clone elsewhere lacks).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export const DEFAULT_SPEC_PATH = resolve(here, '../../../shared/openapi/digitalocean-v2.json');
export const DEFAULT_API_MAP_PATH = resolve(here, '../../../shared/spec/API-MAP.md');
export const SUBSET_PATH = resolve(here, 'subset.json');
/** Core's list of secret fields, made from the subset's `secrets`. */
export const SECRET_FIELDS_PATH = resolve(here, '../../packages/core/src/secret-fields.generated.ts');

/**
 * Secret fields the description marks in some places and not in others, or not at all, decided
 * by hand: `unless` names a sibling field whose presence means the field is not a secret there
 * (`key` beside a `value` is a name, as in an app's variables, a taint or a tag). `null`: never a
 * secret. A field marked secret in one place and not in another is refused until it is listed here.
 */
export const SECRET_REVIEW = {
  // An rsyslog sink's client key (PEM) and a functions namespace's key are credentials; an app
  // variable's, a taint's and a tag's `key` (each beside a `value`) is a name.
  key: { kind: 'secret', unless: ['value'] },
  // A cluster's credentials, a Logtail token and OAuth tokens are credentials; a chat completion's
  // `token` (beside its `logprob`) is a piece of text.
  token: { kind: 'secret', unless: ['logprob'] },
  // A Kafka user's private key is a credential; a Spaces key's access key id (beside its
  // `grants`) names the key, as the path of its own operations does.
  access_key: { kind: 'secret', unless: ['grants'] },
  // OpenSearch's and every other password.
  password: { kind: 'secret' },
  // A model API key's and a Spaces key's secret part.
  secret_key: { kind: 'secret' },
  // A Kubernetes cluster's client key (base64 of a PEM key), unmarked in the description.
  client_key_data: { kind: 'secret' },
  // Credentials the description does not mark: an app image's registry `username:token`, Hugging
  // Face and other API tokens, OAuth refresh tokens, a docker config's `auth`, an authorization
  // header's value, a partner attachment's auth key.
  registry_credentials: { kind: 'secret' },
  hugging_face_token: { kind: 'secret' },
  hf_token: { kind: 'secret' },
  api_token: { kind: 'secret' },
  refresh_token: { kind: 'secret' },
  auth: { kind: 'secret' },
  authorization: { kind: 'secret' },
  auth_key: { kind: 'secret' },
  // An rsyslog line template: the description's prose mentions keys, the value is none.
  logline: null,
};

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const JSON_MEDIA_TYPE = 'application/json';
const SCHEMA_REF_PREFIX = '#/components/schemas/';

// Annotation keywords dropped everywhere they are keywords (never when they are property names).
const STRIPPED_KEYWORDS = new Set(['description', 'summary', 'example', 'examples', 'title', 'externalDocs']);
// Keywords whose value is a map from names (property names, patterns) to schemas.
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties']);
// Keywords whose value is a schema.
const SCHEMA_KEYWORDS = new Set(['items', 'additionalProperties', 'not']);
// Keywords whose value is a list of schemas.
const SCHEMA_LIST_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf']);
// Keywords whose value is data, copied as it is.
const VALUE_KEYWORDS = new Set([
  'type',
  'format',
  'nullable',
  'required',
  'enum',
  'default',
  'readOnly',
  'writeOnly',
  'deprecated',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
]);

/**
 * Reads operationIds from the markdown tables of the API map: the 2nd column of every table whose
 * header names it `operationId`. Returns them in order of first appearance, without duplicates.
 */
export function readOperationIds(markdown) {
  const ids = [];
  let inTable = false;
  for (const line of markdown.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('|')) {
      inTable = false;
      continue;
    }
    const cells = trimmed
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim());
    if (!inTable) {
      inTable = cells[1] === 'operationId';
      continue;
    }
    if (/^:?-+:?$/.test(cells[1] ?? '')) continue;
    const id = cells[1] ?? '';
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(id)) {
      throw new Error(`API map: unexpected operationId cell ${JSON.stringify(id)} in row: ${trimmed}`);
    }
    if (!ids.includes(id)) ids.push(id);
  }
  if (ids.length === 0) throw new Error('API map: no operationId found in any table');
  return ids;
}

function decodePointerToken(token) {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function resolvePointer(document, ref) {
  if (!ref.startsWith('#/')) throw new Error(`Only internal $refs are supported, got ${ref}`);
  let node = document;
  for (const token of ref.slice(2).split('/')) {
    const key = decodePointerToken(token);
    if (node === null || typeof node !== 'object' || !(key in node))
      throw new Error(`Unresolvable $ref ${ref}`);
    node = node[key];
  }
  return node;
}

/** Follows $refs of non-schema components (responses, requestBodies, parameters, headers). */
function deref(document, node) {
  const seen = new Set();
  let current = node;
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    if (seen.has(current.$ref)) throw new Error(`Circular $ref ${current.$ref}`);
    seen.add(current.$ref);
    current = resolvePointer(document, current.$ref);
  }
  return current;
}

function isStripped(key) {
  return STRIPPED_KEYWORDS.has(key) || key.startsWith('x-');
}

function sortKeysDeep(value) {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeysDeep(value[key]);
  return out;
}

/** A private key in PEM, as the description's example shows one. */
const PEM_PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;
/** Prose that names the value itself a secret (read here only, never copied into the subset). */
const SECRET_PROSE = /\b(password|private key|secret key|access key|api key|access token)\b/i;
/** A URI holding credentials, as `scheme://user:password@host`. */
const URI_WITH_CREDENTIALS = /^[a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]+:[^@/?#\s]+@/i;

/**
 * Whether a property holds a secret, by the description's facts: `format: password`, a private
 * key as its example, or prose naming the value a password, key or token (`secret`); or a URI
 * whose example carries credentials (`uri`). Never a property with a fixed set of values (an
 * enum), a non-string, or one whose prose only names something secret (a key's name or id).
 */
export function secretKind(name, schema) {
  if (schema === null || typeof schema !== 'object' || schema.enum) return undefined;
  if (schema.type !== undefined && schema.type !== 'string') return undefined;
  const example = typeof schema.example === 'string' ? schema.example : '';
  if (URI_WITH_CREDENTIALS.test(example)) return 'uri';
  if (schema.format === 'password' || PEM_PRIVATE_KEY.test(example)) return 'secret';
  if (/(^|_)(name|id|uuid|count|type|expires?(_at|_in)?|created_at)$/.test(name)) return undefined;
  return SECRET_PROSE.test(schema.description ?? '') ? 'secret' : undefined;
}

/**
 * Builds the subset from a parsed OpenAPI document and a list of operationIds. Throws when an
 * operationId is missing, a $ref cannot be resolved, or a schema uses a keyword this script does not
 * know (so that no prose slips through under an unexpected key).
 */
export function buildSubset(spec, operationIds) {
  const byId = new Map();
  for (const [path, pathItem] of Object.entries(spec.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = pathItem[method];
      if (op?.operationId) byId.set(op.operationId, { method, path, pathItem, op });
    }
  }
  const missing = operationIds.filter((id) => !byId.has(id));
  if (missing.length > 0) {
    throw new Error(`operationId(s) not found in the OpenAPI description: ${missing.join(', ')}`);
  }

  const pendingSchemas = [];
  const referencedSchemas = new Set();
  const noteSchemaRef = (ref) => {
    const name = decodePointerToken(ref.slice(SCHEMA_REF_PREFIX.length));
    if (name.includes('/') || !(name in (spec.components?.schemas ?? {}))) {
      throw new Error(`Unsupported or unresolvable schema $ref ${ref}`);
    }
    if (!referencedSchemas.has(name)) {
      referencedSchemas.add(name);
      pendingSchemas.push(name);
    }
  };

  // Property name -> what each place holding it says of it (`secret`, `uri` or nothing), with the
  // names beside it there: the secrets are decided from all of them once the subset is built.
  const places = new Map();
  const noteSecret = (name, sub, siblings) => {
    let schema = sub;
    if (schema && typeof schema.$ref === 'string') schema = resolvePointer(spec, schema.$ref);
    if (!places.has(name)) places.set(name, []);
    places.get(name).push({ kind: secretKind(name, schema), siblings });
  };

  const cleanSchema = (schema, where) => {
    if (typeof schema === 'boolean') return schema;
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
      throw new Error(`${where}: expected a schema, got ${JSON.stringify(schema)}`);
    }
    if (typeof schema.$ref === 'string') {
      // OpenAPI 3.0: siblings of $ref are ignored.
      if (schema.$ref.startsWith(SCHEMA_REF_PREFIX)) {
        noteSchemaRef(schema.$ref);
        return { $ref: schema.$ref };
      }
      return cleanSchema(deref(spec, schema), `${where} -> ${schema.$ref}`);
    }
    const out = {};
    for (const [key, value] of Object.entries(schema)) {
      if (isStripped(key)) continue;
      const at = `${where}/${key}`;
      if (SCHEMA_MAP_KEYWORDS.has(key)) {
        out[key] = {};
        for (const [name, sub] of Object.entries(value)) {
          if (key === 'properties') noteSecret(name, sub, Object.keys(value));
          out[key][name] = cleanSchema(sub, `${at}/${name}`);
        }
      } else if (SCHEMA_KEYWORDS.has(key)) {
        out[key] = cleanSchema(value, at);
      } else if (SCHEMA_LIST_KEYWORDS.has(key)) {
        out[key] = value.map((sub, i) => cleanSchema(sub, `${at}/${i}`));
      } else if (key === 'discriminator') {
        out[key] = { propertyName: value.propertyName };
        if (value.mapping) {
          out[key].mapping = { ...value.mapping };
          for (const ref of Object.values(value.mapping)) {
            if (ref.startsWith(SCHEMA_REF_PREFIX)) noteSchemaRef(ref);
          }
        }
      } else if (VALUE_KEYWORDS.has(key)) {
        out[key] = structuredClone(value);
      } else {
        throw new Error(`${at}: unknown schema keyword ${JSON.stringify(key)}`);
      }
    }
    return out;
  };

  const operations = {};
  for (const id of operationIds) {
    const { method, path, pathItem, op } = byId.get(id);
    const where = `${id} (${method.toUpperCase()} ${path})`;

    const security = op.security ?? spec.security ?? [];
    const scopeSets = security.filter((req) => req.bearer_auth).map((req) => [...req.bearer_auth]);
    const scopes = [...new Set(scopeSets.flat())];

    // Path-level parameters apply unless the operation overrides them (same name and location).
    const parameters = new Map();
    for (const raw of [...(pathItem.parameters ?? []), ...(op.parameters ?? [])]) {
      const param = deref(spec, raw);
      const entry = { in: param.in, name: param.name };
      if (param.required) entry.required = true;
      if (param.schema) entry.schema = cleanSchema(param.schema, `${where} parameter ${param.name}`);
      else if (param.content)
        throw new Error(`${where}: parameter ${param.name} uses content, not supported`);
      parameters.set(`${param.in}:${param.name}`, entry);
    }

    const result = { method: method.toUpperCase(), path, tags: [...(op.tags ?? [])], scopes, scopeSets };
    // An operation served elsewhere than the API (the inference endpoints): its host.
    const servers = op.servers ?? pathItem.servers;
    if (servers && JSON.stringify(servers) !== JSON.stringify(spec.servers)) result.host = servers[0]?.url;
    if (parameters.size > 0) result.parameters = [...parameters.values()];

    if (op.requestBody) {
      const body = deref(spec, op.requestBody);
      const media = body.content?.[JSON_MEDIA_TYPE];
      if (media) {
        result.request = cleanSchema(media.schema ?? {}, `${where} request`);
        if (body.required) result.requestRequired = true;
      }
      const others = Object.keys(body.content ?? {}).filter((type) => type !== JSON_MEDIA_TYPE);
      if (others.length > 0) result.requestContentTypes = others.sort();
    }

    result.responses = {};
    result.responseHeaders = {};
    for (const [status, raw] of Object.entries(op.responses ?? {})) {
      const response = deref(spec, raw);
      const media = response.content?.[JSON_MEDIA_TYPE];
      result.responses[status] = media
        ? cleanSchema(media.schema ?? {}, `${where} response ${status}`)
        : null;
      const others = Object.keys(response.content ?? {}).filter((type) => type !== JSON_MEDIA_TYPE);
      if (others.length > 0) {
        result.responseContentTypes ??= {};
        result.responseContentTypes[status] = others.sort();
      }
      const headers = Object.keys(response.headers ?? {}).map((name) => name.toLowerCase());
      if (headers.length > 0) result.responseHeaders[status] = headers.sort();
    }
    operations[id] = result;
  }

  const schemas = {};
  while (pendingSchemas.length > 0) {
    const name = pendingSchemas.shift();
    schemas[name] = cleanSchema(spec.components.schemas[name], `${SCHEMA_REF_PREFIX}${name}`);
  }

  return sortKeysDeep({
    openapi: spec.openapi,
    info: { version: spec.info?.version },
    operations,
    components: { schemas },
    secrets: decideSecrets(places),
  });
}

/**
 * Which fields are secret, from every place each name is a property: `secret` (or `uri`) when
 * every place holding it says so, or as SECRET_REVIEW decides. A name secret in some places and
 * not in others, and not reviewed, is an error: masking it everywhere could hide names (a
 * variable's `key`), and nowhere could show a credential. A `uri` needs no review: hiding the
 * credentials inside a URI hides nothing else.
 */
export function decideSecrets(places, review = SECRET_REVIEW) {
  const secrets = {};
  const unreviewed = [];
  for (const [name, found] of places) {
    if (Object.hasOwn(review, name)) {
      if (review[name]) secrets[name] = review[name];
      continue;
    }
    const kinds = new Set(found.map((place) => place.kind));
    if (kinds.has('uri') && !kinds.has('secret')) secrets[name] = { kind: 'uri' };
    else if (kinds.has('secret') && kinds.size > 1) unreviewed.push(name);
    else if (kinds.has('secret')) secrets[name] = { kind: 'secret' };
  }
  if (unreviewed.length)
    throw new Error(
      `secret in some places of the description and not in others: ${unreviewed.sort().join(', ')}; decide them in SECRET_REVIEW`,
    );
  return secrets;
}

/** The exact bytes written to subset.json. */
export function serialize(subset) {
  return `${JSON.stringify(subset, null, 1)}\n`;
}

/** The source of core's secret-field lists, from a subset's `secrets`. */
export function secretFieldsSource(subset) {
  const entries = Object.entries(subset.secrets ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  const names = (kind) => entries.filter(([, each]) => each.kind === kind).map(([name]) => name);
  const list = (values) => `[${values.map((value) => `'${value}'`).join(', ')}]`;
  const unless = entries
    .filter(([, each]) => each.unless?.length)
    .map(([name, each]) => `  ${name}: ${list(each.unless)},`);
  return [
    '// Generated by tooling/openapi/generate.mjs from the subset of the API description; do not edit.',
    '',
    '/** Fields whose whole value is a secret: passwords, private keys, access keys, tokens. */',
    `export const SECRET_FIELDS: readonly string[] = ${list(names('secret'))};`,
    '',
    '/** A secret field is no secret in an object that also has one of these fields (`key` beside a `value` is a name). */',
    `export const SECRET_UNLESS: Readonly<Record<string, readonly string[]>> = {${unless.length ? `\n${unless.join('\n')}\n` : ''}};`,
    '',
    '/** Fields holding a URI with credentials in it (`scheme://user:password@host`). */',
    `export const URI_FIELDS: readonly string[] = ${list(names('uri'))};`,
    '',
  ].join('\n');
}

/** Reads both inputs and returns the serialized subset. */
export function generate(specPath = DEFAULT_SPEC_PATH, apiMapPath = DEFAULT_API_MAP_PATH) {
  const spec = JSON.parse(readFileSync(specPath, 'utf8'));
  // Every operation: the API map's first (it is checked against them), then the description's.
  const ids = readOperationIds(readFileSync(apiMapPath, 'utf8'));
  for (const item of Object.values(spec.paths ?? {}))
    for (const method of HTTP_METHODS) {
      const id = item[method]?.operationId;
      if (id && !ids.includes(id)) ids.push(id);
    }
  const subset = buildSubset(spec, ids);
  return { subset, text: serialize(subset) };
}

/**
 * Why the committed subset (and core's secret fields, when their source is given) is stale against
 * the API map and a fresh generation; empty when it is not.
 */
export function staleness(committed, fresh, apiMap, secretFields) {
  const problems = [];
  const subset = JSON.parse(committed);
  for (const line of apiMap.split('\n')) {
    const match = /^\|[^|]*\|\s*([A-Za-z][A-Za-z0-9_]*)\s*\|\s*([A-Z]+) (\S+)\s*\|/.exec(line);
    if (!match) continue;
    const [, id, method, path] = match;
    const operation = subset.operations[id];
    if (!operation) problems.push(`${id} (${method} ${path}) is missing`);
    else if (`${operation.method} ${operation.path}` !== `${method} ${path}`)
      problems.push(`${id} is ${operation.method} ${operation.path}, the API map says ${method} ${path}`);
  }
  if (committed !== fresh) problems.push('subset.json differs from a fresh generation: run generate.mjs');
  if (secretFields !== undefined && secretFields !== secretFieldsSource(JSON.parse(fresh)))
    problems.push(
      'packages/core/src/secret-fields.generated.ts differs from a fresh generation: run generate.mjs',
    );
  return problems;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    const args = process.argv.slice(2);
    const check = args[0] === '--check';
    const [specPath, apiMapPath] = check ? args.slice(1) : args;
    const mapPath = apiMapPath ? resolve(apiMapPath) : DEFAULT_API_MAP_PATH;
    const { subset, text } = generate(specPath ? resolve(specPath) : undefined, mapPath);
    if (check) {
      const problems = staleness(
        readFileSync(SUBSET_PATH, 'utf8'),
        text,
        readFileSync(mapPath, 'utf8'),
        readFileSync(SECRET_FIELDS_PATH, 'utf8'),
      );
      for (const problem of problems) console.error(`generate.mjs --check: ${problem}`);
      if (problems.length) process.exit(1);
      process.stdout.write('subset.json is up to date\n');
      process.exit(0);
    }
    writeFileSync(SUBSET_PATH, text);
    writeFileSync(SECRET_FIELDS_PATH, secretFieldsSource(subset));
    process.stdout.write(
      `subset.json: ${Object.keys(subset.operations).length} operations, ` +
        `${Object.keys(subset.components.schemas).length} schemas, ${Buffer.byteLength(text)} bytes\n`,
    );
  } catch (error) {
    console.error(`generate.mjs: ${error.message}`);
    process.exit(1);
  }
}
