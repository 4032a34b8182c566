#!/usr/bin/env node
/**
 * cloudcall-bundle: builds the app in the current directory into dist/main.js, an ESM entry with
 * every dependency inside (Node's builtins stay imports) and the chunks it imports on demand in
 * dist/chunks, plus source maps and dist/THIRD-PARTY-LICENSES.txt. The app's package then installs
 * nothing.
 *
 * Usage (an app's "build" script): cloudcall-bundle [entry, default src/main.ts]
 *        cloudcall-bundle src/main.ts --cjs-entry   (dist/main.js CommonJS, its chunks ES modules)
 *        cloudcall-bundle src/main.ts --cjs   (dist/main.js and its chunks, all CommonJS)
 *        cloudcall-bundle src/main.ts --one-file DIR   (everything in DIR/main.js, for comparison:
 *        tooling/bench/src/one-file.mjs measures what splitting saves)
 */
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import MagicString from 'magic-string';
import { build } from 'rolldown';

const cwd = process.cwd();
/** License texts of bundled packages whose published package has none (tooling/bundle/licenses). */
const KEPT_LICENSES = fileURLToPath(new URL('./licenses/', import.meta.url));
const { values, positionals } = parseArgs({
  options: { 'one-file': { type: 'string' }, 'cjs-entry': { type: 'boolean' }, cjs: { type: 'boolean' } },
  allowPositionals: true,
});
const entry = positionals[0] ?? 'src/main.ts';
const oneFile = values['one-file'];
const cjsEntry = Boolean(values['cjs-entry']) && !oneFile;
/**
 * --cjs: dist/main.js and every chunk it loads on demand are CommonJS, each dynamic import() of a
 * chunk or of a Node builtin a require() run when the import would be (`dynamicImportInCjs:
 * false`). Node reads a CommonJS file synchronously, without the ES module loader (which reads
 * each file through its thread pool and resolves it as a URL), and compiles it as a script, whose
 * code V8 can cache where Node does not (Node 20: the app may keep its own cache).
 * dist/package.json makes the .js files of dist/ CommonJS.
 */
const cjs = Boolean(values.cjs) && !oneFile && !cjsEntry;
/**
 * An app's own splitting, in bundle.config.mjs beside its package.json: `codeSplittingGroups`,
 * rolldown's `output.codeSplitting.groups` (modules that go together in a chunk of their own).
 */
const configFile = join(cwd, 'bundle.config.mjs');
const config = existsSync(configFile) ? (await import(pathToFileURL(configFile).href)).default : {};
const outDir = oneFile ? resolve(oneFile) : join(cwd, 'dist');
const outFile = join(outDir, 'main.js');

// Whatever an earlier build left (tsc's per-module files) must not be packed beside the bundle.
rmSync(outDir, { recursive: true, force: true });

/** What the entry's build and the launcher's (below) have in common. */
const common = {
  cwd,
  platform: 'node',
  // A package's ESM build when it has one: a UMD main (jsonc-parser's) requires its modules
  // through the factory's own `require`, which no bundler can follow.
  resolve: { mainFields: ['module', 'main'] },
  // Lowers any syntax newer than the oldest Node the apps support (package.json engines).
  transform: { target: 'node20.19' },
  // A file a module reads beside itself (`new URL('./listing.generated.json', import.meta.url)`)
  // is copied to dist/assets, and the URL points there.
  experimental: { resolveNewUrlToAsset: true },
  onLog(level, log, handler) {
    // A module the bundler cannot find would be left as an import that fails at run time, in a
    // package that installs no dependencies: refuse to build instead.
    if (log.code === 'UNRESOLVED_IMPORT') handler('error', log);
    else handler(level, log);
  },
};

const licenses = thirdPartyLicenses();
const result = cjsEntry
  ? await buildCjsEntry()
  : await build({
      ...common,
      input: entry,
      plugins: [inlinePackageJson(), ...(cjs ? [lazyBuiltins()] : []), licenses],
      output: {
        // main.js holds what every start runs; each dynamic import() becomes a chunk that Node reads
        // and parses only when the import runs. One file (--one-file) is parsed whole on every start,
        // `cloudcall --version` included: about 50 ms more (tooling/bench/src/one-file.mjs).
        ...(oneFile
          ? { file: outFile, codeSplitting: false }
          : { dir: outDir, entryFileNames: 'main.js', chunkFileNames: 'chunks/[name]-[hash].js' }),
        ...(cjs ? { format: 'cjs', dynamicImportInCjs: false } : { format: 'esm' }),
        ...(config.codeSplittingGroups && !oneFile
          ? { codeSplitting: { groups: config.codeSplittingGroups } }
          : {}),
        // The maps stay in dist/ for debugging from a checkout, unreferenced and unpacked: with their
        // sources they would double the packed size, and without them a shipped map points nowhere.
        sourcemap: 'hidden',
        sourcemapExcludeSources: true,
        // Node parses a whole file before running a line of it: minified, that is less to parse.
        minify: true,
        // A file with a character beyond ASCII (a spinner's braille, an ellipsis, an arrow) becomes
        // a two-byte string in V8: twice the memory to read, scan and copy at each collection.
        // Escaped, each file is one byte a character.
        charset: 'ascii',
      },
    });
chmodSync(outFile, 0o755);
if (cjs) {
  writeFileSync(
    join(outDir, 'package.json'),
    `${JSON.stringify({ type: 'commonjs', description: 'main.js and its chunks are CommonJS.' }, null, 2)}\n`,
  );
}

// An app with src/bin.ts gets dist/bin.cjs too, its package's `bin`: a CommonJS launcher, which
// Node starts without its ES module loader, and which imports dist/main.js for the real work.
const launcher = join(cwd, 'src/bin.ts');
if (!oneFile && existsSync(launcher)) {
  const binFile = join(outDir, 'bin.cjs');
  await build({
    ...common,
    input: launcher,
    // The import of ./main.js stays an import, of the entry built above.
    external: [/^\.\/main\.js$/],
    output: { file: binFile, format: 'cjs', minify: true, charset: 'ascii', codeSplitting: false },
  });
  chmodSync(binFile, 0o755);
}

const chunks = result.output.filter((output) => output.type === 'chunk');
const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
const modules = chunks.reduce((count, chunk) => count + Object.keys(chunk.modules).length, 0);
const chunkBytes = chunks
  .filter((chunk) => join(outDir, chunk.fileName) !== outFile)
  .reduce((bytes, chunk) => bytes + statSync(join(outDir, chunk.fileName)).size, 0);
process.stderr.write(
  `${relative(cwd, outFile)}: ${kib(statSync(outFile).size)}, and ${kib(chunkBytes)} in ${chunks.length - 1} chunks loaded on demand, from ${modules} modules\n`,
);

/**
 * --cjs-entry: dist/main.js is CommonJS, so that Node starts it without its ES module loader (about
 * a quarter of a bare `node -e 0` start on its own), and everything it imports on demand is ES
 * module chunks, dist/chunks/*.mjs, which Node loads as before: asynchronously, so that the entry
 * keeps answering while they load. dist/package.json makes the .js files of dist/ CommonJS.
 *
 * Two builds: the entry's, in which every dynamic import() of a module (not a Node builtin)
 * stays an import() of `./chunks/<name>.mjs`; then those modules', as the entries of an ES
 * module build whose shared code goes in hashed chunks beside them. A module both builds import
 * statically is in both (the entry keeps to flags, the listing and the start; what it shares with
 * the chunks is small and holds no state).
 */
async function buildCjsEntry() {
  /** The modules the entry imports on demand: resolved id -> the name of their chunk. */
  const later = new Map();
  const names = new Set();
  const entryResult = await build({
    ...common,
    input: entry,
    plugins: [
      inlinePackageJson(),
      licenses,
      lazyBuiltins(),
      {
        name: 'cloudcall:imports-on-demand',
        async resolveDynamicImport(specifier, importer) {
          if (typeof specifier !== 'string' || specifier.startsWith('node:')) return null;
          const resolved = await this.resolve(specifier, importer);
          if (!resolved || resolved.external) return null;
          let name = later.get(resolved.id);
          if (!name) {
            const base = specifier
              .replace(/^@cloudcall\//, '')
              .replace(/^\.\//, '')
              .replace(/\.[jt]s$/, '')
              .replace(/[^\w-]+/g, '-');
            name = base;
            for (let n = 2; names.has(name); n++) name = `${base}-${n}`;
            names.add(name);
            later.set(resolved.id, name);
          }
          return { id: `./chunks/${name}.mjs`, external: true };
        },
      },
    ],
    output: {
      dir: outDir,
      entryFileNames: 'main.js',
      format: 'cjs',
      // import() of a chunk stays import(): the chunks are ES modules.
      dynamicImportInCjs: true,
      sourcemap: 'hidden',
      sourcemapExcludeSources: true,
      minify: true,
      charset: 'ascii',
    },
  });
  if (entryResult.output.filter((output) => output.type === 'chunk').length !== 1) {
    throw new Error('--cjs-entry: the entry must build into dist/main.js alone');
  }
  const chunksResult = await build({
    ...common,
    input: Object.fromEntries([...later].map(([id, name]) => [name, id])),
    plugins: [inlinePackageJson(), licenses],
    output: {
      dir: outDir,
      entryFileNames: 'chunks/[name].mjs',
      chunkFileNames: 'chunks/[name]-[hash].mjs',
      format: 'esm',
      sourcemap: 'hidden',
      sourcemapExcludeSources: true,
      minify: true,
      charset: 'ascii',
    },
  });
  writeFileSync(
    join(outDir, 'package.json'),
    `${JSON.stringify({ type: 'commonjs', description: 'main.js is CommonJS; its chunks are ES modules (.mjs).' }, null, 2)}\n`,
  );
  return { output: [...entryResult.output, ...chunksResult.output] };
}

/**
 * `createRequire(import.meta.url)('../package.json')`, the way a package reads its own version,
 * would resolve next to the bundle instead of next to the module that wrote it (core's VERSION
 * would read the app's package.json). Each such read becomes the JSON of the package.json it
 * meant, at build time.
 */
function inlinePackageJson() {
  const read = /createRequire\(import\.meta\.url\)\(\s*(['"])(\.\.?\/(?:[^'"/]+\/)*package\.json)\1\s*\)/g;
  return {
    name: 'cloudcall:inline-package-json',
    transform: {
      filter: { code: 'createRequire(import.meta.url)' },
      handler(code, id) {
        const replaced = code.replace(read, (_, _quote, path) => {
          const file = resolve(dirname(id), path);
          const { name, version } = JSON.parse(readFileSync(file, 'utf8'));
          return `(${JSON.stringify({ name, version })})`;
        });
        if (/createRequire\(import\.meta\.url\)\(\s*['"]\./.test(replaced)) {
          this.error(
            `${relative(cwd, id)} requires a file relative to itself, which the bundle cannot keep; import it instead`,
          );
        }
        return { code: replaced, map: null };
      },
    },
  };
}

/**
 * Node's own modules that its start does not load, each of which costs a command several
 * milliseconds to load with what it requires (crypto 47 modules, http 47, tty and net the stream
 * modules; os is one, imported for a `homedir()` that a set HOME never needs): in a --cjs build,
 * and in a --cjs-entry build's main.js, each `require()` of one (a top-level `import` in the
 * sources, commander's `require('node:child_process')`) gives an object that requires the module
 * the first time one of its members is read, so a command or a server's start loads only the
 * modules it uses, when it uses them. A module's members are read as before
 * (`crypto.randomUUID()`, `new net.BlockList()`); only a look at the object itself (`typeof`,
 * identity) tells it apart, which is why node:stream, whose export is a class (`class X extends
 * require('stream')`), is not one.
 */
function lazyBuiltins() {
  const builtins = [
    'child_process',
    'crypto',
    'dgram',
    'dns',
    'http',
    'http2',
    'https',
    'net',
    'os',
    'readline',
    'stream/promises',
    'tls',
    'tty',
    'worker_threads',
    'zlib',
  ];
  const helper = '__cloudcallLazyBuiltin';
  const helperSource = `function ${helper}(id){let m;const l=()=>m??=require(id);return new Proxy({},{get:(_,k)=>l()[k],has:(_,k)=>k in l(),ownKeys:()=>Reflect.ownKeys(l()),getOwnPropertyDescriptor:(_,k)=>{const d=Reflect.getOwnPropertyDescriptor(l(),k);if(d)d.configurable=true;return d}})}\n`;
  const required = new RegExp(
    `\\brequire\\((["'\`])(?:node:)?(${builtins.map((id) => id.replace('/', '\\/')).join('|')})\\1\\)`,
    'g',
  );
  return {
    name: 'cloudcall:lazy-builtins',
    renderChunk(code) {
      const s = new MagicString(code);
      for (const match of code.matchAll(required)) {
        s.overwrite(match.index, match.index + match[0].length, `${helper}("node:${match[2]}")`);
      }
      if (!s.hasChanged()) return null;
      // After a #! line and a "use strict" directive, which must stay where they are.
      const head = /^(?:#![^\n]*\n)?(?:\s*(["'])use strict\1;?\n?)?/.exec(code)?.[0] ?? '';
      s.appendLeft(head.length, helperSource);
      return { code: s.toString(), map: s.generateMap({ hires: true }) };
    },
  };
}

/**
 * The MIT, ISC and BSD licenses of the bundled packages ask that their notice travel with every
 * copy: dist/THIRD-PARTY-LICENSES.txt holds each bundled package's name, version, license and
 * license text, for the packages that have code in the bundle.
 */
function thirdPartyLicenses() {
  // Kept across builds (--cjs-entry makes two): the last one writes what both bundled.
  const packages = new Map();
  return {
    name: 'cloudcall:third-party-licenses',
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        for (const [id, module] of Object.entries(chunk.modules)) {
          if (module.renderedLength === 0 || !id.includes(`${sep}node_modules${sep}`)) continue;
          const root = packageRoot(id);
          if (!root) continue;
          const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
          if (manifest.name?.startsWith('@cloudcall/')) continue;
          packages.set(`${manifest.name}@${manifest.version}`, { root, manifest });
        }
      }
      const sections = [...packages.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, { root, manifest }]) => {
          const texts = readdirSync(root)
            .filter((file) => /^(licen[cs]e|copying|notice)/i.test(file))
            .sort()
            .map((file) => readFileSync(join(root, file), 'utf8').trim());
          // A package published without its license file (@redis/client): its repository's, kept here.
          const kept = join(KEPT_LICENSES, `${manifest.name.replace('/', '+')}.txt`);
          if (!texts.length && existsSync(kept)) texts.push(readFileSync(kept, 'utf8').trim());
          if (!texts.length) this.error(`${key} has no license file to ship with the bundle`);
          return `${key} (${manifest.license ?? 'see text'})\n\n${texts.join('\n\n')}`;
        });
      this.emitFile({
        type: 'asset',
        fileName: 'THIRD-PARTY-LICENSES.txt',
        source: `Packages bundled into main.js and its chunks, with their licenses.\n\n${sections.join(`\n\n${'-'.repeat(72)}\n\n`)}\n`,
      });
    },
  };
}

/** The directory of the package a module file belongs to: the nearest package.json with a name. */
function packageRoot(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name) return dir;
  }
  return undefined;
}
