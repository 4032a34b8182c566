/** The platform's answers to the VM tools, as library users receive them. */
import type { Action, Links, Meta, Region, Size } from '@cloudcall/core';

export interface VmImage {
  id: number;
  name: string;
  type: string;
  distribution: string;
  slug: string | null;
  public: boolean;
  regions: string[];
  min_disk_size: number | null;
  size_gigabytes: number | null;
  status?: string;
}

export interface NetworkV4 {
  ip_address: string;
  netmask: string;
  gateway: string;
  type: 'public' | 'private';
}

export interface NetworkV6 {
  ip_address: string;
  netmask: number;
  gateway: string;
  type: 'public';
}

/** A VM (the platform's droplet). */
export interface Vm {
  id: number;
  name: string;
  memory: number;
  vcpus: number;
  disk: number;
  locked: boolean;
  status: 'new' | 'active' | 'off' | 'archive';
  created_at: string;
  features: string[];
  backup_ids: number[];
  next_backup_window: { start: string; end: string } | null;
  snapshot_ids: number[];
  image: VmImage;
  volume_ids: string[];
  size: VmSize;
  size_slug: string;
  networks: { v4: NetworkV4[]; v6: NetworkV6[] };
  region: VmRegion;
  tags: string[];
  vpc_uuid?: string;
  kernel?: { id: number; name: string; version: string } | null;
}

export type VmList = { droplets: Vm[]; links: Links; meta: Meta };
export type VmCreated = { droplet: Vm; links: { actions: { id: number; rel: string; href: string }[] } };
export type VmActionResult = { action: VmAction };
export type VmActionsResult = { actions: VmAction[] };

export type VmSize = Size;
export type VmRegion = Region;
export type VmAction = Action;

/** A snapshot or backup of a VM, as the VM's lists show it. */
export interface VmSnapshot {
  id: number;
  name: string;
  type: 'snapshot' | 'backup';
  created_at: string;
  regions: string[];
  min_disk_size: number;
  size_gigabytes: number;
}
export type VmSnapshotList = { snapshots: VmSnapshot[]; links: Links; meta: Meta };
export type VmBackupList = { backups: VmSnapshot[]; links: Links; meta: Meta };

export interface VmKernel {
  id: number;
  name: string;
  version: string;
}
export type VmKernelList = { kernels: VmKernel[]; links: Links; meta: Meta };

/** How and when a VM is backed up. */
export interface VmBackupPolicyRecord {
  droplet_id: number;
  backup_enabled: boolean;
  backup_policy?: {
    plan: 'daily' | 'weekly';
    weekday?: 'SUN' | 'MON' | 'TUE' | 'WED' | 'THU' | 'FRI' | 'SAT';
    hour: number;
    window_length_hours: number;
    retention_period_days: number;
  };
  next_backup_window: { start: string; end: string } | null;
}

/** A billable resource tied to a VM, with its monthly cost in USD. */
export interface VmAssociatedResource {
  id: string;
  name: string;
  cost: string;
}
export interface VmAssociatedResources {
  reserved_ips: VmAssociatedResource[];
  floating_ips: VmAssociatedResource[];
  snapshots: VmAssociatedResource[];
  volumes: VmAssociatedResource[];
  volume_snapshots: VmAssociatedResource[];
}

/** How many resources carry a tag, and the last one tagged. */
export interface TagStats {
  count: number;
  last_tagged_uri?: string;
}
export interface Tag {
  name: string;
  resources: TagStats & {
    droplets: TagStats;
    images: TagStats;
    volumes: TagStats;
    volume_snapshots: TagStats;
    databases: TagStats;
  };
}
export type TagList = { tags: Tag[]; links: Links; meta: Meta };

/** A block-storage volume. */
export interface Volume {
  id: string;
  name: string;
  description: string;
  size_gigabytes: number;
  region: Region;
  /** The VM it is attached to: empty, or one id. */
  droplet_ids: number[];
  created_at: string;
  filesystem_type: string;
  filesystem_label: string;
  tags: string[];
}
export type VolumeList = { volumes: Volume[]; links: Links; meta: Meta };

/** An action on a volume (attach_volume, detach_volume, resize_volume). */
export type VolumeAction = Action;
export type VolumeActionList = { actions: VolumeAction[]; links: Links; meta: Meta };

/** A snapshot of a volume. */
export interface VolumeSnapshot {
  id: string;
  name: string;
  created_at: string;
  regions: string[];
  min_disk_size: number;
  size_gigabytes: number;
  resource_id: string;
  resource_type: 'volume';
  tags: string[];
}
export type VolumeSnapshotList = { snapshots: VolumeSnapshot[]; links: Links; meta: Meta };
