// Mutation testing of the guard rails: the guard, its targets and the policy (`pnpm mutation guard`).
import { strykerConfig } from '../../tooling/stryker/config.mjs';

export default strykerConfig({
  mutate: ['src/guard.ts', 'src/target.ts', 'src/policy.ts'],
  // Without the slowest test files (see the config); a static mutant, which would need the whole
  // suite again in a fresh module graph, is left out (counted as ignored).
  vitestConfig: 'vitest.mutation.config.ts',
  ignoreStatic: true,
});
