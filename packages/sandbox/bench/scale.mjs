/**
 * What a change and a page cost as the account grows: a sandbox on a state file holding 500, 3,000
 * and 10,000 of each of VMs, tags, domains (with their records) and volumes, asked over HTTP for
 * writes (create a tag, tag a VM, add a DNS record, rename a VM, create a volume) and for a page
 * of 50 from the middle of each list. The sizes are served side by side and asked in turn, request
 * by request, so what else the machine does falls on all of them alike. Each figure is the median
 * of `--samples` requests; the writes at each size are also given as a multiple of the same write
 * at the smallest size (the machine's speed cancels out).
 *
 *   pnpm --filter @cloudcall/sandbox bench          (with the writers' bench)
 *   node bench/scale.mjs --sizes 500,3000,10000 --samples 40
 *
 * Run on the built package (dist): `pnpm bench` builds first. The accounts are made by calling
 * the sandbox's own route handlers on a world in memory, then saved as one snapshot.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '500,3000,10000' },
    samples: { type: 'string', default: '40' },
    dist: { type: 'string', default: new URL('../dist/', import.meta.url).pathname },
  },
});
const sizes = values.sizes.split(',').map(Number);
const samples = Number(values.samples);
if (!sizes.every((n) => Number.isInteger(n) && n > 0) || !(samples > 0)) {
  process.stderr.write('--sizes takes positive integers, --samples a positive number\n');
  process.exit(2);
}
const dist = values.dist.endsWith('/') ? values.dist : `${values.dist}/`;
const { startSandbox, Store, seedWorld, sshPublicKey } = await import(`${dist}index.js`);
const { sandboxRouter } = await import(`${dist}routes/index.js`);

/** Calls a route's handler on a world in memory, as a request would. */
function call(world, method, path, body = {}, now = Date.now()) {
  const [bare, search = ''] = path.split('?');
  const match = sandboxRouter().match(method, bare);
  if (!match.route) throw new Error(`no route for ${method} ${path}`);
  const request = {
    method,
    params: match.params,
    query: new URLSearchParams(search),
    body,
    baseUrl: 'http://127.0.0.1',
    path: bare,
    now,
  };
  return match.route.handler(request, world).body;
}

/** A world of `n` VMs, tags, domains and volumes, made by the sandbox's own handlers. */
function account(n) {
  const world = seedWorld();
  // An account at this size has had its limits raised, as the platform's support does.
  world.account.droplet_limit = 2 * n + 1000;
  world.account.volume_limit = 2 * n + 1000;
  const past = Date.now() - 3_600_000;
  for (let i = 0; i < n; i++) {
    call(world, 'POST', '/v2/tags', { name: `tag-${i}` }, past);
    call(world, 'POST', '/v2/domains', { name: `site-${i}.example.com` }, past);
    call(world, 'POST', '/v2/volumes', { name: `vol-${i}`, region: 'nyc3', size_gigabytes: 10 }, past);
  }
  for (let i = 0; i < n; i += 10) {
    const names = Array.from({ length: Math.min(10, n - i) }, (_, k) => `vm-${i + k}`);
    call(
      world,
      'POST',
      '/v2/droplets',
      { names, region: 'nyc3', size: 's-1vcpu-1gb', image: 'ubuntu-24-04-x64' },
      past,
    );
  }
  call(world, 'POST', '/v2/account/keys', { name: 'bench', public_key: sshPublicKey() }, past);
  return world;
}

async function timed(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function send(url, method, path, json, expected) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await response.text();
  if (response.status !== expected)
    throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
  return text === '' ? undefined : JSON.parse(text);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/** A sandbox on a state file holding an account of `n` of each, and the requests measured on it. */
async function prepare(n, root) {
  const path = join(root, `account-${n}.json`);
  const built = account(n);
  const store = new Store({ path, seed: () => built });
  await store.open();
  const bytes = statSync(path).size;
  const sandbox = await startSandbox({ statePath: path });
  const droplets = (await send(sandbox.url, 'GET', '/v2/droplets?per_page=200', undefined, 200)).droplets;
  const middle = Math.max(1, Math.floor(n / 100));
  const writes = {
    'create a tag': (i) => send(sandbox.url, 'POST', '/v2/tags', { name: `new-${i}` }, 201),
    'tag a VM': (i) =>
      send(
        sandbox.url,
        'POST',
        `/v2/tags/tag-${Math.floor(n / 2)}/resources`,
        { resources: [{ resource_id: String(droplets[i % droplets.length].id), resource_type: 'droplet' }] },
        204,
      ),
    'add a DNS record': (i) =>
      send(
        sandbox.url,
        'POST',
        `/v2/domains/site-${Math.floor(n / 2)}.example.com/records`,
        { type: 'A', name: `www${i}`, data: '192.0.2.1', ttl: 1800 },
        201,
      ),
    'rename a VM': (i) =>
      send(
        sandbox.url,
        'POST',
        `/v2/droplets/${droplets[i % droplets.length].id}/actions`,
        { type: 'rename', name: `renamed-${i}` },
        201,
      ),
    'create a volume': (i) =>
      send(
        sandbox.url,
        'POST',
        '/v2/volumes',
        { name: `more-${i}`, region: 'nyc3', size_gigabytes: 10 },
        201,
      ),
  };
  const pages = {
    'page of VMs': `/v2/droplets?per_page=50&page=${middle}`,
    'page of tags': `/v2/tags?per_page=50&page=${middle}`,
    'page of domains': `/v2/domains?per_page=50&page=${middle}`,
    'page of volumes': `/v2/volumes?per_page=50&page=${middle}`,
  };
  const requests = {
    ...writes,
    ...Object.fromEntries(
      Object.entries(pages).map(([name, path]) => [
        name,
        () => send(sandbox.url, 'GET', path, undefined, 200),
      ]),
    ),
  };
  return { n, bytes, sandbox, requests, writes: Object.keys(writes), pages: Object.keys(pages) };
}

/**
 * Every request on every account in turn, `samples` times (a warm-up round first), so that what
 * else the machine does falls on all sizes alike; the median of each.
 */
async function measure(accounts) {
  for (const account of accounts)
    for (const request of Object.values(account.requests)) await request(samples);
  const times = new Map(accounts.map((account) => [account, new Map()]));
  for (let i = 0; i < samples; i++) {
    for (const account of accounts) {
      const own = times.get(account);
      for (const [name, request] of Object.entries(account.requests)) {
        own.set(name, [...(own.get(name) ?? []), await timed(() => request(i))]);
      }
    }
  }
  return accounts.map((account) => {
    const own = times.get(account);
    const pick = (names) => Object.fromEntries(names.map((name) => [name, median(own.get(name))]));
    return { n: account.n, bytes: account.bytes, writes: pick(account.writes), pages: pick(account.pages) };
  });
}

const root = mkdtempSync(join(tmpdir(), 'cloudcall-bench-scale-'));
try {
  const accounts = [];
  for (const n of sizes) accounts.push(await prepare(n, root));
  let results;
  try {
    results = await measure(accounts);
  } finally {
    for (const account of accounts) await account.sandbox.close();
  }
  const base = results[0];
  const header = ['', ...results.map((r) => `${r.n.toLocaleString('en')} each`)];
  const rows = [
    ['state file', ...results.map((r) => `${(r.bytes / 1048576).toFixed(1)} MiB`)],
    ...Object.keys(base.writes).map((name) => [
      `${name} (ms)`,
      ...results.map(
        (r) => `${r.writes[name].toFixed(2)} (x${(r.writes[name] / base.writes[name]).toFixed(2)})`,
      ),
    ]),
    ...Object.keys(base.pages).map((name) => [
      `${name}, 50 (ms)`,
      ...results.map((r) => r.pages[name].toFixed(2)),
    ]),
  ];
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => String(row[i]).length)));
  for (const row of [header, ...rows]) {
    process.stdout.write(
      `${row.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  ')}\n`,
    );
  }
  const last = results[results.length - 1];
  const worstWrite = Math.max(
    ...Object.keys(base.writes).map((name) => last.writes[name] / base.writes[name]),
  );
  const worstPage = Math.max(...Object.values(last.pages));
  process.stdout.write(
    `\nat ${last.n.toLocaleString('en')}: the costliest write is x${worstWrite.toFixed(2)} the same write at ${base.n.toLocaleString('en')} (target 1.5), the slowest page of 50 ${worstPage.toFixed(1)} ms (target 50)\n`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
