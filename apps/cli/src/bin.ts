#!/usr/bin/env node
/**
 * The `cloudcall` command, built to dist/bin.cjs: CommonJS, so that `cloudcall --version`, which
 * scripts call often, answers without loading anything else. Anything else runs dist/main.js,
 * which the build makes CommonJS too, with its chunks: Node reads them without its ES module
 * loader, and compiles them as scripts, whose code can be cached (see main.ts).
 */
import packageJson from '../package.json' with { type: 'json' };
import { asksVersion } from './version-flag.js';

if (asksVersion(process.argv.slice(2))) {
  process.stdout.write(`${packageJson.version}\n`);
} else {
  // Kept as it is by the build: dist/main.js, beside dist/bin.cjs.
  require('./main.js');
}
