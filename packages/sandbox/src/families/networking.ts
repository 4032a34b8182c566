/**
 * Networking state of the sandbox world: VPCs here; the networking routes add domains,
 * certificates, firewalls, load balancers, reserved IPs, peerings and BYOIP prefixes.
 */
import { randomUUID } from 'node:crypto';
import { iso } from '../http.js';

export interface Vpc {
  id: string;
  urn: string;
  name: string;
  description: string;
  region: string;
  ip_range: string;
  default: boolean;
  created_at: string;
}

export interface NetworkingState {
  vpcs: Vpc[];
}

export function seedNetworkingState(): NetworkingState {
  return { vpcs: [] };
}

/**
 * The region's default VPC, created on first use as the platform does when the first resource
 * lands in a region. New VMs join it.
 */
export function ensureDefaultVpc(state: NetworkingState, region: string, now: number): Vpc {
  const existing = state.vpcs.find((vpc) => vpc.region === region && vpc.default);
  if (existing) return existing;
  const id = randomUUID();
  const vpc: Vpc = {
    id,
    urn: `do:vpc:${id}`,
    name: `default-${region}`,
    description: '',
    region,
    ip_range: freeRange(state),
    default: true,
    created_at: iso(now),
  };
  state.vpcs.push(vpc);
  return vpc;
}

/** A /20 in 10.100.0.0/14 that no VPC uses yet. */
function freeRange(state: NetworkingState): string {
  for (let i = 0; i < 64; i++) {
    const range = `10.${100 + Math.floor(i / 16)}.${(i % 16) * 16}.0/20`;
    if (!state.vpcs.some((vpc) => vpc.ip_range === range)) return range;
  }
  throw new Error('no free VPC range left in the sandbox');
}
