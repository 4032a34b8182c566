/**
 * The audit log: one JSON line per mutating call, appended to a file opened with O_APPEND and
 * written with one write(2) per line, so lines from concurrent processes never interleave and a
 * line is never rewritten. A line that cannot be written fails the call instead of being lost.
 */
import { closeSync, constants, openSync, readFileSync, writeSync } from 'node:fs';
import { durationMs, globPattern } from '@cloudcall/core';

export type FrontEnd = 'cli' | 'mcp';

/** How a mutating call ended. */
export type Outcome = 'ok' | 'error' | 'refused' | 'declined';
export const OUTCOMES: readonly Outcome[] = ['ok', 'error', 'refused', 'declined'];

export interface AuditEntry {
  /** ISO 8601, when the call started. */
  time: string;
  front_end: FrontEnd;
  /**
   * Who made the call, as a non-secret id: the client key's name (static keys), a short hash of
   * the caller's token (token passthrough), or the local user (`local:NAME`).
   */
  caller: string;
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
  duration_ms: number;
}

/** The audit log can't be opened or written. */
export class AuditLogError extends Error {
  override name = 'AuditLogError';
}

export interface AuditLog {
  readonly path: string;
  /** Appends one line; throws an AuditLogError when it cannot be written whole. */
  append(entry: AuditEntry): void;
  close(): void;
}

/** Opens (creating when needed) the log for appending; throws an AuditLogError saying why not. */
export function openAuditLog(path: string): AuditLog {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
  } catch (error) {
    throw new AuditLogError(`audit log ${path} cannot be opened for appending: ${reason(error)}`);
  }
  return {
    path,
    append(entry) {
      const line = Buffer.from(`${JSON.stringify(entry)}\n`);
      let written: number;
      try {
        written = writeSync(fd, line);
      } catch (error) {
        throw new AuditLogError(`audit log ${path} could not be written: ${reason(error)}`);
      }
      if (written !== line.length) {
        throw new AuditLogError(
          `audit log ${path} could not be written: only ${written} of ${line.length} bytes fit`,
        );
      }
    },
    close() {
      try {
        closeSync(fd);
      } catch {
        // Already closed.
      }
    },
  };
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
 * The entries of a log that match a filter, oldest first. A line that is not an entry (a log
 * edited by hand) is counted in `skipped`, not fatal.
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
  const entries: AuditEntry[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (!line) continue;
    let entry: AuditEntry;
    try {
      entry = JSON.parse(line) as AuditEntry;
    } catch {
      skipped++;
      continue;
    }
    if (typeof entry?.time !== 'string' || typeof entry.tool !== 'string') {
      skipped++;
      continue;
    }
    if (filter.caller !== undefined && entry.caller !== filter.caller) continue;
    if (filter.since !== undefined && Date.parse(entry.time) < filter.since) continue;
    if (tools && !tools.some((pattern) => pattern.test(entry.tool))) continue;
    if (filter.outcomes?.length && !filter.outcomes.includes(entry.outcome)) continue;
    entries.push(entry);
  }
  return { entries, skipped };
}
