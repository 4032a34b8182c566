/**
 * Pagination as the platform does it: `page`/`per_page` in; `links.pages` (first, prev, next,
 * last) and `meta.total` out. List tools return these untouched, so a caller can tell whether
 * more pages exist; `paginate` walks them for library users.
 */
import type { ApiClient, QueryValue } from './client.js';

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
 * `key` names the array in the body (`ssh_keys`, `droplets`...).
 */
export async function* paginate<T>(
  client: ApiClient,
  options: {
    path: string;
    key: string;
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
    const items = (body?.[options.key] ?? []) as T[];
    yield* items;
    const links = body?.links as Links | undefined;
    if (!links?.pages?.next || items.length === 0) return;
  }
}
