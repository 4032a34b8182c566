/**
 * The shape of answers.generated.ts, made by scripts/generate.mjs from the API description: how
 * the generic emulation answers each operation that no hand model answers.
 */
import { ANSWERS_TEXT } from './answers.generated.js';

/**
 * What an operation does: `create` adds an item to its collection, `list` pages through them,
 * `read` / `replace` / `merge` / `update` (a POST on the item) / `delete` act on one; `get`,
 * `set` and `unset` read and write settings kept at one path; `answer` answers its template;
 * `gone` answers the error of an operation the platform has withdrawn.
 */
export type Role =
  | 'create'
  | 'list'
  | 'read'
  | 'replace'
  | 'merge'
  | 'update'
  | 'delete'
  | 'get'
  | 'set'
  | 'unset'
  | 'answer'
  | 'gone';

/**
 * A field a request may fill: the values of an enum, a list of such values (`each`), or a type
 * code with optional `:min:max` bounds: `s` text, `u` a UUID, `uri`, `ipv4`, `email`, `d` a
 * date-time (set by the sandbox, never by a request), `i` an integer, `n` a number, `b` a
 * boolean, `S` a list of texts; a leading `?` also takes null.
 */
export type FieldCode = string | string[] | { each: string[] };

export interface Collection {
  /** The item's field holding its key, when it shows it. */
  key?: string;
  /** What a key is: a number handed out in turn, a UUID, or the name the create gives. */
  id: 'integer' | 'uuid' | 'name';
  /** Items must be created before they are read, changed or deleted (404 otherwise). */
  strict?: true;
}

export interface OperationAnswer {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  status: number;
  role: Role;
  /** A content type other than JSON (a kubeconfig's YAML). */
  type?: string;
  /** A minimal answer valid for the status; absent when the answer has no body. */
  body?: unknown;
  /** The collection's path template (`{}` for each parameter), for the roles on items. */
  collection?: string;
  /** Where the body holds the item: a property, or '' for the body itself. */
  item?: string;
  /** The fields a request may fill in the item or each listed item, or the name of a shared set. */
  fields?: Record<string, FieldCode> | string;
  /** The item's field holding its key. */
  key?: string;
  /** The property holding a list's items, and a minimal item. */
  list?: string;
  element?: unknown;
  /** The list's page links are named `previous` (not `prev`). */
  previous?: true;
  /** For a replace: the fields its request can name (the others are kept). */
  sets?: string[];
}

export interface GenericData {
  version: string;
  collections: Record<string, Collection>;
  /** Field sets shared by several operations, by the schema's name. */
  fields: Record<string, Record<string, FieldCode>>;
  operations: Record<string, OperationAnswer>;
}

let parsed: GenericData | undefined;

/** The generated data, parsed when first needed. */
export function genericData(): GenericData {
  parsed ??= JSON.parse(ANSWERS_TEXT) as GenericData;
  return parsed;
}
