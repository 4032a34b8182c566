import preset from '@cloudcall/vitest-config';
import { mergeConfig } from 'vitest/config';

// The test files share one worker's modules (core, the sandbox, zod load once, not once per file):
// no test file changes a module's state for the next. One worker: the files take two seconds in
// all, less than a second worker costs to start and load.
export default mergeConfig(preset, { test: { isolate: false, maxWorkers: 1 } });
