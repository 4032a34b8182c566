/**
 * JSON Schema validation of the platform's OpenAPI 3.0 schemas with Ajv, the validator made for
 * the job: `nullable` as OpenAPI means it, a `discriminator` turned into the branch it selects,
 * formats checked, every error reported as a readable line (`/size must be string`). Shared by
 * this package's request validation and the repository's tests, which validate answers.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; its `default` is the plugin however the module is loaded (Node's ESM
// gives module.exports, a bundler its `default`, and the plugin holds itself as `default`).
const addFormats = addFormatsModule.default;

export interface SchemaCheck {
  valid: boolean;
  /** Readable lines, e.g. `/ssh_keys/0/id must be integer`; empty when valid. */
  errors: string[];
}

export interface SchemaValidator {
  /** Validates `value` against the schema at `pointer` in the document (`/operations/x/request`). */
  validate(pointer: string, value: unknown): SchemaCheck;
}

/**
 * A validator of the schemas in `document` (its `#/components/schemas/NAME` references resolve in
 * it), each compiled the first time it is used. `coerce`: values as text (query and path
 * parameters) are read as the type their schema gives.
 */
export function schemaValidator(document: object, options: { coerce?: boolean } = {}): SchemaValidator {
  const id = `https://cloudcall.invalid/${options.coerce ? 'coerced' : 'plain'}.json`;
  let ajv: Ajv | undefined;
  const compiled = new Map<string, ValidateFunction>();
  const get = () => {
    if (ajv) return ajv;
    // Draft-07 Ajv, which reads OpenAPI's `nullable`. Patterns are compiled without the `u` flag:
    // the description has some (`[\-\:]`) that are invalid in unicode mode. No meta-schema check:
    // compiling a schema checks what is used. Code unoptimised: each schema runs a few times.
    ajv = new Ajv({
      strict: false,
      allErrors: true,
      unicodeRegExp: false,
      validateSchema: false,
      code: { optimize: false },
      ...(options.coerce ? { coerceTypes: 'array' as const } : {}),
    });
    addFormats(ajv);
    // Formats of the description that ajv-formats lacks, known so that compiling a schema warns of
    // none (Ajv logs each unknown one, on every compile): unsigned integers checked as such; a
    // `string` format and a VPC's `cidr` constrain nothing here (the platform checks a range).
    ajv.addFormat('uint32', {
      type: 'number',
      validate: (value) => Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff,
    });
    ajv.addFormat('uint64', { type: 'number', validate: (value) => Number.isInteger(value) && value >= 0 });
    ajv.addFormat('string', true);
    ajv.addFormat('cidr', true);
    ajv.addSchema(withDiscriminators(structuredClone(document)), id);
    return ajv;
  };
  return {
    validate(pointer, value) {
      let validate = compiled.get(pointer);
      if (!validate) {
        validate = get().compile({ $ref: `${id}#${pointer}` });
        compiled.set(pointer, validate);
      }
      if (validate(value)) return { valid: true, errors: [] };
      const all = validate.errors ?? [];
      // "must match "then" schema" only repeats the errors of the branch selected.
      const relevant = all.filter((error) => error.keyword !== 'if');
      return { valid: false, errors: [...new Set((relevant.length ? relevant : all).map(describe))] };
    },
  };
}

function describe(error: ErrorObject): string {
  let text = `${error.instancePath || '/'} ${error.message}`;
  if (error.keyword === 'additionalProperties') text += `: ${error.params.additionalProperty}`;
  else if (error.keyword === 'enum')
    text += `: ${(error.params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
  return text;
}

/** A JSON pointer token: `~` and `/` escaped. */
export function pointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * OpenAPI 3.0 lets a `discriminator.mapping` pick the branch of a oneOf/anyOf by the value of one
 * property; JSON Schema has no such keyword, and the description relies on it (the by-tag VM
 * action body is a oneOf of two schemas where one extends the other, which no body satisfies
 * under plain oneOf). Each such node becomes an if/then/else chain selecting the mapped schema;
 * values without a mapping fall back to the oneOf/anyOf. A value the mapping names is one the
 * property takes, also where the mapped schema's own enum of it forgets it (a VM's
 * `change_backup_policy` action is mapped, but not in the action base's `type` enum): it is
 * added to that enum. Rewrites `document` in place (its `#/components/schemas/` resolve in it).
 */
export function withDiscriminators<T>(document: T): T {
  const schemas =
    (document as { components?: { schemas?: Record<string, unknown> } }).components?.schemas ?? {};
  const PREFIX = '#/components/schemas/';
  const admit = (schema: unknown, property: string, value: string, seen: Set<unknown>) => {
    if (schema === null || typeof schema !== 'object' || seen.has(schema)) return;
    seen.add(schema);
    const record = schema as Record<string, unknown>;
    if (typeof record.$ref === 'string' && record.$ref.startsWith(PREFIX))
      admit(schemas[record.$ref.slice(PREFIX.length)], property, value, seen);
    let field = (record.properties as Record<string, unknown> | undefined)?.[property] as
      | Record<string, unknown>
      | undefined;
    if (typeof field?.$ref === 'string' && field.$ref.startsWith(PREFIX))
      field = schemas[field.$ref.slice(PREFIX.length)] as Record<string, unknown> | undefined;
    if (Array.isArray(field?.enum) && !field.enum.includes(value)) field.enum.push(value);
    for (const part of Array.isArray(record.allOf) ? record.allOf : []) admit(part, property, value, seen);
  };
  const visit = (node: unknown) => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    for (const value of Object.values(record)) visit(value);
    const discriminator = record.discriminator as
      | { propertyName?: unknown; mapping?: Record<string, string> }
      | undefined;
    const composite = Array.isArray(record.oneOf)
      ? 'oneOf'
      : Array.isArray(record.anyOf)
        ? 'anyOf'
        : undefined;
    if (!composite || 'if' in record) return;
    if (typeof discriminator?.propertyName !== 'string' || !discriminator.mapping) return;
    const property = discriminator.propertyName;
    const valuesByRef = new Map<string, string[]>();
    for (const [value, ref] of Object.entries(discriminator.mapping)) {
      valuesByRef.set(ref, [...(valuesByRef.get(ref) ?? []), value]);
      admit({ $ref: ref }, property, value, new Set());
    }
    let chain: Record<string, unknown> = { [composite]: record[composite] };
    for (const [ref, values] of [...valuesByRef].reverse()) {
      chain = {
        if: { properties: { [property]: { enum: values } }, required: [property] },
        // biome-ignore lint/suspicious/noThenProperty: the JSON Schema if/then/else keyword, never awaited.
        then: { $ref: ref },
        else: chain,
      };
    }
    delete record[composite];
    Object.assign(record, chain);
  };
  visit(document);
  return document;
}
