/**
 * What a mutating request changes, found from its operation in the operation model
 * (`@cloudcall/api/model`, generated from the platform's API description and a reviewed table),
 * so that every tool, named or the generic `api-call`, is covered alike: the resource each path
 * parameter names, every resource the body or query names (by id, name, URN or typed pair) with
 * what the request does to it, the members of a container it deletes (a project's resources, a
 * VPC's members, a tag's carriers), and for a snapshot or image, the resource it is a copy of.
 * Each is read as the platform shows it now, so a rule matches the name it has, not one a call
 * is about to give it.
 */
import {
  findOperation,
  kindOfUrn,
  kinds,
  type Match,
  type Named,
  namedBy,
  type OperationData,
  type Role,
} from '@cloudcall/api/model';
import {
  type ApiClient,
  ApiError,
  InputError,
  paginate,
  type QueryValue,
  type RequestOptions,
} from '@cloudcall/core';
import { encodeSegment, pathSegmentProblem, SECRET_UNLESS, showControls } from '@cloudcall/core/internal';

export interface Resource {
  id?: string | number;
  name?: string;
  /** The other names it goes by (a CDN endpoint's custom domain): a `name:` rule may name any. */
  aliases?: string[];
  tags?: string[];
}

export interface Target extends Resource {
  /** What it is, in the platform's word (`droplet`, `database`, `load_balancer`...), or `tag`. */
  kind: string;
  /** The GET that read it (or would, for what cannot be read). */
  path: string;
  query?: Record<string, QueryValue>;
  /** The part of the resource acted on, when the call acts on a part (`users/alice`). */
  part?: string;
  /** For a tag-wide action or a container: every resource it holds, from every page. */
  members?: Resource[];
  /** The resource as read (the platform's JSON), for plans and prompts. */
  state?: unknown;
  /** What the request does to it; `member` for a container's member. */
  role?: Role | 'member';
  /** For a snapshot, backup or image: the resource it is a copy of, as read now. */
  origin?: Target;
}

/** What a mutating request changes, as the guard checks it. */
export interface Changes {
  /** The request's operation; undefined when the model has none for its method and path. */
  operation?: OperationData;
  /** The resource its path names (what a question and the audit line name). */
  target?: Target;
  /** Where that resource is read, and the part acted on; known without reading it. */
  read?: { path: string; part?: string };
  /** Everything else it changes, joins or copies from, read as it is now. */
  others: Target[];
}

/**
 * A request's operation and where the resource its path names is read, without reading anything:
 * what deciding whether it destroys, and the audit line, need.
 */
export function requestOperation(
  request: Pick<RequestOptions, 'method' | 'path'>,
): Omit<Changes, 'target' | 'others'> & { match?: Match } {
  const match = findOperation(request.method, request.path);
  if (!match) return {};
  const read = primaryRead(match.operation, request.path);
  return { operation: match.operation, match, ...(read ? { read } : {}) };
}

/**
 * The path of the first resource the request's path names, and the part of it acted on when the
 * path goes on to one of its own (a user, a topic; not an action).
 */
function primaryRead(operation: OperationData, path: string): Changes['read'] {
  const template = operation.path.split('/');
  const end = template.findIndex((segment) => /^\{\w+\}$/.test(segment));
  if (end < 0) return undefined;
  const segments = path.split('?')[0]?.split('/') ?? [];
  const rest = template.slice(end + 1);
  const named = rest.some((segment) => segment.startsWith('{'));
  return {
    path: segments.slice(0, end + 1).join('/'),
    ...(named ? { part: segments.slice(end + 1).join('/') } : {}),
  };
}

/**
 * Reads what `request` changes. With `all` false, only the resource its path names (for a
 * confirmation question, when no rule could match anything). A resource that cannot be read (a
 * 404) is an error: the request is not sent.
 */
export async function changesOf(
  client: ApiClient,
  request: RequestOptions,
  options: { all: boolean; signal?: AbortSignal | undefined; match?: Match | undefined },
): Promise<Changes> {
  // The match the caller has already made (requestOperation), else made here.
  const match = options.match ?? findOperation(request.method, request.path);
  if (!match) return { others: [] };
  const { operation, params } = match;
  const reader = new Reader(client, options.signal);
  const read = primaryRead(operation, request.path);
  const named = namedBy(operation, {
    params,
    ...(request.query ? { query: request.query as Record<string, unknown> } : {}),
    body: request.body,
  });
  const [first, ...rest] = named.filter((each) => each.ref.in === 'path');
  let target: Target | undefined;
  if (first && read) {
    target = first.ref.read
      ? await reader.read(read.path, 'target')
      : { kind: first.ref.kind, id: first.value, name: String(first.value), path: read.path, role: 'target' };
    if (read.part) target.part = read.part;
  }
  if (!options.all)
    return { operation, ...(target ? { target } : {}), ...(read ? { read } : {}), others: [] };
  const others: Target[] = [];
  const segments = request.path.split('?')[0]?.split('/') ?? [];
  const template = operation.path.split('/');
  for (const each of rest) {
    // A part without a read of its own (a registry's repository and tag, a pool's node) is known by
    // the value the path gives (decoded: `team%2Fapi` is repository team/api), as a path's first
    // resource is when it has none.
    if (!each.ref.read) {
      const at = template.indexOf(`{${each.ref.at}}`);
      if (at > 0) {
        const value = String(each.value);
        others.push({
          kind: each.ref.kind,
          id: value,
          name: value,
          path: segments.slice(0, at + 1).join('/'),
          role: each.ref.role,
        });
      }
      continue;
    }
    // A part with a read of its own (a database user, a node pool): its name and tags count too.
    const depth = each.ref.read.split('/').length;
    const path = segments.slice(0, depth).join('/');
    const last = depth === template.length;
    // A PUT may make what it names (a topic, a pool): absent, it is not there to protect.
    const found = await reader.read(path, 'target', request.method === 'PUT' && last);
    if (found) others.push(found);
  }
  for (const each of named) {
    if (each.ref.in === 'path' || each.ref.role === 'use') continue;
    others.push(...(await reader.named(each, request.path)));
  }
  if (operation.members) others.push(...(await reader.members(operation, params)));
  for (const each of [...(target ? [target] : []), ...others]) await reader.origin(each);
  return { operation, ...(target ? { target } : {}), ...(read ? { read } : {}), others };
}

/** Reads resources for one request, each at most once. */
class Reader {
  private readonly seen = new Map<string, Promise<Target | undefined>>();
  constructor(
    private readonly client: ApiClient,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** The resource at `path` with one GET; with `absent`, a 404 is undefined rather than an error. */
  read(path: string, role: Target['role']): Promise<Target>;
  read(path: string, role: Target['role'], absent: boolean): Promise<Target | undefined>;
  async read(path: string, role: Target['role'], absent = false): Promise<Target | undefined> {
    let read = this.seen.get(path);
    if (!read) {
      read = this.client
        .request<Record<string, unknown>>({ method: 'GET', path, signal: this.signal })
        .then((body) => {
          const { kind, state } = unwrap(body);
          const resource = resourceOf(state);
          // A tag carries itself: deleting tag `prod` strips it from every resource `tag:prod` protects.
          if (kind === 'tag' && resource.name !== undefined) resource.tags = [resource.name];
          return { kind, path, ...resource, state } as Target;
        })
        .catch((error: unknown) => {
          if (absent && error instanceof ApiError && error.status === 404) return undefined;
          throw error;
        });
      this.seen.set(path, read);
    }
    const found = await read;
    return found ? { ...found, role } : undefined;
  }

  /** The resources one reference of the body or query names. */
  async named(each: Named, requestPath: string): Promise<Target[]> {
    const { ref, value } = each;
    const kind = each.kind ?? ref.kind;
    const role = ref.role;
    if (kind === 'tag') {
      const name = String(value);
      if (ref.by !== 'members')
        return [{ kind: 'tag', name, tags: [name], path: `/v2/tags/${encodeSegment(name)}`, role }];
      // Every member of the tag, page after page: a protected one on page 2 is as protected.
      const path = requestPath.split('?')[0]?.replace(/\/actions$/, '') ?? requestPath;
      const members = await this.list(path, { tag_name: name });
      return [
        {
          kind: 'tag',
          name,
          tags: [name],
          path,
          query: { tag_name: name },
          members,
          role,
          state: { [path.split('/').pop() || 'resources']: members },
        },
      ];
    }
    const known = kinds()[kind];
    if (ref.by === 'name') {
      if (!known?.byName) return [];
      const query: Record<string, QueryValue> = {
        name: String(value),
        ...(each.within ? { region: each.within } : {}),
      };
      const found = await this.list(known.byName, query);
      return found.map((resource) => ({
        kind,
        ...resource,
        path: `${known.byName}/${encodeSegment(String(resource.id))}`,
        role,
      }));
    }
    return [await this.byId(kind, value, role, ref.at)];
  }

  /** A resource of `kind` by its id: read where its kind is read, or known by the id alone. */
  async byId(kind: string, value: string | number, role: Target['role'], at = kind): Promise<Target> {
    const read = kinds()[kind]?.read;
    const text = String(value);
    if (!read) return { kind, id: value, name: text, path: `${kind}:${text}`, role };
    const problem = pathSegmentProblem(text);
    if (problem) throw new InputError(`${problem} (it names a ${kind} to look at)`, at);
    return this.read(read.replace('{id}', encodeSegment(text)), role);
  }

  /** Every item of a list, page after page, as resources. */
  private async list(path: string, query: Record<string, QueryValue>): Promise<Resource[]> {
    const found: Resource[] = [];
    for await (const item of paginate<unknown>(this.client, {
      path,
      perPage: 200,
      query,
      ...(this.signal ? { signal: this.signal } : {}),
    }))
      found.push(resourceOf(item));
    return found;
  }

  /** The members of a container the request deletes. */
  async members(operation: OperationData, params: Record<string, string>): Promise<Target[]> {
    const container = operation.members;
    if (!container) return [];
    const found: Target[] = [];
    if (container.tagged) {
      const name = Object.values(params)[0] ?? '';
      for (const path of container.tagged)
        for (const member of await this.list(path, { tag_name: name }))
          if (member.id !== undefined) found.push(await this.byId(kindOfList(path), member.id, 'member'));
      return found;
    }
    if (!container.read) return [];
    const path = container.read.replace(/\{(\w+)\}/g, (_, name: string) => encodeSegment(params[name] ?? ''));
    if (container.associated) {
      const answer = await this.client.request<Record<string, unknown>>({
        method: 'GET',
        path,
        signal: this.signal,
      });
      for (const [key, kind] of Object.entries(container.associated)) {
        for (const item of Array.isArray(answer?.[key]) ? (answer[key] as unknown[]) : []) {
          const { id } = resourceOf(item);
          if (id !== undefined) found.push(await this.byId(kind, id, 'member'));
        }
      }
      return found;
    }
    for await (const item of paginate<Record<string, unknown>>(this.client, {
      path,
      ...(container.list ? { key: container.list } : {}),
      perPage: 200,
      ...(this.signal ? { signal: this.signal } : {}),
    })) {
      const urn = container.urn ? item?.[container.urn] : undefined;
      if (typeof urn !== 'string') continue;
      const [, type, ...rest] = urn.split(':');
      if (!type || !rest.length) continue;
      found.push(await this.byId(kindOfUrn(type), rest.join(':'), 'member'));
    }
    return found;
  }

  /**
   * For a snapshot, backup or image, the resource it is a copy of: a snapshot names its source
   * (`resource_id`, `resource_type`); an image is looked up as a snapshot, and a backup among the
   * VMs' backups. A source that is gone leaves none.
   */
  async origin(target: Target): Promise<void> {
    const state = (target.state ?? {}) as Record<string, unknown>;
    if (target.id === undefined || (target.kind !== 'snapshot' && target.kind !== 'image')) return;
    let source: { type: unknown; id: unknown } | undefined;
    if (target.kind === 'snapshot') source = { type: state.resource_type, id: state.resource_id };
    else if (state.type === 'backup') {
      const id = Number(target.id);
      for await (const droplet of paginate<Record<string, unknown>>(this.client, {
        path: '/v2/droplets',
        perPage: 200,
        ...(this.signal ? { signal: this.signal } : {}),
      })) {
        if (Array.isArray(droplet?.backup_ids) && droplet.backup_ids.includes(id)) {
          source = { type: 'droplet', id: droplet.id };
          break;
        }
      }
    } else if (state.type !== 'base' && state.type !== 'custom' && state.public !== true) {
      const snapshot = await this.read(`/v2/snapshots/${encodeSegment(String(target.id))}`, 'source', true);
      const facts = (snapshot?.state ?? {}) as Record<string, unknown>;
      if (snapshot) source = { type: facts.resource_type, id: facts.resource_id };
    }
    if (typeof source?.type !== 'string' || (typeof source.id !== 'string' && typeof source.id !== 'number'))
      return;
    const kind = source.type === 'volume' ? 'volume' : source.type === 'droplet' ? 'droplet' : undefined;
    const read = kind && kinds()[kind]?.read;
    if (!read) return;
    const found = await this.read(read.replace('{id}', encodeSegment(String(source.id))), 'source', true);
    if (found) target.origin = found;
  }
}

/** The kind of a list's items: `/v2/droplets` holds droplets, `/v2/databases` databases. */
function kindOfList(path: string): string {
  const last = path.split('/').pop() ?? '';
  return { droplets: 'droplet', databases: 'database', volumes: 'volume', images: 'image' }[last] ?? last;
}

/** The one resource of an answer such as `{ droplet: {...} }`, with its key as its kind. */
export function unwrap(body: unknown): { kind: string; state: unknown } {
  const [kind, state] = Object.entries(isObject(body) ? body : {}).find(
    ([key, value]) => key !== 'links' && key !== 'meta' && isObject(value),
  ) ?? ['resource', body];
  return { kind, state };
}

/**
 * The id, names and tags of a resource as the platform shows it: ids may be `id`, `uuid`, `ip` or
 * (a Spaces key's) `access_key`; an app's name is its spec's, a CDN endpoint's its origin (its
 * custom domain another). The names by which the CLI finds one (apps/cli names.ts) are those a
 * `name:` rule matches, so a rule protects it however a call names it.
 */
export function resourceOf(value: unknown): Resource {
  if (!isObject(value)) return {};
  const resource: Resource = {};
  // A Spaces key's access key: public beside its grants (a Kafka user's is a private key).
  const accessKey = SECRET_UNLESS.access_key?.some((field) => Object.hasOwn(value, field))
    ? value.access_key
    : undefined;
  const id = value.id ?? value.uuid ?? value.ip ?? accessKey;
  if (typeof id === 'string' || typeof id === 'number') resource.id = id;
  if (typeof value.name === 'string') resource.name = value.name;
  // An App Platform app is named by its spec.
  else if (isObject(value.spec) && typeof value.spec.name === 'string') resource.name = value.spec.name;
  // A CDN endpoint has no name: the Space it serves (its origin) names it, and its custom domain.
  else if (typeof value.origin === 'string' && value.origin !== '') {
    resource.name = value.origin;
    if (typeof value.custom_domain === 'string' && value.custom_domain !== '') {
      resource.aliases = [value.custom_domain];
    }
  }
  if (Array.isArray(value.tags))
    resource.tags = value.tags.filter((tag): tag is string => typeof tag === 'string');
  return resource;
}

/**
 * `droplet web-1 (id 123, tags prod, web)`: what a prompt or a refusal names. Names, tags and ids
 * come from the API, so their control characters are shown escaped (`\n`, `\x1b`, `\u202e`): a
 * name cannot add a line to the question, recolour the terminal or reverse what follows it.
 */
export function describeTarget(target: Target): string {
  return showControls(targetText(target));
}

function targetText(target: Target): string {
  if (target.members && target.kind === 'tag') {
    const names = target.members.map((member) => member.name ?? String(member.id)).slice(0, 10);
    const count = target.members.length;
    return `every resource tagged ${target.name} (${count}${count ? `: ${names.join(', ')}${count > names.length ? ', ...' : ''}` : ''})`;
  }
  const facts = [
    // The id when the name is shown instead of it (a reserved IP has only its address).
    target.id !== undefined && target.name !== undefined && String(target.id) !== target.name
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
