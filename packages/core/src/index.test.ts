/**
 * The public entry of @cloudcall/core, pinned: what it exports at run time is listed here, so a
 * new export (or a lost one) is a change someone makes on purpose, with the documentation in
 * docs/library.md. The helpers the cloudcall packages share are `@cloudcall/core/internal`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as credentials from './credentials.js';
import * as core from './index.js';
import * as internal from './internal.js';

const PUBLIC = [
  // The client and its options.
  'ApiClient',
  'createClient',
  'createClientFactory',
  'DEFAULT_BASE_URL',
  'ReadOnlyViolationError',
  'VERSION',
  // Errors.
  'ApiError',
  'CancelledError',
  'ClientApiError',
  'CloudcallError',
  'InputError',
  'NetworkError',
  'ServerApiError',
  'TimeoutError',
  'UnexpectedResponseError',
  'WaitFailedError',
  'WaitTimeoutError',
  // The tool contract.
  'annotations',
  'bindTools',
  'defineTool',
  'parseArgs',
  'returns',
  'runTool',
  'sendRequest',
  'toolListing',
  // Pagination, rate limit information, secrets in results.
  'paginate',
  'rateLimitNote',
  'HIDDEN',
  'maskSecrets',
];

describe('@cloudcall/core', () => {
  it('exports exactly the public API at run time', () => {
    expect(Object.keys(core).sort()).toEqual([...PUBLIC].sort());
  });

  it('keeps the internal helpers out of the public entry, and each in one entry only', () => {
    const publicNames = new Set(Object.keys(core));
    const internalNames = Object.keys(internal);
    expect(internalNames.length).toBeGreaterThan(0);
    expect(internalNames.filter((name) => publicNames.has(name))).toEqual([]);
    expect(
      Object.keys(credentials).filter((name) => name !== 'DEFAULT_BASE_URL' && publicNames.has(name)),
    ).toEqual([]);
  });

  it('declares the entries in its manifest, and documents each public name in docs/library.md', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(Object.keys(manifest.exports)).toEqual(['.', './credentials', './internal', './package.json']);
    const guide = readFileSync(new URL('../../../docs/library.md', import.meta.url), 'utf8');
    const section = guide.slice(guide.indexOf('## The public API of @cloudcall/core'));
    expect(section.length).toBeLessThan(guide.length);
    for (const name of PUBLIC) expect(section, name).toContain(`\`${name}`);
    expect(section).toContain('@cloudcall/core/internal');
  });
});
