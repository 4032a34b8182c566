import preset from '@cloudcall/vitest-config';
import { mergeConfig } from 'vitest/config';

// The test files share each worker's modules (the server, its routes, the OpenAPI validators and
// their compiled schemas load once per worker, not once per file): no test file changes a
// module's state for the next, and the spies one sets are restored before it ends.
export default mergeConfig(preset, { test: { isolate: false } });
