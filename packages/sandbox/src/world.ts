/**
 * The sandbox world: everything an account holds, as plain JSON so it can be saved to a file.
 * Progress (an action going from in-progress to completed) is derived from timestamps when read,
 * never advanced by timers, so it holds across processes and restarts.
 */
import type { Schemas } from '@cloudcall/platform';
import { type AppsState, seedAppsState } from './families/apps.js';
import { type AutoscaleState, seedAutoscaleState } from './families/autoscale.js';
import { type DatabasesState, seedDatabasesState } from './families/databases.js';
import { type DatabasesExtraState, seedDatabasesExtraState } from './families/databases-extra.js';
import { type FunctionsState, seedFunctionsState } from './families/functions.js';
import { type GenericState, seedGenericState } from './families/generic.js';
import { type KubernetesState, seedKubernetesState } from './families/kubernetes.js';
import { type MonitoringState, seedMonitoringState } from './families/monitoring.js';
import { type NatGatewaysState, seedNatGatewaysState } from './families/nat-gateways.js';
import {
  type NetworkingState,
  seedNetworkingState,
  separateDefaultVpcRanges,
} from './families/networking.js';
import { type NfsState, seedNfsState } from './families/nfs.js';
import { type PartnerNetworkState, seedPartnerNetworkState } from './families/partner-network.js';
import { type ProjectsState, seedProjectsState } from './families/projects.js';
import { type RegistryState, seedRegistryState } from './families/registry.js';
import { type SpacesState, seedSpacesState } from './families/spaces.js';
import { seedTagsState, type TagsState } from './families/tags.js';
import { seedUptimeState, type UptimeState } from './families/uptime.js';
import { seedVmsState, type VmsState } from './families/vms.js';
import { seedVolumesState, type VolumesState } from './families/volumes.js';
import { type FaultState, seedFaults } from './faults.js';
import { seedAccount } from './seed/account.js';
import { type Image, images, type Region, regions, type Size, sizes } from './seed/catalog.js';
import { iso } from './time.js';

/** Bumped when the saved shape changes incompatibly. */
export const WORLD_VERSION = 1;

export type SshKey = Required<Schemas['sshKeys']>;

/** An action as stored; `actionView` derives its status at read time. */
export interface StoredAction {
  id: number;
  type: string;
  resource_id: number | null;
  resource_type: string;
  /** The resource's id when it is a UUID (a volume's): `resource_id` is then null, as the platform shows it. */
  resource_uuid?: string;
  region_slug: string | null;
  started_ms: number;
  /** How long it runs before completing. */
  duration_ms: number;
  /** Set when the action ends in error. */
  errored?: boolean;
}

type SeedAccount = ReturnType<typeof seedAccount>;

/**
 * The whole world. Each family keeps its state in its own module (families/*.ts) and the world
 * composes them, so families grow without touching each other.
 */
export interface World
  extends VmsState,
    NetworkingState,
    DatabasesState,
    DatabasesExtraState,
    TagsState,
    VolumesState,
    ProjectsState,
    RegistryState,
    SpacesState,
    MonitoringState,
    UptimeState,
    KubernetesState,
    AppsState,
    FunctionsState,
    NfsState,
    NatGatewaysState,
    PartnerNetworkState,
    AutoscaleState,
    GenericState {
  version: number;
  /** Milliseconds added to the real clock: tests move time forward without waiting. */
  clockOffsetMs: number;
  /** The next id of each kind of numeric id. */
  nextId: Record<string, number>;
  account: SeedAccount['account'];
  balance: SeedAccount['balance'];
  billingHistory: SeedAccount['billingHistory'];
  invoices: SeedAccount['invoices'];
  invoicePreview: SeedAccount['invoicePreview'];
  invoiceItems: SeedAccount['invoiceItems'];
  regions: Region[];
  sizes: Size[];
  images: Image[];
  sshKeys: SshKey[];
  actions: StoredAction[];
  /** Faults and a request budget that tests asked for (faults.ts). */
  faults: FaultState;
}

/** Numeric ids start where the platform's do, so they look real. */
const FIRST_IDS: Record<string, number> = {
  sshKey: 41_000_001,
  action: 2_140_000_001,
  droplet: 480_000_001,
  image: 171_000_001,
  record: 370_000_001,
};

export function seedWorld(now: number = Date.now()): World {
  const account = seedAccount(new Date(now));
  return {
    version: WORLD_VERSION,
    clockOffsetMs: 0,
    nextId: { ...FIRST_IDS },
    ...account,
    regions: structuredClone(regions),
    sizes: structuredClone(sizes),
    images: structuredClone(images),
    sshKeys: [],
    actions: [],
    faults: seedFaults(),
    ...seedVmsState(),
    ...seedNetworkingState(),
    ...seedDatabasesState(),
    ...seedDatabasesExtraState(),
    ...seedTagsState(),
    ...seedVolumesState(),
    ...seedProjectsState(now),
    ...seedRegistryState(),
    ...seedSpacesState(),
    ...seedMonitoringState(),
    ...seedUptimeState(),
    ...seedKubernetesState(),
    ...seedGenericState(),
    ...seedAppsState(),
    ...seedFunctionsState(),
    ...seedNfsState(),
    ...seedNatGatewaysState(),
    ...seedPartnerNetworkState(),
    ...seedAutoscaleState(),
  };
}

const kindOf = (value: unknown) =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'object'
        ? 'an object'
        : `a ${typeof value}`;

/** What `kindOf` says of a value of type T. */
type KindOf<T> = T extends readonly unknown[]
  ? 'an array'
  : T extends null
    ? 'null'
    : T extends object
      ? 'an object'
      : T extends number
        ? 'a number'
        : T extends string
          ? 'a string'
          : 'a boolean';

/**
 * The kind of each top-level field of a world, as a state file must hold it: every field of World
 * and no other (the compiler checks both, and each kind against the field's type); store.test.ts
 * checks it against what seedWorld makes. Written out rather than read off a seeded world at each
 * start: seeding one costs a command that reads the state file more than the rest of the read.
 */
export const WORLD_SHAPE: { readonly [K in keyof World]-?: KindOf<World[K]> } = {
  version: 'a number',
  clockOffsetMs: 'a number',
  nextId: 'an object',
  account: 'an object',
  balance: 'an object',
  billingHistory: 'an array',
  invoices: 'an array',
  invoicePreview: 'an object',
  invoiceItems: 'an object',
  regions: 'an array',
  sizes: 'an array',
  images: 'an array',
  sshKeys: 'an array',
  actions: 'an array',
  faults: 'an object',
  droplets: 'an array',
  dropletDestroys: 'an array',
  imageTransfers: 'an array',
  vpcs: 'an array',
  domains: 'an array',
  domainRecords: 'an array',
  certificates: 'an array',
  firewalls: 'an array',
  loadBalancers: 'an array',
  reservedIps: 'an array',
  vpcPeerings: 'an array',
  byoipPrefixes: 'an array',
  clusters: 'an array',
  dbMetricsCredentials: 'an object',
  tags: 'an array',
  volumes: 'an array',
  volumeSnapshots: 'an array',
  projects: 'an array',
  projectAssignments: 'an object',
  containerRegistries: 'an array',
  registrySubscription: 'an object',
  registryManifests: 'an array',
  registryBlobs: 'an array',
  registryGarbageCollections: 'an array',
  spacesKeys: 'an array',
  cdnEndpoints: 'an array',
  cdnPurges: 'an array',
  alertPolicies: 'an array',
  logDestinations: 'an array',
  logSinks: 'an array',
  uptimeChecks: 'an array',
  uptimeAlerts: 'an array',
  kubernetesClusters: 'an array',
  genericItems: 'an object',
  genericSettings: 'an object',
  apps: 'an array',
  functionNamespaces: 'an array',
  functionTriggers: 'an array',
  functionAccessKeys: 'an array',
  nfsShares: 'an array',
  nfsSnapshots: 'an array',
  nfsActions: 'an array',
  natGateways: 'an array',
  partnerAttachments: 'an array',
  autoscalePools: 'an array',
};

/**
 * Checks what a state file holds and fills in what a world saved by an older sandbox lacks. Throws
 * an Error saying what is wrong (the store adds the file's name): the top level is checked, field
 * by field, so that a file of another shape is refused rather than failing in some handler later.
 */
export function upgradeWorld(saved: unknown): World {
  if (typeof saved !== 'object' || saved === null || Array.isArray(saved)) {
    throw new Error(`it holds ${kindOf(saved)}, not a sandbox state`);
  }
  const world = saved as Record<string, unknown>;
  if (world.version === undefined) throw new Error('it holds no sandbox state (no "version" field)');
  if (world.version !== WORLD_VERSION) {
    throw new Error(
      `it holds sandbox state version ${JSON.stringify(world.version)}; this sandbox reads version ${WORLD_VERSION}`,
    );
  }
  let missing = false;
  for (const [key, kind] of Object.entries(WORLD_SHAPE)) {
    const value = world[key];
    if (value === undefined) missing = true;
    else if (kindOf(value) !== kind) throw new Error(`its field "${key}" is ${kindOf(value)}, not ${kind}`);
  }
  for (const [kind, id] of Object.entries(world.nextId as Record<string, unknown>)) {
    if (!Number.isSafeInteger(id)) throw new Error(`its field "nextId.${kind}" is not an integer`);
  }
  if (missing) {
    const fresh = seedWorld() as unknown as Record<string, unknown>;
    for (const key of Object.keys(WORLD_SHAPE)) world[key] ??= fresh[key];
  }
  world.nextId = { ...FIRST_IDS, ...(world.nextId as Record<string, number>) };
  const upgraded = world as unknown as World;
  separateDefaultVpcRanges(upgraded, vpcsInUse(upgraded));
  return upgraded;
}

/** Whether anything in the world lives in, or is routed through, a VPC. */
function vpcsInUse(world: World): (vpcId: string) => boolean {
  const used = new Set<string>();
  for (const droplet of world.droplets) used.add(droplet.vpc_uuid);
  for (const lb of world.loadBalancers) if (lb.vpc_uuid) used.add(lb.vpc_uuid);
  for (const cluster of world.clusters) {
    used.add(cluster.private_network_uuid);
    if (cluster.migrated_from) used.add(cluster.migrated_from.private_network_uuid);
    for (const replica of cluster.replicas ?? []) used.add(replica.private_network_uuid);
  }
  for (const peering of world.vpcPeerings) for (const id of peering.vpc_ids) used.add(id);
  return (vpcId) => used.has(vpcId);
}

/** Hands out the next numeric id of a kind. */
export function nextId(world: World, kind: string): number {
  const id = world.nextId[kind] ?? FIRST_IDS[kind] ?? 1;
  world.nextId[kind] = id + 1;
  return id;
}

export function regionOf(world: World, slug: string | null): Region | undefined {
  return slug ? world.regions.find((region) => region.slug === slug) : undefined;
}

/** Records a new action and returns it as the platform shows it. */
export function startAction(
  world: World,
  now: number,
  init: Omit<StoredAction, 'id' | 'started_ms' | 'duration_ms'> & { duration_ms?: number },
): StoredAction {
  const action: StoredAction = { id: nextId(world, 'action'), started_ms: now, duration_ms: 3_000, ...init };
  world.actions.push(action);
  return action;
}

/** The platform's view of an action at time `now`. */
export function actionView(world: World, action: StoredAction, now: number) {
  const done = now >= action.started_ms + action.duration_ms;
  const region = regionOf(world, action.region_slug);
  return {
    id: action.id,
    status: done ? (action.errored ? 'errored' : 'completed') : 'in-progress',
    type: action.type,
    started_at: iso(action.started_ms),
    completed_at: done ? iso(action.started_ms + action.duration_ms) : null,
    resource_id: action.resource_id,
    resource_type: action.resource_type,
    ...(region ? { region } : {}),
    region_slug: action.region_slug,
  };
}
