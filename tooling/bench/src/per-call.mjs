#!/usr/bin/env node
/**
 * Per-call cost of MCP server builds side by side, quicker than the whole bench and with the
 * figure a busy machine disturbs least: the server's processor time per call (all its threads,
 * from /proc/PID/task/TID/schedstat), beside calls/s and latency. Give two builds (a copy of
 * main's dist, this checkout's) to compare a change under the same load: their rounds alternate.
 *
 * - HTTP: each build `--transport http --stateless --auth token-passthrough`, raw `tools/call`
 *   POSTs with 32 in flight (http-load.mjs, as bench.mjs), a warm-up burst, then `--rounds`
 *   bursts of `--calls` each.
 * - stdio: each build over its stdio (line-client.mjs), `--calls` sequential calls from start
 *   (no warm-up, as bench.mjs) then as many again; p50/p99 and processor time of each half
 *   (the first pays for V8's compiling, on its own threads too).
 *
 * Usage: node tooling/bench/src/per-call.mjs [--rounds N] [--calls N] [FILE ...]
 *        (default FILE: apps/mcp-server/dist/main.js)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { httpCaller, startListening } from './http-load.mjs';
import { LineClient } from './line-client.mjs';
import { benchEnv, median, percentile, positive } from './measure.mjs';
import { startStandIn } from './stand-in.mjs';

const { values, positionals } = parseArgs({
  options: {
    rounds: { type: 'string', default: '6' },
    calls: { type: 'string', default: '2000' },
  },
  allowPositionals: true,
});
const rounds = positive('--rounds', values.rounds);
const calls = positive('--calls', values.calls);
const builds = positionals.length
  ? positionals.map((file) => resolve(file))
  : [fileURLToPath(new URL('../../../apps/mcp-server/dist/main.js', import.meta.url))];
const TOOL = 'key-list';

/** Processor time of every thread of `pid` so far, in ms. */
function processorMs(pid) {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read: its time is gone with it.
    }
  }
  return ns / 1e6;
}

const sortedOf = (values) => [...values].sort((a, b) => a - b);

const api = await startStandIn();
const scratch = mkdtempSync(join(tmpdir(), 'cloudcall-per-call-'));
const env = benchEnv(scratch);
const results = builds.map(() => ({ http: { rates: [], latencies: [], ms: 0, calls: 0 }, stdio: [] }));
const servers = [];
try {
  for (const file of builds) {
    const server = await startListening(
      process.execPath,
      [
        ...[file, '--transport', 'http', '--port', '0', '--stateless', '--auth', 'token-passthrough'],
        ...['--api-url', api.url, '--allowed-hosts', '127.0.0.1'],
      ],
      env,
      /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/,
    );
    server.caller = httpCaller(`http://127.0.0.1:${server.port}/mcp`, { tool: TOOL, inFlight: 32 });
    servers.push(server);
    await server.caller.burst(calls);
  }
  for (let round = 0; round < rounds; round++) {
    for (const [index, file] of builds.entries()) {
      const server = servers[index];
      const http = results[index].http;
      const before = processorMs(server.pid);
      const run = await server.caller.burst(calls);
      http.ms += processorMs(server.pid) - before;
      http.calls += calls;
      http.rates.push(run.callsPerSecond);
      http.latencies.push(...run.latencies);
      results[index].stdio.push(await stdioRound(file));
    }
    process.stderr.write(`[per-call] round ${round + 1}/${rounds}\n`);
  }
  for (const [index, file] of builds.entries()) {
    const { http, stdio } = results[index];
    const latencies = sortedOf(http.latencies);
    const first = sortedOf(stdio.flatMap((run) => run.first));
    const later = sortedOf(stdio.flatMap((run) => run.later));
    const perCall = (key) => stdio.reduce((sum, run) => sum + run[key], 0) / (stdio.length * calls);
    process.stdout.write(
      [
        `#${index + 1} ${file}`,
        `  HTTP:  ${median(http.rates).toFixed(0)} calls/s (median of ${rounds}), p50/p99 ${percentile(latencies, 0.5).toFixed(1)}/${percentile(latencies, 0.99).toFixed(1)} ms, ${(http.ms / http.calls).toFixed(3)} ms of processor time a call`,
        `  stdio, the first ${calls} calls: p50/p99 ${percentile(first, 0.5).toFixed(2)}/${percentile(first, 0.99).toFixed(2)} ms, ${perCall('firstMs').toFixed(3)} ms of processor time a call`,
        `  stdio, the next ${calls}:       p50/p99 ${percentile(later, 0.5).toFixed(2)}/${percentile(later, 0.99).toFixed(2)} ms, ${perCall('laterMs').toFixed(3)} ms of processor time a call`,
        '',
      ].join('\n'),
    );
  }
} finally {
  for (const server of servers) server.caller.close();
  await Promise.all(servers.map((server) => server.stop()));
  await api.close();
  rmSync(scratch, { recursive: true, force: true });
}

/** A fresh stdio server: `calls` sequential calls from its start, then as many again. */
async function stdioRound(file) {
  const client = new LineClient(process.execPath, [file, '--api-url', api.url], env);
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
