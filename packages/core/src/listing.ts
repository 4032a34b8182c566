/**
 * A tool as an agent host lists it: name, description, a compact input JSON Schema and the hints
 * that differ from MCP's defaults. An agent pays for every byte of a tool list in every turn, so
 * the listing keeps what a model needs to call a tool right (types, enums, defaults, ranges that
 * matter, one description per argument) and leaves out what only validation needs: patterns,
 * length limits, safe-integer bounds, `additionalProperties: false`. Arguments are still checked
 * in full, with the tool's zod schema, before any request; a value the listing let through that
 * the schema refuses comes back as an input error naming the argument.
 *
 * Objects nested inside an argument are listed as a one-line shape in the argument's
 * description (`[{EntryProtocol:http|https,EntryPort:int,TlsPassthrough?:bool}]`), which a
 * model reads as well as a nested schema at a third of the bytes.
 */
import { UUID_PATTERN } from './args.js';
import { type AnyTool, inputJsonSchema, type ToolAnnotations } from './tool.js';

type Schema = Record<string, unknown>;

/** A tool's entry in an MCP tools/list result. */
export interface ToolListing {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties?: Record<string, Schema>; required?: string[] };
  annotations: Partial<ToolAnnotations>;
}

/** MCP's defaults for absent hints (the spec's ToolAnnotations). */
const DEFAULT_HINTS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/**
 * The hints a client needs: a read-only tool says only that (`destructiveHint` and
 * `idempotentHint` mean nothing for it); any other tool always says whether it is destructive,
 * even where that is MCP's default, so that a host which fails to apply the default still asks
 * before a delete. `idempotentHint` and `openWorldHint` are listed when they differ from MCP's
 * defaults (false and true).
 */
export function listedAnnotations(hints: ToolAnnotations): Partial<ToolAnnotations> {
  const listed: Partial<ToolAnnotations> = hints.readOnlyHint
    ? { readOnlyHint: true }
    : { destructiveHint: hints.destructiveHint };
  if (!hints.readOnlyHint && hints.idempotentHint !== DEFAULT_HINTS.idempotentHint) {
    listed.idempotentHint = hints.idempotentHint;
  }
  if (hints.openWorldHint !== DEFAULT_HINTS.openWorldHint) listed.openWorldHint = hints.openWorldHint;
  return listed;
}

/** The listing of one tool. */
export function toolListing(tool: AnyTool): ToolListing {
  return {
    name: tool.name,
    // A one-sentence description's closing period tells a model nothing and costs a byte on every turn.
    description: tool.description.replace(/\.$/, ''),
    inputSchema: listingSchema(tool),
    annotations: listedAnnotations(tool.annotations),
  };
}

/** A tool's input JSON Schema as it is listed (see the module comment). */
export function listingSchema(tool: AnyTool): ToolListing['inputSchema'] {
  const full = inputJsonSchema(tool);
  const properties: Record<string, Schema> = {};
  for (const [name, schema] of Object.entries((full.properties ?? {}) as Record<string, Schema>)) {
    properties[name] = listArgument(schema);
  }
  const listed: ToolListing['inputSchema'] = { type: 'object' };
  if (Object.keys(properties).length) listed.properties = properties;
  const required = full.required as string[] | undefined;
  if (required?.length) listed.required = required;
  return listed;
}

const UUID_SOURCE = UUID_PATTERN.source;

/** One argument: scalars and scalar arrays keep their schema; nested objects become a shape. */
function listArgument(schema: Schema): Schema {
  const plain = simplify(schema);
  const description = plain.description as string | undefined;
  if (plain.type === 'object' || (plain.type === 'array' && (plain.items as Schema)?.type === 'object')) {
    const shape = shapeOf(plain);
    const listed: Schema = { type: plain.type };
    if (plain.type === 'array') listed.items = { type: 'object' };
    if ('default' in plain) listed.default = plain.default;
    // "Kept if omitted: [{…}]": the description, then the shape it describes.
    listed.description = description ? `${description.replace(/\.$/, '')}: ${shape}` : shape;
    return listed;
  }
  return plain;
}

/**
 * A schema without what only validation needs. An "integer as string" or "bool as string" union
 * (text, or the JSON value) lists as one schema with both types, `["string", "integer"]`: the
 * spec types those arguments as text, and a model may send either.
 */
function simplify(schema: Schema, nested = false): Schema {
  if (Array.isArray(schema.anyOf)) {
    const raw = schema.anyOf as Schema[];
    const branches = raw.map((branch) => simplify(branch, true));
    const typed = branches.filter((_, index) => !isTextForm(raw[index] as Schema, raw));
    const { anyOf: _, ...rest } = schema;
    if (typed.length === 1 && typed.length < branches.length) {
      const { type, ...value } = typed[0] as Schema;
      return { ...simplifyOwn(rest, nested), ...value, type: ['string', type], ...pick(rest, 'default') };
    }
    return { ...simplifyOwn(rest, nested), anyOf: branches };
  }
  return simplifyOwn(schema, nested);
}

/** One schema's own keywords; a nested one (an item, a property, a branch) loses its description. */
function simplifyOwn(schema: Schema, nested: boolean): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    switch (key) {
      case 'description':
        if (!nested) out.description = value;
        break;
      case '$schema':
      case 'minLength':
      case 'maxLength':
      case 'minItems':
      case 'maxItems':
      case 'propertyNames':
        break;
      case 'pattern':
        if (value === UUID_SOURCE) out.format = 'uuid';
        break;
      case 'additionalProperties':
        // Open objects (config maps) are described by their shape; `false` is validation's business.
        break;
      case 'minimum':
      case 'maximum':
        if (Math.abs(value as number) !== Number.MAX_SAFE_INTEGER) {
          out[key] = value;
        }
        break;
      case 'exclusiveMinimum':
        // A positive id: its description says it is an id.
        if (value !== 0) out[key] = value;
        break;
      case 'items':
        out.items = simplify(value as Schema, true);
        break;
      case 'properties':
        out.properties = Object.fromEntries(
          Object.entries(value as Record<string, Schema>).map(([name, sub]) => [name, simplify(sub, true)]),
        );
        break;
      default:
        out[key] = value;
    }
  }
  return out;
}

/**
 * The text branch of an "integer/bool as string" union: a string beside an integer, number or
 * boolean branch (numeric text, "true"/"false"), which the JSON type lists for.
 */
function isTextForm(branch: Schema, branches: Schema[]): boolean {
  return (
    branch.type === 'string' &&
    branches.some((other) => ['integer', 'number', 'boolean'].includes(other.type as string))
  );
}

function pick(schema: Schema, ...keys: string[]): Schema {
  return Object.fromEntries(keys.filter((key) => key in schema).map((key) => [key, schema[key]]));
}

/** Objects with more keys than this list as `{…}`: their description says where the keys come from. */
const MAX_SHAPE_KEYS = 8;

/** A schema as a one-line type: `{Port:int,Protocol:tcp|udp,Sources?:[str]}`. */
export function shapeOf(schema: Schema): string {
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).map(String).join('|');
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Schema[]).map(shapeOf).join('|');
  if (Array.isArray(schema.type)) return schema.type.map((type) => shapeOf({ ...schema, type })).join('|');
  switch (schema.type) {
    case 'integer':
      return 'int';
    case 'number':
      return 'num';
    case 'boolean':
      return 'bool';
    case 'string':
      return schema.format === 'uuid' ? 'uuid' : 'str';
    case 'array': {
      const item = shapeOf((schema.items as Schema) ?? {});
      return item.includes('|') && !item.startsWith('{') ? `(${item})[]` : `[${item}]`;
    }
    case 'object': {
      const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
      if (!properties.length || properties.length > MAX_SHAPE_KEYS) return '{…}';
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const fields = properties.map(
        ([name, sub]) => `${name}${required.has(name) ? '' : '?'}:${shapeOf(sub)}`,
      );
      return `{${fields.join(',')}}`;
    }
    default:
      return 'any';
  }
}
