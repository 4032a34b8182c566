#!/usr/bin/env node
// Rewrites the generated parts of the documentation from the built catalog: the table of families
// and tools in docs/tools.md, and the host snippets in the README's quick start.
// Usage: pnpm docs:tools (builds first).
import { readFileSync, writeFileSync } from 'node:fs';
import { families, withHostsSection, withToolsTable } from '@cloudcall/catalog';

for (const [file, rewrite] of [
  ['../../docs/tools.md', (text) => withToolsTable(text, families)],
  ['../../README.md', (text) => withHostsSection(text)],
]) {
  const url = new URL(file, import.meta.url);
  const before = readFileSync(url, 'utf8');
  const after = rewrite(before);
  if (after !== before) writeFileSync(url, after);
  console.error(`${file.slice(6)}: ${after === before ? 'up to date' : 'updated'}`);
}
