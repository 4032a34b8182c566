/**
 * snapshots endpoints of the sandbox. On the platform a VM's snapshots and backups are images
 * (`world.images` with the VM they were taken of): `/v2/snapshots` shows the snapshots of every
 * resource, `/v2/droplets/{id}/snapshots` and `/backups` those of one VM, and deleting a snapshot
 * deletes the image (gone from `/v2/images` and the VM's `snapshot_ids` too). Volume snapshots
 * (`world.volumeSnapshots`, UUIDs) are listed and deleted here too, as on the platform.
 */
import { UUID_PATTERN } from '@cloudcall/core/internal';
import { imageVisible, type StoredImage } from '../families/vms.js';
import { badRequest, listBody, notFound, type Route, type SandboxRequest } from '../http.js';
import type { World } from '../world.js';
import { imageView } from './images.js';
import { volumeSnapshotView } from './volumes.js';

/** What a snapshot costs a month, per GB, in USD. */
const SNAPSHOT_GB_MONTH = 0.06;

/** The VM's images of a kind (snapshot or backup) at `now`, including those of VMs since deleted. */
export function vmImages(world: World, now: number, type: 'snapshot' | 'backup', dropletId?: number) {
  return (world.images as StoredImage[])
    .filter((image) => image._droplet_id !== undefined && imageVisible(image, now))
    .filter((image) => dropletId === undefined || image._droplet_id === dropletId)
    .map((image) => ({ image, view: imageView(image, now) }))
    .filter(({ view }) => view.type === type);
}

/** A snapshot or backup as a VM's lists show it (`droplet_snapshot`). */
export function dropletSnapshotView({ view }: { view: ReturnType<typeof imageView> }) {
  return {
    id: view.id,
    name: view.name,
    created_at: view.created_at,
    regions: view.regions,
    min_disk_size: view.min_disk_size ?? 0,
    size_gigabytes: view.size_gigabytes ?? 0,
    type: view.type as 'snapshot' | 'backup',
  };
}

/** A snapshot as `/v2/snapshots` shows it: string ids, and the resource it was taken of. */
function snapshotView(entry: { image: StoredImage; view: ReturnType<typeof imageView> }) {
  const { type: _type, ...rest } = dropletSnapshotView(entry);
  return {
    ...rest,
    id: String(entry.view.id),
    resource_id: String(entry.image._droplet_id),
    resource_type: 'droplet' as const,
    tags: entry.view.tags ?? [],
  };
}

/** The monthly cost of keeping a snapshot, as the associated-resources list shows it. */
export function snapshotCost(sizeGigabytes: number | null): string {
  return ((sizeGigabytes ?? 0) * SNAPSHOT_GB_MONTH).toFixed(2);
}

/** A volume snapshot a path names by its UUID, or undefined when the path names a VM snapshot. */
function findVolumeSnapshot(world: World, request: SandboxRequest) {
  const ref = request.params.id ?? '';
  if (!UUID_PATTERN.test(ref)) return undefined;
  const found = world.volumeSnapshots.find((s) => s.id === ref);
  if (!found) throw notFound(`snapshot ${ref} not found`);
  return found;
}

/** The VM snapshot a path names: a numeric id (a UUID names a volume snapshot); else 400. */
function findSnapshot(world: World, request: SandboxRequest) {
  const ref = request.params.id ?? '';
  if (!/^\d+$/.test(ref))
    throw badRequest(`${ref} is not a snapshot id (a number, or a volume snapshot's UUID)`);
  const found = vmImages(world, request.now, 'snapshot').find(({ image }) => image.id === Number(ref));
  if (!found) throw notFound(`snapshot ${ref} not found`);
  return found;
}

export const snapshotsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/snapshots',
    handler: (req, world) => {
      const type = req.query.get('resource_type');
      if (type !== null && type !== 'droplet' && type !== 'volume') {
        throw badRequest(`resource_type must be droplet or volume; got ${JSON.stringify(type)}`);
      }
      const snapshots = [
        ...(type === 'volume' ? [] : vmImages(world, req.now, 'snapshot').map(snapshotView)),
        ...(type === 'droplet' ? [] : world.volumeSnapshots.map(volumeSnapshotView)),
      ];
      return { body: listBody('snapshots', snapshots, req) };
    },
  },
  {
    method: 'GET',
    path: '/v2/snapshots/{id}',
    handler: (req, world) => {
      const volumeSnapshot = findVolumeSnapshot(world, req);
      if (volumeSnapshot) return { body: { snapshot: volumeSnapshotView(volumeSnapshot) } };
      return { body: { snapshot: snapshotView(findSnapshot(world, req)) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/snapshots/{id}',
    handler: (req, world) => {
      const volumeSnapshot = findVolumeSnapshot(world, req);
      if (volumeSnapshot) {
        world.volumeSnapshots = world.volumeSnapshots.filter((s) => s !== volumeSnapshot);
        return { status: 204 };
      }
      const { image } = findSnapshot(world, req);
      world.images = world.images.filter((i) => i !== image);
      return { status: 204 };
    },
  },
];
