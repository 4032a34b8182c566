/**
 * doctl's habits, as aliases over the tools' own arguments: its flag names (`--image`,
 * `--tag-names`, `--record-type`...), its rule strings for firewalls and load balancers, and the
 * arguments a doctl user never types because doctl works them out (a reserved IP's type from its
 * address, a database's engine version). Tables, read by tool-flags.ts for any tool with the
 * argument named: no command has code of its own.
 */
import type { ToolContext } from '@cloudcall/core';
import { FlagError, type FlagSpec } from './flags.js';

/** What the tables read of a tool: its name. */
type NamedTool = { name: string };

/**
 * doctl's command words, as cloudcall's: its resources (`droplet list` is `vm list`) and the verbs
 * it names differently (`reserved-ip create` is `reserved-ip reserve`). Read before the words are
 * joined into a tool's name, so `droplet-action power-off 123` reaches `power-off-vm`.
 */
export const DOCTL_RESOURCES: Readonly<Record<string, string>> = {
  droplet: 'vm',
  'droplet-action': 'vm',
  'ssh-key': 'key',
  'reserved-ip-action': 'reserved-ip',
  databases: 'db-cluster',
};

export const DOCTL_VERBS: Readonly<Record<string, string>> = {
  'reserved-ip create': 'reserve',
  'reserved-ip delete': 'release',
};

/** `words` with doctl's resource and verb at `at` spelled as cloudcall's. */
export function doctlWords(words: readonly string[], at: number): string[] {
  const resource = DOCTL_RESOURCES[words[at] ?? ''];
  if (resource === undefined && !DOCTL_VERBS[`${words[at]} ${words[at + 1]}`]) return [...words];
  const out = [...words];
  if (resource !== undefined) out[at] = resource;
  const verb = DOCTL_VERBS[`${out[at]} ${out[at + 1]}`];
  if (verb !== undefined) out[at + 1] = verb;
  return out;
}

/** A doctl flag that fills one of a tool's arguments. */
export interface FlagAlias {
  /** The flag as doctl spells it, without `--`. */
  flag: string;
  /** The argument it fills, on every tool that has it (unless `tools` narrows it). */
  argument: string;
  tools?: readonly string[];
  /** How doctl's text reads, where it is not the argument's own form (rule strings). */
  read?: (text: string, argument: string) => unknown;
}

const RECORD_TOOLS = ['domain-record-create', 'domain-record-edit'];
const USER_TOOLS = [
  'db-cluster-get-user',
  'db-cluster-delete-user',
  'db-cluster-update-user',
  'db-cluster-reset-user-auth',
];

export const FLAG_ALIASES: readonly FlagAlias[] = [
  // doctl compute droplet create
  { flag: 'image', argument: 'ImageID' },
  { flag: 'tag-names', argument: 'Tags' },
  { flag: 'tag-name', argument: 'Tag' },
  { flag: 'droplet-ids', argument: 'VmIDs' },
  { flag: 'droplet-id', argument: 'VmID' },
  { flag: 'enable-backups', argument: 'Backup' },
  { flag: 'enable-monitoring', argument: 'Monitoring' },
  { flag: 'enable-ipv6', argument: 'IPv6' },
  { flag: 'vpc-uuid', argument: 'VpcID' },
  // doctl compute droplet-action snapshot
  { flag: 'snapshot-name', argument: 'Name', tools: ['snapshot-vm'] },
  // doctl compute domain records create|update
  { flag: 'record-type', argument: 'Type', tools: RECORD_TOOLS },
  { flag: 'record-name', argument: 'Name', tools: RECORD_TOOLS },
  { flag: 'record-data', argument: 'Data', tools: RECORD_TOOLS },
  { flag: 'record-ttl', argument: 'TTL', tools: RECORD_TOOLS },
  // doctl compute firewall create|add-rules|remove-rules, load-balancer create|add-forwarding-rules
  {
    flag: 'inbound-rules',
    argument: 'InboundRules',
    read: (text, argument) => firewallRules(text, argument, 'in'),
  },
  {
    flag: 'outbound-rules',
    argument: 'OutboundRules',
    read: (text, argument) => firewallRules(text, argument, 'out'),
  },
  { flag: 'forwarding-rules', argument: 'ForwardingRules', read: forwardingRules },
  // One spelling of a database user everywhere: --user, as the user tools take it, and --name, as
  // create-user takes it, on each.
  { flag: 'user', argument: 'name', tools: ['db-cluster-create-user'] },
  { flag: 'name', argument: 'user', tools: USER_TOOLS },
];

/** The aliases that apply to a tool with these flags: its argument exists, the spelling is free. */
export function aliasesFor(
  tool: NamedTool,
  flags: readonly FlagSpec[],
): (FlagAlias & { target: FlagSpec })[] {
  return FLAG_ALIASES.flatMap((alias) => {
    if (alias.tools && !alias.tools.includes(tool.name)) return [];
    const target = flags.find((flag) => flag.name === alias.argument);
    return target ? [{ ...alias, target }] : [];
  });
}

/** `key:value,key:value` pairs of one doctl rule. */
function pairs(rule: string, argument: string): [string, string][] {
  return rule.split(',').map((pair) => {
    const at = pair.indexOf(':');
    if (at <= 0) {
      throw new FlagError(
        argument,
        `expected key:value pairs such as protocol:tcp, got ${JSON.stringify(pair)}`,
      );
    }
    return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
  });
}

/** doctl's rules: separated by spaces (a JSON array is the tool's own form, read as such). */
function rulesOf(text: string): string[] {
  return text.trim().split(/\s+/).filter(Boolean);
}

/**
 * doctl's firewall rule strings: `protocol:tcp,ports:22,address:0.0.0.0/0 protocol:icmp,...`, each
 * rule's `address`, `droplet_id`, `tag`, `load_balancer_uid` and `kubernetes_id` given any number
 * of times, as the tools' rule objects.
 */
export function firewallRules(text: string, argument: string, way: 'in' | 'out'): unknown {
  if (text.trim().startsWith('[')) return undefined;
  return rulesOf(text).map((rule) => {
    const out: Record<string, unknown> = {};
    const targets: Record<string, unknown[]> = {};
    for (const [key, value] of pairs(rule, argument)) {
      const field = SOURCE_KEYS[key];
      if (field) {
        const item = field === 'VmIDs' && /^\d+$/.test(value) ? Number(value) : value;
        targets[field] = [...(targets[field] ?? []), item];
      } else if (key === 'protocol') out.Protocol = value;
      else if (key === 'ports') out.PortRange = value === '0' ? 'all' : value;
      else {
        throw new FlagError(
          argument,
          `unknown key ${JSON.stringify(key)} in a rule; doctl's keys are protocol, ports, ${Object.keys(SOURCE_KEYS).join(', ')}`,
        );
      }
    }
    // doctl's ICMP rules have no ports; the tools' rules always do.
    if (out.Protocol === 'icmp' && out.PortRange === undefined) out.PortRange = 'all';
    // The addresses are the tools' Sources / Destinations; other kinds of target keep their names.
    const { addresses, ...others } = targets;
    out[way === 'in' ? 'Sources' : 'Destinations'] = addresses ?? [];
    return { ...out, ...others };
  });
}

const SOURCE_KEYS: Record<string, string> = {
  address: 'addresses',
  droplet_id: 'VmIDs',
  tag: 'Tags',
  load_balancer_uid: 'LoadBalancerIDs',
  kubernetes_id: 'KubernetesIDs',
};

const FORWARDING_KEYS: Record<string, string> = {
  entry_protocol: 'EntryProtocol',
  entry_port: 'EntryPort',
  target_protocol: 'TargetProtocol',
  target_port: 'TargetPort',
  certificate_id: 'CertificateID',
  tls_passthrough: 'TlsPassthrough',
};

/**
 * doctl's forwarding rules: `entry_protocol:http,entry_port:80,target_protocol:http,target_port:80`,
 * rules separated by spaces, as the tools' rule objects.
 */
export function forwardingRules(text: string, argument: string): unknown {
  if (text.trim().startsWith('[')) return undefined;
  return rulesOf(text).map((rule) => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of pairs(rule, argument)) {
      const field = FORWARDING_KEYS[key];
      if (!field) {
        throw new FlagError(
          argument,
          `unknown key ${JSON.stringify(key)} in a forwarding rule; doctl's keys are ${Object.keys(FORWARDING_KEYS).join(', ')}`,
        );
      }
      out[field] =
        /Port$/.test(field) && /^\d+$/.test(value)
          ? Number(value)
          : field === 'TlsPassthrough'
            ? value === 'true'
            : value;
    }
    return out;
  });
}

/**
 * An argument the CLI fills when it is not given, as doctl does, where the tool (and so the MCP
 * server) takes it as the spec says: required.
 */
export interface CliDefault {
  argument: string;
  /** What the default is, for help. */
  says: string;
  /** Whether a tool's flags call for it. */
  applies: (tool: NamedTool, flags: readonly FlagSpec[]) => boolean;
  /** A value that passes validation, for checking the other arguments before any request. */
  standIn?: unknown;
  value: (args: Record<string, unknown>, lookup: DefaultLookup) => unknown;
}

/** Runs a read-only tool for a default that the platform knows (a database engine's versions). */
export type DefaultLookup = (
  tool: string,
  args: Record<string, unknown>,
  context?: ToolContext,
) => Promise<unknown>;

const hasFlag = (flags: readonly FlagSpec[], name: string) => flags.some((flag) => flag.name === name);

export const CLI_DEFAULTS: readonly CliDefault[] = [
  {
    // reserved-ip-assign 203.0.113.7 --vm-id web-1: the address says which family it is.
    argument: 'Type',
    says: 'from the address (ipv6 if it has a colon), else ipv4, as doctl',
    applies: (_tool, flags) =>
      flags.some((flag) => flag.name === 'Type' && flag.choices?.join() === 'ipv4,ipv6'),
    // node:net is loaded by the one command that needs it, not by every start.
    value: async (args) =>
      typeof args.IP === 'string' && (await import('node:net')).isIP(args.IP) === 6 ? 'ipv6' : 'ipv4',
  },
  {
    // db-cluster-create without --version: the newest version the platform offers for the engine.
    argument: 'version',
    says: 'the newest version db-cluster-list-options offers for the engine',
    applies: (tool, flags) => tool.name === 'db-cluster-create' && hasFlag(flags, 'version'),
    standIn: '1',
    value: async (args, lookup) => {
      const answer = (await lookup('db-cluster-list-options', {})) as {
        options?: Record<string, { versions?: string[] }>;
      };
      const versions = answer.options?.[String(args.engine)]?.versions ?? [];
      const newest = [...versions].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1);
      if (newest === undefined) {
        throw new FlagError(
          'version',
          `the platform lists no versions of ${String(args.engine)}; give --version`,
        );
      }
      return newest;
    },
  },
];

/**
 * A tool the CLI runs instead when an argument the spec requires is left out, where doctl lets it
 * be: `domain create example.com` adds the domain with no records. The tool keeps its argument
 * required (as the MCP server lists it); the command just does not ask for it.
 */
export interface CliSubstitute {
  tool: string;
  argument: string;
  /** The tool run when the argument is not given. */
  use: string;
  /** What leaving it out does, for help. */
  says: string;
}

export const CLI_SUBSTITUTES: readonly CliSubstitute[] = [
  {
    tool: 'domain-create',
    argument: 'IPAddress',
    use: 'domain-create-bare',
    says: 'leave it out to add the domain with no records (domain-create-bare), as doctl',
  },
];

/** The substitutes of a tool, by the argument whose absence calls for them. */
export function substitutesFor(tool: NamedTool): CliSubstitute[] {
  return CLI_SUBSTITUTES.filter((entry) => entry.tool === tool.name);
}

/** The defaults that apply to a tool. */
export function defaultsFor(tool: NamedTool, flags: readonly FlagSpec[]): CliDefault[] {
  return CLI_DEFAULTS.filter((entry) => entry.applies(tool, flags));
}

/**
 * doctl's `firewall create --inbound-rules ... --outbound-rules ...` on a tool whose spec
 * arguments take one rule each way as flat arguments (firewall-create): the first rule of each
 * way that names addresses only fills them, the others stay in the rule list (the tool's extra
 * rules).
 */
export const FLAT_RULES: readonly { list: string; flat: Record<string, string> }[] = [
  {
    list: 'InboundRules',
    flat: { Protocol: 'InboundProtocol', PortRange: 'InboundPortRange', Sources: 'InboundSource' },
  },
  {
    list: 'OutboundRules',
    flat: {
      Protocol: 'OutboundProtocol',
      PortRange: 'OutboundPortRange',
      Destinations: 'OutboundDestination',
    },
  },
];

/** Moves the first rule of each list into the flat arguments the tool has, when none is given. */
export function liftFirstRules(args: Record<string, unknown>, flags: readonly FlagSpec[]): void {
  for (const { list, flat } of FLAT_RULES) {
    const rules = args[list];
    const targets = Object.values(flat);
    if (!Array.isArray(rules) || !targets.every((name) => hasFlag(flags, name))) continue;
    if (targets.some((name) => args[name] !== undefined)) continue;
    // The first rule the flat arguments can hold: addresses only.
    const at = (rules as unknown[]).findIndex(
      (rule) =>
        typeof rule === 'object' &&
        rule !== null &&
        Object.keys(rule).every((key) => key in flat) &&
        Object.keys(flat).every((field) => (rule as Record<string, unknown>)[field] !== undefined) &&
        Object.values(rule).every((value) => !Array.isArray(value) || value.length > 0),
    );
    if (at === -1) continue;
    const first = rules[at] as Record<string, unknown>;
    for (const [field, name] of Object.entries(flat)) {
      const value = first[field];
      args[name] = Array.isArray(value) ? value.join(',') : value;
    }
    const rest = rules.filter((_, index) => index !== at);
    if (rest.length) args[list] = rest;
    else delete args[list];
  }
}
