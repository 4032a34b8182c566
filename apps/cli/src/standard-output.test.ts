/**
 * The CLI's standard output without Node's stream: written whole to the descriptor, handed to a
 * stream when the descriptor is a non-blocking pipe that is full, quiet when the reader went away.
 * Real descriptors: a FIFO on disk (mkfifo), a file, /dev/null.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { isTerminal, standardOutput } from './standard-output.js';

const open: number[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const fd of open.splice(0)) {
    try {
      closeSync(fd);
    } catch {}
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A FIFO with both ends open without blocking: [read end, write end]. */
function fifo(): [number, number] {
  const dir = mkdtempSync(join(tmpdir(), 'cloudcall-stdout-'));
  dirs.push(dir);
  const path = join(dir, 'fifo');
  execFileSync('mkfifo', [path]);
  const read = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const write = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  open.push(read, write);
  return [read, write];
}

/** Writes to a non-blocking descriptor until it is full (EAGAIN); returns how much it took. */
function fill(fd: number): number {
  const block = Buffer.alloc(4096, 'x');
  let total = 0;
  for (;;) {
    try {
      total += writeSync(fd, block);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return total;
      throw error;
    }
  }
}

/** Everything a non-blocking read end holds now. */
function drain(fd: number, limit = Number.POSITIVE_INFINITY): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  const buffer = Buffer.alloc(65_536);
  while (total < limit) {
    let got: number;
    try {
      got = readSync(fd, buffer, 0, Math.min(buffer.length, limit - total), null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') break;
      throw error;
    }
    if (got === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, got)));
    total += got;
  }
  return Buffer.concat(chunks);
}

/** A stream that keeps what it is given. */
function recorder(): { stream: Writable; taken: Buffer[] } {
  const taken: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      taken.push(Buffer.from(chunk));
      done();
    },
  });
  return { stream, taken };
}

const notClosed = () => {
  throw new Error('onClosed called');
};

describe('isTerminal', () => {
  it('knows a pipe, a file, /dev/null and a closed descriptor are no terminal', () => {
    const [read, write] = fifo();
    expect(isTerminal(read)).toBe(false);
    expect(isTerminal(write)).toBe(false);
    const file = openSync(join(dirs[0] as string, 'file'), 'w');
    open.push(file);
    expect(isTerminal(file)).toBe(false);
    const devNull = openSync('/dev/null', 'r');
    open.push(devNull);
    expect(isTerminal(devNull)).toBe(false);
    const closed = openSync('/dev/null', 'r');
    closeSync(closed);
    expect(isTerminal(closed)).toBe(false);
  });
});

describe('standardOutput', () => {
  it('writes each text whole to the descriptor before returning, without a stream', () => {
    const [read, write] = fifo();
    const { stream, taken } = recorder();
    const out = standardOutput(notClosed, { terminal: false, fd: write, stream: () => stream });
    out('one ');
    out('two — ünïcode\n');
    expect(drain(read).toString()).toBe('one two — ünïcode\n');
    expect(taken).toEqual([]);
  });

  it('hands a full non-blocking pipe to the stream: what did not fit, then everything after', () => {
    const [read, write] = fifo();
    const capacity = fill(write);
    // Room for part of the next text: the descriptor takes what fits and refuses the rest.
    const freed = drain(read, 8192);
    expect(freed.length).toBe(8192);
    const { stream, taken } = recorder();
    const out = standardOutput(notClosed, { terminal: false, fd: write, stream: () => stream });
    const text = 'a'.repeat(5000) + 'b'.repeat(5000) + 'c'.repeat(5000);
    out(text);
    out('after\n');
    const inPipe = drain(read).subarray(capacity - freed.length);
    const inStream = Buffer.concat(taken);
    expect(inStream.length).toBeGreaterThan(0);
    // Nothing lost, nothing twice, in order: the pipe's part, then the stream's.
    expect(Buffer.concat([inPipe, inStream]).toString()).toBe(`${text}after\n`);
  });

  it('calls onClosed when the reader went away (EPIPE), and writes nothing more', () => {
    const [read, write] = fifo();
    closeSync(read);
    open.splice(open.indexOf(read), 1);
    let closed = 0;
    const { stream, taken } = recorder();
    const out = standardOutput(() => closed++, { terminal: false, fd: write, stream: () => stream });
    out('lost\n');
    expect(closed).toBe(1);
    expect(taken).toEqual([]);
  });

  it('throws any other write error', () => {
    const closed = openSync('/dev/null', 'w');
    closeSync(closed);
    const out = standardOutput(notClosed, { terminal: false, fd: closed, stream: () => recorder().stream });
    expect(() => out('x')).toThrow(expect.objectContaining({ code: 'EBADF' }));
  });

  it('writes to a terminal through the stream', () => {
    const [read, write] = fifo();
    const { stream, taken } = recorder();
    const out = standardOutput(notClosed, { terminal: true, fd: write, stream: () => stream });
    out('to the terminal\n');
    expect(Buffer.concat(taken).toString()).toBe('to the terminal\n');
    expect(drain(read).length).toBe(0);
  });
});
