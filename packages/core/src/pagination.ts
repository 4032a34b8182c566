/**
 * Pagination as the platform does it: `page`/`per_page` in; `links.pages` (first, prev, next,
 * last) and `meta.total` out. List tools return these untouched, so a caller can tell whether
 * more pages exist; `paginate` walks them for library users, `runAllPages` (and `followPages`) for
 * apps (`--all`).
 */
import type { ApiClient, QueryValue } from './client.js';
import { CancelledError } from './errors.js';
import { rateLimitNote, rateLimitSpacing } from './rate-limit.js';
import { realClock } from './retry.js';
import { type AnyTool, runTool, type ToolContext } from './tool.js';

export interface Links {
  pages?: { first?: string; prev?: string; next?: string; last?: string };
  [key: string]: unknown;
}

export interface Meta {
  total?: number;
  [key: string]: unknown;
}

export type ListResponse<K extends string, T> = { [key in K]: T[] } & { links?: Links; meta?: Meta };

/**
 * Yields every item of a list endpoint, page after page, until `links.pages.next` is absent.
 * `key` names the array in the body (`ssh_keys`, `droplets`...); without it, the answer's one
 * array besides `links` and `meta`.
 */
export async function* paginate<T>(
  client: ApiClient,
  options: {
    path: string;
    key?: string;
    perPage?: number;
    query?: Record<string, QueryValue>;
    signal?: AbortSignal;
  },
): AsyncGenerator<T, void, undefined> {
  const perPage = options.perPage ?? 100;
  for (let page = 1; ; page++) {
    const body = await client.request<Record<string, unknown>>({
      method: 'GET',
      path: options.path,
      query: { ...options.query, page, per_page: perPage },
      signal: options.signal,
    });
    const key = options.key ?? (body ? itemsKey(body) : undefined);
    const items = ((key === undefined ? undefined : body?.[key]) ?? []) as T[];
    yield* items;
    const links = body?.links as Links | undefined;
    if (!links?.pages?.next || items.length === 0) return;
  }
}

/**
 * The argument a list tool takes its page number in (the one its request sends as `page`), or
 * undefined for a tool that has no pages.
 */
export function pageArgument(tool: AnyTool): string | undefined {
  return tool.request?.query?.page ?? tool.pages?.page;
}

/** The argument of a list tool that takes the page size (`PerPage`), or undefined. */
export function perPageArgument(tool: AnyTool): string | undefined {
  return tool.request?.query?.per_page ?? tool.pages?.per_page;
}

/** The page number `links.pages.next` points at, or undefined when there is no next page. */
function nextPage(links: unknown): number | undefined {
  const next = (links as Links | undefined)?.pages?.next;
  if (typeof next !== 'string') return undefined;
  const page = Number(new URL(next, 'http://base.invalid').searchParams.get('page'));
  return Number.isSafeInteger(page) && page > 0 ? page : undefined;
}

/** The member of a list answer that holds its items: its one array besides `links` and `meta`. */
function itemsKey(answer: Record<string, unknown>): string | undefined {
  const lists = Object.entries(answer).filter(
    ([key, value]) => key !== 'links' && key !== 'meta' && Array.isArray(value),
  );
  return lists.length === 1 ? lists[0]?.[0] : undefined;
}

/**
 * Runs a list tool page after page, from the page asked for (the first by default), following
 * `links.pages.next` to the end, and answers one result holding every item (see `followPages`).
 */
export async function runAllPages(
  tool: AnyTool,
  raw: Record<string, unknown>,
  context: ToolContext,
): Promise<unknown> {
  const argument = pageArgument(tool);
  if (argument === undefined) throw new TypeError(`tool ${tool.name} has no pages`);
  return followPages(
    (page) => runTool(tool, { ...raw, [argument]: page }, context),
    Number(raw[argument] ?? 1),
    context,
  );
}

/**
 * Fetches a list page after page from page `first`, following `links.pages.next` to the end, and
 * answers one result holding every item, with the last page's `meta` and no next page. Between
 * pages it waits as `rateLimitSpacing` says, so a low request budget lasts until it resets, and
 * reports each such pause to `context.progress`. An answer that is not a list is answered as it
 * is. `fetch` asks for one page: a list tool's run (`runAllPages`), or a generic call with the
 * page in its query (the CLI's `cloudcall api --paginate`).
 */
export async function followPages(
  fetch: (page: number) => Promise<unknown>,
  first: number,
  context: Pick<ToolContext, 'client' | 'clock' | 'progress' | 'signal'>,
): Promise<unknown> {
  let page = first;
  const clock = context.clock ?? realClock;
  let merged: Record<string, unknown> | undefined;
  let items: unknown[] = [];
  for (;;) {
    const answer = (await fetch(page)) as Record<string, unknown>;
    const key = answer && typeof answer === 'object' ? itemsKey(answer) : undefined;
    if (key === undefined) return merged ?? answer;
    const pageItems = answer[key] as unknown[];
    items = items.concat(pageItems);
    merged = { ...answer, [key]: items, links: {} };
    const next = nextPage(answer.links);
    if (next === undefined || next <= page || pageItems.length === 0) return merged;
    page = next;
    const spacing = rateLimitSpacing(context.client.rateLimit, clock.now());
    if (spacing > 0) {
      context.progress?.({
        progress: page - 1,
        message: `waiting ${Math.ceil(spacing / 1000)} s before page ${page}: ${rateLimitNote(context.client.rateLimit)}`,
      });
      try {
        await clock.sleep(spacing, context.signal);
      } catch {
        throw new CancelledError();
      }
    }
  }
}
