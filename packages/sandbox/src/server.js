/**
 * The sandbox HTTP server: the platform API v2 on loopback, with bearer auth, request ids,
 * rate-limit headers, the platform's error bodies and pagination, over a persistent world.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { badRequest, HttpError } from './http.js';
import { routes as allRoutes } from './routes/index.js';
import { Store } from './store.js';
import { seedWorld, upgradeWorld } from './world.js';
const RATE_LIMIT = 5000;
function compile(route) {
    const names = [];
    const source = route.path.replace(/\{(\w+)\}/g, (_, name) => {
        names.push(name);
        return '([^/]+)';
    });
    return { ...route, pattern: new RegExp(`^${source}/?$`), names };
}
/** Starts the sandbox and resolves once it listens. */
export async function startSandbox(options = {}) {
    const clock = options.now ?? Date.now;
    const store = new Store({
        path: options.statePath,
        seed: () => seedWorld(clock()),
        upgrade: upgradeWorld,
    });
    await store.open();
    const compiled = allRoutes.map(compile);
    const requestsByToken = new Map();
    let baseUrl = '';
    const server = createServer((req, res) => {
        handle(req, res).catch((error) => {
            options.log?.(`sandbox: internal error: ${error instanceof Error ? error.message : String(error)}`);
            if (!res.headersSent)
                send(res, 500, errorBody(randomUUID(), 'server_error', 'Internal sandbox error.'), {});
            else
                res.destroy();
        });
    });
    async function handle(req, res) {
        const requestId = randomUUID();
        const url = new URL(req.url ?? '/', 'http://sandbox');
        const method = req.method ?? 'GET';
        const raw = await readBody(req);
        const headers = { 'x-request-id': requestId };
        const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
        if (!token) {
            options.log?.(`sandbox: ${method} ${url.pathname} -> 401`);
            send(res, 401, errorBody(requestId, 'unauthorized', 'Unable to authenticate you.'), headers);
            return;
        }
        Object.assign(headers, rateLimitHeaders(requestsByToken, token, clock()));
        let status = 404;
        let body = errorBody(requestId, 'not_found', 'The resource you were accessing could not be found.');
        const matches = compiled.filter((route) => route.pattern.test(url.pathname));
        const route = matches.find((r) => r.method === method);
        if (matches.length && !route) {
            status = 405;
            body = errorBody(requestId, 'method_not_allowed', `${method} is not allowed on ${url.pathname}.`);
        }
        else if (route) {
            try {
                const params = {};
                const found = route.pattern.exec(url.pathname) ?? [];
                route.names.forEach((name, i) => {
                    params[name] = decodeURIComponent(found[i + 1] ?? '');
                });
                const request = {
                    method,
                    params,
                    query: url.searchParams,
                    body: parseBody(raw),
                    baseUrl,
                    path: url.pathname,
                };
                const run = (world) => route.handler({ ...request, now: clock() + world.clockOffsetMs }, world);
                const reply = method === 'GET' ? await store.read(run) : await store.write(run);
                status = reply.status ?? 200;
                body = reply.body;
            }
            catch (error) {
                if (!(error instanceof HttpError))
                    throw error;
                status = error.status;
                body = errorBody(requestId, error.id, error.message);
            }
        }
        options.log?.(`sandbox: ${method} ${url.pathname}${url.search} -> ${status}`);
        send(res, status, body, headers);
    }
    await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
            server.off('error', reject);
            resolve();
        });
    });
    const address = server.address();
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    baseUrl = `http://${host}:${address.port}`;
    return {
        url: baseUrl,
        port: address.port,
        store,
        advanceClock: (ms) => store.write((world) => {
            world.clockOffsetMs += ms;
        }),
        close: () => new Promise((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
        }),
    };
}
function errorBody(requestId, id, message) {
    return { id, message, request_id: requestId };
}
function send(res, status, body, headers) {
    if (status === 204 || body === undefined) {
        res.writeHead(status, headers);
        res.end();
        return;
    }
    const text = JSON.stringify(body);
    res.writeHead(status, {
        ...headers,
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(text)),
    });
    res.end(text);
}
function readBody(req) {
    return new Promise((resolve, reject) => {
        const chunks = [];
        req.on('data', (chunk) => chunks.push(chunk));
        req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        req.on('error', reject);
    });
}
function parseBody(raw) {
    if (raw.trim() === '')
        return {};
    let parsed;
    try {
        parsed = JSON.parse(raw);
    }
    catch {
        throw badRequest('The request body is not valid JSON.');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw badRequest('The request body must be a JSON object.');
    }
    return parsed;
}
/** The platform's hourly request budget per token, told in `ratelimit-*` headers. */
function rateLimitHeaders(counts, token, now) {
    const hour = 3_600_000;
    let entry = counts.get(token);
    if (!entry || now - entry.windowStart >= hour) {
        entry = { windowStart: now, count: 0 };
        counts.set(token, entry);
    }
    entry.count++;
    return {
        'ratelimit-limit': String(RATE_LIMIT),
        'ratelimit-remaining': String(Math.max(0, RATE_LIMIT - entry.count)),
        'ratelimit-reset': String(Math.ceil((entry.windowStart + hour) / 1000)),
    };
}
