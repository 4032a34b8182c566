#!/usr/bin/env node
/**
 * What splitting the apps into an entry and chunks saves: builds each app again as one file
 * (cloudcall-bundle --one-file, into a temporary directory), then times both builds side by side
 * as bench.mjs times start-up (measure.mjs), in interleaved rounds with `node -e 0`, each case once
 * a round in a fresh random order.
 *
 *   pnpm build && node tooling/bench/src/one-file.mjs [--rounds 20]
 *
 * Prints a Markdown table (docs/building.md's, under "How the apps are built"). Everything runs on
 * loopback: the MCP server over stdio, the CLI against its in-process sandbox in memory.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  benchEnv,
  coldStart,
  expectJson,
  expectVersion,
  median,
  positive,
  shuffle,
  timeProcess,
} from './measure.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const BUNDLE = join(REPO, 'tooling/bundle/bundle.mjs');
const NODE = process.execPath;
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' } } });
const rounds = positive('--rounds', values.rounds);

const work = mkdtempSync(join(tmpdir(), 'cloudcall-one-file-'));
const env = benchEnv(work, { CLOUDCALL_SANDBOX_STATE: ':memory:' });
// The split build is what `pnpm build` made, run through each package's bin.
const builds = {
  split: { cli: join(REPO, 'apps/cli/dist/bin.cjs'), mcp: join(REPO, 'apps/mcp-server/dist/main.js') },
  one: { cli: join(work, 'cli/main.js'), mcp: join(work, 'mcp/main.js') },
};
for (const [app, dir] of [
  ['cli', 'apps/cli'],
  ['mcp', 'apps/mcp-server'],
]) {
  execFileSync(NODE, [BUNDLE, 'src/main.ts', '--one-file', join(work, app)], {
    cwd: join(REPO, dir),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

const CASES = {
  'MCP start → tools/list': (build) => coldStart(NODE, [build.mcp], env),
  'MCP start → tools/list, `--sandbox`': (build) => coldStart(NODE, [build.mcp, '--sandbox'], env),
  'CLI `--version`': (build) => timeProcess(NODE, [build.cli, '--version'], env, expectVersion),
  'CLI `--sandbox key-list`': (build) =>
    timeProcess(NODE, [build.cli, '--sandbox', 'key-list'], env, expectJson),
};

const runs = [['node', () => timeProcess(NODE, ['-e', '0'], env)]];
for (const [name, run] of Object.entries(CASES)) {
  for (const [key, build] of Object.entries(builds)) runs.push([`${name}|${key}`, () => run(build)]);
}
const samples = new Map(runs.map(([key]) => [key, []]));
try {
  for (let round = 0; round < rounds; round++) {
    for (const [key, run] of shuffle([...runs])) samples.get(key).push((await run()).ms);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const node = median(samples.get('node'));
const cell = (key) => {
  const ms = median(samples.get(key));
  return `${ms.toFixed(0)} ms (${(ms / node).toFixed(2)}×)`;
};
const lines = ['|  | entry + chunks | one file |', '| --- | ---: | ---: |'];
for (const name of Object.keys(CASES))
  lines.push(`| ${name} | ${cell(`${name}|split`)} | ${cell(`${name}|one`)} |`);
process.stdout.write(
  `${lines.join('\n')}\n\n\`node -e 0\`: ${node.toFixed(0)} ms; medians of ${rounds} interleaved rounds.\n`,
);
