/**
 * The audit log, written ahead: before each mutating request is sent, an intent line (what is
 * about to be sent, to what, by whom) is appended and flushed to the disk (fsync); when it cannot
 * be, the request is not sent. When the call ends, its outcome line follows. A process killed at
 * any moment (kill -9) leaves at least the intent of a request it sent; `readAudit` shows an
 * intent with no outcome as `unknown`. Each line is appended with one write(2) on a file opened
 * by its path with O_APPEND, so lines from concurrent processes never interleave, no line is
 * rewritten, and a log removed or rotated (renamed away) is created afresh at its path.
 */
import { closeSync, constants, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { durationMs, globPattern } from '@cloudcall/core/internal';

export type FrontEnd = 'cli' | 'mcp';

/**
 * How a mutating call ended. `unknown`: its intent was written but no outcome line (the call is
 * still running, or its process was killed), so the change may or may not have been made.
 */
export type Outcome = 'ok' | 'error' | 'refused' | 'declined' | 'unknown';
export const OUTCOMES: readonly Outcome[] = ['ok', 'error', 'refused', 'declined', 'unknown'];

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
  tool: string;
  /** The arguments, secrets masked. */
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
  request?: { method: string; path: string };
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
  tool: string;
  args: unknown;
  target?: Record<string, unknown>;
  /** The request about to be sent (its body is in `args`, masked). */
  request: { method: string; path: string };
}

export type AuditLine = AuditEntry | AuditIntent;

/** The audit log can't be opened or written. */
export class AuditLogError extends Error {
  override name = 'AuditLogError';
}

export interface AuditLog {
  readonly path: string;
  /**
   * Appends one line (an intent is also flushed to the disk, fsync, before this returns); throws
   * an AuditLogError when it cannot be written whole (a full disk, a removed directory).
   */
  append(line: AuditLine): void;
  close(): void;
}

/**
 * A log at `path`, checked now: it is created when missing and must be writable, or this throws
 * an AuditLogError saying why. Each line opens the file by its path again, so a log rotated or
 * removed while a server runs is created afresh rather than written to a file nobody reads.
 */
export function openAuditLog(path: string): AuditLog {
  closeSync(openForAppend(path, 'opened for appending'));
  return {
    path,
    append(entry) {
      const line = Buffer.from(`${JSON.stringify(entry)}\n`);
      const fd = openForAppend(path, 'written');
      try {
        let written: number;
        try {
          written = writeSync(fd, line);
          // An intent must be on the disk before its request goes; an outcome need only follow.
          if ('phase' in entry) fsyncSync(fd);
        } catch (error) {
          throw new AuditLogError(`audit log ${path} could not be written: ${reason(error)}`);
        }
        if (written !== line.length) {
          throw new AuditLogError(
            `audit log ${path} could not be written: only ${written} of ${line.length} bytes fit`,
          );
        }
      } finally {
        closeSync(fd);
      }
    },
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

export interface AuditFilter {
  /** Entries at or after this time (ms since the epoch). */
  since?: number;
  /** Only this caller's entries (exactly this id). */
  caller?: string;
  /** Tool names or globs. */
  tools?: readonly string[];
  outcomes?: readonly Outcome[];
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

/**
 * The entries of a log that match a filter, oldest first: each call's outcome line, and for a
 * call whose intent was written but no outcome (still running, or killed), its first intent as
 * outcome `unknown`, where that intent stands. A line that is not an entry (a log edited by
 * hand) is counted in `skipped`, not fatal.
 */
export function readAudit(
  path: string,
  filter: AuditFilter = {},
): { entries: AuditEntry[]; skipped: number } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new AuditLogError(`audit log ${path} cannot be read: ${reason(error)}`);
  }
  const tools = filter.tools?.length ? filter.tools.map(globPattern) : undefined;
  const lines: AuditLine[] = [];
  const ended = new Set<string>();
  let skipped = 0;
  for (const raw of text.split('\n')) {
    if (!raw) continue;
    let line: AuditLine;
    try {
      line = JSON.parse(raw) as AuditLine;
    } catch {
      skipped++;
      continue;
    }
    if (typeof line?.time !== 'string' || typeof line.tool !== 'string') {
      skipped++;
      continue;
    }
    if (!('phase' in line) && line.call !== undefined) ended.add(line.call);
    lines.push(line);
  }
  const entries: AuditEntry[] = [];
  const shown = new Set<string>();
  for (const line of lines) {
    let entry: AuditEntry;
    if ('phase' in line) {
      if (ended.has(line.call) || shown.has(line.call)) continue;
      shown.add(line.call);
      const { phase: _phase, ...rest } = line;
      entry = { ...rest, outcome: 'unknown', duration_ms: 0 };
    } else entry = line;
    if (filter.caller !== undefined && entry.caller !== filter.caller) continue;
    if (filter.since !== undefined && Date.parse(entry.time) < filter.since) continue;
    if (tools && !tools.some((pattern) => pattern.test(entry.tool))) continue;
    if (filter.outcomes?.length && !filter.outcomes.includes(entry.outcome)) continue;
    entries.push(entry);
  }
  return { entries, skipped };
}
