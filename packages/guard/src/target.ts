/**
 * The resource a mutating call acts on, found from the request it is about to send, so every tool
 * is covered without a table: the path up to its first resource id names the resource
 * (`DELETE /v2/droplets/{ID}` and `POST /v2/droplets/{ID}/actions` both act on
 * `/v2/droplets/{ID}`; deleting a cluster's user acts on `/v2/databases/{id}`, the thing tags and
 * names belong to), read with one GET. A request with no id in its path and a `tag_name` acts on
 * every resource carrying the tag (`POST /v2/droplets/actions?tag_name=web`): every page of them is
 * listed. A request may also change resources its body names (`resources` to tag or assign,
 * `droplet_id`, `droplet_ids`, `tags` a new resource joins): `bodyTargets` finds those.
 */
import { type ApiClient, paginate, type QueryValue, type RequestOptions } from '@cloudcall/core';
import { encodeSegment } from '@cloudcall/core/internal';

export interface Resource {
  id?: string | number;
  name?: string;
  tags?: string[];
}

export interface Target extends Resource {
  /** What it is, in the platform's word (`droplet`, `database`, `load_balancer`...), or `tag`. */
  kind: string;
  /** The GET that read it. */
  path: string;
  query?: Record<string, QueryValue>;
  /** The part of the resource acted on, when the call acts on a part (`users/alice`). */
  part?: string;
  /** For a tag-wide action: every resource carrying the tag, from every page. */
  members?: Resource[];
  /** The resource as read (the platform's JSON), for plans and prompts. */
  state?: unknown;
}

/** The read that finds a mutating request's target, or undefined when it has none (a create). */
export function targetRead(
  request: Pick<RequestOptions, 'path' | 'query'>,
  template: string | undefined,
  args: Record<string, unknown>,
): { path: string; query?: Record<string, QueryValue>; part?: string; tag?: string } | undefined {
  const segments = request.path.split('/');
  const values = argumentSegments(args);
  const end = resourceEnd(segments, template, values);
  if (end !== undefined) {
    const path = segments.slice(0, end + 1).join('/');
    // A part is named when it is one of the resource's own (a user, a topic), not an action.
    const rest = segments.slice(end + 1);
    const named = template
      ? template
          .split('/')
          .slice(end + 1)
          .some((segment) => segment.startsWith('{'))
      : rest.some((segment) => values.has(segment));
    return named ? { path, part: rest.join('/') } : { path };
  }
  const tag = request.query?.tag_name;
  if (typeof tag === 'string' && tag !== '') {
    const path = request.path.replace(/\/actions$/, '');
    return { path, query: { tag_name: tag }, tag };
  }
  return undefined;
}

/**
 * Each argument's value as it would appear in a path segment. A string with a lone surrogate is
 * never in a path (core refuses it as a path argument) and cannot be percent-encoded, so it is
 * left out: it may still be a body field, such as a name.
 */
function argumentSegments(args: Record<string, unknown>): Set<string> {
  return new Set(
    Object.values(args)
      // A list's items too: a handler may act on each id it is given.
      .flatMap((value) => (Array.isArray(value) ? value : [value]))
      .filter((value) => typeof value === 'number' || (typeof value === 'string' && value.isWellFormed()))
      .map((value) => encodeSegment(String(value))),
  );
}

/** Index of the segment holding the first resource id. */
function resourceEnd(segments: string[], template: string | undefined, values: Set<string>) {
  if (template) {
    const index = template.split('/').findIndex((segment) => /^\{\w+\}$/.test(segment));
    return index > 0 ? index : undefined;
  }
  // A handler's request: the first segment after `/v2/<collection>` holding an argument's value.
  const index = segments.findIndex((segment, position) => position >= 3 && values.has(segment));
  return index > 0 ? index : undefined;
}

/** Reads the target with one GET; an error reading it (a 404 included) is thrown as is. */
export async function readTarget(
  client: ApiClient,
  read: NonNullable<ReturnType<typeof targetRead>>,
  signal?: AbortSignal,
): Promise<Target> {
  if (read.tag !== undefined) {
    // Every member, page after page: a protected resource on page 2 is as protected as on page 1.
    const members: Resource[] = [];
    const pages = paginate<unknown>(client, {
      path: read.path,
      perPage: 200,
      ...(read.query ? { query: read.query } : {}),
      ...(signal ? { signal } : {}),
    });
    for await (const item of pages) members.push(resourceOf(item));
    return {
      kind: 'tag',
      name: read.tag,
      tags: [read.tag],
      path: read.path,
      query: read.query,
      members,
      state: { [read.path.split('/').pop() || 'resources']: members },
    };
  }
  const body = await client.request<Record<string, unknown>>({ method: 'GET', path: read.path, signal });
  const { kind, state } = unwrap(body);
  const resource = resourceOf(state);
  // A tag carries itself: deleting tag `prod` strips it from every resource `tag:prod` protects.
  if (kind === 'tag' && resource.name !== undefined) resource.tags = [resource.name];
  return { kind, path: read.path, ...(read.part ? { part: read.part } : {}), ...resource, state };
}

/** Where a resource of a `resources` entry is read, by its type (`resource_type` or URN kind). */
const RESOURCE_PATHS: Record<string, string> = {
  droplet: '/v2/droplets',
  image: '/v2/images',
  volume: '/v2/volumes',
  volume_snapshot: '/v2/snapshots',
  database: '/v2/databases',
  dbaas: '/v2/databases',
  loadbalancer: '/v2/load_balancers',
  load_balancer: '/v2/load_balancers',
  domain: '/v2/domains',
  floatingip: '/v2/reserved_ips',
  reservedip: '/v2/reserved_ips',
  kubernetes: '/v2/kubernetes/clusters',
  vpc: '/v2/vpcs',
};

/**
 * The reads that find the resources a request's body names as ones it changes: `resources` to
 * tag, untag or assign (`{ resource_id, resource_type }` or a URN such as `do:droplet:7`), a
 * `droplet_id` or `droplet_ids` to attach or add, and the `tags` a created or updated resource
 * joins, or the `tag` a load balancer serves (each a tag whose membership it changes). A reference of a kind with no known read path
 * is left out (it names nothing a rule matches by path).
 */
export function bodyTargets(body: unknown): { reads: { path: string }[]; tags: string[] } {
  const reads: { path: string }[] = [];
  const tags: string[] = [];
  if (!isObject(body)) return { reads, tags };
  const add = (type: unknown, id: unknown) => {
    const base = typeof type === 'string' ? RESOURCE_PATHS[type] : undefined;
    if (base && (typeof id === 'string' || typeof id === 'number') && String(id) !== '') {
      reads.push({ path: `${base}/${encodeSegment(String(id))}` });
    }
  };
  for (const item of Array.isArray(body.resources) ? body.resources : []) {
    if (typeof item === 'string') {
      const [scheme, type, ...id] = item.split(':');
      if (scheme === 'do') add(type, id.join(':'));
    } else if (isObject(item)) add(item.resource_type, item.resource_id);
  }
  add('droplet', body.droplet_id);
  for (const id of Array.isArray(body.droplet_ids) ? body.droplet_ids : []) add('droplet', id);
  for (const tag of Array.isArray(body.tags) ? body.tags : []) if (typeof tag === 'string') tags.push(tag);
  // A load balancer's or firewall's target tag: it starts acting on that tag's members.
  if (typeof body.tag === 'string' && body.tag !== '') tags.push(body.tag);
  return { reads, tags };
}

/** The one resource of an answer such as `{ droplet: {...} }`, with its key as its kind. */
export function unwrap(body: unknown): { kind: string; state: unknown } {
  const [kind, state] = Object.entries(isObject(body) ? body : {}).find(
    ([key, value]) => key !== 'links' && key !== 'meta' && isObject(value),
  ) ?? ['resource', body];
  return { kind, state };
}

/** The id, name and tags of a resource as the platform shows it (ids may be `id`, `uuid` or `ip`). */
export function resourceOf(value: unknown): Resource {
  if (!isObject(value)) return {};
  const resource: Resource = {};
  const id = value.id ?? value.uuid ?? value.ip;
  if (typeof id === 'string' || typeof id === 'number') resource.id = id;
  if (typeof value.name === 'string') resource.name = value.name;
  if (Array.isArray(value.tags))
    resource.tags = value.tags.filter((tag): tag is string => typeof tag === 'string');
  return resource;
}

/** `droplet web-1 (id 123, tags prod, web)`: what a prompt or a refusal names. */
export function describeTarget(target: Target): string {
  if (target.members) {
    const names = (target.members ?? []).map((member) => member.name ?? String(member.id)).slice(0, 10);
    const count = target.members?.length ?? 0;
    return `every resource tagged ${target.name} (${count}${count ? `: ${names.join(', ')}${count > names.length ? ', ...' : ''}` : ''})`;
  }
  const facts = [
    // The id when the name is shown instead of it (a reserved IP has only its address).
    target.id !== undefined && target.name !== undefined && target.id !== target.name
      ? `id ${target.id}`
      : undefined,
    target.tags?.length && target.kind !== 'tag' ? `tags ${target.tags.join(', ')}` : undefined,
  ].filter(Boolean);
  const kind = target.kind.replace(/_/g, ' ');
  const what = `${kind} ${target.name ?? target.id ?? target.path}${facts.length ? ` (${facts.join('; ')})` : ''}`;
  return target.part ? `${target.part} of ${what}` : what;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
