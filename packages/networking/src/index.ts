/**
 * @cloudcall/networking: domains and records, certificates, firewalls, load balancers, reserved
 * IPs, VPCs, VPC peerings and BYOIP prefixes, as tool definitions and as a typed API.
 *
 * ```ts
 * import { createClient } from '@cloudcall/core';
 * import { networkingApi } from '@cloudcall/networking';
 * const net = networkingApi(createClient({ token }));
 * const { vpc } = await net.vpcCreate({ Name: 'prod', Region: 'nyc3', Subnet: '10.20.0.0/20' });
 * ```
 */
import { type ApiClient, type BoundTools, bindTools, type ToolFamily } from '@cloudcall/core';
import { byoipTools, reservedIpTools } from './addresses.js';
import { certificateTools } from './certificates.js';
import { domainTools } from './domains.js';
import { firewallTools } from './firewalls.js';
import { loadBalancerTools } from './loadBalancers.js';
import { vpcTools } from './vpcs.js';

export type {
  Action,
  ByoipPrefix,
  ByoipPrefixList,
  ByoipPrefixResource,
  ByoipPrefixResourceList,
  Certificate,
  CertificateList,
  Domain,
  DomainList,
  DomainRecord,
  DomainRecordList,
  Firewall,
  FirewallInboundRule,
  FirewallList,
  FirewallOutboundRule,
  FirewallRuleTarget,
  LoadBalancer,
  LoadBalancerList,
  ReservedIp,
  ReservedIpAnswer,
  ReservedIpList,
  ReservedIpReserved,
  ReservedIpv6,
  Vpc,
  VpcList,
  VpcMember,
  VpcMemberList,
  VpcPeering,
  VpcPeeringList,
  WireForwardingRule,
} from './types.js';

export const networkingTools = [
  ...domainTools,
  ...certificateTools,
  ...firewallTools,
  ...loadBalancerTools,
  ...reservedIpTools,
  ...vpcTools,
  ...byoipTools,
] as const;

export const networkingFamily: ToolFamily = {
  name: 'networking',
  title: 'Networking',
  description:
    'Domains and records, certificates, firewalls, load balancers, reserved IPs, VPCs, peerings and BYOIP.',
  tools: networkingTools,
};

/** The networking tools bound to a client: `vpcCreate`, `firewallAddRules`, `reservedIpAssign`... */
export function networkingApi(client: ApiClient): BoundTools<typeof networkingTools> {
  return bindTools(client, networkingTools);
}
