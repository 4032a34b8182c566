import { describe, expect, it } from 'vitest';
import { globPattern } from './names.js';

describe('globPattern', () => {
  it('matches a line break, a line separator and any other character with * and ?', () => {
    // A resource named so must not slip past the rule name:web* (protection rules use these globs).
    for (const name of ['web\nprod', 'web\r\n', 'web\u2028x', 'web\u2029', 'web']) {
      expect(globPattern('web*').test(name), JSON.stringify(name)).toBe(true);
    }
    expect(globPattern('a?b').test('a\nb')).toBe(true);
    expect(globPattern('a?b').test('a😀b')).toBe(true);
    expect(globPattern('a?b').test('ab')).toBe(false);
  });

  it('takes nothing else as special, and matches the whole text', () => {
    expect(globPattern('db.main').test('db.main')).toBe(true);
    expect(globPattern('db.main').test('dbxmain')).toBe(false);
    expect(globPattern('(a|b)+[c]').test('(a|b)+[c]')).toBe(true);
    expect(globPattern('web').test('web\n')).toBe(false);
    expect(globPattern('web').test('xweb')).toBe(false);
  });
});
