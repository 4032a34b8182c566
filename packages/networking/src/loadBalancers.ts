/**
 * Load balancers: REGIONAL (HTTP/TCP/UDP, in a region), REGIONAL_NETWORK (TCP/UDP, in a region)
 * and GLOBAL (in front of regional balancers or VMs, with a CDN). The type decides which
 * arguments are required; those rules are checked before any request.
 */
import { annotations, defineTool, returns } from '@cloudcall/core';
import { LIMITS, pageQuery, REGION_SLUG, regionSlug, tagName, uuid } from '@cloudcall/core/internal';
import {
  GLB_SETTINGS_TARGET_PROTOCOL,
  LOAD_BALANCER_BASE_NETWORK,
  LOAD_BALANCER_BASE_NETWORK_STACK,
  LOAD_BALANCER_BASE_TYPE,
} from '@cloudcall/platform';
import { z } from 'zod';
import { forwardingRules, forwardingWire, page, vmId, vmIds } from './shapes.js';
import type { LoadBalancer, LoadBalancerList } from './types.js';

const LoadBalancerId = uuid('LB id');

const regionPriorities = z
  .record(z.string().regex(REGION_SLUG, 'expected a region slug such as "nyc1"'), z.number().int().min(1))
  .describe('Region slug -> priority (1 is highest), such as {"nyc1": 1, "ams3": 2}.');
const failoverThreshold = z
  .number()
  .int()
  .min(1)
  .max(99)
  .describe('Percentage of failed targets at which a region is failed over.');
const targetProtocol = z.enum(GLB_SETTINGS_TARGET_PROTOCOL).describe('Protocol towards the targets.');
const targetPort = z.number().int().min(1).max(65535).describe('Port on the targets, such as 80.');
const cdnEnabled = z.boolean().describe('Cache responses at the edge (CDN).');

/**
 * Each setting of a GLOBAL balancer by its name in the spec's argument style, as every other
 * argument of the tool is named, and by the platform's wire name, which the tool accepted first.
 * `required`: one of the two names must be given.
 */
const GLB_KEYS = [
  ['TargetProtocol', 'target_protocol', true],
  ['TargetPort', 'target_port', true],
  ['CDN', 'cdn', false],
  ['RegionPriorities', 'region_priorities', false],
  ['FailoverThreshold', 'failover_threshold', false],
] as const;

/** Both names of one setting given at once: ambiguous, so refused at the spec-style name. */
function oneNameEach(
  value: Record<string, unknown>,
  ctx: z.RefinementCtx,
  keys: readonly (readonly [string, string, boolean])[],
): void {
  for (const [name, wire, required] of keys) {
    if (value[name] !== undefined && value[wire] !== undefined) {
      ctx.addIssue({ code: 'custom', path: [name], message: `give ${name} or ${wire}, not both` });
    } else if (required && value[name] === undefined && value[wire] === undefined) {
      ctx.addIssue({ code: 'custom', path: [name], message: `is required (or ${wire})` });
    }
  }
}

const cdnSettings = z
  .strictObject({ IsEnabled: cdnEnabled.optional(), is_enabled: cdnEnabled.optional() })
  .superRefine((value, ctx) => oneNameEach(value, ctx, [['IsEnabled', 'is_enabled', true]]))
  .transform((value) => ({ is_enabled: (value.IsEnabled ?? value.is_enabled) as boolean }))
  .describe('CDN settings: {IsEnabled}.');

/** Settings of a GLOBAL balancer, in either naming; always sent with the platform's names. */
const glbSettings = z
  .strictObject({
    TargetProtocol: targetProtocol.optional(),
    TargetPort: targetPort.optional(),
    CDN: cdnSettings.optional(),
    RegionPriorities: regionPriorities.optional(),
    FailoverThreshold: failoverThreshold.optional(),
    target_protocol: targetProtocol.optional(),
    target_port: targetPort.optional(),
    cdn: cdnSettings.optional(),
    region_priorities: regionPriorities.optional(),
    failover_threshold: failoverThreshold.optional(),
  })
  .superRefine((value, ctx) => oneNameEach(value, ctx, GLB_KEYS))
  .transform((value) => {
    const cdn = value.CDN ?? value.cdn;
    const priorities = value.RegionPriorities ?? value.region_priorities;
    const threshold = value.FailoverThreshold ?? value.failover_threshold;
    return {
      target_protocol: (value.TargetProtocol ?? value.target_protocol) as z.output<typeof targetProtocol>,
      target_port: (value.TargetPort ?? value.target_port) as number,
      ...(cdn === undefined ? {} : { cdn }),
      ...(priorities === undefined ? {} : { region_priorities: priorities }),
      ...(threshold === undefined ? {} : { failover_threshold: threshold }),
    };
  })
  .describe('Needed for GLOBAL.');

/** What the short argument descriptions leave out, for the CLI's help. */
const ARGUMENT_NOTES =
  'VmIDs (numbers or numeric text) and Tag are alternatives. Network INTERNAL keeps the balancer inside its VPC; NetworkStack DUALSTACK gives it IPv4 and IPv6; SizeUnit is its number of nodes (capacity). GLBSettings: {TargetProtocol, TargetPort, CDN: {IsEnabled}, RegionPriorities: {"nyc1": 1, ...} (1 is highest), FailoverThreshold (percent of failed targets)}; the platform\'s names (target_protocol, cdn: {is_enabled}, ...) are accepted too, one name per setting.';

/** The fields load-balancer-create and -update share. */
const fields = {
  Name: z
    .string()
    .trim()
    .max(LIMITS.name)
    .regex(/^[a-zA-Z0-9][a-zA-Z0-9.-]*$/, 'expected letters, digits, "." and "-"')
    .describe('LB name'),
  Region: regionSlug('Needed unless GLOBAL').optional(),
  VmIDs: z.array(vmId).min(1).optional().describe('VM ids, or Tag'),
  Tag: tagName().optional().describe('VM tag'),
  ForwardingRules: forwardingRules('Needed unless GLOBAL.').optional(),
  Type: z.enum(LOAD_BALANCER_BASE_TYPE).default('REGIONAL').describe('LB type'),
  Network: z.enum(LOAD_BALANCER_BASE_NETWORK).default('EXTERNAL').describe('Public or VPC'),
  SizeUnit: z.number().int().min(1).max(100).optional().describe('Node count'),
  NetworkStack: z.enum(LOAD_BALANCER_BASE_NETWORK_STACK).optional().describe('IP stack'),
  ProjectID: uuid('Project id').optional(),
  TargetLoadBalancerIDs: z.array(LoadBalancerId).min(1).optional().describe('GLOBAL only'),
  GLBSettings: glbSettings.optional(),
};

type LbArgs = {
  Name: string;
  Region?: string | undefined;
  VmIDs?: number[] | undefined;
  Tag?: string | undefined;
  ForwardingRules?: z.output<ReturnType<typeof forwardingRules>> | undefined;
  Type: (typeof LOAD_BALANCER_BASE_TYPE)[number];
  Network: (typeof LOAD_BALANCER_BASE_NETWORK)[number];
  SizeUnit?: number | undefined;
  NetworkStack?: (typeof LOAD_BALANCER_BASE_NETWORK_STACK)[number] | undefined;
  ProjectID?: string | undefined;
  TargetLoadBalancerIDs?: string[] | undefined;
  GLBSettings?: z.output<typeof glbSettings> | undefined;
};

/** The spec's rules on which fields each type takes. `creating`: ForwardingRules are required then. */
function typeRules(creating: boolean) {
  return (args: LbArgs, ctx: z.RefinementCtx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (args.VmIDs && args.Tag) issue('Tag', 'give VmIDs or Tag, not both');
    if (args.Type === 'GLOBAL') {
      if (!args.GLBSettings) issue('GLBSettings', 'is required for a GLOBAL load balancer');
      return;
    }
    if (!args.Region) issue('Region', `is required for a ${args.Type} load balancer`);
    if (creating && !args.ForwardingRules)
      issue('ForwardingRules', `is required for a ${args.Type} load balancer`);
    if (args.GLBSettings) issue('GLBSettings', 'applies to GLOBAL load balancers only');
    if (args.TargetLoadBalancerIDs) issue('TargetLoadBalancerIDs', 'applies to GLOBAL load balancers only');
    if (args.Type === 'REGIONAL_NETWORK') {
      (args.ForwardingRules ?? []).forEach((rule, index) => {
        if (!['tcp', 'udp'].includes(rule.EntryProtocol) || !['tcp', 'udp'].includes(rule.TargetProtocol)) {
          ctx.addIssue({
            code: 'custom',
            path: ['ForwardingRules', index],
            message: 'a REGIONAL_NETWORK load balancer forwards tcp and udp only',
          });
        }
      });
    }
  };
}

/** The body of create and update: unset arguments stay off the wire. */
function lbBody(args: LbArgs): Record<string, unknown> {
  return {
    name: args.Name,
    type: args.Type,
    region: args.Region,
    network: args.Network,
    network_stack: args.NetworkStack,
    size_unit: args.SizeUnit,
    project_id: args.ProjectID,
    forwarding_rules: args.ForwardingRules?.map(forwardingWire),
    droplet_ids: args.VmIDs,
    tag: args.Tag,
    target_load_balancer_ids: args.Type === 'GLOBAL' ? args.TargetLoadBalancerIDs : undefined,
    glb_settings: args.GLBSettings,
  };
}

/** add/remove VMs and forwarding rules: one row per tool. */
const memberTools = [
  [
    'load-balancer-add-vms',
    'Add VMs to load balancer',
    'POST',
    'droplets',
    'Add target VMs.',
    "Adds VMs (in the balancer's region) to the balancer's targets.",
  ],
  [
    'load-balancer-remove-vms',
    'Remove VMs from load balancer',
    'DELETE',
    'droplets',
    'Remove target VMs.',
    'Stops sending traffic to these VMs.',
  ],
  [
    'load-balancer-add-forwarding-rules',
    'Add forwarding rules',
    'POST',
    'forwarding_rules',
    'Append rules.',
    'Adds forwarding rules (entry protocol/port to target protocol/port) to the balancer.',
  ],
  [
    'load-balancer-remove-forwarding-rules',
    'Remove forwarding rules',
    'DELETE',
    'forwarding_rules',
    'Remove rules; one must stay.',
    'Removes forwarding rules from the balancer; each must match an existing rule. A balancer keeps at least one.',
  ],
] as const;

function memberTool(row: (typeof memberTools)[number]) {
  const [name, title, method, set, description, details] = row;
  const base = {
    name,
    family: 'networking' as const,
    title,
    description,
    details,
    annotations: method === 'POST' ? annotations.update : annotations.destroy,
  };
  const path = `/v2/load_balancers/{LoadBalancerID}/${set}`;
  if (set === 'droplets') {
    return defineTool({
      ...base,
      input: z.strictObject({
        LoadBalancerID: LoadBalancerId,
        VmIDs: vmIds('VM ids'),
      }),
      request: { method, path, body: { droplet_ids: 'VmIDs' } },
      result: returns<{ ok: true }>(),
    });
  }
  return defineTool({
    ...base,
    input: z.strictObject({
      LoadBalancerID: LoadBalancerId,
      ForwardingRules: forwardingRules('Rules.'),
    }),
    request: {
      method,
      path,
      body: (args) => ({ forwarding_rules: args.ForwardingRules.map(forwardingWire) }),
    },
    result: returns<{ ok: true }>(),
  });
}

export const loadBalancerTools = [
  defineTool({
    name: 'load-balancer-create',
    family: 'networking',
    title: 'Create load balancer',
    description: 'Create a load balancer.',
    details: `Creates a load balancer. REGIONAL and REGIONAL_NETWORK need Region and ForwardingRules; GLOBAL needs GLBSettings and may front regional balancers (TargetLoadBalancerIDs). It starts \`new\` and becomes \`active\` with its IP. ${ARGUMENT_NOTES}`,
    input: z.strictObject(fields).superRefine(typeRules(true)),
    annotations: annotations.create,
    wait: { kind: 'load-balancer' },
    request: { method: 'POST', path: '/v2/load_balancers', body: lbBody },
    result: returns<{ load_balancer: LoadBalancer }>(),
  }),
  defineTool({
    name: 'load-balancer-update',
    family: 'networking',
    title: 'Update load balancer',
    description: 'Update an LB, replacing all settings: omitted VmIDs/Tag dropped; pass its Type.',
    details: `Replaces a load balancer's settings with the given ones (a full replacement: VMs or tag not given are dropped; forwarding rules are kept when not given). Type defaults to REGIONAL: pass the balancer's own type; it cannot change. ${ARGUMENT_NOTES}`,
    input: z
      .strictObject({
        LoadBalancerID: LoadBalancerId,
        ...fields,
        // An update keeps the balancer's rules when none are given.
        ForwardingRules: fields.ForwardingRules.describe('Kept if omitted.'),
      })
      .superRefine(typeRules(false)),
    annotations: annotations.destructive,
    request: { method: 'PUT', path: '/v2/load_balancers/{LoadBalancerID}', body: lbBody },
    result: returns<{ load_balancer: LoadBalancer }>(),
  }),
  defineTool({
    name: 'load-balancer-delete',
    family: 'networking',
    title: 'Delete load balancer',
    description: 'Delete an LB.',
    details: 'Deletes a load balancer; its IP is released. The VMs behind it are not touched.',
    input: z.strictObject({ LoadBalancerID: LoadBalancerId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/load_balancers/{LoadBalancerID}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'load-balancer-delete-cache',
    family: 'networking',
    title: 'Clear load balancer CDN cache',
    description: 'Clear a GLOBAL CDN cache.',
    details: 'Clears the CDN cache of a GLOBAL load balancer.',
    input: z.strictObject({ LoadBalancerID: LoadBalancerId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/load_balancers/{LoadBalancerID}/cache' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'load-balancer-get',
    family: 'networking',
    title: 'Get load balancer',
    description: 'One load balancer.',
    details: 'Shows a load balancer: status, IP, forwarding rules, VMs and settings.',
    input: z.strictObject({ LoadBalancerID: LoadBalancerId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/load_balancers/{LoadBalancerID}' },
    result: returns<{ load_balancer: LoadBalancer }>(),
  }),
  defineTool({
    name: 'load-balancer-list',
    family: 'networking',
    title: 'List load balancers',
    description: 'List load balancers.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/load_balancers', query: pageQuery },
    result: returns<LoadBalancerList>(),
  }),
  ...memberTools.map(memberTool),
] as const;
