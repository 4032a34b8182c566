import preset from '@cloudcall/vitest-config';
import { mergeConfig } from 'vitest/config';

// The test files share one worker's modules (the families, zod, the sandbox load once, not once
// per file): no test file changes a module's state for the next. One worker: the hostile table
// takes most of the time, and a second worker cost more to start and load than the other files
// take to run.
export default mergeConfig(preset, { test: { isolate: false, maxWorkers: 1 } });
