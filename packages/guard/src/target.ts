/**
 * The resource a mutating call acts on, found from the request it is about to send, so every tool
 * is covered without a table: the path up to its first resource id names the resource
 * (`DELETE /v2/droplets/{ID}` and `POST /v2/droplets/{ID}/actions` both act on
 * `/v2/droplets/{ID}`; deleting a cluster's user acts on `/v2/databases/{id}`, the thing tags and
 * names belong to), read with one GET. A request with no id in its path and a `tag_name` acts on
 * every resource carrying the tag (`POST /v2/droplets/actions?tag_name=web`): one GET lists them.
 */
import { type ApiClient, encodeSegment, type QueryValue, type RequestOptions } from '@cloudcall/core';

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
  /** For a tag: the resources carrying it (first 200). */
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
    return { path, query: { tag_name: tag, per_page: 200 }, tag };
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
  const body = await client.request<Record<string, unknown>>({
    method: 'GET',
    path: read.path,
    ...(read.query ? { query: read.query } : {}),
    signal,
  });
  if (read.tag !== undefined) {
    const list = Object.entries(body ?? {}).find(([, value]) => Array.isArray(value));
    const members = ((list?.[1] as unknown[]) ?? []).map((item) => resourceOf(item));
    return {
      kind: 'tag',
      name: read.tag,
      tags: [read.tag],
      path: read.path,
      query: read.query,
      members,
      state: { [list?.[0] ?? 'resources']: members },
    };
  }
  const { kind, state } = unwrap(body);
  const resource = resourceOf(state);
  // A tag carries itself: deleting tag `prod` strips it from every resource `tag:prod` protects.
  if (kind === 'tag' && resource.name !== undefined) resource.tags = [resource.name];
  return { kind, path: read.path, ...(read.part ? { part: read.part } : {}), ...resource, state };
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
