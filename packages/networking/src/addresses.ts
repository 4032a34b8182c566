/**
 * Reserved IPs (IPv4 through /v2/reserved_ips, IPv6 through /v2/reserved_ipv6: each type has its
 * own API path, so these tools pick the request by `Type`) and BYOIP prefixes.
 */
import { isIP } from 'node:net';
import { annotations, defineTool, returns, sendRequest } from '@cloudcall/core';
import { LIMITS, pageQuery, regionSlug, uuid } from '@cloudcall/core/internal';
import { z } from 'zod';
import { page } from './shapes.js';
import type {
  Action,
  ByoipPrefix,
  ByoipPrefixList,
  ByoipPrefixResourceList,
  ReservedIpAnswer,
  ReservedIpList,
  ReservedIpReserved,
} from './types.js';

type IpType = 'ipv4' | 'ipv6';
const Type = z.enum(['ipv4', 'ipv6']).describe('IP family');
const IP = z
  .string()
  .trim()
  .max(LIMITS.short)
  .refine((value) => isIP(value) !== 0, 'expected an IPv4 or IPv6 address')
  .describe('IP address');

/** IP and Type must agree. */
function sameVersion(args: { IP: string; Type: IpType }, ctx: z.RefinementCtx) {
  const version = isIP(args.IP) === 6 ? 'ipv6' : 'ipv4';
  if (version !== args.Type) {
    ctx.addIssue({
      code: 'custom',
      path: ['Type'],
      message: `is ${args.Type} but IP is an ${version} address`,
    });
  }
}

/** The collection path of a reserved IP type. */
const base = (type: IpType) => (type === 'ipv6' ? '/v2/reserved_ipv6' : '/v2/reserved_ips');

const ByoipUuid = uuid('Prefix id');

export const reservedIpTools = [
  defineTool({
    name: 'reserved-ip-reserve',
    family: 'networking',
    title: 'Reserve IP',
    description: 'Reserve a new IP.',
    details:
      'Reserves a new IPv4 or IPv6 address in a region, unassigned; assign it to a VM with reserved-ip-assign. An IPv4 address goes to ProjectID (project-list), else to the default project.',
    input: z
      .strictObject({ Region: regionSlug('Region slug'), Type, ProjectID: uuid('Project (IPv4)').optional() })
      .superRefine((args, context) => {
        if (args.Type === 'ipv6' && args.ProjectID !== undefined) {
          context.addIssue({
            code: 'custom',
            path: ['ProjectID'],
            message: 'applies to IPv4 addresses only',
          });
        }
      }),
    annotations: annotations.create,
    handler: (args, context) =>
      sendRequest<ReservedIpReserved>(
        args.Type === 'ipv6'
          ? { method: 'POST', path: base('ipv6'), body: { region_slug: 'Region' } }
          : { method: 'POST', path: base('ipv4'), body: { region: 'Region', project_id: 'ProjectID' } },
        args,
        context,
      ),
    result: returns<ReservedIpReserved>(),
  }),
  defineTool({
    name: 'reserved-ip-release',
    family: 'networking',
    title: 'Release reserved IP',
    description: 'Release a reserved IP.',
    details:
      'Gives a reserved IP back to the platform (unassigning it first if needed). It cannot be recovered.',
    input: z.strictObject({ IP, Type }).superRefine(sameVersion),
    annotations: annotations.destroy,
    handler: (args, context) =>
      sendRequest<{ ok: true }>({ method: 'DELETE', path: `${base(args.Type)}/{IP}` }, args, context),
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'reserved-ip-assign',
    family: 'networking',
    title: 'Assign reserved IP',
    description: 'Assign to a same-region VM.',
    details:
      'Points a reserved IP at a VM in the same region (moving it if it was assigned elsewhere). Returns the action; follow it with action-get.',
    input: z
      .strictObject({
        IP,
        VmID: z.number().int().positive().describe('VM id'),
        Type,
      })
      .superRefine(sameVersion),
    annotations: annotations.action,
    wait: { kind: 'action' },
    handler: (args, context) =>
      sendRequest<{ action: Action }>(
        {
          method: 'POST',
          path: `${base(args.Type)}/{IP}/actions`,
          body: { droplet_id: 'VmID' },
          fixed: { type: 'assign' },
        },
        args,
        context,
      ),
    result: returns<{ action: Action }>(),
  }),
  defineTool({
    name: 'reserved-ip-unassign',
    family: 'networking',
    title: 'Unassign reserved IP',
    description: 'Detach from its VM.',
    details: 'Detaches a reserved IP from its VM; the IP stays reserved. Returns the action.',
    input: z.strictObject({ IP, Type }).superRefine(sameVersion),
    annotations: annotations.destructive,
    wait: { kind: 'action' },
    handler: (args, context) =>
      sendRequest<{ action: Action }>(
        { method: 'POST', path: `${base(args.Type)}/{IP}/actions`, fixed: { type: 'unassign' } },
        args,
        context,
      ),
    result: returns<{ action: Action }>(),
  }),
  defineTool({
    name: 'reserved-ip-list',
    family: 'networking',
    title: 'List reserved IPs',
    description: 'List reserved IPs.',
    details: 'Lists the reserved IPs of one type (ipv4 or ipv6) with their region and VM. Paginated.',
    input: z.strictObject({ Type, ...page }),
    annotations: annotations.read,
    pages: pageQuery,
    handler: (args, context) =>
      sendRequest<ReservedIpList>({ method: 'GET', path: base(args.Type), query: pageQuery }, args, context),
    result: returns<ReservedIpList>(),
  }),
  defineTool({
    name: 'reserved-ip-get',
    family: 'networking',
    title: 'Get reserved IP',
    description: 'One reserved IP.',
    details:
      'Shows a reserved IP (IPv4 or IPv6, told apart by its form): region and the VM it is assigned to.',
    input: z.strictObject({ IP }),
    annotations: annotations.read,
    handler: (args, context) =>
      sendRequest<ReservedIpAnswer>(
        { method: 'GET', path: `${base(isIP(args.IP) === 6 ? 'ipv6' : 'ipv4')}/{IP}` },
        args,
        context,
      ),
    result: returns<ReservedIpAnswer>(),
  }),
] as const;

export const byoipTools = [
  defineTool({
    name: 'byoip-prefix-create',
    family: 'networking',
    title: 'Bring your own IP prefix',
    description: 'Bring your own IP prefix.',
    details:
      'Starts bringing an IP prefix you own to the platform. It is `pending` while validated, then `active`. The signature proves you control the prefix (from your RIR route object); the region is where the prefix is announced.',
    input: z.strictObject({
      Prefix: z
        .string()
        .trim()
        .max(LIMITS.short)
        .refine((value) => {
          const [address, bits] = value.split('/');
          return address !== undefined && isIP(address) !== 0 && bits !== undefined && /^\d{1,3}$/.test(bits);
        }, 'expected a CIDR block such as "203.0.113.0/24"')
        .describe('CIDR block'),
      Signature: z.string().trim().min(1).max(LIMITS.short).describe('RIR route signature'),
      Region: regionSlug('Region slug'),
    }),
    annotations: annotations.create,
    wait: { kind: 'byoip-prefix', idField: 'uuid' },
    request: {
      method: 'POST',
      path: '/v2/byoip_prefixes',
      body: { prefix: 'Prefix', signature: 'Signature', region: 'Region' },
    },
    result: returns<{ uuid: string; region: string; status: string }>(),
  }),
  defineTool({
    name: 'byoip-prefix-delete',
    family: 'networking',
    title: 'Delete BYOIP prefix',
    description: 'Delete a BYOIP prefix.',
    details: 'Stops using a BYOIP prefix on the platform.',
    input: z.strictObject({ UUID: ByoipUuid }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/byoip_prefixes/{UUID}', noResponseBody: true },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'byoip-prefix-get',
    family: 'networking',
    title: 'Get BYOIP prefix',
    description: 'One BYOIP prefix.',
    details: 'Shows a BYOIP prefix: its status and validations.',
    input: z.strictObject({ UUID: ByoipUuid }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/byoip_prefixes/{UUID}' },
    result: returns<{ byoip_prefix: ByoipPrefix }>(),
  }),
  defineTool({
    name: 'byoip-prefix-list',
    family: 'networking',
    title: 'List BYOIP prefixes',
    description: 'List BYOIP prefixes.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/byoip_prefixes', query: pageQuery },
    result: returns<ByoipPrefixList>(),
  }),
  defineTool({
    name: 'byoip-prefix-resources-get',
    family: 'networking',
    title: 'List BYOIP prefix resources',
    description: 'Prefix addresses in use.',
    details: 'Lists the addresses of a BYOIP prefix in use, and by which resource. Paginated.',
    input: z.strictObject({ UUID: ByoipUuid, ...page }),
    annotations: annotations.read,
    request: {
      method: 'GET',
      path: '/v2/byoip_prefixes/{UUID}/ips',
      query: pageQuery,
    },
    result: returns<ByoipPrefixResourceList>(),
  }),
] as const;
