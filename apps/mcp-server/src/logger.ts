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
      timestamp: isoTime,
    },
    ownStream ?? stderrDestination(),
  );
}

/**
 * pino's `isoTime` (`,"time":"2026-11-28T03:22:45.123Z"`), made once a second and completed with
 * the milliseconds for each line: `Date#toISOString` for every line was a tenth of the log's cost.
 */
let second = Number.NaN;
let secondText = '';
export function isoTime(): string {
  const now = Date.now();
  const ms = now % 1000;
  if (now - ms !== second) {
    second = now - ms;
    // ",\"time\":\"2026-11-28T03:22:45." (the ISO text up to its milliseconds)
    secondText = `,"time":"${new Date(second).toISOString().slice(0, 20)}`;
  }
  return `${secondText}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
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

/** What a request line says of its request (http.ts). */
export interface RequestLine {
  req_id: string;
  tool?: string | undefined;
  method: string | undefined;
  path: string;
  status: number;
  ms: number;
}

/**
 * Writes a request line at info, the line `logger.info(fields, 'request')` writes, made here in
 * one template instead of by pino's generic serialiser (with its redaction's copy of the fields):
 * every request to /mcp has one. Its fields are the server's own (no header or token among them),
 * each string quoted as JSON. `logger.test.ts` compares the two lines. Nothing below info.
 */
export function requestLineWriter(logger: Logger): (line: RequestLine) => void {
  const stream = (logger as unknown as Record<symbol, { write(text: string): unknown }>)[
    pino.symbols.streamSym
  ];
  const chindings = (logger as unknown as Record<symbol, string>)[pino.symbols.chindingsSym];
  const level = logger.levels.values.info;
  return ({ req_id, tool, method, path, status, ms }) => {
    if (!stream || chindings === undefined || !logger.isLevelEnabled('info')) {
      logger.info({ req_id, ...(tool !== undefined && { tool }), method, path, status, ms }, 'request');
      return;
    }
    const toolField = tool === undefined ? '' : `,"tool":${JSON.stringify(tool)}`;
    const methodField = method === undefined ? '' : `,"method":${JSON.stringify(method)}`;
    stream.write(
      `{"level":${level}${isoTime()}${chindings},"req_id":${JSON.stringify(req_id)}${toolField}${methodField},"path":${JSON.stringify(path)},"status":${status},"ms":${ms},"msg":"request"}\n`,
    );
  };
}
