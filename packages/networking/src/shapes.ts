/**
 * Argument shapes shared by the networking tools: ids, pages, the spec's network firewall rule and
 * forwarding rule structures (capitalised, as the spec names their fields) and how they go out on
 * the wire (the platform's snake_case fields).
 */
import { isIP } from 'node:net';
import { LIMITS, pageArgs, tagName, UUID_PATTERN, uuid } from '@cloudcall/core/internal';
import {
  FIREWALL_RULE_BASE_PROTOCOL,
  FORWARDING_RULE_ENTRY_PROTOCOL,
  FORWARDING_RULE_TARGET_PROTOCOL,
} from '@cloudcall/platform';
import { z } from 'zod';

/** Networking lists page by 20 (the spec's Limits table). */
export const page = pageArgs(20);

/** An IPv4 or IPv6 address, or a CIDR block of either. */
export function isAddressOrCidr(value: string): boolean {
  const [address, bits, extra] = value.split('/');
  if (extra !== undefined || address === undefined) return false;
  const version = isIP(address);
  if (version === 0) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (version === 4 ? 32 : 128);
}

/** An IPv4 CIDR block such as 10.10.0.0/20. */
export function isIpv4Cidr(value: string): boolean {
  const [address, bits] = value.split('/');
  return (
    address !== undefined &&
    bits !== undefined &&
    isIP(address) === 4 &&
    /^\d{1,2}$/.test(bits) &&
    Number(bits) <= 32
  );
}

/** A droplet (VM) id, as a number or text holding one; numeric on the wire either way. */
export const vmId = z
  .union([
    z.number().int().positive(),
    z
      .string()
      .max(32)
      .regex(/^\s*\d+\s*$/, 'expected a numeric VM id'),
  ])
  .transform((value) => (typeof value === 'number' ? value : Number.parseInt(value, 10)));

/** VmIDs typed "array of numbers" by the spec. */
export const vmIds = (description: string) =>
  z.array(z.number().int().positive()).min(1).describe(description);

const protocol = z.enum(FIREWALL_RULE_BASE_PROTOCOL).describe('Protocol: tcp, udp or icmp.');

/** "22", "8000-9000", "all" or "0" (all ports); icmp ignores ports. */
export const portRange = z
  .string()
  .trim()
  .max(LIMITS.short)
  .refine((value) => {
    if (value === 'all' || value === '0') return true;
    const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(value);
    if (!match) return false;
    const low = Number(match[1]);
    const high = match[2] === undefined ? low : Number(match[2]);
    return low >= 1 && high <= 65535 && low <= high;
  }, 'expected a port (1-65535), a range such as "8000-9000", or "all"')
  .describe('A single port such as "22", a range such as "8000-9000", or "all".');

const addresses = (what: string) =>
  z
    .array(
      z
        .string()
        .trim()
        .max(LIMITS.short)
        .refine(
          isAddressOrCidr,
          'expected an IP address or CIDR block, such as "203.0.113.7" or "0.0.0.0/0"',
        ),
    )
    .describe(`${what}: IP addresses or CIDR blocks, such as ["0.0.0.0/0", "::/0"].`);

/**
 * Beyond the spec's rule structure (addresses only): the other targets the platform takes, as
 * doctl's rule strings name them (`droplet_id:`, `tag:`, `load_balancer_uid:`, `kubernetes_id:`).
 */
const uuids = z.array(z.string().regex(UUID_PATTERN, 'expected a UUID')).min(1).optional();
const otherTargets = {
  VmIDs: z.array(z.number().int().positive()).min(1).optional().describe('VM ids'),
  Tags: z.array(tagName()).min(1).optional().describe('VM tags'),
  LoadBalancerIDs: uuids.describe('Load balancer ids'),
  KubernetesIDs: uuids.describe('Cluster ids'),
};

type Targets = {
  VmIDs?: number[] | undefined;
  Tags?: string[] | undefined;
  LoadBalancerIDs?: string[] | undefined;
  KubernetesIDs?: string[] | undefined;
};

/** A rule names at least one target: an address, a VM, a tag, a load balancer or a cluster. */
const someTarget =
  (field: 'Sources' | 'Destinations') => (rule: Targets & Record<string, unknown>, ctx: z.RefinementCtx) => {
    const named = [rule[field], rule.VmIDs, rule.Tags, rule.LoadBalancerIDs, rule.KubernetesIDs].some(
      (list) => Array.isArray(list) && list.length > 0,
    );
    if (!named)
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: 'expected at least one address, VM, tag, load balancer or Kubernetes cluster',
      });
  };

export const inboundRule = z
  .strictObject({
    Protocol: protocol,
    PortRange: portRange,
    Sources: addresses('Where traffic may come from'),
    ...otherTargets,
  })
  .superRefine(someTarget('Sources'));

export const outboundRule = z
  .strictObject({
    Protocol: protocol,
    PortRange: portRange,
    Destinations: addresses('Where traffic may go'),
    ...otherTargets,
  })
  .superRefine(someTarget('Destinations'));

export type InboundRule = z.output<typeof inboundRule>;
export type OutboundRule = z.output<typeof outboundRule>;

/** A rule's targets as the platform's `sources` / `destinations` object: only those named. */
function targetsWire(addresses: string[], rule: Targets) {
  const fields = {
    addresses,
    droplet_ids: rule.VmIDs,
    tags: rule.Tags,
    load_balancer_uids: rule.LoadBalancerIDs,
    kubernetes_ids: rule.KubernetesIDs,
  };
  return Object.fromEntries(
    Object.entries(fields).filter(([, list]) => list !== undefined && list.length > 0),
  );
}

/** A spec inbound rule as the platform's `inbound_rules` item. */
export const inboundWire = (rule: InboundRule) => ({
  protocol: rule.Protocol,
  ports: rule.PortRange,
  sources: targetsWire(rule.Sources, rule),
});

/** A spec outbound rule as the platform's `outbound_rules` item. */
export const outboundWire = (rule: OutboundRule) => ({
  protocol: rule.Protocol,
  ports: rule.PortRange,
  destinations: targetsWire(rule.Destinations, rule),
});

const port = (what: string) => z.number().int().min(1).max(65535).describe(what);

export const forwardingRule = z
  .strictObject({
    EntryProtocol: z
      .enum(FORWARDING_RULE_ENTRY_PROTOCOL)
      .describe('Protocol the load balancer listens with: http, https, http2, http3, tcp or udp.'),
    EntryPort: port('Port the load balancer listens on, such as 80.'),
    TargetProtocol: z
      .enum(FORWARDING_RULE_TARGET_PROTOCOL)
      .describe('Protocol used towards the VMs: http, https, http2, tcp or udp.'),
    TargetPort: port('Port on the VMs receiving the traffic, such as 8080.'),
    TlsPassthrough: z
      .boolean()
      .optional()
      .describe('Pass TLS through to the VMs unterminated (https entry only).'),
    // Beyond the spec's structure: without it an https rule that is not passed through has no
    // certificate to terminate TLS with.
    CertificateID: uuid(
      'Certificate that terminates TLS on an https, http2 or http3 entry (from certificate-list).',
    ).optional(),
  })
  .superRefine((rule, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (rule.TlsPassthrough && rule.EntryProtocol !== 'https')
      issue('TlsPassthrough', 'needs an https EntryProtocol');
    if (rule.CertificateID !== undefined) {
      if (!['https', 'http2', 'http3'].includes(rule.EntryProtocol))
        issue('CertificateID', 'needs an https, http2 or http3 EntryProtocol');
      if (rule.TlsPassthrough) issue('CertificateID', 'give CertificateID or TlsPassthrough, not both');
    }
  });

export type ForwardingRule = z.output<typeof forwardingRule>;

export const forwardingRules = (description: string) => z.array(forwardingRule).min(1).describe(description);

/** A spec forwarding rule as the platform's `forwarding_rules` item. */
export const forwardingWire = (rule: ForwardingRule) => ({
  entry_protocol: rule.EntryProtocol,
  entry_port: rule.EntryPort,
  target_protocol: rule.TargetProtocol,
  target_port: rule.TargetPort,
  ...(rule.TlsPassthrough === undefined ? {} : { tls_passthrough: rule.TlsPassthrough }),
  ...(rule.CertificateID === undefined ? {} : { certificate_id: rule.CertificateID }),
});
