/**
 * Checks an audit log's chain (`cloudcall audit verify`): every line names the hash and seq of
 * the line before it, so a line changed, removed or inserted anywhere but at the end breaks a link,
 * and the head file (`FILE.head`, the last line's seq and hash) covers the end. A rotated set is
 * checked as one chain: each file's first line names the last line of the file before it. Torn
 * lines (a crash, a full disk) are reported as such: they are hashed like any line, so they
 * break nothing. Reads each file forwards a chunk at a time.
 *
 * What it cannot see: someone who rewrites every line from the one they change to the end, and the
 * head file, with the hashes recomputed. Keeping the last hash it prints somewhere else (another
 * machine) catches that too.
 */
import { type FileHandle, open } from 'node:fs/promises';
import { AuditLogError, readHead } from './audit.js';
import { GENESIS, lineHash, lineInfo, linesForward } from './audit-lines.js';

/** A place in one file of the set, and what is wrong or worth knowing there. */
export interface AuditFinding {
  file: string;
  /** 1-based. */
  line: number;
  message: string;
}

export interface AuditVerification {
  /** No problem found: no line changed, removed or inserted. */
  intact: boolean;
  /** Breaks of the chain, first first. */
  problems: AuditFinding[];
  /** What does not break it: torn lines, lines from before the chain, a log continued from files not given. */
  notes: AuditFinding[];
  /** The files as checked, oldest first (ordered by their first line's seq). */
  files: { path: string; lines: number }[];
  /** The last line's seq and hash: keep it elsewhere to catch a rewrite of the whole tail. */
  last?: { seq: number; sha256: string };
}

/** A line as the check needs it. */
interface Line {
  file: string;
  number: number;
  hash: string;
  bytes: number;
  parses: boolean;
  terminated: boolean;
  seq?: number;
  prev?: string;
  startsFile: boolean;
  afterTorn?: number;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

async function openToRead(path: string): Promise<FileHandle> {
  try {
    const handle = await open(path, 'r');
    if (!(await handle.stat()).isFile()) {
      await handle.close();
      throw new AuditLogError(`audit log ${path} cannot be read: it is not a file`);
    }
    return handle;
  } catch (error) {
    if (error instanceof AuditLogError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new AuditLogError(
      `audit log ${path} cannot be read: ${code === 'ENOENT' ? 'it does not exist' : (error as Error).message}`,
    );
  }
}

/** Where a file goes in a rotated set: by its first line's seq; a log from before the chain first. */
async function orderKey(path: string): Promise<number> {
  const handle = await openToRead(path);
  try {
    const first = await linesForward(handle, { chunk: 64 * 1024 }).next();
    if (first.done) return Number.POSITIVE_INFINITY;
    return lineInfo(first.value.bytes).seq ?? -1;
  } finally {
    await handle.close();
  }
}

async function* linesOf(paths: readonly string[]): AsyncGenerator<Line> {
  for (const path of paths) {
    const handle = await openToRead(path);
    try {
      for await (const raw of linesForward(handle)) {
        const info = lineInfo(raw.bytes);
        yield {
          file: path,
          number: raw.number,
          hash: lineHash(raw.bytes),
          bytes: raw.bytes.length,
          parses: info.value !== undefined,
          terminated: raw.terminated,
          ...(info.seq !== undefined ? { seq: info.seq } : {}),
          ...(info.prev !== undefined ? { prev: info.prev } : {}),
          startsFile: info.startsFile,
          ...(info.afterTorn !== undefined ? { afterTorn: info.afterTorn } : {}),
        };
      }
    } finally {
      await handle.close();
    }
  }
}

/**
 * Checks the chain of one log, or of a rotated set of its files (any order: they are put in
 * the chain's). Throws an AuditLogError when a file cannot be read.
 */
export async function verifyAudit(paths: readonly string[]): Promise<AuditVerification> {
  const keys = await Promise.all(paths.map(async (path) => ({ path, key: await orderKey(path) })));
  const files = keys.sort((a, b) => a.key - b.key).map(({ path }) => path);
  const problems: AuditFinding[] = [];
  const notes: AuditFinding[] = [];
  const reported = new Set<string>();
  const problem = (at: { file: string; number: number }, message: string) => {
    const key = `${at.file}\0${at.number}`;
    if (reported.has(key)) return;
    reported.add(key);
    problems.push({ file: at.file, line: at.number, message });
  };
  const counts = new Map(files.map((path) => [path, 0]));

  /** The line before in the chain, and the one before it; with the seq each has or is taken to have. */
  let before: (Line & { seqOf: number }) | undefined;
  let beforeThat: Line | undefined;
  let chained = false;
  let unchained: { file: string; from: number; to: number } | undefined;
  /** Set when the current line is known changed: the next line's link to it cannot match. */
  let skipLink = false;

  const check = (line: Line, next: Line | undefined) => {
    counts.set(line.file, line.number);
    // A whole line with no seq is from before the chain (0); a torn one's is the line before's plus one.
    const seqOf = line.seq ?? (line.parses ? 0 : (before?.seqOf ?? 0) + 1);
    const advance = () => {
      beforeThat = before;
      before = { ...line, seqOf };
    };
    if (!line.parses && line.bytes > 0) {
      const marked = next?.afterTorn === line.bytes;
      notes.push({
        file: line.file,
        line: line.number,
        message: line.terminated
          ? `torn: ${line.bytes} bytes of a line cut short (a crash or a full disk)${marked ? ', set apart by the next line' : ''}`
          : `torn or still being written: the file does not end with a newline (${line.bytes} bytes)`,
      });
    }
    // Lines from before the chain: only at the start of the oldest file.
    if (line.parses && line.seq === undefined && line.prev === undefined && !chained) {
      if (unchained) unchained.to = line.number;
      else unchained = { file: line.file, from: line.number, to: line.number };
      advance();
      return;
    }
    const wasChained = chained;
    chained = true;
    if (!before) {
      if (!line.parses) {
        advance();
        return;
      }
      if (!line.startsFile) {
        problem(
          line,
          'lines before it were removed: it names a line before it, and it does not start the log',
        );
      } else if (line.prev !== GENESIS) {
        notes.push({
          file: line.file,
          line: line.number,
          message: `continues a log whose last line was seq ${(line.seq ?? 1) - 1} (sha256 ${line.prev}), not given: give the rotated files too to check the join`,
        });
      } else if (line.seq !== 1) {
        problem(line, `changed: it starts the log, so its seq must be 1, not ${line.seq}`);
      }
      advance();
      return;
    }
    if (skipLink) {
      skipLink = false;
      advance();
      return;
    }
    // A torn line too short to show its link: its successor's link to it is still checked.
    if (!line.parses && line.prev === undefined) {
      advance();
      return;
    }
    const join = line.number === 1;
    if (join && !wasChained && line.startsFile && line.prev === GENESIS) {
      notes.push({
        file: line.file,
        line: line.number,
        message: `starts a new chain: ${before.file} was written before the chain`,
      });
      advance();
      return;
    }
    const expectedSeq = before.seqOf + 1;
    if (line.prev === before.hash) {
      if (line.seq !== undefined && line.seq !== expectedSeq) {
        problem(line, `changed: its seq is ${line.seq}, not ${expectedSeq}`);
        skipLink = true;
      } else if (join && !line.startsFile) {
        problem(line, 'changed: it continues the file before, yet does not say it starts a file');
        skipLink = true;
      }
      advance();
      return;
    }
    const where = join ? ` (the join with ${before.file})` : '';
    if (next?.prev !== undefined && next.prev === before.hash) {
      problem(line, `inserted${where}: the next line names the line before it`);
      // The line is not the chain's: the next one links to the one before it.
      return;
    }
    if (beforeThat && line.prev === beforeThat.hash && !join) {
      problem(before, `inserted: line ${line.number} names the line before it`);
      advance();
      return;
    }
    if (line.seq !== undefined && line.seq > expectedSeq) {
      const missing = line.seq - expectedSeq;
      problem(
        line,
        join
          ? `${plural(missing, 'line')} before it removed: it does not continue ${before.file} (line ${before.number}, seq ${before.seqOf}), or a file of the set is missing`
          : `${plural(missing, 'line')} before it removed (seq ${expectedSeq}${missing > 1 ? `-${line.seq - 1}` : ''})`,
      );
      advance();
      return;
    }
    if (next && next.number !== 1 && next.prev !== undefined && next.prev !== line.hash) {
      problem(line, 'changed: neither the line before it nor the line after it match its chain');
      skipLink = true;
      advance();
      return;
    }
    problem(
      before,
      `changed: line ${line.number}${join ? ` of ${line.file}` : ''} names another hash for it`,
    );
    advance();
  };

  let held: Line | undefined;
  for await (const line of linesOf(files)) {
    if (held) check(held, line);
    held = line;
  }
  if (held) check(held, undefined);

  if (unchained) {
    notes.unshift({
      file: unchained.file,
      line: unchained.from,
      message: `lines ${unchained.from}-${unchained.to} were written before the chain: not covered`,
    });
  }
  const lastFile = files[files.length - 1];
  const last = before as (Line & { seqOf: number }) | undefined;
  if (lastFile !== undefined && last && chained) {
    const head = await readHead(lastFile);
    if (!head) {
      notes.push({
        file: last.file,
        line: last.number,
        message: `no head file (${lastFile}.head): the end of the log is not checked`,
      });
    } else if (head.hash !== last.hash) {
      if (head.seq > last.seqOf) {
        problem(
          last,
          `${plural(head.seq - last.seqOf, 'line')} after it removed: the head file names seq ${head.seq}`,
        );
      } else if (head.seq === last.seqOf) {
        problem(last, 'changed: the head file names another hash for it');
      } else {
        const number = last.number - (last.seqOf - head.seq) + 1;
        problem(
          { file: last.file, number: Math.max(1, number) },
          `appended after the head file was last written (seq ${head.seq}): added by hand, or by a writer killed between the two`,
        );
      }
    }
  }
  return {
    intact: problems.length === 0,
    problems,
    notes,
    files: files.map((path) => ({ path, lines: counts.get(path) ?? 0 })),
    ...(last && chained ? { last: { seq: last.seqOf, sha256: last.hash } } : {}),
  };
}
