/**
 * The sandbox in the caller's own process: no server, no port, no socket. Its dispatcher hands each
 * request of core's client straight to the sandbox's answers (respond.ts, which the HTTP server
 * serves too), over the same world and state file. A command that makes one call (`cloudcall
 * --sandbox key-list`) then neither listens on loopback nor loads an HTTP client.
 */
import type { DispatchRequest, DispatchResponse, RequestDispatcher } from '@cloudcall/core';
import { FileBody } from './http.js';
import { BODY_LIMIT } from './limits.js';
import {
  createResponder,
  openStore,
  type SandboxControls,
  type SandboxCoreOptions,
  sandboxControls,
} from './respond.js';

/**
 * The base URL of an in-process sandbox: what its answers' links start with (they are followed by
 * page number, never fetched). `.invalid` never resolves (RFC 6761): nothing is sent anywhere.
 */
export const IN_PROCESS_URL = 'http://sandbox.invalid';

/** The sandbox answering in this process, through `dispatcher`. */
export interface InProcessSandbox extends SandboxControls {
  /** Give it to core's client (`ClientOptions.dispatcher`) with `url` as the base URL. */
  dispatcher: RequestDispatcher;
  url: string;
  /** Nothing to stop: a request still being answered finishes. */
  close(): Promise<void>;
}

/** Opens the sandbox's world (and state file) and answers requests in this process. */
export async function openSandbox(options: SandboxCoreOptions = {}): Promise<InProcessSandbox> {
  const store = await openStore(options);
  const respond = createResponder(store, options, () => IN_PROCESS_URL);
  return {
    ...sandboxControls(store, options.now),
    url: IN_PROCESS_URL,
    dispatcher: { request: (request) => dispatch(respond, request) },
    close: async () => undefined,
  };
}

/**
 * One request answered as the HTTP server would answer it: the same checks of the target, the
 * body limit, auth, faults and the world. The attempt's signal (its timeout, the caller's cancel)
 * ends the wait for the answer, as it ends an HTTP exchange; a change already made stays made.
 */
function dispatch(
  respond: ReturnType<typeof createResponder>,
  request: DispatchRequest,
): Promise<DispatchResponse> {
  return new Promise((resolve, reject) => {
    const { signal } = request;
    const onAbort = () => reject(signal.reason ?? new Error('the request was aborted'));
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.once('abort', onAbort);
    const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
    if (body !== undefined) headers['content-length'] = String(body.length);
    respond({
      method: request.method,
      target: request.path,
      headers,
      remoteAddress: undefined,
      readBody: async () =>
        body === undefined ? Buffer.alloc(0) : body.length > BODY_LIMIT ? undefined : body,
      tooLarge: (send) => send(),
      send(status, answer, answerHeaders) {
        signal.off('abort', onAbort);
        // The headers and body the HTTP server would send (server.ts `send`); a HEAD answer without its body.
        let text = '';
        const sent: Record<string, string> = { ...answerHeaders };
        if (status !== 204 && answer !== undefined) {
          if (answer instanceof FileBody) {
            text = answer.data.toString('utf8');
            sent['content-type'] = answer.contentType;
            sent['content-disposition'] = `attachment; filename="${answer.filename}"`;
            sent['content-length'] = String(answer.data.length);
          } else {
            text = JSON.stringify(answer);
            sent['content-type'] = 'application/json; charset=utf-8';
            sent['content-length'] = String(Buffer.byteLength(text));
          }
        }
        if (request.method === 'HEAD') text = '';
        resolve({ statusCode: status, headers: sent, body: { text: async () => text } });
      },
      abort() {
        signal.off('abort', onAbort);
        // What an HTTP client meets when the server destroys the socket half-way through its answer.
        reject(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
      },
    });
  });
}
