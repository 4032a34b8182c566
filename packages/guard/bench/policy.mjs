/**
 * What a policy file costs at start-up: reading and validating policies of 1,000, 10,000 and
 * 30,000 rules (`loadPolicy`, as both apps read `--policy`), each the median of `--samples` runs
 * in processor time, and each size as a multiple of the smallest, measured in the same run (the
 * machine's speed cancels out). Linear work grows with the rules: 10 times the rules, about 10 to
 * 20 times the time (the larger policies outgrow V8's young heap); a quadratic step gave 100 times.
 *
 *   pnpm --filter @cloudcall/guard bench
 *   node bench/policy.mjs --sizes 1000,10000,30000 --samples 9
 *
 * Run on the built package (dist): `pnpm bench` builds first.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,30000' },
    samples: { type: 'string', default: '9' },
  },
});
const sizes = values.sizes.split(',').map(Number);
const samples = Number(values.samples);
if (!sizes.every((n) => Number.isInteger(n) && n > 0) || !(samples > 0)) {
  process.stderr.write('--sizes takes positive integers, --samples a positive number\n');
  process.exit(2);
}
const { loadPolicy } = await import(new URL('../dist/index.js', import.meta.url).href);

const dir = mkdtempSync(join(tmpdir(), 'cloudcall-policy-bench-'));
try {
  const rows = sizes.map((count) => {
    const file = join(dir, `policy-${count}.json`);
    const rules = Array.from({ length: count }, (_, index) => `    "name:server-${index}-*"`);
    writeFileSync(file, `{\n  "protect": [\n${rules.join(',\n')}\n  ],\n  "allow": ["vm-reboot"]\n}\n`);
    loadPolicy(file); // warm up
    const times = Array.from({ length: samples }, () => {
      const start = process.cpuUsage();
      loadPolicy(file);
      const used = process.cpuUsage(start);
      return (used.user + used.system) / 1000;
    }).sort((a, b) => a - b);
    return { count, kib: statSync(file).size / 1024, ms: times[Math.floor(times.length / 2)] };
  });
  const base = rows[0];
  process.stdout.write('| rules | file (KiB) | load and validate (ms, processor) | × the smallest |\n');
  process.stdout.write('| ---: | ---: | ---: | ---: |\n');
  for (const row of rows) {
    process.stdout.write(
      `| ${row.count.toLocaleString('en')} | ${row.kib.toFixed(0)} | ${row.ms.toFixed(1)} | ${(row.ms / base.ms).toFixed(1)}× |\n`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
