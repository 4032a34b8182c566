/**
 * The sandbox HTTP server: the platform API v2 on loopback, with bearer auth, request ids,
 * rate-limit headers, the platform's error bodies and pagination, over a persistent world.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { badRequest, HttpError, type Route, type SandboxRequest } from './http.js';
import { routes as allRoutes } from './routes/index.js';
import { StateFileError, Store } from './store.js';
import { seedWorld, upgradeWorld, type World } from './world.js';

export interface SandboxOptions {
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Save the world to this JSON file, shared with other processes using the same file. */
  statePath?: string | undefined;
  /** The real clock; tests may replace it. The world's own offset is added to it. */
  now?: () => number;
  /** Receives one line per request, without credentials. */
  log?: (line: string) => void;
}

export interface Sandbox {
  /** Base URL to give the API client, such as http://127.0.0.1:41234. */
  url: string;
  port: number;
  store: Store<World>;
  /** Moves the sandbox clock forward (persisted: other processes see it too). */
  advanceClock(ms: number): Promise<void>;
  close(): Promise<void>;
}

const RATE_LIMIT = 5000;

interface CompiledRoute extends Route {
  pattern: RegExp;
  names: string[];
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { ...route, pattern: new RegExp(`^${source}/?$`), names };
}

/** Starts the sandbox and resolves once it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const clock = options.now ?? Date.now;
  const store = new Store<World>({
    path: options.statePath,
    seed: () => seedWorld(clock()),
    upgrade: upgradeWorld,
  });
  await store.open();
  const compiled = allRoutes.map(compile);
  const requestsByToken = new Map<string, { windowStart: number; count: number }>();
  let baseUrl = '';

  const server: Server = createServer((req, res) => {
    const requestId = randomUUID();
    // Filled in by `handle` as it goes, so that a 500 still carries the request id and rate limits.
    const headers: Record<string, string> = { 'x-request-id': requestId };
    handle(req, res, requestId, headers).catch((error: unknown) => {
      options.log?.(`sandbox: internal error: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) {
        // A state file that cannot be used says which and why; anything else stays internal.
        const message = error instanceof StateFileError ? error.message : 'Internal sandbox error.';
        send(res, 500, errorBody(requestId, 'server_error', message), headers);
      } else res.destroy();
    });
  });

  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    headers: Record<string, string>,
  ): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const method = req.method ?? 'GET';
    const raw = await readBody(req);

    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    // Unauthenticated requests share one budget per client address (a token never holds a space).
    const bucket = token ?? `anonymous ${req.socket.remoteAddress ?? ''}`;
    Object.assign(headers, rateLimitHeaders(requestsByToken, bucket, clock()));
    if (!token) {
      options.log?.(`sandbox: ${method} ${url.pathname} -> 401`);
      send(res, 401, errorBody(requestId, 'unauthorized', 'Unable to authenticate you.'), headers);
      return;
    }

    let status = 404;
    let body: unknown = errorBody(
      requestId,
      'not_found',
      'The resource you were accessing could not be found.',
    );
    const matches = compiled.filter((route) => route.pattern.test(url.pathname));
    const route = matches.find((r) => r.method === method);
    if (matches.length && !route) {
      status = 405;
      body = errorBody(requestId, 'method_not_allowed', `${method} is not allowed on ${url.pathname}.`);
    } else if (route) {
      try {
        const params: Record<string, string> = {};
        const found = route.pattern.exec(url.pathname) ?? [];
        route.names.forEach((name, i) => {
          params[name] = decodePathParam(found[i + 1] ?? '');
        });
        const request: Omit<SandboxRequest, 'now'> = {
          method,
          params,
          query: url.searchParams,
          body: parseBody(raw),
          baseUrl,
          path: url.pathname,
        };
        const { prepare } = route;
        const prepared = prepare
          ? await store.read((world) => prepare({ ...request, now: clock() + world.clockOffsetMs }, world))
          : undefined;
        const run = (world: World) =>
          route.handler({ ...request, now: clock() + world.clockOffsetMs, prepared }, world);
        const reply = method === 'GET' ? await store.read(run) : await store.write(run);
        status = reply.status ?? 200;
        body = reply.body;
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        status = error.status;
        body = errorBody(requestId, error.id, error.message);
      }
    }
    options.log?.(`sandbox: ${method} ${url.pathname}${url.search} -> ${status}`);
    send(res, status, body, headers);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  baseUrl = `http://${host}:${address.port}`;

  return {
    url: baseUrl,
    port: address.port,
    store,
    advanceClock: (ms: number) =>
      store.write((world) => {
        world.clockOffsetMs += ms;
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function errorBody(requestId: string, id: string, message: string) {
  return { id, message, request_id: requestId };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
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

function decodePathParam(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw badRequest(`The path segment ${text} is not valid percent-encoding.`);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseBody(raw: string): Record<string, unknown> {
  if (raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw badRequest('The request body is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw badRequest('The request body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}

/** The platform's hourly request budget per token, told in `ratelimit-*` headers. */
function rateLimitHeaders(
  counts: Map<string, { windowStart: number; count: number }>,
  token: string,
  now: number,
): Record<string, string> {
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
