/**
 * Throughput of the MCP server as a team service: N stateless replicas (token passthrough) of the
 * built server behind a real nginx (round-robin, the project's deploy/mcp-proxy.conf), called
 * with raw JSON-RPC POSTs (`tools/call`, each with the caller's bearer token) and a fixed number
 * in flight (./http-load.mjs). Comparing 1 and 3 replicas on the same machine in the same run gives the ratio.
 */
import { findNginx, startNginx } from '@cloudcall/testing/nginx';
import { httpCaller, startListening } from './http-load.mjs';

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
  const caller = httpCaller(nginx.url, {
    tool,
    inFlight,
    describe: () => `\nnginx error log: ${nginx.errorLog().slice(-2000)}`,
  });
  return {
    /** Calls per second over `total` calls with `inFlight` outstanding at all times. */
    async burst(total) {
      return (await caller.burst(total)).callsPerSecond;
    },
    async stop() {
      caller.close();
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
  return startListening(process.execPath, args, env, /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/);
}
