#!/usr/bin/env node
// Writes docs/mcp-server-flags.md from the flags table (src/flags-doc.ts renders src/flags.ts, the
// table the parser and --help are made from). `pnpm generate` runs it; src/flags.test.ts fails
// when the committed page is stale.
// Usage: node scripts/flags-doc.mjs [--check]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { emit } from '@cloudcall/scripts/generated.mjs';
import ts from 'typescript';

/** The page's TypeScript modules, compiled to JavaScript beside this package's node_modules. */
const out = new URL('../node_modules/.cache/flags-doc/', import.meta.url);
mkdirSync(out, { recursive: true });
for (const name of ['flags-doc', 'flags', 'service-flags']) {
  const source = readFileSync(new URL(`../src/${name}.ts`, import.meta.url), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  writeFileSync(new URL(`${name}.js`, out), outputText);
}
const { flagsPage } = await import(new URL('flags-doc.js', out).href);
emit(new URL('../../../docs/mcp-server-flags.md', import.meta.url), flagsPage());
