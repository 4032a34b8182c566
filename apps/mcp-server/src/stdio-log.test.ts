/**
 * Over stdio each call's stderr line is written after its answer, with the lines of one turn of
 * the event loop in one write (main.ts): none is lost, calls answered together included, and the
 * last ones are out by the time the process has exited.
 */
import { afterEach, expect, it } from 'vitest';
import { initializeRaw, killAll, rawStdio } from './testing/process.js';

afterEach(killAll);

it('logs one line per call, for calls in flight together and up to the exit', async () => {
  const stdio = rawStdio(['--sandbox', '--sandbox-state', ':memory:', '--families', 'account']);
  await initializeRaw(stdio);
  const call = (id: number, name: string, args: Record<string, unknown>) =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  // Three calls in one write: their answers (and lines) come in the same turns of the loop.
  await stdio.write(
    `${[call(2, 'key-list', {}), call(3, 'key-get', { ID: 987654 }), call(4, 'key-list', {})].join('\n')}\n`,
  );
  const ids = [(await stdio.next()).id, (await stdio.next()).id, (await stdio.next()).id];
  expect(ids.sort()).toEqual([2, 3, 4]);
  expect(await stdio.end()).toBe(0);
  const lines = stdio
    .stderr()
    .split('\n')
    .filter((line) => /\btool key-(list|get)\b/.test(line));
  expect(lines.filter((line) => /tool key-list: ok in \d+ ms$/.test(line))).toHaveLength(2);
  expect(lines.filter((line) => line.includes('tool key-get: '))).toHaveLength(1);
  expect(lines).toHaveLength(3);
});
