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
  // Kept as it is by the build: dist/main.js, beside dist/bin.cjs.
  void import('./main.js');
}
