// Shared Vitest preset: tests sit next to the code as src/**/*.test.ts and talk only to loopback.
// A package's whole run (its `test` script: vitest run --coverage) measures coverage (v8) and fails
// below the package's floor in coverage-floors.json; a run of a few files measures none. In CI (CI set) files and tests run in a shuffled order, so a test that needs another first fails.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/** The package whose tests run: vitest starts in its folder (turbo and pnpm --filter do). */
const name = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')).name;
const floors = JSON.parse(readFileSync(new URL('./coverage-floors.json', import.meta.url), 'utf8'));

/** A seed given by TEST_SEED replays an order; otherwise each CI run draws its own (printed by vitest). */
const seed = process.env.TEST_SEED ? Number(process.env.TEST_SEED) : undefined;
const shuffle = Boolean(process.env.CI) || seed !== undefined;

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration suites spawn processes and servers; two cores is all CI has.
    maxWorkers: 2,
    sequence: {
      shuffle: shuffle && { files: true, tests: true },
      ...(seed === undefined ? {} : { seed }),
    },
    coverage: {
      provider: 'v8',
      include: ['src/**/*.{ts,mts,js,mjs}', '*.{js,mjs}'],
      exclude: [
        '**/*.test.*',
        '**/*.config.*',
        'src/testing/**',
        '**/*.generated.ts',
        '**/*.d.ts',
        '**/*.d.mts',
      ],
      // The figures in the log (text-summary) and for tooling/vitest/coverage.mjs (json-summary).
      reporter: ['text-summary', 'json-summary'],
      thresholds: floors[name] ?? {},
    },
    server: {
      deps: {
        // Other workspace packages are imported as built (their dist, made by the build a test
        // task depends on): Node loads them as it loads node_modules, instead of Vite transforming
        // them again for every test file. A package's own sources are still transformed.
        external: [/\/packages\/[^/]+\/dist\//],
      },
    },
  },
});
