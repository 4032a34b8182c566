/**
 * VM (droplet) state of the sandbox world. The vms and images routes own its behaviour; other
 * families (networking: firewalls, load balancers, reserved IPs, VPC members) read it.
 *
 * Nothing here runs on a timer. A change that the platform makes later (a VM finishing its boot,
 * an action's effect, a snapshot appearing) is stored as a patch with the time it takes effect;
 * readers apply the patches that are due (`dropletAt`, `imageAt`) and writers fold them in
 * (`settle`) before changing anything, so the lifecycle holds across processes and restarts.
 */
import { REGION_SLUG, type Schemas } from '@cloudcall/platform';
import { cloneData } from '../clone.js';
import type { Image } from '../seed/catalog.js';

/** A change the platform applies at `at_ms` (sandbox clock). */
export interface Scheduled<T> {
  at_ms: number;
  patch: Partial<T>;
}

/**
 * A droplet as the platform shows it (the description's `droplet`, stored in wire shape; status
 * derived where time matters), with the sandbox's bookkeeping. `backup_ids` and `snapshot_ids` are
 * stored empty: the view derives them from the droplet's backup and snapshot images.
 */
export interface Droplet extends Omit<Schemas['droplet'], 'vpc_uuid'> {
  /** Every droplet the sandbox makes is in a VPC. */
  vpc_uuid: string;
  /** Changes still to come (boot finishing, action effects); see `dropletAt`. */
  _pending?: Scheduled<Droplet>[];
  [extra: string]: unknown;
}

/** An image of the account (snapshot, backup, custom) as stored in `world.images`. */
export interface StoredImage extends Image {
  /** The droplet a snapshot or backup was taken of. */
  _droplet_id?: number;
  /** Snapshots and backups exist only once taken: hidden before this time. */
  _visible_ms?: number;
  /** Custom images import until this time (status NEW, no regions yet). */
  _available_ms?: number;
  /** Effects of image actions still to come (a transfer's region, a conversion's type). */
  _pending?: Scheduled<Image>[];
}

/** Region slugs the API's image schema can name in `regions` (its enum predates atl1). */
export const IMAGE_REGION_SLUGS: ReadonlySet<string> = new Set(REGION_SLUG);

/** What one destroy of a droplet with its associated resources took: for its status, after the droplet is gone. */
export interface StoredDropletDestroy {
  droplet_id: number;
  droplet_name: string;
  started_ms: number;
  /** Each kind's resources destroyed with it, by id and name (reserved IPs by their address). */
  resources: Record<
    'reserved_ips' | 'snapshots' | 'volumes' | 'volume_snapshots',
    { id: string; name: string }[]
  >;
}

/** A transfer of an image to another account, offered by this one. */
export interface StoredImageTransfer {
  id: number;
  image_id: number;
  recipient_email?: string;
  recipient_uuid?: string;
  status: 'pending' | 'accepted' | 'declined' | 'canceled';
  created_ms: number;
}

export interface VmsState {
  droplets: Droplet[];
  dropletDestroys: StoredDropletDestroy[];
  imageTransfers: StoredImageTransfer[];
}

export function seedVmsState(): VmsState {
  return { droplets: [], dropletDestroys: [], imageTransfers: [] };
}

/** How long the platform takes, in sandbox time: short, so real-time polling finishes quickly. */
export const DURATIONS = {
  boot: 3_000,
  action: 2_000,
  snapshot: 3_000,
  /** From enabling backups to the first backup being listed. */
  firstBackup: 4_000,
  imageImport: 4_000,
  imageAction: 2_000,
} as const;

type WithPending<T> = T & { _pending?: Scheduled<T>[] };

/** The wire object at time `now`: due patches applied, internal `_` fields left out. */
export function stateAt<T extends object>(stored: WithPending<T>, now: number): T {
  const view: Record<string, unknown> = cloneData(stored);
  for (const { at_ms, patch } of stored._pending ?? []) {
    if (at_ms <= now) Object.assign(view, cloneData(patch));
  }
  for (const key of Object.keys(view)) if (key.startsWith('_')) delete view[key];
  return view as T;
}

/** Folds the patches due at `now` into the stored object (writers call this before changing it). */
export function settle<T extends object>(stored: WithPending<T>, now: number): void {
  const pending = stored._pending ?? [];
  for (const { at_ms, patch } of pending) if (at_ms <= now) Object.assign(stored, patch);
  const left = pending.filter((item) => item.at_ms > now);
  if (left.length) stored._pending = left;
  else delete stored._pending;
}

/** Schedules a change for `at_ms`. */
export function schedule<T extends object>(stored: WithPending<T>, at_ms: number, patch: Partial<T>): void {
  stored._pending = [...(stored._pending ?? []), { at_ms, patch }];
}

/** Whether an image exists yet at `now` (snapshots and backups appear when taken). */
export function imageVisible(image: StoredImage, now: number): boolean {
  return image._visible_ms === undefined || image._visible_ms <= now;
}

/** A droplet's wire shape at `now`, without the derived backup/snapshot ids (see routes/vms.ts). */
export function dropletAt(droplet: Droplet, now: number): Droplet {
  return stateAt<Droplet>(droplet, now);
}
