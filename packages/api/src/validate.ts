/**
 * A request checked against its operation before anything is sent: the path's parameters, the
 * query (only the parameters the operation takes, each of its type) and the body (present when
 * required, absent when the operation takes none, valid against its schema).
 */
import type { InputIssue } from '@cloudcall/core';
import type { OperationData } from './model-data.js';
import { pointerToken, type SchemaValidator, schemaValidator } from './openapi.js';
import { validationData } from './validation.js';

let plain: SchemaValidator | undefined;
let coerced: SchemaValidator | undefined;

/** The validator of bodies, and of parameters given as text (read as the type their schema gives). */
function validators() {
  plain ??= schemaValidator(validationData());
  coerced ??= schemaValidator(validationData(), { coerce: true });
  return { plain, coerced };
}

export interface RequestParts {
  /** The path parameters' values, by name (as matched from a concrete path, or given). */
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  /** The JSON body; undefined for none. */
  body?: unknown;
}

/**
 * Why a request does not fit its operation, as issues naming `Path`, `Query.NAME` or `Body`
 * (`Body.size`: `must be string`); empty when it fits.
 */
export function requestIssues(operation: OperationData, request: RequestParts): InputIssue[] {
  const issues: InputIssue[] = [];
  const { plain: bodies, coerced: texts } = validators();
  const base = `/operations/${pointerToken(operation.id)}`;
  const schemas = validationData().operations[operation.id] ?? {};
  for (const param of operation.params ?? []) {
    if (param.in !== 'path') continue;
    const value = request.params?.[param.name];
    if (value === undefined || value === '') {
      issues.push({ argument: 'Path', message: `needs {${param.name}}` });
      continue;
    }
    for (const error of texts.validate(`${base}/path/${pointerToken(param.name)}`, value).errors)
      issues.push({
        argument: 'Path',
        message: `{${param.name}} ${error.replace(/^\/ /, '')}; got ${preview(value)}`,
      });
  }
  const takes = new Set(
    (operation.params ?? []).filter((param) => param.in === 'query').map((param) => param.name),
  );
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value === undefined) continue;
    if (!takes.has(name)) {
      issues.push({
        argument: `Query.${name}`,
        message: `is not a parameter of ${operation.id}${takes.size ? ` (it takes ${[...takes].join(', ')})` : ' (it takes none)'}`,
      });
      continue;
    }
    if (!schemas.query?.[name]) continue;
    for (const error of texts.validate(`${base}/query/${pointerToken(name)}`, value).errors)
      issues.push({
        argument: `Query.${name}`,
        message: `${error.replace(/^\/ /, '')}; got ${preview(value)}`,
      });
  }
  for (const param of operation.params ?? []) {
    if (param.in === 'query' && param.required && request.query?.[param.name] === undefined)
      issues.push({ argument: `Query.${param.name}`, message: 'is required' });
  }
  const { body } = request;
  if (!operation.body) {
    if (body !== undefined) issues.push({ argument: 'Body', message: `${operation.id} takes no body` });
  } else if (body === undefined) {
    if (operation.body === 'required')
      issues.push({ argument: 'Body', message: `${operation.id} needs a body` });
  } else if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    // Every body of the API is an object of fields, but some schemas say so only by their
    // `properties`, which JSON Schema applies to objects alone: a list or a scalar would pass them.
    issues.push({
      argument: 'Body',
      message: `must be an object of fields (api-describe ${operation.id} shows them); got ${preview(body)}`,
    });
  } else {
    let errors = bodies.validate(`${base}/body`, body).errors;
    // A body of several shapes with nothing to tell them apart (a VM create: one name, or
    // `names`): the errors of the shape it comes closest to, not of every shape at once.
    const shapes = alternatives(schemas.body);
    if (errors.length && shapes) {
      const tried = shapes.list.map(
        (_, at) => bodies.validate(`${base}/body/${shapes.key}/${at}`, body).errors,
      );
      const closest = tried.reduce((best, each) => (each.length < best.length ? each : best));
      if (closest.length) errors = closest;
    }
    for (const error of errors) {
      const [where = '/', ...rest] = error.split(' ');
      const at = where === '/' ? '' : where.replace(/\//g, '.').replace(/~1/g, '/').replace(/~0/g, '~');
      issues.push({ argument: `Body${at}`, message: rest.join(' ') });
    }
  }
  return issues;
}

/** The shapes of a body schema that is a oneOf or anyOf with no discriminator to pick one. */
function alternatives(schema: unknown): { key: 'oneOf' | 'anyOf'; list: unknown[] } | undefined {
  if (schema === null || typeof schema !== 'object' || 'discriminator' in schema) return undefined;
  const record = schema as Record<string, unknown>;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const list = record[key];
    if (Array.isArray(list) && list.length > 1) return { key, list };
  }
  return undefined;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
