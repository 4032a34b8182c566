/**
 * What the sandbox answers about one droplet besides the droplet itself: its snapshots and
 * backups (images taken of it), its backup policy (and every droplet's, and the plans offered),
 * its neighbours, and the billable resources that could be destroyed with it, and that destroy
 * (all of them, or those chosen) with its status. The sandbox runs every droplet on hardware of
 * its own, so no droplet has neighbours (what the platform answers for an account whose droplets
 * share none).
 *
 * A destroy with associated resources removes them and the droplet at once (so lists no longer
 * show them); its status, kept after the droplet is gone, shows each resource destroyed a moment
 * later and the whole completed then. Nothing fails in the sandbox, so there is never a failure
 * to retry: a retry is refused while the destroy runs, and after it (409).
 */
import type { Droplet, StoredDropletDestroy, StoredImage } from '../families/vms.js';
import {
  HttpError,
  intParam,
  listBody,
  notFound,
  paginate,
  type Route,
  requireDangerous,
  type SandboxRequest,
  unprocessable,
} from '../http.js';
import { iso } from '../time.js';
import type { World } from '../world.js';
import { dropFromProject } from './projects.js';
import { dropletSnapshotView, snapshotCost, vmImages } from './snapshots.js';
import { backupPolicyRecord, deleteDroplet, findDroplet, supportedBackupPolicies } from './vms.js';

/** How long after a destroy starts its resources, then the droplet, are shown destroyed. */
const RESOURCE_DESTROYED_MS = 1_000;
const DROPLET_DESTROYED_MS = 2_000;

type Kind = keyof StoredDropletDestroy['resources'];
const KINDS: readonly Kind[] = ['reserved_ips', 'snapshots', 'volumes', 'volume_snapshots'];

/** The billable resources a droplet could be destroyed with, by kind, with what each costs a month. */
function associated(world: World, droplet: Droplet, now: number) {
  // Reserved IPs cost while they are kept without a droplet: $4 a month (5 for IPv6).
  const ips = world.reservedIps
    .filter((rip) => rip.droplet_id === droplet.id)
    .map((rip) => ({ id: rip.ip, name: rip.ip, cost: rip.version === 4 ? '4.00' : '5.00' }));
  const snapshots = vmImages(world, now, 'snapshot', droplet.id).map(({ view }) => ({
    id: String(view.id),
    name: view.name,
    cost: snapshotCost(view.size_gigabytes),
  }));
  // Volumes cost $0.10 per GiB a month, their snapshots as other snapshots do.
  const attached = world.volumes.filter((v) => v.droplet_ids.includes(droplet.id));
  const volumes = attached.map((v) => ({
    id: v.id,
    name: v.name,
    cost: (v.size_gigabytes * 0.1).toFixed(2),
  }));
  const volumeSnapshots = world.volumeSnapshots
    .filter((s) => attached.some((v) => v.id === s.volume_id))
    .map((s) => ({ id: s.id, name: s.name, cost: snapshotCost(s.size_gigabytes) }));
  return { reserved_ips: ips, snapshots, volumes, volume_snapshots: volumeSnapshots };
}

/** The ids a selective destroy names, each checked to be one of the droplet's resources of its kind. */
function chosen(
  body: Record<string, unknown>,
  offered: ReturnType<typeof associated>,
): Record<Kind, string[]> {
  const pick = (kind: Kind, field: string = kind): string[] => {
    const value = body[field];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || value.some((id) => typeof id !== 'string' && typeof id !== 'number')) {
      throw unprocessable(`${field} must be an array of ids`);
    }
    return value.map((id) => {
      const ref = String(id);
      if (!offered[kind].some((r) => r.id === ref)) {
        throw unprocessable(
          `${field}: ${ref} is not one of the droplet's associated ${kind.replace('_', ' ')}`,
        );
      }
      return ref;
    });
  };
  // `floating_ips` is the older name of `reserved_ips`.
  const ips = [...new Set([...pick('reserved_ips'), ...pick('reserved_ips', 'floating_ips')])];
  return {
    reserved_ips: ips,
    snapshots: pick('snapshots'),
    volumes: pick('volumes'),
    volume_snapshots: pick('volume_snapshots'),
  };
}

/** Destroys a droplet and the chosen resources, and records it for the status. */
function destroyWith(world: World, droplet: Droplet, ids: Record<Kind, string[]>, now: number): void {
  const offered = associated(world, droplet, now);
  const named = (kind: Kind) =>
    ids[kind].map((id) => ({ id, name: offered[kind].find((r) => r.id === id)?.name ?? id }));
  const record: StoredDropletDestroy = {
    droplet_id: droplet.id,
    droplet_name: droplet.name,
    started_ms: now,
    resources: {
      reserved_ips: named('reserved_ips'),
      snapshots: named('snapshots'),
      volumes: named('volumes'),
      volume_snapshots: named('volume_snapshots'),
    },
  };
  world.reservedIps = world.reservedIps.filter((rip) => !ids.reserved_ips.includes(rip.ip));
  for (const ip of ids.reserved_ips) dropFromProject(world, `do:floatingip:${ip}`);
  world.images = (world.images as StoredImage[]).filter((image) => !ids.snapshots.includes(String(image.id)));
  world.volumeSnapshots = world.volumeSnapshots.filter((s) => !ids.volume_snapshots.includes(s.id));
  world.volumes = world.volumes.filter((v) => !ids.volumes.includes(v.id));
  for (const id of ids.volumes) dropFromProject(world, `do:volume:${id}`);
  deleteDroplet(world, droplet, now);
  world.dropletDestroys = [...world.dropletDestroys.filter((d) => d.droplet_id !== droplet.id), record];
}

function destroyStatus(record: StoredDropletDestroy, now: number) {
  const at = (offset: number) =>
    now >= record.started_ms + offset ? { destroyed_at: iso(record.started_ms + offset) } : {};
  const resources = Object.fromEntries(
    KINDS.map((kind) => [
      kind,
      record.resources[kind].map((r) => ({ id: r.id, name: r.name, ...at(RESOURCE_DESTROYED_MS) })),
    ]),
  ) as Record<Kind, unknown[]>;
  const done = now >= record.started_ms + DROPLET_DESTROYED_MS;
  return {
    droplet: { id: String(record.droplet_id), name: record.droplet_name, ...at(DROPLET_DESTROYED_MS) },
    resources: { ...resources, floating_ips: resources.reserved_ips },
    ...(done ? { completed_at: iso(record.started_ms + DROPLET_DESTROYED_MS) } : {}),
    failures: 0,
  };
}

function findDestroy(world: World, req: SandboxRequest): StoredDropletDestroy {
  const id = intParam(req, 'id');
  const record = world.dropletDestroys.find((d) => d.droplet_id === id);
  if (!record) throw notFound();
  return record;
}

export const vmsRelatedRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/droplets/{id}/snapshots',
    handler: (req, world) => {
      const droplet = findDroplet(world, req);
      const snapshots = vmImages(world, req.now, 'snapshot', droplet.id).map(dropletSnapshotView);
      return { body: listBody('snapshots', snapshots, req) };
    },
  },
  {
    method: 'GET',
    path: '/v2/droplets/{id}/backups',
    handler: (req, world) => {
      const droplet = findDroplet(world, req);
      const backups = vmImages(world, req.now, 'backup', droplet.id).map(dropletSnapshotView);
      return { body: listBody('backups', backups, req) };
    },
  },
  {
    method: 'GET',
    path: '/v2/droplets/{id}/backups/policy',
    handler: (req, world) => ({ body: { policy: backupPolicyRecord(findDroplet(world, req), req.now) } }),
  },
  {
    method: 'GET',
    path: '/v2/droplets/backups/policies',
    handler: (req, world) => {
      // One page of the account's droplets, each one's policy keyed by its id.
      const page = paginate(world.droplets, req);
      const policies = Object.fromEntries(
        page.items.map((d) => [String(d.id), backupPolicyRecord(d, req.now)]),
      );
      return { body: { policies, links: page.links, meta: page.meta } };
    },
  },
  {
    method: 'GET',
    path: '/v2/droplets/backups/supported_policies',
    handler: () => ({ body: { supported_policies: supportedBackupPolicies() } }),
  },
  {
    method: 'GET',
    path: '/v2/droplets/{id}/neighbors',
    handler: (req, world) => {
      findDroplet(world, req);
      return { body: { droplets: [] } };
    },
  },
  {
    method: 'GET',
    path: '/v2/reports/droplet_neighbors_ids',
    handler: () => ({ body: { neighbor_ids: [] } }),
  },
  {
    method: 'GET',
    path: '/v2/droplets/{id}/destroy_with_associated_resources',
    handler: (req, world) => {
      const listed = associated(world, findDroplet(world, req), req.now);
      return { body: { ...listed, floating_ips: listed.reserved_ips } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/droplets/{id}/destroy_with_associated_resources/selective',
    handler: (req, world) => {
      const droplet = findDroplet(world, req);
      destroyWith(world, droplet, chosen(req.body, associated(world, droplet, req.now)), req.now);
      return { status: 202 };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/droplets/{id}/destroy_with_associated_resources/dangerous',
    handler: (req, world) => {
      const droplet = findDroplet(world, req);
      requireDangerous(req, 'a Droplet with all of its associated resources');
      const offered = associated(world, droplet, req.now);
      const all = Object.fromEntries(KINDS.map((kind) => [kind, offered[kind].map((r) => r.id)])) as Record<
        Kind,
        string[]
      >;
      destroyWith(world, droplet, all, req.now);
      return { status: 202 };
    },
  },
  {
    method: 'GET',
    path: '/v2/droplets/{id}/destroy_with_associated_resources/status',
    handler: (req, world) => ({ body: destroyStatus(findDestroy(world, req), req.now) }),
  },
  {
    method: 'POST',
    path: '/v2/droplets/{id}/destroy_with_associated_resources/retry',
    handler: (req, world) => {
      const record = findDestroy(world, req);
      const running = req.now < record.started_ms + DROPLET_DESTROYED_MS;
      throw new HttpError(
        409,
        'conflict',
        running
          ? `the destroy of droplet ${record.droplet_id} is still in progress; only one runs at a time`
          : `the destroy of droplet ${record.droplet_id} completed without failures: there is nothing to retry`,
      );
    },
  },
];
