#!/usr/bin/env node
// Rewrites the README's generated table of families and tools from the built catalog.
// Usage: pnpm docs:tools (builds first).
import { readFileSync, writeFileSync } from 'node:fs';
import { families, withToolsTable } from '@cloudcall/catalog';

const readme = new URL('../../README.md', import.meta.url);
const before = readFileSync(readme, 'utf8');
const after = withToolsTable(before, families);
if (after !== before) writeFileSync(readme, after);
console.error(after === before ? 'README tools table is up to date' : 'README tools table updated');
