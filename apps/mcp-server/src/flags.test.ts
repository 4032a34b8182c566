/**
 * One table of flags (flags.ts) makes the parser, --help, the variables and the docs page: the
 * built server's --help is the table's, names every flag the parser takes and no other, and the
 * committed docs/mcp-server-flags.md is what the table gives now.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import packageJson from '../package.json' with { type: 'json' };
import { envName, FLAGS, HTTP_ONLY, usage } from './flags.js';
import { flagsPage } from './flags-doc.js';
import { exitOf, killAll } from './testing/main.js';

afterEach(killAll);

/** The long flags a help text lists in its Options section. */
function helpFlags(help: string): string[] {
  const options = help.slice(help.indexOf('\nOptions:\n'), help.indexOf('\nEnvironment:\n'));
  return [...options.matchAll(/^ {2}(?:-\w, )?--([a-z-]+)/gm)].map((match) => match[1] as string);
}

describe('the flags table', () => {
  it('is what --help shows, and --help lists every flag the parser takes', async () => {
    // Every flag at once, each with a value where it takes one: the parser is strict, so one it
    // does not know would stop it with exit 2 before --help is answered.
    const everyFlag = Object.entries(FLAGS).flatMap(([name, flag]) =>
      name === 'help' ? [] : flag.type === 'string' ? [`--${name}`, 'x'] : [`--${name}`],
    );
    const result = await exitOf([...everyFlag, '--help']);
    expect(result.stderr).toBe(usage(packageJson.version));
    expect(result.code).toBe(0);
    expect(helpFlags(result.stderr)).toEqual(Object.keys(FLAGS));
  });

  it('refuses a flag the table does not have, with the help', async () => {
    const result = await exitOf(['--no-such-flag']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown option '--no-such-flag'");
    expect(helpFlags(result.stderr)).toEqual(Object.keys(FLAGS));
  });

  it('names each flag in the help once, and each HTTP-only one in the environment section', () => {
    const help = usage('0.0.0');
    for (const name of Object.keys(FLAGS)) expect(help.split(`--${name} `).length, name).toBeGreaterThan(1);
    const environment = help.slice(help.indexOf('\nEnvironment:\n'));
    for (const name of HTTP_ONLY) expect(environment, name).toContain(`--${name}`);
    expect(envName('read-only')).toBe('CLOUDCALL_READ_ONLY');
  });

  it('is what docs/mcp-server-flags.md says (refresh with pnpm generate)', () => {
    const committed = readFileSync(new URL('../../../docs/mcp-server-flags.md', import.meta.url), 'utf8');
    expect(committed, 'docs/mcp-server-flags.md is stale: run pnpm generate (and commit it)').toBe(
      flagsPage(),
    );
  });
});
