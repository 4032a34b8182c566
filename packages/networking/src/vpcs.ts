/** VPCs (private networks per region), their members, and peerings between two VPCs. */
import { annotations, defineTool, LIMITS, pageQuery, regionSlug, returns, uuid } from '@cloudcall/core';
import { z } from 'zod';
import { isIpv4Cidr, page } from './shapes.js';
import type { Vpc, VpcList, VpcMemberList, VpcPeering, VpcPeeringList } from './types.js';

const VpcId = uuid('ID of the VPC (a UUID), from vpc-list or vpc-create.');
const PeeringId = uuid('ID of the VPC peering (a UUID), from vpc-peering-list or vpc-peering-create.');
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
    description:
      'Creates a VPC (private network) in a region. Without Subnet the platform picks a free range. The first VPC of a region becomes its default, which new VMs join.',
    input: z.strictObject({
      Name: vpcName.describe('Name of the VPC, unique in the account: letters, digits, "." and "-".'),
      Region: regionSlug('Region slug, such as "nyc3".'),
      Subnet: z
        .string()
        .trim()
        .max(LIMITS.short)
        .refine(isIpv4Cidr, 'expected an IPv4 CIDR block such as "10.10.10.0/24"')
        .optional()
        .describe(
          'Private IPv4 range as a CIDR block, /16 to /28, such as "10.10.10.0/24"; must not overlap another VPC of the region.',
        ),
      Description: z
        .string()
        .max(LIMITS.description)
        .optional()
        .describe('A free-text description, up to 255 characters.'),
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
    description: 'Lists the resources in a VPC (VMs, load balancers) by URN and name.',
    input: z.strictObject({ ID: VpcId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/vpcs/{ID}/members' },
    result: returns<VpcMemberList>(),
  }),
  defineTool({
    name: 'vpc-delete',
    family: 'networking',
    title: 'Delete VPC',
    description: "Deletes a VPC. It must have no members and no peerings, and not be the region's default.",
    input: z.strictObject({ ID: VpcId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/vpcs/{ID}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'vpc-get',
    family: 'networking',
    title: 'Get VPC',
    description: "Shows a VPC: region, IP range, whether it is the region's default.",
    input: z.strictObject({ ID: VpcId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/vpcs/{ID}' },
    result: returns<{ vpc: Vpc }>(),
  }),
  defineTool({
    name: 'vpc-list',
    family: 'networking',
    title: 'List VPCs',
    description: 'Lists the VPCs of the account. Paginated.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/vpcs', query: pageQuery },
    result: returns<VpcList>(),
  }),
  defineTool({
    name: 'vpc-peering-create',
    family: 'networking',
    title: 'Peer two VPCs',
    description:
      'Connects two VPCs (with non-overlapping ranges) so their resources reach each other privately. It is `PROVISIONING`, then `ACTIVE`.',
    input: z
      .strictObject({
        Name: peeringName.describe('Name of the peering: letters, digits and "-".'),
        Vpc1: VpcId.describe('ID of the first VPC, from vpc-list.'),
        Vpc2: VpcId.describe('ID of the second VPC, from vpc-list.'),
      })
      .superRefine((args, ctx) => {
        if (args.Vpc1 === args.Vpc2)
          ctx.addIssue({ code: 'custom', path: ['Vpc2'], message: 'must differ from Vpc1' });
      }),
    annotations: annotations.create,
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
    description: 'Disconnects two peered VPCs. Answers with the peering, `DELETING`.',
    input: z.strictObject({ ID: PeeringId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/vpc_peerings/{ID}' },
    result: returns<{ vpc_peering: VpcPeering }>(),
  }),
  defineTool({
    name: 'vpc-peering-get',
    family: 'networking',
    title: 'Get VPC peering',
    description: 'Shows a VPC peering: its two VPCs and status.',
    input: z.strictObject({ ID: PeeringId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/vpc_peerings/{ID}' },
    result: returns<{ vpc_peering: VpcPeering }>(),
  }),
  defineTool({
    name: 'vpc-peering-list',
    family: 'networking',
    title: 'List VPC peerings',
    description: 'Lists the VPC peerings of the account. Paginated.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/vpc_peerings', query: pageQuery },
    result: returns<VpcPeeringList>(),
  }),
] as const;
