/**
 * The platform's operations as data: find the operation a request is (by method and concrete
 * path), one by its operationId or template, whether a request destroys, and the values of every
 * place it names a resource. Made from the generated model (scripts/generate.mjs), read once.
 */
import type { KindData, ModelData, OperationData, Reference } from './model-data.js';
import { MODEL_TEXT } from './operations.generated.js';

export type { Container, KindData, OperationData, Reference, Role } from './model-data.js';

interface Node {
  literal: Map<string, Node>;
  /** The child for a parameter segment, and the parameter's name per operation template. */
  param?: Node;
  /** The operations ending here, by method, with the names of the parameters on the way. */
  ends: Map<string, { operation: OperationData; names: string[] }>;
}

const newNode = (): Node => ({ literal: new Map(), ends: new Map() });

let model: ModelData | undefined;

/** The model, parsed the first time it is read. */
export function modelData(): ModelData {
  model ??= JSON.parse(MODEL_TEXT) as ModelData;
  return model;
}

let index: { byId: Map<string, OperationData>; root: Node } | undefined;

function built() {
  if (index) return index;
  const byId = new Map<string, OperationData>();
  const root = newNode();
  for (const operation of modelData().operations) {
    byId.set(operation.id, operation);
    let node = root;
    const names: string[] = [];
    for (const segment of operation.path.split('/').slice(1)) {
      const param = /^\{(\w+)\}$/.exec(segment)?.[1];
      if (param) {
        names.push(param);
        node.param ??= newNode();
        node = node.param;
      } else {
        let next = node.literal.get(segment);
        if (!next) {
          next = newNode();
          node.literal.set(segment, next);
        }
        node = next;
      }
    }
    node.ends.set(operation.method, { operation, names });
  }
  index = { byId, root };
  return index;
}

/** Every operation, in the model's order. */
export function operations(): readonly OperationData[] {
  return modelData().operations;
}

/** The kinds of resource a request can name, with where each is read. */
export function kinds(): Readonly<Record<string, KindData>> {
  return modelData().kinds;
}

export function operationById(id: string): OperationData | undefined {
  return built().byId.get(id);
}

/** A matched request: its operation and the values of its path parameters (decoded). */
export interface Match {
  operation: OperationData;
  params: Record<string, string>;
}

/**
 * The operation a request is: `method` and a concrete path (`/v2/droplets/7/actions`, with or
 * without a query). A literal segment is preferred to a parameter (`/v2/droplets/actions` is
 * the by-tag action, not droplet `actions`). HEAD is matched as the GET it reads like. Undefined
 * when no operation has the path and method.
 */
export function findOperation(method: string, path: string): Match | undefined {
  const wanted = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  const segments = (path.split('?')[0] ?? '').split('/').slice(1);
  const found = walk(built().root, segments, 0, wanted, []);
  if (!found) return undefined;
  return {
    operation: found.end.operation,
    params: Object.fromEntries(found.end.names.map((name, at) => [name, found.values[at] as string])),
  };
}

function walk(
  node: Node,
  segments: string[],
  at: number,
  method: string,
  values: string[],
): { end: { operation: OperationData; names: string[] }; values: string[] } | undefined {
  if (at === segments.length) {
    const end = node.ends.get(method);
    return end ? { end, values } : undefined;
  }
  const segment = segments[at] as string;
  let value: string;
  try {
    value = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  // A literal is matched decoded, as the platform routes the decoded path: `/v2/apps/%72egions`
  // is the list of regions there, so it must be here too (not an app named `regions`).
  const literal = node.literal.get(value);
  const byLiteral = literal && walk(literal, segments, at + 1, method, values);
  if (byLiteral) return byLiteral;
  if (!node.param || segment === '') return undefined;
  return walk(node.param, segments, at + 1, method, [...values, value]);
}

/** The methods the path has operations for (for "no DELETE of this path; it takes GET, PUT"). */
export function methodsOf(path: string): string[] {
  return ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((method) => findOperation(method, path));
}

/**
 * An operation named by its operationId (`droplets_create`) or as `METHOD /v2/path/{param}`,
 * a template or a concrete path. Undefined when there is none.
 */
export function namedOperation(name: string): OperationData | undefined {
  const text = name.trim();
  const byId = operationById(text);
  if (byId) return byId;
  const spaced = /^([A-Za-z]+)\s+(\/\S*)$/.exec(text);
  if (!spaced) return undefined;
  const method = (spaced[1] as string).toUpperCase();
  const path = spaced[2] as string;
  const template = operations().find(
    (operation) =>
      operation.method === method &&
      operation.path.replace(/\{[^}]*\}/g, '{}') === path.replace(/\{[^}]*\}/g, '{}'),
  );
  return template ?? findOperation(method, path)?.operation;
}

/**
 * Whether a request of the operation destroys or replaces: every DELETE, the operations the
 * reviewed table names, and for an action operation, the action types it names.
 */
export function destroys(operation: OperationData, body?: unknown): boolean {
  if (operation.destroys === true) return true;
  if (!operation.destroys) return false;
  const type = body !== null && typeof body === 'object' ? (body as { type?: unknown }).type : undefined;
  return typeof type === 'string' && operation.destroys.includes(type);
}

/** A value a request gives one of its references: an id, a name, a URN, or a typed pair. */
export type ReferenceValue = string | number;

/** The values a request gives a reference, with the sibling that narrows each (`within`). */
export interface Named {
  ref: Reference;
  value: ReferenceValue;
  /** For `typed` and `urn`: the kind the value says it is (`droplet`, `volume`...). */
  kind?: string;
  /** The value of the `within` sibling (a volume's region), when the request gives one. */
  within?: string;
}

/**
 * Every resource a request names, with the values it gives: path parameters, the query
 * parameters the model lists, and body fields (each item of a list, each value of a map). An
 * item of the wrong shape (an object where an id goes) is left out: the request's validation
 * refuses it, and it names nothing to read. `typed` and `urn` values carry the kind they say.
 */
export function namedBy(
  operation: OperationData,
  request: { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown },
): Named[] {
  const found: Named[] = [];
  for (const ref of operation.refs ?? []) {
    if (ref.in === 'path') {
      const value = request.params?.[ref.at];
      if (value !== undefined) found.push({ ref, value });
    } else if (ref.in === 'query') {
      const value = request.query?.[ref.at];
      const within = ref.within ? request.query?.[ref.within] : undefined;
      for (const each of Array.isArray(value) ? value : [value]) add(found, ref, each, within);
    } else {
      for (const { value, parent } of valuesAt(request.body, ref.at)) {
        const within = ref.within && isObject(parent) ? parent[ref.within] : undefined;
        add(found, ref, value, within);
      }
    }
  }
  return found;
}

function add(found: Named[], ref: Reference, value: unknown, within: unknown): void {
  const near = typeof within === 'string' && within !== '' ? { within } : {};
  if (ref.by === 'typed') {
    if (isObject(value) && isId(value.resource_id) && typeof value.resource_type === 'string')
      found.push({ ref, value: value.resource_id, kind: kindOfType(value.resource_type) });
    return;
  }
  if (ref.by === 'urn') {
    const urn = isObject(value) ? value.urn : value;
    if (typeof urn !== 'string') return;
    const [scheme, type, ...rest] = urn.split(':');
    if (scheme === 'do' && type && rest.length)
      found.push({ ref, value: rest.join(':'), kind: kindOfUrn(type) });
    return;
  }
  // An object where an id goes: the Go client sends a VM's volumes as `{ id }` (or `{ name }`).
  const id = isObject(value) ? (value.id ?? value.uuid ?? value.name) : value;
  if (isId(id) && id !== '') found.push({ ref, value: id, ...near });
}

/** The values at a body path such as `a.b[].c`, each with the object holding it. */
export function valuesAt(body: unknown, at: string): { value: unknown; parent: unknown }[] {
  let current: { value: unknown; parent: unknown }[] = [{ value: body, parent: undefined }];
  for (const step of at.split('.')) {
    const [, field, marks = ''] = /^([^[{]*)((?:\[\]|\{\})*)$/.exec(step) ?? [];
    const next: { value: unknown; parent: unknown }[] = [];
    for (const { value } of current) {
      if (!isObject(value) || field === undefined || !Object.hasOwn(value, field)) continue;
      let items: unknown[] = [value[field]];
      for (const mark of marks.match(/\[\]|\{\}/g) ?? []) {
        items = items.flatMap((item) =>
          mark === '[]' ? (Array.isArray(item) ? item : []) : isObject(item) ? Object.values(item) : [],
        );
      }
      for (const item of items) next.push({ value: item, parent: value });
    }
    current = next;
  }
  // A list at the end is its items: `volumes` names each volume it holds.
  return current.flatMap((entry) =>
    Array.isArray(entry.value) ? entry.value.map((value) => ({ value, parent: entry.parent })) : [entry],
  );
}

/** The kind a URN's type names (`dbaas` is a database), or the type itself. */
export function kindOfUrn(type: string): string {
  return Object.entries(kinds()).find(([, kind]) => kind.urn?.includes(type))?.[0] ?? type;
}

/** The kind a tag resource's `resource_type` names (`volume_snapshot` is a snapshot), or the type itself. */
export function kindOfType(type: string): string {
  return Object.entries(kinds()).find(([, kind]) => kind.types?.includes(type))?.[0] ?? type;
}

function isId(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
