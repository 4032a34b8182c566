/**
 * Names for ids, a CLI convenience (`cloudcall vm-get web-1`): where a VM, load balancer,
 * firewall, VPC, database cluster, volume, project or image id is expected and the value given is not an id, the
 * resource is looked up by name with one list (one call of 200 in most accounts). A name that
 * matches several is refused with their ids. An image is first looked up as a public image's slug
 * (`--image-id ubuntu-24-04-x64`, one `GET /v2/images/{slug}`), then among the account's own images
 * by name. The tools (and so the MCP server) keep taking ids only.
 *
 * Which arguments hold which kind of id is read from the definitions, by the table below: the
 * path placeholder right after the kind's collection (`/v2/droplets/{ID}`), the argument names
 * that hold it elsewhere (`VmID`, `VpcID`), and the primary argument of handler tools named after
 * it.
 */
import {
  type AnyTool,
  ClientApiError,
  InputError,
  parseArgs,
  runTool,
  sendRequest,
  type ToolContext,
} from '@cloudcall/core';
import { pageArgument, perPageArgument, runAllPages, UUID_PATTERN } from '@cloudcall/core/internal';
import type { FlagSpec } from './flags.js';

export interface NamedKind {
  /** As a person says it, in messages. */
  label: string;
  /** The collection's path: its `{placeholder}` segment holds this kind's id. */
  collection: string;
  /** Arguments that hold this kind's id (or ids) wherever they appear. */
  args: readonly string[];
  /**
   * Tools named `<prefix>-...` that build their request in a handler (no path to read) take this
   * kind's id as their primary argument (`db-cluster-get-mysql-config`).
   */
  prefix: string;
  /** The tool that lists them, and the field it lists them in. */
  list: string;
  items: string;
  /** Arguments of the list tool: which of them can be named (the account's own images). */
  listArgs?: Record<string, unknown>;
  /** A value that is already an id: not looked up. */
  isId: (value: string) => boolean;
  /** The form of this kind's ids, for the ids standing in for names (see withPlaceholders). */
  idForm: 'numeric' | 'uuid';
  /**
   * Another handle the platform takes in place of the id (a public image's slug), looked up by one
   * call of the tool that gets one (its path placeholder given the value) before any name is.
   */
  handle?: { word: string; tool: string; item: string; form: RegExp; example: string };
}

const NUMERIC = (value: string) => /^\d+$/.test(value);
const UUID = (value: string) => UUID_PATTERN.test(value);

const NAMED_KINDS: readonly NamedKind[] = [
  {
    label: 'VM',
    collection: '/v2/droplets',
    args: ['VmID', 'VmIDs'],
    prefix: 'vm',
    list: 'vm-list',
    items: 'droplets',
    isId: NUMERIC,
    idForm: 'numeric',
  },
  {
    label: 'load balancer',
    collection: '/v2/load_balancers',
    args: ['LoadBalancerID', 'TargetLoadBalancerIDs'],
    prefix: 'load-balancer',
    list: 'load-balancer-list',
    items: 'load_balancers',
    isId: UUID,
    idForm: 'uuid',
  },
  {
    label: 'firewall',
    collection: '/v2/firewalls',
    args: [],
    prefix: 'firewall',
    list: 'firewall-list',
    items: 'firewalls',
    isId: UUID,
    idForm: 'uuid',
  },
  {
    label: 'VPC',
    collection: '/v2/vpcs',
    args: ['VpcID', 'Vpc1', 'Vpc2'],
    prefix: 'vpc',
    list: 'vpc-list',
    items: 'vpcs',
    isId: UUID,
    idForm: 'uuid',
  },
  {
    label: 'database cluster',
    collection: '/v2/databases',
    args: [],
    prefix: 'db-cluster',
    list: 'db-cluster-list',
    items: 'databases',
    isId: UUID,
    idForm: 'uuid',
  },
  {
    // Volume names are unique per region: a name used in two regions is refused with both ids.
    label: 'volume',
    collection: '/v2/volumes',
    args: ['Volumes'],
    prefix: 'volume',
    list: 'volume-list',
    items: 'volumes',
    isId: UUID,
    idForm: 'uuid',
  },
  {
    label: 'project',
    collection: '/v2/projects',
    args: [],
    prefix: 'project',
    list: 'project-list',
    items: 'projects',
    isId: UUID,
    idForm: 'uuid',
  },
  {
    label: 'image',
    collection: '/v2/images',
    args: ['ImageID'],
    prefix: 'image',
    list: 'image-list',
    items: 'images',
    // Public images have slugs, not names of their own choosing: names are the account's images.
    listArgs: { Type: 'user', PerPage: 200 },
    isId: NUMERIC,
    idForm: 'numeric',
    handle: {
      word: 'slug',
      tool: 'image-get',
      item: 'image',
      form: /^[a-z0-9][a-z0-9.-]*$/,
      example: 'ubuntu-24-04-x64',
    },
  },
];

/** How a kind's argument is described in help and messages: "id or name", "id, slug or name". */
export function handles(kind: NamedKind): string {
  return kind.handle ? `id, ${kind.handle.word} or name` : 'id or name';
}

/** Arguments that take a name in place of an id, with the kind of each. */
export type NamedArguments = ReadonlyMap<string, NamedKind>;

/** The arguments of `tool` that take a name in place of an id, with the kind of each. */
export function namedArguments(
  tool: AnyTool,
  flags: readonly FlagSpec[],
  primary: FlagSpec | undefined,
): NamedArguments {
  const found = new Map<string, NamedKind>();
  for (const kind of NAMED_KINDS) {
    const placeholder = tool.request?.path.startsWith(`${kind.collection}/{`)
      ? /^\{(\w+)\}/.exec(tool.request.path.slice(kind.collection.length + 1))?.[1]
      : undefined;
    for (const flag of flags) {
      if (
        flag.name === placeholder ||
        kind.args.includes(flag.name) ||
        (flag === primary && !tool.request && tool.name.startsWith(`${kind.prefix}-`))
      ) {
        found.set(flag.name, kind);
      }
    }
  }
  return found;
}

/**
 * `args` with each name replaced by a placeholder id of its kind, so that every other argument
 * can be validated before the list call that looks the names up. The placeholders lie where real
 * ids do not (the largest safe integers; UUIDs of zeros, which no random UUID is) and skip any
 * value the arguments hold, so a placeholder never equals an id given beside the name.
 */
export function withPlaceholders(
  args: Record<string, unknown>,
  named: NamedArguments,
): Record<string, unknown> {
  const copy = { ...args };
  const given = new Set<unknown>();
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
    else given.add(value);
  };
  collect(args);
  // One placeholder per distinct name, so that two names stay two ids (`--vpc1 a --vpc2 b` passes
  // a "must differ" check, as the ids they stand for will).
  const stands = new Map<string, number | string>();
  let next = 0;
  const candidate = (kind: NamedKind, n: number) =>
    kind.idForm === 'numeric'
      ? Number.MAX_SAFE_INTEGER - n
      : `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const placeholderFor = (kind: NamedKind, name: string) => {
    const key = `${kind.label}\0${name}`;
    let placeholder = stands.get(key);
    if (placeholder === undefined) {
      do placeholder = candidate(kind, next++);
      while (given.has(placeholder));
      stands.set(key, placeholder);
    }
    return placeholder;
  };
  for (const [argument, kind] of named) {
    const stand = (item: unknown) =>
      typeof item === 'string' && !kind.isId(item) ? placeholderFor(kind, item) : item;
    const value = copy[argument];
    copy[argument] = Array.isArray(value) ? value.map(stand) : stand(value);
  }
  return copy;
}

/** A tool by name (its family is loaded if need be), or undefined. */
export type ToolLookup = (name: string) => Promise<AnyTool | undefined>;

/**
 * Validates `args` as the tool will, with each name standing as an id of its kind until it is
 * looked up. A refusal quotes the values as typed (`got "db-net"`), never the stand-in ids.
 */
export function checkWithNames(tool: AnyTool, args: Record<string, unknown>, named: NamedArguments): void {
  parseArgs(tool, withPlaceholders(args, named), args);
}

/**
 * Replaces names (and handles, such as image slugs) by ids in `args`, in place. A handle is looked
 * up by one call each; each kind is listed once (at its largest page, every page) for the names,
 * however many of its arguments hold them.
 */
export async function resolveNames(
  args: Record<string, unknown>,
  named: NamedArguments,
  tools: ToolLookup,
  context: ToolContext,
): Promise<void> {
  const listed = new Map<NamedKind, Record<string, unknown>[]>();
  const list = async (kind: NamedKind) => {
    if (!listed.has(kind)) listed.set(kind, await listAll(kind, tools, context));
    return listed.get(kind) ?? [];
  };
  for (const [argument, kind] of named) {
    const value = args[argument];
    const values = Array.isArray(value) ? value : [value];
    const ids: unknown[] = [];
    for (const item of values) {
      if (typeof item !== 'string' || kind.isId(item)) ids.push(item);
      else
        ids.push(
          (await byHandle(item, kind, tools, context)) ?? idOf(item, kind, await list(kind), argument),
        );
    }
    args[argument] = Array.isArray(value) ? ids : ids[0];
  }
}

/** The id of what `value` names by the kind's other handle (an image slug), or undefined. */
async function byHandle(
  value: string,
  kind: NamedKind,
  tools: ToolLookup,
  context: ToolContext,
): Promise<unknown> {
  const { handle } = kind;
  if (!handle?.form.test(value)) return undefined;
  const get = await tools(handle.tool);
  const placeholder = get?.request && /\{(\w+)\}/.exec(get.request.path)?.[1];
  if (!get?.request || !placeholder)
    throw new Error(`${handle.tool} is needed to look up ${kind.label} ${handle.word}s`);
  try {
    // The tool's own request, unchecked: its schema takes ids only, the platform a slug as well.
    const answer = await sendRequest<Record<string, unknown>>(get.request, { [placeholder]: value }, context);
    return (answer[handle.item] as Record<string, unknown> | undefined)?.id;
  } catch (error) {
    // Not a slug: perhaps a name.
    if (error instanceof ClientApiError && error.status === 404) return undefined;
    throw error;
  }
}

function idOf(name: string, kind: NamedKind, items: Record<string, unknown>[], argument: string): unknown {
  const matches = items.filter((item) => item.name === name);
  if (matches.length === 1) return matches[0]?.id;
  if (matches.length === 0) {
    throw new InputError(
      `no ${kind.label} has the ${handles(kind)} ${JSON.stringify(name)} (${kind.list} lists them)`,
      argument,
    );
  }
  throw new InputError(
    `${matches.length} ${kind.label}s are named ${JSON.stringify(name)}: ${matches.map((item) => String(item.id)).join(', ')}; give one of these ids`,
    argument,
  );
}

async function listAll(kind: NamedKind, tools: ToolLookup, context: ToolContext) {
  const list = await tools(kind.list);
  if (!list) throw new Error(`${kind.list} is needed to look up ${kind.label} names`);
  // The largest page the list tool takes, so that one call sees them all in most accounts; the
  // pages after it, if any, are followed (a name on page 2 is a name all the same).
  const perPage = perPageArgument(list);
  const args = { ...(perPage ? { [perPage]: 200 } : {}), ...kind.listArgs };
  const result = (
    pageArgument(list) ? await runAllPages(list, args, context) : await runTool(list, args, context)
  ) as Record<string, unknown>;
  const items = result[kind.items];
  return Array.isArray(items) ? (items as Record<string, unknown>[]) : [];
}
