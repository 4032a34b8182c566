/**
 * The code cache the CLI keeps where Node keeps none (code-cache.ts), through the built CLI as a
 * process. A preload takes `enableCompileCache` away, as on Node 20, and notes each script V8
 * compiled with cached data: whether it used or refused it.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAIN } from './testing/run.js';

const work = mkdtempSync(join(tmpdir(), 'cloudcall-code-cache-'));
const BIN = join(MAIN, '..', 'bin.cjs');
writeFileSync(
  join(work, 'node20.cjs'),
  `const { appendFileSync } = require('node:fs');
const vm = require('node:vm');
delete require('node:module').enableCompileCache;
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(source, options) {
    super(source, options);
    if (options && options.cachedData) {
      const name = require('node:path').basename(options.filename);
      appendFileSync(process.env.SCRIPT_LOG, name + (this.cachedDataRejected ? ' refused' : ' used') + '\\n');
    }
  }
};
`,
);

let runs = 0;

/** Runs the built CLI (`bin`) with a cache directory of `home`'s; what it printed and did. */
function run(home: string, args: string[], more: Record<string, string> = {}, bin = BIN) {
  const log = join(work, `scripts-${runs++}.txt`);
  writeFileSync(log, '');
  const result = spawnSync(process.execPath, ['--require', join(work, 'node20.cjs'), bin, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      SCRIPT_LOG: log,
      ...more,
    },
    encoding: 'utf8',
  });
  expect(result.status, result.stderr).toBe(0);
  const scripts = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  return { stdout: result.stdout, used: scripts.filter((line) => line.endsWith(' used')), scripts };
}

/** The cached code files under `home`'s cache directory: name -> modification time. */
function cached(home: string): Map<string, number> {
  const root = join(home, '.cache', 'cloudcall', 'code-cache');
  const files = new Map<string, number>();
  if (!existsSync(root)) return files;
  for (const folder of readdirSync(root)) {
    for (const name of readdirSync(join(root, folder))) {
      files.set(join(folder, name), statSync(join(root, folder, name)).mtimeMs);
    }
  }
  return files;
}

describe('the code cache (Node without a compile cache of its own)', () => {
  it("is written by a command's first run, and used, unchanged, by the next", () => {
    const home = mkdtempSync(join(work, 'home-'));
    const first = run(home, ['--sandbox', 'key-list']);
    expect(first.scripts).toEqual([]);
    const written = cached(home);
    // The chunks the command loaded, each in the folder of this version, Node and installation.
    expect(written.size).toBeGreaterThan(5);
    for (const name of written.keys()) {
      expect(name).toMatch(
        new RegExp(`^0\\.\\d+\\.\\d+-node${process.version}-${process.arch}-[0-9a-f]{8}/`),
      );
      expect(name).toMatch(/\.js-\d+-\d+\.v8$/);
    }
    const second = run(home, ['--sandbox', 'key-list']);
    expect(second.stdout).toBe(first.stdout);
    expect(second.used.length).toBe(written.size);
    expect(second.scripts.filter((line) => line.endsWith(' refused'))).toEqual([]);
    expect(cached(home)).toEqual(written);
  });

  it("after a first --help, a command's run adds what it calls to the cached code it found", () => {
    const home = mkdtempSync(join(work, 'home-'));
    run(home, ['--help']);
    const afterHelp = cached(home);
    const sizes = (files: Map<string, number>) => {
      const root = join(home, '.cache', 'cloudcall', 'code-cache');
      return new Map([...files.keys()].map((name) => [name, statSync(join(root, name)).size]));
    };
    const helpSizes = sizes(afterHelp);
    const first = run(home, ['--sandbox', 'key-list']);
    // The chunks --help cached and the command used again: made anew, larger (the command's code
    // besides help's); the ones it loaded first: cached.
    const afterCommand = sizes(cached(home));
    const reused = first.used.map((line) => line.replace(/ used$/, ''));
    const grown = [...helpSizes.keys()].filter(
      (name) =>
        reused.some((chunk) => name.includes(`/${chunk}-`)) &&
        (afterCommand.get(name) ?? 0) > (helpSizes.get(name) ?? 0),
    );
    expect(reused.length).toBeGreaterThan(0);
    expect(grown.length).toBeGreaterThan(0);
    expect(afterCommand.size).toBeGreaterThan(afterHelp.size);
    // Then nothing new is loaded: the next run uses it all and writes nothing.
    const settled = cached(home);
    const next = run(home, ['--sandbox', 'key-list']);
    expect(next.used.length).toBeGreaterThan(first.used.length);
    expect(next.scripts.filter((line) => line.endsWith(' refused'))).toEqual([]);
    expect(cached(home)).toEqual(settled);
  });

  it('makes anew what V8 refuses (a damaged file), and answers the same', () => {
    const home = mkdtempSync(join(work, 'home-'));
    const first = run(home, ['--sandbox', 'key-list']);
    const root = join(home, '.cache', 'cloudcall', 'code-cache');
    const [damaged] = [...cached(home).keys()];
    writeFileSync(join(root, damaged as string), 'not the code V8 made');
    const second = run(home, ['--sandbox', 'key-list']);
    expect(second.stdout).toBe(first.stdout);
    expect(second.scripts.filter((line) => line.endsWith(' refused'))).toHaveLength(1);
    expect(readFileSync(join(root, damaged as string), 'utf8')).not.toBe('not the code V8 made');
    expect(run(home, ['--sandbox', 'key-list']).scripts.filter((line) => line.endsWith(' refused'))).toEqual(
      [],
    );
  });

  it('never runs the code of a chunk as it was before it changed', () => {
    // A copy of the build, whose program chunk is changed after its code was cached: a changed
    // text of the same length (V8 itself checks no more than the length).
    const copy = mkdtempSync(join(work, 'dist-'));
    cpSync(join(MAIN, '..'), copy, { recursive: true });
    const home = mkdtempSync(join(work, 'home-'));
    const bin = join(copy, 'bin.cjs');
    expect(run(home, ['--help'], {}, bin).stdout).toContain('Manage DigitalOcean-compatible');
    const chunks = join(copy, 'chunks');
    const program = readdirSync(chunks).find(
      (name) =>
        name.endsWith('.js') &&
        readFileSync(join(chunks, name), 'utf8').includes('Manage DigitalOcean-compatible'),
    ) as string;
    const text = readFileSync(join(chunks, program), 'utf8');
    writeFileSync(
      join(chunks, program),
      text.replace('Manage DigitalOcean-compatible', 'MANAGE DigitalOcean-compatible'),
    );
    const after = run(home, ['--help'], {}, bin);
    expect(after.stdout).toContain('MANAGE DigitalOcean-compatible');
    expect(after.used.some((line) => line.startsWith(program))).toBe(false);
    // The stale file is gone: the cache holds one copy of each chunk's code.
    const names = [...cached(home).keys()].filter((name) => name.includes(`/${program}-`));
    expect(names).toHaveLength(1);
  });

  it('is off with NODE_DISABLE_COMPILE_CACHE, and stops nothing when it cannot be written', () => {
    const home = mkdtempSync(join(work, 'home-'));
    run(home, ['--sandbox', 'key-list'], { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(cached(home).size).toBe(0);
    // The cache directory's place is a file: nothing can be made there.
    const blocked = mkdtempSync(join(work, 'home-'));
    writeFileSync(join(blocked, 'cache'), '');
    const answer = run(blocked, ['--sandbox', 'key-list'], { XDG_CACHE_HOME: join(blocked, 'cache') });
    expect(JSON.parse(answer.stdout)).toHaveProperty('ssh_keys');
  });

  it('is not loaded for --version', () => {
    const home = mkdtempSync(join(work, 'home-'));
    expect(run(home, ['--version']).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(cached(home).size).toBe(0);
  });
});

afterAll(() => rmSync(work, { recursive: true, force: true }));
