import { mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

// The guard's suite for its mutation run (stryker.config.mjs): without the files that take most of
// its minute and test other things than the mutated files do: the audit log's own (eight processes
// appending, a full disk, the log attacked) and the property-based hostile arguments through every
// tool, which check that nothing crashes rather than what the guard decides.
export default mergeConfig(base, {
  test: {
    exclude: [
      'src/audit.test.ts',
      'src/audit-attacks.test.ts',
      'src/full-disk.test.ts',
      'src/hostile.test.ts',
      '**/node_modules/**',
    ],
  },
});
