/**
 * A client key's name is its caller id on audit lines, and audit-list shows a key the lines of
 * its caller id: a name spelled like an id the apps give other callers (`local:alice` for the
 * local user, `cli:work` for a CLI context, `token:...` for a passed-through token, `key:...` for
 * an unnamed key) would read their lines from a shared audit file, so it is refused at start.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readClientKeys } from './service-config.js';
import { exitOf } from './testing/main.js';

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

describe('a client-keys file that is not a small regular file', () => {
  it('is refused without being read: /dev/zero, a directory, a file over 1 MiB', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudcall-keys-'));
    const large = join(dir, 'large');
    writeFileSync(large, `${digest('k1')} alice\n${'#'.repeat(1024 * 1024)}\n`);
    for (const [file, why] of [
      ['/dev/zero', 'not a regular file (a device); give a text file of key digests'],
      [dir, 'not a regular file (a directory); give a text file of key digests'],
      [large, 'larger than 1 MiB; give a text file of key digests'],
      [join(dir, 'missing'), 'cannot be read (ENOENT)'],
    ] as const) {
      expect(() => readClientKeys(file), file).toThrow(`--client-keys ${file}: ${why}`);
    }
    // Just under the bound is read.
    writeFileSync(large, `${digest('k1')} alice\n${'#'.repeat(1024 * 1024 - 100)}\n`);
    expect(readClientKeys(large).map((key) => key.name)).toEqual(['alice']);
  });

  it('stops the server at start on a FIFO with no writer, instead of hanging', async () => {
    const fifo = join(mkdtempSync(join(tmpdir(), 'cloudcall-keys-')), 'keys.fifo');
    execFileSync('mkfifo', [fifo]);
    const args = [
      '--transport',
      'http',
      '--port',
      '0',
      '--sandbox',
      '--auth',
      'static',
      '--client-keys',
      fifo,
    ];
    const refused = await exitOf(args);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `--client-keys ${fifo}: not a regular file (a FIFO); give a text file of key digests`,
    );
    expect(refused.stderr).not.toMatch(/listening on/);
  }, 30_000);
});
