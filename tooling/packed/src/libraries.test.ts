/**
 * The libraries as a newcomer gets them from a clone, by the README's and the package READMEs'
 * own lines: `pnpm pack:libs ~/cloudcall-libs` packs them (with `--no-build` added here: the
 * test task depends on the libraries' build, and building again would rewrite their dist/ under
 * other tests running at the same time), then each `npm install` line runs in a new directory
 * outside the clone, and the examples run there with node. npm fetches the third-party
 * dependencies from a registry on loopback that serves what the workspace's install holds
 * (./registry.ts), which, like the public registry today, has no @cloudcall package.
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Registry, startRegistry } from './registry.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'cloudcall-libs-'));
/** The newcomer's home: where the READMEs' `~/cloudcall-libs` and `~/try-cloudcall` are. */
const HOME = join(work, 'home');
mkdirSync(HOME);
// Bins and `node` in the lines run: the node running this test first.
const PATH = [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter);

/** The published libraries, read from the workspace: packages/* that are not private. */
const PUBLISHED = readdirSync(join(ROOT, 'packages'))
  .filter((name) => existsSync(join(ROOT, 'packages', name, 'package.json')))
  .filter((name) => !JSON.parse(read(`packages/${name}/package.json`)).private)
  .sort();

interface Block {
  lang: string;
  text: string;
}
/** A page's fenced code blocks, in order. */
const codeBlocks = (markdown: string): Block[] =>
  [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    lang: match[1] ?? '',
    text: match[2] ?? '',
  }));
/** The command lines of a shell block, without their comments. */
const commandLines = (block: string) =>
  block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line && !line.startsWith('#'));
/** A line as the READMEs write it: the home directory as `~`. */
const asWritten = (line: string) => line.replaceAll(`${HOME}/`, '~/');

let registry: Registry;

/** The environment of a new user's shell: its own home, npm set up for nothing but the registry above. */
function userEnv(): NodeJS.ProcessEnv {
  writeFileSync(join(work, 'npmrc'), '');
  return {
    // Without the variables pnpm sets for the script running this test (npm_*, INIT_CWD).
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(npm_|INIT_CWD$)/i.test(key))),
    PATH,
    HOME,
    npm_config_userconfig: join(work, 'npmrc'),
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_registry: `${registry.url}/`,
    // A fetch that fails is a failure at once, not minutes of retries.
    npm_config_fetch_retries: '0',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}
function spawnRun(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * One line, as a user types it into a shell in `cwd`: its output, and the directory the shell is
 * in after it (a line may `cd`).
 */
async function shell(line: string, cwd: string): Promise<{ stdout: string; cwd: string }> {
  const ran = await spawnRun('sh', ['-ec', `${line}\npwd`], cwd, userEnv());
  if (ran.code !== 0) throw new Error(`${line}\nexited ${ran.code}:\n${ran.stderr}${ran.stdout}`);
  const lines = ran.stdout.trimEnd().split('\n');
  return { stdout: lines.slice(0, -1).join('\n'), cwd: lines.at(-1) ?? cwd };
}

/** The @cloudcall packages installed in a directory. */
const installed = (dir: string) => readdirSync(join(dir, 'node_modules', '@cloudcall')).sort();

/** What `pnpm pack:libs` printed: each library's `npm install` line, by name. */
let printed: Map<string, string>;

beforeAll(async () => {
  registry = await startRegistry(join(ROOT, 'node_modules', '.pnpm'), join(work, 'registry'));
  const [block] = codeBlocks(read('README.md')).filter(
    (b) => b.lang === 'sh' && b.text.includes('pnpm pack:libs'),
  );
  const [first] = commandLines(block?.text ?? '');
  // The README's first line: the workspace is installed already, and built (see above).
  expect(first).toBe('pnpm install && pnpm pack:libs ~/cloudcall-libs');
  const { stdout } = await shell('pnpm pack:libs ~/cloudcall-libs --no-build', ROOT);
  printed = new Map();
  const lines = stdout.split('\n');
  for (const [index, line] of lines.entries()) {
    const name = /^# (@cloudcall\/[\w-]+)$/.exec(line)?.[1];
    if (name) printed.set(name, lines[index + 1] ?? '');
  }
}, 120_000);

// Three installs' node_modules and npm's cache: on a machine shared with other work, more than 30 s.
afterAll(async () => {
  await registry?.close();
  rmSync(work, { recursive: true, force: true });
}, 120_000);

describe('pnpm pack:libs', () => {
  it('packs every published library, named without its version, and prints the line that installs each', () => {
    expect([...printed.keys()].sort()).toEqual(PUBLISHED.map((name) => `@cloudcall/${name}`));
    expect(readdirSync(join(HOME, 'cloudcall-libs')).sort()).toEqual(
      PUBLISHED.map((name) => `cloudcall-${name}.tgz`),
    );
    const tarball = (name: string) => `~/cloudcall-libs/cloudcall-${name}.tgz`;
    const line = (...names: string[]) => `npm install ${names.map(tarball).join(' ')}`;
    // The library first, then what it depends on, through its dependencies' own.
    expect(asWritten(printed.get('@cloudcall/vms') ?? '')).toBe(line('vms', 'core', 'platform'));
    expect(asWritten(printed.get('@cloudcall/account') ?? '')).toBe(
      line('account', 'core', 'platform', 'wait'),
    );
    expect(asWritten(printed.get('@cloudcall/platform') ?? '')).toBe(line('platform'));
    expect(asWritten(printed.get('@cloudcall/catalog') ?? '')).toBe(
      line(
        'catalog',
        'account',
        'api',
        'apps',
        'core',
        'databases',
        'images',
        'kubernetes',
        'monitoring',
        'networking',
        'platform',
        'registry',
        'spaces',
        'vms',
        'wait',
      ),
    );
  });

  it('refuses what it does not know, with its usage, and packs nothing', async () => {
    // The script pnpm pack:libs runs, run by node (a start of pnpm each is seconds).
    const script = join(ROOT, 'tooling/scripts/pack-libs.mjs');
    expect(JSON.parse(read('package.json')).scripts['pack:libs']).toBe('node tooling/scripts/pack-libs.mjs');
    const [one, two] = [join(work, 'one'), join(work, 'two')];
    for (const args of [
      ['--nope', one],
      [one, two],
    ]) {
      const ran = await spawnRun(process.execPath, [script, '--no-build', ...args], ROOT, userEnv());
      expect(ran.code, args.join(' ')).not.toBe(0);
      expect(ran.stderr, args.join(' ')).toMatch(/usage: pnpm pack:libs \[DIR\]/);
    }
    expect([existsSync(one), existsSync(two)]).toEqual([false, false]);
  }, 60_000);
});

describe('a tarball without those of the libraries it needs', () => {
  it('does not install: @cloudcall/vms alone asks the registry for core and platform, which it does not have', async () => {
    const dir = join(work, 'vms-only');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), '{ "name": "vms-only", "private": true }\n');
    const ran = await spawnRun(
      'sh',
      ['-c', 'npm install ~/cloudcall-libs/cloudcall-vms.tgz'],
      dir,
      userEnv(),
    );
    expect(ran.code).not.toBe(0);
    // npm's words for a package the registry does not have: a range of the packed manifest.
    expect(ran.stderr).toMatch(/E404[\s\S]*'@cloudcall\/(core|platform)@\^\d+\.\d+\.\d+' could not be found/);
    expect(existsSync(join(dir, 'node_modules', '@cloudcall', 'vms'))).toBe(false);
  }, 60_000);
});

describe("the README's library quick start, run as written", () => {
  let sandbox: Sandbox | undefined;
  afterAll(async () => {
    await sandbox?.close();
  });

  it('installs @cloudcall/vms with what pack:libs says it needs, then the sandbox, and runs the example', async () => {
    const readme = read('README.md');
    const blocks = codeBlocks(readme);
    const index = blocks.findIndex((b) => b.lang === 'sh' && b.text.includes('pnpm pack:libs'));
    const [, init, vms, sandboxLine, ...rest] = commandLines(blocks[index]?.text ?? '');
    expect(rest).toEqual([]);
    expect(vms).toBe(asWritten(printed.get('@cloudcall/vms') ?? ''));

    // A new directory outside the clone, then @cloudcall/vms's line alone.
    let { cwd } = await shell(init ?? '', ROOT);
    expect(cwd.startsWith(HOME)).toBe(true);
    ({ cwd } = await shell(vms ?? '', cwd));
    expect(installed(cwd)).toEqual(['core', 'platform', 'vms']);
    // vms works with nothing more: a VM created through a client of @cloudcall/core.
    sandbox = await startSandbox();
    writeFileSync(
      join(cwd, 'vms-alone.mjs'),
      `import { createClient } from '@cloudcall/core';
import { vmsApi } from '@cloudcall/vms';
const client = createClient({ token: 'any-token', baseUrl: ${JSON.stringify(sandbox.url)} });
const { droplet } = await vmsApi(client).vmCreate({ Name: 'alone', Size: 's-1vcpu-1gb', ImageID: 'ubuntu-24-04-x64', Region: 'nyc3' });
console.log(droplet.name);
await client.close();
`,
    );
    expect((await shell('node vms-alone.mjs', cwd)).stdout).toBe('alone');

    ({ cwd } = await shell(sandboxLine ?? '', cwd));
    expect(installed(cwd)).toEqual(['core', 'platform', 'sandbox', 'vms']);
    // From the registry, only their third-party dependencies.
    expect(readdirSync(join(cwd, 'node_modules')).sort()).toEqual([
      '.package-lock.json',
      '@cloudcall',
      'http-parser-js',
      'undici',
      'zod',
    ]);

    // "Save this as `example.mjs` in `~/try-cloudcall` and run `node example.mjs`:", then the code.
    const save = /Save this as `([^`]+)` in `([^`]+)` and run `([^`]+)`:/.exec(readme);
    expect(save).not.toBeNull();
    const [, file = '', dir = '', command = ''] = save ?? [];
    expect(dir.replace(/^~\//, `${HOME}/`)).toBe(cwd);
    const example = blocks.slice(index + 1).find((b) => b.lang !== 'sh');
    expect(example?.lang).toBe('js');
    writeFileSync(join(cwd, file), example?.text ?? '');
    expect((await shell(command, cwd)).stdout).toMatch(/^created VM \d+ \(new\)\n1 VMs: web-1$/);
  }, 240_000);
});

describe('every library, installed from its tarball', () => {
  let dir: string;
  beforeAll(async () => {
    dir = join(work, 'all');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), '{ "name": "all-libraries", "private": true }\n');
    // Every library's line at once: npm installs each tarball once.
    const tarballs = new Set([...printed.values()].flatMap((line) => line.split(' ').slice(2)));
    await shell(`npm install ${[...tarballs].join(' ')}`, dir);
  }, 240_000);

  it.each(PUBLISHED)(
    '%s: its README is packed, gives the line pack:libs prints, and its example runs',
    async (name) => {
      const readme = read(`packages/${name}/README.md`);
      expect(readFileSync(join(dir, 'node_modules', '@cloudcall', name, 'README.md'), 'utf8')).toBe(readme);
      const manifest = JSON.parse(read(`packages/${name}/package.json`));
      const packed = JSON.parse(
        readFileSync(join(dir, 'node_modules', '@cloudcall', name, 'package.json'), 'utf8'),
      );
      expect(packed.version).toBe(manifest.version);
      expect(JSON.stringify(packed.dependencies ?? {})).not.toMatch(/workspace:|catalog:/);

      const blocks = codeBlocks(readme);
      const [install] = blocks.filter((b) => b.lang === 'sh' && b.text.includes(`cloudcall-${name}.tgz`));
      expect(commandLines(install?.text ?? '')).toEqual([asWritten(printed.get(`@cloudcall/${name}`) ?? '')]);

      const examples = blocks.filter((b) => b.lang === 'ts');
      expect(examples).toHaveLength(1);
      const { outputText, diagnostics } = ts.transpileModule(examples[0]?.text ?? '', {
        reportDiagnostics: true,
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      expect(diagnostics ?? []).toEqual([]);
      writeFileSync(join(dir, `${name}.mjs`), outputText);
      const ran = await spawnRun(process.execPath, [`${name}.mjs`], dir, userEnv());
      expect(ran).toMatchObject({ code: 0, stderr: '' });
      expect(ran.stdout.length).toBeGreaterThan(0);
    },
    60_000,
  );

  it("runs docs/library.md's example against the sandbox", async () => {
    const [example] = codeBlocks(read('docs/library.md')).filter((b) => b.lang === 'js');
    writeFileSync(join(dir, 'library-guide.mjs'), example?.text ?? '');
    const ran = await spawnRun(process.execPath, ['library-guide.mjs'], dir, userEnv());
    expect(ran).toMatchObject({ code: 0, stdout: '0 keys \n' });
    // The key that is not there: a ClientApiError with the platform's status and id.
    expect(ran.stderr).toMatch(/^404 not_found /);
  }, 60_000);
});
