/**
 * VM (droplet) state of the sandbox world. The vms and images routes own its behaviour; other
 * families (networking: firewalls, load balancers, reserved IPs, VPC members) read it.
 */

/** A droplet as the platform shows it (stored in wire shape; status derived where time matters). */
export interface Droplet {
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
  image: Record<string, unknown>;
  volume_ids: string[];
  size: Record<string, unknown>;
  size_slug: string;
  networks: {
    v4: { ip_address: string; netmask: string; gateway: string; type: 'public' | 'private' }[];
    v6: { ip_address: string; netmask: number; gateway: string; type: 'public' }[];
  };
  region: Record<string, unknown> & { slug: string };
  tags: string[];
  vpc_uuid: string;
  kernel?: Record<string, unknown> | null;
  [extra: string]: unknown;
}

export interface VmsState {
  droplets: Droplet[];
}

export function seedVmsState(): VmsState {
  return { droplets: [] };
}
