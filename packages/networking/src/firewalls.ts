/**
 * Cloud firewalls. `firewall-create` builds one inbound and one outbound rule from its flat
 * arguments; the add/remove tools change one set of a firewall each (a table, one row per tool).
 */
import { annotations, defineTool, returns, type ToolAnnotations } from '@cloudcall/core';
import { commaList, LIMITS, pageQuery, tagName, uuid } from '@cloudcall/core/internal';
import { FIREWALL_RULE_BASE_PROTOCOL } from '@cloudcall/platform';
import { z } from 'zod';
import {
  inboundRule,
  inboundWire,
  isAddressOrCidr,
  outboundRule,
  outboundWire,
  page,
  portRange,
  vmIds,
} from './shapes.js';
import type { Firewall, FirewallList } from './types.js';

const FirewallId = uuid('Firewall id');

/** Addresses or CIDR blocks, comma-separated (as the spec types them). */
const AddressList = commaList('CIDRs, comma-separated').pipe(
  z
    .array(z.string().refine(isAddressOrCidr, 'expected IP addresses or CIDR blocks, such as "0.0.0.0/0"'))
    .min(1, 'expected at least one IP address or CIDR block'),
);

const Protocol = z.enum(FIREWALL_RULE_BASE_PROTOCOL).describe('Rule protocol');

const Tags = z.array(tagName()).min(1).describe('VM tags');

/** The add/remove tools: one row per tool. */
const setTools = [
  [
    'firewall-add-tags',
    'Add tags to firewall',
    'POST',
    'tags',
    'Apply to tagged VMs.',
    'Applies the firewall to the VMs carrying these tags.',
  ],
  [
    'firewall-remove-tags',
    'Remove tags from firewall',
    'DELETE',
    'tags',
    'Unapply from tagged VMs.',
    'Stops applying the firewall through these tags.',
  ],
  [
    'firewall-add-vms',
    'Add VMs to firewall',
    'POST',
    'vms',
    'Apply to VMs.',
    'Applies the firewall to these VMs.',
  ],
  [
    'firewall-remove-vms',
    'Remove VMs from firewall',
    'DELETE',
    'vms',
    'Unapply from VMs.',
    'Stops applying the firewall to these VMs.',
  ],
  [
    'firewall-add-rules',
    'Add firewall rules',
    'POST',
    'rules',
    'Append rules.',
    'Adds inbound and/or outbound rules to the firewall; give InboundRules, OutboundRules or both.',
  ],
  [
    'firewall-remove-rules',
    'Remove firewall rules',
    'DELETE',
    'rules',
    'Remove exact-match rules.',
    'Removes inbound and/or outbound rules from the firewall; each must match an existing rule exactly. Give InboundRules, OutboundRules or both.',
  ],
] as const;

/** Adding is idempotent; removing rules, tags or VMs opens or changes access: destructive by the issue's rule. */
function annotationsFor(method: 'POST' | 'DELETE'): ToolAnnotations {
  return method === 'POST' ? annotations.update : annotations.destroy;
}

const rulesInput = z
  .strictObject({
    ID: FirewallId,
    InboundRules: z.array(inboundRule).min(1).optional().describe('Inbound rules.'),
    OutboundRules: z.array(outboundRule).min(1).optional().describe('Outbound rules.'),
  })
  .superRefine((args, ctx) => {
    if (!args.InboundRules && !args.OutboundRules) {
      ctx.addIssue({
        code: 'custom',
        path: ['InboundRules'],
        message: 'give InboundRules, OutboundRules or both',
      });
    }
  });

function setTool(row: (typeof setTools)[number]) {
  const [name, title, method, set, description, details] = row;
  const path = `/v2/firewalls/{ID}/${set === 'vms' ? 'droplets' : set}`;
  const base = { name, family: 'networking' as const, title, details, annotations: annotationsFor(method) };
  if (set === 'tags') {
    return defineTool({
      ...base,
      description,
      input: z.strictObject({ ID: FirewallId, Tags }),
      request: { method, path, body: { tags: 'Tags' } },
      result: returns<{ ok: true }>(),
    });
  }
  if (set === 'vms') {
    return defineTool({
      ...base,
      description,
      input: z.strictObject({ ID: FirewallId, VmIDs: vmIds('VM ids') }),
      request: { method, path, body: { droplet_ids: 'VmIDs' } },
      result: returns<{ ok: true }>(),
    });
  }
  return defineTool({
    ...base,
    description,
    input: rulesInput,
    request: {
      method,
      path,
      body: (args) => ({
        inbound_rules: args.InboundRules?.map(inboundWire),
        outbound_rules: args.OutboundRules?.map(outboundWire),
      }),
    },
    result: returns<{ ok: true }>(),
  });
}

export const firewallTools = [
  defineTool({
    name: 'firewall-create',
    family: 'networking',
    title: 'Create firewall',
    description: 'Create a firewall; one rule each way.',
    details:
      'Creates a firewall with one inbound and one outbound rule (more in InboundRules, OutboundRules), applied to the given VMs and to VMs with the given tags. Port ranges are a port ("22"), a range ("8000-9000") or "all"; sources and destinations are IP addresses or CIDR blocks such as "0.0.0.0/0", separated by commas.',
    input: z.strictObject({
      Name: z
        .string()
        .trim()
        .max(LIMITS.name)
        .regex(
          /^[a-zA-Z0-9][a-zA-Z0-9.-]+$/,
          'expected letters, digits, "." and "-", starting with a letter or digit',
        )
        .describe('Firewall name'),
      InboundProtocol: Protocol,
      InboundPortRange: portRange.describe('22, 80-90 or all'),
      InboundSource: AddressList,
      OutboundProtocol: Protocol,
      OutboundPortRange: portRange.describe('22, 80-90 or all'),
      OutboundDestination: AddressList,
      VmIDs: z.array(z.number().int().positive()).optional().describe('VM ids'),
      Tags: z.array(tagName()).optional().describe('VM tags'),
      // Beyond the spec: more rules at once (doctl's several rules), after the flat ones.
      InboundRules: z.array(inboundRule).min(1).optional().describe('More rules.'),
      OutboundRules: z.array(outboundRule).min(1).optional().describe('More rules.'),
    }),
    annotations: annotations.create,
    request: {
      method: 'POST',
      path: '/v2/firewalls',
      body: (args) => ({
        name: args.Name,
        inbound_rules: [
          {
            protocol: args.InboundProtocol,
            ports: args.InboundPortRange,
            sources: { addresses: args.InboundSource },
          },
          ...(args.InboundRules ?? []).map(inboundWire),
        ],
        outbound_rules: [
          {
            protocol: args.OutboundProtocol,
            ports: args.OutboundPortRange,
            destinations: { addresses: args.OutboundDestination },
          },
          ...(args.OutboundRules ?? []).map(outboundWire),
        ],
        droplet_ids: args.VmIDs,
        tags: args.Tags,
      }),
    },
    result: returns<{ firewall: Firewall }>(),
  }),
  defineTool({
    name: 'firewall-delete',
    family: 'networking',
    title: 'Delete firewall',
    description: 'Delete a firewall.',
    details: 'Deletes a firewall; the VMs it protected are no longer filtered by it.',
    input: z.strictObject({ ID: FirewallId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/firewalls/{ID}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'firewall-get',
    family: 'networking',
    title: 'Get firewall',
    description: 'One firewall.',
    details: 'Shows a firewall: rules, VMs, tags and status.',
    input: z.strictObject({ ID: FirewallId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/firewalls/{ID}' },
    result: returns<{ firewall: Firewall }>(),
  }),
  defineTool({
    name: 'firewall-list',
    family: 'networking',
    title: 'List firewalls',
    description: 'List firewalls.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/firewalls', query: pageQuery },
    result: returns<FirewallList>(),
  }),
  ...setTools.map(setTool),
] as const;
