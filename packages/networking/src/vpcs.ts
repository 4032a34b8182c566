/** VPCs (private networks per region), their members, and peerings between two VPCs. */
import { annotations, defineTool, returns } from '@cloudcall/core';
import { LIMITS, pageQuery, regionSlug, uuid } from '@cloudcall/core/internal';
import { z } from 'zod';
import { isIpv4Cidr, page } from './shapes.js';
import type { Vpc, VpcList, VpcMemberList, VpcPeering, VpcPeeringList } from './types.js';

const VpcId = uuid('VPC id');
const PeeringId = uuid('Peering id');
/** The platform's character sets: a VPC name may hold dots, a peering name may not. */
const vpcName = z
  .string()
  .trim()
  .max(LIMITS.name)
  .regex(/^[a-zA-Z0-9.-]+$/, 'expected letters, digits, "." and "-"');
const peeringName = z
  .string()
  .trim()
  .max(LIMITS.name)
  .regex(/^[a-zA-Z0-9-]+$/, 'expected letters, digits and "-"');

export const vpcTools = [
  defineTool({
    name: 'vpc-create',
    family: 'networking',
    title: 'Create VPC',
    description: 'Create a VPC.',
    details:
      'Creates a VPC (private network) in a region. Without Subnet the platform picks a free range. The first VPC of a region becomes its default, which new VMs join. The name is unique in the account: letters, digits, "." and "-".',
    input: z.strictObject({
      Name: vpcName.describe('VPC name'),
      Region: regionSlug('Region slug'),
      Subnet: z
        .string()
        .trim()
        .max(LIMITS.short)
        .refine(isIpv4Cidr, 'expected an IPv4 CIDR block such as "10.10.10.0/24"')
        .optional()
        .describe('IPv4 CIDR /16-/28'),
      Description: z.string().max(LIMITS.description).optional().describe('Free text'),
    }),
    annotations: annotations.create,
    request: {
      method: 'POST',
      path: '/v2/vpcs',
      body: { name: 'Name', region: 'Region', ip_range: 'Subnet', description: 'Description' },
    },
    result: returns<{ vpc: Vpc }>(),
  }),
  defineTool({
    name: 'vpc-list-members',
    family: 'networking',
    title: 'List VPC members',
    description: "List a VPC's members.",
    details: 'Lists the resources in a VPC (VMs, load balancers) by URN and name.',
    input: z.strictObject({ ID: VpcId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/vpcs/{ID}/members' },
    result: returns<VpcMemberList>(),
  }),
  defineTool({
    name: 'vpc-delete',
    family: 'networking',
    title: 'Delete VPC',
    description: 'Delete an empty, non-default VPC.',
    details: "Deletes a VPC. It must have no members and no peerings, and not be the region's default.",
    input: z.strictObject({ ID: VpcId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/vpcs/{ID}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'vpc-get',
    family: 'networking',
    title: 'Get VPC',
    description: 'One VPC by id.',
    details: "Shows a VPC: region, IP range, whether it is the region's default.",
    input: z.strictObject({ ID: VpcId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/vpcs/{ID}' },
    result: returns<{ vpc: Vpc }>(),
  }),
  defineTool({
    name: 'vpc-list',
    family: 'networking',
    title: 'List VPCs',
    description: 'List all VPCs.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/vpcs', query: pageQuery },
    result: returns<VpcList>(),
  }),
  defineTool({
    name: 'vpc-peering-create',
    family: 'networking',
    title: 'Peer two VPCs',
    description: 'Peer two non-overlapping VPCs.',
    details:
      'Connects two VPCs (with non-overlapping ranges) so their resources reach each other privately. It is `PROVISIONING`, then `ACTIVE`. The name takes letters, digits and "-".',
    input: z
      .strictObject({
        Name: peeringName.describe('Peering name'),
        Vpc1: VpcId.describe('First VPC id'),
        Vpc2: VpcId.describe('Second VPC id'),
      })
      .superRefine((args, ctx) => {
        if (args.Vpc1 === args.Vpc2)
          ctx.addIssue({ code: 'custom', path: ['Vpc2'], message: 'must differ from Vpc1' });
      }),
    annotations: annotations.create,
    wait: { kind: 'vpc-peering' },
    request: {
      method: 'POST',
      path: '/v2/vpc_peerings',
      body: (args) => ({ name: args.Name, vpc_ids: [args.Vpc1, args.Vpc2] }),
    },
    result: returns<{ vpc_peering: VpcPeering }>(),
  }),
  defineTool({
    name: 'vpc-peering-delete',
    family: 'networking',
    title: 'Delete VPC peering',
    description: 'Delete a VPC peering.',
    details: 'Disconnects two peered VPCs. Answers with the peering, `DELETING`.',
    input: z.strictObject({ ID: PeeringId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/vpc_peerings/{ID}' },
    result: returns<{ vpc_peering: VpcPeering }>(),
  }),
  defineTool({
    name: 'vpc-peering-get',
    family: 'networking',
    title: 'Get VPC peering',
    description: 'One VPC peering.',
    details: 'Shows a VPC peering: its two VPCs and status.',
    input: z.strictObject({ ID: PeeringId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/vpc_peerings/{ID}' },
    result: returns<{ vpc_peering: VpcPeering }>(),
  }),
  defineTool({
    name: 'vpc-peering-list',
    family: 'networking',
    title: 'List VPC peerings',
    description: 'List VPC peerings.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/vpc_peerings', query: pageQuery },
    result: returns<VpcPeeringList>(),
  }),
] as const;
