/**
 * Networking state of the sandbox world: VPCs (with the region default VMs join), domains and
 * records, certificates, firewalls, load balancers, reserved IPs, VPC peerings and BYOIP prefixes.
 * The networking routes (routes/networking*.ts) own its behaviour.
 *
 * References to VMs (firewall and load balancer droplet ids, reserved IP assignments) are stored
 * as ids and resolved against `droplets` when read, so a deleted VM simply drops out, as on the
 * platform, without the vms code knowing about networking.
 */

import { randomUUID } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import type { Schemas } from '@cloudcall/platform';
import { iso } from '../time.js';

/** How long created things take to become ready (LB `new`->`active`, ACME `pending`->`verified`...). */
export const NETWORK_LIFECYCLE_MS = 3_000;

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

export interface StoredDomain {
  name: string;
  ttl: number;
  created_at: string;
}

export interface StoredRecord {
  id: number;
  domain: string;
  type: string;
  name: string;
  data: string;
  priority: number | null;
  port: number | null;
  ttl: number;
  weight: number | null;
  flags: number | null;
  tag: string | null;
}

export interface StoredCertificate {
  id: string;
  name: string;
  type: 'custom' | 'lets_encrypt';
  dns_names: string[];
  sha1_fingerprint: string;
  not_after: string;
  created_ms: number;
}

/** A firewall rule target as stored; `droplet_ids` are resolved at read time. */
export interface RuleTarget {
  addresses?: string[];
  droplet_ids?: number[];
  load_balancer_uids?: string[];
  tags?: string[];
}

export interface StoredRule {
  protocol: 'tcp' | 'udp' | 'icmp';
  ports: string;
  target: RuleTarget;
}

export interface StoredFirewall {
  id: string;
  name: string;
  inbound: StoredRule[];
  outbound: StoredRule[];
  droplet_ids: number[];
  tags: string[];
  created_ms: number;
  /** Last change: the firewall is `waiting` for a moment after each. */
  changed_ms: number;
}

export interface ForwardingRule {
  entry_protocol: string;
  entry_port: number;
  target_protocol: string;
  target_port: number;
  tls_passthrough?: boolean;
  certificate_id?: string;
}

export type LoadBalancerType = Schemas['load_balancer_base']['type'];

export type LoadBalancerAlgorithm = Schemas['load_balancer_base']['algorithm'];

export interface StoredLoadBalancer {
  id: string;
  name: string;
  type: LoadBalancerType;
  /** Allocated at creation, shown once the balancer is active. */
  ip: string;
  ipv6: string | null;
  region: string | null;
  network: Schemas['load_balancer_base']['network'];
  network_stack: Schemas['load_balancer_base']['network_stack'];
  size_unit: number;
  /** The older size slug (`lb-small`...), when the balancer was sized by one; absent in older state files. */
  size?: string | null;
  /** Absent in older state files: round_robin. */
  algorithm?: LoadBalancerAlgorithm;
  forwarding_rules: ForwardingRule[];
  droplet_ids: number[];
  tag: string | null;
  vpc_uuid: string | null;
  project_id: string | null;
  target_load_balancer_ids: string[];
  glb_settings: Record<string, unknown> | null;
  /**
   * The settings a create or update gave (`health_check`, `sticky_sessions`,
   * `redirect_http_to_https`, `enable_proxy_protocol`, `enable_backend_keepalive`,
   * `http_idle_timeout_seconds`), as checked; absent ones (and every one in older state files) are
   * answered with the platform's defaults.
   */
  settings?: LoadBalancerSettings;
  created_ms: number;
}

export interface LoadBalancerSettings {
  health_check?: Record<string, unknown>;
  sticky_sessions?: Record<string, unknown>;
  redirect_http_to_https?: boolean;
  enable_proxy_protocol?: boolean;
  enable_backend_keepalive?: boolean;
  http_idle_timeout_seconds?: number;
}

export interface StoredReservedIp {
  ip: string;
  version: 4 | 6;
  region: string;
  droplet_id: number | null;
  project_id: string | null;
  reserved_ms: number;
}

export interface StoredPeering {
  id: string;
  name: string;
  vpc_ids: [string, string];
  created_ms: number;
}

export interface StoredByoipPrefix {
  uuid: string;
  prefix: string;
  region: string;
  created_ms: number;
  /** Whether it is advertised once active, as a PATCH last set it; absent: it is. */
  advertised?: boolean;
}

export interface NetworkingState {
  vpcs: Vpc[];
  domains: StoredDomain[];
  domainRecords: StoredRecord[];
  certificates: StoredCertificate[];
  firewalls: StoredFirewall[];
  loadBalancers: StoredLoadBalancer[];
  reservedIps: StoredReservedIp[];
  vpcPeerings: StoredPeering[];
  byoipPrefixes: StoredByoipPrefix[];
}

export function seedNetworkingState(): NetworkingState {
  return {
    vpcs: [],
    domains: [],
    domainRecords: [],
    certificates: [],
    firewalls: [],
    loadBalancers: [],
    reservedIps: [],
    vpcPeerings: [],
    byoipPrefixes: [],
  };
}

/**
 * The region's default VPC, created on first use as the platform does when the first resource
 * lands in a region. New VMs join it. (The first VPC of a region, however created, is its default.)
 */
export function ensureDefaultVpc(state: NetworkingState, region: string, now: number): Vpc {
  const existing = state.vpcs.find((vpc) => vpc.region === region && vpc.default);
  if (existing) return existing;
  const vpc = newVpc(state, {
    name: `default-${region}`,
    description: '',
    region,
    ip_range: freeRange(state),
    now,
  });
  state.vpcs.push(vpc);
  return vpc;
}

/** A VPC record; `default` when it is the first of its region. */
export function newVpc(
  state: NetworkingState,
  init: { name: string; description: string; region: string; ip_range: string; now: number },
): Vpc {
  const id = randomUUID();
  return {
    id,
    urn: `do:vpc:${id}`,
    name: init.name,
    description: init.description,
    region: init.region,
    ip_range: init.ip_range,
    default: !state.vpcs.some((vpc) => vpc.region === init.region),
    created_at: iso(init.now),
  };
}

/**
 * A /20 in 10.100.0.0/14 that overlaps no VPC of the account: the platform keeps ranges apart
 * across regions too ("cannot overlap with other networks in the same account"), which is what
 * lets any two VPCs, default ones included, be peered.
 */
export function freeRange(state: Pick<NetworkingState, 'vpcs'>): string {
  for (let i = 0; i < 64; i++) {
    const range = `10.${100 + Math.floor(i / 16)}.${(i % 16) * 16}.0/20`;
    if (!state.vpcs.some((vpc) => cidrsOverlap(vpc.ip_range, range))) return range;
  }
  throw new Error('no free VPC range left in the sandbox');
}

/**
 * Upgrades a world saved before VPC ranges were kept apart across regions, when every region's
 * default VPC got 10.100.0.0/20: each default VPC that overlaps another VPC gets a free range, so
 * the account's VPCs can be peered again. Only a default that nothing depends on is re-ranged: a
 * VPC with members has handed out private addresses from its range (a VM's private IPv4 is stored
 * with the VM) and a peered VPC's range is routed by its peering, so changing either would
 * silently break what uses it. Those keep their range and the overlap stays visible (peering two
 * of them is refused, as it was). Newest first, so the oldest of an overlapping pair keeps its
 * range. Idempotent: once apart, nothing moves.
 */
export function separateDefaultVpcRanges(state: NetworkingState, inUse: (vpcId: string) => boolean): void {
  for (const vpc of [...state.vpcs].reverse()) {
    if (!vpc.default || inUse(vpc.id)) continue;
    const others = state.vpcs.filter((other) => other !== vpc);
    if (!others.some((other) => cidrsOverlap(other.ip_range, vpc.ip_range))) continue;
    try {
      vpc.ip_range = freeRange({ vpcs: others });
    } catch {
      // No free /20 left in the sandbox's pool: the VPC keeps its range rather than failing the read.
    }
  }
}

/** Parses "a.b.c.d/n" (or an IPv6 CIDR); undefined when it is not one. */
export function parseCidr(
  text: string,
): { address: string; bits: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address, bits, extra] = text.split('/');
  if (extra !== undefined || address === undefined || bits === undefined || !/^\d{1,3}$/.test(bits))
    return undefined;
  const version = isIP(address);
  const n = Number(bits);
  if (version === 0 || n > (version === 4 ? 32 : 128)) return undefined;
  return { address, bits: n, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** Whether a CIDR's address is its network address (no host bits set). */
export function isNetworkAddress(text: string): boolean {
  const cidr = parseCidr(text);
  if (!cidr) return false;
  const width = cidr.family === 'ipv4' ? 32n : 128n;
  const hostBits = width - BigInt(cidr.bits);
  const value = addressToBigInt(cidr.address);
  return (value & ((1n << hostBits) - 1n)) === 0n;
}

/** An IPv4 or IPv6 address as an unsigned integer. */
export function addressToBigInt(address: string): bigint {
  if (isIP(address) === 4) return BigInt(ipv4ToInt(address));
  let text = address;
  const embedded = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (embedded?.[1]) {
    const v4 = ipv4ToInt(embedded[1]);
    text = `${text.slice(0, -embedded[1].length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((acc, group) => (acc << 16n) + BigInt(Number.parseInt(group || '0', 16)), 0n);
}

/** Whether two CIDR blocks share any address (one contains the other's network address). */
export function cidrsOverlap(a: string, b: string): boolean {
  const x = parseCidr(a);
  const y = parseCidr(b);
  if (!x || !y || x.family !== y.family) return false;
  const inX = new BlockList();
  inX.addSubnet(x.address, x.bits, x.family);
  const inY = new BlockList();
  inY.addSubnet(y.address, y.bits, y.family);
  return inX.check(y.address, y.family) || inY.check(x.address, x.family);
}

/** Whether an address (or CIDR) lies within a block. */
export function cidrContains(block: string, inner: string): boolean {
  const b = parseCidr(block);
  const i = parseCidr(inner.includes('/') ? inner : `${inner}/${isIP(inner) === 6 ? 128 : 32}`);
  if (!b || !i || b.family !== i.family || i.bits < b.bits) return false;
  const list = new BlockList();
  list.addSubnet(b.address, b.bits, b.family);
  return list.check(i.address, i.family);
}

export function ipv4ToInt(address: string): number {
  return address.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

/**
 * The first address of a documentation range that no stored address uses: deterministic from
 * state. IPv4 pools are a /24 prefix ("203.0.113."); IPv6 ones a prefix ending in "::".
 * Undefined when the pool's 254 addresses are all taken.
 */
export function allocateAddress(prefix: string, used: Iterable<string>): string | undefined {
  const taken = new Set(used);
  for (let host = 1; host < 255; host++) {
    const candidate = prefix.endsWith('::') ? `${prefix}${host.toString(16)}` : `${prefix}${host}`;
    if (!taken.has(candidate)) return candidate;
  }
  return undefined;
}

/** Address pools, all in documentation ranges (RFC 5737, RFC 3849). */
export const POOLS = {
  loadBalancerV4: '203.0.113.',
  loadBalancerV6: '2001:db8:1b::',
  reservedV4: '198.51.100.',
  reservedV6: '2001:db8:ee::',
} as const;

/** Whether a stored lifecycle that started at `startedMs` has completed at `now`. */
export const ready = (startedMs: number, now: number) => now >= startedMs + NETWORK_LIFECYCLE_MS;
