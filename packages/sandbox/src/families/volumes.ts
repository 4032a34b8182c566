/**
 * Block-storage state of the sandbox world: volumes and their snapshots. A volume lives in one
 * region and is attached to at most one VM of that region at a time; which VMs hold which volumes
 * is kept here only (a VM's `volume_ids` is derived from it when read), so the two can never
 * disagree. A snapshot outlives its volume, as on the platform.
 */

/**
 * How many volumes one VM may have attached at a time: fifteen, as the API description of
 * `POST /v2/volumes/actions` states it (the limit was seven in older documentation).
 */
export const VOLUMES_PER_DROPLET = 15;

/** The largest volume the platform makes, in GiB. */
export const MAX_VOLUME_GB = 16_384;

export interface StoredVolume {
  id: string;
  name: string;
  description: string;
  size_gigabytes: number;
  region: string;
  filesystem_type: string;
  filesystem_label: string;
  tags: string[];
  /** The VM it is attached to: zero or one id. */
  droplet_ids: number[];
  created_ms: number;
}

export interface StoredVolumeSnapshot {
  id: string;
  name: string;
  volume_id: string;
  region: string;
  /** The volume's size when the snapshot was taken: a volume made from it is at least this big. */
  min_disk_size: number;
  size_gigabytes: number;
  tags: string[];
  created_ms: number;
}

export interface VolumesState {
  volumes: StoredVolume[];
  volumeSnapshots: StoredVolumeSnapshot[];
}

export function seedVolumesState(): VolumesState {
  return { volumes: [], volumeSnapshots: [] };
}
