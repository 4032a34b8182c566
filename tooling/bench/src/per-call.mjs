#!/usr/bin/env node
/**
 * Per-call cost of MCP server builds side by side, and beside the platform's Go server
 * (`@digitalocean/mcp`, when installed), quicker than the whole bench and with the figure a busy
 * machine disturbs least: the server's processor time per call (all its threads, from
 * /proc/PID/task/TID/schedstat), beside calls/s and latency. Give two builds (a copy of main's
 * dist, this checkout's) to compare a change under the same load. Every round starts each server
 * afresh, in an order that alternates from round to round.
 *
 * - HTTP: each build `--transport http --stateless --auth token-passthrough` (the Go server
 *   `-transport http`), raw `tools/call` POSTs with 32 in flight (http-load.mjs, as bench.mjs):
 *   `--cold-calls` from its start (processor time from spawn, start-up included: what a replica
 *   that has just started spends), then `--warm-bursts` bursts of `--calls` (processor time of
 *   those alone: a warmed replica).
 * - stdio: each server over its stdio (line-client.mjs), `--calls` sequential calls from its start
 *   (no warm-up, as bench.mjs) then as many again; p50/p99 and processor time of each half (the
 *   first pays for V8's compiling, on its own threads too).
 *
 * Ratios are to the Go server's figure of the same run. With `--through-sdk`, each HTTP call
 * carries an empty `_meta`, which cloudcall's stateless fast path leaves to the SDK: a server and
 * transport for each request (what any request other than a plain call costs).
 *
 * Usage: node tooling/bench/src/per-call.mjs [--rounds N] [--calls N] [--cold-calls N]
 *          [--warm-bursts N] [--no-reference] [--only http|stdio] [--through-sdk] [FILE ...]
 *        (default FILE: apps/mcp-server/dist/main.js)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { httpCaller, startCloudcallHttp, startReferenceHttp, untilAnswering } from './http-load.mjs';
import { LineClient } from './line-client.mjs';
import { benchEnv, findReference, median, percentile, positive, processorMs } from './measure.mjs';
import { startStandIn } from './stand-in.mjs';

const { values, positionals } = parseArgs({
  options: {
    rounds: { type: 'string', default: '4' },
    calls: { type: 'string', default: '2000' },
    'cold-calls': { type: 'string', default: '6000' },
    'warm-bursts': { type: 'string', default: '3' },
    'no-reference': { type: 'boolean' },
    only: { type: 'string' },
    'through-sdk': { type: 'boolean' },
  },
  allowPositionals: true,
});
const rounds = positive('--rounds', values.rounds);
const calls = positive('--calls', values.calls);
const coldCalls = positive('--cold-calls', values['cold-calls']);
const warmBursts = positive('--warm-bursts', values['warm-bursts']);
if (values.only !== undefined && values.only !== 'http' && values.only !== 'stdio') {
  process.stderr.write(`--only takes http or stdio, not ${values.only}\n`);
  process.exit(2);
}
const runs = { http: values.only !== 'stdio', stdio: values.only !== 'http' };
const builds = positionals.length
  ? positionals.map((file) => resolve(file))
  : [fileURLToPath(new URL('../../../apps/mcp-server/dist/main.js', import.meta.url))];
const reference = values['no-reference'] ? { missing: 'left out (--no-reference)' } : findReference();
const TOOL = 'key-list';
const IN_FLIGHT = 32;

const servers = [
  ...builds.map((file, index) => ({ name: `#${index + 1}`, label: file, file })),
  ...(reference.binary
    ? [{ name: 'Go', label: `@digitalocean/mcp ${reference.version}`, binary: reference.binary }]
    : []),
];
const sortedOf = (values) => [...values].sort((a, b) => a - b);

const api = await startStandIn();
const scratch = mkdtempSync(join(tmpdir(), 'cloudcall-per-call-'));
const env = benchEnv(scratch);
for (const server of servers) server.rounds = [];
try {
  // This process's own caller, client and stand-in warm up first, on a run that is not counted:
  // the server measured first would otherwise pay for their JIT.
  process.stderr.write('[per-call] warming up the load generator (not counted)\n');
  if (runs.http) await httpRound(servers[0]);
  if (runs.stdio) await stdioRound(servers[0]);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? [...servers].reverse() : servers;
    for (const server of order) {
      server.rounds.push({
        http: runs.http ? await httpRound(server) : undefined,
        stdio: runs.stdio ? await stdioRound(server) : undefined,
      });
    }
    process.stderr.write(`[per-call] round ${round + 1}/${rounds}\n`);
  }
  report();
} finally {
  await api.close();
  rmSync(scratch, { recursive: true, force: true });
}

function report() {
  const go = servers.find((server) => server.binary);
  const lines = [];
  for (const server of servers) {
    const figures = summary(server);
    server.figures = figures;
    lines.push(`${server.name} ${server.label}`);
    if (runs.http) {
      lines.push(
        `  HTTP:  ${figures.rate.toFixed(0)} calls/s (median of ${rounds} × ${warmBursts} warm bursts), p50/p99 ${figures.httpP50.toFixed(1)}/${figures.httpP99.toFixed(1)} ms`,
        `         processor time a call: ${figures.coldMs.toFixed(3)} ms over the first ${coldCalls} calls from spawn, ${figures.warmMs.toFixed(3)} ms warm`,
      );
    }
    if (runs.stdio) {
      lines.push(
        `  stdio, the first ${calls} calls: p50/p99 ${figures.firstP50.toFixed(2)}/${figures.firstP99.toFixed(2)} ms, ${figures.firstMs.toFixed(3)} ms of processor time a call`,
        `  stdio, the next ${calls}:       p50/p99 ${figures.laterP50.toFixed(2)}/${figures.laterP99.toFixed(2)} ms, ${figures.laterMs.toFixed(3)} ms of processor time a call`,
      );
    }
  }
  if (go) {
    lines.push('', `Against the Go server (ratios of the pooled figures; each round's in brackets):`);
    for (const server of servers) {
      if (server === go) continue;
      const ratio = (key) => server.figures[key] / go.figures[key];
      const perRound = (pick) =>
        server.rounds
          .map((round, index) => pick(round) / pick(go.rounds[index]))
          .map((value) => value.toFixed(2))
          .join(' ');
      lines.push(`${server.name}:`);
      if (runs.http) {
        lines.push(
          `  HTTP processor time a call, cold (first ${coldCalls} from spawn): ${ratio('coldMs').toFixed(2)}× [${perRound((round) => round.http.coldMs)}]  target ≤ 1×`,
          `  HTTP processor time a call, warm: ${ratio('warmMs').toFixed(2)}× [${perRound((round) => round.http.warmMs)}]  target ≤ 0.6×`,
        );
      }
      if (runs.stdio) {
        lines.push(
          `  stdio, the first ${calls} calls: p50 ${ratio('firstP50').toFixed(2)}× [${perRound((round) => percentile(sortedOf(round.stdio.first), 0.5))}], p99 ${ratio('firstP99').toFixed(2)}× [${perRound((round) => percentile(sortedOf(round.stdio.first), 0.99))}]  target ≤ 1×`,
          `  stdio, the next ${calls}: p50 ${ratio('laterP50').toFixed(2)}×, p99 ${ratio('laterP99').toFixed(2)}×`,
        );
      }
    }
  } else {
    lines.push('', `@digitalocean/mcp not measured: ${reference.missing}.`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** A server's figures pooled over its rounds. */
function summary(server) {
  const figures = {};
  if (runs.http) {
    const http = server.rounds.map((round) => round.http);
    const latencies = sortedOf(http.flatMap((run) => run.latencies));
    figures.rate = median(http.flatMap((run) => run.rates));
    figures.httpP50 = percentile(latencies, 0.5);
    figures.httpP99 = percentile(latencies, 0.99);
    figures.coldMs = http.reduce((sum, run) => sum + run.coldMs, 0) / http.length;
    figures.warmMs = http.reduce((sum, run) => sum + run.warmMs, 0) / http.length;
  }
  if (runs.stdio) {
    const stdio = server.rounds.map((round) => round.stdio);
    const first = sortedOf(stdio.flatMap((run) => run.first));
    const later = sortedOf(stdio.flatMap((run) => run.later));
    Object.assign(figures, {
      firstP50: percentile(first, 0.5),
      firstP99: percentile(first, 0.99),
      laterP50: percentile(later, 0.5),
      laterP99: percentile(later, 0.99),
      firstMs: stdio.reduce((sum, run) => sum + run.firstMs, 0) / (stdio.length * calls),
      laterMs: stdio.reduce((sum, run) => sum + run.laterMs, 0) / (stdio.length * calls),
    });
  }
  return figures;
}

/**
 * A fresh HTTP server: `coldCalls` calls from its start (processor time per call from spawn),
 * then `warmBursts` bursts of `calls` (processor time per call of those alone).
 */
async function httpRound(server) {
  const running = server.file
    ? await startCloudcallHttp(server.file, api.url, env)
    : await startReferenceHttp(server.binary, api.url, env);
  const caller = httpCaller(`http://127.0.0.1:${running.port}/mcp`, {
    tool: TOOL,
    inFlight: IN_FLIGHT,
    meta: Boolean(values['through-sdk']) && Boolean(server.file),
  });
  try {
    await untilAnswering(caller);
    await caller.burst(coldCalls - 1);
    const cold = processorMs(running.pid);
    const rates = [];
    const latencies = [];
    for (let i = 0; i < warmBursts; i++) {
      const run = await caller.burst(calls);
      rates.push(run.callsPerSecond);
      latencies.push(...run.latencies);
    }
    return {
      coldMs: cold / coldCalls,
      warmMs: (processorMs(running.pid) - cold) / (warmBursts * calls),
      rates,
      latencies,
    };
  } finally {
    caller.close();
    await running.stop();
  }
}

/** A fresh stdio server: `calls` sequential calls from its start, then as many again. */
async function stdioRound(server) {
  const client = server.file
    ? new LineClient(process.execPath, [server.file, '--api-url', api.url], env)
    : new LineClient(server.binary, ['-digitalocean-api-endpoint', api.url], env);
  try {
    await client.initialize();
    await client.request('tools/list', {});
    const marks = [processorMs(client.child.pid)];
    const latencies = [];
    for (let i = 0; i < 2 * calls; i++) {
      const start = performance.now();
      await client.call(TOOL, {});
      latencies.push(performance.now() - start);
      if (i === calls - 1 || i === 2 * calls - 1) marks.push(processorMs(client.child.pid));
    }
    const [start = 0, half = 0, end = 0] = marks;
    return {
      first: latencies.slice(0, calls),
      later: latencies.slice(calls),
      firstMs: half - start,
      laterMs: end - half,
    };
  } finally {
    await client.close();
  }
}
