/**
 * Load over Streamable HTTP: raw JSON-RPC POSTs (`tools/call`, each with the caller's bearer
 * token) with a fixed number in flight, over keep-alive connections (node:http, as a proxy or an
 * SDK client keeps them). Shared by the one-process comparison (ours and the reference's, each
 * on its own port) and the replicas behind nginx.
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { peakRssMiB } from './line-client.mjs';
import { percentile, processorMs } from './measure.mjs';

/** The headers an MCP client sends with a call, after initialize, at 2025-06-18. */
const HEADERS = {
  authorization: 'Bearer bench-caller-token',
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

/**
 * A caller of `tool` at `url` with at most `inFlight` connections; `describe` says more when an
 * answer is not a successful result (nginx's error log). With `meta`, each call carries an empty
 * `_meta`, which cloudcall's stateless fast path leaves to the SDK's server and transport.
 */
export function httpCaller(url, { tool, inFlight, describe = () => '', meta = false }) {
  const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
  const target = new URL(url);
  let id = 0;
  const callOnce = () =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/call',
        params: { name: tool, arguments: {}, ...(meta ? { _meta: {} } : {}) },
      });
      const req = request(
        target,
        { method: 'POST', agent, headers: { ...HEADERS, 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () => {
            let answer;
            try {
              answer = JSON.parse(text);
            } catch {}
            if (res.statusCode !== 200 || !answer?.result || answer.result.isError) {
              reject(
                new Error(`${tool} at ${url} answered ${res.statusCode}: ${text.slice(0, 300)}${describe()}`),
              );
            } else {
              resolve();
            }
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return {
    /**
     * `total` calls with `inFlight` outstanding at all times: calls per second, and each call's
     * latency from its request to its whole answer.
     */
    async burst(total) {
      const latencies = new Float64Array(total);
      const start = performance.now();
      let sent = 0;
      const worker = async () => {
        while (sent < total) {
          const index = sent++;
          const began = performance.now();
          await callOnce();
          latencies[index] = performance.now() - began;
        }
      };
      await Promise.all(Array.from({ length: inFlight }, worker));
      const callsPerSecond = total / ((performance.now() - start) / 1000);
      return { callsPerSecond, latencies: [...latencies].sort((a, b) => a - b) };
    },
    close: () => agent.destroy(),
  };
}

/**
 * Starts `command args` and resolves once `listening` (a RegExp with the port as its first group)
 * matches what it writes to stdout or stderr (at once without one); both are then drained unread.
 * Its pid is there for its peak RSS.
 */
export function startListening(command, args, env, listening) {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const port = listening ? listening.exec(output)?.[1] : '0';
      if (!port) return;
      for (const stream of [child.stdout, child.stderr]) {
        stream.off('data', onData);
        stream.resume();
      }
      resolve({
        port: Number(port),
        pid: child.pid,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    };
    for (const stream of [child.stdout, child.stderr]) stream.setEncoding('utf8').on('data', onData);
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code}: ${output}`)));
    if (!listening) onData('');
  });
}

/**
 * Ours over HTTP as a team runs it: `--stateless --auth token-passthrough`, on a port of its own
 * choosing, resolved once it says where it listens.
 */
export function startCloudcallHttp(main, apiUrl, env) {
  return startListening(
    process.execPath,
    [
      ...[main, '--transport', 'http', '--port', '0', '--stateless', '--auth', 'token-passthrough'],
      ...['--api-url', apiUrl, '--allowed-hosts', '127.0.0.1'],
    ],
    env,
    /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/,
  );
}

/** The reference over HTTP (`-transport http`): its port is ours to give; it says nothing when up. */
export async function startReferenceHttp(binary, apiUrl, env) {
  const port = await freePort();
  const server = await startListening(
    binary,
    ['-transport', 'http', '-bind-addr', `127.0.0.1:${port}`, '-digitalocean-api-endpoint', apiUrl],
    env,
    undefined,
  );
  return { ...server, port };
}

/**
 * One process each over HTTP, ours (`--stateless --auth token-passthrough`) and the reference's
 * (`--transport http`), against the same API, with the same load. Each starts cold and gets
 * `coldCalls` calls with `inFlight` outstanding: its processor time from spawn to the last of
 * them, per call, is the cold figure (start-up, loading, V8 compiling the call path: what a
 * replica that has just started spends). Then `bursts` bursts of `calls` calls each, alternating
 * (ours, theirs, ours...) so a change in the machine's load falls on both: their processor time
 * per call is the warm figure, calls/s the median burst, p50/p99 over every call of them; peak
 * RSS after all of them.
 */
export async function httpComparison({
  main,
  reference,
  apiUrl,
  env,
  tool,
  calls,
  coldCalls,
  bursts,
  inFlight,
}) {
  const servers = [];
  try {
    servers.push({ name: 'cloudcall', ...(await startCloudcallHttp(main, apiUrl, env)) });
    if (reference) servers.push({ name: 'reference', ...(await startReferenceHttp(reference, apiUrl, env)) });
    for (const server of servers) {
      server.caller = httpCaller(`http://127.0.0.1:${server.port}/mcp`, { tool, inFlight });
      // The first call that succeeds is the first of the cold ones.
      await untilAnswering(server.caller);
      await server.caller.burst(coldCalls - 1);
      server.coldMs = processorMs(server.pid);
      server.runs = [];
      server.warmMs = 0;
    }
    for (let i = 0; i < bursts; i++) {
      for (const server of servers) {
        const before = processorMs(server.pid);
        server.runs.push(await server.caller.burst(calls));
        server.warmMs += processorMs(server.pid) - before;
      }
    }
    return Object.fromEntries(
      servers.map((server) => {
        const rates = server.runs.map((run) => run.callsPerSecond).sort((a, b) => a - b);
        const latencies = server.runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
        return [
          server.name,
          {
            callsPerSecond: rates[rates.length >> 1],
            callsPerSecondBursts: server.runs.map((run) => run.callsPerSecond),
            p50Ms: percentile(latencies, 0.5),
            p99Ms: percentile(latencies, 0.99),
            peakRssMiB: peakRssMiB(server.pid),
            coldProcessorMsPerCall: server.coldMs === undefined ? undefined : server.coldMs / coldCalls,
            warmProcessorMsPerCall: Number.isNaN(server.warmMs)
              ? undefined
              : server.warmMs / (bursts * calls),
          },
        ];
      }),
    );
  } finally {
    for (const server of servers) server.caller?.close();
    await Promise.all(servers.map((server) => server.stop()));
  }
}

/** A loopback port free at the moment (for a server that cannot pick its own and say which). */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Calls until one succeeds (a server listening a moment after it started), for up to 10 s. */
export async function untilAnswering(caller) {
  const deadline = performance.now() + 10_000;
  for (;;) {
    try {
      await caller.burst(1);
      return;
    } catch (error) {
      if (performance.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
