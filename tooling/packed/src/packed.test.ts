/**
 * The apps as a user gets them: each app packed with `pnpm pack`, the two tarballs installed with
 * `npm install --offline` into an empty directory (offline works only because they depend on
 * nothing), and the installed bins run from there: `cloudcall` as a process, `cloudcall-mcp` over
 * the official MCP SDK client on stdio. The apps' `build` (their bundles) runs before this test.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { families, toolsOf } from '@cloudcall/catalog';
import { guardTools } from '@cloudcall/guard';
import { sshPublicKey } from '@cloudcall/sandbox';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const APPS = {
  cli: { dir: fileURLToPath(new URL('../../../apps/cli', import.meta.url)), bin: 'cloudcall' },
  mcp: { dir: fileURLToPath(new URL('../../../apps/mcp-server', import.meta.url)), bin: 'cloudcall-mcp' },
} as const;
/**
 * What an app's build wrote, but its source maps (they stay in the checkout): its entry (and
 * launcher), the chunks it loads on demand, the licenses; and its README, LICENSE and manifest.
 */
function builtFiles(dir: string): string[] {
  const dist = readdirSync(join(dir, 'dist'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.map'))
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
  return [...dist, 'LICENSE', 'README.md', 'package.json'].sort();
}

const work = mkdtempSync(join(tmpdir(), 'cloudcall-packed-'));
// The bins start with `#!/usr/bin/env node`: the node running this test must be found first.
const PATH = [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter);

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
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

async function succeed(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const ran = await run(command, args, cwd, env);
  if (ran.code !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${ran.code}:\n${ran.stderr}${ran.stdout}`);
  }
  return ran.stdout;
}

/**
 * npm with nothing from this machine's npm setup: no user config, an empty cache of its own, and
 * none of the npm_* variables pnpm passes to the scripts it runs. With --offline and an empty
 * cache, any dependency to fetch fails the install.
 */
function npmEnv(name: string): NodeJS.ProcessEnv {
  const home = join(work, name);
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'npmrc'), '');
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key))),
    PATH,
    npm_config_userconfig: join(home, 'npmrc'),
    npm_config_cache: join(home, 'cache'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

/** An empty directory with the given tarballs installed by npm, offline. */
async function installOffline(name: string, tarballs: string[]): Promise<string> {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  // Its own package.json, so npm installs here and not into a project above the temp directory.
  writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
  await succeed('npm', ['install', '--offline', ...tarballs], dir, npmEnv(`${name}-npm`));
  return dir;
}

const versionOf = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;

let installed: string;
let packedFiles: Record<string, string[]>;

beforeAll(async () => {
  const packs = join(work, 'packs');
  // Both apps packed by one pnpm process (`pnpm pack --recursive`, filtered to the two by name).
  const names = Object.values(APPS).map(
    (app) => (JSON.parse(readFileSync(join(app.dir, 'package.json'), 'utf8')) as { name: string }).name,
  );
  const out = await succeed(
    'pnpm',
    [
      '--recursive',
      ...names.flatMap((name) => ['--filter', name]),
      'pack',
      '--pack-destination',
      packs,
      '--json',
    ],
    APPS.cli.dir,
    { ...process.env, PATH },
  );
  const packed = JSON.parse(out) as { name: string; filename: string; files: { path: string }[] }[];
  expect(packed.map((entry) => entry.name).sort()).toEqual([...names].sort());
  packedFiles = {};
  for (const [index, key] of Object.keys(APPS).entries()) {
    const entry = packed.find((p) => p.name === names[index]);
    packedFiles[key] = entry?.files.map((file) => file.path).sort() ?? [];
  }
  installed = await installOffline(
    'install',
    packed.map((entry) => entry.filename),
  );
}, 120_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe('the packed apps', () => {
  it('hold only the bundle (its entry and chunks), source maps and the bundled licenses', () => {
    expect(packedFiles).toEqual({ cli: builtFiles(APPS.cli.dir), mcp: builtFiles(APPS.mcp.dir) });
    // The CLI's bin is its CommonJS launcher; the MCP server's, its entry.
    expect(packedFiles.cli).toContain('dist/bin.cjs');
    expect(packedFiles.mcp).toContain('dist/main.js');
    for (const files of Object.values(packedFiles)) {
      expect(files.filter((file) => file.startsWith('dist/chunks/')).length).toBeGreaterThan(2);
    }
  });

  it('install offline into an empty directory, with no dependency of their own', () => {
    expect(readdirSync(join(installed, 'node_modules')).sort()).toEqual([
      '.bin',
      '.package-lock.json',
      '@cloudcall',
    ]);
    expect(readdirSync(join(installed, 'node_modules', '@cloudcall')).sort()).toEqual(['cli', 'mcp-server']);
    for (const name of ['cli', 'mcp-server']) {
      const manifest = JSON.parse(
        readFileSync(join(installed, 'node_modules', '@cloudcall', name, 'package.json'), 'utf8'),
      ) as Record<string, unknown>;
      expect(manifest.dependencies, name).toBeUndefined();
      expect(manifest.optionalDependencies, name).toBeUndefined();
      expect(manifest.peerDependencies, name).toBeUndefined();
    }
    expect(readdirSync(join(installed, 'node_modules', '.bin')).sort()).toEqual([
      'cloudcall',
      'cloudcall-mcp',
    ]);
  });

  it('print the version of their package', async () => {
    const env = { PATH, HOME: installed };
    const cli = await run(join('node_modules', '.bin', APPS.cli.bin), ['--version'], installed, env);
    expect(cli).toMatchObject({ code: 0, stdout: `${versionOf(APPS.cli.dir)}\n` });
    const mcp = await run(join('node_modules', '.bin', APPS.mcp.bin), ['--version'], installed, env);
    expect(mcp).toMatchObject({ code: 0, stderr: `${versionOf(APPS.mcp.dir)}\n` });
  });

  // Two CLI processes and an MCP server started and listed, beside the libraries' test (npm installs
  // and examples): on a machine shared with other work, more than the default 30 s.
  it('run from the install: cloudcall adds an SSH key to the sandbox, cloudcall-mcp lists the default tools and finds the key', async () => {
    const state = join(work, 'sandbox.json');
    const env = { PATH, HOME: installed };
    const cloudcall = (...args: string[]) =>
      succeed(
        join('node_modules', '.bin', APPS.cli.bin),
        ['--sandbox', '--sandbox-state', state, ...args],
        installed,
        env,
      );

    const created = JSON.parse(
      await cloudcall('key-create', '--Name', 'packed', '--PublicKey', sshPublicKey('packed@test')),
    ) as { ssh_key: { id: number; name: string; fingerprint: string } };
    expect(created.ssh_key).toMatchObject({
      name: 'packed',
      fingerprint: expect.stringMatching(/^[0-9a-f:]+$/),
    });
    const listed = JSON.parse(await cloudcall('key-list')) as {
      ssh_keys: { id: number }[];
      meta: { total: number };
    };
    expect(listed.ssh_keys.map((key) => key.id)).toEqual([created.ssh_key.id]);
    expect(listed.meta.total).toBe(1);

    const transport = new StdioClientTransport({
      command: join(installed, 'node_modules', '.bin', APPS.mcp.bin),
      args: ['--sandbox', '--sandbox-state', state],
      cwd: installed,
      env,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'cloudcall-packed-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()).toMatchObject({ version: versionOf(APPS.mcp.dir) });
      const { tools } = await client.listTools();
      // The default listing: every family's tools but those offered on request, and the guard's.
      const listedByDefault = families.filter((family) => !family.onRequest);
      expect(tools.map((tool) => tool.name).sort()).toEqual(
        [...toolsOf(listedByDefault), ...guardTools].map((tool) => tool.name).sort(),
      );
      const result = (await client.callTool({ name: 'key-list', arguments: {} })) as CallToolResult;
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        ssh_keys: [{ id: created.ssh_key.id, name: 'packed', fingerprint: created.ssh_key.fingerprint }],
        meta: { total: 1 },
      });
    } catch (error) {
      throw new Error(`${(error as Error).message}\nserver stderr:\n${stderr}`, { cause: error });
    } finally {
      await client.close();
    }
  }, 90_000);

  // npm pack and two npm installs: on a machine shared with other work, more than the default 30 s.
  it('install the same way from `npm pack` tarballs, whose manifests keep the workspace ranges', async () => {
    const packs = join(work, 'npm-packs');
    mkdirSync(packs);
    // Both apps packed by one npm process (`npm pack <folder> <folder>`).
    const out = await succeed(
      'npm',
      ['pack', ...Object.values(APPS).map((app) => app.dir), '--pack-destination', packs, '--json'],
      packs,
      npmEnv('npm-pack'),
    );
    const tarballs = (JSON.parse(out) as { filename: string }[]).map((entry) => join(packs, entry.filename));
    expect(tarballs).toHaveLength(2);
    const dir = await installOffline('npm-install', tarballs);
    const cli = await run(join('node_modules', '.bin', APPS.cli.bin), ['--version'], dir, {
      PATH,
      HOME: dir,
    });
    expect(cli).toMatchObject({ code: 0, stdout: `${versionOf(APPS.cli.dir)}\n` });
    const mcp = await run(join('node_modules', '.bin', APPS.mcp.bin), ['--version'], dir, {
      PATH,
      HOME: dir,
    });
    expect(mcp).toMatchObject({ code: 0, stderr: `${versionOf(APPS.mcp.dir)}\n` });
  }, 120_000);
});
