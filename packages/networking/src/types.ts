/**
 * The platform's answers to the networking tools, as library users receive them: the shapes of
 * the platform's OpenAPI description (@cloudcall/platform, generated), under the names this
 * package has always exported. `Always` marks what the description leaves optional and the
 * platform always sends (an object's id, what a caller passes on to the next tool).
 */
import type { Action } from '@cloudcall/core';
import type { Always, ListAnswer, Schemas } from '@cloudcall/platform';

export type Domain = Always<Schemas['domain'], 'name'>;

export type DomainRecord = Always<Schemas['domain_record'], 'id' | 'name' | 'data'>;

export type Certificate = Always<Schemas['certificate'], 'id' | 'name' | 'state' | 'type'>;

export type FirewallRuleTarget = Schemas['firewall_rule_target'];

export type FirewallInboundRule = NonNullable<Schemas['firewall_rules']['inbound_rules']>[number];

export type FirewallOutboundRule = NonNullable<Schemas['firewall_rules']['outbound_rules']>[number];

export type Firewall = Always<Schemas['firewall'], 'id' | 'name' | 'status'>;

export type WireForwardingRule = Schemas['forwarding_rule'];

export type LoadBalancer = Always<Schemas['load_balancer'], 'id' | 'name' | 'status'>;

export type ReservedIp = Always<Schemas['reserved_ip'], 'ip'>;

export type ReservedIpv6 = Always<Schemas['reserved_ipv6'], 'ip'>;

/** reserved-ip-reserve answers per Type: `reserved_ip` (ipv4) or `reserved_ipv6` (ipv6). */
export type ReservedIpReserved =
  | { reserved_ip: ReservedIp; links: { actions?: unknown[] } }
  | { reserved_ipv6: ReservedIpv6 };

export type ReservedIpAnswer = { reserved_ip: ReservedIp } | { reserved_ipv6: ReservedIpv6 };

export type ReservedIpList =
  | ListAnswer<'reservedIPs_list', 'reserved_ips', ReservedIp>
  | ListAnswer<'reservedIPv6_list', 'reserved_ipv6s', ReservedIpv6>;

export type VpcPeering = Always<Schemas['vpc_peering'], 'id' | 'name' | 'status'>;

export type ByoipPrefix = Always<Schemas['byoip_prefix'], 'uuid'>;

export type ByoipPrefixResource = Schemas['byoip_prefix_resource'];

export type Vpc = Always<Schemas['vpc'], 'id' | 'name'>;

export type VpcMember = Schemas['vpc_member'];

export type DomainList = ListAnswer<'domains_list', 'domains', Domain>;
export type DomainRecordList = ListAnswer<'domains_list_records', 'domain_records', DomainRecord>;
export type CertificateList = ListAnswer<'certificates_list', 'certificates', Certificate>;
export type FirewallList = ListAnswer<'firewalls_list', 'firewalls', Firewall>;
export type LoadBalancerList = ListAnswer<'loadBalancers_list', 'load_balancers', LoadBalancer>;
export type VpcPeeringList = ListAnswer<'vpcPeerings_list', 'vpc_peerings', VpcPeering>;
export type ByoipPrefixList = ListAnswer<'byoipPrefixes_list', 'byoip_prefixes', ByoipPrefix>;
export type ByoipPrefixResourceList = ListAnswer<'byoipPrefixes_list_resources', 'ips'>;
export type VpcList = ListAnswer<'vpcs_list', 'vpcs', Vpc>;
export type VpcMemberList = ListAnswer<'vpcs_list_members', 'members'>;

export type { Action };
