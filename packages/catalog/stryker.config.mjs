// Mutation testing of the catalog's tool selection (`pnpm mutation catalog`).
import { strykerConfig } from '../../tooling/stryker/config.mjs';

export default strykerConfig({ mutate: ['src/select.ts'] });
