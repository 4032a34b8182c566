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
import type { CallToolRequestParams } from '@modelcontextprotocol/server';
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
import { z } from 'zod';
import { answersForms } from './guard.js';
import { instructionsFor, serverInfo } from './handshake.js';

export { hasModernClaim } from './handshake.js';

import type { McpServerOptions } from './server.js';
import type { TaskService } from './tasks/service.js';
import type { CallExtra, ToolCall } from './tool-call.js';
import { listingOf } from './tool-data.js';
import { serveWeb } from './web-bridge.js';

/**
 * One request's server: tools/list and tools/call from the same runner as the 2025 path. Dynamic
 * mode's toolsets belong to a session, which this revision has not: its requests see every tool
 * offered. With `tasks` (the process's task service, made when first needed), a long call from a
 * client that declared the Tasks extension on its request is answered with a task, and
 * tasks/get, tasks/update and tasks/cancel are served (tasks/wire.ts).
 */
export function createModernServer(
  options: McpServerOptions,
  call: ToolCall,
  tasks?: () => Promise<TaskService<CallExtra['authInfo']>>,
): Server {
  const server = new Server(serverInfo(options.version), {
    capabilities: { tools: {}, ...(tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}) },
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
    if (tasks && declaresTasksCheaply(envelope)) {
      // The extension's schemas load with the first request that declares it.
      const wire = await import('./tasks/wire.js');
      const answer = await wire.startToolTask({
        service: await tasks(),
        call,
        listed: options.tools.find((tool) => tool.name === request.params.name),
        params: {
          ...(request.params as CallToolRequestParams),
          _meta: { ...request.params._meta, ...envelope },
        },
        extra,
        caller: await callerOfRequest(ctx.http?.authInfo),
      });
      if (answer) return answer as CallToolResult;
    }
    // The runner's protocol errors (an unknown tool: -32602) are this SDK's ProtocolError.
    return (await call(request.params as never, extra)) as CallToolResult;
  });
  if (tasks) {
    for (const method of TASK_METHODS) {
      // Any params here: the extension's own schemas check them (tasks/wire.ts), loaded only now.
      server.setRequestHandler(method, { params: ANY_PARAMS, result: ANY_PARAMS }, async (params, ctx) => {
        const wire = await import('./tasks/wire.js');
        // The SDK lifts the envelope (the request's capabilities) and inputResponses off the
        // params; the extension's schemas read them there.
        const whole = {
          ...params,
          _meta: { ...(params._meta as Record<string, unknown> | undefined), ...ctx.mcpReq.envelope },
          ...(ctx.mcpReq.inputResponses !== undefined ? { inputResponses: ctx.mcpReq.inputResponses } : {}),
        };
        try {
          return (await wire.handleTaskRequest(
            await tasks(),
            method,
            whole,
            await callerOfRequest(ctx.http?.authInfo),
            ctx.http?.authInfo,
          )) as never;
        } catch (error) {
          if (error instanceof wire.TaskProtocolError)
            throw new ProtocolError(error.code, error.message, error.data);
          throw error;
        }
      });
    }
  }
  return server;
}

/** The Tasks extension's methods, spelled here so that registering them loads none of it. */
const TASK_METHODS = ['tasks/get', 'tasks/update', 'tasks/cancel'] as const;
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const ANY_PARAMS = z.looseObject({});

/**
 * Whether the request's capabilities name the Tasks extension at all: what decides whether the
 * extension's schemas load (tasks/wire.ts then checks the declaration exactly).
 */
function declaresTasksCheaply(envelope: Record<string, unknown> | undefined): boolean {
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: unknown } | undefined;
  const extensions = capabilities?.extensions;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION in extensions;
}

/** Who is calling, as http.ts names them (a key's name, a token's hash); '' on stdio, the one local user. */
async function callerOfRequest(auth: AuthInfo | undefined): Promise<string> {
  if (!auth) return '';
  return (await import('./http.js')).callerOf(auth as never);
}

export interface ModernHttp {
  /** Answers one POST whose JSON body (already read and judged) claims the new revision. */
  serve(req: IncomingMessage, res: ServerResponse, body: unknown, auth: AuthInfo | undefined): Promise<void>;
  close(): Promise<void>;
}

/**
 * The SDK's per-request handler behind http.ts's own checks, through the same bridge as the 2025
 * sessions (web-bridge.ts): the web Request is made from the body already read; its Response
 * streams back (SSE when a call reports progress).
 */
export function modernHttp(newServer: () => Promise<Server>, onError: (error: Error) => void): ModernHttp {
  const handler: McpHttpHandler = createMcpHandler(() => newServer(), { legacy: 'reject', onerror: onError });
  return {
    serve: (req, res, body, auth) =>
      serveWeb(
        req,
        res,
        (request) => handler.fetch(request, { ...(auth ? { authInfo: auth } : {}), parsedBody: body }),
        { abortable: true },
      ),
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
