/**
 * docs/doctl.md's cheat sheet, run: every cloudcall line of its table, in order, as written, against
 * one sandbox (the clock moved ten minutes before each line, so what the line before started has
 * finished). The table is read from the page, so the page and this test cannot drift apart.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configPath, writeConfig } from './config.js';
import { EXIT } from './program.js';
import { inlineRunner } from './testing/inline.js';

const PAGE = fileURLToPath(new URL('../../../docs/doctl.md', import.meta.url));

/** The rows of the page's first table under "## Cheat sheet": [doctl, cloudcall]. */
export function cheatSheet(markdown: string): [string, string][] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Cheat sheet'));
  if (!section) throw new Error('docs/doctl.md has no "## Cheat sheet"');
  return section
    .split('\n')
    .filter((line) => /^\|\s*`/.test(line))
    .map((line) => {
      const cells = [...line.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
      return [cells[0] ?? '', cells[1] ?? ''];
    });
}

/** A command line's words, as a shell splits them: spaces, and "..." or '...' quoted words. */
export function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map(
    (match) => match[1] ?? match[2] ?? match[3] ?? '',
  );
}

const cli = inlineRunner();
const TOKEN = (letter: string) => `dop_v1_${letter.repeat(64)}`;

beforeAll(() => {
  // The contexts the auth lines switch between and remove (auth init needs the real platform).
  writeConfig(configPath({ HOME: cli.home, XDG_CONFIG_HOME: join(cli.home, 'config') }), {
    contexts: { work: { token: TOKEN('a') }, personal: { token: TOKEN('b') } },
    current: 'personal',
  });
});
afterAll(() => cli.close());

const rows = cheatSheet(readFileSync(PAGE, 'utf8'));

describe('docs/doctl.md cheat sheet', () => {
  it('has doctl and cloudcall on every row', () => {
    expect(rows.length).toBeGreaterThan(25);
    for (const [doctl, cloudcall] of rows) {
      expect(doctl).toMatch(/^doctl /);
      expect(cloudcall).toMatch(/^cloudcall /);
    }
  });

  it('runs every cloudcall line, in order, against the sandbox', async () => {
    for (const [, line] of rows) {
      await cli.advance(600_000);
      const [, ...args] = words(line);
      const run = await cli.run(['--sandbox', ...args]);
      expect(run.code, `${line}\n${run.stderr}`).toBe(EXIT.ok);
    }
    // What the lines did, as doctl would have done it.
    const vms = await cli.run(['--sandbox', 'vm', 'list']);
    expect((vms.json as { droplets: unknown[] }).droplets).toEqual([]);
    const firewall = await cli.run(['--sandbox', 'firewall', 'get', 'web-fw']);
    const rules = (firewall.json as { firewall: { inbound_rules: unknown[] } }).firewall.inbound_rules;
    expect(rules).toEqual([
      { protocol: 'tcp', ports: '22', sources: { addresses: ['0.0.0.0/0', '::/0'] } },
      { protocol: 'tcp', ports: '80', sources: { tags: ['web'] } },
      { protocol: 'udp', ports: '53', sources: { addresses: ['0.0.0.0/0'] } },
    ]);
    const user = await cli.run(['--sandbox', 'db-cluster-get-user', 'pg-1', '--name', 'alice']);
    expect((user.json as { user: { name: string } }).user.name).toBe('alice');
    const cluster = await cli.run(['--sandbox', 'db-cluster-get', 'pg-1']);
    // No --version given: the newest the platform offers.
    const versions = await cli.run([
      '--sandbox',
      'db-cluster-list-options',
      '--query',
      'options.pg.versions',
    ]);
    expect((cluster.json as { database: { version: string } }).database.version).toBe(
      (versions.json as string[]).at(-1),
    );
    const auth = await cli.run(['auth', 'list', '-o', 'json']);
    expect((auth.json as { contexts: { name: string; current: boolean }[] }).contexts).toEqual([
      expect.objectContaining({ name: 'work', current: true }),
    ]);
  });

  it('splits words as a shell does', () => {
    expect(words(`a --x "p q" 'r s' t`)).toEqual(['a', '--x', 'p q', 'r s', 't']);
  });
});
