// Validates request and response bodies against the generated, description-free OpenAPI subset.
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

/** The parsed subset.json (see generate.mjs). */
export const subset = JSON.parse(readFileSync(new URL('./subset.json', import.meta.url), 'utf8'));

// Base URI under which the whole subset document is registered with Ajv, so that the
// `#/components/schemas/...` references inside operation schemas resolve against it.
const DOCUMENT_ID = 'https://cloudcall.invalid/openapi-subset.json';

let ajv;
const validators = new Map();

function getAjv() {
  if (!ajv) {
    // Draft-07 Ajv; it understands the OpenAPI 3.0 `nullable` keyword natively. Patterns are compiled
    // without the `u` flag: the description has some (e.g. `[\-\:]`) that are invalid in unicode mode.
    // No meta-schema check of the document: it does not descend into `operations` and `components`
    // (not JSON Schema keywords), so it checked nothing there, and compiling a schema does check it.
    // Unoptimized code: a test process runs each validator a few times, so optimizing its code cost
    // more than it saved (these two took a fifth of the validators' start-up in every test process).
    ajv = new Ajv({
      strict: false,
      allErrors: true,
      unicodeRegExp: false,
      validateSchema: false,
      code: { optimize: false },
    });
    addFormats(ajv);
    // Formats of the description that ajv-formats lacks, known so that compiling a schema warns of
    // none (Ajv logs each unknown one, on every compile), as packages/api/src/openapi.ts knows them:
    // unsigned integers checked as such; a `string` format and a VPC's `cidr` constrain nothing.
    ajv.addFormat('uint32', {
      type: 'number',
      validate: (value) => Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff,
    });
    ajv.addFormat('uint64', { type: 'number', validate: (value) => Number.isInteger(value) && value >= 0 });
    ajv.addFormat('string', true);
    ajv.addFormat('cidr', true);
    ajv.addSchema(applyDiscriminators(structuredClone(subset)), DOCUMENT_ID);
  }
  return ajv;
}

/**
 * OpenAPI 3.0 lets a `discriminator.mapping` pick the branch of a oneOf/anyOf by the value of one
 * property. JSON Schema has no such keyword, and the description relies on it: e.g. the by-tag droplet
 * action body is a oneOf of two schemas where one extends the other, which no body can satisfy under
 * plain oneOf. Rewrite those nodes to if/then/else chains that select the mapped schema; values
 * without a mapping fall back to the original oneOf/anyOf.
 *
 * The product's twin is `withDiscriminators` in packages/api/src/openapi.ts (request validation).
 * This test tooling cannot import it: @cloudcall/api's tests depend on the sandbox and the catalog,
 * whose tests depend on this package, and the workspace's dependency graph must have no cycle.
 */
function applyDiscriminators(document) {
  const visit = (node) => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const value of Object.values(node)) visit(value);
    const discriminator = node.discriminator;
    const composite = Array.isArray(node.oneOf) ? 'oneOf' : Array.isArray(node.anyOf) ? 'anyOf' : undefined;
    if (!composite || 'if' in node) return;
    if (typeof discriminator?.propertyName !== 'string' || !discriminator.mapping) return;
    const property = discriminator.propertyName;
    const valuesByRef = new Map();
    for (const [value, ref] of Object.entries(discriminator.mapping)) {
      valuesByRef.set(ref, [...(valuesByRef.get(ref) ?? []), value]);
    }
    let chain = { [composite]: node[composite] };
    for (const [ref, values] of [...valuesByRef].reverse()) {
      chain = {
        if: { properties: { [property]: { enum: values } }, required: [property] },
        // biome-ignore lint/suspicious/noThenProperty: the JSON Schema if/then/else keyword, never awaited.
        then: { $ref: ref },
        else: chain,
      };
    }
    delete node[composite];
    Object.assign(node, chain);
  };
  visit(document.operations);
  visit(document.components);
  return document;
}

function escapePointer(token) {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

function getOperation(operationId) {
  const op = Object.hasOwn(subset.operations, operationId) ? subset.operations[operationId] : undefined;
  if (!op) throw new Error(`Unknown operationId ${JSON.stringify(operationId)} (not in the OpenAPI subset)`);
  return op;
}

function responseKey(operationId, op, status) {
  const exact = String(status);
  const range = `${exact[0]}XX`;
  for (const key of [exact, range, 'default']) {
    if (Object.hasOwn(op.responses, key)) return key;
  }
  throw new Error(
    `${operationId} declares no response for status ${exact} ` +
      `(declared: ${Object.keys(op.responses).join(', ')})`,
  );
}

function compile(pointer) {
  let validate = validators.get(pointer);
  if (!validate) {
    validate = getAjv().compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

function formatError(error) {
  const where = error.instancePath || '/';
  let text = `${where} ${error.message}`;
  if (error.keyword === 'additionalProperties') text += `: ${error.params.additionalProperty}`;
  else if (error.keyword === 'enum')
    text += `: ${error.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  return text;
}

function run(validate, body) {
  if (validate(body)) return { valid: true, errors: [] };
  const all = validate.errors ?? [];
  // "must match "then" schema" only repeats the errors of the selected branch.
  const relevant = all.filter((error) => error.keyword !== 'if');
  const errors = [...new Set((relevant.length > 0 ? relevant : all).map(formatError))];
  return { valid: false, errors };
}

function isEmptyBody(body) {
  return body === undefined || body === null || body === '';
}

/** Method, path and token scopes of an operation. */
export function operation(operationId) {
  const { method, path, scopes, scopeSets } = getOperation(operationId);
  return { method, path, scopes: [...scopes], scopeSets: scopeSets.map((set) => [...set]) };
}

/**
 * Whether the operation declares a success other than 204 that carries no JSON body (such as a 202
 * to a resize): a client must then take an empty answer as "no content". Only 2xx statuses other
 * than 204 count; an operation that answers only 204 is no such case. Throws for an unknown one.
 */
export function noResponseBody(operationId) {
  const successes = Object.entries(getOperation(operationId).responses).filter(
    ([status]) => /^2(\d\d|XX)$/.test(status) && status !== '204',
  );
  return successes.length > 0 && successes.every(([, schema]) => schema === null);
}

/** Content types other than JSON declared for the status; see index.d.ts. */
export function responseContentTypes(operationId, status) {
  const op = getOperation(operationId);
  const key = responseKey(operationId, op, status);
  return [...(op.responseContentTypes?.[key] ?? [])];
}

/**
 * Validates a response body against the schema declared for the status (or its `NXX` range, or
 * `default`). Throws for an unknown operation or an undeclared status.
 */
export function validateResponse(operationId, status, body) {
  const op = getOperation(operationId);
  const key = responseKey(operationId, op, status);
  if (op.responses[key] === null) {
    return isEmptyBody(body)
      ? { valid: true, errors: [] }
      : { valid: false, errors: [`/ ${operationId} ${key} response declares no JSON body`] };
  }
  return run(compile(`/operations/${escapePointer(operationId)}/responses/${escapePointer(key)}`), body);
}

/**
 * Validates a request body. `undefined` stands for "no body": valid unless the operation requires
 * one. Throws for an unknown operation, or a body given to an operation that declares none.
 */
export function validateRequest(operationId, body) {
  const op = getOperation(operationId);
  if (!op.request) {
    if (body === undefined) return { valid: true, errors: [] };
    throw new Error(`${operationId} declares no JSON request body`);
  }
  if (body === undefined) {
    return op.requestRequired
      ? { valid: false, errors: [`/ ${operationId} requires a request body`] }
      : { valid: true, errors: [] };
  }
  return run(compile(`/operations/${escapePointer(operationId)}/request`), body);
}

/** Throws an Error listing the problems when the response body does not match. */
export function assertValidResponse(operationId, status, body) {
  const { valid, errors } = validateResponse(operationId, status, body);
  if (!valid) {
    throw new Error(
      `${operationId} ${status} response does not match the API description:\n  ${errors.join('\n  ')}`,
    );
  }
}

/** Throws an Error listing the problems when the request body does not match. */
export function assertValidRequest(operationId, body) {
  const { valid, errors } = validateRequest(operationId, body);
  if (!valid) {
    throw new Error(
      `${operationId} request body does not match the API description:\n  ${errors.join('\n  ')}`,
    );
  }
}
