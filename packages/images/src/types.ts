/** The platform's answers to the image and size tools, as library users receive them. */
import type { Action, Links, Meta, Region, Size } from '@cloudcall/core';

export interface Image {
  id: number;
  name: string;
  /** base (public distribution or application), snapshot, backup, custom or admin. */
  type: 'base' | 'snapshot' | 'backup' | 'custom' | 'admin';
  distribution: string;
  slug: string | null;
  public: boolean;
  regions: string[];
  created_at: string;
  min_disk_size: number | null;
  size_gigabytes: number | null;
  description?: string;
  tags?: string[] | null;
  status?: 'NEW' | 'available' | 'pending' | 'deleted' | 'retired';
  error_message?: string;
}

export type ImageList = { images: Image[]; links: Links; meta: Meta };
export type SizeList = { sizes: Size[]; links: Links; meta: Meta };
export type RegionList = { regions: Region[]; links: Links; meta: Meta };

export type { Region, Size };
/** An image action (transfer, convert). */
export type ImageAction = Action;

/** A snapshot of a VM (numeric id, as a string: it is an image too) or of a volume (UUID). */
export interface Snapshot {
  id: string;
  name: string;
  created_at: string;
  regions: string[];
  min_disk_size: number;
  size_gigabytes: number;
  resource_id: string;
  resource_type: 'droplet' | 'volume';
  tags: string[] | null;
}
export type SnapshotList = { snapshots: Snapshot[]; links: Links; meta: Meta };
