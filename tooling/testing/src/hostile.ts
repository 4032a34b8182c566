/**
 * Values that would change which resource a request names if they filled a path segment as they
 * are: empty, dot segments (plain, percent-encoded once and twice), slashes and backslashes (plain
 * and encoded), control characters and a lone surrogate. Every suite that checks path arguments
 * uses this one list.
 */
export const PATH_HOSTILE: readonly string[] = [
  '',
  '.',
  '..',
  '%2e',
  '%2e%2e',
  '%2E.',
  '%252e%252e',
  '..%2f',
  '..%2Fdroplets',
  '../..',
  'a/b',
  '%2F',
  'a\\b',
  'a\nb',
  'a\r\nb',
  'a\u0000b',
  'a\u007fb',
  '\ud800',
];
