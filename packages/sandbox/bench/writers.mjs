/**
 * What the state-file lock costs: one writer process against many on one state file.
 *
 * Each writer is a process that opens the sandbox on the shared state file and creates SSH keys
 * through the HTTP API with the core client, as `cloudcall --sandbox key-create` does, timing each
 * write from request to answer (lock wait, read, change, fsync, rename). The writers start
 * together; the single-writer run is the baseline of the same machine at the same moment.
 *
 *   pnpm --filter @cloudcall/sandbox bench            (16 writers, 20 writes each)
 *   node bench/writers.mjs --writers 8 --writes 50
 *
 * Run on the built package (dist): `pnpm bench` builds first.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const BUILT = new URL('../dist/index.js', import.meta.url);

if (process.argv[2] === 'writer') await writer(process.argv[3], process.argv[4], Number(process.argv[5]));
else await main();

async function main() {
  const { values } = parseArgs({
    options: {
      writers: { type: 'string', default: '16' },
      writes: { type: 'string', default: '20' },
      // Another build of the package to measure, such as a copy of main's dist: compare before/after.
      dist: { type: 'string' },
    },
  });
  const dist = values.dist === undefined ? BUILT : pathToFileURL(resolve(values.dist));
  const writers = positive(values.writers, '--writers');
  const writes = positive(values.writes, '--writes');
  if (!existsSync(fileURLToPath(dist))) {
    process.stderr.write(
      `${fileURLToPath(dist)} is missing: build first (pnpm --filter @cloudcall/sandbox build)\n`,
    );
    process.exit(1);
  }
  const root = mkdtempSync(join(tmpdir(), 'cloudcall-bench-writers-'));
  try {
    const one = await run(dist, root, 1, writes);
    const many = await run(dist, root, writers, writes);
    const rows = [
      ['writers', 'writes', 'mean ms', 'p50 ms', 'p95 ms', 'max ms', 'writes/s'],
      row(1, one),
      row(writers, many),
    ];
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
    for (const r of rows)
      process.stdout.write(`${r.map((c, i) => String(c).padStart(widths[i])).join('  ')}\n`);
    process.stdout.write(
      `\nper write, ${writers} writers / 1 writer: mean x${ratio(many.mean, one.mean)}, p50 x${ratio(many.p50, one.p50)}, p95 x${ratio(many.p95, one.p95)}` +
        `; throughput x${ratio(many.throughput, one.throughput)}\n`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function row(writers, result) {
  return [
    writers,
    result.count,
    result.mean.toFixed(1),
    result.p50.toFixed(1),
    result.p95.toFixed(1),
    result.max.toFixed(1),
    result.throughput.toFixed(0),
  ];
}

function ratio(a, b) {
  return (a / b).toFixed(1);
}

function positive(text, flag) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`${flag} must be a positive integer, not ${text}\n`);
    process.exit(2);
  }
  return value;
}

/** Starts `count` writer processes on a fresh state file, lets them write at once, collects timings. */
async function run(dist, root, count, writes) {
  const statePath = join(root, `state-${count}.json`);
  const children = Array.from({ length: count }, () => {
    const child = spawn(
      process.execPath,
      [fileURLToPath(import.meta.url), 'writer', dist.href, statePath, String(writes)],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    const lines = createInterface({ input: child.stdout });
    const ready = new Promise((resolve) => lines.once('line', resolve));
    const done = new Promise((resolve, reject) => {
      let last = '';
      lines.on('line', (line) => {
        last = line;
      });
      child.on('close', (code) => {
        if (code === 0) resolve(JSON.parse(last));
        else reject(new Error(`a writer exited with ${code}`));
      });
    });
    return { child, ready, done };
  });
  await Promise.all(children.map((c) => c.ready));
  const started = performance.now();
  for (const c of children) c.child.stdin.end('go\n');
  const timings = (await Promise.all(children.map((c) => c.done))).flat();
  const elapsed = performance.now() - started;

  // A benchmark that lost writes would measure nothing worth having.
  const { readStateFile } = await import(dist.href);
  const saved = readStateFile(statePath).sshKeys.length;
  if (saved !== count * writes) throw new Error(`${count * writes} keys created but ${saved} saved`);

  timings.sort((a, b) => a - b);
  const at = (q) => timings[Math.min(timings.length - 1, Math.floor(q * timings.length))];
  return {
    count: timings.length,
    mean: timings.reduce((sum, t) => sum + t, 0) / timings.length,
    p50: at(0.5),
    p95: at(0.95),
    max: timings[timings.length - 1],
    throughput: (timings.length / elapsed) * 1000,
  };
}

/** One writer process: opens the sandbox, waits for "go", creates keys, prints its timings. */
async function writer(dist, statePath, writes) {
  const { connectSandbox, sshPublicKey } = await import(dist);
  const { client, close } = await connectSandbox({ statePath });
  const keys = Array.from({ length: writes }, (_, i) => sshPublicKey(`bench-${process.pid}-${i}`));
  process.stdout.write('ready\n');
  const lines = createInterface({ input: process.stdin });
  await new Promise((resolve) => lines.once('line', resolve));
  lines.close();
  const timings = [];
  for (const [i, publicKey] of keys.entries()) {
    const start = performance.now();
    await client.request({
      method: 'POST',
      path: '/v2/account/keys',
      body: { name: `bench-${process.pid}-${i}`, public_key: publicKey },
    });
    timings.push(performance.now() - start);
  }
  await close();
  process.stdout.write(`${JSON.stringify(timings)}\n`);
}
