/** An error answered as the platform answers it: `{id, message, request_id}` with a status. */
export class HttpError extends Error {
    status;
    id;
    constructor(status, id, message) {
        super(message);
        this.status = status;
        this.id = id;
    }
}
export const notFound = (what = 'The resource you were accessing could not be found.') => new HttpError(404, 'not_found', what);
export const unprocessable = (message) => new HttpError(422, 'unprocessable_entity', message);
export const badRequest = (message) => new HttpError(400, 'bad_request', message);
/** Cuts one page out of a list and builds the platform's `links.pages` and `meta.total`. */
export function paginate(items, request, defaultPerPage = 20) {
    const perPage = clampInt(request.query.get('per_page'), defaultPerPage, 1, 200);
    const page = clampInt(request.query.get('page'), 1, 1, Number.MAX_SAFE_INTEGER);
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const link = (n) => {
        const query = new URLSearchParams(request.query);
        query.set('page', String(n));
        query.set('per_page', String(perPage));
        return `${request.baseUrl}${request.path}?${query}`;
    };
    const pages = {};
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
    };
}
/** The list body the platform sends: `{ [key]: items, links, meta }`. */
export function listBody(key, items, request, defaultPerPage = 20) {
    const page = paginate(items, request, defaultPerPage);
    return { [key]: page.items, links: page.links, meta: page.meta };
}
function clampInt(text, fallback, min, max) {
    if (text === null || text === '')
        return fallback;
    const value = Number(text);
    if (!Number.isInteger(value))
        throw badRequest(`invalid page parameter: ${text}`);
    return Math.min(max, Math.max(min, value));
}
/** A required string field of a request body, or the platform's 422 naming it. */
export function requireString(body, field) {
    const value = body[field];
    if (typeof value !== 'string' || value.trim() === '') {
        throw unprocessable(`${field} is required and must be a non-empty string`);
    }
    return value;
}
/** A path parameter that must be a positive integer id. */
export function intParam(request, name) {
    const value = Number(request.params[name]);
    if (!Number.isInteger(value) || value <= 0)
        throw notFound();
    return value;
}
export const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
