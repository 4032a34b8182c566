/**
 * From a tool's JSON Schema to command-line flags and back: each argument is a flag named as
 * the argument; flag text becomes the JSON value the tool's schema expects.
 */

export interface JsonSchema {
  type?: string | string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  enum?: unknown[];
  pattern?: string;
  default?: unknown;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

/** `json`: an object or an array (api-call's Body), given as JSON. */
export type FlagKind = 'string' | 'number' | 'boolean' | 'array' | 'object' | 'json' | 'text-or-number';

export interface FlagSpec {
  name: string;
  kind: FlagKind;
  required: boolean;
  description: string;
  defaultValue: unknown;
  choices: string[] | undefined;
  /** For arrays: whether the items are numbers (VM ids) rather than text. */
  numericItems: boolean;
  /** The pattern its text (or, for an array, each item's) must match: what an example must fit. */
  pattern?: string | undefined;
  /**
   * For a union of text and numbers or booleans (`ID`: a snapshot's number or a volume snapshot's
   * UUID), and for arrays of such items: reads a word as the union's member that takes it.
   */
  union?: UnionReader | undefined;
}

/** Reads a word as the member of a text-and-number (or -boolean) union that takes it. */
export type UnionReader = (word: string) => unknown;

function typesOf(schema: JsonSchema): string[] {
  if (schema.type) return ([] as string[]).concat(schema.type);
  const alternatives = schema.anyOf ?? schema.oneOf ?? [];
  return alternatives.flatMap(typesOf);
}

function kindOf(schema: JsonSchema): FlagKind {
  const types = new Set(typesOf(schema));
  if (types.has('string') && (types.has('integer') || types.has('number') || types.has('boolean'))) {
    return 'text-or-number';
  }
  if (types.has('string')) return 'string';
  if (types.has('integer') || types.has('number')) return 'number';
  if (types.has('boolean')) return 'boolean';
  // Commas could not tell an object's members from an array's items: JSON only.
  if (types.has('array') && types.has('object')) return 'json';
  if (types.has('array')) return 'array';
  return 'object';
}

export function flagsOf(schema: JsonSchema): FlagSpec[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    kind: kindOf(property),
    required: required.has(name),
    description: property.description ?? '',
    defaultValue: property.default,
    choices: property.enum?.every((v) => typeof v === 'string') ? (property.enum as string[]) : undefined,
    numericItems: property.items ? kindOf(property.items) === 'number' : false,
    pattern: property.pattern ?? property.items?.pattern,
    union: unionReader(property.items ?? property),
  }));
}

/**
 * For a union that takes text and numbers or booleans: a word stays text when a text member takes
 * it (an "integer as string" takes "2"), else becomes the number or boolean it spells when the
 * union has that member (a snapshot id "123" is the number 123: its text member takes UUIDs only).
 * Undefined for any other schema.
 */
function unionReader(schema: JsonSchema): UnionReader | undefined {
  const members = schema.anyOf ?? schema.oneOf;
  if (!members || kindOf(schema) !== 'text-or-number') return undefined;
  const types = new Set(members.flatMap(typesOf));
  const texts = members.filter((member) => typesOf(member).includes('string'));
  const textTakes = (word: string) =>
    texts.some(
      (member) =>
        (member.enum === undefined || member.enum.includes(word)) &&
        (member.pattern === undefined || new RegExp(member.pattern, 'u').test(word)),
    );
  return (word) => {
    if (textTakes(word)) return word;
    if ((types.has('integer') || types.has('number')) && /^\s*-?\d+(\.\d+)?\s*$/.test(word))
      return Number(word);
    if (types.has('boolean') && /^(true|false)$/i.test(word)) return word.toLowerCase() === 'true';
    return word;
  };
}

/** Thrown for flag text that cannot be read as its argument's type. */
export class FlagError extends Error {
  constructor(
    readonly argument: string,
    /** What is wrong, without the argument's name (the CLI names the flag as it was typed). */
    readonly detail: string,
  ) {
    super(`argument ${argument}: ${detail}`);
  }
}

/**
 * Reads one flag's text as the JSON value of its argument. Numbers become numbers, booleans
 * true/false, arrays and objects JSON (a list of plain words may also be given comma-separated;
 * an argument that takes an object or an array, JSON only).
 * A number or boolean that does not read is refused here; other text is passed through, for the
 * tool's own validation to name.
 */
export function readFlag(spec: FlagSpec, text: string | boolean): unknown {
  if (typeof text === 'boolean') return text;
  switch (spec.kind) {
    case 'number': {
      const value = Number(text);
      if (text.trim() !== '' && Number.isFinite(value)) return value;
      throw new FlagError(spec.name, `expected a number, got ${JSON.stringify(text)}`);
    }
    case 'boolean':
      if (/^(true|yes|1)$/i.test(text)) return true;
      if (/^(false|no|0)$/i.test(text)) return false;
      throw new FlagError(spec.name, `expected true or false, got ${JSON.stringify(text)}`);
    case 'array': {
      const trimmed = text.trim();
      if (trimmed.startsWith('[')) return parseJson(spec.name, trimmed);
      const items = trimmed === '' ? [] : trimmed.split(',').map((item) => item.trim());
      if (spec.union) return items.map(spec.union);
      return spec.numericItems ? items.map((item) => (/^-?\d+$/.test(item) ? Number(item) : item)) : items;
    }
    case 'object':
    case 'json':
      return parseJson(spec.name, text);
    case 'text-or-number':
      return spec.union ? spec.union(text) : text;
    default:
      return text;
  }
}

/**
 * Parses a flag's JSON. The parser's own message quotes the text it choked on, which may be a
 * secret (a password in a JSON object), so the error says only where the JSON broke.
 */
function parseJson(argument: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    const where = position === undefined ? '' : ` at character ${Number(position) + 1}`;
    throw new FlagError(argument, `expected JSON; the value is not valid JSON${where} (value not shown)`);
  }
}
