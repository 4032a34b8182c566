/**
 * JSON output is for programs in a pipe (one compact line) and for people on a terminal
 * (indented). The terminal is a real pseudo-terminal, made by util-linux's `script`.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cliRunner, MAIN } from './testing/run.js';

const cli = cliRunner();

describe('JSON output', () => {
  it('is one compact line in a pipe', async () => {
    const piped = await cli.run(['--sandbox', 'size-list', '--PerPage', '2']);
    expect(piped.code).toBe(0);
    expect(piped.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(piped.stdout).toBe(`${JSON.stringify(piped.json)}\n`);
  });

  it('is indented on a terminal with -o json', () => {
    const command = `${process.execPath} ${MAIN} --sandbox --sandbox-state ${cli.statePath} -o json size-list --PerPage 2`;
    const terminal = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8' });
    expect(terminal.error, 'util-linux script is needed to make a terminal').toBeUndefined();
    expect(terminal.status).toBe(0);
    const text = terminal.stdout.replace(/\r\n/g, '\n');
    expect(text).toMatch(/^\{\n {2}"sizes": \[\n {4}\{\n {6}"slug": /);
    expect(JSON.parse(text)).toMatchObject({ sizes: expect.any(Array) });
  });
});
