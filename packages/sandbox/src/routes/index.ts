/**
 * Every route the sandbox answers: the hand models, family by family (a new family adds its list
 * here), then the generic layer's for every other operation of the API description.
 */
import { genericRoutes } from '../generic/routes.js';
import type { Route } from '../http.js';
import { createRouter, type Router } from '../router.js';
import { accountRoutes } from './account.js';
import { appsRoutes } from './apps.js';
import { autoscaleRoutes } from './autoscale.js';
import { databasesRoutes } from './databases.js';
import { databasesExtraRoutes } from './databases-extra.js';
import { functionsRoutes } from './functions.js';
import { imagesRoutes } from './images.js';
import { kubernetesRoutes } from './kubernetes.js';
import { monitoringAlertRoutes, monitoringSinkRoutes } from './monitoring.js';
import { monitoringMetricRoutes } from './monitoring-metrics.js';
import { natGatewaysRoutes } from './nat-gateways.js';
import { networkingRoutes } from './networking.js';
import { nfsRoutes } from './nfs.js';
import { partnerNetworkRoutes } from './partner-network.js';
import { projectsRoutes } from './projects.js';
import { registryRoutes } from './registry.js';
import { snapshotsRoutes } from './snapshots.js';
import { spacesRoutes } from './spaces.js';
import { tagsRoutes } from './tags.js';
import { uptimeRoutes } from './uptime.js';
import { vmsRoutes } from './vms.js';
import { vmsRelatedRoutes } from './vms-related.js';
import { volumesRoutes } from './volumes.js';

/**
 * Routes whose handlers check the lengths of what they take themselves, field by field as the
 * description gives them (an app's spec, a cluster's taints, a share's VPCs): the body is checked
 * for nesting and property names only, not against the table of field limits (limits.ts), which
 * names fields across the older families and would refuse what these accept.
 */
const checkingTheirOwn = (list: readonly Route[]): Route[] =>
  list.map((route) => ({ ...route, ownLengths: true }));

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
  ...checkingTheirOwn([
    ...databasesExtraRoutes,
    ...registryRoutes,
    ...spacesRoutes,
    ...monitoringAlertRoutes,
    ...monitoringSinkRoutes,
    ...monitoringMetricRoutes,
    ...uptimeRoutes,
    ...appsRoutes,
    ...kubernetesRoutes,
    ...functionsRoutes,
    ...nfsRoutes,
    ...natGatewaysRoutes,
    ...partnerNetworkRoutes,
    ...autoscaleRoutes,
  ]),
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
