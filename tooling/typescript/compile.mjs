/**
 * The libraries' build and the typecheck, as one TypeScript program: every package's and app's
 * sources and tests (the root tsconfig.json, workspace packages resolved to their sources by its
 * `paths`) are read and checked once, then each library's dist/ is written from the same program,
 * as its tsconfig.build.json describes it (its files, without tests and src/testing; its output
 * options). Eleven `tsc -p tsconfig.build.json` and a root `tsc -p tsconfig.json` read and checked
 * Node's, zod's and the MCP SDK's types twelve times.
 *
 * Usage: node tooling/typescript/compile.mjs            (`pnpm compile`; turbo's //#compile)
 *        node tooling/typescript/compile.mjs --noEmit   (`pnpm typecheck`: the same checks, nothing written)
 *
 * It fails, printing what tsc prints, on a type error anywhere (a test file included), on a
 * declaration a library's build could not write, and on what only a library's own build used to
 * catch, since it resolved workspace packages through node_modules: an import of a workspace
 * package that the importer does not depend on, or of a path that package does not export, or a
 * relative import out of the library's src/.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({ options: { noEmit: { type: 'boolean', default: false } } });

/**
 * Options in which a library's build may differ from the root program: where and how outputs are
 * written, and how workspace packages resolve (the root's `paths`, checked against each package's
 * `exports` below). A difference in any other option would change what is checked: refused.
 */
const EMIT_ONLY = new Set([
  'configFilePath',
  'declarationMap',
  'inlineSources',
  'noEmit',
  'outDir',
  'paths',
  'pathsBasePath',
  'rootDir',
]);
/** Output options the one program applies to every library alike. */
const SHARED_EMIT = ['declaration', 'declarationMap', 'inlineSources', 'sourceMap'];

const diagnostics = [];
/** What this build cannot do as the libraries' own builds did (it says so rather than differ). */
const refusals = [];
const configHost = {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => diagnostics.push(diagnostic),
};
const parseConfig = (file) => {
  const parsed = ts.getParsedCommandLineOfConfigFile(file, undefined, configHost);
  if (parsed) diagnostics.push(...parsed.errors);
  return parsed;
};

const root = parseConfig(join(ROOT, 'tsconfig.json'));
/** Every workspace package by name: its directory and manifest. */
const workspace = new Map(
  ['apps', 'packages', 'tooling'].flatMap((group) =>
    readdirSync(join(ROOT, group))
      .map((name) => join(ROOT, group, name))
      .filter((dir) => ts.sys.fileExists(join(dir, 'package.json')))
      .map((dir) => {
        const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
        return [manifest.name, { dir, manifest }];
      }),
  ),
);
/** The libraries: the packages with a tsconfig.build.json, each with its parsed build config. */
const libraries = [...workspace.values()]
  .filter(({ dir }) => ts.sys.fileExists(join(dir, 'tsconfig.build.json')))
  .map((pkg) => ({ ...pkg, config: parseConfig(join(pkg.dir, 'tsconfig.build.json')) }));
if (!root || libraries.some(({ config }) => !config)) report();

const emitOptions = libraries[0]?.config.options ?? {};
for (const { dir, config } of libraries) {
  const where = `${relative(ROOT, dir)}/tsconfig.build.json`;
  for (const key of new Set([...Object.keys(root.options), ...Object.keys(config.options)])) {
    if (!EMIT_ONLY.has(key) && !same(root.options[key], config.options[key])) {
      refuse(`${where} sets ${key} unlike tsconfig.json, whose options the one program checks with`);
    }
  }
  for (const key of SHARED_EMIT) {
    if (!same(emitOptions[key], config.options[key])) {
      refuse(`${where} sets ${key} unlike the other libraries; the one program writes all alike`);
    }
  }
  if (!config.options.rootDir || !config.options.outDir) refuse(`${where} sets no rootDir or outDir`);
  for (const file of config.fileNames) {
    if (!root.fileNames.includes(file)) refuse(`${relative(ROOT, file)} is built but not in tsconfig.json`);
  }
}
if (diagnostics.length > 0 || refusals.length > 0) report();

// Each output is computed under a directory that is never written: rootDir is the repository, so
// every source has its place under it, and each library's part of it is written to its outDir.
const VIRTUAL = join(ROOT, '.compile');
const options = {
  ...root.options,
  ...Object.fromEntries(SHARED_EMIT.map((key) => [key, emitOptions[key]])),
  noEmit: false,
  rootDir: ROOT,
  outDir: VIRTUAL,
};
const program = ts.createProgram({ rootNames: root.fileNames, options });
diagnostics.push(...ts.getPreEmitDiagnostics(program));

const resolutionCache = ts.createModuleResolutionCache(ROOT, (file) => file, options);
for (const library of libraries) {
  const { rootDir, outDir } = library.config.options;
  const virtualDir = join(VIRTUAL, relative(ROOT, rootDir));
  for (const file of program.getSourceFiles()) {
    if (file.fileName.endsWith('.json') && isInside(rootDir, file.fileName)) {
      refuse(`${relative(ROOT, file.fileName)} is imported; this build does not copy JSON to dist`);
    }
  }
  /** Each output of the library: its path in dist/ and its text. */
  const outputs = new Map();
  const writeFile = (file, text) => {
    const real = join(outDir, relative(virtualDir, file));
    outputs.set(real, file.endsWith('.map') ? relocateMap(text, dirname(file), dirname(real)) : text);
  };
  for (const file of library.config.fileNames) {
    const source = program.getSourceFile(file);
    checkImports(library, source.fileName, source.text, source);
    diagnostics.push(...program.emit(source, writeFile).diagnostics);
  }
  for (const [file, text] of outputs) {
    if (file.endsWith('.d.ts')) checkImports(library, file, text);
  }
  if (!values.noEmit) {
    // Whatever an earlier build left (a module since deleted) must not be packed.
    rmSync(outDir, { recursive: true, force: true });
    for (const [file, text] of outputs) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
  }
}
report();

/**
 * What the library's own build checked by resolving through node_modules, where the root program
 * resolves workspace packages by `paths`: a workspace package it imports is one it depends on,
 * the path is one that package exports (whose types are built from the file `paths` reaches), and
 * a relative import stays inside the library's src/ (from a declaration, inside its dist/). A
 * declaration is checked for the imports the emitter wrote into it, not those of its source.
 */
function checkImports(library, file, text, source) {
  const { manifest, config } = library;
  const { rootDir, outDir } = config.options;
  const sourceFile = source ? file : join(rootDir, relative(outDir, file)).replace(/\.d\.ts$/, '.ts');
  const ownImports = new Set(source ? [] : importsOf(program.getSourceFile(sourceFile)?.text ?? ''));
  const declared = { ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies };
  for (const { fileName: specifier, pos, end } of ts.preProcessFile(text, true, true).importedFiles) {
    if (ownImports.has(specifier)) continue;
    // In a declaration, the emitter wrote the import for a type the source leaves inferred: the
    // library's own build would have refused to name it (TS2742) unless it resolved.
    const at = (code, message) =>
      diagnostics.push({
        category: ts.DiagnosticCategory.Error,
        ...(source
          ? { code, messageText: message, file: source, start: pos, length: end - pos }
          : {
              code: 2742,
              messageText: `${relative(ROOT, sourceFile)}: an inferred type is written as an import of '${specifier}' in ${relative(ROOT, file)}, which is not portable (${message}). A type annotation is necessary.`,
            }),
      });
    if (specifier.startsWith('.')) {
      const home = source ? rootDir : outDir;
      if (!isInside(home, resolve(dirname(file), specifier))) {
        at(6059, `'${specifier}' is not under ${relative(ROOT, home)}, the library's own directory.`);
      }
      continue;
    }
    const name = /^@cloudcall\/[^/]+/.exec(specifier)?.[0];
    const target = name && workspace.get(name);
    if (!target) continue;
    if (name !== manifest.name && !(name in declared)) {
      at(2307, `Cannot find module '${specifier}': ${manifest.name} does not depend on ${name}.`);
      continue;
    }
    const subpath = `.${specifier.slice(name.length)}`;
    const exported = target.manifest.exports?.[subpath];
    const types = typeof exported === 'string' ? exported : (exported?.types ?? exported?.default);
    if (!types) {
      at(2307, `Cannot find module '${specifier}': ${name} does not export '${subpath}'.`);
      continue;
    }
    const resolved = ts.resolveModuleName(specifier, sourceFile, options, ts.sys, resolutionCache)
      .resolvedModule?.resolvedFileName;
    const built = libraries.find((lib) => lib.manifest.name === name)?.config.options;
    const shipped =
      built && resolved
        ? join(built.outDir, relative(built.rootDir, resolved)).replace(/\.ts$/, '.d.ts')
        : resolved;
    if (shipped !== resolve(target.dir, types)) {
      at(2307, `'${specifier}' is ${resolved && relative(ROOT, resolved)} here; ${name} exports ${types}.`);
    }
  }
}

function importsOf(text) {
  return ts.preProcessFile(text, true, true).importedFiles.map(({ fileName }) => fileName);
}

/** A source map computed for the virtual place, for the real one: `sources` are relative to it. */
function relocateMap(text, from, to) {
  const map = JSON.parse(text);
  map.sources = map.sources.map((source) => relative(to, resolve(from, source)).split(sep).join(posix.sep));
  return JSON.stringify(map);
}

function isInside(dir, file) {
  const path = relative(dir, file);
  return path !== '' && !path.startsWith('..') && !isAbsolute(path);
}

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

function refuse(message) {
  refusals.push(`compile.mjs: ${message}`);
}

function report() {
  const sorted = ts.sortAndDeduplicateDiagnostics(diagnostics);
  const host = {
    getCanonicalFileName: (file) => file,
    getCurrentDirectory: () => process.cwd(),
    getNewLine: () => '\n',
  };
  const pretty = process.stdout.isTTY && root?.options.pretty !== false;
  if (sorted.length > 0) {
    process.stdout.write(
      (pretty ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics)(sorted, host),
    );
  }
  for (const refusal of refusals) console.error(refusal);
  const errors = sorted.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
  if (errors > 0) process.stdout.write(`\nFound ${errors} error${errors === 1 ? '' : 's'}.\n`);
  if (errors > 0 || refusals.length > 0) process.exit(2);
  process.exit(0);
}
