#!/usr/bin/env node
// Prints each package's coverage from its last test run (coverage/coverage-summary.json, written by
// the preset's json-summary reporter) beside its floor in coverage-floors.json. The test run itself
// fails below a floor (vitest's coverage thresholds); this is the table for the log.
// With --raise, lifts each floor to one point under the figure measured (rounded down), never
// lowering one: commit the file it writes.
// Usage: node tooling/vitest/coverage.mjs [--raise]
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
const floorsFile = new URL('./coverage-floors.json', import.meta.url);
const floors = JSON.parse(readFileSync(floorsFile, 'utf8'));
const METRICS = ['lines', 'statements', 'functions', 'branches'];

const rows = [];
for (const group of ['apps', 'packages', 'tooling']) {
  for (const dir of readdirSync(join(root, group)).sort()) {
    const summary = join(root, group, dir, 'coverage', 'coverage-summary.json');
    if (!existsSync(summary)) continue;
    const { name } = JSON.parse(readFileSync(join(root, group, dir, 'package.json'), 'utf8'));
    const { total } = JSON.parse(readFileSync(summary, 'utf8'));
    rows.push({ name, total });
  }
}

const cell = (measured, floor) => `${measured.toFixed(1).padStart(5)} (${String(floor ?? '-').padStart(3)})`;
process.stdout.write(
  `coverage per package: measured % (floor %)\n${'package'.padEnd(28)}${METRICS.map((m) => m.padEnd(14)).join('')}\n`,
);
for (const { name, total } of rows) {
  const floor = floors[name] ?? {};
  process.stdout.write(
    `${name.padEnd(28)}${METRICS.map((m) => cell(total[m].pct, floor[m]).padEnd(14)).join('')}\n`,
  );
}

if (process.argv.includes('--raise')) {
  for (const { name, total } of rows) {
    const floor = { ...floors[name] };
    for (const metric of METRICS) {
      const proposed = Math.max(0, Math.floor(total[metric].pct) - 1);
      floor[metric] = Math.max(floor[metric] ?? 0, proposed);
    }
    floors[name] = floor;
  }
  const sorted = Object.fromEntries(Object.entries(floors).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(floorsFile, `${JSON.stringify(sorted, null, 2)}\n`);
  process.stdout.write('coverage floors raised: commit tooling/vitest/coverage-floors.json\n');
}
