/**
 * What a start loads, read from the built CLI as Node loads it: help, completion and --version
 * answer from the build-time index, without the tools' definitions (zod schemas), the guard, the
 * HTTP client or the sandbox; a command that runs a tool loads its own family and no other;
 * `--sandbox` answers in process (no server, no socket) and no command loads undici. Each loaded
 * chunk is known by its source map's sources (the build keeps the maps in dist/).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sshPublicKey } from '@cloudcall/sandbox';
import { describe, expect, it } from 'vitest';
import { MAIN } from './testing/run.js';

const work = mkdtempSync(join(tmpdir(), 'cloudcall-start-up-'));
// A module hook that writes down every ES module Node loads (hooks run on a thread of their own);
// the CommonJS modules a run required are written down at its exit (register.mjs, below).
writeFileSync(
  join(work, 'hooks.mjs'),
  `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_LOG, url + '\\n');
  return next(url, context);
}
`,
);
// And every socket the run connects or server it starts (in this thread: the run's own).
writeFileSync(
  join(work, 'register.mjs'),
  `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import net from 'node:net';
import { pathToFileURL } from 'node:url';
register(${JSON.stringify(pathToFileURL(join(work, 'hooks.mjs')).href)});
const required = createRequire(import.meta.url).cache;
process.once('exit', () => {
  for (const file of Object.keys(required)) appendFileSync(process.env.LOADED_LOG, pathToFileURL(file).href + '\\n');
  // And Node's own modules it loaded (NativeModule child_process), as node:child_process.
  for (const entry of process.moduleLoadList)
    if (entry.startsWith('NativeModule ')) appendFileSync(process.env.LOADED_LOG, 'node:' + entry.slice(13) + '\\n');
});
// And which of the standard streams it made (Node makes each when first read).
for (const name of ['stdin', 'stdout', 'stderr']) {
  const made = Object.getOwnPropertyDescriptor(process, name);
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: made.enumerable,
    get() {
      appendFileSync(process.env.NET_LOG, name + '\\n');
      const stream = made.get.call(process);
      Object.defineProperty(process, name, { value: stream, configurable: true, enumerable: made.enumerable });
      return stream;
    },
  });
}
for (const [proto, name] of [[net.Server.prototype, 'listen'], [net.Socket.prototype, 'connect']]) {
  const original = proto[name];
  proto[name] = function (...args) {
    appendFileSync(process.env.NET_LOG, name + '\\n');
    return original.apply(this, args);
  };
}
`,
);

let runs = 0;

/**
 * What a run of the built CLI did: the sockets it connected or listened on, and the standard
 * streams it made, one line each.
 */
const network: string[][] = [];
const streams: string[][] = [];
/** Node's own modules each run loaded (`node:child_process`). */
const builtins: string[][] = [];
const STREAMS = ['stdin', 'stdout', 'stderr'];

/** A run of the built CLI with a preload (`--import FILE` or `--require FILE`), its home `work`. */
function runBuilt(preload: string[], args: string[], env: Record<string, string>, status = 0) {
  const run = spawnSync(process.execPath, [...preload, MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: work, XDG_CONFIG_HOME: join(work, 'config'), ...env },
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).toBe(status);
  return run;
}

/** The sources bundled into the files a run of the built CLI loaded (exit 0 unless told). */
function loadedSources(args: string[], more: Record<string, string> = {}, status = 0): string[] {
  const log = join(work, `loaded-${runs}.txt`);
  const netLog = join(work, `net-${runs++}.txt`);
  writeFileSync(log, '');
  writeFileSync(netLog, '');
  runBuilt(
    ['--import', join(work, 'register.mjs')],
    args,
    { LOADED_LOG: log, NET_LOG: netLog, ...more },
    status,
  );
  const lines = readFileSync(netLog, 'utf8').split('\n').filter(Boolean);
  network.push(lines.filter((line) => !STREAMS.includes(line)));
  streams.push(lines.filter((line) => STREAMS.includes(line)));
  builtins.push(
    readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('node:')),
  );
  const files = [
    ...new Set(
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((url) => url.startsWith('file:') && url.includes('/dist/'))
        .map((url) => fileURLToPath(url)),
    ),
  ];
  expect(files).toContain(MAIN);
  return files.flatMap((file) => {
    // A chunk with no map only re-exports others (which are loaded, and listed, themselves).
    if (file === MAIN || !existsSync(`${file}.map`)) return [file];
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
    return map.sources;
  });
}

const FAMILIES = ['account', 'databases', 'networking', 'vms', 'images'];
const heavy = (sources: string[]) =>
  sources.filter((source) =>
    /node_modules\/(zod|undici|string-width)\/|packages\/(guard|sandbox|wait|account|databases|networking|vms|images)\/|packages\/api\/dist\/(model|operations)/.test(
      source,
    ),
  );
/** The families whose index entries (src/tool-index/<family>.generated.ts) a run loaded. */
const indexed = (sources: string[]) =>
  sources.flatMap((source) => /src\/tool-index\/([\w-]+)\.generated\.ts$/.exec(source)?.[1] ?? []).sort();

describe('the bin', () => {
  it('asks Node to keep the code it compiles (Node 22.1 and later) for a command, not for --version', () => {
    // Node 20 has no compile cache: a stand-in for Node's own notes each call.
    const log = join(work, 'compile-cache.txt');
    writeFileSync(log, '');
    writeFileSync(
      join(work, 'compile-cache.cjs'),
      `const { appendFileSync } = require('node:fs');
require('node:module').enableCompileCache = () => {
  appendFileSync(process.env.CACHE_LOG, 'enabled\\n');
  return { status: 0 };
};
`,
    );
    const bin = join(MAIN, '..', 'bin.cjs');
    const run = (args: string[]) =>
      spawnSync(process.execPath, ['--require', join(work, 'compile-cache.cjs'), bin, ...args], {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: work,
          XDG_CONFIG_HOME: join(work, 'config'),
          CACHE_LOG: log,
        },
        encoding: 'utf8',
      });
    expect(run(['--version']).status).toBe(0);
    expect(readFileSync(log, 'utf8')).toBe('');
    const listed = run(['--sandbox', 'key-list']);
    expect(listed.status, listed.stderr).toBe(0);
    expect(readFileSync(log, 'utf8')).toBe('enabled\n');
  });
});

describe('a start of the built CLI', () => {
  it.each([
    [['--help']],
    [['help', 'vms']],
    [['vm', 'list', '--help']],
    [['__complete', 'vm-create', '--region', '']],
  ])('%j loads no tool definition, guard, HTTP client or sandbox', (args) => {
    expect(heavy(loadedSources(args))).toEqual([]);
  });

  it("runs a tool with its family's index and no other's, and without the API's operation model", () => {
    const sources = loadedSources(['--sandbox', 'key-list']);
    expect(indexed(sources)).toEqual(['account']);
    expect(sources.filter((source) => /packages\/api\//.test(source))).toEqual([]);
    expect(indexed(loadedSources(['--sandbox', '-o', 'json', 'vm-list']))).toEqual(['vms']);
    // Help and resource words read every family's.
    expect(indexed(loadedSources(['--help'])).length).toBeGreaterThan(10);
  });

  it('loads the hints (and the API model they read) when a command fails with an API error', () => {
    const sources = loadedSources(['--sandbox', 'key-get', '999999'], {}, 3);
    expect(sources.some((source) => source.includes('packages/catalog/dist/hints'))).toBe(true);
  });

  it("runs a tool with its family's definitions, and no other family's", () => {
    const sources = loadedSources(['--sandbox', 'vm-list']);
    const families = FAMILIES.filter((family) =>
      sources.some((source) => source.includes(`packages/${family}/`)),
    );
    expect(families).toEqual(['vms']);
    expect(sources.some((source) => source.includes('node_modules/zod/'))).toBe(true);
  });

  it('answers --sandbox in process: no HTTP client loaded, no server started, no socket connected', () => {
    const sources = loadedSources(['--sandbox', 'key-list']);
    expect(sources.some((source) => source.includes('packages/sandbox/'))).toBe(true);
    expect(sources.filter((source) => /node_modules\/undici\//.test(source))).toEqual([]);
    expect(network.at(-1)).toEqual([]);
  });

  it("answers --sandbox key-list with the account routes alone: no other family's, no generic layer", () => {
    const routes = (args: string[]) =>
      loadedSources(args)
        .map(
          (source) =>
            /packages\/sandbox\/(?:src|dist)\/((?:routes|generic)\/[\w.-]+)\.[jt]s$/.exec(source)?.[1],
        )
        .filter((found) => found !== undefined)
        .sort();
    expect(routes(['--sandbox', 'key-list'])).toEqual([
      'routes/account',
      'routes/actions',
      'routes/families',
      'routes/index',
      'routes/invoice-files',
      'routes/table.generated',
    ]);
    // A volume's command loads the volumes family, and what it imports, not the account's.
    const volumes = routes(['--sandbox', 'volume-list']);
    expect(volumes).toContain('routes/volumes');
    expect(volumes).not.toContain('routes/account');
    expect(volumes.filter((file) => file.startsWith('generic/'))).toEqual([]);
  });

  it("loads none of Node's process-spawning modules for a command that spawns nothing", () => {
    loadedSources(['--sandbox', 'key-list']);
    expect(builtins.at(-1)).toContain('node:fs');
    // commander requires child_process (with net's dgram) when it loads; the build defers it.
    expect(builtins.at(-1)?.filter((name) => /^node:(child_process|dgram)$/.test(name))).toEqual([]);
  });

  it("answers --sandbox key-list into a pipe without Node's crypto, http, os, tty, net or stream modules", () => {
    // Runs of their own, watched by a preload that loads nothing (the hooks above load net).
    writeFileSync(
      join(work, 'builtins.cjs'),
      `process.once('exit', () => require('node:fs').writeFileSync(process.env.BUILTINS_LOG, process.moduleLoadList.join('\\n')));\n`,
    );
    const run = (args: string[], env: Record<string, string> = {}) => {
      const log = join(work, `builtins-${runs++}.txt`);
      const done = runBuilt(['--require', join(work, 'builtins.cjs')], args, { BUILTINS_LOG: log, ...env });
      const heavyModules = readFileSync(log, 'utf8')
        .split('\n')
        .filter((entry) => /^NativeModule (crypto|http|https|net|os|tls|tty|stream|zlib)$/.test(entry));
      return { heavyModules, answer: JSON.parse(done.stdout) as unknown };
    };
    // The first command on a state file seeds it (ids drawn with crypto) and takes its lock.
    run(['--sandbox', 'key-list']);
    const listed = run(['--sandbox', 'key-list']);
    expect(listed.answer).toMatchObject({ ssh_keys: expect.any(Array) });
    expect(listed.heavyModules).toEqual([]);
    // A command that needs one loads it when it uses it: a key made has its fingerprint computed.
    const created = run(['--sandbox', 'key-create', '--Name', 'start-up', '--PublicKey', sshPublicKey()]);
    expect(created.answer).toMatchObject({ ssh_key: { name: 'start-up' } });
    expect(created.heavyModules).toContain('NativeModule crypto');
    // Without HOME the cache's place is asked of os.homedir(): node:os loads then, and works.
    const homeless = run(['--sandbox', 'key-list'], { HOME: '', XDG_CACHE_HOME: join(work, 'cache') });
    expect(homeless.answer).toMatchObject({ ssh_keys: expect.any(Array) });
    expect(homeless.heavyModules).toEqual(['NativeModule os']);
  });

  it('makes no stream for stdout, stderr or stdin (pipes here) that a command does not need', () => {
    loadedSources(['--sandbox', 'key-list']);
    // Its answer is written to the pipe directly.
    expect(streams.at(-1)).toEqual([]);
    // One that writes to stderr makes that stream.
    loadedSources(['--sandbox', 'key-get', '999999'], {}, 3);
    expect(streams.at(-1)).toEqual(['stderr']);
  });

  it('loads the guard for a read only when it has something to do (a dry run, guard settings)', () => {
    const guarded = (sources: string[]) => sources.some((source) => source.includes('packages/guard/'));
    expect(guarded(loadedSources(['--sandbox', 'key-list']))).toBe(false);
    expect(guarded(loadedSources(['--sandbox', '--dry-run', 'key-list']))).toBe(true);
    expect(guarded(loadedSources(['--sandbox', 'key-list'], { CLOUDCALL_PROTECT: 'tag:prod' }))).toBe(true);
  });

  it("sends to the API without undici, through Node's own http (and sees the socket it connects)", () => {
    // Nothing listens on port 9 of loopback: the connection is refused, and the CLI exits 4.
    const sources = loadedSources(
      ['--api-url', 'http://127.0.0.1:9', 'key-list'],
      { DIGITALOCEAN_ACCESS_TOKEN: 'start-up-test' },
      4,
    );
    expect(sources.some((source) => source.includes('packages/core/'))).toBe(true);
    expect(sources.filter((source) => /node_modules\/undici\//.test(source))).toEqual([]);
    // Connected (and refused), then retried: the net log sees sockets when there are some.
    expect(network.at(-1)?.length).toBeGreaterThan(0);
    expect(new Set(network.at(-1))).toEqual(new Set(['connect']));
  });
});
