/** The platform's answers to the image and size tools, as library users receive them. */
import type { Links, Meta } from '@cloudcall/core';

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

export interface ImageAction {
  id: number;
  status: 'in-progress' | 'completed' | 'errored';
  type: string;
  started_at: string;
  completed_at: string | null;
  resource_id: number | null;
  resource_type: string;
  region_slug: string | null;
}

export interface Size {
  slug: string;
  /** MiB. */
  memory: number;
  vcpus: number;
  /** GB. */
  disk: number;
  /** TB a month. */
  transfer: number;
  price_monthly: number;
  price_hourly: number;
  regions: string[];
  available: boolean;
  description: string;
}

export type ImageList = { images: Image[]; links: Links; meta: Meta };
export type SizeList = { sizes: Size[]; links: Links; meta: Meta };
