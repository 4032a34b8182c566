/**
 * The release, offline: `changeset version` (the root `version-packages` script) writes
 * CHANGELOGs a user can read, and `pnpm pack` (what `changeset publish` publishes) packs exactly
 * what a user needs from each public package: its built code, README, LICENSE and a manifest with
 * real version ranges and the package's metadata. No tests, no sources, no map pointing nowhere.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { LIBRARIES, ROOT, read } from './markdown.js';

const run = promisify(execFile);
const PUBLIC = LIBRARIES.map((name) => `packages/${name}`).concat(['apps/cli', 'apps/mcp-server']);
const ALL = ['apps', 'packages', 'tooling'].flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .map((name) => `${dir}/${name}`)
    .filter((path) => existsSync(join(ROOT, path, 'package.json'))),
);
/** Words of the project's own history that mean nothing to a user of the packages. */
const INTERNAL = /\b(issue \d+|helpers?|session|vitest|turbo|stand-in|\.test\.ts|worktree|the lead)\b/i;

describe('the workspace', () => {
  it('publishes exactly the public packages', () => {
    const published = ALL.filter((path) => !JSON.parse(read(`${path}/package.json`)).private);
    expect(published.sort()).toEqual([...PUBLIC].sort());
  });

  it('has a release script that builds and publishes, and one that versions', () => {
    const { scripts } = JSON.parse(read('package.json'));
    expect(scripts['version-packages']).toBe('changeset version');
    expect(scripts.release).toMatch(/^turbo run build .*&& changeset publish$/);
  });
});

describe('changeset version', () => {
  it('writes a user-facing CHANGELOG entry for every public package, from the curated changesets', async () => {
    for (const file of readdirSync(join(ROOT, '.changeset')).filter(
      (f) => f.endsWith('.md') && f !== 'README.md',
    )) {
      expect(read(`.changeset/${file}`), file).not.toMatch(INTERNAL);
    }
    // A copy of the workspace's manifests and changesets: versioning rewrites them.
    const copy = mkdtempSync(join(tmpdir(), 'cloudcall-version-'));
    for (const file of [
      'package.json',
      'pnpm-workspace.yaml',
      ...ALL.map((path) => `${path}/package.json`),
    ]) {
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      writeFileSync(join(copy, file), read(file));
    }
    cpSync(join(ROOT, '.changeset'), join(copy, '.changeset'), { recursive: true });
    await run(process.execPath, [join(ROOT, 'node_modules/@changesets/cli/bin.js'), 'version'], {
      cwd: copy,
      env: { ...process.env, CI: 'true' },
    });
    for (const path of PUBLIC) {
      const manifest = JSON.parse(readFileSync(join(copy, path, 'package.json'), 'utf8'));
      const changelog = readFileSync(join(copy, path, 'CHANGELOG.md'), 'utf8');
      expect(changelog, path).toMatch(
        new RegExp(
          `^# ${manifest.name}\\n\\n## ${manifest.version.replaceAll('.', '\\.')}\\n\\n### Minor Changes\\n\\n- `,
        ),
      );
      // Among the entries (later changesets add their own), the package's first-release one.
      expect(changelog, path).toMatch(/^- First release of /m);
      expect(changelog, path).not.toMatch(INTERNAL);
    }
    expect(readdirSync(join(copy, '.changeset')).sort()).toEqual(['README.md', 'config.json']);
  }, 60_000);
});

/** What `pnpm pack` packed of one package: its file list, and where its tarball is unpacked. */
interface Packed {
  files: string[];
  out: string;
}
const packs = new Map<string, Packed>();

// Every public package packed by one pnpm process (`pnpm pack --recursive`, filtered to them), as
// `changeset publish` packs each: one start of pnpm instead of one per package.
beforeAll(async () => {
  const out = mkdtempSync(join(tmpdir(), 'cloudcall-pack-'));
  const { stdout } = await run(
    'pnpm',
    [
      '--recursive',
      ...PUBLIC.flatMap((path) => ['--filter', JSON.parse(read(`${path}/package.json`)).name as string]),
      'pack',
      '--json',
      '--pack-destination',
      out,
    ],
    { cwd: ROOT },
  );
  const packed = JSON.parse(stdout) as { name: string; filename: string; files: { path: string }[] }[];
  for (const path of PUBLIC) {
    const { name } = JSON.parse(read(`${path}/package.json`)) as { name: string };
    const entry = packed.find((p) => p.name === name);
    if (!entry) continue;
    const dir = join(out, name.replace('/', '+'));
    mkdirSync(dir);
    await run('tar', ['-xzf', entry.filename, '-C', dir]);
    packs.set(path, { files: entry.files.map((file) => file.path).sort(), out: dir });
  }
}, 120_000);

describe.each(PUBLIC)('pnpm pack %s', (path) => {
  it('packs the built code, README, LICENSE and a manifest with ranges and metadata', () => {
    const packed = packs.get(path);
    expect(packed, `${path} was not packed`).toBeDefined();
    const { files, out } = packed as Packed;
    const inside = (file: string) => readFileSync(join(out, 'package', file), 'utf8');

    expect(files.filter((file) => !file.startsWith('dist/'))).toEqual([
      'LICENSE',
      'README.md',
      'package.json',
    ]);
    expect(inside('LICENSE')).toBe(read('LICENSE'));
    expect(
      files.filter((file) => /\.test\.|\/testing\/|\.ts$/.test(file) && !file.endsWith('.d.ts')),
    ).toEqual([]);
    // Every map carries its sources, and every reference to a map finds one in the package.
    for (const file of files.filter((f) => f.endsWith('.map'))) {
      const map = JSON.parse(inside(file)) as { sources: string[]; sourcesContent?: (string | null)[] };
      expect(map.sourcesContent?.filter((source) => typeof source === 'string').length, file).toBe(
        map.sources.length,
      );
    }
    for (const file of files.filter((f) => f.endsWith('.js') || f.endsWith('.cjs'))) {
      const reference = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(inside(file))?.[1];
      if (reference) expect(files, `${file} -> ${reference}`).toContain(join(dirname(file), reference));
    }

    const manifest = JSON.parse(inside('package.json'));
    expect(manifest).toMatchObject({
      license: 'Apache-2.0',
      repository: { type: 'git', directory: path },
      homepage: expect.stringContaining(path),
      bugs: { url: expect.stringMatching(/^https:\/\//) },
      engines: { node: '>=20.19.0' },
    });
    expect(manifest.keywords.length).toBeGreaterThan(1);
    for (const [name, range] of Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies })) {
      expect(`${name}@${range}`).toMatch(/@\^\d+\.\d+\.\d+$/);
    }
    if (path.startsWith('apps/')) expect(manifest.dependencies ?? {}).toEqual({});
  });
});
