import preset from '@cloudcall/vitest-config';
import { mergeConfig } from 'vitest/config';

// The test files share each worker's modules (the catalog, zod, the sandbox load once per worker,
// not once per file): no test file changes a module's state for the next.
export default mergeConfig(preset, { test: { isolate: false } });
