/**
 * Every route the sandbox answers: the hand models, family by family (a new family adds its list
 * here), then the generic layer's for every other operation of the API description.
 */
import { genericRoutes } from '../generic/routes.js';
import type { Route } from '../http.js';
import { createRouter, type Router } from '../router.js';
import { accountRoutes } from './account.js';
import { autoscaleRoutes } from './autoscale.js';
import { databasesRoutes } from './databases.js';
import { functionsRoutes } from './functions.js';
import { imagesRoutes } from './images.js';
import { natGatewaysRoutes } from './nat-gateways.js';
import { networkingRoutes } from './networking.js';
import { nfsRoutes } from './nfs.js';
import { partnerNetworkRoutes } from './partner-network.js';
import { projectsRoutes } from './projects.js';
import { snapshotsRoutes } from './snapshots.js';
import { tagsRoutes } from './tags.js';
import { vmsRoutes } from './vms.js';
import { vmsRelatedRoutes } from './vms-related.js';
import { volumesRoutes } from './volumes.js';

/** The hand models' routes. */
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
  ...functionsRoutes,
  ...nfsRoutes,
  ...natGatewaysRoutes,
  ...partnerNetworkRoutes,
  ...autoscaleRoutes,
];

let router: Router | undefined;

/** The router over every route, hand and generic; made when first needed. */
export function sandboxRouter(): Router {
  // The generic layer looks routes up as requests come, by when the router exists.
  router ??= createRouter([
    ...routes,
    ...genericRoutes(routes, (method, path) => sandboxRouter().match(method, path)),
  ]);
  return router;
}
