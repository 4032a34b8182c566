/**
 * Protocol revision 2026-07-28, through the official SDK's v2 line (`@modelcontextprotocol/server`):
 * stateless by design (no initialize, no session: every request carries its protocol version,
 * client info and capabilities in `_meta`), questions asked in a call's answer (multi round trip)
 * instead of on a held stream, and `server/discover` in place of the handshake. Requests of the
 * 2025 revisions keep their own path (server.ts, http.ts, stdio.ts); this module serves the
 * requests that claim the new one, from the same tool runner, over both transports:
 *
 * - HTTP: http.ts hands a POST whose body claims the revision (`hasModernClaim`) to the SDK's
 *   per-request handler (`createMcpHandler`, 2025 requests refused there since they never come),
 *   after its own checks (Host, Origin, auth, body bounds, fair share).
 * - stdio: a session that opens with such a request (`server/discover`, or a call carrying the
 *   claim) is served by the SDK's `serveStdio` over the same line transport.
 *
 * A destructive call is confirmed in rounds: the first answer is the question (type the
 * resource's name) and its sealed state (request-state.ts); the client asks its user and calls
 * again with the answer, on any replica.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import {
  type AuthInfo,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  createMcpHandler,
  type McpHttpHandler,
  ProtocolError,
  Server,
  type Transport,
} from '@modelcontextprotocol/server';
import { type StdioServerHandle, serveStdio } from '@modelcontextprotocol/server/stdio';
import { answersForms } from './guard.js';
import { instructionsFor, serverInfo } from './handshake.js';

export { hasModernClaim } from './handshake.js';

import type { McpServerOptions } from './server.js';
import type { CallExtra, ToolCall } from './tool-call.js';
import { listingOf } from './tool-data.js';

/**
 * One request's server: tools/list and tools/call from the same runner as the 2025 path. Dynamic
 * mode's toolsets belong to a session, which this revision has not: its requests see every tool
 * offered.
 */
export function createModernServer(options: McpServerOptions, call: ToolCall): Server {
  const server = new Server(serverInfo(options.version), {
    capabilities: { tools: {} },
    instructions: instructionsFor({
      version: options.version,
      sandbox: options.sandbox,
      showSecrets: Boolean(options.showSecrets),
      dynamic: false,
    }),
  });
  server.setRequestHandler('tools/list', async () => ({ tools: listingOf(options.tools) as never }));
  server.setRequestHandler('tools/call', async (request, ctx): Promise<CallToolResult> => {
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as
      | { elicitation?: Record<string, unknown> }
      | undefined;
    const state = ctx.mcpReq.requestState<unknown>();
    const extra: CallExtra = {
      signal: ctx.mcpReq.signal,
      authInfo: ctx.http?.authInfo,
      requestId: ctx.mcpReq.id,
      sendNotification: (notification) => ctx.mcpReq.notify(notification as never),
      ...(ctx.http?.req ? { requestInfo: { headers: Object.fromEntries(ctx.http.req.headers) } } : {}),
      rounds: {
        canAsk: answersForms(capabilities?.elicitation),
        state: typeof state === 'string' ? state : undefined,
        responses: ctx.mcpReq.inputResponses,
      },
    };
    try {
      return (await call(request.params as never, extra)) as CallToolResult;
    } catch (error) {
      // The runner's protocol errors (an unknown tool: -32602) are the 1.x SDK's class.
      const { code, message, data } = error as { code?: unknown; message?: string; data?: unknown };
      if (typeof code === 'number') throw new ProtocolError(code, String(message), data);
      throw error;
    }
  });
  return server;
}

export interface ModernHttp {
  /** Answers one POST whose JSON body (already read and judged) claims the new revision. */
  serve(req: IncomingMessage, res: ServerResponse, body: unknown, auth: AuthInfo | undefined): Promise<void>;
  close(): Promise<void>;
}

/**
 * The SDK's per-request handler behind http.ts's own checks. The web Request it takes is made
 * from the body already read; its Response streams back (SSE when a call reports progress).
 */
export function modernHttp(newServer: () => Promise<Server>, onError: (error: Error) => void): ModernHttp {
  const handler: McpHttpHandler = createMcpHandler(() => newServer(), { legacy: 'reject', onerror: onError });
  return {
    async serve(req, res, body, auth) {
      const controller = new AbortController();
      res.once('close', () => {
        if (!res.writableFinished) controller.abort(new Error('the client closed the connection'));
      });
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value);
        else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      }
      const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/mcp'}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      const response = await handler.fetch(request, {
        ...(auth ? { authInfo: auth } : {}),
        parsedBody: body,
      });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) {
        res.end();
        return;
      }
      await new Promise<void>((resolve) => {
        const stream = Readable.fromWeb(response.body as WebReadableStream);
        stream.once('error', () => resolve());
        res.once('close', () => {
          stream.destroy();
          resolve();
        });
        stream.pipe(res);
      });
    },
    close: () => handler.close(),
  };
}

/** A stdio session at the new revision, on the line transport that read its first messages. */
export function serveModernStdio(
  newServer: () => Server,
  transport: Transport,
  onError: (error: Error) => void,
): StdioServerHandle {
  return serveStdio(() => newServer(), { transport, onerror: onError });
}
