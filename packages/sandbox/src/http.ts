/**
 * What a route handler sees and returns, and the platform's conventions for errors and pages.
 */
import type { World } from './world.js';

/** An error answered as the platform answers it: `{id, message, request_id}` with a status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly id: string,
    message: string,
    /** Fields some operations add to the error body (such as `root_causes`). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export const notFound = (what = 'The resource you were accessing could not be found.') =>
  new HttpError(404, 'not_found', what);

export const unprocessable = (message: string) => new HttpError(422, 'unprocessable_entity', message);

export const forbidden = (message: string) => new HttpError(403, 'forbidden', message);

export const badRequest = (message: string) => new HttpError(400, 'bad_request', message);

export interface SandboxRequest {
  method: string;
  /** Path parameters named in the route, such as `{ id: '42' }`. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body; an empty object when none was sent. */
  body: Record<string, unknown>;
  /** The sandbox's own base URL, for `links`. */
  baseUrl: string;
  path: string;
  /** Milliseconds since the epoch on the sandbox clock (which tests can advance). */
  now: number;
  /** What the route's `prepare` step resolved to, when the route has one. */
  prepared?: unknown;
  /**
   * The request's headers, names in lower case, for the few operations that read one (`X-Dangerous`
   * on the destroys that take associated resources with them).
   */
  headers?: Record<string, string | string[] | undefined>;
}

/** A body that is a file rather than JSON (an invoice's CSV or PDF), sent as an attachment. */
export class FileBody {
  constructor(
    readonly contentType: string,
    readonly filename: string,
    readonly data: Buffer,
  ) {}
}

export interface Reply {
  status?: number;
  /** JSON, or a FileBody sent as it is. */
  body?: unknown;
}

export type Handler = (request: SandboxRequest, world: World) => Reply;

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A path pattern with `{name}` parameters, such as `/v2/account/keys/{key}`. */
  path: string;
  handler: Handler;
  /**
   * Optional asynchronous step run before `handler`, outside the write transaction, on a read-only
   * view of the world: for work that waits on I/O (such as connecting to a database to check it).
   * Its result reaches the handler as `request.prepared`; throwing an HttpError answers the request.
   */
  prepare?: (request: SandboxRequest, world: World) => Promise<unknown>;
  /** The operation of the API description the generic layer answers here (unset on hand models). */
  operationId?: string;
  /** The handler checks the lengths of what it takes itself: the table of field limits is not applied. */
  ownLengths?: boolean;
}

export interface Page<T> {
  items: T[];
  links: { pages?: Record<string, string> };
  meta: { total: number };
  /** The page given (1 when none was) and how many there are (at least 1). */
  page: number;
  pages: number;
}

/** Cuts one page out of a list and builds the platform's `links.pages` and `meta.total`. */
export function paginate<T>(items: readonly T[], request: SandboxRequest, defaultPerPage = 20): Page<T> {
  const perPage = clampInt(request.query.get('per_page'), defaultPerPage, 1, 200);
  const page = clampInt(request.query.get('page'), 1, 1, Number.MAX_SAFE_INTEGER);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (n: number) => {
    const query = new URLSearchParams(request.query);
    query.set('page', String(n));
    query.set('per_page', String(perPage));
    return `${request.baseUrl}${request.path}?${query}`;
  };
  const pages: Record<string, string> = {};
  if (page > 1) {
    pages.first = link(1);
    pages.prev = link(Math.min(page - 1, last));
  }
  if (page < last) {
    pages.next = link(page + 1);
    pages.last = link(last);
  }
  return {
    items: items.slice((page - 1) * perPage, page * perPage),
    links: Object.keys(pages).length ? { pages } : {},
    meta: { total: items.length },
    page,
    pages: last,
  };
}

/**
 * The list body the platform sends: `{ [key]: items, links, meta }`. With `view`, only the page's
 * items are turned into what is shown: a page costs in proportion to the page, not to the list.
 */
export function listBody<T, V = T>(
  key: string,
  items: readonly T[],
  request: SandboxRequest,
  view?: (item: T) => V,
  defaultPerPage = 20,
) {
  const page = paginate(items, request, defaultPerPage);
  return { [key]: view ? page.items.map(view) : page.items, links: page.links, meta: page.meta };
}

function clampInt(text: string | null, fallback: number, min: number, max: number): number {
  if (text === null || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value)) throw badRequest(`invalid page parameter: ${text}`);
  return Math.min(max, Math.max(min, value));
}

/** A required string field of a request body, or the platform's 422 naming it. */
export function requireString(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') {
    throw unprocessable(`${field} is required and must be a non-empty string`);
  }
  return value;
}

/** A path parameter that must be a positive integer id. */
export function intParam(request: SandboxRequest, name: string): number {
  const value = Number(request.params[name]);
  if (!Number.isInteger(value) || value <= 0) throw notFound();
  return value;
}

/**
 * Refuses a destroy that takes more than its resource with it unless the request acknowledges it
 * with `X-Dangerous: true`, as the platform does.
 */
export function requireDangerous(request: SandboxRequest, what: string): void {
  const value = request.headers?.['x-dangerous'];
  if (String(value).toLowerCase() !== 'true') {
    throw badRequest(
      `destroying ${what} needs the header X-Dangerous: true, acknowledging it cannot be undone`,
    );
  }
}
