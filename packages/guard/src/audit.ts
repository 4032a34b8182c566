/**
 * The audit log, written ahead: before each mutating request is sent, an intent line (what is
 * about to be sent, to what, by whom) is appended and flushed to the disk (fsync); when it cannot
 * be, the request is not sent. When the call ends, its outcome line follows. A process killed at
 * any moment (kill -9) leaves at least the intent of a request it sent; `readAudit` shows an
 * intent with no outcome as `unknown`.
 *
 * Every line is bounded (`MAX_LINE_BYTES`, 16 KiB): arguments are recorded shortened, and a line
 * still over the bound has its fields cut further. Every line is chained: it starts with its `seq`
 * and `prev`, the SHA-256 of the line before it in the file, so a line changed, removed or
 * inserted breaks the chain (`verifyAudit`). Appending reads the last line and writes the next
 * under a lock beside the log (`FILE.lock`, proper-lockfile) so that processes sharing one log
 * keep one chain; the last line's seq and hash are also kept in `FILE.head`, which is how a log
 * renamed away (rotated) and created afresh continues the chain, and how a removed last line is
 * noticed. A torn tail (a file not ending in a newline: a crash, a full disk mid-line) is ended
 * before the next line, which says so (`after_torn`); nothing is ever glued onto it.
 *
 * Each line is one write(2) on the file opened by its path with O_APPEND, so a log removed or
 * rotated while a server runs is created afresh at its path.
 */
import { accessSync, closeSync, constants, fstatSync, openSync } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { durationMs, globPattern } from '@cloudcall/core/internal';
import {
  ARGUMENT_CUT,
  boundedJson,
  GENESIS,
  lineHash,
  lineInfo,
  linesBackward,
  MAX_LINE_BYTES,
  shortenValue,
} from './audit-lines.js';

export type FrontEnd = 'cli' | 'mcp';

/**
 * How a mutating call ended. `unknown`: its intent was written but no outcome line (the call is
 * still running, or its process was killed), so the change may or may not have been made.
 */
export type Outcome = 'ok' | 'error' | 'refused' | 'declined' | 'unknown';
export const OUTCOMES: readonly Outcome[] = ['ok', 'error', 'refused', 'declined', 'unknown'];

/** A request as the log names it. */
export interface AuditRequest {
  method: string;
  path: string;
}

export interface AuditEntry {
  /** ISO 8601, when the call started. */
  time: string;
  front_end: FrontEnd;
  /**
   * Who made the call, as a non-secret id: the client key's name (static keys), a short hash of
   * the caller's token (token passthrough), or the local user (`local:NAME`).
   */
  caller: string;
  /** The call's id, shared by its intent lines and its outcome line. */
  call?: string;
  /** The JSON-RPC id of the MCP request (tools/call) that made the call. */
  rpc_id?: string | number;
  tool: string;
  /** The arguments, secrets masked, long values shortened. */
  args: unknown;
  /** What it acted on: `{ kind, id, name, tags, path }`, when it has a target. */
  target?: Record<string, unknown>;
  outcome: Outcome;
  /** For `error`: the HTTP status when the platform answered, and the error id. */
  status?: number;
  error_id?: string;
  /** For `refused`: the rule or setting that refused it. */
  reason?: string;
  /** The platform's request id of the mutating request. */
  request_id?: string;
  /** For `unknown`: the request that may have been sent. */
  request?: AuditRequest;
  /** The mutating requests the call went on to send, each after its intent line, in order. */
  requests?: AuditRequest[];
  /** The line's place in the log's chain. */
  seq?: number;
  duration_ms: number;
}

/**
 * The line written, flushed, before a mutating request is sent: one per request, so a tool that
 * sends several writes several. Its `call` names the outcome line that follows.
 */
export interface AuditIntent {
  phase: 'intent';
  time: string;
  call: string;
  front_end: FrontEnd;
  caller: string;
  rpc_id?: string | number;
  tool: string;
  args: unknown;
  target?: Record<string, unknown>;
  /** The request about to be sent (its body is in `args`, masked). */
  request: AuditRequest;
  seq?: number;
}

export type AuditLine = AuditEntry | AuditIntent;

/** The audit log can't be opened or written. */
export class AuditLogError extends Error {
  override name = 'AuditLogError';
}

export interface AuditLog {
  readonly path: string;
  /**
   * Appends one line, chained and bounded (an intent is also flushed to the disk, fsync, before
   * this resolves); rejects with an AuditLogError when it cannot be written whole (a full disk, a
   * removed directory, a lock held for too long).
   */
  append(line: AuditLine): Promise<void>;
  close(): void;
}

export { MAX_LINE_BYTES } from './audit-lines.js';

/** The arguments as an audit line records them: long strings cut, wide or deep values summarised. */
export function shortenArguments(args: unknown): unknown {
  return shortenValue(args, ARGUMENT_CUT);
}

/** How long a writer waits for another to finish its line before the call fails. */
const LOCK_WAIT_MS = 20_000;
/** A lock not refreshed for this long is its dead holder's: taken over. */
const LOCK_STALE_MS = 10_000;

/**
 * Appends to one path from this process one at a time: the file lock then only ever stands
 * between processes (proper-lockfile would see this process's own lock as another's).
 */
const queues = new Map<string, Promise<unknown>>();

function oneAtATime<T>(path: string, task: () => Promise<T>): Promise<T> {
  const before = queues.get(path) ?? Promise.resolve();
  const run = before.then(task, task);
  const settled = run.catch(() => undefined);
  queues.set(path, settled);
  void settled.then(() => {
    if (queues.get(path) === settled) queues.delete(path);
  });
  return run;
}

/** This process's chain for a log that is no regular file (a pipe, `/dev/stderr`): no tail to read. */
const ownChains = new Map<string, { seq: number; prev: string }>();

/**
 * A log at `path`, checked now: it is created when missing and must be writable, and so must its
 * directory (the lock and the head file are kept beside it), or this throws an AuditLogError
 * saying why. Each line opens the file by its path again, so a log rotated or removed while a
 * server runs is created afresh rather than written to a file nobody reads.
 */
export function openAuditLog(path: string): AuditLog {
  const fd = openForAppend(path, 'opened for appending');
  try {
    if (fstatSync(fd).isFile()) {
      try {
        accessSync(dirname(path), constants.W_OK);
      } catch (error) {
        throw new AuditLogError(
          `audit log ${path} cannot be opened for appending: its directory is not writable (${reason(error)}), and the log's lock and head file are kept there`,
        );
      }
    }
  } finally {
    closeSync(fd);
  }
  return {
    path,
    append: (entry) => oneAtATime(path, () => appendLine(path, entry)),
    close() {
      // Nothing is held open between lines.
    },
  };
}

function openForAppend(path: string, doing: string): number {
  try {
    return openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
  } catch (error) {
    throw new AuditLogError(`audit log ${path} cannot be ${doing}: ${reason(error)}`);
  }
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const messages: Record<string, string> = {
    ENOENT: 'its directory does not exist',
    EACCES: 'permission denied',
    EISDIR: 'it is a directory',
    ENOSPC: 'no space left on the device',
    EROFS: 'read-only file system',
  };
  return (code && messages[code]) ?? (error instanceof Error ? error.message : String(error));
}

/** Where a line goes in the chain, and what it must say of the file's tail. */
interface Link {
  seq: number;
  prev: string;
  startsFile?: true;
  /** The bytes of a torn last line, ended by this write. */
  afterTorn?: number;
  /** Whether the file lacks a newline at its end (a torn tail, or a whole line cut before it). */
  unterminated: boolean;
}

async function appendLine(path: string, entry: AuditLine): Promise<void> {
  const opened = async () => {
    try {
      return await open(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, 0o600);
    } catch (error) {
      throw new AuditLogError(`audit log ${path} could not be written: ${reason(error)}`);
    }
  };
  let handle = await opened();
  try {
    if (!(await handle.stat()).isFile()) {
      const own = ownChains.get(path);
      const link: Link = own
        ? { ...own, unterminated: false }
        : { seq: 1, prev: GENESIS, startsFile: true, unterminated: false };
      const text = await writeLine(handle, path, entry, link);
      ownChains.set(path, { seq: link.seq + 1, prev: lineHash(text) });
      return;
    }
    const release = await lockLog(path);
    try {
      // Rotated while this waited for the lock: the line goes to the file now at the path, which
      // the head continues, not to the file renamed away.
      if (!(await atPath(handle, path))) {
        await handle.close();
        handle = await opened();
      }
      const size = (await handle.stat()).size;
      const link = size === 0 ? await fromHead(path) : await fromTail(handle, size);
      const text = await writeLine(handle, path, entry, link);
      await writeHead(path, link.seq, lineHash(text));
    } finally {
      await release();
    }
  } finally {
    await handle.close();
  }
}

/** Whether the open file is still the one at `path` (not renamed away or removed). */
async function atPath(handle: FileHandle, path: string): Promise<boolean> {
  const [open, named] = await Promise.all([handle.stat(), stat(path).catch(() => undefined)]);
  return named !== undefined && named.ino === open.ino && named.dev === open.dev;
}

/** Writes the line, whole or not at all as far as this call can tell; returns its text. */
async function writeLine(handle: FileHandle, path: string, entry: AuditLine, link: Link): Promise<string> {
  const record: Record<string, unknown> = {
    seq: link.seq,
    prev: link.prev,
    ...(link.startsFile ? { starts_file: true } : {}),
    ...(link.afterTorn !== undefined ? { after_torn: link.afterTorn } : {}),
    ...entry,
  };
  const lead = link.unterminated ? '\n' : '';
  const text = boundedJson(record, MAX_LINE_BYTES - 1 - lead.length);
  const bytes = Buffer.from(`${lead}${text}\n`);
  try {
    // One write(2): with O_APPEND it lands whole at the end, or (a full disk) cut short.
    const { bytesWritten } = await handle.write(bytes, 0, bytes.length, null);
    if (bytesWritten !== bytes.length) {
      throw new AuditLogError(
        `audit log ${path} could not be written: only ${bytesWritten} of ${bytes.length} bytes fit`,
      );
    }
    // An intent must be on the disk before its request goes; an outcome need only follow.
    if ('phase' in entry) await handle.sync();
  } catch (error) {
    if (error instanceof AuditLogError) throw error;
    throw new AuditLogError(`audit log ${path} could not be written: ${reason(error)}`);
  }
  return text;
}

/**
 * The link after the file's last line. A last line without its newline is ended first; when it
 * does not parse (torn), the new line says how many bytes it had. The seq of a torn line too short
 * to show it is the one of the line before plus one.
 */
async function fromTail(handle: FileHandle, size: number): Promise<Link> {
  const lines = linesBackward(handle, size, { chunk: 2 * MAX_LINE_BYTES + 2 });
  let last: { bytes: Buffer; terminated: boolean; parses: boolean } | undefined;
  let seq: number | undefined;
  // Lines from the last back to one that tells its seq (a few at most: only torn lines hide it).
  let after = 0;
  for (let step = 0; step < 8; step++) {
    const next = await lines.next();
    if (next.done) break;
    const info = lineInfo(next.value.bytes);
    last ??= { bytes: next.value.bytes, terminated: next.value.terminated, parses: info.value !== undefined };
    if (info.seq !== undefined) {
      seq = info.seq + after;
      break;
    }
    // A whole line with no seq was written before the chain: the chain starts after it.
    if (info.value !== undefined) {
      seq = after;
      break;
    }
    after++;
  }
  await lines.return({ reachedStart: false });
  if (!last) return { seq: 1, prev: GENESIS, startsFile: true, unterminated: false };
  return {
    seq: (seq ?? after) + 1,
    prev: lineHash(last.bytes),
    ...(last.parses ? {} : { afterTorn: last.bytes.length }),
    unterminated: !last.terminated,
  };
}

/** The head file beside a log: its last line's seq and hash, fixed width, rewritten in place. */
export const headPath = (path: string) => `${path}.head`;
const HEAD_WIDTH = 100;

/** The head a log's next first line continues from: none for a new log. */
export async function readHead(path: string): Promise<{ seq: number; hash: string } | undefined> {
  let text: string;
  try {
    const handle = await open(headPath(path), 'r');
    try {
      const buffer = Buffer.alloc(HEAD_WIDTH);
      const { bytesRead } = await handle.read(buffer, 0, HEAD_WIDTH, 0);
      text = buffer.subarray(0, bytesRead).toString('latin1');
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
  const match = /^seq (\d{1,15}) sha256 ([0-9a-f]{64})\s*$/.exec(text);
  return match ? { seq: Number(match[1]), hash: match[2] as string } : undefined;
}

/** An empty file (new, or created afresh after rotation) starts where the head says the log was. */
async function fromHead(path: string): Promise<Link> {
  const head = await readHead(path);
  return {
    seq: (head?.seq ?? 0) + 1,
    prev: head?.hash ?? GENESIS,
    startsFile: true,
    unterminated: false,
  };
}

/**
 * Records the last line in the head file. Written in place at a fixed width, so that once it
 * exists it takes no new space (a full disk does not stop it). Best effort: the log's own lines
 * are what counts, and `verifyAudit` says when the head lags behind them.
 */
async function writeHead(path: string, seq: number, hash: string): Promise<void> {
  try {
    const handle = await open(headPath(path), constants.O_WRONLY | constants.O_CREAT, 0o600);
    try {
      const text = `${`seq ${seq} sha256 ${hash}`.padEnd(HEAD_WIDTH - 1)}\n`;
      await handle.write(Buffer.from(text, 'latin1'), 0, HEAD_WIDTH, 0);
    } finally {
      await handle.close();
    }
  } catch {
    // A full disk when the head file is first made, a directory made read-only: the log goes on.
  }
}

/**
 * Takes the log's lock (`FILE.lock`, a directory: proper-lockfile, as the CLI's config file) for
 * one line: reading the last line and writing the next must not interleave with another
 * process's, or two lines would name the same line before them. Only a held lock is waited for;
 * any other error (a full disk, permissions) fails at once.
 */
async function lockLog(path: string): Promise<() => Promise<void>> {
  const { lock } = await import('proper-lockfile');
  const started = Date.now();
  let delay = 1;
  for (;;) {
    try {
      const release = await lock(path, {
        realpath: false,
        lockfilePath: `${path}.lock`,
        stale: LOCK_STALE_MS,
        retries: 0,
        // Taken over as stale (this process stalled for LOCK_STALE_MS): the line is still
        // written; a chain that forks there is what verify reports.
        onCompromised: () => undefined,
      });
      return () => release().catch(() => undefined);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ELOCKED') {
        throw new AuditLogError(
          `audit log ${path} could not be written: its lock ${path}.lock: ${reason(error)}`,
        );
      }
      if (Date.now() - started > LOCK_WAIT_MS) {
        throw new AuditLogError(
          `audit log ${path} could not be written: its lock ${path}.lock stayed held for ${Math.round(LOCK_WAIT_MS / 1000)} s`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, delay + Math.random() * delay));
      delay = Math.min(delay * 2, 25);
    }
  }
}

export interface AuditFilter {
  /** Entries at or after this time (ms since the epoch). */
  since?: number;
  /** Only this caller's entries (exactly this id). */
  caller?: string;
  /** Tool names or globs. */
  tools?: readonly string[];
  outcomes?: readonly Outcome[];
  /** Only the calls of the MCP request with this JSON-RPC id (compared as text). */
  rpcId?: string | number;
}

/** `1h`, `30m`, `2d`, `90s`, or an ISO date: the time it names, relative to `now`. */
export function parseSince(text: string, now = Date.now()): number {
  const ago = durationMs(text);
  if (ago !== undefined) return now - ago;
  const date = Date.parse(text);
  if (Number.isNaN(date))
    throw new Error(`--since must be a duration such as 30m, 1h or 2d, or a date, not ${text}`);
  return date;
}

/** Checks outcome names; throws an Error naming the valid ones. */
export function parseOutcomes(list: readonly string[]): Outcome[] {
  const outcomes = list
    .flatMap((item) => item.split(','))
    .map((item) => item.trim())
    .filter(Boolean);
  const unknown = outcomes.filter((item) => !OUTCOMES.includes(item as Outcome));
  if (unknown.length)
    throw new Error(`unknown outcome ${unknown.join(', ')}; choose from ${OUTCOMES.join(', ')}`);
  return outcomes as Outcome[];
}

export interface AuditReadOptions extends AuditFilter {
  /** The latest N matching entries; all when absent. */
  limit?: number;
  /** Read at most this many bytes back from the end; all when absent. */
  maxBytes?: number;
}

export interface AuditRead {
  /** The matching entries, oldest first (the latest `limit`). */
  entries: AuditEntry[];
  /** Lines read that are not entries (a log edited by hand). */
  skipped: number;
  /** Lines read that do not parse: torn by a crash or a full disk (`verifyAudit` names them). */
  torn: number;
  /** Whether older lines were left unread (the limit was reached, or `maxBytes`). */
  more: boolean;
}

/**
 * The entries of a log that match a filter, read from its end backwards a chunk at a time: each
 * call's outcome line, and for a call whose intent was written but no outcome (still running, or
 * killed), its latest intent (the request that may have been sent) as outcome `unknown`, where
 * that intent stands. Stops at `limit` entries or `maxBytes`, so a call's memory and time are
 * bounded whatever the log's size. Lines that are not entries are counted, not fatal.
 */
export async function readAudit(path: string, options: AuditReadOptions = {}): Promise<AuditRead> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw new AuditLogError(`audit log ${path} cannot be read: ${reason(error)}`);
  }
  const tools = options.tools?.length ? options.tools.map(globPattern) : undefined;
  // Lines that cannot match are passed over without parsing: the caller's and the id's text as
  // JSON.stringify writes them (lines are its output) must appear in a matching line.
  const needles = [
    ...(options.caller !== undefined ? [`"caller":${JSON.stringify(options.caller)}`] : []),
    ...(options.rpcId !== undefined ? [`"rpc_id":`] : []),
  ];
  const rpcId = options.rpcId === undefined ? undefined : String(options.rpcId);
  const ended = new Set<string>();
  const shown = new Set<string>();
  const entries: AuditEntry[] = [];
  let skipped = 0;
  let torn = 0;
  let more = false;
  try {
    const size = (await handle.stat()).size;
    // 256 KiB a read: a few milliseconds of parsing between two turns of the event loop.
    const lines = linesBackward(handle, size, {
      chunk: 256 * 1024,
      ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}),
    });
    for (;;) {
      const next = await lines.next();
      if (next.done) {
        more = !next.value.reachedStart;
        break;
      }
      if (options.limit !== undefined && entries.length >= options.limit) {
        more = true;
        await lines.return({ reachedStart: false });
        break;
      }
      const { bytes } = next.value;
      if (needles.length && !needles.every((needle) => bytes.includes(needle))) continue;
      const info = lineInfo(bytes);
      const line = info.value as
        | (AuditLine & { prev?: unknown; starts_file?: unknown; after_torn?: unknown })
        | undefined;
      if (!line) {
        if (bytes.length) torn++;
        continue;
      }
      if (typeof line.time !== 'string' || typeof line.tool !== 'string') {
        skipped++;
        continue;
      }
      const { prev: _prev, starts_file: _starts, after_torn: _torn, ...fields } = line;
      let entry: AuditEntry;
      if ('phase' in fields) {
        if (ended.has(fields.call) || shown.has(fields.call)) continue;
        shown.add(fields.call);
        const { phase: _phase, ...rest } = fields;
        entry = { ...rest, outcome: 'unknown', duration_ms: 0 };
      } else {
        if (fields.call !== undefined) ended.add(fields.call);
        entry = fields;
      }
      if (options.caller !== undefined && entry.caller !== options.caller) continue;
      if (rpcId !== undefined && (entry.rpc_id === undefined || String(entry.rpc_id) !== rpcId)) continue;
      if (options.since !== undefined && Date.parse(entry.time) < options.since) continue;
      if (tools && !tools.some((pattern) => pattern.test(entry.tool))) continue;
      if (options.outcomes?.length && !options.outcomes.includes(entry.outcome)) continue;
      entries.push(entry);
    }
  } finally {
    await handle.close();
  }
  return { entries: entries.reverse(), skipped, torn, more };
}
