/** The platform's answers to the networking tools, as library users receive them. */
import type { Action, Links, Meta } from '@cloudcall/core';

interface Paged {
  links: Links;
  meta: Meta;
}

export interface Domain {
  name: string;
  ttl: number | null;
  zone_file: string | null;
}

export interface DomainRecord {
  id: number;
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

export interface Certificate {
  id: string;
  name: string;
  not_after: string;
  sha1_fingerprint: string;
  created_at: string;
  dns_names: string[];
  state: 'pending' | 'verified' | 'error';
  type: 'custom' | 'lets_encrypt';
}

export interface FirewallRuleTarget {
  addresses?: string[];
  droplet_ids?: number[];
  load_balancer_uids?: string[];
  tags?: string[];
}

export interface FirewallInboundRule {
  protocol: 'tcp' | 'udp' | 'icmp';
  ports: string;
  sources: FirewallRuleTarget;
}

export interface FirewallOutboundRule {
  protocol: 'tcp' | 'udp' | 'icmp';
  ports: string;
  destinations: FirewallRuleTarget;
}

export interface Firewall {
  id: string;
  name: string;
  status: 'waiting' | 'succeeded' | 'failed';
  inbound_rules: FirewallInboundRule[];
  outbound_rules: FirewallOutboundRule[];
  created_at: string;
  droplet_ids: number[];
  tags: string[];
  pending_changes: { droplet_id: number; removing: boolean; status: string }[];
}

export interface WireForwardingRule {
  entry_protocol: string;
  entry_port: number;
  target_protocol: string;
  target_port: number;
  certificate_id?: string;
  tls_passthrough?: boolean;
}

export interface LoadBalancer {
  id: string;
  name: string;
  ip: string;
  ipv6?: string;
  status: 'new' | 'active' | 'errored';
  type: 'REGIONAL' | 'REGIONAL_NETWORK' | 'GLOBAL';
  network: 'EXTERNAL' | 'INTERNAL';
  network_stack: 'IPV4' | 'DUALSTACK';
  size_unit: number;
  region?: { slug: string; name: string; [field: string]: unknown };
  forwarding_rules: WireForwardingRule[];
  droplet_ids: number[];
  tag?: string;
  vpc_uuid?: string;
  project_id?: string;
  target_load_balancer_ids?: string[];
  glb_settings?: Record<string, unknown>;
  health_check: Record<string, unknown>;
  sticky_sessions: Record<string, unknown>;
  created_at: string;
  [field: string]: unknown;
}

export interface ReservedIp {
  ip: string;
  region: { slug: string; name: string; [field: string]: unknown };
  droplet: ({ id: number; name: string } & Record<string, unknown>) | null;
  locked: boolean;
  project_id?: string;
}

export interface ReservedIpv6 {
  ip: string;
  region_slug: string;
  reserved_at: string;
  droplet: ({ id: number; name: string } & Record<string, unknown>) | null;
}

/** reserved-ip-reserve answers per Type: `reserved_ip` (ipv4) or `reserved_ipv6` (ipv6). */
export type ReservedIpReserved =
  | { reserved_ip: ReservedIp; links: { actions?: unknown[] } }
  | { reserved_ipv6: ReservedIpv6 };

export type ReservedIpAnswer = { reserved_ip: ReservedIp } | { reserved_ipv6: ReservedIpv6 };

export type ReservedIpList =
  | ({ reserved_ips: ReservedIp[] } & Paged)
  | ({ reserved_ipv6s: ReservedIpv6[] } & Paged);

export interface VpcPeering {
  id: string;
  name: string;
  vpc_ids: [string, string];
  status: 'PROVISIONING' | 'ACTIVE' | 'DELETING';
  created_at: string;
}

export interface ByoipPrefix {
  uuid: string;
  name: string;
  prefix: string;
  region: string;
  status: string;
  validations: { name: string; note: string; status: string }[];
  failure_reason: string;
  advertised: boolean;
  locked: boolean;
  project_id?: string;
}

export interface ByoipPrefixResource {
  id: number;
  byoip: string;
  region: string;
  resource: string;
  assigned_at: string;
}

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

export interface VpcMember {
  urn: string;
  name: string;
  created_at: string;
}

export type DomainList = { domains: Domain[] } & Paged;
export type DomainRecordList = { domain_records: DomainRecord[] } & Paged;
export type CertificateList = { certificates: Certificate[] } & Paged;
export type FirewallList = { firewalls: Firewall[] } & Paged;
export type LoadBalancerList = { load_balancers: LoadBalancer[] } & Paged;
export type VpcPeeringList = { vpc_peerings: VpcPeering[] } & Paged;
export type ByoipPrefixList = { byoip_prefixes: ByoipPrefix[] } & Paged;
export type ByoipPrefixResourceList = { ips: ByoipPrefixResource[] } & Paged;
export type VpcList = { vpcs: Vpc[] } & Paged;
export type VpcMemberList = { members: VpcMember[] } & Paged;

export type { Action };
