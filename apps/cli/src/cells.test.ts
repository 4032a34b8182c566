/**
 * Tables are measured in terminal cells: a double-width name (Japanese, an emoji) keeps the
 * columns after it in line, and a long one is cut between whole characters.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { formatResult } from './output.js';
import { cutToCells } from './table.js';

describe('table cells', () => {
  it('aligns the columns after double-width names', async () => {
    const table = await formatResult(
      {
        ssh_keys: [
          { id: 1, name: 'plain', fingerprint: 'aa:bb' },
          { id: 2, name: '日本語の鍵', fingerprint: 'cc:dd' },
          { id: 3, name: '🔑 key', fingerprint: 'ee:ff' },
          { id: 4, name: 'café', fingerprint: '00:11' },
        ],
      },
      { format: 'table' },
    );
    const lines = table.trimEnd().split('\n');
    // Where the Fingerprint column starts, in cells: the same on every line.
    const starts = lines.map((line) =>
      stringWidth(line.slice(0, line.search(/(Fingerprint|[0-9a-f]{2}:[0-9a-f]{2})$/))),
    );
    expect(new Set(starts).size).toBe(1);
    expect(lines[2]).toBe('2   日本語の鍵  cc:dd');
  });

  it('cuts a long cell to its width in cells, never inside a character', () => {
    const cut = cutToCells('日本語'.repeat(20), 10);
    expect(stringWidth(cut)).toBeLessThanOrEqual(10);
    expect(cut).toBe('日本語日…');
    expect(cutToCells('👩‍👩‍👧'.repeat(10), 5)).toBe('👩‍👩‍👧👩‍👩‍👧…');
    expect(cutToCells('short', 10)).toBe('short');
  });
});
