#!/usr/bin/env node
// Regenerates packages/catalog/test/spec-tools.json, the test data the catalog's spec test checks
// the tool definitions against: each spec tool's name, family and arguments (name, type,
// required, default, enum), from the spec's machine-readable tables beside the checkout. Tests read the
// committed copy, never ../shared, so a clone anywhere passes them.
// Usage: node tooling/scripts/spec-data.mjs [path/to/spec/tools.json]
import { readFileSync, writeFileSync } from 'node:fs';

const source = process.argv[2] ?? new URL('../../../shared/spec/tools.json', import.meta.url);
const spec = JSON.parse(readFileSync(source, 'utf8'));
const tools = spec.tools.map(({ name, family, args }) => ({
  name,
  family,
  args: args.map(({ name: arg, type, required, default: fallback, enum: values }) => ({
    name: arg,
    type,
    required,
    ...(fallback === undefined ? {} : { default: fallback }),
    ...(values === undefined ? {} : { enum: values }),
  })),
}));
const target = new URL('../../packages/catalog/test/spec-tools.json', import.meta.url);
writeFileSync(target, `${JSON.stringify({ tools }, null, 2)}\n`);
console.error(`spec-tools.json: ${tools.length} tools`);
