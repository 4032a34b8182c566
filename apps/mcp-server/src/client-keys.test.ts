/**
 * A client key's name is its caller id on audit lines, and audit-list shows a key the lines of
 * its caller id: a name spelled like an id the apps give other callers (`local:alice` for the
 * local user, `cli:work` for a CLI context, `token:...` for a passed-through token, `key:...` for
 * an unnamed key) would read their lines from a shared audit file, so it is refused at start.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClientKeys } from './service-config.js';

const digest = (key: string) => createHash('sha256').update(key).digest('hex');

function keysFile(lines: string[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'cloudcall-keys-')), 'keys');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('client key names', () => {
  it.each(['local:alice', 'LOCAL:alice', 'cli:work', 'token:0123456789ab', 'key:0123456789ab'])(
    'refuses %s, a caller id the apps give another caller',
    (name) => {
      const file = keysFile([`${digest('k1')} ${name}`]);
      expect(() => readClientKeys(file)).toThrow(/line 1: a key's name may not start with \w+:/);
    },
  );

  it('takes other names, with a colon inside too, and names an unnamed key by its digest', () => {
    const file = keysFile([`${digest('k1')} alice`, `${digest('k2')} team:ops`, digest('k3')]);
    expect(readClientKeys(file).map((key) => key.name)).toEqual([
      'alice',
      'team:ops',
      `key:${digest('k3').slice(0, 12)}`,
    ]);
  });
});
