import { describe, expect, it } from 'vitest';
import { showControls, wrapWords } from './text.js';

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

describe('showControls', () => {
  it.each([
    ['a\nb', 'a\\nb'],
    ['a\r\nb', 'a\\r\\nb'],
    ['a\tb', 'a\\tb'],
    ['\x1b[31mred\x1b[0m', '\\x1b[31mred\\x1b[0m'],
    ['nul\0', 'nul\\x00'],
    ['del\x7f', 'del\\x7f'],
    ['c1\x85\x9b', 'c1\\x85\\x9b'],
    ['abc\u202egnp.exe', 'abc\\u202egnp.exe'],
    ['\u2066x\u2069\u2067\u2068', '\\u2066x\\u2069\\u2067\\u2068'],
    ['\u200e\u200f\u061c\u202a\u202b\u202c\u202d', '\\u200e\\u200f\\u061c\\u202a\\u202b\\u202c\\u202d'],
    ['line\u2028para\u2029', 'line\\u2028para\\u2029'],
    ['zero\u200bwidth\ufeff', 'zero\\u200bwidth\\ufeff'],
    ['lone \ud800 surrogate', 'lone \\ud800 surrogate'],
    ['tag \u{e0001}', 'tag \\u{e0001}'],
  ])('shows %j as %j', (text, shown) => {
    expect(showControls(text)).toBe(shown);
  });

  it('leaves what shows as itself: letters of any script, emoji and their joiners, a backslash', () => {
    for (const text of ['web-1', '日本語の鍵', 'café', '👩‍👩‍👧', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', 'a\\nb', 'שלום', '']) {
      expect(showControls(text)).toBe(text);
    }
  });

  it('escapes each ASCII control alone and in printable text (DEL too), and lets the rest of ASCII be', () => {
    for (let code = 0; code < 0x80; code++) {
      const char = String.fromCharCode(code);
      const control = code < 0x20 || code === 0x7f;
      expect(showControls(char) !== char, `U+${code.toString(16)}`).toBe(control);
      expect(showControls(`name${char}`) !== `name${char}`).toBe(control);
    }
    expect(showControls('del\x7f')).toBe('del\\x7f');
  });

  it('gives text with no control character left, and changes nothing the second time', () => {
    const every = Array.from({ length: 0x3000 }, (_, code) => String.fromCharCode(code)).join('');
    const shown = showControls(every);
    const left =
      /[\p{Cc}\p{Zl}\p{Zp}\u061c\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;
    expect(left.exec(shown)?.[0]).toBeUndefined();
    expect(showControls(shown) === shown).toBe(true);
  });
});
