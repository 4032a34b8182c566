/**
 * Streamable HTTP on loopback: one MCP session per client, each with its own server instance
 * over the shared API client, at `/mcp`.
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
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

export interface HttpOptions {
  host: string;
  port: number;
  /** A fresh MCP server for each session. */
  newServer: () => Server;
  log: (line: string) => void;
}

export interface RunningHttp {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY = 4 * 1024 * 1024;

export async function serveHttp(options: HttpOptions): Promise<RunningHttp> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let allowedHosts: string[] = [];

  const http: HttpServer = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      options.log(`http: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal server error');
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/mcp') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('cloudcall MCP endpoint is /mcp\n');
      return;
    }
    const sessionId = header(req, 'mcp-session-id');
    if (req.method === 'POST') {
      const body = await readJson(req, res);
      if (body === undefined) return;
      let transport = sessionId ? sessions.get(sessionId) : undefined;
      if (!transport) {
        if (sessionId || !isInitializeRequest(body)) {
          jsonRpcError(
            res,
            sessionId ? 404 : 400,
            -32000,
            sessionId ? 'Unknown session' : 'No session: send initialize first',
          );
          return;
        }
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableDnsRebindingProtection: true,
          allowedHosts,
          onsessioninitialized: (id) => {
            sessions.set(id, created);
            options.log(`http: session ${id} opened`);
          },
          onsessionclosed: (id) => {
            sessions.delete(id);
            options.log(`http: session ${id} closed`);
          },
        });
        created.onclose = () => {
          if (created.sessionId) sessions.delete(created.sessionId);
        };
        await options.newServer().connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
      return;
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      const transport = sessionId ? sessions.get(sessionId) : undefined;
      if (!transport) {
        jsonRpcError(
          res,
          sessionId ? 404 : 400,
          -32000,
          sessionId ? 'Unknown session' : 'Missing mcp-session-id',
        );
        return;
      }
      await transport.handleRequest(req, res);
      return;
    }
    res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
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
  // Only requests addressed to this server by name are served (DNS rebinding protection).
  allowedHosts = [`${host}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`];

  return {
    url: `http://${host}:${port}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) {
      jsonRpcError(res, 413, -32600, 'Request body too large');
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

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
