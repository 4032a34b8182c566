/**
 * How tools are found: grouped by family and resource, reachable as `<resource> <verb>` as well
 * as by their own names, with a primary argument that can be given positionally. All of it is
 * derived from the tool names and definitions, so a tool added to a family gets it untouched.
 *
 * Resources: a tool `X-list`, `X-get` or `X-create` makes `X` a resource of its family (`vm`,
 * `db-cluster`, `domain-record`); a family's tools are placed among its own resources. A tool `<verb>-Xs-tag` belongs to X with the verb `<verb>-tag`
 * (`shutdown-vms-tag`); else a tool ending in `-X` to X (`power-off-vm`, `snapshot-vm`); else to
 * the longest resource its name starts with (`vm-create`, `db-cluster-list-users`); else to a
 * resource named as a word of it (`reset-vm-password`); else to its own first word (`wait`). Its
 * verb is the rest of its name (`create`, `list-users`, `power-off`, `reset-password`).
 */
import { wrapWords } from '@cloudcall/core/internal';
import { doctlWords } from './doctl.js';
import { kebabName } from './flag-names.js';
import type { FlagSpec } from './flags.js';
import type { ToolEntry } from './tool-entry.js';

/** What grouping, help and the primary argument read of a tool: its index entry or its definition. */
export type ListedTool = Pick<ToolEntry, 'name' | 'title' | 'request'>;

/** A family as grouping and help read it: its index entry or the family itself. */
export interface ListedFamily {
  name: string;
  title: string;
  description: string;
  tools: readonly ListedTool[];
}

export interface GroupedTool {
  tool: ListedTool;
  resource: string;
  verb: string;
}

export interface FamilyGroups {
  family: ListedFamily;
  /** Resource -> its tools, in the family's order. */
  resources: Map<string, GroupedTool[]>;
}

/** Every family's tools by resource. */
export function groupTools(families: readonly ListedFamily[]): FamilyGroups[] {
  return families.map((family) => {
    const resources = new Set<string>();
    for (const tool of family.tools) {
      const match = /^(.+)-(list|get|create)$/.exec(tool.name);
      if (match) resources.add(match[1] as string);
    }
    const byLength = [...resources].sort((a, b) => b.length - a.length);
    const grouped = new Map<string, GroupedTool[]>();
    for (const tool of family.tools) {
      const entry = placeTool(tool, byLength);
      grouped.set(entry.resource, [...(grouped.get(entry.resource) ?? []), entry]);
    }
    return { family, resources: grouped };
  });
}

function placeTool(tool: ListedTool, resources: readonly string[]): GroupedTool {
  const name = tool.name;
  // An action on the resources with a tag: `power-off-vms-tag` is vm's `power-off-tag`.
  const tagged = resources.find((resource) => name.endsWith(`-${resource}s-tag`));
  if (tagged) return { tool, resource: tagged, verb: `${name.slice(0, -`-${tagged}s-tag`.length)}-tag` };
  // An action named verb first: `snapshot-vm` is vm's `snapshot`, even though snapshots are a resource.
  const object = resources.find((resource) => name.endsWith(`-${resource}`));
  if (object) return { tool, resource: object, verb: name.slice(0, -object.length - 1) };
  const prefix = resources.find((resource) => name.startsWith(`${resource}-`));
  if (prefix) return { tool, resource: prefix, verb: name.slice(prefix.length + 1) };
  const words = name.split('-');
  for (const resource of resources) {
    const at = words.findIndex((word) => word === resource || word === `${resource}s`);
    if (at > 0) return { tool, resource, verb: words.filter((_, index) => index !== at).join('-') };
  }
  return { tool, resource: words[0] as string, verb: words.slice(1).join('-') };
}

/**
 * Rewrites the words that name a tool to its name: `vm create` -> `vm-create`,
 * `db cluster list-users` -> `db-cluster-list-users` (the longest run of words that joined by
 * `-` names a tool), and `vm power-off` -> `power-off-vm` (a resource and one of its verbs).
 * `at` is the index of the first word; words that already name a tool are left alone. doctl's
 * words come first as cloudcall's (`droplet list` -> `vm list`, doctl.ts).
 */
export function joinToolWords(
  typed: readonly string[],
  at: number,
  toolNames: ReadonlySet<string>,
  groups: readonly FamilyGroups[],
): string[] {
  const given = typed[at];
  if (given === undefined || toolNames.has(given)) return [...typed];
  const words = doctlWords(typed, at);
  const verbs = new Map<string, string>();
  for (const { resources } of groups) {
    for (const [resource, tools] of resources) {
      for (const { tool, verb } of tools) if (verb) verbs.set(`${resource} ${verb}`, tool.name);
    }
  }
  let end = at;
  let name: string | undefined;
  const run: string[] = [];
  for (let index = at; index < words.length && index < at + 6; index++) {
    const word = words[index] as string;
    if (word.startsWith('-')) break;
    run.push(word);
    const joined = run.join('-');
    if (toolNames.has(joined)) {
      name = joined;
      end = index;
    } else if (run.length === 2 && !name && verbs.has(run.join(' '))) {
      name = verbs.get(run.join(' '));
      end = index;
    }
  }
  if (!name || end === at) return [...words];
  return [...words.slice(0, at), name, ...words.slice(end + 1)];
}

/**
 * `joinToolWords` for a command line whose commands are `names` (the tools and cloudcall's own
 * commands). A command of cloudcall's own that is also a resource (`api`, the api family's) names
 * a tool when one of its verbs follows (`api search` is api-search), else itself (`api
 * /v2/account` is the api command).
 */
export function joinCommandLine(
  typed: readonly string[],
  at: number,
  names: ReadonlySet<string>,
  groups: readonly FamilyGroups[],
): string[] {
  const word = typed[at];
  const ownResource =
    word !== undefined &&
    names.has(word) &&
    groups.some(({ resources }) => resources.has(word)) &&
    !groups.some(({ family }) => family.tools.some((tool) => tool.name === word));
  if (!ownResource) return joinToolWords(typed, at, names, groups);
  const joined = joinToolWords(typed, at, new Set([...names].filter((name) => name !== word)), groups);
  return joined[at] !== word && names.has(joined[at] as string) ? joined : [...typed];
}

/** Arguments that hold an identifier: `ID`, `id`, `UUID`, `IP`, `VmID`, `LoadBalancerID`. */
const ID_LIKE = /^(id|uuid|ip)$|I[Dd]$/i;

/**
 * The argument a tool's command also takes positionally (`cloudcall vm-get 123`): the first
 * placeholder of its request path (`/v2/domains/{Name}` -> `Name`; none for `/v2/droplets`), or for
 * a tool whose handler builds the request, its first required id-like argument
 * (`reserved-ip-get`'s `IP`, `wait`'s `ID`). Only a required scalar qualifies.
 */
export function primaryArgument(tool: ListedTool, flags: readonly FlagSpec[]): FlagSpec | undefined {
  const scalar = (flag: FlagSpec | undefined) =>
    flag?.required && flag.kind !== 'array' && flag.kind !== 'object' && flag.kind !== 'json'
      ? flag
      : undefined;
  if (tool.request) {
    const placeholder = /\{(\w+)\}/.exec(tool.request.path)?.[1];
    return scalar(flags.find((flag) => flag.name === placeholder));
  }
  return scalar(flags.find((flag) => flag.required && ID_LIKE.test(flag.name)));
}

/**
 * What a tool's command takes first, without a flag: its primary argument, or for a create tool
 * without one, the name of what it creates (`cloudcall vm create web-1 ...`, as doctl).
 */
export function positionalArgument(tool: ListedTool, flags: readonly FlagSpec[]): FlagSpec | undefined {
  const primary = primaryArgument(tool, flags);
  if (primary || !tool.name.endsWith('-create')) return primary;
  const name = flags.find((flag) => flag.name.toLowerCase() === 'name');
  return name?.required && name.kind === 'string' ? name : undefined;
}

/**
 * Example values that no pattern gives: lists of objects, JSON, addresses, a change to make. By
 * tool, then argument; shell words as typed (JSON in single quotes). The help examples test runs
 * every example, so a value here that the tool refuses fails it.
 */
const EXAMPLE_VALUES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  wait: { ID: '123' },
  'project-update': { Name: 'NAME' },
  'project-update-default': { Name: 'NAME' },
  'project-assign-resources': { Resources: 'do:droplet:123' },
  'db-cluster-create': { num_nodes: '1' },
  'db-cluster-resize': { size: 'db-s-2vcpu-4gb' },
  'db-cluster-start-online-migration': {
    source: `'{"host":"db.example.com","port":5432,"dbname":"app","username":"app","password":"PASSWORD"}'`,
  },
  'db-cluster-update-firewall-rules': { rules: `'[{"type":"ip_addr","value":"203.0.113.5"}]'` },
  'db-cluster-update-kafka-config': { config: `'{"auto_create_topics_enable":true}'` },
  'db-cluster-update-mongodb-config': { config: `'{"default_read_concern":"majority"}'` },
  'db-cluster-update-mysql-config': { config_json: `'{"sql_mode":"ANSI"}'` },
  'db-cluster-update-os-config': { config: `'{"http_max_content_length_bytes":100000000}'` },
  'db-cluster-update-psql-config': { config: `'{"autovacuum_naptime":60}'` },
  'db-cluster-update-redis-config': { config: `'{"redis_timeout":300}'` },
  'domain-record-create': { Data: '192.0.2.10' },
  'domain-record-edit': { Data: '192.0.2.10' },
  'custom-certificate-create': {
    PrivateKey: '"$(cat privkey.pem)"',
    LeafCertificate: '"$(cat cert.pem)"',
    CertificateChain: '"$(cat chain.pem)"',
  },
  'firewall-create': {
    InboundPortRange: '22',
    InboundSource: '0.0.0.0/0',
    OutboundPortRange: 'all',
    OutboundDestination: '0.0.0.0/0',
  },
  'firewall-add-rules': { InboundRules: 'protocol:tcp,ports:443,address:0.0.0.0/0' },
  'firewall-remove-rules': { InboundRules: 'protocol:tcp,ports:443,address:0.0.0.0/0' },
  'load-balancer-create': {
    Region: 'nyc3',
    ForwardingRules: 'entry_protocol:http,entry_port:80,target_protocol:http,target_port:8080',
  },
  'load-balancer-update': {
    Region: 'nyc3',
    ForwardingRules: 'entry_protocol:http,entry_port:80,target_protocol:http,target_port:8080',
  },
  'load-balancer-add-forwarding-rules': {
    ForwardingRules: 'entry_protocol:https,entry_port:443,target_protocol:http,target_port:8080',
  },
  'load-balancer-remove-forwarding-rules': {
    ForwardingRules: 'entry_protocol:https,entry_port:443,target_protocol:http,target_port:8080',
  },
  'reserved-ip-release': { IP: '192.0.2.10' },
  'reserved-ip-assign': { IP: '192.0.2.10' },
  'reserved-ip-unassign': { IP: '192.0.2.10' },
  'reserved-ip-get': { IP: '192.0.2.10' },
  'byoip-prefix-create': { Prefix: '203.0.113.0/24' },
  'tag-resources': { Resources: `'[{"resource_id":"123","resource_type":"droplet"}]'` },
  'untag-resources': { Resources: `'[{"resource_id":"123","resource_type":"droplet"}]'` },
  'volume-create': { Region: 'nyc3' },
  'image-create': { Url: 'https://example.com/disk.qcow2.gz' },
  'snapshot-get': { ID: '123' },
  'snapshot-delete': { ID: '123' },
  'api-describe': { Operation: "'GET /v2/droplets'" },
};

/** A flag's placeholder in an example: `VM_ID` for `--vm-id`. */
export function placeholderOf(flag: FlagSpec): string {
  return kebabName(flag.name).replace(/-/g, '_').toUpperCase();
}

/**
 * Values an example shows where its argument's pattern refuses a placeholder (`REGION` is no
 * region slug): the first that fits the pattern is shown.
 */
const FITTING_VALUES = [
  'nyc3',
  'example.com',
  '14:00',
  '203.0.113.0/24',
  '9cc10173-e9ea-4176-9dbc-a4cee4c4ff30',
];

/**
 * A value for a flag in a generated example, one the flag takes: the placeholder where the flag
 * takes any text, else the description's own example (`e.g. db-s-1vcpu-1gb`), the placeholder in
 * lower case, or a value of the usual kinds that fits the pattern.
 */
function sample(flag: FlagSpec): string {
  if (flag.choices?.length) return flag.choices[0] as string;
  switch (flag.kind) {
    case 'number':
      return '123';
    case 'boolean':
      return 'true';
    case 'array':
      return flag.numericItems ? '123,456' : flag.pattern ? fitting(flag) : 'a,b';
    case 'object':
    case 'json':
      return `'{...}'`;
    default:
      return fitting(flag);
  }
}

function fitting(flag: FlagSpec): string {
  const placeholder = placeholderOf(flag);
  if (!flag.pattern) return placeholder;
  const pattern = new RegExp(flag.pattern, 'u');
  const given = /\be\.g\. ([^\s,;)]+)/.exec(flag.description)?.[1];
  const lower = placeholder.toLowerCase().replace(/_/g, '-');
  return (
    [given, placeholder, lower, ...FITTING_VALUES].find(
      (value) => value !== undefined && pattern.test(value),
    ) ?? placeholder
  );
}

/**
 * One example call of a tool, one the CLI takes as written: its primary argument positionally,
 * then its other required flags, and the flags the example table adds (what a tool needs beyond
 * its required flags, such as a change to make).
 */
export function exampleFor(
  tool: ListedTool,
  flags: readonly FlagSpec[],
  /** Values to show for some arguments (an image slug where an image id is expected). */
  samples: ReadonlyMap<string, string> = new Map(),
): string {
  const primary = positionalArgument(tool, flags);
  const parts = ['cloudcall', tool.name];
  const chosen = EXAMPLE_VALUES[tool.name] ?? {};
  const shown = (flag: FlagSpec) => chosen[flag.name] ?? samples.get(flag.name) ?? sample(flag);
  if (primary) parts.push(shown(primary));
  for (const flag of flags) {
    if (flag !== primary && (flag.required || chosen[flag.name] !== undefined)) {
      parts.push(`--${kebabName(flag.name)}`, shown(flag));
    }
  }
  return parts.join(' ');
}

/** `cloudcall help` at the root: families and their resources, not 142 tools. */
export function familiesOverview(groups: readonly FamilyGroups[]): string {
  const heads = groups.map(({ family }) => `${family.name} (${family.tools.length})`);
  const width = Math.max(...heads.map((head) => head.length));
  const lines: string[] = [];
  groups.forEach(({ resources }, index) => {
    const list = wrapWords([...resources.keys()].join(', '), 96 - width);
    lines.push(`  ${(heads[index] as string).padEnd(width)}  ${list[0]}`);
    for (const more of list.slice(1)) lines.push(`  ${''.padEnd(width)}  ${more}`);
  });
  return lines.join('\n');
}

/** `cloudcall help vms`: one family, its tools under their resources. */
export function familyHelp(groups: FamilyGroups): string {
  const { family, resources } = groups;
  const lines = [`${family.title} (${family.tools.length} tools): ${family.description}`, ''];
  const width = Math.max(...family.tools.map((tool) => tool.name.length));
  for (const [resource, tools] of resources) {
    lines.push(`${resource}:`);
    for (const { tool } of tools) lines.push(`  ${tool.name.padEnd(width)}  ${tool.title}`);
    lines.push('');
  }
  lines.push(
    `Run "cloudcall <tool> --help" for a tool's flags and an example. "cloudcall <resource> <verb>"`,
    'is the same as the tool "<resource>-<verb>" (cloudcall vm create = cloudcall vm-create).',
  );
  return `${lines.join('\n')}\n`;
}

/** What the word finder needs of an option: its spellings and whether it takes a value. */
export interface OptionShape {
  long?: string | undefined;
  short?: string | undefined;
  required?: boolean | undefined;
}

/**
 * The index of the first word that is not a root option or its value: where the tool (or
 * command) name is. -1 when there is none, or when an unknown option comes first (the parser
 * then reports it).
 */
export function commandWordIndex(words: readonly string[], options: readonly OptionShape[]): number {
  for (let index = 0; index < words.length; index++) {
    const word = words[index] as string;
    if (!word.startsWith('-')) return index;
    if (word === '--') return -1;
    const spelled = word.includes('=') ? word.slice(0, word.indexOf('=')) : word;
    const option = options.find((candidate) => candidate.long === spelled || candidate.short === spelled);
    if (!option) return -1;
    if (option.required && !word.includes('=')) index++;
  }
  return -1;
}
