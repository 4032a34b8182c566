/**
 * `apps logs APP [COMPONENT] --type build|deploy|run [--follow]`, as doctl's: app-get-logs answers
 * where the logs are, and their text is read from there and written to stdout as it comes. An
 * archive (`historic_urls`) is a plain text file, read up to LOG_MAX_BYTES; a live URL is a
 * WebSocket (ws for http, else wss, as doctl) of JSON messages `{"data": LINE}`, read until the
 * platform closes it: at once without --follow, else when the part it shows is over (or on
 * Ctrl-C). Each URL carries a token of its own: the API token is never sent there, and what a URL
 * holds past its path (that token) is never printed. Loaded only by a command that reads logs.
 */
import { CancelledError, NetworkError } from '@cloudcall/core';
import { showControls } from '@cloudcall/core/internal';

/** The most of a log read without --follow: a build's log is a few MB at most. */
export const LOG_MAX_BYTES = 16 * 1024 * 1024;
/** How long a log URL may take to answer (or a stream to open). */
const CONNECT_MS = 30_000;
/** How long an archive may go without a byte once it has started. */
const IDLE_MS = 60_000;

export interface LogsIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  signal?: AbortSignal | undefined;
}

/** A URL as it may be shown: its origin and path, not its query (the token). */
const shown = (url: URL) => showControls(`${url.origin}${url.pathname}`);

/** Writes the logs at the URLs app-get-logs answered; the exit code (0, or a note that there are none). */
export async function printLogs(given: unknown, io: LogsIo, options: { follow: boolean }): Promise<number> {
  const { live_url: live, historic_urls: historic } = (given ?? {}) as {
    live_url?: unknown;
    historic_urls?: unknown;
  };
  let printed = false;
  const counted: LogsIo = {
    ...io,
    stdout: (text) => {
      if (text !== '') printed = true;
      io.stdout(text);
    },
  };
  if (typeof live === 'string' && live !== '') await readLive(parse(live), counted, options.follow);
  else {
    const archives = Array.isArray(historic)
      ? historic.filter((url): url is string => typeof url === 'string')
      : [];
    let budget = LOG_MAX_BYTES;
    for (const url of archives) {
      budget = await readArchive(parse(url), counted, budget);
      if (budget <= 0) break;
    }
  }
  // Said where a person reads it, not among the lines (a build that has not started has none).
  if (!printed) io.stderr('cloudcall: no log lines (yet)\n');
  return 0;
}

function parse(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new NetworkError('the platform answered a log URL that is not a URL');
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol)) {
    throw new NetworkError(`the platform answered a log URL of an unknown kind (${url.protocol})`);
  }
  return url;
}

/** Aborts on Ctrl-C, or when `ms` pass without `touch()`; `done()` stops both. */
function watchdog(io: LogsIo, ms: number, what: string) {
  const controller = new AbortController();
  const cancel = () => controller.abort(new CancelledError('cancelled while reading the logs'));
  if (io.signal?.aborted) cancel();
  io.signal?.addEventListener('abort', cancel, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const touch = (after = ms) => {
    clearTimeout(timer);
    timer = setTimeout(
      () => controller.abort(new NetworkError(`${what} did not answer in ${after / 1000} s`)),
      after,
    );
  };
  touch();
  return {
    signal: controller.signal,
    touch,
    /** No more timeouts; Ctrl-C still ends it. */
    pause: () => clearTimeout(timer),
    done: () => {
      clearTimeout(timer);
      io.signal?.removeEventListener('abort', cancel);
    },
  };
}

/** Reads one archive into stdout, within `budget` bytes; what is left of the budget. */
async function readArchive(url: URL, io: LogsIo, budget: number): Promise<number> {
  if (url.protocol === 'ws:' || url.protocol === 'wss:') {
    throw new NetworkError(`the archived log at ${shown(url)} is a stream, not a file`);
  }
  const dog = watchdog(io, CONNECT_MS, shown(url));
  try {
    // No Authorization header: the URL's own token is its credential, the API's stays here.
    const response = await fetch(url, { signal: dog.signal, redirect: 'follow' });
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw new NetworkError(`the log at ${shown(url)} answered HTTP ${response.status}`);
    }
    dog.touch(IDLE_MS);
    const decoder = new TextDecoder();
    let left = budget;
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      dog.touch(IDLE_MS);
      if (chunk.length > left) {
        io.stdout(decoder.decode(chunk.subarray(0, left), { stream: true }) + decoder.decode());
        io.stderr(`\ncloudcall: the logs were cut at ${LOG_MAX_BYTES / 1024 / 1024} MiB\n`);
        await response.body.cancel().catch(() => undefined);
        return 0;
      }
      left -= chunk.length;
      io.stdout(decoder.decode(chunk, { stream: true }));
    }
    io.stdout(decoder.decode());
    return left;
  } catch (error) {
    throw failure(error, dog.signal, url);
  } finally {
    dog.done();
  }
}

/** The error to report: the watchdog's reason (Ctrl-C, a timeout), or the connection's failure. */
function failure(error: unknown, signal: AbortSignal, url: URL): unknown {
  if (signal.aborted) return signal.reason;
  if (error instanceof NetworkError || error instanceof CancelledError) return error;
  const cause = (error as { cause?: { code?: string } }).cause;
  return new NetworkError(`could not read the log at ${shown(url)}${cause?.code ? ` (${cause.code})` : ''}`, {
    code: cause?.code,
    cause: error,
  });
}

/**
 * Reads a live log into stdout until the platform closes it (bounded by LOG_MAX_BYTES unless
 * following: a followed stream runs as long as the part it shows).
 */
async function readLive(url: URL, io: LogsIo, follow: boolean): Promise<void> {
  const target = new URL(url);
  if (target.protocol === 'http:') target.protocol = 'ws:';
  else if (target.protocol !== 'ws:') target.protocol = 'wss:';
  // undici's WebSocket: Node 20 has none of its own; undici is the HTTP client cloudcall ships.
  const { WebSocket } = await import('undici');
  const dog = watchdog(io, CONNECT_MS, shown(url));
  let left = LOG_MAX_BYTES;
  await new Promise<void>((resolve, reject) => {
    const socket = new WebSocket(target);
    let opened = false;
    let ended = false;
    const end = (error?: unknown) => {
      if (ended) return;
      ended = true;
      dog.done();
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.close();
      if (error === undefined) resolve();
      else reject(error);
    };
    dog.signal.addEventListener('abort', () => end(dog.signal.reason), { once: true });
    socket.addEventListener('open', () => {
      opened = true;
      // Open: a followed stream may be quiet for as long as nothing happens.
      if (follow) dog.pause();
      else dog.touch(IDLE_MS);
    });
    socket.addEventListener('message', (event) => {
      if (!follow) dog.touch(IDLE_MS);
      const text = typeof event.data === 'string' ? event.data : '';
      let line: unknown;
      try {
        line = (JSON.parse(text) as { data?: unknown }).data;
      } catch {
        line = undefined;
      }
      if (typeof line !== 'string') return;
      const out = line.endsWith('\n') ? line : `${line}\n`;
      if (!follow) {
        left -= Buffer.byteLength(out);
        if (left < 0) {
          io.stderr(`cloudcall: the logs were cut at ${LOG_MAX_BYTES / 1024 / 1024} MiB\n`);
          end();
          return;
        }
      }
      io.stdout(out);
    });
    socket.addEventListener('close', (event) => {
      // 1000 (done) and 1005 (closed without a code) end the stream; anything else broke it.
      if (event.code === 1000 || event.code === 1005) end();
      else {
        end(
          new NetworkError(
            opened
              ? `the live log at ${shown(url)} broke off (WebSocket close ${event.code})`
              : `could not open the live log at ${shown(url)}`,
          ),
        );
      }
    });
    socket.addEventListener('error', () => {
      // The close event that follows says how it ended.
    });
  });
}
