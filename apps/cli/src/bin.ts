#!/usr/bin/env node
/**
 * The `cloudcall` command, built to dist/bin.cjs: CommonJS, so that `cloudcall --version`, which
 * scripts call often, answers without starting Node's ES module loader (about 5 ms). Anything else
 * runs dist/main.js, the ES module entry (which also answers --version when run directly).
 */
import packageJson from '../package.json' with { type: 'json' };
import { asksVersion } from './version-flag.js';

if (asksVersion(process.argv.slice(2))) {
  process.stdout.write(`${packageJson.version}\n`);
} else {
  // Node 22.1 and later keep the code V8 compiles for these modules in a cache on disk (in
  // os.tmpdir(), or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE turns it off), so the next
  // command compiles none of it again: compiling is about a quarter of a command's processor
  // time. Node 20 has no such cache, and goes on without it.
  // (`require`: this file is built to CommonJS, where an import of node:module would be wrapped.)
  (require('node:module') as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  // Kept as it is by the build: dist/main.js, beside dist/bin.cjs.
  void import('./main.js');
}
