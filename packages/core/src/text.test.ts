import { describe, expect, it } from 'vitest';
import { wrapWords } from './text.js';

describe('wrapWords', () => {
  it('breaks at the last space that keeps a line within the width', () => {
    expect(wrapWords('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    expect(wrapWords('one two', 7)).toEqual(['one two']);
  });
  it('gives a word longer than the width a line of its own, unbroken', () => {
    expect(wrapWords('a https://example.com/a/long/path b', 10)).toEqual([
      'a',
      'https://example.com/a/long/path',
      'b',
    ]);
  });
  it('gives no line for no text', () => {
    expect(wrapWords('', 10)).toEqual([]);
  });
});
