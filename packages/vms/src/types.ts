/**
 * The platform's answers to the VM tools, as library users receive them: the shapes of the
 * platform's OpenAPI description (@cloudcall/platform, generated), under the names this package
 * has always exported. `Always` marks what the description leaves optional and the platform
 * always sends.
 */
import type { Action, Region, Size } from '@cloudcall/core';
import type { Always, ListAnswer, ResponseBody, Schemas } from '@cloudcall/platform';

export type VmImage = Schemas['image'];
export type NetworkV4 = Schemas['network_v4'];
export type NetworkV6 = Schemas['network_v6'];

/** A VM (the platform's droplet). */
export type Vm = Schemas['droplet'];

export type VmList = ListAnswer<'droplets_list', 'droplets'>;
export type VmCreated = { droplet: Vm; links: { actions: { id: number; rel: string; href: string }[] } };
export type VmActionResult = { action: VmAction };
export type VmActionsResult = { actions: VmAction[] };

export type VmSize = Size;
export type VmRegion = Region;
export type VmAction = Action;

/** A snapshot or backup of a VM, as the VM's lists show it. */
export type VmSnapshot = Schemas['droplet_snapshot'];
export type VmSnapshotList = ListAnswer<'droplets_list_snapshots', 'snapshots'>;
export type VmBackupList = ListAnswer<'droplets_list_backups', 'backups'>;

export type VmKernel = NonNullable<Schemas['kernel']>;
export type VmKernelList = ListAnswer<'droplets_list_kernels', 'kernels', VmKernel>;

/** How and when a VM is backed up. */
export type VmBackupPolicyRecord = Always<
  Schemas['droplet_backup_policy_record'],
  'droplet_id' | 'backup_enabled'
>;

/** A billable resource tied to a VM, with its monthly cost in USD. */
export type VmAssociatedResource = Schemas['associated_resource'];
/** The platform sends all five lists, empty or not. */
export type VmAssociatedResources = Always<
  ResponseBody<'droplets_list_associatedResources'>,
  'reserved_ips' | 'floating_ips' | 'snapshots' | 'volumes' | 'volume_snapshots'
>;

/** How many resources carry a tag, and the last one tagged. */
export type TagStats = Schemas['tags_metadata'];
/**
 * A tag. The description names the images' count `imgages`; the platform (and so the sandbox)
 * sends `images`.
 */
export type Tag = Always<Schemas['tags'], 'name' | 'resources'> & { resources: { images?: TagStats } };
export type TagList = ListAnswer<'tags_list', 'tags', Tag>;

/** A block-storage volume. */
export type Volume = Always<Schemas['volume_full'], 'id' | 'name'>;
export type VolumeList = ListAnswer<'volumes_list', 'volumes', Volume>;

/** An action on a volume (attach_volume, detach_volume, resize_volume). */
export type VolumeAction = Action;
export type VolumeActionList = ListAnswer<'volumeActions_list', 'actions', VolumeAction>;

/** A snapshot of a volume. */
export type VolumeSnapshot = Schemas['snapshots'];
export type VolumeSnapshotList = ListAnswer<'volumeSnapshots_list', 'snapshots', VolumeSnapshot>;
