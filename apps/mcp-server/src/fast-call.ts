/**
 * A plain `tools/call`, answered by the shared tool runner (server.ts `createToolCall`) as the
 * SDK server would answer it, without the SDK's per-message work: over stdio the SDK checks each
 * message against its schemas about eight times (the transport's union, the Protocol's four
 * message kinds, the tools/call request twice, the result once), each a zod parse that copies
 * what it checks. A message of exactly the plain shape below passes every one of those checks
 * unchanged, so the runner gets what the SDK would hand it; anything else (a `_meta`, a task, an
 * odd key or id) goes to the SDK as before. `stdio-fast.test.ts` and `http-fast.test.ts` send
 * the same messages both ways and compare the answers.
 */
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { CallAbort } from './call-abort.js';
import type { AskingServer } from './guard.js';
import { answerText, type ToolCall } from './tool-call.js';

/** A tools/call's params as the runner takes them. */
export interface PlainCallParams {
  name: string;
  arguments?: Record<string, unknown>;
}

/**
 * The params of a message that is a plain `tools/call` request (`jsonrpc`, `id`, `method`,
 * `params` and no other key; an id that is a string or a safe integer; params with a string
 * `name` and optionally an object of `arguments`, and no other key), or undefined.
 * For such a message the SDK's schemas all succeed and change nothing but the `arguments`
 * object, which they copy key by key: the one key a copy would not keep as is (`__proto__`,
 * which JSON.parse makes an own key) is left to the SDK.
 */
export function plainCallParams(message: unknown): PlainCallParams | undefined {
  if (!isRecord(message) || message.method !== 'tools/call' || message.jsonrpc !== '2.0') return undefined;
  const { id, params } = message;
  if (!(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
  for (const key in message) {
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return undefined;
  }
  if (!isRecord(params) || typeof params.name !== 'string') return undefined;
  for (const key in params) if (key !== 'name' && key !== 'arguments') return undefined;
  const args = params.arguments;
  if (args === undefined) return 'arguments' in params ? undefined : { name: params.name };
  if (!isRecord(args) || Object.hasOwn(args, '__proto__')) return undefined;
  return { name: params.name, arguments: args };
}

/** Where a transport hands plain calls (stdio.ts), and tells of their cancellation. */
export interface CallRouter {
  /** Takes the plain call `id`; false leaves it to the SDK server. */
  call(id: RequestId, params: PlainCallParams): boolean;
  /** A `notifications/cancelled` (it reaches the SDK server too, for the calls it runs). */
  cancelled(message: JSONRPCMessage): void;
  /** The transport closed: every call taken stops. */
  close(): void;
}

/**
 * Plain calls of one session, run by the shared runner as the SDK server's Protocol runs a
 * request: each with its abort signal, stopped by `notifications/cancelled` naming it or by the
 * session's end, and then unanswered (the SDK sends nothing for a cancelled request); a result
 * goes out as `{ result, jsonrpc, id }` (`send` gets the message and its JSON text), a thrown
 * error as the Protocol's error answer. The session's SDK server, once there is one (`server`),
 * still asks the client (confirmation) and sends notifications; before it loads, calls are
 * taken only from a client that declared no elicitation (handshake.ts), which nothing asks.
 */
export function sessionCalls(
  run: ToolCall,
  server: () => AskingServer | undefined,
  send: (message: JSONRPCMessage, text: string) => Promise<void>,
  onerror: (error: Error) => void,
): CallRouter {
  const running = new Map<RequestId, CallAbort>();
  return {
    call(id, params) {
      // A second request with the id of one still running: the SDK's to judge, as before.
      if (running.has(id)) return false;
      const controller = new CallAbort();
      running.set(id, controller);
      const { signal } = controller;
      const failed = (error: unknown) => onerror(new Error(`Failed to send a response: ${String(error)}`));
      // The answer's write is not handed back to the call's promise chain: that would cost the
      // chain two more turns of the event loop for a promise nobody waits on.
      const finish = (answer: JSONRPCMessage, text: () => string) => {
        running.delete(id);
        if (controller.aborted) return;
        try {
          send(answer, text()).catch(failed);
        } catch (error) {
          failed(error);
        }
      };
      run(params, {
        signal,
        requestId: id,
        server: server(),
        sendNotification: async (notification) => {
          if (!signal.aborted) await server()?.notification(notification, { relatedRequestId: id });
        },
      }).then(
        (result) => finish({ result, jsonrpc: '2.0', id }, () => answerText(id, result)),
        (error: unknown) => {
          const answer = errorAnswer(id, error);
          finish(answer, () => JSON.stringify(answer));
        },
      );
      return true;
    },
    cancelled(message) {
      const params = 'params' in message ? (message.params as { requestId?: unknown; reason?: unknown }) : {};
      const id = params?.requestId as RequestId | undefined;
      if (id === undefined) return;
      running.get(id)?.abort(params.reason);
    },
    close() {
      for (const controller of running.values()) controller.abort(new Error('the session closed'));
      running.clear();
    },
  };
}

/** A JSON-RPC error answer as the SDK's Protocol makes one from a handler's error. */
export function errorAnswer(id: RequestId, error: unknown): JSONRPCMessage {
  const { code, message, data } = error as { code?: unknown; message?: string; data?: unknown };
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: Number.isSafeInteger(code) ? (code as number) : -32603,
      message: message ?? 'Internal error',
      ...(data !== undefined && { data }),
    },
  };
}

/** A plain object as JSON.parse makes one: not null, not an array, with Object's prototype. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
