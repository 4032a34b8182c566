/**
 * The hand models' routes, family by family: each family's module is imported only when a request
 * needs one of its routes (index.ts finds which in the generated route table), so a command that
 * reads SSH keys loads the account routes and none of the others. A new family adds its loader
 * here, then `pnpm generate` lists its routes in table.generated.ts.
 */
import type { Route } from '../http.js';

interface Family {
  load: () => Promise<readonly Route[]>;
  /**
   * The family's handlers check the lengths of what they take themselves, field by field as the
   * description gives them (an app's spec, a cluster's taints, a share's VPCs): the body is checked
   * for nesting and property names only, not against the table of field limits (limits.ts), which
   * names fields across the older families and would refuse what these accept.
   */
  ownLengths?: true;
}

/** Every family of hand routes, in the order their routes are listed (ties in the router go to the first). */
export const FAMILIES = {
  account: { load: async () => (await import('./account.js')).accountRoutes },
  vms: { load: async () => (await import('./vms.js')).vmsRoutes },
  vmsRelated: { load: async () => (await import('./vms-related.js')).vmsRelatedRoutes },
  tags: { load: async () => (await import('./tags.js')).tagsRoutes },
  snapshots: { load: async () => (await import('./snapshots.js')).snapshotsRoutes },
  images: { load: async () => (await import('./images.js')).imagesRoutes },
  networking: { load: async () => (await import('./networking.js')).networkingRoutes },
  databases: { load: async () => (await import('./databases.js')).databasesRoutes },
  volumes: { load: async () => (await import('./volumes.js')).volumesRoutes },
  projects: { load: async () => (await import('./projects.js')).projectsRoutes },
  databasesExtra: {
    load: async () => (await import('./databases-extra.js')).databasesExtraRoutes,
    ownLengths: true,
  },
  registry: { load: async () => (await import('./registry.js')).registryRoutes, ownLengths: true },
  spaces: { load: async () => (await import('./spaces.js')).spacesRoutes, ownLengths: true },
  monitoringAlerts: {
    load: async () => (await import('./monitoring.js')).monitoringAlertRoutes,
    ownLengths: true,
  },
  monitoringSinks: {
    load: async () => (await import('./monitoring.js')).monitoringSinkRoutes,
    ownLengths: true,
  },
  monitoringMetrics: {
    load: async () => (await import('./monitoring-metrics.js')).monitoringMetricRoutes,
    ownLengths: true,
  },
  uptime: { load: async () => (await import('./uptime.js')).uptimeRoutes, ownLengths: true },
  apps: { load: async () => (await import('./apps.js')).appsRoutes, ownLengths: true },
  kubernetes: { load: async () => (await import('./kubernetes.js')).kubernetesRoutes, ownLengths: true },
  functions: { load: async () => (await import('./functions.js')).functionsRoutes, ownLengths: true },
  nfs: { load: async () => (await import('./nfs.js')).nfsRoutes, ownLengths: true },
  natGateways: {
    load: async () => (await import('./nat-gateways.js')).natGatewaysRoutes,
    ownLengths: true,
  },
  partnerNetwork: {
    load: async () => (await import('./partner-network.js')).partnerNetworkRoutes,
    ownLengths: true,
  },
  autoscale: { load: async () => (await import('./autoscale.js')).autoscaleRoutes, ownLengths: true },
} satisfies Record<string, Family>;

export type FamilyName = keyof typeof FAMILIES;

/** A hand route and the family it belongs to. */
export interface HandRoute extends Route {
  family: FamilyName;
}

const loaded = new Map<FamilyName, Promise<HandRoute[]>>();

/** A family's routes, `ownLengths` set as the family says; imported once. */
export function familyRoutes(name: FamilyName): Promise<HandRoute[]> {
  let routes = loaded.get(name);
  if (!routes) {
    const family: Family = FAMILIES[name];
    routes = family
      .load()
      .then((list) =>
        list.map((route) => ({ ...route, family: name, ...(family.ownLengths ? { ownLengths: true } : {}) })),
      );
    loaded.set(name, routes);
  }
  return routes;
}

/** Every hand route, family by family in FAMILIES' order (for the table's generator and tests). */
export async function handRoutes(): Promise<HandRoute[]> {
  const names = Object.keys(FAMILIES) as FamilyName[];
  return (await Promise.all(names.map(familyRoutes))).flat();
}
