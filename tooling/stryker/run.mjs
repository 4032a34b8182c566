#!/usr/bin/env node
/**
 * `pnpm mutation [package...] [-- stryker flags]`: mutation testing (Stryker) of core, guard and
 * the catalog's selection, one package after another, then a table of the results of each. Each
 * package's `stryker.config.mjs` names the files it mutates; the shared settings are in
 * config.mjs beside this file. Flags after the package names go to `stryker run` (`--force`
 * tests every mutant again instead of only those whose code or tests changed).
 *
 * Not part of `pnpm test`: a whole run takes tens of minutes on two cores.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGES = ['core', 'guard', 'catalog'];

// Package names first; from the first flag on, everything goes to stryker (`--mutate src/x.ts`).
const args = process.argv.slice(2).filter((arg) => arg !== '--');
const firstFlag = args.findIndex((arg) => arg.startsWith('-'));
const named = firstFlag < 0 ? args : args.slice(0, firstFlag);
const flags = firstFlag < 0 ? [] : args.slice(firstFlag);
const unknown = named.filter((name) => !PACKAGES.includes(name));
if (unknown.length) {
  console.error(
    `pnpm mutation: no mutation testing set up for ${unknown.join(', ')}; choose from ${PACKAGES.join(', ')}`,
  );
  process.exit(2);
}
const chosen = named.length ? named : PACKAGES;

const stryker = join(
  dirname(createRequire(import.meta.url).resolve('@stryker-mutator/core/package.json')),
  'bin',
  'stryker.js',
);

let failed = false;
for (const name of chosen) {
  process.stdout.write(`\n== mutation testing: packages/${name}\n\n`);
  const run = spawnSync(process.execPath, [stryker, 'run', ...flags], {
    cwd: join(root, 'packages', name),
    stdio: 'inherit',
  });
  if (run.status !== 0) {
    console.error(`pnpm mutation: stryker failed in packages/${name} (exit ${run.status ?? run.signal})`);
    failed = true;
  }
}

/** Counts by status, and the scores, from a package's report (mutation-testing-report-schema). */
function summary(name) {
  const file = join(root, 'packages', name, 'reports', 'mutation', 'mutation.json');
  if (!existsSync(file)) return undefined;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const count = {};
  for (const { mutants } of Object.values(report.files)) {
    for (const { status } of mutants) count[status] = (count[status] ?? 0) + 1;
  }
  const get = (status) => count[status] ?? 0;
  const detected = get('Killed') + get('Timeout');
  const valid = detected + get('Survived') + get('NoCoverage');
  const covered = detected + get('Survived');
  const percent = (part, whole) => (whole ? `${((100 * part) / whole).toFixed(1)} %` : 'n/a');
  return {
    package: name,
    files: Object.keys(report.files).length,
    killed: get('Killed'),
    survived: get('Survived'),
    timeout: get('Timeout'),
    'no coverage': get('NoCoverage'),
    ignored: get('Ignored'),
    errors: get('RuntimeError') + get('CompileError'),
    score: percent(detected, valid),
    'score of covered': percent(detected, covered),
  };
}

// Every package that has a report, the ones not run this time included: the table docs/building.md shows.
const rows = PACKAGES.map(summary).filter(Boolean);
if (rows.length) {
  const heads = Object.keys(rows[0]);
  const line = (cells) => `| ${cells.join(' | ')} |\n`;
  process.stdout.write(
    "\nMutation scores (each package's reports/mutation/mutation.html shows every mutant):\n\n" +
      line(heads) +
      line(heads.map(() => '---')) +
      rows.map((row) => line(heads.map((head) => String(row[head])))).join(''),
  );
}
process.exit(failed ? 1 : 0);
