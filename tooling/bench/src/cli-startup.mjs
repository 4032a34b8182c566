#!/usr/bin/env node
/**
 * CLI start-up alone, quicker than the whole bench: spawn to exit of each CLI build given, for
 * `--version`, `--sandbox key-list` and `key-list` against the loopback stand-in (as bench.mjs
 * measures them), beside `node -e 0`, in interleaved rounds (a fresh random order each round, bare
 * node twice); medians, and ratios to bare node's. Give two builds (a copy of main's dist, this
 * checkout's) to compare them under the same load.
 *
 * Usage: node tooling/bench/src/cli-startup.mjs [--rounds N] [FILE ...]
 *        (default FILE: apps/cli/dist/bin.cjs, the package's bin)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchEnv, expectJson, expectVersion, median, positive, shuffle, timeProcess } from './measure.mjs';
import { startStandIn } from './stand-in.mjs';

const { values, positionals } = parseArgs({
  options: { rounds: { type: 'string', default: '20' } },
  allowPositionals: true,
});
const rounds = positive('--rounds', values.rounds);
const builds = positionals.length
  ? positionals.map((file) => resolve(file))
  : [fileURLToPath(new URL('../../../apps/cli/dist/bin.cjs', import.meta.url))];

const api = await startStandIn();
const scratch = mkdtempSync(join(tmpdir(), 'cloudcall-cli-startup-'));
const env = benchEnv(scratch);
const NODE = process.execPath;
const expectKeys = (stdout) =>
  expectJson(stdout) ?? (stdout.includes('bench-one') ? undefined : "the stand-in's keys are missing");
const cases = { 'node -e 0': () => timeProcess(NODE, ['-e', '0'], env) };
for (const [index, file] of builds.entries()) {
  const name = builds.length > 1 ? `#${index + 1} ` : '';
  // Each build its own state file: the first run creates it.
  const state = join(scratch, `sandbox-${index}.json`);
  cases[`${name}--version`] = () => timeProcess(NODE, [file, '--version'], env, expectVersion);
  cases[`${name}--sandbox key-list`] = () =>
    timeProcess(NODE, [file, '--sandbox', '--sandbox-state', state, 'key-list'], env, expectJson);
  cases[`${name}key-list, stand-in`] = () =>
    timeProcess(NODE, [file, '--api-url', api.url, 'key-list'], env, expectKeys);
}

try {
  // The first run of each reads its files from disk (and creates the sandbox's state file).
  for (const measure of Object.values(cases)) await measure();
  const samples = Object.fromEntries(Object.keys(cases).map((key) => [key, []]));
  for (let round = 0; round < rounds; round++) {
    for (const key of shuffle([...Object.keys(cases), 'node -e 0']))
      samples[key].push((await cases[key]()).ms);
  }
  const bare = median(samples['node -e 0']);
  for (const [index, file] of builds.entries()) process.stdout.write(`#${index + 1} ${file}\n`);
  for (const [key, runs] of Object.entries(samples)) {
    const ms = median(runs);
    process.stdout.write(`${key.padEnd(26)} ${ms.toFixed(0).padStart(6)} ms  ${(ms / bare).toFixed(2)}×\n`);
  }
  process.stdout.write(`medians of ${rounds} interleaved rounds (bare node twice a round)\n`);
} finally {
  await api.close();
  rmSync(scratch, { recursive: true, force: true });
}
