/**
 * The audit log's line readers against the plain split of the same bytes (property-based): any
 * content, any chunk size, backwards and forwards; and a line budget that cuts a line yields none
 * of it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linesBackward, linesForward } from './audit-lines.js';

const dir = mkdtempSync(join(tmpdir(), 'cloudcall-audit-lines-'));

/** The lines of `text` as the readers must give them: the last unterminated when no newline ends it. */
function expected(text: string): { text: string; terminated: boolean }[] {
  if (!text) return [];
  const parts = text.split('\n');
  const ended = text.endsWith('\n');
  if (ended) parts.pop();
  return parts.map((part, index) => ({ text: part, terminated: ended || index < parts.length - 1 }));
}

async function read(text: string, chunk: number, maxBytes?: number) {
  const path = join(dir, 'lines.log');
  writeFileSync(path, text);
  const handle = await open(path, 'r');
  try {
    const size = (await handle.stat()).size;
    const backward: { text: string; terminated: boolean; offset: number }[] = [];
    const lines = linesBackward(handle, size, { chunk, ...(maxBytes !== undefined ? { maxBytes } : {}) });
    let next = await lines.next();
    while (!next.done) {
      backward.push({
        text: next.value.bytes.toString(),
        terminated: next.value.terminated,
        offset: next.value.offset,
      });
      next = await lines.next();
    }
    const forward: { text: string; terminated: boolean; number: number }[] = [];
    for await (const line of linesForward(handle, { chunk })) {
      forward.push({ text: line.bytes.toString(), terminated: line.terminated, number: line.number });
    }
    return { backward: backward.reverse(), forward, reachedStart: next.value.reachedStart };
  } finally {
    await handle.close();
  }
}

describe('the line readers', () => {
  it('give the lines of any content, backwards and forwards, whatever the chunk', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('a', 'b', '\n', '{'), { maxLength: 80 }).map((chars) => chars.join('')),
        fc.integer({ min: 1, max: 19 }),
        async (text, chunk) => {
          const { backward, forward, reachedStart } = await read(text, chunk);
          const want = expected(text);
          expect(backward.map(({ text, terminated }) => ({ text, terminated }))).toEqual(want);
          expect(forward.map(({ text, terminated }) => ({ text, terminated }))).toEqual(want);
          expect(forward.map((line) => line.number)).toEqual(want.map((_, index) => index + 1));
          // Offsets: where each line starts.
          let offset = 0;
          for (const [index, line] of want.entries()) {
            expect(backward[index]?.offset).toBe(offset);
            offset += line.text.length + 1;
          }
          expect(reachedStart).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('yield no part of a line the byte budget cuts, and say the start was not reached', async () => {
    // The last 14 bytes hold "second" whole (with the newline before it), the last 13 do not.
    const whole = await read('first line\nsecond\nthird\n', 4, 14);
    expect(whole.backward.map((line) => line.text)).toEqual(['second', 'third']);
    expect(whole.reachedStart).toBe(false);
    const cut = await read('first line\nsecond\nthird\n', 4, 13);
    expect(cut.backward.map((line) => line.text)).toEqual(['third']);
  });
});
