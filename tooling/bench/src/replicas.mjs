/**
 * Throughput of the MCP server as a team service: N stateless replicas (token passthrough) of the
 * built server behind a real nginx (round-robin, the project's deploy/mcp-proxy.conf), called
 * with raw JSON-RPC POSTs (`tools/call`, each with the caller's bearer token) and a fixed number
 * in flight. Comparing 1 and 3 replicas on the same machine in the same run gives the ratio.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { findNginx, startNginx } from '@cloudcall/testing/nginx';

/** Why replicas cannot be measured here (nginx missing), or undefined. */
export function replicasMissing() {
  try {
    findNginx();
    return undefined;
  } catch (error) {
    return error.message;
  }
}

/**
 * Calls per second through nginx to 1 and to 3 replicas, and their ratio. Both sets run from the
 * start and their bursts alternate (1, 3, 1, 3...), so a change in the machine's load during the
 * run falls on both alike; each figure is the median of its `bursts`, after a warm-up burst each.
 */
export async function replicaScaling({ main, apiUrl, env, tool, calls, bursts, inFlight }) {
  const sets = [];
  try {
    for (const count of [1, 3]) sets.push(await startSet(count, { main, apiUrl, env, tool, inFlight }));
    // A whole burst each first: every replica JIT-compiles its hot paths before anything counts.
    for (const set of sets) await set.burst(calls);
    const results = sets.map(() => []);
    for (let i = 0; i < bursts; i++) {
      for (const [index, set] of sets.entries()) results[index].push(await set.burst(calls));
    }
    const [one, three] = results.map((runs) => {
      const sorted = [...runs].sort((x, y) => x - y);
      return { callsPerSecond: sorted[sorted.length >> 1], bursts: runs };
    });
    return { one, three, ratio: three.callsPerSecond / one.callsPerSecond };
  } finally {
    await Promise.all(sets.map((set) => set.stop()));
  }
}

/** `count` replicas behind their own nginx, and a burst of calls through it. */
async function startSet(count, { main, apiUrl, env, tool, inFlight }) {
  const servers = [];
  for (let i = 0; i < count; i++) servers.push(await startReplica(main, apiUrl, env));
  const nginx = await startNginx({ upstreams: servers.map((server) => server.port) });
  let id = 0;
  const callOnce = async () => {
    const answer = await fetch(nginx.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer bench-caller-token',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method: 'tools/call',
        params: { name: tool, arguments: {} },
      }),
    });
    const text = await answer.text();
    let body;
    try {
      body = JSON.parse(text);
    } catch {}
    if (answer.status !== 200 || !body?.result || body.result.isError) {
      throw new Error(
        `${tool} through nginx answered ${answer.status}: ${text.slice(0, 300)}\nnginx error log: ${nginx.errorLog().slice(-2000)}`,
      );
    }
  };
  return {
    /** Calls per second over `total` calls with `inFlight` outstanding at all times. */
    async burst(total) {
      const start = performance.now();
      let sent = 0;
      const worker = async () => {
        while (sent < total) {
          sent++;
          await callOnce();
        }
      };
      await Promise.all(Array.from({ length: inFlight }, worker));
      return total / ((performance.now() - start) / 1000);
    },
    async stop() {
      await nginx.stop();
      await Promise.all(servers.map((server) => server.stop()));
    },
  };
}

/** One replica on a free loopback port; resolves once it says where it listens. */
function startReplica(main, apiUrl, env) {
  const args = [
    ...[main, '--transport', 'http', '--port', '0', '--stateless', '--auth', 'token-passthrough'],
    ...['--api-url', apiUrl, '--allowed-hosts', '127.0.0.1'],
  ];
  // Logging as a service does (a JSON line per request), read and dropped.
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const port = /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(output)?.[1];
      if (!port) return;
      // From here on stderr is drained unread, so the replica never blocks on a full pipe.
      child.stderr.off('data', onData);
      child.stderr.resume();
      resolve({
        port: Number(port),
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    };
    child.stderr.setEncoding('utf8').on('data', onData);
    child.once('exit', (code) => reject(new Error(`replica exited with ${code}: ${output}`)));
  });
}
