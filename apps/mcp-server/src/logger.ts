/**
 * The HTTP server's log: JSON lines on stderr (pino); a request's lines carry its id. The id
 * comes from the request's X-Request-Id (a proxy's, such as nginx's $request_id) or is made
 * here, and is sent back in the answer's X-Request-Id.
 */
import type { Writable } from 'node:stream';
import { pino } from 'pino';

/**
 * What a request's log lines say of it, passed to them explicitly (http.ts): an
 * AsyncLocalStorage would carry it to every line, but makes every promise of the process pay
 * for it (about 2 % of a call's processor time).
 */
export interface RequestContext {
  req_id: string;
  /** The tool a tools/call request ran, for its request line. */
  tool?: string;
}

export type Logger = pino.Logger;

/**
 * How the log on this process's stderr is written: lines wait in a buffer until it holds this
 * many bytes (about fifteen request lines), or until the next flush, a few times a second. Under
 * load that is one write for many requests instead of one each (a system call that wakes the
 * reader, which cost about 5 % of a call's processor time); when quiet, a line is out within
 * LOG_FLUSH_MS. What is waiting is written at exit, and after the start-up lines (`flush`).
 */
export const LOG_BUFFER_BYTES = 4096;
export const LOG_FLUSH_MS = 250;

/** The log on `stream` (a test's, in process), or on this process's stderr (fd 2). */
export function createLogger(options: { quiet: boolean; stream?: Writable }): Logger {
  const ownStream = options.stream && options.stream !== process.stderr ? options.stream : undefined;
  return pino(
    {
      base: { service: 'cloudcall-mcp' },
      level: options.quiet ? 'error' : 'info',
      // Nothing logs a header or a token; should a field ever carry one, it is censored. Exact
      // paths only: a wildcard (`*.token`) makes pino copy every line's fields to look, 2 µs a
      // line and a tenth of what the service allocated per call.
      redact: {
        paths: ['authorization', 'token', 'headers.authorization', 'req.headers.authorization'],
        censor: '[redacted]',
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    ownStream ?? stderrDestination(),
  );
}

/**
 * fd 2, buffered (LOG_BUFFER_BYTES, LOG_FLUSH_MS) and written synchronously: a process that
 * exits, or dies of an uncaught error, writes what is waiting first. Only a kill -9 can lose
 * lines, those of its last LOG_FLUSH_MS.
 */
function stderrDestination() {
  const destination = pino.destination({
    fd: 2,
    sync: true,
    minLength: LOG_BUFFER_BYTES,
    periodicFlush: LOG_FLUSH_MS,
  });
  process.on('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // stderr gone (its reader closed it): nothing left to tell, and no reason to fail the exit.
    }
  });
  return destination;
}
