// Shared Vitest preset: tests sit next to the code as src/**/*.test.ts and talk only to loopback.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration suites spawn processes and servers; two cores is all CI has.
    maxWorkers: 2,
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
