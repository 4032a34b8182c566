/**
 * What the sandbox answers about one droplet besides the droplet itself: its snapshots and
 * backups (images taken of it), its backup policy, its neighbours, and the billable resources
 * that could be destroyed with it. The sandbox runs every droplet on hardware of its own, so no
 * droplet has neighbours (what the platform answers for an account whose droplets share none).
 */
import { listBody, type Route } from '../http.js';
import { dropletSnapshotView, snapshotCost, vmImages } from './snapshots.js';
import { backupPolicyRecord, findDroplet } from './vms.js';

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
      const droplet = findDroplet(world, req);
      // Reserved IPs cost while they are kept without a droplet: $4 a month (5 for IPv6).
      const ips = world.reservedIps
        .filter((rip) => rip.droplet_id === droplet.id)
        .map((rip) => ({ id: rip.ip, name: rip.ip, cost: rip.version === 4 ? '4.00' : '5.00' }));
      const snapshots = vmImages(world, req.now, 'snapshot', droplet.id).map(({ view }) => ({
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
      return {
        body: { reserved_ips: ips, floating_ips: ips, snapshots, volumes, volume_snapshots: volumeSnapshots },
      };
    },
  },
];
