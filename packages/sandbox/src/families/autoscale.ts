/**
 * Droplet autoscale pool state of the sandbox world. A pool's members are real VMs of `droplets`,
 * made from its template (the vms routes make them, so they boot, list and act as any VM does); the
 * pool keeps their ids, and a member deleted some other way simply drops out of it. The sandbox's
 * VMs carry no load, so a pool scaled by utilization sits at its minimum.
 *
 * A deleted pool is kept, `deleting`, for `AUTOSCALE_DELETE_MS`, then dropped when next written.
 */

export const AUTOSCALE_DELETE_MS = 3_000;

/** A fixed number of members. */
export interface StaticConfig {
  target_number_instances: number;
}

/** Between a minimum and a maximum, by CPU and/or memory utilization. */
export interface DynamicConfig {
  min_instances: number;
  max_instances: number;
  target_cpu_utilization?: number;
  target_memory_utilization?: number;
  cooldown_minutes: number;
}

/** The template as the request gave it, checked (`ssh_keys` as strings, as the description has them). */
export interface StoredTemplate {
  name?: string;
  region: string;
  size: string;
  image: string;
  ssh_keys: string[];
  tags?: string[];
  vpc_uuid?: string;
  with_droplet_agent?: boolean;
  project_id?: string;
  ipv6?: boolean;
  user_data?: string;
  public_networking: boolean;
}

export interface StoredHistoryEvent {
  history_event_id: string;
  current_instance_count: number;
  desired_instance_count: number;
  reason: 'CONFIGURATION_CHANGE' | 'SCALE_UP' | 'SCALE_DOWN';
  created_ms: number;
  /** When the members it asked for are up (it is `success` from then on). */
  done_ms: number;
}

export interface StoredAutoscalePool {
  id: string;
  name: string;
  config: StaticConfig | DynamicConfig;
  droplet_template: StoredTemplate;
  member_ids: number[];
  history: StoredHistoryEvent[];
  created_ms: number;
  updated_ms: number;
  deleted_ms?: number;
}

export interface AutoscaleState {
  autoscalePools: StoredAutoscalePool[];
}

export function seedAutoscaleState(): AutoscaleState {
  return { autoscalePools: [] };
}
