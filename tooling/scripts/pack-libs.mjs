#!/usr/bin/env node
// `pnpm pack:libs [DIR]`: the published libraries (packages/* that are not private) as tarballs,
// for installing them with npm before they are on the registry. It builds them (turbo, cached;
// --no-build when they are built already), packs each with `pnpm pack` (which writes real version
// ranges in place of `workspace:` and `catalog:`, as `pnpm publish` does) into DIR (default:
// packed-libs/ in the clone), one `cloudcall-<name>.tgz` each, named without the version so that
// the lines in the READMEs stay right from one version to the next, and prints for each library
// the `npm install` line with its tarball and those of the libraries it depends on, transitively.
// npm fetches the third-party dependencies (zod, undici...) from the registry as usual.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../../', import.meta.url));
const say = (line) => process.stderr.write(`cloudcall: ${line}\n`);
const fail = (line) => {
  say(line);
  process.exit(1);
};

const USAGE = `usage: pnpm pack:libs [DIR] [--no-build]

Packs every published library into DIR (default: packed-libs/ in the clone), one
cloudcall-<name>.tgz each, and prints for each the npm install line with the tarballs it needs.
  --no-build   pack what is built already (the libraries' dist/) instead of building first
`;

let parsed;
try {
  // pnpm passes on a `--` given before the arguments (`pnpm pack:libs -- DIR`).
  const args = process.argv.slice(2).filter((arg, index) => !(index === 0 && arg === '--'));
  parsed = parseArgs({
    args,
    options: { 'no-build': { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
} catch (error) {
  fail(`${error.message}\n${USAGE}`);
}
if (parsed.values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (parsed.positionals.length > 1) fail(`one directory at most, got ${parsed.positionals.length}\n${USAGE}`);
// A relative DIR is taken from where the command was typed: pnpm runs the script at the root and
// names the directory it was started in INIT_CWD.
const out = resolve(
  process.env.INIT_CWD ?? process.cwd(),
  parsed.positionals[0] ?? join(root, 'packed-libs'),
);

/** The published libraries by name: directory, manifest, and the workspace packages they depend on. */
const libraries = new Map(
  readdirSync(join(root, 'packages'))
    .map((name) => join(root, 'packages', name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => !manifest.private)
    .map(({ dir, manifest }) => [
      manifest.name,
      {
        dir,
        manifest,
        needs: Object.entries({
          ...manifest.dependencies,
          ...manifest.optionalDependencies,
          ...manifest.peerDependencies,
        })
          .filter(([, range]) => String(range).startsWith('workspace:'))
          .map(([name]) => name),
      },
    ]),
);
/** A library's tarball, named without the version: `@cloudcall/vms` is cloudcall-vms.tgz. */
const tarball = (name) => join(out, `${name.replace(/^@/, '').replace('/', '-')}.tgz`);

/** The library, then every library it depends on (through their dependencies too) by name. */
function closure(name) {
  const seen = new Set();
  const visit = (each) => {
    if (seen.has(each)) return;
    if (!libraries.has(each)) fail(`${name} depends on ${each}, which is not a published library`);
    seen.add(each);
    for (const needed of libraries.get(each).needs) visit(needed);
  };
  visit(name);
  seen.delete(name);
  return [name, ...[...seen].sort()];
}

/** A word as a POSIX shell reads it back: quoted only when it has to be. */
const quote = (word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/** A command's stdout; it rejects, with what the command printed, when the command fails. */
function run(command, args, what) {
  return new Promise((done, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', (error) => reject(new Error(`${what} could not start: ${error.message}`)));
    child.on('close', (code) => {
      if (code === 0) done(stdout);
      else reject(new Error(`${what} failed (exit ${code}):\n${stderr}${stdout}`));
    });
  });
}

// pnpm names itself in npm_execpath for the scripts it runs (also when it was started by npx and
// is not on PATH); run directly, this script finds pnpm on PATH.
const pnpm = /pnpm\.c?js$/.test(process.env.npm_execpath ?? '')
  ? [process.execPath, process.env.npm_execpath]
  : [process.platform === 'win32' ? 'pnpm.cmd' : 'pnpm'];

if (parsed.values['no-build']) {
  const unbuilt = [...libraries.values()].filter(({ dir }) => !existsSync(join(dir, 'dist', 'index.js')));
  if (unbuilt.length > 0) {
    fail(
      `not built: ${unbuilt.map(({ manifest }) => manifest.name).join(', ')}; run pnpm pack:libs without --no-build`,
    );
  }
} else {
  // The libraries' build: one TypeScript program writing every library's dist/ (turbo's //#compile,
  // which reuses its cache when nothing changed).
  say('building the libraries (about a minute the first time; later runs reuse the build)');
  const turbo = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'turbo.cmd' : 'turbo');
  await run(turbo, ['run', '//#compile', '--output-logs=errors-only'], 'the build').catch((error) =>
    fail(error.message),
  );
}

let staging;
try {
  mkdirSync(out, { recursive: true });
  staging = mkdtempSync(join(out, '.packing-'));
} catch (error) {
  fail(`cannot write the tarballs into ${out}: ${error.message}`);
}
try {
  // One pnpm process packs them all (`pnpm pack --recursive`, filtered to the libraries).
  const packed = JSON.parse(
    await run(
      pnpm[0],
      [
        ...pnpm.slice(1),
        '--recursive',
        ...[...libraries.keys()].flatMap((name) => ['--filter', name]),
        'pack',
        '--pack-destination',
        staging,
        '--json',
      ],
      'pnpm pack',
    ),
  );
  for (const name of libraries.keys()) {
    const entry = packed.find((each) => each.name === name);
    if (!entry) throw new Error(`pnpm pack did not pack ${name}`);
    renameSync(entry.filename, tarball(name));
  }
} catch (error) {
  rmSync(staging, { recursive: true, force: true });
  fail(error.message);
}
rmSync(staging, { recursive: true, force: true });

say(`packed ${libraries.size} libraries into ${out}`);
const lines = [
  '# To use a library from a project of yours, run its line there: its tarball and those of the',
  '# libraries it depends on. npm fetches their other dependencies (zod, undici...) from the registry.',
];
for (const name of [...libraries.keys()].sort()) {
  lines.push(`# ${name}`, `npm install ${closure(name).map(tarball).map(quote).join(' ')}`);
}
process.stdout.write(`${lines.join('\n')}\n`);
