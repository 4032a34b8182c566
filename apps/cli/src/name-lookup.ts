/**
 * Names for ids, looked up (names.ts has the table of which arguments take them): each name is
 * checked as an id of its kind first, then replaced by the id that one list call finds. Loaded
 * only by a command that runs a tool.
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
import { valueAt } from './columns.js';
import { handles, holdsIds, type NamedArguments, type NamedKind, type ToolLookup } from './names.js';

/** A Spaces access key id: `DO00` and capitals and digits (older keys: 20 capitals and digits). */
const ACCESS_KEY = /^[A-Z0-9]{16,64}$/;

/** Whether a value is already an id of the kind: then it is not looked up. */
function isId(kind: NamedKind, value: string): boolean {
  if (kind.idForm === 'access-key') return ACCESS_KEY.test(value);
  return kind.idForm === 'numeric' ? /^\d+$/.test(value) : UUID_PATTERN.test(value);
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
      : kind.idForm === 'access-key'
        ? `ZZ${String(n).padStart(18, '0')}`
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
    const { holds, text } = holdsIds(kind, argument, args);
    if (!holds) continue;
    const stand = (item: unknown) =>
      typeof item === 'string' && !isId(kind, item)
        ? text
          ? String(placeholderFor(kind, item))
          : placeholderFor(kind, item)
        : item;
    const value = copy[argument];
    copy[argument] = Array.isArray(value) ? value.map(stand) : stand(value);
  }
  return copy;
}

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
  const listed = new Map<string, Record<string, unknown>[]>();
  const list = async (kind: NamedKind) => {
    // A kind inside another (a cluster's pools) is listed in the one its parent argument names.
    const within = kind.parent ? { [kind.parent.listArgument]: args[kind.parent.argument] } : {};
    const key = `${kind.label}\0${JSON.stringify(within)}`;
    if (!listed.has(key)) listed.set(key, await listAll(kind, tools, context, within));
    return listed.get(key) ?? [];
  };
  for (const [argument, kind] of named) {
    const { holds, text } = holdsIds(kind, argument, args);
    if (!holds) continue;
    const value = args[argument];
    const values = Array.isArray(value) ? value : [value];
    const ids: unknown[] = [];
    for (const item of values) {
      if (typeof item !== 'string' || isId(kind, item)) ids.push(item);
      else {
        const handled = await byHandle(item, kind, tools, context);
        const matches = kind.fingerprint ? await fingerprintOf(item) : undefined;
        const id = handled ?? idOf(item, kind, await list(kind), argument, matches);
        ids.push(text ? String(id) : id);
      }
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

type Item = Record<string, unknown>;

/**
 * For a value that is an SSH key fingerprint, whether a listed key has it: MD5 as the platform
 * lists it (`MD5:` as `ssh-keygen -E md5 -l` prints it, or not; any case), or `SHA256:...` as
 * `ssh-keygen -l` prints it, worked out from the key. Undefined for a value of neither form.
 */
async function fingerprintOf(value: string): Promise<((item: Item) => boolean) | undefined> {
  const md5 = /^(?:MD5:)?([0-9a-f]{2}(?::[0-9a-f]{2}){15})$/i.exec(value)?.[1]?.toLowerCase();
  if (md5 !== undefined) return (item) => String(item.fingerprint).toLowerCase() === md5;
  const sha256 = /^SHA256:([A-Za-z0-9+/]{43})=?$/.exec(value)?.[1];
  if (sha256 === undefined) return undefined;
  // Loaded only for such a value.
  const { createHash } = await import('node:crypto');
  return (item) => {
    const blob = String(item.public_key ?? '')
      .trim()
      .split(/\s+/)[1];
    if (blob === undefined) return false;
    const digest = createHash('sha256').update(Buffer.from(blob, 'base64')).digest('base64');
    return digest.replace(/=+$/, '') === sha256;
  };
}

function idOf(
  name: string,
  kind: NamedKind,
  items: Item[],
  argument: string,
  /** Another handle in the list (an SSH key's fingerprint), tried before the name. */
  handle?: (item: Item) => boolean,
): unknown {
  const id = (item: Item | undefined) => item?.[kind.idField ?? 'id'];
  const byHandle = handle ? items.filter(handle) : [];
  if (byHandle.length === 1) return id(byHandle[0]);
  // Where a listed one holds its names: `name`, or its kind's fields (dotted paths: an app's is
  // its spec's name; a CDN endpoint's, its origin and custom domain).
  const fields = kind.names?.fields ?? ['name'];
  const matches = items.filter((item) => fields.some((field) => valueAt(item, field) === name));
  if (matches.length === 1) return id(matches[0]);
  if (matches.length === 0) {
    throw new InputError(
      `no ${kind.label} has the ${handles(kind)} ${JSON.stringify(name)} (${kind.list} lists them)`,
      argument,
    );
  }
  throw new InputError(
    `${matches.length} ${kind.label}s are named ${JSON.stringify(name)}: ${matches.map((item) => String(id(item))).join(', ')}; give one of these ids`,
    argument,
  );
}

async function listAll(
  kind: NamedKind,
  tools: ToolLookup,
  context: ToolContext,
  within: Record<string, unknown> = {},
) {
  const list = await tools(kind.list);
  if (!list) throw new Error(`${kind.list} is needed to look up ${kind.label} names`);
  // The largest page the list tool takes, so that one call sees them all in most accounts; the
  // pages after it, if any, are followed (a name on page 2 is a name all the same).
  const perPage = perPageArgument(list);
  const args = { ...(perPage ? { [perPage]: 200 } : {}), ...kind.listArgs, ...within };
  const result = (
    pageArgument(list) ? await runAllPages(list, args, context) : await runTool(list, args, context)
  ) as Record<string, unknown>;
  const items = result[kind.items];
  return Array.isArray(items) ? (items as Record<string, unknown>[]) : [];
}
