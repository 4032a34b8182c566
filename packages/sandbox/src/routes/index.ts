/** Every route the sandbox answers, family by family. A new family adds its list here. */
import type { Route } from '../http.js';
import { accountRoutes } from './account.js';
import { databasesRoutes } from './databases.js';
import { imagesRoutes } from './images.js';
import { networkingRoutes } from './networking.js';
import { projectsRoutes } from './projects.js';
import { snapshotsRoutes } from './snapshots.js';
import { tagsRoutes } from './tags.js';
import { vmsRoutes } from './vms.js';
import { vmsRelatedRoutes } from './vms-related.js';
import { volumesRoutes } from './volumes.js';

export const routes: Route[] = [
  ...accountRoutes,
  ...vmsRoutes,
  ...vmsRelatedRoutes,
  ...tagsRoutes,
  ...snapshotsRoutes,
  ...imagesRoutes,
  ...networkingRoutes,
  ...databasesRoutes,
  ...volumesRoutes,
  ...projectsRoutes,
];
