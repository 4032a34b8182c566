#!/usr/bin/env node
/**
 * How fast the built apps start and answer, each figure beside `node -e 0` measured in the same
 * run on the same machine: one machine's milliseconds say little about another's, a ratio to bare
 * node says how much of the wait is ours.
 *
 *   pnpm bench                          (builds first; runs the sandbox's bench too)
 *   pnpm --filter @cloudcall/bench bench
 *   node tooling/bench/src/bench.mjs --rounds 10 --mcp /tmp/main-before/mcp.js
 *
 * Everything runs against a loopback stand-in for the API that answers at once (./stand-in.mjs),
 * never the network. Start-up figures are medians of `--rounds` rounds; each round runs every
 * case once (bare node twice), in a fresh random order, so drift and noise from other work on the
 * machine fall on all cases alike. Per-call figures come from one long-lived server per app.
 * Prints a table (stdout) and writes results/latest.json (every sample) and results/latest.md.
 *
 * When `@digitalocean/mcp` is installed (an optional dependency), its Go server is measured the
 * same way, side by side; otherwise the table says why it is missing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { httpComparison } from './http-load.mjs';
import { LineClient } from './line-client.mjs';
import {
  benchEnv,
  coldStart,
  expectJson,
  expectVersion,
  findReference,
  median,
  percentile,
  positive,
  shuffle,
  timeProcess,
} from './measure.mjs';
import { replicaScaling, replicasMissing } from './replicas.mjs';
import { startStandIn } from './stand-in.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../../..');
const NODE = process.execPath;
const TOOL = 'key-list';
const BURSTS = 3;
const TABLE_START = '<!-- bench:start -->';
const TABLE_END = '<!-- bench:end -->';

/**
 * The targets: start-up as a multiple of `node -e 0`; per call over stdio no worse than the
 * reference's (absolute figures when it is not measured), peak RSS in MiB; over HTTP, one
 * process, calls/s as a multiple of the reference's.
 */
const TARGET = {
  mcpStart: 1.3,
  cliVersion: 1.3,
  cliSandbox: 2,
  peakRssMiB: 80,
  p50Ms: 0.45,
  p99Ms: 2.5,
  callsPerSecond: 4500,
  httpVsReference: 1.5,
  // Over HTTP, processor time per call as a multiple of the reference's: a warmed replica, and
  // one over its first --http-cold-calls from its start (start-up included).
  httpWarmCpu: 0.6,
  httpColdCpu: 1,
};

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '20' },
    calls: { type: 'string', default: '2000' },
    'burst-calls': { type: 'string', default: '5000' },
    'in-flight': { type: 'string', default: '16' },
    'sdk-calls': { type: 'string', default: '500' },
    // Fresh processes of each server that make the sequential calls: p99 is the 1 % slowest of
    // all of them, so more runs, a steadier tail.
    'sequential-runs': { type: 'string', default: '4' },
    // Through nginx to 1, then 3, stateless replicas over HTTP.
    'replica-calls': { type: 'string', default: '2000' },
    'replica-in-flight': { type: 'string', default: '32' },
    // Over HTTP, one process each: the calls from a server's start counted as its cold figure.
    'http-cold-calls': { type: 'string', default: '6000' },
    // Other builds to measure, such as a copy of main's dist: compare before and after.
    mcp: { type: 'string' },
    cli: { type: 'string' },
    'no-reference': { type: 'boolean' },
    out: { type: 'string', default: join(HERE, '../results') },
    // Rewrites the table between the bench markers of docs/benchmark.md with this run's.
    'update-docs': { type: 'boolean' },
  },
});
const rounds = positive('--rounds', flags.rounds);
const calls = positive('--calls', flags.calls);
const burstCalls = positive('--burst-calls', flags['burst-calls']);
const inFlight = positive('--in-flight', flags['in-flight']);
const sdkCalls = positive('--sdk-calls', flags['sdk-calls']);
const sequentialRuns = positive('--sequential-runs', flags['sequential-runs']);
const replicaCalls = positive('--replica-calls', flags['replica-calls']);
const replicaInFlight = positive('--replica-in-flight', flags['replica-in-flight']);
const httpColdCalls = positive('--http-cold-calls', flags['http-cold-calls']);
const mcpMain = resolve(flags.mcp ?? appEntry('apps/mcp-server'));
const cliMain = resolve(flags.cli ?? appEntry('apps/cli'));
for (const file of [mcpMain, cliMain]) {
  if (!existsSync(file)) {
    process.stderr.write(`${file} is missing: build first (pnpm build), or run through pnpm bench\n`);
    process.exit(2);
  }
}

const started = performance.now();
const api = await startStandIn();
const scratch = mkdtempSync(join(tmpdir(), 'cloudcall-bench-'));
const env = benchEnv(scratch);
const statePath = join(scratch, 'sandbox.json');
const reference = flags['no-reference'] ? { missing: 'left out (--no-reference)' } : findReference();

try {
  const results = await run();
  const { text, markdown } = render(results);
  process.stdout.write(`${text}\n`);
  mkdirSync(flags.out, { recursive: true });
  writeFileSync(join(flags.out, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(flags.out, 'latest.md'), markdown);
  if (flags['update-docs']) updateDocs(markdown);
  process.stderr.write(
    `wrote ${join(flags.out, 'latest.json')} and latest.md in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
  );
} finally {
  await api.close();
  rmSync(scratch, { recursive: true, force: true });
}

async function run() {
  const cases = {
    node: () => timeProcess(NODE, ['-e', '0'], env),
    mcpStart: () => coldStart(NODE, [mcpMain, '--api-url', api.url], env),
    mcpStartSandbox: () => coldStart(NODE, [mcpMain, '--sandbox', '--sandbox-state', ':memory:'], env),
    cliVersion: () => timeProcess(NODE, [cliMain, '--version'], env, expectVersion),
    cliSandbox: () =>
      timeProcess(NODE, [cliMain, '--sandbox', '--sandbox-state', statePath, TOOL], env, expectJson),
    cliApi: () => timeProcess(NODE, [cliMain, '--api-url', api.url, TOOL], env, expectKeys),
  };
  const refArgs = ['-digitalocean-api-endpoint', api.url];
  if (reference.binary) cases.refStart = () => coldStart(reference.binary, refArgs, env);

  // The first run of each reads files from disk and creates the sandbox's state file.
  progress('warming up');
  for (const measure of Object.values(cases)) await measure();
  const samples = Object.fromEntries(Object.keys(cases).map((key) => [key, []]));
  for (let round = 1; round <= rounds; round++) {
    progress(`start-up round ${round}/${rounds}`);
    // Bare node twice a round: it is cheap, and every ratio divides by its median.
    for (const key of shuffle([...Object.keys(cases), 'node'])) samples[key].push(await cases[key]());
  }
  const startup = Object.fromEntries(
    Object.entries(samples).map(([key, runs]) => [key, summarize(runs.map((r) => r.ms))]),
  );
  // How much of an MCP start is spent before the initialize answer (loading, mostly).
  const toInitialize = Object.fromEntries(
    Object.entries(samples)
      .filter(([, runs]) => runs[0].initializedMs !== undefined)
      .map(([key, runs]) => [key, summarize(runs.map((r) => r.initializedMs))]),
  );

  const mcpArgs = [mcpMain, '--api-url', api.url];
  // The line client and the stand-in run in this process: whichever server came first would pay
  // for their JIT warming up (its p50 a third higher, its p99 twice). A discarded run first.
  progress(`this process's client and stand-in: ${calls} calls to warm them up, not counted`);
  await sequentialCalls(NODE, mcpArgs);
  const servers = [{ name: 'cloudcall', command: NODE, args: mcpArgs }];
  if (reference.binary) servers.push({ name: 'reference', command: reference.binary, args: refArgs });
  // Each server --sequential-runs times, each time a fresh process, in the order A B B A A B …: a
  // drift in the machine's speed falls on both alike.
  const sequentialOrder = Array.from({ length: sequentialRuns }, (_, run) =>
    run % 2 ? [...servers].reverse() : servers,
  ).flat();
  progress(
    `${calls} sequential calls, a fresh process each time: ${sequentialOrder.map((s) => s.name).join(', ')}`,
  );
  const sequential = { cloudcall: [], reference: [] };
  for (const server of sequentialOrder) {
    sequential[server.name].push(await sequentialCalls(server.command, server.args));
  }
  progress(`cloudcall-mcp: ${BURSTS} × ${burstCalls} with ${inFlight} in flight`);
  const load = { ...(await callLoad(NODE, mcpArgs)), ...latencies(sequential.cloudcall) };
  progress(`cloudcall-mcp: ${sdkCalls} calls through the SDK client`);
  const sdk = await sdkLoad(NODE, mcpArgs);
  let refLoad;
  let refSdk;
  if (reference.binary) {
    progress(`@digitalocean/mcp: the same`);
    refLoad = { ...(await callLoad(reference.binary, refArgs)), ...latencies(sequential.reference) };
    refSdk = await sdkLoad(reference.binary, refArgs);
  }
  const nodeRss = median(await Promise.all([1, 2, 3, 4, 5].map(() => bareNodeRssMiB())));
  progress(
    `over HTTP, one process each${reference.binary ? ' (cloudcall, @digitalocean/mcp)' : ''}: ${BURSTS} × ${replicaCalls} calls, alternating, ${replicaInFlight} in flight`,
  );
  const http = await httpComparison({ ...httpLoad(), coldCalls: httpColdCalls, reference: reference.binary });
  const replicas = await replicaLoad();

  return {
    date: new Date().toISOString(),
    commit: commit(),
    machine: {
      cpu: cpus()[0]?.model?.trim(),
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      os: `${platform()} ${release()} ${arch()}`,
      node: process.version,
      loadAverageAtEnd: loadavg().map((l) => Number(l.toFixed(2))),
    },
    settings: {
      rounds,
      calls,
      burstCalls,
      bursts: BURSTS,
      inFlight,
      sdkCalls,
      replicaCalls,
      replicaInFlight,
      httpColdCalls,
      tool: TOOL,
    },
    apps: { mcp: mcpMain, cli: cliMain },
    reference: reference.binary
      ? { package: '@digitalocean/mcp', version: reference.version, binary: reference.binary }
      : { missing: reference.missing },
    startupMs: startup,
    startupToInitializeMs: toInitialize,
    toolsListed: {
      cloudcall: samples.mcpStart[0].tools,
      reference: samples.refStart?.[0].tools,
    },
    calls: { cloudcall: load, reference: refLoad },
    sdkCalls: { cloudcall: sdk, reference: refSdk },
    http,
    replicas,
    nodeRssMiB: nodeRss,
    apiRequests: { ...api.counts },
    targets: TARGET,
  };
}

/**
 * Calls/s through a real nginx to 1 and to 3 stateless replicas over HTTP (token passthrough),
 * and their ratio; the reason instead when nginx is not installed.
 */
async function replicaLoad() {
  const missing = replicasMissing();
  if (missing) return { missing };
  progress(
    `cloudcall-mcp over HTTP: 1 and 3 stateless replicas behind nginx, ${BURSTS} × ${replicaCalls} calls each, alternating, ${replicaInFlight} in flight`,
  );
  return replicaScaling(httpLoad());
}

/** The load over HTTP, the same for one process each and for the replicas behind nginx. */
function httpLoad() {
  return {
    main: mcpMain,
    apiUrl: api.url,
    env,
    tool: TOOL,
    calls: replicaCalls,
    bursts: BURSTS,
    inFlight: replicaInFlight,
  };
}

function expectKeys(stdout) {
  return expectJson(stdout) ?? (stdout.includes('bench-one') ? undefined : "the stand-in's keys are missing");
}

/**
 * A fresh server process over raw JSON-RPC lines, initialized and listing TOOL, for `work`, which
 * resolves with how many calls it made and what it measured. Every one of those calls must have
 * reached the stand-in (an answer from a cache would measure nothing); a failure names the server
 * and ends with its stderr.
 */
async function onServer(command, args, work) {
  const client = new LineClient(command, args, env);
  try {
    await client.initialize();
    const listed = await client.request('tools/list', {});
    if (!listed.result.tools.some((tool) => tool.name === TOOL)) throw new Error(`no ${TOOL} tool listed`);
    const requestsBefore = api.counts.keys;
    const { made, ...measured } = await work(client, listed);
    const requests = api.counts.keys - requestsBefore;
    if (requests < made) throw new Error(`${made} calls made only ${requests} requests to the stand-in`);
    return { ...measured, apiRequestsPerCall: requests / made };
  } catch (error) {
    throw new Error(`${[command, ...args].join(' ')}: ${error.message}\nstderr: ${client.stderr}`);
  } finally {
    await client.close();
  }
}

/**
 * `calls` sequential calls to a fresh server process, each timed from write to answer, from the
 * first (no warm-up of the server).
 */
async function sequentialCalls(command, args) {
  const { timed } = await onServer(command, args, async (client) => {
    const timed = new Float64Array(calls);
    for (let i = 0; i < calls; i++) {
      const start = performance.now();
      await client.call(TOOL, {});
      timed[i] = performance.now() - start;
    }
    return { made: calls, timed };
  });
  return timed;
}

/**
 * p50, p90, p99 and the longest of the sequential runs' calls together; and p50 and p99 of their
 * second halves alone, what is left once a JIT has warmed up (the Go server has none).
 */
function latencies(runs) {
  const sorted = runs.flatMap((run) => [...run]).sort((a, b) => a - b);
  const warm = runs.flatMap((run) => [...run.subarray(run.length >> 1)]).sort((a, b) => a - b);
  return {
    p50Ms: percentile(sorted, 0.5),
    p90Ms: percentile(sorted, 0.9),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted[sorted.length - 1],
    warmP50Ms: percentile(warm, 0.5),
    warmP99Ms: percentile(warm, 0.99),
    sequentialRuns: runs.length,
  };
}

/**
 * The load: `calls` sequential calls, then bursts of `burstCalls` with `inFlight` outstanding;
 * then the server's peak RSS. (Latency comes from sequentialCalls.)
 */
function callLoad(command, args) {
  return onServer(command, args, async (client, listed) => {
    const rssAfterListMiB = client.peakRssMiB();
    for (let i = 0; i < calls; i++) await client.call(TOOL, {});
    // Throughput over a second or two swings with whatever else the machine does: three bursts,
    // the median reported.
    const bursts = [];
    for (let i = 0; i < BURSTS; i++) bursts.push(await burst(client));
    return {
      made: calls + BURSTS * burstCalls,
      toolsListBytes: listed.bytes,
      tools: listed.result.tools.length,
      callsPerSecond: median(bursts),
      callsPerSecondBursts: bursts,
      rssAfterListMiB,
      peakRssMiB: client.peakRssMiB(),
    };
  });
}

/** Calls per second over `burstCalls` calls with `inFlight` outstanding at all times. */
async function burst(client) {
  const start = performance.now();
  await new Promise((resolvePromise, reject) => {
    let sent = 0;
    let answered = 0;
    const next = () => {
      if (sent === burstCalls) return;
      sent++;
      client.call(TOOL, {}).then(() => {
        if (++answered === burstCalls) resolvePromise();
        else next();
      }, reject);
    };
    for (let i = 0; i < inFlight; i++) next();
  });
  return burstCalls / ((performance.now() - start) / 1000);
}

/** The same sequential calls through the SDK client (`callTool`), to show its share. */
async function sdkLoad(command, args) {
  const transport = new StdioClientTransport({ command, args, env, stderr: 'ignore' });
  const client = new Client({ name: 'cloudcall-bench', version: '0.0.0' });
  try {
    await client.connect(transport);
    await client.listTools();
    const latencies = [];
    for (let i = 0; i < sdkCalls; i++) {
      const start = performance.now();
      const result = await client.callTool({ name: TOOL, arguments: {} });
      latencies.push(performance.now() - start);
      if (result.isError) throw new Error(`${TOOL} failed: ${JSON.stringify(result.content).slice(0, 500)}`);
    }
    latencies.sort((a, b) => a - b);
    return { p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99) };
  } finally {
    await client.close();
  }
}

/** Bare node's peak RSS, read by the process itself at its end as /proc reports it for others. */
async function bareNodeRssMiB() {
  const code =
    "const s=require('fs').readFileSync('/proc/self/status','utf8');process.stdout.write(/^VmHWM:\\s+(\\d+)/m.exec(s)[1])";
  const child = spawn(NODE, ['-e', code], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (text) => {
    out += text;
  });
  await new Promise((resolvePromise) => child.once('close', resolvePromise));
  const kib = Number(out);
  return Number.isFinite(kib) && kib > 0 ? kib / 1024 : undefined;
}

/** An app's entry point, as its package.json `bin` names it. */
function appEntry(dir) {
  const manifest = JSON.parse(readFileSync(join(REPO, dir, 'package.json'), 'utf8'));
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  return join(REPO, dir, bin ?? 'dist/main.js');
}

function render(r) {
  const node = r.startupMs.node.median;
  const cc = r.calls.cloudcall;
  const ref = r.calls.reference;
  const refStart = r.startupMs.refStart?.median;
  const ms = (value) => (value === undefined ? '' : value < 10 ? value.toFixed(2) : value.toFixed(0));
  const times = (value) => `${value.toFixed(2)}×`;
  const count = (value) => Math.round(value).toLocaleString('en-US');
  const mark = (pass) => (pass ? 'pass' : 'FAIL');
  const startRow = (figure, key, target) => {
    const value = r.startupMs[key].median;
    return [
      figure,
      ms(node),
      ms(value),
      times(value / node),
      target ? `≤ ${target.toFixed(1)}×` : '',
      target ? mark(value / node <= target) : '',
    ];
  };
  const refCell = (text) => (r.reference.missing ? '' : text);
  // Processor time per call, ours beside the reference's, the ratio held to a multiple of it.
  const cpuRow = (figure, ours, theirs, target) => {
    const ratio = ours !== undefined && theirs !== undefined ? ours / theirs : undefined;
    return [
      figure,
      '',
      ours === undefined ? 'n/a' : ours.toFixed(3),
      ratio === undefined ? '' : times(ratio),
      theirs === undefined ? '' : `≤ ${target.toFixed(1)}× reference`,
      ratio === undefined ? '' : mark(ratio <= target),
      refCell(theirs === undefined ? 'n/a' : theirs.toFixed(3)),
    ];
  };
  const rssOver = cc.peakRssMiB === undefined ? undefined : cc.peakRssMiB - r.nodeRssMiB;
  // Per call over stdio: no worse than the reference's when it is measured.
  const noWorse = (key, absolute) =>
    ref
      ? { target: '≤ reference', met: mark(cc[key] <= ref[key]) }
      : { target: `≤ ${absolute} ms`, met: mark(cc[key] <= absolute) };
  const httpOurs = r.http.cloudcall;
  const httpRef = r.http.reference;
  const rows = [
    [
      ...startRow('MCP start → tools/list answer (ms)', 'mcpStart', TARGET.mcpStart),
      refCell(`${ms(refStart)} (${times(refStart / node)})`),
    ],
    [...startRow('MCP start → tools/list, --sandbox (ms)', 'mcpStartSandbox'), ''],
    [...startRow('CLI --version (ms)', 'cliVersion', TARGET.cliVersion), ''],
    [...startRow(`CLI --sandbox ${TOOL} (ms)`, 'cliSandbox', TARGET.cliSandbox), ''],
    [...startRow(`CLI ${TOOL}, stand-in API (ms)`, 'cliApi'), ''],
    [
      `MCP per call p50 (ms)`,
      '',
      ms(cc.p50Ms),
      ref ? times(cc.p50Ms / ref.p50Ms) : '',
      noWorse('p50Ms', TARGET.p50Ms).target,
      noWorse('p50Ms', TARGET.p50Ms).met,
      refCell(ms(ref?.p50Ms)),
    ],
    [
      `MCP per call p99 (ms)`,
      '',
      ms(cc.p99Ms),
      ref ? times(cc.p99Ms / ref.p99Ms) : '',
      noWorse('p99Ms', TARGET.p99Ms).target,
      noWorse('p99Ms', TARGET.p99Ms).met,
      refCell(ms(ref?.p99Ms)),
    ],
    [
      `MCP calls/s, ${r.settings.inFlight} in flight`,
      '',
      count(cc.callsPerSecond),
      ref ? times(cc.callsPerSecond / ref.callsPerSecond) : '',
      ref ? '> reference' : `≥ ${count(TARGET.callsPerSecond)}`,
      mark(cc.callsPerSecond >= (ref ? ref.callsPerSecond : TARGET.callsPerSecond)),
      refCell(ref ? count(ref.callsPerSecond) : ''),
    ],
    [
      'MCP peak RSS (MiB)',
      r.nodeRssMiB?.toFixed(0) ?? '',
      cc.peakRssMiB?.toFixed(0) ?? 'n/a',
      rssOver === undefined ? '' : `+${rssOver.toFixed(0)} MiB`,
      `≤ ${TARGET.peakRssMiB} MiB`,
      cc.peakRssMiB === undefined ? 'n/a' : mark(cc.peakRssMiB <= TARGET.peakRssMiB),
      refCell(ref?.peakRssMiB?.toFixed(0) ?? 'n/a'),
    ],
    [
      `HTTP, one process: calls/s, ${r.settings.replicaInFlight} in flight`,
      '',
      count(httpOurs.callsPerSecond),
      httpRef ? times(httpOurs.callsPerSecond / httpRef.callsPerSecond) : '',
      httpRef ? `≥ ${TARGET.httpVsReference}×` : '',
      httpRef ? mark(httpOurs.callsPerSecond >= TARGET.httpVsReference * httpRef.callsPerSecond) : '',
      refCell(httpRef ? count(httpRef.callsPerSecond) : ''),
    ],
    [
      'HTTP, one process: p50 / p99 (ms)',
      '',
      `${ms(httpOurs.p50Ms)} / ${ms(httpOurs.p99Ms)}`,
      '',
      httpRef ? 'p99 ≤ reference' : '',
      httpRef ? mark(httpOurs.p99Ms <= httpRef.p99Ms) : '',
      refCell(httpRef ? `${ms(httpRef.p50Ms)} / ${ms(httpRef.p99Ms)}` : ''),
    ],
    cpuRow(
      `HTTP, one process: processor ms a call, warm`,
      httpOurs.warmProcessorMsPerCall,
      httpRef?.warmProcessorMsPerCall,
      TARGET.httpWarmCpu,
    ),
    cpuRow(
      `HTTP, one process: processor ms a call, first ${count(r.settings.httpColdCalls)} from start`,
      httpOurs.coldProcessorMsPerCall,
      httpRef?.coldProcessorMsPerCall,
      TARGET.httpColdCpu,
    ),
    [
      'HTTP, one process: peak RSS (MiB)',
      '',
      httpOurs.peakRssMiB?.toFixed(0) ?? 'n/a',
      '',
      '',
      '',
      refCell(httpRef?.peakRssMiB?.toFixed(0) ?? 'n/a'),
    ],
    [
      'HTTP calls/s via nginx: 1 → 3 replicas',
      '',
      r.replicas.missing
        ? 'not measured'
        : `${count(r.replicas.one.callsPerSecond)} → ${count(r.replicas.three.callsPerSecond)}`,
      r.replicas.missing ? '' : times(r.replicas.ratio),
      '',
      '',
      '',
    ],
    [
      'tools/list answer (bytes)',
      '',
      `${count(cc.toolsListBytes)} (${cc.tools} tools)`,
      '',
      '',
      '',
      refCell(ref ? `${count(ref.toolsListBytes)} (${ref.tools} tools)` : ''),
    ],
  ];
  const refTitle = r.reference.missing
    ? '@digitalocean/mcp (not measured)'
    : `@digitalocean/mcp ${r.reference.version}`;
  const header = ['', '`node -e 0`', 'cloudcall', 'ratio', 'target', 'met', refTitle];
  const notes = [
    `${r.date.slice(0, 10)}, commit ${r.commit ?? 'unknown'}; ${r.machine.cores} × ${r.machine.cpu}, ${r.machine.memoryGiB} GiB, ${r.machine.os}, node ${r.machine.node.slice(1)}; 1-minute load average ${r.machine.loadAverageAtEnd[0]} at the end.`,
    `Start-up: medians of ${r.settings.rounds} interleaved rounds (bare node twice a round), spawn to exit (to the tools/list answer for MCP, official SDK client over stdio); ratio = median / median of \`node -e 0\`.`,
    `Per call: ${r.settings.tool} against a loopback API stand-in that answers at once; p50/p99 over ${r.settings.calls} sequential calls from a server's start (no warm-up of the server), ${r.calls.cloudcall.sequentialRuns} times per server, each time a fresh process, in the order cloudcall, reference, reference, cloudcall and so on, after a discarded run that warms up this process's own client and stand-in; calls/s the median of ${BURSTS} bursts of ${r.settings.burstCalls} with ${r.settings.inFlight} in flight, all as raw JSON-RPC lines over the server's stdio.` +
      ` The last ${r.settings.calls - (r.settings.calls >> 1)} of each run's sequential calls alone (V8 warmed up): p50/p99 ${ms(r.calls.cloudcall.warmP50Ms)}/${ms(r.calls.cloudcall.warmP99Ms)} ms` +
      (r.calls.reference
        ? ` for cloudcall and ${ms(r.calls.reference.warmP50Ms)}/${ms(r.calls.reference.warmP99Ms)} ms for @digitalocean/mcp.`
        : '.') +
      ` Through the SDK client (\`callTool\`, which validates each result) p50/p99 are ${ms(r.sdkCalls.cloudcall.p50Ms)}/${ms(r.sdkCalls.cloudcall.p99Ms)} ms` +
      (r.sdkCalls.reference
        ? ` for cloudcall and ${ms(r.sdkCalls.reference.p50Ms)}/${ms(r.sdkCalls.reference.p99Ms)} ms for @digitalocean/mcp.`
        : '.'),
    'Peak RSS: VmHWM of the server after all calls; bare node: VmHWM of `node -e` reading its own.',
    `HTTP, one process: cloudcall \`--transport http --stateless --auth token-passthrough\`${r.reference.missing ? '' : ' and @digitalocean/mcp `-transport http`'}, ${r.settings.tool} as raw JSON-RPC POSTs (the caller's bearer token, keep-alive connections) with ${r.settings.replicaInFlight} in flight; each server first gets ${r.settings.httpColdCalls} calls from its start, then ${BURSTS} bursts of ${r.settings.replicaCalls}, the servers' bursts alternating; calls/s is the median burst, p50/p99 over every call of the bursts. Processor time (all the server's threads, /proc/PID/task/*/schedstat) per call: warm over the bursts; from start over the first ${r.settings.httpColdCalls} calls, counted from the process's spawn (its start-up included).`,
    r.replicas.missing
      ? `Replicas not measured: ${r.replicas.missing}.`
      : `Replicas: \`--transport http --stateless --auth token-passthrough\` processes behind a real nginx (round-robin, deploy/mcp-proxy.conf), ${r.settings.tool} as raw JSON-RPC POSTs with ${r.settings.replicaInFlight} in flight, the median of ${BURSTS} bursts of ${r.settings.replicaCalls} for each set, the sets' bursts alternating; ratio = 3 replicas / 1, on the same ${r.machine.cores} cores that also run nginx, the stand-in and the load.`,
    r.reference.missing
      ? `@digitalocean/mcp not measured: ${r.reference.missing}.`
      : '@digitalocean/mcp: its Go binary run directly (not through its node launcher), all services, the same stand-in and token.',
  ];
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => row[i].length)));
  const line = (row) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  const text = [line(header.map((h) => h.replaceAll('`', ''))), ...rows.map(line), '', ...notes].join('\n');
  const md = (row) => `| ${row.join(' | ')} |`;
  const markdown = [
    md(header),
    md(header.map((_, i) => (i === 0 ? '---' : '---:'))),
    ...rows.map(md),
    '',
    ...notes.map((note) => `- ${note}`),
    '',
  ].join('\n');
  return { text, markdown };
}

function updateDocs(markdown) {
  const path = join(REPO, 'docs/benchmark.md');
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start === -1 || end < start)
    throw new Error(`docs/benchmark.md has no ${TABLE_START} ... ${TABLE_END} section`);
  writeFileSync(path, `${text.slice(0, start + TABLE_START.length)}\n${markdown}${text.slice(end)}`);
  progress('docs/benchmark.md table updated');
}

/** The measured checkout's commit, marked when what is measured (apps, packages) has changes. */
function commit() {
  try {
    const git = (...args) =>
      execFileSync('git', args, { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const head = git('rev-parse', '--short', 'HEAD').trim();
    const changed = git('status', '--porcelain', '--untracked-files=no', '--', 'apps', 'packages').trim();
    return changed ? `${head} with local changes to apps or packages` : head;
  } catch {
    return undefined;
  }
}

function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: median(sorted), min: sorted[0], max: sorted[sorted.length - 1], samples };
}

function progress(text) {
  process.stderr.write(`[bench] ${text}\n`);
}
