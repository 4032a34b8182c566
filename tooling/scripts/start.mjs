#!/usr/bin/env node
// `pnpm start [--] [flags]`: builds the MCP server (saying what it builds, since the first build
// takes about a minute), then serves it over Streamable HTTP on the built-in sandbox. Flags go to
// the server, so `pnpm start -- --port 4000` and `pnpm start --port 4000` both pick the port
// (pnpm passes a `--` on to the script; the server would take it for the end of its flags).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { constants } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const args = process.argv.slice(2);
if (args[0] === '--') args.shift();

const say = (line) => process.stderr.write(`cloudcall: ${line}\n`);
const started = Date.now();
say(
  'building the MCP server and the packages it uses (about a minute the first time; later starts reuse it)',
);

const turbo = spawn(
  process.platform === 'win32' ? 'pnpm.cmd' : 'pnpm',
  ['exec', 'turbo', 'run', 'build', '--filter=@cloudcall/mcp-server...', '--output-logs=new-only'],
  { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } },
);
// The libraries (the packages with a tsconfig.build.json) are built together, by one task: the
// root's `compile`, one TypeScript program that checks every package's types too.
const libraries = readdirSync(`${root}packages`).filter((name) =>
  existsSync(`${root}packages/${name}/tsconfig.build.json`),
).length;
// Each task's lines, kept to show in full when the build fails.
const output = [];
let built = 0;
let reused = 0;
createInterface({ input: turbo.stdout }).on('line', (line) => {
  output.push(line);
  const task = /^(@cloudcall\/[\w-]+:build|\/\/:compile): cache (hit|miss)/.exec(line);
  if (!task) return;
  const compile = task[1] === '//:compile';
  const packages = compile ? libraries : 1;
  if (task[2] === 'hit') reused += packages;
  else {
    built += packages;
    say(`  building ${compile ? `the ${libraries} libraries (packages/*)` : task[1].replace(/:build$/, '')}`);
  }
});
createInterface({ input: turbo.stderr }).on('line', (line) => output.push(line));
const code = await new Promise((resolve) => turbo.on('close', resolve));
if (code !== 0) {
  process.stderr.write(`${output.join('\n')}\n`);
  say(`the build failed (exit ${code}); its output is above`);
  process.exit(code ?? 1);
}
const seconds = Math.round((Date.now() - started) / 1000);
say(
  built
    ? `built ${built} package${built === 1 ? '' : 's'} in ${seconds} s${reused ? ` (${reused} up to date)` : ''}; starting the server`
    : `the build is up to date (${reused} packages); starting the server`,
);

const server = spawn(
  process.execPath,
  [`${root}apps/mcp-server/dist/main.js`, '--transport', 'http', '--sandbox', ...args],
  { cwd: process.cwd(), stdio: 'inherit' },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('close', (exitCode, signal) => process.exit(exitCode ?? 128 + (constants.signals[signal] ?? 0)));
