/**
 * What a start loads, read from the built CLI as Node loads it: help, completion and --version
 * answer from the build-time index, without the tools' definitions (zod schemas), the guard, the
 * HTTP client or the sandbox; a command that runs a tool loads its own family and no other. Each
 * loaded chunk is known by its source map's sources (the build keeps the maps in dist/).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAIN } from './testing/run.js';

const work = mkdtempSync(join(tmpdir(), 'cloudcall-start-up-'));
// A module hook that writes down every module Node loads (hooks run on a thread of their own).
writeFileSync(
  join(work, 'hooks.mjs'),
  `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_LOG, url + '\\n');
  return next(url, context);
}
`,
);
writeFileSync(
  join(work, 'register.mjs'),
  `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(work, 'hooks.mjs')).href)});\n`,
);

let runs = 0;

/** The sources bundled into the files a run of the built CLI loaded. */
function loadedSources(args: string[]): string[] {
  const log = join(work, `loaded-${runs++}.txt`);
  writeFileSync(log, '');
  const run = spawnSync(process.execPath, ['--import', join(work, 'register.mjs'), MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: work, XDG_CONFIG_HOME: join(work, 'config'), LOADED_LOG: log },
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).toBe(0);
  const files = readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:') && url.includes('/dist/'))
    .map((url) => fileURLToPath(url));
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
    /node_modules\/(zod|undici|string-width)\/|packages\/(guard|sandbox|wait|account|databases|networking|vms|images)\//.test(
      source,
    ),
  );

describe('a start of the built CLI', () => {
  it.each([
    [['--help']],
    [['help', 'vms']],
    [['vm', 'list', '--help']],
    [['__complete', 'vm-create', '--region', '']],
  ])('%j loads no tool definition, guard, HTTP client or sandbox', (args) => {
    expect(heavy(loadedSources(args))).toEqual([]);
  });

  it("runs a tool with its family's definitions, and no other family's", () => {
    const sources = loadedSources(['--sandbox', 'vm-list']);
    const families = FAMILIES.filter((family) =>
      sources.some((source) => source.includes(`packages/${family}/`)),
    );
    expect(families).toEqual(['vms']);
    expect(sources.some((source) => source.includes('node_modules/zod/'))).toBe(true);
  });
});
