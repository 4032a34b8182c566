/**
 * What `cloudcall api` sends: its PATH, method, fields and --input read into the arguments of
 * api-call (gh api's rules: `-f` text, `-F` typed values and files, `key[]` arrays, `key[sub]`
 * objects), checked against the operation, then run as every tool command runs (execute.ts):
 * guarded, audited, printed. Loaded by the api command when it runs.
 */
import { apiCallWholeTool, checkedCall } from '@cloudcall/api';
import { InputError } from '@cloudcall/core';
import { FileReadError, readBoundedFile } from '@cloudcall/core/internal';
import type { ApiFlags } from './api-command.js';
import { execute } from './execute.js';
import type { ToolLookup } from './names.js';
import type { GlobalOptions, Io } from './program.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** api-call's arguments. */
export type ApiCallArgs = { Method: string; Path: string; Query?: JsonObject; Body?: Json };

/** Runs `cloudcall api PATH` with its flags merged into cloudcall's options; the exit code. */
export async function runApi(
  path: string,
  options: GlobalOptions & ApiFlags,
  io: Io,
  version: string,
  findTool: ToolLookup,
): Promise<number> {
  const args = await apiCallArgs(path, options, io);
  let paged = false;
  // Checked here, before connecting, as the tool checks it before sending: an unknown path is
  // named even without a token. (A dry run puts what is wrong in its plan instead.)
  if (!options.dryRun) {
    const { operation } = checked(args, options.method === undefined);
    // A list follows its pages; an answer without pages is whole already (as gh's --paginate).
    paged = Boolean(
      options.paginate && operation.params?.some((param) => param.in === 'query' && param.name === 'page'),
    );
  }
  const output = options.output ?? (options.format || options.dryRun ? undefined : 'json');
  return execute(
    apiCallWholeTool,
    args,
    { ...options, all: paged, ...(output ? { output } : {}) },
    new Map(),
    [],
    io,
    version,
    findTool,
  );
}

/**
 * checkedCall, saying why the method is POST when it was not given and the request does not fit
 * (`cloudcall api /v2/images -f per_page=200` meant a GET).
 */
function checked(args: ApiCallArgs, implied: boolean): ReturnType<typeof checkedCall> {
  try {
    return checkedCall(args);
  } catch (error) {
    if (!(error instanceof InputError) || !implied || args.Method !== 'POST') throw error;
    if (error.issues.some((issue) => issue.argument === 'Method')) throw error;
    throw new InputError([
      ...error.issues,
      {
        argument: '',
        message: 'the method is POST as fields or --input were given (-X GET sends fields as the query)',
      },
    ]);
  }
}

/** The arguments of api-call that the command line gives: Method, Path, Query and Body. */
export async function apiCallArgs(
  path: string,
  flags: ApiFlags,
  io: Pick<Io, 'stdin'>,
): Promise<ApiCallArgs> {
  const stdin = stdinOnce(io);
  const fields = [
    ...(flags.rawField ?? []).map((field) => ({ field, flag: '-f', typed: false })),
    ...(flags.field ?? []).map((field) => ({ field, flag: '-F', typed: true })),
  ];
  const given = flags.method?.toUpperCase();
  const method = given ?? (!flags.paginate && (fields.length || flags.input !== undefined) ? 'POST' : 'GET');
  if (flags.paginate && method !== 'GET') {
    throw new InputError(`follows the pages of a list: it goes with GET, not ${method}`, '--paginate');
  }
  const [route = '', search] = splitQuery(apiPath(path));
  const query: JsonObject = {};
  for (const [name, value] of new URLSearchParams(search ?? '')) {
    const held = own(query, name);
    put(query, name, held === undefined ? value : [...(Array.isArray(held) ? held : [held]), value]);
  }
  const body = flags.input === undefined ? undefined : parseInput(await readInput(flags.input, stdin));
  // Fields are the query of a GET or HEAD, and of a request whose body --input gives.
  const inQuery = method === 'GET' || method === 'HEAD' || body !== undefined;
  const target: JsonObject = inQuery ? query : {};
  for (const { field, flag, typed } of fields) {
    const { keys, text } = fieldKeys(field, flag);
    const value = text === undefined ? undefined : typed ? await typedValue(text, flag, stdin) : text;
    setField(target, keys, value, field, flag);
  }
  for (const [name, value] of Object.entries(query)) checkQueryValue(name, value);
  return {
    Method: method,
    Path: route,
    ...(Object.keys(query).length ? { Query: query } : {}),
    ...(body !== undefined ? { Body: body } : inQuery || !fields.length ? {} : { Body: target }),
  };
}

/** `/v2/account` as given; `account`, `/account` and `v2/account` made `/v2/account`. */
function apiPath(path: string): string {
  const rooted = path.startsWith('/') ? path : `/${path}`;
  return /^\/v2(\/|\?|$)/.test(rooted) ? rooted : `/v2${rooted}`;
}

function splitQuery(path: string): [string, string | undefined] {
  const at = path.indexOf('?');
  return at === -1 ? [path, undefined] : [path.slice(0, at), path.slice(at + 1)];
}

/** A member of an object, only when it is the object's own (`__proto__` is just a name). */
function own(object: JsonObject, name: string): Json | undefined {
  return Object.hasOwn(object, name) ? object[name] : undefined;
}

function put(object: JsonObject, name: string, value: Json): void {
  Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
}

/** `tags[]=web` as its keys (`tags`, `` for an array's next item) and its text (none for `tags[]`). */
function fieldKeys(field: string, flag: string): { keys: string[]; text: string | undefined } {
  const equals = field.indexOf('=');
  const key = equals === -1 ? field : field.slice(0, equals);
  const text = equals === -1 ? undefined : field.slice(equals + 1);
  const match = /^([^[\]=]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!match) {
    throw new InputError(`${JSON.stringify(field)} is not key=value, key[]=value or key[sub]=value`, flag);
  }
  const keys = [
    match[1] as string,
    ...[...(match[2] ?? '').matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] ?? ''),
  ];
  if (text === undefined && keys.at(-1) !== '') {
    throw new InputError(
      `${JSON.stringify(field)} needs a value after "=" (key[] alone is an empty array)`,
      flag,
    );
  }
  return { keys, text };
}

/**
 * Puts a field's value where its keys say, as gh does: `a[b]` nests, `a[]` appends (`a[]` alone
 * makes an empty array), `a[][b]` adds to the array's last object unless it has `b` already, when
 * a new object starts. A key given twice, or as two kinds of value, is refused.
 */
function setField(
  target: JsonObject,
  keys: readonly string[],
  value: Json | undefined,
  field: string,
  flag: string,
): void {
  const refuse = (why: string) => new InputError(`${JSON.stringify(field)}: ${why}`, flag);
  let into = target;
  let array = false;
  let name: string | undefined;
  for (const key of keys) {
    if (key === '') {
      if (array) throw refuse('arrays of arrays cannot be written as fields (use --input)');
      array = true;
      continue;
    }
    if (name !== undefined) {
      const held = own(into, name);
      if (array) {
        if (held !== undefined && !Array.isArray(held))
          throw refuse(`${name} is given as an array and as a value`);
        const items = (held ?? []) as Json[];
        const last = items.at(-1);
        if (isObject(last) && !Object.hasOwn(last, key)) into = last;
        else {
          const next: JsonObject = {};
          put(into, name, [...items, next]);
          into = next;
        }
      } else if (held === undefined) {
        const next: JsonObject = {};
        put(into, name, next);
        into = next;
      } else if (isObject(held)) into = held;
      else throw refuse(`${name} is given as an object and as a value`);
      array = false;
    }
    name = key;
  }
  const last = name as string;
  const held = own(into, last);
  if (array) {
    if (held !== undefined && !Array.isArray(held))
      throw refuse(`${last} is given as an array and as a value`);
    put(into, last, [...((held ?? []) as Json[]), ...(value === undefined ? [] : [value])]);
  } else if (held !== undefined) {
    throw refuse(`${last} is given twice (key[]=value makes an array)`);
  } else put(into, last, value as Json);
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `-F`'s value: true, false and null, numbers, a file's text (`@FILE`) or stdin's (`@-`), else text. */
async function typedValue(text: string, flag: string, stdin: Stdin): Promise<Json> {
  if (text.startsWith('@')) return readInput(text.slice(1), stdin, flag);
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (/^-?\d+$/.test(text)) {
    // An integer past 2^53 would lose digits as a number: it stays text.
    const number = Number(text);
    return Number.isSafeInteger(number) ? number : text;
  }
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) return Number(text);
  return text;
}

/** The largest file `--input FILE` or `-F key=@FILE` reads. */
export const INPUT_MAX_BYTES = 8 * 1024 * 1024;

/**
 * A file's text, or stdin's for `-`. Only a regular file of at most INPUT_MAX_BYTES is read: a
 * FIFO with no writer, a device such as /dev/zero or a directory is refused, not waited on.
 */
async function readInput(file: string, stdin: Stdin, flag = '--input'): Promise<string> {
  if (file === '-') return stdin(flag);
  if (file === '') throw new InputError('names no file after "@"', flag);
  try {
    return readBoundedFile(file, INPUT_MAX_BYTES);
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    const why =
      error.code === 'ENOENT'
        ? 'no such file'
        : error.reason === 'not-a-file'
          ? `${error.message}; give a file, or - for stdin`
          : error.message;
    throw new InputError(`cannot read ${file}: ${why}`, flag);
  }
}

/** The body --input gives, as JSON. The text is not quoted back: it may hold a secret. */
function parseInput(text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch (error) {
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    const where = position === undefined ? '' : ` at character ${Number(position) + 1}`;
    throw new InputError(`is not valid JSON${where} (the body must be JSON)`, '--input');
  }
}

/** Reads stdin for a flag (`--input -`, `-F key=@-`). */
type Stdin = (flag: string) => Promise<string>;

/** Stdin's text, read at most once. */
function stdinOnce(io: Pick<Io, 'stdin'>): Stdin {
  let read = false;
  return async (flag) => {
    if (read) throw new InputError('stdin can be read once: give --input - or one @- only', flag);
    read = true;
    const stdin = io.stdin;
    if (!stdin || stdin.isTTY)
      throw new InputError('reads stdin, which is a terminal: pipe the value in', flag);
    // Bytes first, decoded once (a character may be split between chunks), and no more than a
    // file may hold: `yes | cloudcall api ... --input -` is refused, not read forever.
    const chunks: Buffer[] = [];
    let length = 0;
    for await (const chunk of stdin) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      length += bytes.length;
      // Leaving the loop ends the read (the iterator's return destroys the stream).
      if (length > INPUT_MAX_BYTES) {
        throw new InputError(`stdin holds more than ${INPUT_MAX_BYTES} bytes, the most a body takes`, flag);
      }
      chunks.push(bytes);
    }
    return Buffer.concat(chunks, length).toString('utf8');
  };
}

/** A query parameter takes text, a number, true or false, or a list of them. */
function checkQueryValue(name: string, value: Json): void {
  const scalar = (item: Json) => item !== null && typeof item !== 'object';
  if (scalar(value) || (Array.isArray(value) && value.every(scalar))) return;
  throw new InputError(
    `is ${value === null ? 'null' : Array.isArray(value) ? 'a list holding more than text, numbers or true/false' : 'an object'}: a query parameter takes text, a number, true or false, or a list of them`,
    `Query.${name}`,
  );
}
