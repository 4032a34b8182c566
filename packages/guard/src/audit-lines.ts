/**
 * The audit log's lines as bytes: what the writer, the readers and `verifyAudit` share. A line is
 * everything between two newlines; the chain is over each line's bytes (without its newline),
 * whatever they hold, so a torn line is hashed like any other. Lines are read backwards (the
 * writer's tail, `audit-list`) or forwards (verify) a chunk at a time: memory holds a chunk and
 * one line, never the file.
 */
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

/** The bound on one line of the log, its newline included. */
export const MAX_LINE_BYTES = 16 * 1024;

/** `prev` of the first line of a log that continues no other. */
export const GENESIS = '0'.repeat(64);

const NEWLINE = 0x0a;

/** The chain's hash of a line: SHA-256 of its bytes, its newline excluded, as hex. */
export function lineHash(line: Buffer | string): string {
  return createHash('sha256').update(line).digest('hex');
}

/** What a line says of itself: its JSON (when it parses), and its place in the chain. */
export interface LineInfo {
  /** The parsed object; undefined for a line that does not parse (a torn line). */
  value?: Record<string, unknown>;
  seq?: number;
  prev?: string;
  /** Set on the first line written to an empty file (a new log, or one made after rotation). */
  startsFile: boolean;
  /** The bytes of the torn line before it that the writer terminated and set apart. */
  afterTorn?: number;
}

// Every chained line starts so: a torn line long enough still tells its place.
const HEAD = /^\{"seq":(\d{1,15})(?:,"prev":"([0-9a-f]{64})")?/;

export function lineInfo(line: Buffer): LineInfo {
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch {
    value = undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const head = HEAD.exec(line.subarray(0, 96).toString('latin1'));
    return {
      ...(head?.[1] !== undefined ? { seq: Number(head[1]) } : {}),
      ...(head?.[2] !== undefined ? { prev: head[2] } : {}),
      startsFile: false,
    };
  }
  const record = value as Record<string, unknown>;
  return {
    value: record,
    ...(Number.isSafeInteger(record.seq) ? { seq: record.seq as number } : {}),
    ...(typeof record.prev === 'string' ? { prev: record.prev } : {}),
    startsFile: record.starts_file === true,
    ...(typeof record.after_torn === 'number' ? { afterTorn: record.after_torn } : {}),
  };
}

/** A raw line and where it starts in the file. */
export interface RawLine {
  bytes: Buffer;
  offset: number;
  /** False only for the last line of a file that does not end with a newline (a torn tail). */
  terminated: boolean;
}

/**
 * The lines of an open file from its end backwards, reading `chunk` bytes at a time and at most
 * `maxBytes` in all. `reachedStart` (on the generator's return) tells whether the first line of
 * the file was reached: when the budget runs out, the line it cuts is not yielded.
 */
export async function* linesBackward(
  handle: FileHandle,
  size: number,
  options: { chunk?: number; maxBytes?: number } = {},
): AsyncGenerator<RawLine, { reachedStart: boolean }> {
  const chunk = options.chunk ?? 64 * 1024;
  const budget = options.maxBytes ?? Number.POSITIVE_INFINITY;
  let position = size;
  let read = 0;
  // The end of a line whose start is further back, in order: kept as pieces, so that a line longer
  // than a chunk (from before lines were bounded) is copied once, not once a chunk.
  let pieces: Buffer[] = [];
  let terminated = true;
  let first = true;
  const joined = (head: Buffer) => (pieces.length ? Buffer.concat([head, ...pieces]) : head);
  while (position > 0) {
    const length = Math.min(chunk, position, budget - read);
    if (length <= 0) return { reachedStart: false };
    position -= length;
    read += length;
    const buffer = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const { bytesRead } = await handle.read(buffer, got, length - got, position + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    const data = buffer.subarray(0, got);
    let end = data.length;
    if (first) {
      first = false;
      // A file ending with a newline has nothing after it; one that does not has a torn tail.
      if (data[end - 1] === NEWLINE) end -= 1;
      else terminated = false;
    }
    let index = end > 0 ? data.lastIndexOf(NEWLINE, end - 1) : -1;
    while (index >= 0) {
      yield { bytes: joined(data.subarray(index + 1, end)), offset: position + index + 1, terminated };
      pieces = [];
      terminated = true;
      end = index;
      index = end > 0 ? data.lastIndexOf(NEWLINE, end - 1) : -1;
    }
    // Copied: the chunk's buffer is not kept alive by a short line's end.
    if (end > 0) pieces.unshift(Buffer.from(data.subarray(0, end)));
  }
  if (!first) yield { bytes: joined(Buffer.alloc(0)), offset: 0, terminated };
  return { reachedStart: true };
}

/**
 * The lines of an open file from its start, `chunk` bytes at a time, numbered from 1. The last
 * line is unterminated when the file does not end with a newline.
 */
export async function* linesForward(
  handle: FileHandle,
  options: { chunk?: number } = {},
): AsyncGenerator<RawLine & { number: number }> {
  const chunk = options.chunk ?? 1024 * 1024;
  const buffer = Buffer.allocUnsafe(chunk);
  let position = 0;
  let number = 0;
  let pending: Buffer[] = [];
  let pendingStart = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, chunk, position);
    if (bytesRead === 0) break;
    const data = buffer.subarray(0, bytesRead);
    let start = 0;
    let index = data.indexOf(NEWLINE, start);
    while (index >= 0) {
      const piece = data.subarray(start, index);
      const bytes = pending.length ? Buffer.concat([...pending, piece]) : Buffer.from(piece);
      yield {
        bytes,
        offset: pending.length ? pendingStart : position + start,
        terminated: true,
        number: ++number,
      };
      pending = [];
      start = index + 1;
      index = data.indexOf(NEWLINE, start);
    }
    if (start < data.length) {
      if (!pending.length) pendingStart = position + start;
      pending.push(Buffer.from(data.subarray(start)));
    }
    position += bytesRead;
  }
  if (pending.length) {
    yield { bytes: Buffer.concat(pending), offset: pendingStart, terminated: false, number: ++number };
  }
}

/** How a long value is cut: characters of a string or key, items of an array or object, depth. */
export interface Cut {
  text: number;
  key: number;
  items: number;
  depth: number;
}

/** The arguments as recorded: long strings cut, wide and deep values summarised. */
export const ARGUMENT_CUT: Cut = { text: 1024, key: 128, items: 64, depth: 8 };
/** Tighter cuts, tried in turn for a line still over the bound. */
const TIGHTER: readonly Cut[] = [
  { text: 256, key: 64, items: 16, depth: 6 },
  { text: 64, key: 32, items: 4, depth: 3 },
];

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

function cutText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = limit;
  // Never half a surrogate pair.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…[${count(text.length - end, 'more character')}]`;
}

/**
 * `value` shortened by `cut`: a string longer than `cut.text` keeps its start and says how much
 * was cut; an array or object keeps its first `cut.items` and says how many more there were; a
 * value deeper than `cut.depth` becomes a note of its size. JSON-safe: keys are own properties
 * (`__proto__` included, as data).
 */
export function shortenValue(value: unknown, cut: Cut = ARGUMENT_CUT, depth = 0): unknown {
  if (typeof value === 'string') return cutText(value, cut.text);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    if (depth >= cut.depth) return `[array of ${count(value.length, 'item')}]`;
    const kept = value.slice(0, cut.items).map((item) => shortenValue(item, cut, depth + 1));
    if (value.length > cut.items) kept.push(`[${count(value.length - cut.items, 'more item')}]`);
    return kept;
  }
  const keys = Object.keys(value);
  if (depth >= cut.depth) return `[object of ${count(keys.length, 'field')}]`;
  const entries: [string, unknown][] = [];
  const used = new Set<string>();
  for (const key of keys.slice(0, cut.items)) {
    let name = cutText(key, cut.key);
    // Two long keys cut to the same start stay two fields.
    if (used.has(name)) name = `${name}#${entries.length}`;
    used.add(name);
    entries.push([name, shortenValue((value as Record<string, unknown>)[key], cut, depth + 1)]);
  }
  if (keys.length > cut.items) entries.push(['…', `[${count(keys.length - cut.items, 'more field')}]`]);
  return Object.fromEntries(entries);
}

/** The chain's fields: never shortened. */
const CHAIN = new Set(['seq', 'prev', 'starts_file', 'after_torn']);
/** Short fields every reader goes by: shortened only in the last resort. */
const KEPT = new Set([...CHAIN, 'phase', 'time', 'call', 'outcome']);

/**
 * A record as one JSON line of at most `room` bytes: as it is when it fits, else with every field
 * but the kept ones shortened, tighter and tighter; at last only what says which call it was.
 */
export function boundedJson(record: Record<string, unknown>, room: number): string {
  let text = JSON.stringify(record);
  if (Buffer.byteLength(text) <= room) return text;
  for (const cut of [ARGUMENT_CUT, ...TIGHTER]) {
    text = JSON.stringify(
      Object.fromEntries(
        Object.entries(record).map(([key, value]) => [key, KEPT.has(key) ? value : shortenValue(value, cut)]),
      ),
    );
    if (Buffer.byteLength(text) <= room) return text;
  }
  const least = TIGHTER[TIGHTER.length - 1] as Cut;
  const kept = Object.fromEntries(
    Object.entries(record)
      .filter(([key]) => KEPT.has(key) || key === 'caller' || key === 'tool')
      .map(([key, value]) => [key, CHAIN.has(key) ? value : shortenValue(value, least)]),
  );
  return JSON.stringify({ ...kept, omitted: 'the line was too large: only these fields are kept' });
}
