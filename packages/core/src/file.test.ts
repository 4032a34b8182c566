/**
 * readBoundedFile: what the apps read of a file a user names (a policy, client keys, a request
 * body, the CLI's contexts) is a regular file of bounded size; anything else is refused at once.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileReadError, readBoundedFile } from './file.js';

const dir = mkdtempSync(join(tmpdir(), 'cloudcall-file-'));

/** The FileReadError reading `path` throws. */
function refusal(path: string, max = 1024): FileReadError {
  try {
    readBoundedFile(path, max);
  } catch (error) {
    if (error instanceof FileReadError) return error;
    throw error;
  }
  throw new Error(`${path} was read`);
}

describe('readBoundedFile', () => {
  it('reads a regular file up to the bound, exactly', () => {
    const file = join(dir, 'exact.txt');
    writeFileSync(file, `é${'x'.repeat(1022)}`);
    expect(readBoundedFile(file, 1024)).toBe(`é${'x'.repeat(1022)}`);
    writeFileSync(file, '');
    expect(readBoundedFile(file, 1024)).toBe('');
  });

  it('refuses a file one byte over the bound, saying the bound', () => {
    const file = join(dir, 'over.txt');
    writeFileSync(file, 'x'.repeat(1025));
    expect(refusal(file)).toMatchObject({ reason: 'too-large', message: 'larger than 1 KiB' });
    writeFileSync(file, 'x'.repeat(2 * 1024 * 1024 + 1));
    expect(refusal(file, 2 * 1024 * 1024).message).toBe('larger than 2 MiB');
    expect(refusal(file, 1000).message).toBe('larger than 1000 bytes');
  });

  it('refuses /dev/zero, /dev/null and a directory without reading them', () => {
    expect(refusal('/dev/zero')).toMatchObject({
      reason: 'not-a-file',
      message: 'not a regular file (a device)',
    });
    expect(refusal('/dev/null').message).toBe('not a regular file (a device)');
    expect(refusal(dir)).toMatchObject({ reason: 'not-a-file', message: 'not a regular file (a directory)' });
  });

  it('refuses a FIFO with no writer at once, and through a link to it', () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const link = join(dir, 'pipe-link');
    symlinkSync(fifo, link);
    const started = Date.now();
    expect(refusal(fifo)).toMatchObject({ reason: 'not-a-file', message: 'not a regular file (a FIFO)' });
    expect(refusal(link).message).toBe('not a regular file (a FIFO)');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('stops one byte past the bound on a file whose size says 0 (/proc)', () => {
    // /proc/self/maps says 0 bytes and holds a few KiB.
    expect(refusal('/proc/self/maps', 16).reason).toBe('too-large');
    expect(readBoundedFile('/proc/self/maps', 1024 * 1024)).toContain('\n');
  });

  it('says the code when the file cannot be opened', () => {
    expect(refusal(join(dir, 'missing'))).toMatchObject({
      reason: 'unreadable',
      code: 'ENOENT',
      message: 'cannot be read (ENOENT)',
    });
  });
});
