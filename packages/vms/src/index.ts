/**
 * @cloudcall/vms: create, inspect and delete VMs (the platform's droplets), run power and feature
 * actions on one VM or on every VM carrying a tag, read a VM's snapshots, backups and backup
 * policy, manage the tags themselves (shared with images, volumes and database clusters, but
 * mostly serving VMs), and the block-storage volumes VMs use (attach, detach, resize, snapshots;
 * see volumes.ts for why they live here), as tool definitions and as a typed API.
 *
 * ```ts
 * import { createClient } from '@cloudcall/core';
 * import { vmsApi } from '@cloudcall/vms';
 * const vms = vmsApi(createClient({ token }));
 * const { droplet } = await vms.vmCreate({ Name: 'web-1', Size: 's-1vcpu-1gb', ImageID: 'ubuntu-24-04-x64', Region: 'nyc3' });
 * await vms.powerOffVm({ ID: droplet.id });
 * ```
 */
import { type ApiClient, type BoundTools, bindTools, type ToolFamily } from '@cloudcall/core';
import { vmsTools } from './tools.js';

export type {
  NetworkV4,
  NetworkV6,
  Tag,
  TagList,
  TagStats,
  Vm,
  VmAction,
  VmActionResult,
  VmActionsResult,
  VmAssociatedResource,
  VmAssociatedResources,
  VmBackupList,
  VmBackupPolicyRecord,
  VmCreated,
  VmImage,
  VmKernel,
  VmKernelList,
  VmList,
  VmRegion,
  VmSize,
  VmSnapshot,
  VmSnapshotList,
  Volume,
  VolumeAction,
  VolumeActionList,
  VolumeList,
  VolumeSnapshot,
  VolumeSnapshotList,
} from './types.js';
export { vmsTools };

export const vmsFamily: ToolFamily = {
  name: 'vms',
  title: 'VMs',
  description:
    'Create, inspect and delete VMs; power and feature actions; tag-based bulk actions; tags, which VMs mostly serve (vm-list filters by them, the *-vms-tag tools act on them); block-storage volumes attached to VMs, and their snapshots.',
  tools: vmsTools,
};

/** The vms tools bound to a client: `vmCreate`, `vmGet`, `powerOffVm`, `snapshotVmsTag`... */
export function vmsApi(client: ApiClient): BoundTools<typeof vmsTools> {
  return bindTools(client, vmsTools);
}
