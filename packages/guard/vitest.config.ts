import preset from '@cloudcall/vitest-config';
import { mergeConfig } from 'vitest/config';

// The test files share one worker's modules (the catalog, zod, the sandbox load once, not once per
// file): no test file changes a module's state for the next. One worker: the hostile file is most
// of the work, and a second worker cost more CPU to start and load than it saved in time.
export default mergeConfig(preset, { test: { isolate: false, maxWorkers: 1 } });
