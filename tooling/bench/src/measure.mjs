/**
 * How the benchmarks time a process: spawn to exit (its output checked), or spawn to the MCP
 * `tools/list` answer; and the statistics they report. Shared by bench.mjs and one-file.mjs.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';

/** Spawn to exit, with the output checked: a fast failure is not a fast command. */
export function timeProcess(command, args, env, check) {
  return new Promise((resolvePromise, reject) => {
    const start = performance.now();
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text) => {
      stderr += text;
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - start;
      const problem = code === 0 ? check?.(stdout) : `exit code ${code}`;
      if (problem)
        reject(
          new Error(`${[command, ...args].join(' ')}: ${problem}\nstdout: ${stdout}\nstderr: ${stderr}`),
        );
      else resolvePromise({ ms });
    });
  });
}

export function expectVersion(stdout) {
  return /^\d+\.\d+\.\d+/.test(stdout.trim()) ? undefined : 'no version printed';
}

export function expectJson(stdout) {
  try {
    JSON.parse(stdout);
    return undefined;
  } catch {
    return 'no JSON printed';
  }
}

/**
 * Spawn to the `tools/list` answer, with the official SDK client over stdio (initialize, then
 * tools/list). The listing is requested with the protocol's loose result schema rather than
 * `listTools()`, which also compiles a validator for every output schema: client work, not the
 * server's.
 */
export async function coldStart(command, args, env) {
  const start = performance.now();
  const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.setEncoding('utf8').on('data', (text) => {
    stderr = (stderr + text).slice(-4000);
  });
  const client = new Client({ name: 'cloudcall-bench', version: '0.0.0' });
  try {
    await client.connect(transport);
    const initializedMs = performance.now() - start;
    const listed = await client.request({ method: 'tools/list', params: {} }, ResultSchema);
    const ms = performance.now() - start;
    const tools = Array.isArray(listed.tools) ? listed.tools.length : 0;
    if (!tools) throw new Error('tools/list listed no tools');
    return { ms, initializedMs, tools };
  } catch (error) {
    throw new Error(`${[command, ...args].join(' ')}: ${error.message}\nstderr: ${stderr}`);
  } finally {
    // Waits for the server to exit, so it does not run into the next measurement.
    await client.close();
  }
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

export function median(values) {
  const sorted = values.filter((v) => v !== undefined).sort((a, b) => a - b);
  if (!sorted.length) return undefined;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function shuffle(items) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/**
 * One environment for every measured process, `node -e 0` included: the SDK transport's default
 * set (PATH, HOME...), a home and config home of our own under `home` so nothing reads or writes
 * the user's, and a fake token.
 */
export function benchEnv(home, extra = {}) {
  return {
    ...getDefaultEnvironment(),
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    DIGITALOCEAN_API_TOKEN: 'bench-token-not-a-secret',
    // The HTTP loads are one caller's: its share of --max-in-flight (a quarter by default) must not
    // turn its own calls away. Builds from before the share, and stdio, ignore the variable.
    CLOUDCALL_MAX_IN_FLIGHT_PER_CALLER: '64',
    ...extra,
  };
}

/** The whole number (1 or more) given to a flag; otherwise says so and exits 2. */
export function positive(flag, text) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`${flag} must be a positive whole number, not ${text}\n`);
    process.exit(2);
  }
  return value;
}

/**
 * Processor time of every thread of `pid` so far, in ms (each thread's run time from
 * /proc/PID/task/TID/schedstat, in nanoseconds): what a server spends, whatever the machine's
 * load makes it wait. undefined where /proc is missing.
 */
export function processorMs(pid) {
  let tasks;
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let ns = 0;
  for (const task of tasks) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read: its time is gone with it.
    }
  }
  return ns / 1e6;
}

/**
 * The platform's Go server (`@digitalocean/mcp`, an optional dependency of this package): its
 * binary for this platform, as the package's own launcher would pick it, and its version; or why
 * it cannot be measured.
 */
export function findReference() {
  const require = createRequire(import.meta.url);
  let packageJson;
  try {
    packageJson = require.resolve('@digitalocean/mcp/package.json');
  } catch {
    return {
      missing: '@digitalocean/mcp is not installed (an optional dependency: pnpm install fetches it)',
    };
  }
  const manifest = JSON.parse(readFileSync(packageJson, 'utf8'));
  const name = manifest['mcp-server-binaries']?.[`mcp-digitalocean-${process.platform}-${process.arch}`];
  if (!name) return { missing: `@digitalocean/mcp has no binary for ${process.platform}-${process.arch}` };
  const binary = join(dirname(packageJson), name);
  if (!existsSync(binary)) return { missing: `${binary} is missing` };
  return { binary, version: manifest.version };
}
