#!/usr/bin/env node
/**
 * What splitting the apps into an entry and chunks saves: builds each app again as one file
 * (cloudcall-bundle --one-file, into a temporary directory), then times both builds side by side,
 * in interleaved rounds with `node -e 0`, each case once a round in a fresh random order.
 *
 *   pnpm build && node tooling/bench/src/one-file.mjs [--rounds 20]
 *
 * Prints a Markdown table (the README's, under "How the apps are built"). Everything runs on
 * loopback: the MCP server over stdio, the CLI against its in-process sandbox in memory.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const BUNDLE = join(REPO, 'tooling/bundle/bundle.mjs');
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' } } });
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a whole number, not ${values.rounds}`);

const work = mkdtempSync(join(tmpdir(), 'cloudcall-one-file-'));
const builds = {
  split: { cli: join(REPO, 'apps/cli/dist/bin.cjs'), mcp: join(REPO, 'apps/mcp-server/dist/main.js') },
  one: { cli: join(work, 'cli/main.js'), mcp: join(work, 'mcp/main.js') },
};
for (const [app, dir] of [
  ['cli', 'apps/cli'],
  ['mcp', 'apps/mcp-server'],
]) {
  execFileSync(process.execPath, [BUNDLE, 'src/main.ts', '--one-file', join(work, app)], {
    cwd: join(REPO, dir),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

const env = {
  PATH: process.env.PATH ?? '',
  DIGITALOCEAN_API_TOKEN: 'dop_v1_one_file',
  CLOUDCALL_SANDBOX_STATE: ':memory:',
};

function timed(args) {
  const start = performance.now();
  const ran = spawnSync(process.execPath, args, { env, stdio: 'ignore' });
  if (ran.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${ran.status}`);
  return performance.now() - start;
}

/** Spawn to the tools/list answer, over stdio with raw JSON-RPC lines. */
function mcpStart(main, extra) {
  return new Promise((done, fail) => {
    const start = performance.now();
    const child = spawn(process.execPath, [main, ...extra], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    child.once('error', fail);
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text) => {
      buffered += text;
      for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        if (message.id === 1) {
          child.stdin.write(
            `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`,
          );
        } else if (message.id === 2) {
          const elapsed = performance.now() - start;
          child.kill();
          done(elapsed);
        }
      }
    });
    const params = {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'one-file', version: '1' },
    };
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params })}\n`);
  });
}

const CASES = {
  'MCP start → tools/list': (build) => mcpStart(build.mcp, []),
  'MCP start → tools/list, `--sandbox`': (build) => mcpStart(build.mcp, ['--sandbox']),
  'CLI `--version`': (build) => timed([build.cli, '--version']),
  'CLI `--sandbox key-list`': (build) => timed([build.cli, '--sandbox', 'key-list']),
};

const samples = new Map([['node', []]]);
const runs = [['node', () => timed(['-e', '0'])]];
for (const [name, run] of Object.entries(CASES)) {
  for (const [key, build] of Object.entries(builds)) {
    samples.set(`${name}|${key}`, []);
    runs.push([`${name}|${key}`, () => run(build)]);
  }
}
try {
  for (let round = 0; round < rounds; round++) {
    for (const [key, run] of [...runs].sort(() => Math.random() - 0.5)) samples.get(key)?.push(await run());
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const node = median(samples.get('node') ?? []);
const cell = (key) => {
  const ms = median(samples.get(key) ?? []);
  return `${ms.toFixed(0)} ms (${(ms / node).toFixed(2)}×)`;
};
const lines = ['|  | entry + chunks | one file |', '| --- | ---: | ---: |'];
for (const name of Object.keys(CASES))
  lines.push(`| ${name} | ${cell(`${name}|split`)} | ${cell(`${name}|one`)} |`);
process.stdout.write(
  `${lines.join('\n')}\n\n\`node -e 0\`: ${node.toFixed(0)} ms; medians of ${rounds} interleaved rounds.\n`,
);
