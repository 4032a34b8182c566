/**
 * A quiet install: pnpm links each dependency's `bin` at install time, and the apps' bins are
 * their build output, which a fresh clone does not have yet ("WARN Failed to create bin"). So no
 * workspace package depends on one that has a `bin`; what needs an app built names its build in
 * turbo.json instead, and reaches it by path.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './markdown.js';

interface Manifest {
  name: string;
  bin?: unknown;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
const manifests: Manifest[] = ['apps', 'packages', 'tooling'].flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .map((name) => join(ROOT, dir, name, 'package.json'))
    .filter(existsSync)
    .map((file) => JSON.parse(readFileSync(file, 'utf8')) as Manifest),
);

/** A bin whose file the build writes (under dist/), so a fresh clone does not have it. */
const builtBin = (m: Manifest) =>
  Object.values(
    typeof m.bin === 'string' ? { [m.name]: m.bin } : ((m.bin ?? {}) as Record<string, string>),
  ).some((path) => /^(\.\/)?dist\//.test(path));

describe('the workspace', () => {
  it('has packages with built bins (the apps)', () => {
    expect(manifests.filter(builtBin).map((m) => m.name)).toEqual([
      '@cloudcall/cli',
      '@cloudcall/mcp-server',
    ]);
  });

  it('has no package depend on a package with a built bin, whose link would fail before the build', () => {
    const withBins = new Set(manifests.filter(builtBin).map((m) => m.name));
    const edges = manifests.flatMap((m) =>
      Object.keys({
        ...m.dependencies,
        ...m.devDependencies,
        ...m.optionalDependencies,
        ...m.peerDependencies,
      })
        .filter((name) => withBins.has(name))
        .map((name) => `${m.name} -> ${name}`),
    );
    expect(edges).toEqual([]);
  });
});
