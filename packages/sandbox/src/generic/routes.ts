/**
 * The generic emulation: every operation of the API description that no hand model answers,
 * answered from what scripts/generate.mjs made of the description (answers.generated.ts) over
 * state kept in the world (families/generic.ts), so it lasts like the rest.
 *
 * - A POST to a collection creates an item, keyed by a number handed out in turn, a UUID or the
 *   name the request gives (as the description's item schema and path say); the collection's GET
 *   lists them in pages as the platform does (`links.pages`, `meta.total`); GET, PUT, PATCH and
 *   DELETE on path/{key} read, replace (what the request can name; the rest is kept), merge and
 *   delete one: an unknown key is a 404 where the collection has a read.
 * - Settings written and read at one path (a cluster's autoscale settings) are kept per path.
 * - Anything else (an action, a report, a catalogue) answers the description's minimal answer.
 * - Answers are those minimal answers with the item's key and what requests gave it (simple
 *   values whose type fits the field: name, region, size, tags...) filled in.
 * - A path under a resource that does not exist is a 404, whether a hand model or this layer
 *   keeps the resource; request bodies and queries are not checked any further.
 *
 * A hand model replaces the generic one for an operation by having a route of the same method and
 * path (parameter names aside): its route is listed and the generic one is no longer made.
 */

import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { cloneData } from '../clone.js';
import type { GenericItem } from '../families/generic.js';
import {
  FileBody,
  HttpError,
  notFound,
  paginate,
  type Reply,
  type Route,
  type SandboxRequest,
  unprocessable,
} from '../http.js';
import type { RouteMatch } from '../router.js';
import { iso } from '../time.js';
import { nextId, type World } from '../world.js';
import { type Collection, type FieldCode, genericData, type OperationAnswer, type Role } from './data.js';

/**
 * Operations whose literal path a hand model answers through one of its parameters: the projects
 * model takes `default` for `{id}`. No generic route is made for them.
 */
const ANSWERED_BY_HAND = new Set([
  'projects_get_default',
  'projects_update_default',
  'projects_patch_default',
  'projects_list_resources_default',
  'projects_assign_resources_default',
]);

/** Where integer keys start, so that they look like the platform's. */
const FIRST_ID = 100_000_001;

// Stricter than the description's formats, so that a value taken is one the description takes.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const URI = /^[a-z][a-z0-9+.-]*:\/\/[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?(\/[\w\-.~%/]*)?$/i;
const IPV4 = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const EMAIL = /^[\w.+-]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/i;

/** A non-JSON answer for each content type the description declares for one (a kubeconfig). */
const FILES: Record<string, { extension: string; text: string }> = {
  'application/yaml': {
    extension: 'yaml',
    text: 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n',
  },
};

/** Finds the route for a method and path among all the sandbox's routes (hand and generic). */
export type Lookup = (method: string, path: string) => RouteMatch;

/** An operation as served: its generated answer and the role it plays here. */
interface Plan extends OperationAnswer {
  operationId: string;
  /** Its role, or `answer` when the state it would act on belongs to a hand model. */
  acts: Role;
  fieldSet: Record<string, FieldCode>;
}

const shapeOf = (path: string) => path.replace(/\{\w+\}/g, '{}');

/** A path template's first `count` segments (all by default), each parameter filled from `params`. */
function concrete(template: string, params: Record<string, string>, count?: number): string {
  return template
    .split('/')
    .slice(0, count)
    .map((segment) => {
      const name = /^\{(\w+)\}$/.exec(segment)?.[1];
      return name === undefined ? segment : encodeURIComponent(params[name] ?? '');
    })
    .join('/');
}

/** Whether a value is one a field of that code holds. */
export function fits(code: FieldCode, value: unknown): boolean {
  if (Array.isArray(code)) return typeof value === 'string' && code.includes(value);
  if (typeof code === 'object')
    return (
      Array.isArray(value) && value.every((each) => typeof each === 'string' && code.each.includes(each))
    );
  let kind = code;
  if (kind.startsWith('?')) {
    if (value === null) return true;
    kind = kind.slice(1);
  }
  const [type, min, max] = kind.split(':');
  const within = (n: number) => (!min || n >= Number(min)) && (!max || n <= Number(max));
  switch (type) {
    case 's':
      return typeof value === 'string' && within([...value].length);
    case 'u':
      return typeof value === 'string' && UUID.test(value);
    case 'uri':
      return typeof value === 'string' && URI.test(value);
    case 'ipv4':
      return typeof value === 'string' && IPV4.test(value);
    case 'email':
      return typeof value === 'string' && EMAIL.test(value);
    case 'i':
      return Number.isSafeInteger(value) && within(value as number);
    case 'n':
      return typeof value === 'number' && Number.isFinite(value) && within(value);
    case 'b':
      return typeof value === 'boolean';
    case 'S':
      return Array.isArray(value) && value.every((each) => typeof each === 'string');
    default:
      // `d`: times are the sandbox's to set.
      return false;
  }
}

/**
 * The routes of every operation of the description that `hand` has no route for (same method and
 * path shape). `lookup` finds a route among all of the sandbox's, to check that what a path names
 * exists.
 */
export function genericRoutes(hand: readonly Pick<Route, 'method' | 'path'>[], lookup: Lookup): Route[] {
  const data = genericData();
  const handShapes = new Set(hand.map((route) => `${route.method} ${shapeOf(route.path)}`));
  const served = Object.entries(data.operations).filter(
    ([id, op]) => !handShapes.has(`${op.method} ${shapeOf(op.path)}`) && !ANSWERED_BY_HAND.has(id),
  );
  // A collection is this layer's when its create is, settings when their read is.
  const collections = new Set(served.filter(([, op]) => op.role === 'create').map(([, op]) => op.collection));
  const settings = new Set(served.filter(([, op]) => op.role === 'get').map(([, op]) => shapeOf(op.path)));
  const plans = new Map<string, Plan>();
  /** Every field any operation on a collection (or settings) shows, and the codes it may have. */
  const accepted = new Map<string, Map<string, FieldCode[]>>();
  for (const [operationId, op] of served) {
    const owner = op.collection ?? shapeOf(op.path);
    const ours = op.collection ? collections.has(op.collection) : settings.has(owner);
    const acts = op.role === 'answer' || op.role === 'gone' || ours ? op.role : 'answer';
    const fieldSet = (typeof op.fields === 'string' ? data.fields[op.fields] : op.fields) ?? {};
    plans.set(operationId, { ...op, operationId, acts, fieldSet });
    if (acts === 'answer' || acts === 'gone') continue;
    const fields = accepted.get(owner) ?? new Map<string, FieldCode[]>();
    accepted.set(owner, fields);
    for (const [name, code] of Object.entries(fieldSet))
      fields.set(name, [...(fields.get(name) ?? []), code]);
  }

  /** The simple values of a body that some operation on `owner` shows. */
  const acceptedFields = (owner: string, body: Record<string, unknown>) => {
    const fields = accepted.get(owner);
    const kept: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(body)) {
      if (fields?.get(name)?.some((code) => fits(code, value))) kept[name] = value;
    }
    return kept;
  };

  /** The item a strict collection keeps at `path` (a concrete item path), if any. */
  const itemAt = (world: World, plan: Plan, params: Record<string, string>): GenericItem | undefined => {
    const items = world.genericItems[concrete(plan.path, params, -1)];
    const key = params[plan.path.slice(plan.path.lastIndexOf('{') + 1, -1)];
    return items?.find((item) => item.key === key);
  };

  /** Throws the 404 of the first resource the path names that does not exist. */
  const checkNamed = (plan: Plan, request: SandboxRequest, world: World, ownKey: boolean) => {
    const segments = plan.path.split('/');
    segments.forEach((segment, index) => {
      if (!/^\{\w+\}$/.test(segment) || (ownKey && index === segments.length - 1)) return;
      const path = concrete(plan.path, request.params, index + 1);
      const found = lookup('GET', path);
      if (!found.route || found.route.prepare) return;
      const read = found.route.operationId ? plans.get(found.route.operationId) : undefined;
      if (read) {
        const collection = read.collection ? data.collections[read.collection] : undefined;
        if (read.acts === 'read' && collection?.strict && !itemAt(world, read, found.params))
          throw notFound();
        return;
      }
      try {
        const view = {
          ...request,
          method: 'GET',
          path,
          params: found.params,
          query: new URLSearchParams(),
          body: {},
        };
        found.route.handler(view, world);
      } catch (error) {
        if (error instanceof HttpError && error.status === 404) throw error;
      }
    });
  };

  const handler = (plan: Plan) => (request: SandboxRequest, world: World) => {
    const onItem = ['read', 'replace', 'merge', 'update', 'delete'].includes(plan.acts);
    checkNamed(plan, request, world, onItem);
    return answer(plan, request, world);
  };

  function answer(plan: Plan, request: SandboxRequest, world: World): Reply {
    const collection = plan.collection ? data.collections[plan.collection] : undefined;
    const owner = plan.collection ?? shapeOf(plan.path);
    switch (plan.acts) {
      case 'gone':
        throw new HttpError(
          plan.status,
          (STATUS_CODES[plan.status] ?? 'error').toLowerCase().replace(/\W+/g, '_'),
          'The platform no longer offers this operation.',
        );
      case 'create': {
        const path = concrete(plan.path, request.params);
        const items = world.genericItems[path] ?? [];
        const key = newKey(world, plan, collection as Collection, request.body);
        if (items.some((item) => item.key === key)) throw unprocessable(`${key} already exists`);
        const item: GenericItem = {
          key,
          fields: acceptedFields(owner, request.body),
          created_ms: request.now,
          updated_ms: request.now,
        };
        world.genericItems[path] = [...items, item];
        return { status: plan.status, body: render(plan, item) };
      }
      case 'list': {
        const items = (world.genericItems[concrete(plan.path, request.params)] ?? []).map((item) =>
          filled(structuredClone(plan.element) as Record<string, unknown>, plan, item),
        );
        return { status: plan.status, body: listed(plan, items, request) };
      }
      case 'read':
      case 'replace':
      case 'merge':
      case 'update':
      case 'delete': {
        const stored = itemAt(world, plan, request.params);
        const key = request.params[plan.path.slice(plan.path.lastIndexOf('{') + 1, -1)] ?? '';
        if (!stored && (collection?.strict || (collection?.id === 'integer' && !/^[1-9]\d*$/.test(key))))
          throw notFound();
        // An item of a collection without a read exists as its path names it.
        const item = stored ?? { key, fields: {}, created_ms: request.now, updated_ms: request.now };
        if (plan.acts === 'delete') {
          if (stored) remove(world, concrete(plan.path, request.params), stored);
          return { status: plan.status, body: structuredClone(plan.body) };
        }
        if (plan.acts !== 'read') {
          const kept = { ...item.fields };
          if (plan.acts === 'replace') for (const name of plan.sets ?? []) delete kept[name];
          item.fields = { ...kept, ...acceptedFields(owner, request.body) };
          item.updated_ms = request.now;
        }
        return { status: plan.status, body: render(plan, item) };
      }
      case 'get':
      case 'set':
      case 'unset': {
        const path = concrete(plan.path, request.params);
        if (plan.acts === 'unset') {
          delete world.genericSettings[path];
          return { status: plan.status, body: structuredClone(plan.body) };
        }
        const current = world.genericSettings[path] ?? { fields: {}, updated_ms: request.now };
        if (plan.acts === 'set') {
          current.fields = { ...current.fields, ...acceptedFields(owner, request.body) };
          current.updated_ms = request.now;
          world.genericSettings[path] = current;
        }
        const item = {
          key: '',
          fields: current.fields,
          created_ms: current.updated_ms,
          updated_ms: current.updated_ms,
        };
        return { status: plan.status, body: render(plan, item) };
      }
      default: {
        const file = plan.type ? FILES[plan.type] : undefined;
        if (plan.type && file) {
          const name = plan.path
            .split('/')
            .filter((segment) => !segment.startsWith('{'))
            .pop();
          return {
            status: plan.status,
            body: new FileBody(plan.type, `${name}.${file.extension}`, Buffer.from(file.text)),
          };
        }
        return { status: plan.status, body: structuredClone(plan.body) };
      }
    }
  }

  return [...plans.values()].map((plan) => ({
    method: plan.method,
    path: plan.path,
    operationId: plan.operationId,
    handler: handler(plan),
  }));
}

/** A new item's key: the next number of its collection, a UUID, or the name its create gives. */
function newKey(world: World, plan: Plan, collection: Collection, body: Record<string, unknown>): string {
  if (collection.id === 'integer') {
    const kind = `generic ${plan.collection}`;
    world.nextId[kind] ??= FIRST_ID;
    return String(nextId(world, kind));
  }
  if (collection.id === 'uuid') return randomUUID();
  const field = collection.key ?? 'name';
  const value = body[field] ?? body.name;
  if (typeof value !== 'string' || value.trim() === '')
    throw unprocessable(`${field} is required and must be a non-empty string`);
  return value;
}

/** Removes an item, and everything kept under its path (a cluster's node pools, its settings). */
function remove(world: World, path: string, item: GenericItem): void {
  const collection = path.slice(0, path.lastIndexOf('/'));
  world.genericItems[collection] = (world.genericItems[collection] ?? []).filter((each) => each !== item);
  for (const kept of [world.genericItems, world.genericSettings])
    for (const under of Object.keys(kept)) if (under.startsWith(`${path}/`)) delete kept[under];
}

/** An item's fields filled into `target`: what requests gave it, its times and its key. */
function filled(target: Record<string, unknown>, plan: Plan, item: GenericItem): Record<string, unknown> {
  for (const [name, code] of Object.entries(plan.fieldSet)) {
    if (code === 'd' || code === '?d') {
      if (name.startsWith('created')) target[name] = iso(item.created_ms);
      else if (name.startsWith('updated')) target[name] = iso(item.updated_ms);
    } else if (Object.hasOwn(item.fields, name) && fits(code, item.fields[name])) {
      target[name] = cloneData(item.fields[name]);
    }
  }
  if (plan.key && item.key !== '') {
    const code = plan.fieldSet[plan.key];
    target[plan.key] = typeof code === 'string' && /^\??i/.test(code) ? Number(item.key) : item.key;
  }
  return target;
}

/** The operation's answer with the item filled in where it holds one. */
function render(plan: Plan, item: GenericItem): unknown {
  const body = structuredClone(plan.body);
  if (plan.item === undefined || body === null || typeof body !== 'object') return body;
  const target = plan.item === '' ? body : (body as Record<string, unknown>)[plan.item];
  if (target && typeof target === 'object') filled(target as Record<string, unknown>, plan, item);
  return body;
}

/** A list's answer: the items, in pages where the answer has `links` or `meta`. */
function listed(plan: Plan, items: Record<string, unknown>[], request: SandboxRequest): unknown {
  const body = structuredClone(plan.body) as Record<string, unknown>;
  const list = plan.list as string;
  if (!('links' in body) && !('meta' in body)) {
    body[list] = items;
    return body;
  }
  const page = paginate(items, request);
  body[list] = page.items;
  if ('links' in body) {
    const pages = { ...page.links.pages };
    if (plan.previous && pages.prev !== undefined) {
      pages.previous = pages.prev;
      delete pages.prev;
    }
    body.links = Object.keys(pages).length ? { pages } : {};
  }
  if (body.meta && typeof body.meta === 'object') {
    const meta = body.meta as Record<string, unknown>;
    const numbers = { total: page.meta.total, page: page.page, pages: page.pages };
    for (const [name, value] of Object.entries(numbers)) if (name in meta) meta[name] = value;
  }
  return body;
}
