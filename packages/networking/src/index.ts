/**
 * @cloudcall/networking: domains, certificates, firewalls, load balancers, reserved IPs, VPCs, peerings and BYOIP.
 * Its tools arrive in a later release; the family is registered now so the apps compose it.
 */
import type { AnyTool, ToolFamily } from '@cloudcall/core';

export const networkingTools: readonly AnyTool[] = [];

export const networkingFamily: ToolFamily = {
  name: 'networking',
  title: 'Networking',
  description:
    'Domains and records, certificates, firewalls, load balancers, reserved IPs, VPCs, peerings and BYOIP.',
  tools: networkingTools,
};
