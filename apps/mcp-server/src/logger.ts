/**
 * The HTTP server's log: JSON lines on stderr (pino), each with the id of the HTTP request it
 * belongs to. The id comes from the request's X-Request-Id (a proxy's, such as nginx's
 * $request_id) or is made here, and is sent back in the answer's X-Request-Id.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Writable } from 'node:stream';
import { pino } from 'pino';

export interface RequestContext {
  req_id: string;
  /** The tool a tools/call request ran, for its request line. */
  tool?: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

export type Logger = pino.Logger;

/** The log on `stream` (a test's, in process), or on this process's stderr (fd 2). */
export function createLogger(options: { quiet: boolean; stream?: Writable }): Logger {
  return pino(
    {
      base: { service: 'cloudcall-mcp' },
      level: options.quiet ? 'error' : 'info',
      // Nothing logs a header or a token; should a field ever carry one, it is censored.
      redact: {
        paths: [
          'authorization',
          'token',
          '*.authorization',
          '*.token',
          'headers.authorization',
          'req.headers.authorization',
        ],
        censor: '[redacted]',
      },
      mixin: () => requestContext.getStore() ?? {},
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    // Synchronous: the last lines before an exit are not lost.
    options.stream && options.stream !== process.stderr
      ? options.stream
      : pino.destination({ fd: 2, sync: true }),
  );
}
