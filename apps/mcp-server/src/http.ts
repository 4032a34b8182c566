/**
 * Streamable HTTP at `/mcp`, for one person on loopback or as a team service behind a load
 * balancer.
 *
 * - Stateful (the default): one MCP session per client, each with its own server instance over the
 *   shared API client. Sessions are bounded in number and closed after an idle timeout, so
 *   abandoned ones cannot exhaust memory.
 *   Their SSE streams can be resumed: every event has an id and is kept in a bounded store per
 *   session (`SessionEventStore`), a stream opens with a priming event and a `retry:` field, and
 *   a client whose connection dropped gets what it missed by sending `Last-Event-ID`.
 * - `--stateless`: no sessions, so any replica can answer any request. A plain `tools/call` (the
 *   bulk of a team's traffic) is answered here by the shared tool runner, with the JSON-RPC
 *   answer the SDK would give (`http-fast.test.ts` compares them); anything else gets a fresh
 *   SDK server and transport (the SDK's stateless mode). A call that asks for progress gets its
 *   notifications in that POST's own SSE answer; other calls get plain JSON. Nothing else can
 *   reach the client unasked (no GET stream, no list_changed, no server-to-client requests such
 *   as elicitation). `notifications/cancelled` stops a call in flight on this process from the
 *   same caller (`callerOf`); one that lands on another replica finds nothing to stop there.
 * - Batches follow the protocol version: accepted up to 2025-03-26, refused from 2025-06-18 on.
 *
 * Every request to /mcp must name this server in `Host` and come from no page or an allowed one
 * (`Origin`), against DNS rebinding and cross-site requests; then authenticate as `--auth` says.
 * `/healthz`, `/readyz` and `/metrics` answer GETs for probes and scrapers, without those checks.
 * Closing drains: no new connections, calls in flight get the grace period to finish.
 *
 * Callers share the process fairly: a request's headers and body must arrive in time
 * (--header-timeout, --body-timeout: else 408), a body still arriving takes no place among the
 * requests answered at once (--max-in-flight), and each caller (callerOf) gets only its share of
 * those (--max-in-flight-per-caller): past either, 503 with Retry-After. So a caller dripping
 * bodies, or holding many slow calls, cannot keep anyone else from being served.
 */
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Writable } from 'node:stream';
import { readBody } from '@cloudcall/core/internal';
import {
  type AuthInfo,
  type CallToolResult,
  isJsonContentType,
  type RequestId,
  type Server,
  type WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { bindProblem, isLoopback } from './bind.js';
import { CallAbort } from './call-abort.js';
import { EventBudget, SessionEventStore } from './event-store.js';
import { CallerCounts } from './fair-share.js';
import { errorAnswer, type PlainCallParams, plainCallParams } from './fast-call.js';
import { BATCHES_REMOVED_IN, hasModernClaim } from './handshake.js';
import { createLogger, type Logger, type RequestContext, requestLineWriter } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';
import type { ModernHttp } from './modern.js';
import {
  answerMetadata,
  challenge,
  isMetadataPath,
  metadataUrl,
  type OAuthResource,
  refusedByPlatform,
  resourceOf,
} from './oauth-resource.js';
import { PROTOCOL } from './protocol.generated.js';
import { type AuthMode, acceptedKey, type ClientKey, tokenNames } from './service-config.js';
import {
  DEFAULT_BODY_TIMEOUT_S,
  DEFAULT_HEADER_TIMEOUT_S,
  DEFAULT_MAX_EVENT_STORE_BYTES,
} from './service-flags.js';
import { answerText, type CallExtra, type ToolCall } from './tool-call.js';
import { serveWeb } from './web-bridge.js';

/**
 * The MCP SDK's (v2) Streamable HTTP transport and message checks, loaded with the first request
 * that needs them (a session's, or one the stateless fast path leaves to the SDK): a stateless
 * replica answering plain calls never loads the transport, nor the server it serves.
 */
let sdkParts: Promise<typeof import('@modelcontextprotocol/server')> | undefined;
function sdk() {
  sdkParts ??= import('@modelcontextprotocol/server');
  return sdkParts;
}

export interface HttpOptions {
  host: string;
  port: number;
  /**
   * A fresh MCP server for each session (with --stateless, for each request the fast path
   * leaves); a promise of one while the SDK server loads.
   */
  newServer: () => Server | Promise<Server>;
  /**
   * With --stateless: tools/call for the offered tools, shared by every request, answering a
   * plain call without a server of its own (server.ts `createToolCall`). Without it (dynamic
   * mode, whose toolset tools belong to a session), every request gets an SDK server.
   */
  toolCall?: ToolCall | undefined;
  /**
   * How a POST claiming protocol revision 2026-07-28 is answered (modern.ts), loaded with the
   * first one; without it, such a POST is answered as a 2025 one would be.
   */
  modern?: (() => Promise<ModernHttp>) | undefined;
  log: (line: string) => void;
  /** The JSON logger for one line per request (with its id); none when undefined. */
  logger?: Logger;
  /** Where the requests being answered are kept for their calls' lines (HttpService.requests). */
  requests?: Map<string, RequestContext>;
  /** The metrics served at /metrics: made before the servers and clients that feed them. */
  metrics?: Metrics;
  /** The most sessions open at once; past it a new session gets 503. */
  maxSessions: number;
  /** A session with no request or stream open for this long is closed. */
  sessionIdleTimeoutMs: number;
  /** The largest request body read, in bytes; a larger one gets 413. */
  maxMessageBytes: number;
  /** No sessions: any replica can answer any request. */
  stateless?: boolean;
  /** How clients authenticate (default none). */
  auth?: AuthMode;
  /** --auth static: the client keys' SHA-256 digests and names. */
  clientKeys?: readonly ClientKey[];
  /** --auth oauth: the authorization server and this server's public URL (oauth-resource.ts). */
  oauth?: OAuthResource | undefined;
  /**
   * --auth oauth: checks a request's token with the platform (clients.ts, cached a minute), so
   * that one it refuses gets 401 with `invalid_token` and its host signs in again.
   */
  checkToken?: ((auth?: AuthInfo) => Promise<void>) | undefined;
  /** Host header values served, instead of this server's loopback names. */
  allowedHosts?: readonly string[] | undefined;
  /** Origins allowed, instead of loopback pages. */
  allowedOrigins?: readonly string[] | undefined;
  /**
   * POSTs to /mcp carrying requests answered at once (default unlimited); past it 503 with
   * Retry-After, so one client cannot pile up unbounded work and memory on this process. Counted
   * once the body has arrived: a body still arriving takes no place (--body-timeout bounds it),
   * and a POST of notifications or answers only (a cancel, an answer to a confirmation question)
   * takes none, as refusing it could keep its caller's own call from ending.
   */
  maxInFlight?: number;
  /** Of those, the most one caller (callerOf) has at once (default maxInFlight); past it 503. */
  maxInFlightPerCaller?: number;
  /** Time for a request's headers to arrive, from its first byte; else 408 (default 10 s). */
  headerTimeoutMs?: number;
  /** Time for a request's body to arrive whole, from its headers; else 408 (default 30 s). */
  bodyTimeoutMs?: number;
  /** Bytes of SSE events kept for resuming streams, every session together (default 16 MiB). */
  maxEventStoreBytes?: number;
  /** How long close() waits for calls in flight. */
  graceMs?: number;
  /** Why the server cannot serve calls now (the API is out of reach), or undefined: /readyz. */
  ready?: () => Promise<string | undefined>;
}

export interface RunningHttp {
  url: string;
  /** Stops accepting, waits up to the grace period for calls in flight, then closes everything. */
  close(): Promise<void>;
}

/** The JSON logger and the metrics of one HTTP server process. */
export interface HttpService {
  logger: Logger;
  metrics: Metrics;
  /** The requests being answered, by REQUEST_KEY: what a call's lines say of their request. */
  requests: Map<string, RequestContext>;
  /** Plain log lines, in the JSON log. */
  log: (line: string) => void;
  /** Lines about something that went wrong (a failed tool call), at warn, with the call's request id. */
  warn: (line: string, extra?: CallExtra) => void;
  /** Lines only worth reading when debugging (a call that went well), at debug. */
  debug: (line: string, extra?: CallExtra) => void;
  /** Told of every tool call as it ends: counted, and named in its request's line. */
  onCall: (tool: string, outcome: 'ok' | 'error', ms: number, extra?: CallExtra) => void;
}

/**
 * The header serveHttp sets on each request it answers (whatever the client sent in it) to the
 * request's own key in `HttpService.requests`. The SDK hands a request's headers to the tool
 * call (the web request web-bridge.ts makes, which server.ts gives the call as `requestInfo`), so
 * a call's log lines find their request without an AsyncLocalStorage.
 */
const REQUEST_KEY = 'x-cloudcall-request-key';

export function createHttpService(options: { quiet: boolean; stream?: Writable }): HttpService {
  const logger = createLogger(options);
  const metrics = createMetrics();
  const requests = new Map<string, RequestContext>();
  const contextOf = (extra: CallExtra | undefined) => {
    const key = extra?.requestInfo?.headers[REQUEST_KEY];
    return typeof key === 'string' ? requests.get(key) : undefined;
  };
  const line = (level: 'warn' | 'debug') => (text: string, extra?: CallExtra) => {
    // A call that went well is logged at debug: below the level, nothing to look up.
    if (!logger.isLevelEnabled(level)) return;
    const context = contextOf(extra);
    if (context) logger[level]({ req_id: context.req_id }, text);
    else logger[level](text);
  };
  return {
    logger,
    metrics,
    requests,
    log: (text) => logger.info(text),
    warn: line('warn'),
    debug: line('debug'),
    onCall: (tool, outcome, ms, extra) => {
      metrics.observeCall(tool, outcome, ms);
      const context = contextOf(extra);
      if (context) context.tool = tool;
    },
  };
}

export { bindProblem, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_S, isLoopback } from './bind.js';

/** An `Origin` header's value is allowed when it names a loopback host over http(s), any port. */
function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (opaque origins) and anything else that is not a URL
  }
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    isLoopback(url.hostname.replace(/^\[(.*)\]$/, '$1'))
  );
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  /** Who opened it: sessionOwner of its initialize request. */
  owner: string;
  /** The protocol version initialize settled on: whether this session may send batches. */
  protocolVersion: string;
  /** Requests of this session (POSTs being answered, GET streams) still open. */
  open: number;
  idle?: NodeJS.Timeout;
}

export async function serveHttp(options: HttpOptions): Promise<RunningHttp> {
  const authMode = options.auth ?? 'none';
  const problem = bindProblem(options.host, authMode);
  if (problem) throw new Error(problem);
  const { log } = options;
  const metrics = options.metrics ?? createMetrics();
  const logger = options.logger;
  const requestLine = logger && requestLineWriter(logger);
  // Sessions (and a stateless server without the fast path) need the SDK for every request.
  if (!options.stateless || !options.toolCall) sdk().catch(() => undefined);

  const sessions = new Map<string, Session>();
  /** Every session that holds a server: initialized ones and those being initialized. */
  const live = new Set<Session>();
  metrics.openSessions = () => live.size;
  let allowedHosts: readonly string[] = [];
  /** POSTs to /mcp carrying requests being answered (admit): what --max-in-flight counts. */
  let inFlight = 0;
  metrics.requestsInFlight = () => inFlight;
  const maxInFlight = options.maxInFlight ?? Number.POSITIVE_INFINITY;
  /** Of those, each caller's (callerOf), held to its share. */
  const perCaller = new CallerCounts();
  const callerShare = options.maxInFlightPerCaller ?? maxInFlight;
  /** POSTs whose bodies are still arriving: in no limit, but a drain waits for them too. */
  let reading = 0;
  const headerTimeoutMs = options.headerTimeoutMs ?? DEFAULT_HEADER_TIMEOUT_S * 1000;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_S * 1000;
  /** The bytes every session's event store keeps together. */
  const eventBudget = new EventBudget(options.maxEventStoreBytes ?? DEFAULT_MAX_EVENT_STORE_BYTES);
  metrics.eventStoreBytes = () => eventBudget.bytes;
  let draining = false;
  let drained: (() => void) | undefined;
  const settled = () => {
    if (inFlight + reading === 0) drained?.();
  };

  const requests = options.requests ?? new Map<string, RequestContext>();
  let requestCount = 0;
  const timeouts = {
    // From a request's first byte (an idle keep-alive connection waits for none): headers that
    // have not all arrived by then get Node's 408, and the connection closes.
    headersTimeout: headerTimeoutMs,
    // A backstop for requests whose bodies nothing reads (one answered without reading it, on any
    // path): /mcp reads its bodies with --body-timeout itself (readRequest), this comes later.
    requestTimeout: headerTimeoutMs + bodyTimeoutMs + BACKSTOP_MS,
    // How often Node looks for requests past those two (30 s by default).
    connectionsCheckingInterval: 1000,
  };
  const http: HttpServer = createServer(timeouts, (req, res) => {
    const id = requestId(req);
    res.setHeader('x-request-id', id);
    const started = performance.now();
    const path = pathOf(req.url);
    const key = String(++requestCount);
    req.headers[REQUEST_KEY] = key;
    const context: RequestContext = { req_id: id };
    requests.set(key, context);
    /** What else ends with this request's answer: one 'close' listener calls it all, in order. */
    const closers: Closers = [];
    res.once('close', () => {
      requests.delete(key);
      const ms = Math.round(performance.now() - started);
      // Probes and scrapes come every few seconds: only worth a line when debugging.
      if (path === '/mcp') {
        requestLine?.({
          req_id: id,
          tool: context.tool,
          method: req.method,
          path,
          status: res.statusCode,
          ms,
        });
      } else {
        logger?.debug(
          {
            req_id: id,
            ...(context.tool !== undefined && { tool: context.tool }),
            method: req.method,
            path,
            status: res.statusCode,
            ms,
          },
          'request',
        );
      }
      for (const close of closers) close();
    });
    route(req, res, path, closers).catch((error: unknown) => {
      const text = `http: ${error instanceof Error ? error.message : String(error)}`;
      if (logger) logger.info({ req_id: id }, text);
      else log(text);
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal server error');
    });
  });

  async function route(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    closers: Closers,
  ): Promise<void> {
    if (req.method === 'GET' && path in OPERATIONS) {
      await operations(path as keyof typeof OPERATIONS, res);
      return;
    }
    // Only requests addressed to this server by name are served (DNS rebinding protection).
    if (!hostAllowed(header(req, 'host') ?? '', options.allowedHosts ?? allowedHosts)) {
      jsonRpcError(
        res,
        403,
        -32000,
        `Forbidden: the Host header does not name this server (${options.allowedHosts ? 'not in --allowed-hosts' : 'loopback names only; a name served behind a proxy goes in --allowed-hosts'})`,
      );
      return;
    }
    // --auth oauth's metadata: public, so for any page (no Origin check) and without a token.
    if (options.oauth && isMetadataPath(path, options.oauth)) {
      answerMetadata(req, res, options.oauth, header(req, 'host') ?? '');
      return;
    }
    // Browsers send Origin on cross-site requests: only allowed pages (by default loopback) may call.
    const origin = header(req, 'origin');
    if (origin !== undefined && !originAllowed(origin, options.allowedOrigins)) {
      jsonRpcError(
        res,
        403,
        -32000,
        `Forbidden: requests from this Origin are not allowed (${options.allowedOrigins ? 'not in --allowed-origins' : 'loopback only'})`,
      );
      return;
    }
    if (path !== '/mcp') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('cloudcall MCP endpoint is /mcp\n');
      return;
    }
    const auth = await authenticate(req, res);
    if (auth === false) return;
    if (auth) (req as IncomingMessage & { auth?: AuthInfo }).auth = auth;
    const caller = callerOf(auth);
    // Draining: what still arrives on an open connection is served, then the connection closes.
    if (draining) res.setHeader('connection', 'close');
    let body: unknown;
    if (req.method === 'POST') {
      let admitted = false;
      try {
        body = await readRequest(req, res);
        admitted = body !== undefined && admit(res, caller, body, closers);
      } finally {
        // Read (or gone), and in flight or not: a drain waiting for the last body may end now.
        settled();
      }
      if (!admitted) return;
      // Revision 2026-07-28 has no sessions: the same answer whatever the server's mode.
      if (options.modern && hasModernClaim(body, header(req, 'mcp-protocol-version'))) {
        await (await options.modern()).serve(req, res, body, auth);
        return;
      }
    }
    if (options.stateless) await serveStateless(req, res, auth, caller, body, closers);
    else await serveStateful(req, res, body);
  }

  /**
   * A POST's body as JSON, or undefined once it has been answered: 408 when it has not arrived
   * whole within --body-timeout of its headers (the rest is not read, and the connection closes),
   * 413 past --max-message-bytes, 400 when it is not JSON. While it arrives the request is in no
   * limit: a client sending its body a byte at a time keeps no one else from being served, and
   * is cut off at the timeout, whatever bearer string it came with.
   */
  async function readRequest(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    reading++;
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      metrics.observeRefusal('body-timeout');
      const seconds = bodyTimeoutMs / 1000;
      closeAfter(req, res);
      jsonRpcError(
        res,
        408,
        -32000,
        `Request Timeout: the request body did not arrive within ${seconds} s of its headers (--body-timeout ${seconds}). Nothing was done; send the whole request at once.`,
      );
    }, bodyTimeoutMs);
    let raw: Buffer | undefined;
    try {
      raw = await readBody(req, options.maxMessageBytes);
    } catch (error) {
      if (late) return undefined;
      throw error;
    } finally {
      clearTimeout(timer);
      reading--;
    }
    if (late) return undefined;
    if (raw === undefined) {
      closeAfter(req, res);
      jsonRpcError(res, 413, -32600, `Request body larger than ${options.maxMessageBytes} bytes`);
      return undefined;
    }
    try {
      return JSON.parse(raw.toString('utf8'));
    } catch {
      jsonRpcError(res, 400, -32700, 'Parse error: the body is not JSON');
      return undefined;
    }
  }

  /**
   * Takes a place among the requests answered at once, and in its caller's share of them, until
   * the answer ends, for a POST carrying a request; or answers 503 and says false. A POST of
   * notifications or answers only (a cancel, the answer to a confirmation question) takes none:
   * it is answered at once, and refusing it could keep its caller's own call from ending.
   */
  function admit(res: ServerResponse, caller: string, body: unknown, closers: Closers): boolean {
    const requests = (Array.isArray(body) ? body : [body]).filter(isRequest);
    if (requests.length === 0) return true;
    const id = Array.isArray(body) ? null : (requests[0]?.id ?? null);
    if (inFlight >= maxInFlight) {
      refuseBusy(res, id);
      return false;
    }
    if (!perCaller.take(caller, callerShare)) {
      refuseShare(res, id, perCaller.of(caller));
      return false;
    }
    inFlight++;
    closers.push(() => {
      inFlight--;
      perCaller.release(caller);
      settled();
    });
    return true;
  }

  /**
   * 503 at --max-in-flight, answered before anything runs: the request did nothing, so its
   * client may send it again, here later (Retry-After) or to another replica.
   */
  function refuseBusy(res: ServerResponse, id: RequestId | null): void {
    metrics.observeRefusal('max-in-flight');
    res.setHeader('retry-after', String(RETRY_AFTER_S));
    jsonRpcError(
      res,
      503,
      -32000,
      `Server busy: ${inFlight} requests are being answered, the most this server takes at once (--max-in-flight ${maxInFlight}). Nothing was done; try again in ${RETRY_AFTER_S} s.`,
      id,
    );
  }

  /** 503 at the caller's share (--max-in-flight-per-caller): other callers are still served. */
  function refuseShare(res: ServerResponse, id: RequestId | null, held: number): void {
    metrics.observeRefusal('max-in-flight-per-caller');
    res.setHeader('retry-after', String(RETRY_AFTER_S));
    jsonRpcError(
      res,
      503,
      -32000,
      `Too many requests from this caller: ${held} of its requests are being answered, its share of this server (--max-in-flight-per-caller ${callerShare} of --max-in-flight ${maxInFlight}); other callers are still served. Nothing was done; try again in ${RETRY_AFTER_S} s, or make fewer calls at once.`,
      id,
    );
  }

  const OPERATIONS = { '/healthz': true, '/readyz': true, '/metrics': true } as const;

  async function operations(path: keyof typeof OPERATIONS, res: ServerResponse): Promise<void> {
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (path === '/healthz') {
      json(200, { status: 'ok' });
    } else if (path === '/readyz') {
      // Saturation (--max-in-flight reached) leaves the process ready, on purpose. Readiness says
      // whether this process can serve at all (draining, the API out of reach); load is shed per
      // request, by the 503 with Retry-After, at once. A probe every few seconds lags behind
      // calls that end in milliseconds, so a busy replica would flap in and out of the
      // balancer; and when every replica is busy at once, all would be taken out, turning a
      // partial overload into a total outage.
      const reason = draining ? 'shutting down' : await options.ready?.();
      json(reason ? 503 : 200, reason ? { status: 'unready', reason } : { status: 'ready' });
    } else {
      const text = await metrics.registry.metrics();
      res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text);
    }
  }

  /**
   * The caller's credentials as --auth wants them: undefined when none are needed, the request's
   * AuthInfo (token-passthrough: its token; static: its key's digest), or false once a 401 has
   * been answered.
   */
  async function authenticate(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<AuthInfo | undefined | false> {
    if (authMode === 'none') return undefined;
    const presented = bearerOf(req);
    const oauth = options.oauth;
    const refuse = (message: string, error?: string) => {
      res.setHeader(
        'www-authenticate',
        oauth
          ? challenge(resourceOf(oauth, header(req, 'host') ?? ''), error && message)
          : `Bearer realm="cloudcall-mcp"${error ? `, error="${error}", error_description="${message}"` : ''}`,
      );
      jsonRpcError(res, 401, -32001, `Unauthorized: ${message}`);
      return false as const;
    };
    if (presented === undefined) {
      if (oauth && /^bearer(\s|$)/i.test(header(req, 'authorization') ?? '')) {
        return refuse('the bearer token is malformed', 'invalid_token');
      }
      return refuse(
        authMode === 'static'
          ? 'send a client key as "Authorization: Bearer <key>"'
          : oauth
            ? `sign in at the authorization server this server's metadata names (${metadataUrl(resourceOf(oauth, header(req, 'host') ?? ''))}) and send the token as "Authorization: Bearer <token>"`
            : 'send your API token as "Authorization: Bearer <token>"',
      );
    }
    // clientId: who is calling, as audit lines name them (never the key or token itself).
    if (authMode === 'static') {
      const key = acceptedKey(presented, options.clientKeys ?? []);
      if (!key) return refuse('this client key is not accepted', 'invalid_token');
      // Calls use the server's own token: this one carries only the key's name.
      return { token: '', clientId: key.name, scopes: [] };
    }
    // The caller's own API token, for this request's calls only; the API itself judges it.
    const auth: AuthInfo = { token: presented, clientId: namesOfToken(presented).clientId, scopes: [] };
    // Signed in with OAuth: a token the platform refuses gets the 401 that has its host sign in again.
    if (oauth && options.checkToken) {
      try {
        await options.checkToken(auth);
      } catch (error) {
        if (refusedByPlatform(error))
          return refuse('the platform refused this token; sign in again', 'invalid_token');
      }
    }
    return auth;
  }

  /**
   * Stateless calls in flight on this process, by caller and JSON-RPC id: how to stop each when
   * its caller's `notifications/cancelled` lands here.
   */
  const calls = new Map<string, (reason: unknown) => void>();

  /**
   * --stateless: a plain tools/call answered by the shared tool runner; anything else by a
   * server and transport for this request alone, gone when its answer is.
   */
  async function serveStateless(
    req: IncomingMessage,
    res: ServerResponse,
    auth: AuthInfo | undefined,
    caller: string,
    body: unknown,
    closers: Closers,
  ): Promise<void> {
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      jsonRpcError(
        res,
        405,
        -32000,
        'Method not allowed: this server is stateless (--stateless); it has no sessions to stream or delete, send POST',
      );
      return;
    }
    // Without the header, a stateless request is at 2025-03-26 (the specification's default).
    if (refuseBatch(res, body, header(req, 'mcp-protocol-version') ?? '2025-03-26')) return;
    const messages: unknown[] = Array.isArray(body) ? body : [body];
    for (const message of messages) {
      if ((message as { method?: unknown } | null)?.method !== 'notifications/cancelled') continue;
      const cancelled = cancelledId(message, await sdk());
      if (cancelled !== undefined) calls.get(callKey(caller, cancelled))?.(reasonOf(message));
    }
    const params = options.toolCall && plainCall(req, body);
    if (options.toolCall && params) {
      await answerCall(
        options.toolCall,
        req,
        res,
        (body as { id: RequestId }).id,
        params,
        auth,
        caller,
        closers,
      );
      return;
    }
    const [{ WebStandardStreamableHTTPServerTransport, isJSONRPCRequest }, server] = await Promise.all([
      sdk(),
      options.newServer(),
    ]);
    // The client left while the SDK loaded: nobody to answer.
    if (res.destroyed) {
      await server.close();
      return;
    }
    // A call that asked for progress is answered as a stream (progress, then the result); any
    // other as plain JSON, sent whole once ready: should this replica die first, the balancer
    // answers 502 at once instead of leaving the client to wait out a stream cut short.
    const json = !asksForProgress(body);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: json,
    });
    // A cancel reaches this request's server as the SDK delivers it; with no other request in
    // this POST left to answer, its answer ends there (an empty stream, or no JSON at all).
    const requests = messages.filter(isJSONRPCRequest);
    let open = requests.length;
    const keys = requests.map((request) => {
      const key = callKey(caller, request.id);
      calls.set(key, (reason) => {
        calls.delete(key);
        transport.onmessage?.({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: request.id, ...(reason === undefined ? {} : { reason: String(reason) }) },
        });
        // The SDK's stream ends with its transport; JSON never comes, so the answer ends here.
        if (--open === 0) json ? endCancelled(res) : void server.close();
      });
      return key;
    });
    res.once('close', () => {
      for (const key of keys) calls.delete(key);
      server.close().catch(() => undefined);
    });
    await server.connect(transport);
    await serveTransport(req, res, transport, body);
  }

  /**
   * The stateless fast path: one tools/call answered by the shared runner, as the SDK server
   * and transport would answer it (200 and the JSON-RPC answer as JSON), without making either.
   * The call stops when its caller cancels it here or closes the connection.
   */
  async function answerCall(
    call: ToolCall,
    req: IncomingMessage,
    res: ServerResponse,
    id: RequestId,
    params: PlainCallParams,
    auth: AuthInfo | undefined,
    caller: string,
    closers: Closers,
  ): Promise<void> {
    const controller = new CallAbort();
    const key = callKey(caller, id);
    const stop = (reason: unknown) => controller.abort(reason);
    calls.set(key, stop);
    closers.push(() => {
      if (calls.get(key) === stop) calls.delete(key);
      if (!res.writableFinished) controller.abort(new Error('the client closed the connection'));
    });
    let answered: { result: CallToolResult } | { error: unknown };
    try {
      const result = await call(params, {
        signal: controller.signal,
        authInfo: auth,
        requestId: id,
        sendNotification: async () => undefined,
        // As the SDK passes them: how the call's log lines find this request.
        requestInfo: { headers: req.headers },
      });
      answered = { result };
    } catch (error) {
      answered = { error };
    }
    if (calls.get(key) === stop) calls.delete(key);
    // Cancelled: no answer, as the SDK server gives none (the client has stopped waiting).
    if (controller.aborted) {
      endCancelled(res);
      return;
    }
    const text =
      'result' in answered
        ? answerText(id, answered.result)
        : JSON.stringify(errorAnswer(id, answered.error));
    res
      .writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
      .end(text);
  }

  /** A batch at a protocol version without batches gets 400 and -32600; true when refused. */
  function refuseBatch(res: ServerResponse, body: unknown, version: string): boolean {
    if (!Array.isArray(body) || version < BATCHES_REMOVED_IN) return false;
    jsonRpcError(
      res,
      400,
      -32600,
      `Invalid Request: batches are not part of protocol version ${version} (removed in ${BATCHES_REMOVED_IN}); send one message per request`,
    );
    return true;
  }

  async function serveStateful(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const { isInitializeRequest, isJSONRPCRequest } = await sdk();
    const sessionId = header(req, 'mcp-session-id');
    if (req.method === 'POST') {
      const session = ownedSession(sessions, sessionId, req);
      if (session) {
        if (refuseBatch(res, body, header(req, 'mcp-protocol-version') ?? session.protocolVersion)) return;
        await serve(session, req, res, body);
        return;
      }
      if (sessionId || !isInitializeRequest(body)) {
        jsonRpcError(
          res,
          sessionId ? 404 : 400,
          sessionId ? -32001 : -32000,
          sessionId ? 'Session not found' : 'No session: send initialize first',
        );
        return;
      }
      if (live.size >= options.maxSessions) {
        metrics.observeRefusal('max-sessions');
        jsonRpcError(
          res,
          503,
          -32000,
          `Too many sessions: ${live.size} sessions are open, the most this server allows (--max-sessions). Close one, or try again when an idle one has expired.`,
          isJSONRPCRequest(body) ? body.id : null,
        );
        return;
      }
      const created = await open(sessionOwner(req), negotiated(body.params.protocolVersion));
      await serve(created, req, res, body);
      // An initialize that failed leaves a server with no session: free it now.
      if (!created.transport.sessionId) await created.server.close();
      return;
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      const session = ownedSession(sessions, sessionId, req);
      if (!session) {
        jsonRpcError(
          res,
          sessionId ? 404 : 400,
          sessionId ? -32001 : -32000,
          sessionId ? 'Session not found' : 'Missing mcp-session-id',
        );
        return;
      }
      await serve(session, req, res);
      return;
    }
    res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
  }

  async function open(owner: string, protocolVersion: string): Promise<Session> {
    const [{ WebStandardStreamableHTTPServerTransport }, server] = await Promise.all([
      sdk(),
      options.newServer(),
    ]);
    // Resumable streams: event ids, a priming event with a retry interval, replay on Last-Event-ID.
    const eventStore = new SessionEventStore(eventBudget);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore,
      retryInterval: RETRY_INTERVAL_MS,
      onsessioninitialized: (id) => {
        sessions.set(id, session);
        log(`http: session ${id} opened`);
      },
      onsessionclosed: (id) => {
        log(`http: session ${id} closed by the client`);
      },
    });
    const session: Session = { transport, server, owner, protocolVersion, open: 0 };
    live.add(session);
    // However it ends (DELETE, idle, shutdown), the session is forgotten with its server.
    transport.onclose = () => {
      clearTimeout(session.idle);
      eventStore.clear();
      live.delete(session);
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await session.server.connect(transport);
    return session;
  }

  /** Hands a request to its session, which is idle only while none of its requests is open. */
  async function serve(session: Session, req: IncomingMessage, res: ServerResponse, body?: unknown) {
    session.open++;
    clearTimeout(session.idle);
    res.once('close', () => {
      session.open--;
      if (session.open === 0 && live.has(session)) {
        session.idle = setTimeout(() => expire(session), options.sessionIdleTimeoutMs);
        session.idle.unref();
      }
    });
    await serveTransport(req, res, session.transport, body);
  }

  function expire(session: Session): void {
    const id = session.transport.sessionId;
    if (id) log(`http: session ${id} expired after ${options.sessionIdleTimeoutMs / 1000} s idle`);
    session.server.close().catch((error: unknown) => log(`http: closing session ${id}: ${error}`));
  }

  // A proxy keeps idle connections to us open (nginx's upstream keepalive, 60 s by default): we
  // must not close one first, or a request the proxy sends on it at that moment is lost (502).
  // (--header-timeout counts from a request's first byte, so it does not cut idle ones short.)
  http.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  allowedHosts = [`${host}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`].map((name) =>
    name.toLowerCase(),
  );
  const url = `http://${host}:${port}/mcp`;

  return {
    url,
    close: async () => {
      draining = true;
      const graceMs = options.graceMs ?? 0;
      // No new connections; idle keep-alive ones close now, busy ones after their answer.
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeIdleConnections();
      if (inFlight + reading > 0) {
        log(`draining: ${inFlight + reading} call(s) in flight, waiting up to ${graceMs / 1000} s`);
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          drained = resolve;
          timer = setTimeout(resolve, graceMs);
        });
        clearTimeout(timer);
        if (inFlight + reading > 0) log(`draining: grace period over, ${inFlight + reading} call(s) cut off`);
      } else {
        log('draining: no calls in flight');
      }
      await Promise.all([...live].map((session) => session.server.close()));
      http.closeAllConnections();
      await closed;
    },
  };
}

/**
 * Who is calling, for binding sessions: the client key's name (--auth static) or the SHA-256 of
 * the API token (--auth token-passthrough), as authenticate found them; '' with --auth none,
 * where every caller is the one local user. A hash, so no session holds a token.
 */
function sessionOwner(req: IncomingMessage): string {
  return callerOf(authOf(req));
}

/**
 * A 2025 request through the SDK's transport (web-bridge.ts), with the body already read and the
 * credentials route() found.
 */
function serveTransport(
  req: IncomingMessage,
  res: ServerResponse,
  transport: WebStandardStreamableHTTPServerTransport,
  body: unknown,
): Promise<void> {
  const auth = authOf(req);
  return serveWeb(req, res, (request) =>
    transport.handleRequest(request, { parsedBody: body, ...(auth ? { authInfo: auth } : {}) }),
  );
}

/** The credentials route() found for `req` (authenticate), if --auth asks for any. */
function authOf(req: IncomingMessage): AuthInfo | undefined {
  return (req as IncomingMessage & { auth?: AuthInfo }).auth;
}

/**
 * The session `id` names, when the caller of `req` is the one who opened it. Anyone else gets
 * the same 404 as for a session that does not exist: an id that leaked (a log, a proxy) lets no
 * other key or token call into the session, read its stream or delete it, nor learn it exists.
 */
function ownedSession(
  sessions: ReadonlyMap<string, Session>,
  id: string | undefined,
  req: IncomingMessage,
): Session | undefined {
  const session = id === undefined ? undefined : sessions.get(id);
  return session && session.owner === sessionOwner(req) ? session : undefined;
}

/** How long a client whose stream dropped waits before resuming it (SSE `retry:`). */
const RETRY_INTERVAL_MS = 1000;

/**
 * Who is calling, to tell one caller's JSON-RPC ids from another's: the digest of the API token
 * (token-passthrough) or the client key's name (static, names are unique); everyone alike
 * without --auth. A session is bound to the same value (sessionOwner).
 */
export function callerOf(auth: AuthInfo | undefined): string {
  if (!auth) return '';
  return auth.token ? namesOfToken(auth.token).owner : auth.clientId;
}

/**
 * A passed-through token's names (tokenNames), kept for the token's next requests rather than
 * hashed on each, the least recently used dropped past MAX_TOKENS (as clients.ts keeps the
 * token's API client).
 */
function namesOfToken(token: string): { owner: string; clientId: string } {
  let names = namesByToken.get(token);
  if (names) namesByToken.delete(token);
  else {
    names = tokenNames(token);
    if (namesByToken.size >= MAX_TOKENS) namesByToken.delete(namesByToken.keys().next().value as string);
  }
  namesByToken.set(token, names);
  return names;
}
const namesByToken = new Map<string, { owner: string; clientId: string }>();

function callKey(caller: string, id: RequestId): string {
  return `${caller} ${typeof id} ${id}`;
}

/** The request id a `notifications/cancelled` names, or undefined for any other message. */
function cancelledId(
  message: unknown,
  { isJSONRPCNotification }: Pick<typeof import('@modelcontextprotocol/server'), 'isJSONRPCNotification'>,
): RequestId | undefined {
  if (!isJSONRPCNotification(message) || message.method !== 'notifications/cancelled') return undefined;
  const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

function reasonOf(message: unknown): unknown {
  return (message as { params?: { reason?: unknown } }).params?.reason;
}

/**
 * The protocol version the SDK server settles on for a client's initialize: the client's when
 * supported, else the latest.
 */
function negotiated(asked: unknown): string {
  return typeof asked === 'string' && PROTOCOL.supported.includes(asked) ? asked : PROTOCOL.latest;
}

/**
 * A request the fast path answers exactly as the SDK would: one `tools/call` with well-formed
 * params and nothing the SDK treats specially (a progress token, `_meta`, a task), with the
 * headers the transport requires (Accept, Content-Type, a supported MCP-Protocol-Version).
 * Anything else is the SDK's to answer, errors included.
 */
function plainCall(req: IncomingMessage, body: unknown): PlainCallParams | undefined {
  const accept = header(req, 'accept') ?? '';
  const version = header(req, 'mcp-protocol-version');
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(header(req, 'content-type') ?? null)) return undefined;
  if (version !== undefined && !PROTOCOL.supported.includes(version)) return undefined;
  return plainCallParams(body);
}

/**
 * The end of a cancelled request's answer: the specification has no answer for a cancelled
 * request, and a POST's answer is JSON or a stream, so it is a stream with no events.
 */
function endCancelled(res: ServerResponse): void {
  if (!res.headersSent)
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end();
}

/** What a request does when its answer ends or its connection closes (its 'close'), in order. */
type Closers = (() => void)[];

/** Seconds a client refused at --max-in-flight is asked to wait (calls mostly end sooner). */
const RETRY_AFTER_S = 1;
/** How much later than --header-timeout and --body-timeout together Node's own backstop cuts a request. */
const BACKSTOP_MS = 5000;
/** Passed-through tokens whose names are kept at once (clients.ts keeps as many clients). */
const MAX_TOKENS = 1000;

/** The request target's path; a target no URL can be made of is nobody's endpoint. */
function pathOf(target: string | undefined): string {
  if (target === '/mcp') return target; // nearly every request: no URL to parse
  try {
    return new URL(target ?? '/', 'http://localhost').pathname;
  } catch {
    return '';
  }
}

/** Does any request in this body carry a progress token? */
function asksForProgress(body: unknown): boolean {
  return (Array.isArray(body) ? body : [body]).some(
    (message) =>
      typeof message === 'object' &&
      message !== null &&
      (message as { params?: { _meta?: { progressToken?: unknown } } }).params?._meta?.progressToken !==
        undefined,
  );
}

/** Does `host` (a Host header) name this server? Entries without a port match any port. */
function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const name = host.toLowerCase();
  if (allowed.includes(name)) return true;
  const bare = name.replace(/:\d+$/, '');
  return bare !== name && allowed.includes(bare);
}

/** An `Origin` in the allowed list, or by default a loopback page. */
function originAllowed(origin: string, allowed: readonly string[] | undefined): boolean {
  if (!allowed) return isLoopbackOrigin(origin);
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return allowed.includes(url.origin.toLowerCase());
}

/** What a request id may be: letters, digits and `_.:-`, up to 128 (nginx's $request_id is 32 hex digits). */
const REQUEST_ID = /^[\w.:-]{1,128}$/;
/** The platform's token shapes (`dop_v1_`, `doo_v1_`, `dor_v1_`...), anywhere in a request id. */
const TOKEN_SHAPE = /do[a-z]_v\d+_/i;
/** The shortest run of a caller's credential taken for a piece of it. */
const CREDENTIAL_PIECE = 8;

/**
 * A proxy's request id when it looks like one, else a new one. The id is logged and sent back, so
 * it may hold no secret: one in a platform token's shape, or that holds the request's bearer
 * credential or any 8 characters in a row of it, is replaced, as an ill-formed one is.
 */
function requestId(req: IncomingMessage): string {
  const given = header(req, 'x-request-id');
  if (!given || !REQUEST_ID.test(given) || TOKEN_SHAPE.test(given)) return randomUUID();
  const bearer = bearerOf(req);
  return bearer && sharesPiece(given, bearer) ? randomUUID() : given;
}

/** Whether `text` holds `secret`, or CREDENTIAL_PIECE characters in a row of it. */
function sharesPiece(text: string, secret: string): boolean {
  if (text.includes(secret)) return true;
  for (let at = 0; at + CREDENTIAL_PIECE <= text.length; at++) {
    if (secret.includes(text.slice(at, at + CREDENTIAL_PIECE))) return true;
  }
  return false;
}

/** The credential of the request's `Authorization: Bearer` header, if it has one. */
function bearerOf(req: IncomingMessage): string | undefined {
  return /^Bearer +([\x21-\x7e]+) *$/i.exec(header(req, 'authorization') ?? '')?.[1];
}

/**
 * /readyz's check: the API (or the sandbox) answers over HTTP within 3 s. Any answer below 500
 * will do, a 401 included: readiness needs no token, and with --auth token-passthrough there is none.
 */
export function readiness(apiUrl: string): () => Promise<string | undefined> {
  const url = new URL(apiUrl);
  url.pathname = `${url.pathname.replace(/\/$/, '')}/v2/account`;
  url.username = '';
  url.password = '';
  return async () => {
    try {
      const answer = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(3000) });
      await answer.body?.cancel();
      return answer.status < 500 ? undefined : `the API at ${url.origin} answers HTTP ${answer.status}`;
    } catch (error) {
      const cause = (error as Error & { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      return `the API at ${url.origin} cannot be reached (${cause})`;
    }
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * For an answer given before the body is all read: the rest is not read, so the connection cannot
 * serve another request, and closes once the answer is out.
 */
function closeAfter(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('connection', 'close');
  res.once('finish', () => req.destroy());
}

/** A JSON-RPC request (a method and an id), told apart from notifications and answers cheaply. */
function isRequest(message: unknown): message is { id: RequestId } {
  return (
    typeof message === 'object' &&
    message !== null &&
    typeof (message as { method?: unknown }).method === 'string' &&
    (message as { id?: unknown }).id !== undefined
  );
}

function jsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  id: RequestId | null = null,
): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}
