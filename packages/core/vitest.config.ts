import preset from '@cloudcall/vitest-config';
import { mergeConfig } from 'vitest/config';

// The test files share one worker's modules (undici, zod and the client load once, not once per
// file): no test file changes a module's state for the next (the one spy restores Math.random;
// what must be fresh, such as undici not loaded yet, runs in a child process). One worker: the
// files take a few seconds in all, less than a second worker costs to start and load.
export default mergeConfig(preset, { test: { isolate: false, maxWorkers: 1 } });
