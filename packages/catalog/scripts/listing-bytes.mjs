#!/usr/bin/env node
// Prints what the MCP tool listing of the spec's tools weighs (the JSON of a tools/list result), by
// family, with the prose (tool and argument descriptions) apart from the structure, and the ten
// largest tools. Reads the built packages: run `pnpm build` first.
//
// Usage: node packages/catalog/scripts/listing-bytes.mjs [tool-name...]   (names: print their listing)
import { readFileSync } from 'node:fs';
import { families } from '@cloudcall/catalog';
import { toolListing } from '@cloudcall/core';

const specNames = new Set(
  JSON.parse(readFileSync(new URL('../test/spec-tools.json', import.meta.url), 'utf8')).tools.map(
    (t) => t.name,
  ),
);
// A reader that stops early (`| head`) is not an error.
process.stdout.on('error', (error) => {
  if (error.code !== 'EPIPE') throw error;
});
const print = (line) => process.stdout.write(`${line}\n`);
const bytes = (value) => Buffer.byteLength(JSON.stringify(value));
const prose = (listing) =>
  Buffer.byteLength(listing.description) +
  Object.values(listing.inputSchema.properties ?? {}).reduce(
    (sum, arg) => sum + Buffer.byteLength((arg.description ?? '').replace(/ ?Shape: .*$/, '')),
    0,
  );

const all = [];
for (const family of families) {
  const listed = family.tools.filter((tool) => specNames.has(tool.name)).map(toolListing);
  all.push(...listed);
  const args = listed.reduce((sum, t) => sum + Object.keys(t.inputSchema.properties ?? {}).length, 0);
  const text = listed.reduce((sum, t) => sum + prose(t), 0);
  print(
    `${family.name.padEnd(11)} ${String(listed.length).padStart(3)} tools ${String(args).padStart(4)} args ${String(bytes(listed)).padStart(6)} bytes (prose ${text})`,
  );
}
print(`tools/list of the ${all.length} spec tools: ${bytes({ tools: all })} bytes (budget 50000)`);
const largest = all.map((t) => [t.name, bytes(t)]).sort((a, b) => b[1] - a[1]);
print(
  `largest: ${largest
    .slice(0, 10)
    .map(([n, b]) => `${n} ${b}`)
    .join(', ')}`,
);
for (const name of process.argv.slice(2)) print(JSON.stringify(all.find((t) => t.name === name)));
