/**
 * Node's HTTP server in front of the SDK's web-standard handlers (v2's Streamable HTTP transport
 * for 2025 sessions, its per-request handler for 2026-07-28): a request whose body http.ts has
 * already read and judged goes in as a web `Request`, the `Response` that comes back is written
 * to the node response, and a stream of events is piped as it comes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/**
 * Answers `req` with what `handle` makes of it. The web request carries the node request's
 * method and headers (http.ts's request key among them: how a call's log lines find their
 * request), and no body: the handlers take the JSON body http.ts has already read and judged
 * (`parsedBody`), so it is neither serialized nor streamed again. With `abortable`, its signal
 * aborts when the client goes away before the answer has been sent (the 2026-07-28 handler then
 * stops the call); the 2025 transport does not read it, and a signal makes each request several
 * times dearer to build. Once the client has gone, or the answer was given meanwhile (a cancelled
 * call's empty stream), nothing more is written.
 */
export async function serveWeb(
  req: IncomingMessage,
  res: ServerResponse,
  handle: (request: Request) => Promise<Response>,
  { abortable = false }: { abortable?: boolean } = {},
): Promise<void> {
  const controller = abortable ? new AbortController() : undefined;
  const closed = new Promise<undefined>((resolve) =>
    res.once('close', () => {
      if (!res.writableFinished) controller?.abort(new Error('the client closed the connection'));
      resolve(undefined);
    }),
  );
  const answer = handle(webRequest(req, controller?.signal));
  const response = await Promise.race([answer, closed]);
  if (!response) {
    // Gone first: an answer that comes (or fails) later has nobody to go to.
    answer
      .then(
        (late) => late.body?.cancel(),
        () => undefined,
      )
      .catch(() => undefined);
    return;
  }
  await writeResponse(res, response);
}

function webRequest(req: IncomingMessage, signal: AbortSignal | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/mcp'}`, {
    method: req.method ?? 'GET',
    headers,
    ...(signal ? { signal } : {}),
  });
}

/**
 * Writes a web response: JSON whole, with its length; a stream with its headers at once (a
 * client waiting on a GET stream learns it is open before the first event), then each event as
 * it comes, until it ends or the client goes away (which cancels it). `connection` is left to
 * Node, which closes the connection after the answer while the server drains.
 */
async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  if (res.headersSent || res.destroyed) {
    await response.body?.cancel().catch(() => undefined);
    return;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) if (name !== 'connection') headers[name] = value;
  if (!response.body) {
    res.writeHead(response.status, headers).end();
    return;
  }
  if (!headers['content-type']?.startsWith('text/event-stream')) {
    const bytes = Buffer.from(await response.arrayBuffer());
    if (res.destroyed) return;
    headers['content-length'] = String(bytes.byteLength);
    res.writeHead(response.status, headers).end(bytes);
    return;
  }
  res.writeHead(response.status, headers);
  res.flushHeaders();
  await new Promise<void>((resolve) => {
    const stream = Readable.fromWeb(response.body as WebReadableStream);
    // A stream that fails cannot be finished: the client sees the connection close, as if the
    // server had gone, and may resume it.
    stream.once('error', () => res.destroy());
    res.once('close', () => {
      stream.destroy();
      resolve();
    });
    stream.pipe(res);
  });
}
