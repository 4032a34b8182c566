/**
 * A request's body, as the cloudcall servers read one (the sandbox's API, the MCP server's
 * Streamable HTTP): with events rather than an async iterator (a body is nearly always one chunk,
 * and the iterator's promises and stream bookkeeping cost more than reading it), and never more
 * than a limit.
 */
import type { IncomingMessage } from 'node:http';

/**
 * The body of `req`, or undefined as soon as it grows past `limit` bytes: reading stops there and
 * what was read is dropped (the caller answers 413 and deals with the rest). Rejects when the
 * request ends before its body does (the client went away) or its stream fails.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done();
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    };
    const onClose = () => {
      done();
      reject(req.errored ?? new Error('the request ended before its body did'));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    // An IncomingMessage emits 'error' only to listeners it has: none are left behind.
    const done = () => {
      req.off('data', onData).off('end', onEnd).off('close', onClose).off('error', onError);
    };
    req.on('data', onData).on('end', onEnd).on('close', onClose).on('error', onError);
  });
}
