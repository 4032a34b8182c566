/**
 * MCP over stdio, one JSON-RPC message per line, that survives bad input.
 *
 * The SDK's StdioServerTransport closes itself, silently and with stdin paused, when a line passes
 * its 10 MiB buffer (so the process then answers nothing and never sees stdin end), and drops a
 * line that is not JSON-RPC without an answer. This transport answers such lines instead: -32700
 * for a line that is not JSON, -32600 for JSON that is not a JSON-RPC message and for a line over
 * the limit, whose rest it skips without buffering it. It closes when its input ends.
 *
 * Batches (a JSON array of messages on one line) follow the protocol version the session
 * negotiated: 2024-11-05 and 2025-03-26 have them, so each message goes to the server and the
 * answers to a batch's requests go back as one array, once all are in; 2025-06-18 removed them,
 * so from that version on (and before initialize) a batch is refused with -32600.
 */

import type { Readable, Writable } from 'node:stream';
import { isDeepStrictEqual } from 'node:util';
import {
  ProtocolErrorCode as ErrorCode,
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
  parseJSONRPCMessage,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
} from '@modelcontextprotocol/server';
import { type CallRouter, plainCallParams } from './fast-call.js';
import { BATCHES_REMOVED_IN, type StdioHandover } from './handshake.js';

export interface StdioLineOptions {
  input: Readable;
  output: Writable;
  /** The longest line read, in bytes (without its newline); a longer one is refused and skipped. */
  maxMessageBytes: number;
  /**
   * The session so far, when `EarlyStdio` (handshake.ts) answered its first messages: replayed to
   * the server first, then the input it read and did not answer, before any new input.
   */
  handover?: StdioHandover | undefined;
}

const NEWLINE = 0x0a;
/** How many bytes of each end of an oversized line are kept to find its id. */
const EDGE = 128;

export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * Takes plain tools/calls (fast-call.ts) instead of the server, when set: it answers them
   * through `send` as the server would, and hears of their cancellation.
   */
  calls?: CallRouter;

  private readonly input: Readable;
  private readonly output: Writable;
  private readonly max: number;
  /** The start of the current line, never more than `max` bytes in all. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** While the rest of an oversized line is thrown away: its first and last bytes, for its id. */
  private skipped: { head: Buffer; tail: Buffer } | undefined;
  private closed = false;
  private readonly handover: StdioHandover | undefined;
  /** The protocol version the session runs at, once the server has answered initialize. */
  private protocolVersion: string | undefined;
  /** Ids of initialize requests not yet answered: their answer names the protocol version. */
  private readonly initializing = new Set<RequestId>();
  /** Batches being answered: each request id -> its batch, whose answers go out together. */
  private readonly batches = new Map<RequestId, Batch>();

  constructor(options: StdioLineOptions) {
    this.input = options.input;
    this.output = options.output;
    this.max = options.maxMessageBytes;
    this.handover = options.handover;
  }

  async start(): Promise<void> {
    // Taking over from EarlyStdio happens in one go, with no input event in between: nothing it
    // read is lost or read twice.
    const taken = this.handover?.take();
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onStreamError);
    this.output.on('error', this.onStreamError);
    if (!taken) return;
    for (const message of this.handover?.replay ?? []) this.deliver(message as JSONRPCMessage);
    if (taken.bytes.length) this.onData(taken.bytes);
    if (taken.ended) this.onEnd();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.answer(message);
  }

  /**
   * `send` for an answer whose line is already made (fast-call.ts): `text`, the JSON of
   * `message`, is written as it is when the answer goes out on its own.
   */
  sendText(message: JSONRPCMessage, text: string): Promise<void> {
    return this.answer(message, text);
  }

  private answer(message: JSONRPCMessage, text?: string): Promise<void> {
    const answered = this.handover?.answered;
    const id = 'id' in message && !('method' in message) ? message.id : undefined;
    if (id !== undefined && this.initializing.delete(id)) {
      const version = 'result' in message ? message.result.protocolVersion : undefined;
      this.protocolVersion = typeof version === 'string' ? version : undefined;
    }
    const batch = id === undefined ? undefined : this.batches.get(id);
    if (batch && id !== undefined) {
      this.batches.delete(id);
      batch.answers.push(message);
      return --batch.waiting === 0 ? this.write(batch.answers) : Promise.resolve();
    }
    if (id !== undefined && answered?.delete(id)) {
      // Already answered before the SDK loaded (the replayed initialize): a different answer
      // from the SDK server would mean the early one was wrong, which is worth a log line.
      const sent = this.handover?.sent.get(id);
      if (!('result' in message) || !isDeepStrictEqual(message.result, sent)) {
        this.onerror?.(new Error(`stdio: the early answer to request ${id} differs from the server's`));
      }
      return Promise.resolve();
    }
    return this.write(message, text);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onStreamError);
    this.output.off('error', this.onStreamError);
    this.pending = [];
    this.pendingBytes = 0;
    this.calls?.close();
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    while (start < bytes.length && !this.closed) {
      const newline = bytes.indexOf(NEWLINE, start);
      const piece = bytes.subarray(start, newline === -1 ? bytes.length : newline);
      if (this.skipped) {
        this.skipped.tail = lastBytes(this.skipped.tail, piece);
      } else if (this.pendingBytes + piece.length > this.max) {
        this.skipped = {
          head: Buffer.from(Buffer.concat([...this.pending, piece.subarray(0, EDGE)]).subarray(0, EDGE)),
          tail: lastBytes(Buffer.alloc(0), piece),
        };
        this.pending = [];
        this.pendingBytes = 0;
      } else if (newline === -1) {
        // A copy, so the pending part does not keep the whole chunk alive.
        this.pending.push(Buffer.from(piece));
        this.pendingBytes += piece.length;
      } else {
        const line = Buffer.concat([...this.pending, piece]);
        this.pending = [];
        this.pendingBytes = 0;
        this.readLine(line.toString('utf8'));
      }
      if (newline === -1) break;
      if (this.skipped) this.refuseOversized();
      start = newline + 1;
    }
  };

  private readonly onEnd = (): void => {
    if (this.skipped) this.refuseOversized();
    void this.close();
  };

  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };

  private readLine(text: string): void {
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.answerError(null, ErrorCode.ParseError, 'Parse error: the line is not valid JSON');
      return;
    }
    if (Array.isArray(value)) {
      this.readBatch(value);
      return;
    }
    if (this.plainCall(value)) return;
    const message = jsonRpcMessage(value);
    if (!message.success) {
      this.answerError(
        idOf(value),
        ErrorCode.InvalidRequest,
        'Invalid Request: not a JSON-RPC 2.0 request, notification or response',
      );
      return;
    }
    this.deliver(message.data);
  }

  /** A batch: refused as a whole at 2025-06-18 and later, else each message handled in turn. */
  private readBatch(values: unknown[]): void {
    const version = this.protocolVersion;
    if (version === undefined || version >= BATCHES_REMOVED_IN) {
      this.answerError(
        null,
        ErrorCode.InvalidRequest,
        version === undefined
          ? 'Invalid Request: a batch cannot start a session; send initialize on its own'
          : `Invalid Request: batches are not part of protocol version ${version} (removed in ${BATCHES_REMOVED_IN}); send one message per line`,
      );
      return;
    }
    if (values.length === 0) {
      this.answerError(null, ErrorCode.InvalidRequest, 'Invalid Request: an empty batch');
      return;
    }
    const batch: Batch = { answers: [], waiting: 0 };
    const messages: JSONRPCMessage[] = [];
    for (const value of values) {
      const message = jsonRpcMessage(value);
      if (!message.success) {
        batch.answers.push(invalidRequest(idOf(value)));
      } else if (isInitializeRequest(message.data) && isJSONRPCRequest(message.data)) {
        // 2025-03-26: "the initialize request MUST NOT be part of a JSON-RPC batch".
        batch.answers.push(invalidRequest(message.data.id, 'initialize cannot be part of a batch'));
      } else {
        messages.push(message.data);
        if (isJSONRPCRequest(message.data) && !this.batches.has(message.data.id)) {
          this.batches.set(message.data.id, batch);
          batch.waiting++;
        }
      }
    }
    // Answers to refused members only, or nothing at all when the batch held only notifications.
    if (batch.waiting === 0 && batch.answers.length) {
      this.write(batch.answers).catch((error: unknown) => this.onerror?.(error as Error));
    }
    for (const message of messages) this.deliver(message);
  }

  /**
   * Hands a message to the server. An initialize sets the version the server will choose (the
   * client's when supported, else the latest, as the SDK server does), so that a batch read
   * before its answer is out is judged by it; the answer itself then confirms it.
   */
  private deliver(message: JSONRPCMessage): void {
    if (this.plainCall(message)) return;
    const method = 'method' in message ? message.method : undefined;
    if (method === 'notifications/cancelled') this.calls?.cancelled(message);
    if (method === 'initialize' && isInitializeRequest(message) && isJSONRPCRequest(message)) {
      this.initializing.add(message.id);
      const asked = message.params.protocolVersion;
      this.protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
    }
    this.onmessage?.(message);
  }

  /** Hands a plain tools/call to `onPlainCall`; true when it took it. */
  private plainCall(value: unknown): boolean {
    if (!this.calls) return false;
    const params = plainCallParams(value);
    return params !== undefined && this.calls.call((value as { id: RequestId }).id, params);
  }

  private refuseOversized(): void {
    const id = this.skipped ? idAtEdges(this.skipped.head, this.skipped.tail) : null;
    this.skipped = undefined;
    this.onerror?.(new Error(`stdio: a message larger than ${this.max} bytes was skipped`));
    this.answerError(
      id,
      ErrorCode.InvalidRequest,
      `Invalid Request: message larger than ${this.max} bytes; it was skipped`,
    );
  }

  private answerError(id: RequestId | null, code: number, message: string): void {
    // The SDK's type has no null id, which JSON-RPC prescribes when the id cannot be read.
    const answer = { jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCErrorResponse;
    this.write(answer).catch((error: unknown) => this.onerror?.(error as Error));
  }

  private write(message: JSONRPCMessage | readonly JSONRPCMessage[], text?: string): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed) {
        reject(new Error('stdio transport is closed'));
        return;
      }
      this.output.write(`${text ?? JSON.stringify(message)}\n`, (error) =>
        error ? reject(error) : resolve(),
      );
    });
  }
}

export { BATCHES_REMOVED_IN };

/** A batch being answered: the answers so far, and how many of its requests are unanswered. */
interface Batch {
  answers: JSONRPCMessage[];
  waiting: number;
}

/** A batch member that is not a JSON-RPC message (or may not be in a batch), answered in the batch. */
function invalidRequest(id: RequestId | null, why = 'not a JSON-RPC 2.0 request, notification or response') {
  return {
    jsonrpc: '2.0',
    id,
    error: { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${why}` },
  } as unknown as JSONRPCMessage;
}

/** The id of something that looked like a request, when it has a usable one. */
function idOf(value: unknown): RequestId | null {
  if (typeof value !== 'object' || value === null || !('id' in value)) return null;
  const { id } = value as { id: unknown };
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

function lastBytes(previous: Buffer, piece: Buffer): Buffer {
  const joined = piece.length >= EDGE ? piece : Buffer.concat([previous, piece]);
  return Buffer.from(joined.subarray(Math.max(0, joined.length - EDGE)));
}

const ID = String.raw`"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")`;
/** `{"id": 1, ...` or `{"jsonrpc": "2.0", "id": 1, ...` at the start of a message. */
const ID_FIRST = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?${ID}`);
/** `..., "id": 1}` at its end, where the SDK's clients put it (after a request's params). */
const ID_LAST = new RegExp(String.raw`,\s*${ID}\s*\}\s*$`);

/**
 * The id of an oversized request, read from its first and last bytes, so that the client's call
 * fails at once with our error instead of waiting for an answer that never comes. Only an id
 * that is the first or the last member of the top-level object is found; otherwise null.
 */
function idAtEdges(head: Buffer, tail: Buffer): RequestId | null {
  const found = ID_FIRST.exec(head.toString('utf8'))?.[1] ?? ID_LAST.exec(tail.toString('utf8'))?.[1];
  if (found === undefined) return null;
  try {
    const id: unknown = JSON.parse(found);
    return typeof id === 'string' || Number.isSafeInteger(id) ? (id as RequestId) : null;
  } catch {
    return null; // a string with a bad escape
  }
}

/** A JSON value as a JSON-RPC message, if it is one (the SDK's parse throws on anything else). */
function jsonRpcMessage(value: unknown): { success: true; data: JSONRPCMessage } | { success: false } {
  try {
    return { success: true, data: parseJSONRPCMessage(value) };
  } catch {
    return { success: false };
  }
}
