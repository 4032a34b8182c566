/**
 * An npm registry on loopback for the tests that install packed tarballs with npm: it serves the
 * third-party packages that the workspace's install put in `node_modules/.pnpm` (zod, undici...),
 * each version found there, so npm resolves the packed libraries' real version ranges as it would
 * against the public registry, and nothing leaves the machine. Like the public registry today, it
 * knows no `@cloudcall/*` package: a tarball's dependency on one must be met by another tarball.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Registry {
  /** The registry's URL, for npm's `registry` setting. */
  url: string;
  close(): Promise<void>;
}

interface Manifest {
  name: string;
  version: string;
  [field: string]: unknown;
}

/**
 * Starts the registry. `store` is pnpm's virtual store (`node_modules/.pnpm` at the root), whose
 * folders are `<name>@<version>[_<peers>]` (`@scope+name@...` for a scoped package) each holding
 * the package at `node_modules/<name>`; tarballs are made of those copies into `work`.
 */
export async function startRegistry(store: string, work: string): Promise<Registry> {
  mkdirSync(work, { recursive: true });
  const packuments = new Map<string, Promise<object | undefined>>();
  let url = '';

  /** Every version of `name` in the store, each packed as the registry would serve it. */
  async function packument(name: string): Promise<object | undefined> {
    if (name.startsWith('@cloudcall/')) return undefined;
    const prefix = `${name.replace('/', '+')}@`;
    const versions: Record<string, object> = {};
    for (const folder of readdirSync(store).filter((entry) => entry.startsWith(prefix))) {
      const dir = join(store, folder, 'node_modules', name);
      if (!existsSync(join(dir, 'package.json'))) continue;
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
      if (manifest.name !== name || versions[manifest.version]) continue;
      const file = `${name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`;
      // A tarball's files sit under package/; npm pack refuses to pack a folder inside the store.
      const staging = join(work, `${file}.d`);
      cpSync(dir, join(staging, 'package'), { recursive: true, dereference: true });
      await run('tar', ['-czf', join(work, file), '-C', staging, 'package']);
      rmSync(staging, { recursive: true, force: true });
      const data = readFileSync(join(work, file));
      versions[manifest.version] = {
        ...manifest,
        dist: {
          tarball: `${url}/-/tarballs/${file}`,
          integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`,
          shasum: createHash('sha1').update(data).digest('hex'),
        },
      };
    }
    const latest = Object.keys(versions).sort(compareVersions).at(-1);
    return latest ? { name, 'dist-tags': { latest }, versions } : undefined;
  }

  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://registry').pathname).slice(1);
    const answer = (status: number, body: string | Buffer, type = 'application/json') => {
      response.writeHead(status, { 'content-type': type }).end(body);
    };
    const tarball = /^-\/tarballs\/([\w.-]+\.tgz)$/.exec(path);
    if (tarball) {
      const file = join(work, tarball[1] ?? '');
      if (existsSync(file)) answer(200, readFileSync(file), 'application/octet-stream');
      else answer(404, '{"error":"Not found"}');
      return;
    }
    let pending = packuments.get(path);
    if (!pending) {
      pending = packument(path);
      packuments.set(path, pending);
    }
    pending.then(
      (body) => {
        // A package it does not have gets the public registry's 404.
        if (body) answer(200, JSON.stringify(body));
        else answer(404, '{"error":"Not found"}');
      },
      (error: Error) => answer(500, JSON.stringify({ error: error.message })),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Release versions (`1.2.3`) in order; the store has no prereleases of the packages served. */
function compareVersions(a: string, b: string): number {
  const parts = (version: string) => version.split(/[.+-]/).map((part) => Number.parseInt(part, 10) || 0);
  const [left, right] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
