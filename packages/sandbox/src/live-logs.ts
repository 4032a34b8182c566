/**
 * App Platform's live log URLs on the sandbox's HTTP server: a WebSocket (RFC 6455) that sends
 * each log line as the platform does, a text message `{"data": "LINE"}`, first what there is (at
 * most MAX_LOG_LINES), then, when the URL was asked to follow, each new line as sandbox time
 * passes, until the part it shows is over (a build done, a deployment superseded, the app deleted):
 * then it closes (1000). Without follow it closes once the lines there are are sent.
 *
 * Only what a log stream needs of the protocol is here: the handshake, unfragmented text frames
 * from the server, and the client's close and ping frames (masked, as clients send them); anything
 * else from the client closes the stream (1003). A library would bring a server's whole protocol
 * (and, for `ws`, optional native modules a bundle cannot resolve) for these few frames.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { HttpError } from './http.js';
import type { Store } from './store.js';
import { parseTarget } from './target.js';
import type { World } from './world.js';

/** How often (real time) a followed stream looks for new lines. */
const POLL_MS = 100;
/** The most a client frame may hold: clients send close and ping frames, a few bytes each. */
const CLIENT_FRAME_MAX = 1024;
const ACCEPT_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** A server frame: FIN, the opcode, the payload's length (unmasked), the payload. */
function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const head =
    length < 126
      ? Buffer.from([0x80 | opcode, length])
      : length < 65_536
        ? Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff])
        : Buffer.concat([Buffer.from([0x80 | opcode, 127]), bigLength(length)]);
  return Buffer.concat([head, payload]);
}

function bigLength(length: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(length));
  return bytes;
}

const closeFrame = (code: number) => {
  const payload = Buffer.alloc(2);
  payload.writeUInt16BE(code);
  return frame(0x8, payload);
};

/** Refuses an upgrade with an HTTP answer, as the platform's error body. */
function refuse(socket: Duplex, status: number, id: string, message: string): void {
  const text = JSON.stringify({ id, message });
  socket.end(
    `HTTP/1.1 ${status} ${id.replace(/_/g, ' ')}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}

/**
 * Serves one upgrade request: a live log URL becomes its stream, anything else is refused. The
 * stream's socket is added to `open` until it closes (the server destroys those left when it stops).
 */
export async function serveLiveLogs(
  req: IncomingMessage,
  socket: Duplex,
  store: Store<World>,
  clock: () => number,
  open: Set<Duplex>,
): Promise<void> {
  socket.on('error', () => socket.destroy());
  let path: string;
  let query: URLSearchParams;
  try {
    ({ path, query } = parseTarget(req.url ?? ''));
  } catch (error) {
    refuse(socket, 400, 'bad_request', error instanceof Error ? error.message : 'bad request target');
    return;
  }
  const logs = await import('./routes/apps-logs.js');
  if (!logs.isLogPath(path) || !path.endsWith('/live')) {
    refuse(socket, 404, 'not_found', 'Only live log URLs are WebSockets.');
    return;
  }
  const key = req.headers['sec-websocket-key'];
  if (
    req.method !== 'GET' ||
    !/(^|,)\s*websocket\s*(,|$)/i.test(req.headers.upgrade ?? '') ||
    req.headers['sec-websocket-version'] !== '13' ||
    typeof key !== 'string' ||
    Buffer.from(key, 'base64').length !== 16
  ) {
    refuse(socket, 400, 'bad_request', 'Not a WebSocket handshake (version 13).');
    return;
  }
  const read = () =>
    store.read((world) => logs.logLinesAt(world, path, query, clock() + world.clockOffsetMs));
  // The first read answers the handshake: a URL whose app or token is wrong is refused over HTTP.
  let first: Awaited<ReturnType<typeof read>>;
  try {
    first = await read();
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    refuse(socket, error.status, error.id, error.message);
    return;
  }
  const accept = createHash('sha1').update(`${key}${ACCEPT_GUID}`).digest('base64');
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept}\r\n\r\n`,
  );
  open.add(socket);
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const finish = (code: number) => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    socket.end(closeFrame(code));
    open.delete(socket);
  };
  socket.on('close', () => {
    closed = true;
    clearTimeout(timer);
    open.delete(socket);
  });

  // The client's frames: a close is answered and ends the stream, a ping is answered with a pong.
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 2) {
      const opcode = (pending[0] as number) & 0x0f;
      const masked = ((pending[1] as number) & 0x80) !== 0;
      const length = (pending[1] as number) & 0x7f;
      if (!masked || length >= 126 || pending.length > CLIENT_FRAME_MAX) {
        finish(1003);
        return;
      }
      if (pending.length < 6 + length) return;
      const mask = pending.subarray(2, 6);
      const payload = Buffer.from(
        pending.subarray(6, 6 + length).map((byte, i) => byte ^ (mask[i % 4] as number)),
      );
      pending = pending.subarray(6 + length);
      if (opcode === 0x8) finish(payload.length >= 2 ? payload.readUInt16BE(0) : 1000);
      else if (opcode === 0x9 && !closed) socket.write(frame(0xa, payload));
      else if (opcode !== 0xa) finish(1003);
    }
  });

  // Where the stream is: the time of the last line sent, and how many of that time were sent.
  let last = Number.NEGATIVE_INFINITY;
  let atLast = 0;
  const send = (lines: { at: number; text: string }[]) => {
    let seenAtLast = 0;
    for (const line of lines) {
      if (line.at < last) continue;
      if (line.at === last && seenAtLast++ < atLast) continue;
      socket.write(frame(0x1, Buffer.from(JSON.stringify({ data: line.text }))));
      if (line.at === last) atLast++;
      else {
        last = line.at;
        atLast = 1;
        seenAtLast = 1;
      }
    }
  };
  send(first.lines);
  const follow = query.get('follow') === 'true';
  if (!follow || !first.open) {
    finish(1000);
    return;
  }
  // Followed: new lines as sandbox time passes, until the part is over (or the app is gone).
  const poll = async () => {
    if (closed) return;
    try {
      const now = await read();
      send(now.lines);
      if (!now.open) {
        finish(1000);
        return;
      }
    } catch (error) {
      finish(error instanceof HttpError ? 1000 : 1011);
      return;
    }
    timer = setTimeout(() => void poll(), POLL_MS);
  };
  timer = setTimeout(() => void poll(), POLL_MS);
}
