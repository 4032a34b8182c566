/**
 * Block-storage volumes: create (empty, or from a snapshot), list, get, delete (by id, or by name
 * and region), actions (attach, detach, resize; by id, or attach and detach by name and region),
 * and volume snapshots. The platform's rules: a volume attaches to one VM, in its own region; a
 * VM holds at most `VOLUMES_PER_DROPLET`; an attached volume cannot be deleted; a volume only
 * grows; a volume made from a snapshot is in the snapshot's region and at least its size. An
 * action's effect shows at once (the action itself completes later, as actions do).
 */

import { randomUUID } from 'node:crypto';
import { UUID_PATTERN } from '@cloudcall/core/internal';
import {
  MAX_VOLUME_GB,
  type StoredVolume,
  type StoredVolumeSnapshot,
  VOLUMES_PER_DROPLET,
} from '../families/volumes.js';
import {
  HttpError,
  listBody,
  notFound,
  type Route,
  requireString,
  type SandboxRequest,
  unprocessable,
} from '../http.js';
import { derived, findItem, settled } from '../journal.js';
import { iso } from '../time.js';
import { actionView, startAction, type World } from '../world.js';
import { dropletById, findOr404, idField, regionView, requireRegion } from './networking-common.js';
import { dropFromProject } from './projects.js';
import { tagNewResource } from './tags.js';

/** Lowercase letters, digits and "-", starting with a letter, at most 64 characters. */
const VOLUME_NAME = /^[a-z][a-z0-9-]{0,63}$/;
/** How long a filesystem label may be, by filesystem. */
const LABEL_LIMIT: Record<string, number> = { ext4: 16, xfs: 12 };

/** The VMs a volume is attached to that still exist. */
const attachedTo = (world: World, volume: StoredVolume) =>
  volume.droplet_ids.filter((id) => dropletById(world, id) !== undefined);

/** The ids of the volumes attached to a VM (its `volume_ids`, derived here, never stored). */
export function volumeIdsOf(world: World, dropletId: number): string[] {
  const volumes = settled(world).volumes;
  // Every VM's volumes at once, built once for the volumes as they are.
  const byDroplet = derived('volumes by droplet', settled(world), ['volumes'], () => {
    const index = new Map<number, string[]>();
    for (const volume of volumes) {
      for (const id of volume.droplet_ids) index.set(id, [...(index.get(id) ?? []), volume.id]);
    }
    return index;
  });
  return [...(byDroplet.get(dropletId) ?? [])];
}

function volumeView(world: World, volume: StoredVolume) {
  return {
    id: volume.id,
    region: regionView(world, volume.region),
    droplet_ids: attachedTo(world, volume),
    name: volume.name,
    description: volume.description,
    size_gigabytes: volume.size_gigabytes,
    created_at: iso(volume.created_ms),
    filesystem_type: volume.filesystem_type,
    filesystem_label: volume.filesystem_label,
    tags: volume.tags,
  };
}

/** A volume snapshot as the platform shows it (`snapshots`, resource_type volume). */
export function volumeSnapshotView(snapshot: StoredVolumeSnapshot) {
  return {
    id: snapshot.id,
    name: snapshot.name,
    created_at: iso(snapshot.created_ms),
    regions: [snapshot.region],
    min_disk_size: snapshot.min_disk_size,
    size_gigabytes: snapshot.size_gigabytes,
    resource_id: snapshot.volume_id,
    resource_type: 'volume' as const,
    tags: snapshot.tags,
  };
}

function findVolume(world: World, request: SandboxRequest): StoredVolume {
  return findOr404(world.volumes, (v) => v.id === request.params.id);
}

/** The volume a by-name action or delete names: `name` (or `volume_name`) and `region`. */
function volumeByName(world: World, name: unknown, region: unknown, field: string): StoredVolume {
  if (typeof name !== 'string' || name === '') throw unprocessable(`${field} is required`);
  if (typeof region !== 'string' || region === '')
    throw unprocessable(`region is required with ${field}: volume names are unique per region`);
  const volume = world.volumes.find((v) => v.name === name && v.region === region);
  if (!volume) throw notFound(`no volume named ${name} in ${region}`);
  return volume;
}

/** An integer size in GiB within the platform's bounds, or its 422. */
function sizeGb(value: unknown, field = 'size_gigabytes'): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_VOLUME_GB) {
    throw unprocessable(
      `${field} must be an integer from 1 to ${MAX_VOLUME_GB}; got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** Attaches `volume` to the VM `droplet_id` names, checking the platform's rules first. */
export function attachVolume(world: World, volume: StoredVolume, dropletRef: unknown, field = 'droplet_id') {
  const id = idField(dropletRef, field);
  if (id === undefined) throw unprocessable(`${field} is required`);
  const droplet = dropletById(world, id);
  if (!droplet) throw unprocessable(`${field}: droplet ${id} does not exist`);
  if (droplet.region.slug !== volume.region) {
    throw unprocessable(
      `volume ${volume.name} is in ${volume.region} and droplet ${id} in ${droplet.region.slug}: a volume attaches to a Droplet of its own region`,
    );
  }
  const current = attachedTo(world, volume);
  if (current.includes(id)) throw unprocessable(`volume ${volume.name} is already attached to droplet ${id}`);
  if (current.length) {
    throw unprocessable(
      `volume ${volume.name} is attached to droplet ${current[0]}: a volume attaches to one Droplet at a time; detach it first`,
    );
  }
  if (volumeIdsOf(world, id).length >= VOLUMES_PER_DROPLET) {
    throw unprocessable(
      `droplet ${id} already has ${VOLUMES_PER_DROPLET} volumes attached, the most it may have`,
    );
  }
  volume.droplet_ids = [id];
  return droplet;
}

/** Starts one volume action (attach, detach, resize) as the platform checks it; answers the action. */
function volumeAction(world: World, volume: StoredVolume, req: SandboxRequest, byName: boolean) {
  const { type, region } = req.body;
  if (region != null && region !== '' && region !== volume.region) {
    throw unprocessable(`region ${JSON.stringify(region)} is not the volume's region (${volume.region})`);
  }
  let actionType: string;
  switch (type) {
    case 'attach':
      attachVolume(world, volume, req.body.droplet_id);
      actionType = 'attach_volume';
      break;
    case 'detach': {
      const id = idField(req.body.droplet_id, 'droplet_id');
      if (id === undefined) throw unprocessable('droplet_id is required');
      if (!attachedTo(world, volume).includes(id))
        throw unprocessable(`volume ${volume.name} is not attached to droplet ${id}`);
      volume.droplet_ids = volume.droplet_ids.filter((d) => d !== id);
      actionType = 'detach_volume';
      break;
    }
    case 'resize': {
      if (byName) throw unprocessable('resize is started by the volume id (/v2/volumes/{id}/actions)');
      const size = sizeGb(req.body.size_gigabytes);
      if (size <= volume.size_gigabytes) {
        throw unprocessable(
          `size_gigabytes must be larger than the volume's ${volume.size_gigabytes} GiB: a volume only grows`,
        );
      }
      volume.size_gigabytes = size;
      actionType = 'resize_volume';
      break;
    }
    default:
      throw unprocessable(`type must be attach, detach or resize; got ${JSON.stringify(type)}`);
  }
  const action = startAction(world, req.now, {
    type: actionType,
    resource_id: null,
    resource_uuid: volume.id,
    resource_type: 'volume',
    region_slug: volume.region,
  });
  return { status: 202, body: { action: actionView(world, action, req.now) } };
}

/** Checks a create body and makes the volume (not yet added to the world). */
function newVolume(world: World, body: Record<string, unknown>, now: number): StoredVolume {
  const name = requireString(body, 'name');
  if (!VOLUME_NAME.test(name)) {
    throw unprocessable(
      'name must be lowercase letters, digits and "-", start with a letter, and be at most 64 characters',
    );
  }
  const size = sizeGb(body.size_gigabytes);
  let snapshot: StoredVolumeSnapshot | undefined;
  if (body.snapshot_id != null && body.snapshot_id !== '') {
    snapshot = findItem(world.volumeSnapshots, (s) => s.id === body.snapshot_id);
    if (!snapshot)
      throw unprocessable(`snapshot_id: volume snapshot ${JSON.stringify(body.snapshot_id)} does not exist`);
    if (size < snapshot.min_disk_size) {
      throw unprocessable(
        `size_gigabytes must be at least the snapshot's ${snapshot.min_disk_size} GiB; got ${size}`,
      );
    }
  }
  const regionGiven = body.region != null && body.region !== '';
  const region = regionGiven ? requireRegion(world, body.region).slug : snapshot?.region;
  if (!region) throw unprocessable('region is required');
  if (snapshot && region !== snapshot.region) {
    throw unprocessable(
      `region ${region} is not the snapshot's region (${snapshot.region}): a volume is made from a snapshot in the snapshot's region`,
    );
  }
  if (settled(world).volumes.some((v) => v.name === name && v.region === region)) {
    throw unprocessable(`a volume named ${name} already exists in ${region}`);
  }
  if (world.volumes.length >= world.account.volume_limit) {
    throw unprocessable(`the account may hold ${world.account.volume_limit} volumes`);
  }
  const filesystem = body.filesystem_type ?? '';
  if (filesystem !== '' && !(typeof filesystem === 'string' && filesystem in LABEL_LIMIT)) {
    throw unprocessable(`filesystem_type must be ext4 or xfs; got ${JSON.stringify(filesystem)}`);
  }
  const label = body.filesystem_label ?? '';
  if (typeof label !== 'string') throw unprocessable('filesystem_label must be a string');
  if (label !== '' && filesystem === '') throw unprocessable('filesystem_label needs a filesystem_type');
  const limit = LABEL_LIMIT[filesystem as string];
  if (limit !== undefined && label.length > limit) {
    throw unprocessable(`filesystem_label may have at most ${limit} characters on ${filesystem}`);
  }
  const description = body.description ?? '';
  if (typeof description !== 'string') throw unprocessable('description must be a string');
  const id = randomUUID();
  return {
    id,
    name,
    description,
    size_gigabytes: size,
    region,
    filesystem_type: filesystem as string,
    filesystem_label: label,
    tags: tagNewResource(world, body.tags, 'volume', id),
    droplet_ids: [],
    created_ms: now,
  };
}

/** Deletes a volume the platform would let go: not attached to a VM. */
function deleteVolume(world: World, volume: StoredVolume): void {
  const attached = attachedTo(world, volume);
  if (attached.length) {
    throw new HttpError(
      409,
      'conflict',
      `volume ${volume.name} is attached to droplet ${attached[0]}: detach it before deleting it`,
    );
  }
  world.volumes = world.volumes.filter((v) => v !== volume);
  dropFromProject(world, `do:volume:${volume.id}`);
}

/** The actions of a volume, newest first. */
const actionsOf = (world: World, volume: StoredVolume) =>
  world.actions.filter((a) => a.resource_type === 'volume' && a.resource_uuid === volume.id).reverse();

const findVolumeSnapshot = (world: World, request: SandboxRequest) =>
  findOr404(world.volumeSnapshots, (s) => s.id === request.params.snapshot);

export const volumesRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/volumes',
    handler: (req, world) => {
      const name = req.query.get('name');
      const region = req.query.get('region');
      const volumes =
        name || region
          ? world.volumes.filter((v) => (!name || v.name === name) && (!region || v.region === region))
          : world.volumes;
      return { body: listBody('volumes', volumes, req, (v) => volumeView(world, v)) };
    },
  },
  {
    method: 'POST',
    path: '/v2/volumes',
    handler: (req, world) => {
      const volume = newVolume(world, req.body, req.now);
      world.volumes.push(volume);
      return { status: 201, body: { volume: volumeView(world, volume) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/volumes',
    handler: (req, world) => {
      deleteVolume(world, volumeByName(world, req.query.get('name'), req.query.get('region'), 'name'));
      return { status: 204 };
    },
  },
  {
    method: 'POST',
    path: '/v2/volumes/actions',
    handler: (req, world) => {
      const volume = volumeByName(world, req.body.volume_name, req.body.region, 'volume_name');
      return volumeAction(world, volume, req, true);
    },
  },
  {
    method: 'GET',
    path: '/v2/volumes/snapshots/{snapshot}',
    handler: (req, world) => ({ body: { snapshot: volumeSnapshotView(findVolumeSnapshot(world, req)) } }),
  },
  {
    method: 'DELETE',
    path: '/v2/volumes/snapshots/{snapshot}',
    handler: (req, world) => {
      const snapshot = findVolumeSnapshot(world, req);
      world.volumeSnapshots = world.volumeSnapshots.filter((s) => s !== snapshot);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/volumes/{id}',
    handler: (req, world) => ({ body: { volume: volumeView(world, findVolume(world, req)) } }),
  },
  {
    method: 'DELETE',
    path: '/v2/volumes/{id}',
    handler: (req, world) => {
      deleteVolume(world, findVolume(world, req));
      return { status: 204 };
    },
  },
  {
    method: 'POST',
    path: '/v2/volumes/{id}/actions',
    handler: (req, world) => volumeAction(world, findVolume(world, req), req, false),
  },
  {
    method: 'GET',
    path: '/v2/volumes/{id}/actions',
    handler: (req, world) => {
      const actions = actionsOf(world, findVolume(world, req));
      return { body: listBody('actions', actions, req, (a) => actionView(world, a, req.now)) };
    },
  },
  {
    method: 'GET',
    path: '/v2/volumes/{id}/actions/{action}',
    handler: (req, world) => {
      const action = findOr404(
        actionsOf(world, findVolume(world, req)),
        (a) => String(a.id) === req.params.action,
      );
      return { body: { action: actionView(world, action, req.now) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/volumes/{id}/snapshots',
    handler: (req, world) => {
      const volume = findVolume(world, req);
      const snapshots = world.volumeSnapshots
        .filter((s) => s.volume_id === volume.id)
        .map(volumeSnapshotView);
      return { body: listBody('snapshots', snapshots, req) };
    },
  },
  {
    method: 'POST',
    path: '/v2/volumes/{id}/snapshots',
    handler: (req, world) => {
      const volume = findVolume(world, req);
      const name = requireString(req.body, 'name');
      if (world.volumeSnapshots.some((s) => s.volume_id === volume.id && s.name === name)) {
        throw unprocessable(`volume ${volume.name} already has a snapshot named ${name}`);
      }
      const id = randomUUID();
      const snapshot: StoredVolumeSnapshot = {
        id,
        name,
        volume_id: volume.id,
        region: volume.region,
        min_disk_size: volume.size_gigabytes,
        // What the volume holds: the sandbox keeps no data, so a nominal tenth of its size.
        size_gigabytes: Math.round(volume.size_gigabytes * 10) / 100,
        tags: tagNewResource(world, req.body.tags, 'volume_snapshot', id),
        created_ms: req.now,
      };
      world.volumeSnapshots.push(snapshot);
      return { status: 201, body: { snapshot: volumeSnapshotView(snapshot) } };
    },
  },
];

/** Whether a string is a volume snapshot's id (UUID) rather than a VM snapshot's (number). */
export const isVolumeSnapshotId = (ref: string) => UUID_PATTERN.test(ref);
