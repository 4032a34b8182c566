/**
 * A large audit log, made fast: whole, valid, chained lines (an intent and an outcome per call, as
 * the guard writes them, in the format docs/guard-rails.md describes), written in big blocks, and
 * the head file beside it. What the tests of `audit-list`'s bounded reading and of
 * `cloudcall audit verify` start from; 150 MiB takes a second or two.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';

export interface AuditLogShape {
  /** At least this many bytes. */
  bytes: number;
  /** The callers the calls are spread over, in turn. Default `key:ops`, `key:ci`. */
  callers?: readonly string[];
  /** The time of the first call (ms since the epoch); one second between calls. Default a day ago. */
  start?: number;
}

/** Writes the log at `path` (replacing it); returns its lines and the last line's seq and hash. */
export function writeAuditLog(
  path: string,
  shape: AuditLogShape,
): { lines: number; seq: number; hash: string } {
  const callers = shape.callers ?? ['key:ops', 'key:ci'];
  const start = shape.start ?? Date.now() - 86_400_000;
  const fd = openSync(path, 'w', 0o600);
  let prev = '0'.repeat(64);
  let seq = 0;
  let written = 0;
  let block: string[] = [];
  let blockBytes = 0;
  // About 1 KiB a line: the size of a call with a description among its arguments.
  const description = 'generated audit line '.repeat(36);
  const add = (fields: Record<string, unknown>) => {
    seq++;
    const text = JSON.stringify({ seq, prev, ...(seq === 1 ? { starts_file: true } : {}), ...fields });
    prev = createHash('sha256').update(text).digest('hex');
    block.push(text);
    blockBytes += Buffer.byteLength(text) + 1;
    if (blockBytes >= 4 * 1024 * 1024) flush();
  };
  const flush = () => {
    if (!block.length) return;
    const data = `${block.join('\n')}\n`;
    writeSync(fd, data);
    written += Buffer.byteLength(data);
    block = [];
    blockBytes = 0;
  };
  try {
    for (let call = 0; written + blockBytes < shape.bytes; call++) {
      const time = new Date(start + call * 1000).toISOString();
      const id = `00000000-0000-4000-8000-${call.toString(16).padStart(12, '0')}`;
      const common = {
        front_end: 'mcp',
        caller: callers[call % callers.length],
        rpc_id: call,
        tool: 'tag-create',
        args: { Name: `generated-${call}`, Description: description },
      };
      const request = { method: 'POST', path: '/v2/tags' };
      add({ phase: 'intent', time, call: id, ...common, request });
      add({
        time,
        call: id,
        ...common,
        target: { kind: 'tag', name: `generated-${call}` },
        outcome: 'ok',
        requests: [request],
        request_id: `req-${call}`,
        duration_ms: 12,
      });
    }
    flush();
  } finally {
    closeSync(fd);
  }
  writeFileSync(`${path}.head`, `${`seq ${seq} sha256 ${prev}`.padEnd(99)}\n`, { mode: 0o600 });
  return { lines: seq, seq, hash: prev };
}
