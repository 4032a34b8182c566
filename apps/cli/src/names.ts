/**
 * Names for ids, a CLI convenience (`cloudcall vm-get web-1`): where a VM, load balancer,
 * firewall, VPC or database cluster id is expected and the value given is not an id, the
 * resource is looked up by name with one list (one call of 200 in most accounts). A name that
 * matches several is refused with their ids. The tools (and so the MCP server) keep taking ids only.
 *
 * Which arguments hold which kind of id is read from the definitions, by the table below: the
 * path placeholder right after the kind's collection (`/v2/droplets/{ID}`), the argument names
 * that hold it elsewhere (`VmID`, `VpcID`), and the primary argument of handler tools named after
 * it.
 */
import {
  type AnyTool,
  InputError,
  pageArgument,
  parseArgs,
  runAllPages,
  runTool,
  type ToolContext,
  UUID_PATTERN,
} from '@cloudcall/core';
import type { FlagSpec } from './flags.js';

interface NamedKind {
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
  /** A value that is already an id: not looked up. */
  isId: (value: string) => boolean;
  /** An id of the right form, standing in for a name while the other arguments are checked. */
  placeholder: number | string;
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
    placeholder: 1,
  },
  {
    label: 'load balancer',
    collection: '/v2/load_balancers',
    args: ['LoadBalancerID', 'TargetLoadBalancerIDs'],
    prefix: 'load-balancer',
    list: 'load-balancer-list',
    items: 'load_balancers',
    isId: UUID,
    placeholder: '00000000-0000-4000-8000-000000000000',
  },
  {
    label: 'firewall',
    collection: '/v2/firewalls',
    args: [],
    prefix: 'firewall',
    list: 'firewall-list',
    items: 'firewalls',
    isId: UUID,
    placeholder: '00000000-0000-4000-8000-000000000000',
  },
  {
    label: 'VPC',
    collection: '/v2/vpcs',
    args: ['VpcID', 'Vpc1', 'Vpc2'],
    prefix: 'vpc',
    list: 'vpc-list',
    items: 'vpcs',
    isId: UUID,
    placeholder: '00000000-0000-4000-8000-000000000000',
  },
  {
    label: 'database cluster',
    collection: '/v2/databases',
    args: [],
    prefix: 'db-cluster',
    list: 'db-cluster-list',
    items: 'databases',
    isId: UUID,
    placeholder: '00000000-0000-4000-8000-000000000000',
  },
];

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
 * can be validated before the list call that looks the names up.
 */
export function withPlaceholders(
  args: Record<string, unknown>,
  named: NamedArguments,
  /** Filled with each placeholder used and the name it stands for. */
  standsFor?: Map<number | string, string>,
): Record<string, unknown> {
  const copy = { ...args };
  // One placeholder per distinct name, so that two names stay two ids (`--vpc1 a --vpc2 b` passes
  // a "must differ" check, as the ids they stand for will).
  const stands = new Map<string, number | string>();
  const placeholderFor = (kind: NamedKind, name: string) => {
    const key = `${kind.label}\0${name}`;
    let placeholder = stands.get(key);
    if (placeholder === undefined) {
      const n = stands.size;
      placeholder =
        typeof kind.placeholder === 'number'
          ? kind.placeholder + n
          : `${kind.placeholder.slice(0, -12)}${String(n).padStart(12, '0')}`;
      stands.set(key, placeholder);
      standsFor?.set(placeholder, name);
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
 * looked up. A refusal shows the values as typed (`got "db-net"`), never the stand-in ids.
 */
export function checkWithNames(tool: AnyTool, args: Record<string, unknown>, named: NamedArguments): void {
  const standsFor = new Map<number | string, string>();
  try {
    parseArgs(tool, withPlaceholders(args, named, standsFor));
  } catch (error) {
    if (!(error instanceof InputError) || standsFor.size === 0) throw error;
    const typed = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(typed)
        : (typeof value === 'string' || typeof value === 'number') && standsFor.has(value)
          ? standsFor.get(value)
          : value;
    const issues = error.issues.map((issue) => {
      const got = /; got (.*)$/s.exec(issue.message);
      if (!got) return issue;
      let shown: string;
      try {
        shown = JSON.stringify(typed(JSON.parse(got[1] as string)));
      } catch {
        // Cut short (`[...]...`): put back the names of whichever stand-in ids are whole in it.
        shown = got[1] as string;
        for (const [placeholder, name] of standsFor)
          if (typeof placeholder === 'string')
            shown = shown.replaceAll(JSON.stringify(placeholder), JSON.stringify(name));
      }
      return { ...issue, message: `${issue.message.slice(0, got.index)}; got ${shown}` };
    });
    throw new InputError(issues);
  }
}

/**
 * Replaces names by ids in `args`, in place. Each kind is listed once (at its largest page, every
 * page), however many of its arguments hold names.
 */
export async function resolveNames(
  args: Record<string, unknown>,
  named: NamedArguments,
  tools: ToolLookup,
  context: ToolContext,
): Promise<void> {
  const listed = new Map<NamedKind, Record<string, unknown>[]>();
  for (const [argument, kind] of named) {
    const value = args[argument];
    const values = Array.isArray(value) ? value : [value];
    if (!values.some((item) => typeof item === 'string' && !kind.isId(item))) continue;
    if (!listed.has(kind)) listed.set(kind, await listAll(kind, tools, context));
    const items = listed.get(kind) ?? [];
    const ids = values.map((item) =>
      typeof item === 'string' && !kind.isId(item) ? idOf(item, kind, items, argument) : item,
    );
    args[argument] = Array.isArray(value) ? ids : ids[0];
  }
}

function idOf(name: string, kind: NamedKind, items: Record<string, unknown>[], argument: string): unknown {
  const matches = items.filter((item) => item.name === name);
  if (matches.length === 1) return matches[0]?.id;
  if (matches.length === 0) {
    throw new InputError(
      `no ${kind.label} has the id or name ${JSON.stringify(name)} (${kind.list} lists them)`,
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
  const perPage = list.request?.query?.per_page;
  const args = perPage ? { [perPage]: 200 } : {};
  const result = (
    pageArgument(list) ? await runAllPages(list, args, context) : await runTool(list, args, context)
  ) as Record<string, unknown>;
  const items = result[kind.items];
  return Array.isArray(items) ? (items as Record<string, unknown>[]) : [];
}
