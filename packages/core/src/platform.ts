/**
 * Platform objects that several families return: actions (every asynchronous change), regions
 * and sizes. Family packages re-export them under their own names.
 */

/** An asynchronous change on the platform, such as a VM power-off or an image transfer. */
export interface Action {
  id: number;
  status: 'in-progress' | 'completed' | 'errored';
  type: string;
  started_at: string;
  completed_at: string | null;
  resource_id: number | null;
  resource_type: string;
  region_slug: string | null;
}

export interface Region {
  slug: string;
  name: string;
  features: string[];
  available: boolean;
  /** Slugs of the sizes offered in the region. */
  sizes: string[];
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
  /** Slugs of the regions that offer the size. */
  regions: string[];
  available: boolean;
  description: string;
}
