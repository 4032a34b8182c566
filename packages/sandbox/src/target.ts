/**
 * The raw request target, checked before anything parses it. A URL parser normalises paths: a
 * `..` segment (or `%2e%2e`, `.%2E`...) removes the segment before it, `.` disappears and `\`
 * counts as `/`. Parsed that way, `DELETE /v2/databases/{id}/users/..` reached the cluster itself
 * and deleted it. So the sandbox routes exactly the path it was sent, and refuses with a 400 a
 * target that a parser would change or could not decode.
 */
import { badRequest } from './http.js';

export interface Target {
  /** The path as sent (still percent-encoded). */
  path: string;
  query: URLSearchParams;
}

/** Printable ASCII without `#` or `\`: what a request target may hold; the rest must be %-encoded. */
const TARGET_CHARACTERS = /^[\x21\x22\x24-\x5b\x5d-\x7e]*$/;
const BAD_PERCENT = /%(?![0-9a-fA-F]{2})/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A segment as shown in an error message: quoted, and cut if long. */
const show = (segment: string) =>
  JSON.stringify(segment.length > 64 ? `${segment.slice(0, 64)}...` : segment);

/**
 * Splits an origin-form request target (`/path?query`) into the path as sent and its query, or
 * throws the platform's 400 saying what is wrong with it.
 */
export function parseTarget(raw: string): Target {
  if (!raw.startsWith('/')) throw badRequest('The request target must be a path starting with "/".');
  if (!TARGET_CHARACTERS.test(raw)) {
    throw badRequest(
      'The request target holds a character that must be percent-encoded (a control character, a space, "#", "\\" or a non-ASCII character).',
    );
  }
  if (BAD_PERCENT.test(raw)) {
    throw badRequest('The request target holds a "%" that does not start a percent-encoded byte (%XX).');
  }
  const queryAt = raw.indexOf('?');
  const path = queryAt === -1 ? raw : raw.slice(0, queryAt);
  for (const segment of path.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw badRequest(`The path segment ${show(segment)} is not valid percent-encoded UTF-8.`);
    }
    if (decoded === '.' || decoded === '..') {
      throw badRequest(
        `The path holds the dot segment ${show(segment)}, which would change which resource the path names.`,
      );
    }
    if (CONTROL.test(decoded)) {
      throw badRequest(`The path segment ${show(segment)} holds a control character.`);
    }
  }
  return { path, query: new URLSearchParams(queryAt === -1 ? '' : raw.slice(queryAt + 1)) };
}
