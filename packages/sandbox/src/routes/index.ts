/** Every route the sandbox answers, family by family. A new family adds its list here. */
import type { Route } from '../http.js';
import { accountRoutes } from './account.js';
import { databasesRoutes } from './databases.js';
import { imagesRoutes } from './images.js';
import { networkingRoutes } from './networking.js';
import { vmsRoutes } from './vms.js';

export const routes: Route[] = [
  ...accountRoutes,
  ...vmsRoutes,
  ...imagesRoutes,
  ...networkingRoutes,
  ...databasesRoutes,
];
