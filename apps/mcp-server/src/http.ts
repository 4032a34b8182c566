/**
 * Streamable HTTP on loopback: one MCP session per client, each with its own server instance
 * over the shared API client, at `/mcp`.
 *
 * Until clients authenticate, only loopback is served: a non-loopback bind is refused, and every
 * request must name this server in `Host` and come from no page or a loopback page (`Origin`),
 * against DNS rebinding and cross-site requests. Sessions are bounded in number and closed after
 * an idle timeout, so abandoned ones cannot exhaust memory.
 */
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, isJSONRPCRequest, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { bindProblem, isLoopback } from './bind.js';

export interface HttpOptions {
  host: string;
  port: number;
  /** A fresh MCP server for each session. */
  newServer: () => Server;
  log: (line: string) => void;
  /** The most sessions open at once; past it a new session gets 503. */
  maxSessions: number;
  /** A session with no request or stream open for this long is closed. */
  sessionIdleTimeoutMs: number;
  /** The largest request body read, in bytes; a larger one gets 413. */
  maxMessageBytes: number;
}

export interface RunningHttp {
  url: string;
  close(): Promise<void>;
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
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** Requests of this session (POSTs being answered, GET streams) still open. */
  open: number;
  idle?: NodeJS.Timeout;
}

export async function serveHttp(options: HttpOptions): Promise<RunningHttp> {
  const problem = bindProblem(options.host);
  if (problem) throw new Error(problem);

  const sessions = new Map<string, Session>();
  /** Every session that holds a server: initialized ones and those being initialized. */
  const live = new Set<Session>();
  let allowedHosts: string[] = [];

  const http: HttpServer = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      options.log(`http: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal server error');
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Only requests addressed to this server by name are served (DNS rebinding protection).
    if (!allowedHosts.includes((header(req, 'host') ?? '').toLowerCase())) {
      jsonRpcError(res, 403, -32000, 'Forbidden: the Host header does not name this server');
      return;
    }
    // Browsers send Origin on cross-site requests: only pages served from loopback may call.
    const origin = header(req, 'origin');
    if (origin !== undefined && !isLoopbackOrigin(origin)) {
      jsonRpcError(res, 403, -32000, 'Forbidden: requests from this Origin are not allowed (loopback only)');
      return;
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/mcp') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('cloudcall MCP endpoint is /mcp\n');
      return;
    }
    const sessionId = header(req, 'mcp-session-id');
    if (req.method === 'POST') {
      const body = await readJson(req, res, options.maxMessageBytes);
      if (body === undefined) return;
      const session = sessionId ? sessions.get(sessionId) : undefined;
      if (session) {
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
        jsonRpcError(
          res,
          503,
          -32000,
          `Too many sessions: ${live.size} sessions are open, the most this server allows (--max-sessions). Close one, or try again when an idle one has expired.`,
          isJSONRPCRequest(body) ? body.id : null,
        );
        return;
      }
      const created = await open();
      await serve(created, req, res, body);
      // An initialize that failed leaves a server with no session: free it now.
      if (!created.transport.sessionId) await created.server.close();
      return;
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      const session = sessionId ? sessions.get(sessionId) : undefined;
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

  async function open(): Promise<Session> {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, session);
        options.log(`http: session ${id} opened`);
      },
      onsessionclosed: (id) => {
        options.log(`http: session ${id} closed by the client`);
      },
    });
    const session: Session = { transport, server: options.newServer(), open: 0 };
    live.add(session);
    // However it ends (DELETE, idle, shutdown), the session is forgotten with its server.
    transport.onclose = () => {
      clearTimeout(session.idle);
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
    await session.transport.handleRequest(req, res, body);
  }

  function expire(session: Session): void {
    const id = session.transport.sessionId;
    if (id) options.log(`http: session ${id} expired after ${options.sessionIdleTimeoutMs / 1000} s idle`);
    session.server.close().catch((error: unknown) => options.log(`http: closing session ${id}: ${error}`));
  }

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

  return {
    url: `http://${host}:${port}/mcp`,
    close: async () => {
      await Promise.all([...live].map((session) => session.server.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readJson(req: IncomingMessage, res: ServerResponse, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      jsonRpcError(res, 413, -32600, `Request body larger than ${limit} bytes`);
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    jsonRpcError(res, 400, -32700, 'Parse error: the body is not JSON');
    return undefined;
  }
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
