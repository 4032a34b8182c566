// Mutation testing of the wire: retries, errors and the client (`pnpm mutation core`).
import { strykerConfig } from '../../tooling/stryker/config.mjs';

export default strykerConfig({ mutate: ['src/retry.ts', 'src/errors.ts', 'src/client.ts'] });
