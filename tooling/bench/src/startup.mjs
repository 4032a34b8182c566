#!/usr/bin/env node
/**
 * MCP start-up alone, quicker than the whole bench: spawn to the `tools/list` answer of each MCP
 * server build given (the official SDK client over stdio, as bench.mjs measures it), with
 * `--api-url` and with `--sandbox`, against `node -e 0`, in interleaved rounds (a fresh random
 * order each round); medians, and ratios to bare node's. Give two builds (a copy of main's dist,
 * this checkout's) to compare them under the same load.
 *
 * Usage: node tooling/bench/src/startup.mjs [--rounds N] [FILE ...]
 *        (default FILE: apps/mcp-server/dist/main.js)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchEnv, coldStart, median, positive, shuffle, timeProcess } from './measure.mjs';

const { values, positionals } = parseArgs({
  options: { rounds: { type: 'string', default: '20' } },
  allowPositionals: true,
});
const rounds = positive('--rounds', values.rounds);
const builds = positionals.length
  ? positionals.map((file) => resolve(file))
  : [fileURLToPath(new URL('../../../apps/mcp-server/dist/main.js', import.meta.url))];

const scratch = mkdtempSync(join(tmpdir(), 'cloudcall-startup-'));
const env = benchEnv(scratch);
const NODE = process.execPath;
const cases = { 'node -e 0': () => timeProcess(NODE, ['-e', '0'], env) };
for (const [index, file] of builds.entries()) {
  const name = builds.length > 1 ? `#${index + 1} ` : '';
  // Nothing listens there: start-up to tools/list sends no request.
  cases[`${name}--api-url`] = () => coldStart(NODE, [file, '--api-url', 'http://127.0.0.1:9'], env);
  cases[`${name}--sandbox`] = () => coldStart(NODE, [file, '--sandbox', '--sandbox-state', ':memory:'], env);
}

try {
  // The first run of each reads its files from disk.
  for (const measure of Object.values(cases)) await measure();
  const samples = Object.fromEntries(Object.keys(cases).map((key) => [key, []]));
  for (let round = 0; round < rounds; round++) {
    for (const key of shuffle(Object.keys(cases))) samples[key].push((await cases[key]()).ms);
  }
  const bare = median(samples['node -e 0']);
  for (const [index, file] of builds.entries()) process.stdout.write(`#${index + 1} ${file}\n`);
  for (const [key, runs] of Object.entries(samples)) {
    const ms = median(runs);
    process.stdout.write(`${key.padEnd(16)} ${ms.toFixed(0).padStart(6)} ms  ${(ms / bare).toFixed(2)}×\n`);
  }
  process.stdout.write(`medians of ${rounds} interleaved rounds\n`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
