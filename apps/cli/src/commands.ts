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
import { closest, editDistance, wrapWords } from '@cloudcall/core/internal';
import { DOCTL_COMMANDS, DOCTL_GROUP, DOCTL_RESOURCES } from './doctl.js';
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

/** What `resource verb` words and messages read of the grouping, worked out once per grouping. */
interface WordIndex {
  resources: ReadonlySet<string>;
  /** `resource verb` -> the tool. */
  verbs: ReadonlyMap<string, string>;
  /** Each resource's verbs, in the families' order. */
  verbsOf: ReadonlyMap<string, readonly string[]>;
}

const indexes = new WeakMap<readonly FamilyGroups[], WordIndex>();

function wordIndex(groups: readonly FamilyGroups[]): WordIndex {
  const known = indexes.get(groups);
  if (known) return known;
  const verbs = new Map<string, string>();
  const verbsOf = new Map<string, string[]>();
  for (const { resources } of groups) {
    for (const [resource, tools] of resources) {
      const list = verbsOf.get(resource) ?? [];
      for (const { tool, verb } of tools) {
        if (!verb) continue;
        verbs.set(`${resource} ${verb}`, tool.name);
        list.push(verb);
      }
      verbsOf.set(resource, list);
    }
  }
  const index = { resources: new Set(verbsOf.keys()), verbs, verbsOf };
  indexes.set(groups, index);
  return index;
}

/** A word that may name a command: not a flag. */
const isWord = (word: string | undefined): word is string => word !== undefined && !word.startsWith('-');

/** `projects` -> `project`, `byoip-prefixes` -> `byoip-prefix`: the singulars a plural may have. */
function singulars(word: string): string[] {
  if (!word.endsWith('s')) return [];
  return word.endsWith('es') ? [word.slice(0, -1), word.slice(0, -2)] : [word.slice(0, -1)];
}

/** A resource as typed, as doctl names it, or in the plural (`vm`, `droplet`, `droplets`). */
function asResource(word: string, resources: ReadonlySet<string>): string | undefined {
  for (const form of [word, ...singulars(word)]) {
    if (resources.has(form)) return form;
    const doctl = DOCTL_RESOURCES[form];
    if (doctl !== undefined) return doctl;
  }
  return undefined;
}

/**
 * The one or two of `candidates` nearest `word`: a typo of it (two only when both are as near), or
 * else the only one or two that start with it.
 */
export function nearest(word: string, candidates: readonly string[]): string[] {
  const unique = [...new Set(candidates)];
  const [first, second] = closest(word, unique);
  if (first !== undefined) {
    const tie = second !== undefined && editDistance(word, second) === editDistance(word, first);
    return tie ? [first, second] : [first];
  }
  const starting = word.length >= 3 ? unique.filter((candidate) => candidate.startsWith(word)) : [];
  return starting.length <= 2 ? starting : [];
}

/** ` (did you mean a or b?)`, or nothing when none is near. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const near = nearest(word, candidates);
  return near.length ? ` (did you mean ${near.join(' or ')}?)` : '';
}

/** Why words name no command, said as one line and a hint. */
export interface WordProblem {
  message: string;
  hint: string;
}

/** Words that name no command, thrown before the parser sees them. */
export class CommandWordError extends Error {
  constructor(readonly problem: WordProblem) {
    super(problem.message);
  }
}

export interface ResolvedWords {
  /**
   * The command line with the words that name a tool replaced by its name; failing that, doctl's
   * words as cloudcall's (`compute` dropped, the resource as cloudcall names it).
   */
  words: string[];
  /** Set when the words name no command: the word that is wrong, and what is near it. */
  problem?: WordProblem;
}

/** The resource that a command line's words start with, and how many words spell it. */
interface ResourceWords {
  /** The words as cloudcall spells them: doctl's resource renamed, plurals made singular. */
  words: string[];
  resource: string | undefined;
  /** How many of `words` the resource takes (0 when they start with none). */
  length: number;
}

/**
 * The longest resource `typed` starts with: its first word as typed, as doctl's or in the plural
 * (`vm`, `droplet`, `projects`), then further words joined by `-`, each also in the singular
 * (`db cluster`, `domain records`).
 */
export function resourceWords(typed: readonly string[], groups: readonly FamilyGroups[]): ResourceWords {
  const { resources } = wordIndex(groups);
  const words = [...typed];
  const first = typed[0] === undefined ? undefined : asResource(typed[0], resources);
  let resource: string | undefined;
  let length = 0;
  if (first !== undefined) {
    words[0] = first;
    resource = first;
    length = 1;
  }
  for (let count = 2; count <= typed.length && isWord(typed[count - 1]); count++) {
    const base = words.slice(0, count - 1).join('-');
    const typedWord = typed[count - 1] as string;
    const form = [typedWord, ...singulars(typedWord)].find((each) => resources.has(`${base}-${each}`));
    if (form !== undefined) {
      words[count - 1] = form;
      resource = `${base}-${form}`;
      length = count;
    }
  }
  return { words, resource, length };
}

/**
 * Rewrites the words that name a tool to its name: `vm create` -> `vm-create`,
 * `db cluster list-users` -> `db-cluster-list-users` (the longest run of words that joined by
 * `-` names a tool), and `vm power-off` -> `power-off-vm` (a resource and one of its verbs).
 * `at` is the index of the first word; words that already name a tool are left alone. doctl's
 * words are read too (doctl.ts): its `compute` group, its resource words and plurals (`compute
 * droplet list` -> `vm-list`, `domain records list` -> `domain-record-list`), its verbs that are
 * not cloudcall's (`reserved-ip create` -> `reserved-ip-reserve`) and its sub-resources
 * (`databases user list` -> `db-cluster-list-users`).
 */
export function resolveToolWords(
  typed: readonly string[],
  at: number,
  toolNames: ReadonlySet<string>,
  groups: readonly FamilyGroups[],
): ResolvedWords {
  const given = typed[at];
  if (given === undefined || toolNames.has(given)) return { words: [...typed] };
  const index = wordIndex(groups);
  const head = typed.slice(0, at);
  // doctl's `compute` group, when a word follows it.
  const rest = typed.slice(given === DOCTL_GROUP && isWord(typed[at + 1]) ? at + 1 : at);
  if (toolNames.has(rest[0] as string)) return { words: [...head, ...rest] };
  let count = 0;
  while (count < rest.length && count < 6 && isWord(rest[count])) count++;
  const run = rest.slice(0, count);
  const { words, resource, length } = resourceWords(run, groups);
  const joined = (name: string, used: number) => ({ words: [...head, name, ...rest.slice(used)] });
  const verb = words[length];
  const after = words[length + 1];
  if (resource !== undefined && verb !== undefined) {
    // doctl's verbs that are not cloudcall's: by doctl's resource word, then by cloudcall's.
    const keys: [string, number][] = [
      ...(length === 1 ? [[`${run[0]} ${verb}`, 2] as [string, number]] : []),
      [`${resource} ${verb}`, length + 1],
      ...(after === undefined ? [] : [[`${resource} ${verb} ${after}`, length + 2] as [string, number]]),
    ];
    for (const [key, used] of keys) {
      const tool = DOCTL_COMMANDS[key];
      // A doctl command may be a tool with a flag of the CLI's (`kubeconfig save` is get-kubeconfig --save).
      const [name = '', ...flags] = tool?.split(' ') ?? [];
      if (toolNames.has(name)) return { words: [...head, name, ...flags, ...rest.slice(used)] };
    }
  }
  // The longest run of words that joined by `-` names a tool.
  for (let used = count; used > 0; used--) {
    const name = words.slice(0, used).join('-');
    if (toolNames.has(name)) return joined(name, used);
  }
  if (resource !== undefined && verb !== undefined) {
    // A resource and one of its verbs.
    const tool = index.verbs.get(`${resource} ${verb}`);
    if (tool !== undefined) return joined(tool, length + 1);
    // doctl's sub-resources: `databases user list` is db-cluster's `list-users`.
    if (after !== undefined) {
      const forms = [verb, `${verb}s`, ...singulars(verb)].map((sub) => `${after}-${sub}`);
      const sub = forms.map((form) => index.verbs.get(`${resource} ${form}`)).find(Boolean);
      if (sub !== undefined) return joined(sub, length + 2);
    }
  }
  const spelled = resource === undefined ? rest : [resource, ...rest.slice(length)];
  return {
    words: [...head, ...spelled],
    problem: wordProblem(run, words, resource, length, toolNames, groups),
  };
}

/** doctl's verbs of a resource (DOCTL_COMMANDS), by cloudcall's word or the one typed. */
export function doctlVerbs(resource: string, typed?: string): string[] {
  return Object.keys(DOCTL_COMMANDS).flatMap((key) => {
    const [first, second, third] = key.split(' ');
    return (first === resource || first === typed) && third === undefined ? [second as string] : [];
  });
}

/** Why `words` (`run` as cloudcall spells them) name no tool: the first word that is wrong. */
function wordProblem(
  run: readonly string[],
  words: readonly string[],
  resource: string | undefined,
  length: number,
  toolNames: ReadonlySet<string>,
  groups: readonly FamilyGroups[],
): WordProblem | undefined {
  const index = wordIndex(groups);
  if (resource === undefined) {
    const word = run[0];
    if (word === undefined) return undefined;
    const known = [
      ...[...toolNames].filter((name) => !name.startsWith('_')),
      ...index.resources,
      ...Object.keys(DOCTL_RESOURCES),
      ...groups.map(({ family }) => family.name),
    ];
    return {
      message: `unknown command ${JSON.stringify(word)}${didYouMean(word, known)}`,
      hint: 'cloudcall --help lists the families and their resources',
    };
  }
  const typed = run.slice(0, length).join(' ');
  const hint = `cloudcall ${typed} --help lists its verbs`;
  const verb = words[length];
  if (verb === undefined) return { message: `${typed} needs a verb`, hint };
  const own = index.verbsOf.get(resource) ?? [];
  // doctl's sub-resource (`databases user`): its verbs are those of the resource that end in it.
  const endings = [verb, `${verb}s`, ...singulars(verb)].map((sub) => `-${sub}`);
  const subVerbs = [
    ...own.flatMap((each) => {
      const ending = endings.find((end) => each.endsWith(end) && each.length > end.length);
      return ending === undefined ? [] : [each.slice(0, -ending.length)];
    }),
    ...Object.keys(DOCTL_COMMANDS).flatMap((key) =>
      key.startsWith(`${resource} ${verb} `) ? [key.split(' ')[2] as string] : [],
    ),
  ];
  // A word that ends two verbs or more is a sub-resource (list-users, get-user...), not a typo.
  if (!own.includes(verb) && subVerbs.length >= 2) {
    const after = words[length + 1];
    const sub = `${typed} ${run[length]}`;
    if (after === undefined)
      return { message: `${sub} needs a verb: ${[...new Set(subVerbs)].join(', ')}`, hint };
    return { message: `${sub} has no verb ${JSON.stringify(after)}${didYouMean(after, subVerbs)}`, hint };
  }
  return {
    message: `${typed} has no verb ${JSON.stringify(run[length])}${didYouMean(verb, [...own, ...doctlVerbs(resource, run[0])])}`,
    hint,
  };
}

/** `resolveToolWords`'s command line. */
export function joinToolWords(
  typed: readonly string[],
  at: number,
  toolNames: ReadonlySet<string>,
  groups: readonly FamilyGroups[],
): string[] {
  return resolveToolWords(typed, at, toolNames, groups).words;
}

/**
 * `resolveToolWords` for a command line whose commands are `names` (the tools and cloudcall's own
 * commands). A command of cloudcall's own that is also a resource (`api`, the api family's) names
 * a tool when one of its verbs follows (`api search` is api-search), else itself (`api
 * /v2/account` is the api command).
 */
export function resolveCommandLine(
  typed: readonly string[],
  at: number,
  names: ReadonlySet<string>,
  groups: readonly FamilyGroups[],
): ResolvedWords {
  const word = typed[at];
  const ownResource =
    word !== undefined &&
    names.has(word) &&
    groups.some(({ resources }) => resources.has(word)) &&
    !groups.some(({ family }) => family.tools.some((tool) => tool.name === word));
  if (!ownResource) return resolveToolWords(typed, at, names, groups);
  const joined = joinToolWords(typed, at, new Set([...names].filter((name) => name !== word)), groups);
  return { words: joined[at] !== word && names.has(joined[at] as string) ? joined : [...typed] };
}

/** `resolveCommandLine`'s command line. */
export function joinCommandLine(
  typed: readonly string[],
  at: number,
  names: ReadonlySet<string>,
  groups: readonly FamilyGroups[],
): string[] {
  return resolveCommandLine(typed, at, names, groups).words;
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
  // What names it, or a CDN endpoint's origin (`cdn create assets.nyc3.digitaloceanspaces.com`).
  const name = flags.find((flag) => ['name', 'origin'].includes(flag.name.toLowerCase()));
  return name?.required && name.kind === 'string' ? name : undefined;
}

/**
 * What a tool's command takes second, without a flag, as doctl does (`databases user get <cluster>
 * <user>`, `volume-action attach <volume> <droplet>`, `domain records delete <domain>
 * <record-id>`): the second placeholder of its request path; else its next required id-like
 * argument (a VM's id); else, for a tool that creates something inside the primary's resource
 * (`db-cluster-create-user`), the name of what it creates. Only a required scalar qualifies.
 */
export function secondArgument(tool: ListedTool, flags: readonly FlagSpec[]): FlagSpec | undefined {
  const primary = primaryArgument(tool, flags);
  if (!primary) return undefined;
  const scalar = (flag: FlagSpec | undefined) =>
    flag && flag !== primary && flag.required && !['array', 'object', 'json'].includes(flag.kind)
      ? flag
      : undefined;
  const placeholder = tool.request ? [...tool.request.path.matchAll(/\{(\w+)\}/g)][1]?.[1] : undefined;
  return (
    scalar(flags.find((flag) => flag.name === placeholder)) ??
    flags.map(scalar).find((flag) => flag !== undefined && ID_LIKE.test(flag.name)) ??
    (/-create-/.test(tool.name)
      ? scalar(flags.find((flag) => flag.name.toLowerCase() === 'name'))
      : undefined)
  );
}

/**
 * What a tool's command takes after `second`, without a flag, as doctl does (`kubernetes cluster
 * node-pool delete-node <cluster> <pool> <node-id>`): the request path's placeholder after the
 * second's, when the second is one and it is a required scalar.
 */
export function nextPathArgument(
  tool: ListedTool,
  flags: readonly FlagSpec[],
  second: FlagSpec | undefined,
): FlagSpec | undefined {
  if (!second || !tool.request) return undefined;
  const placeholders = [...tool.request.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  const at = placeholders.indexOf(second.name);
  const next = at === -1 ? undefined : placeholders[at + 1];
  const flag = flags.find((candidate) => candidate.name === next);
  return flag?.required && !['array', 'object', 'json'].includes(flag.kind) ? flag : undefined;
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
  'kubernetes-cluster-create': { NodePools: `'[{"Name":"workers","Size":"s-2vcpu-4gb","Count":3}]'` },
  'kubernetes-cluster-upgrade': { Version: '1.33.1-do.0' },
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
  'monitoring-alert-create': { Emails: 'ops@example.com' },
  'monitoring-uptime-create': { Target: 'https://example.com' },
  'monitoring-uptime-alert-create': { Type: 'down', Emails: 'ops@example.com' },
  'app-create': {
    Spec: `'{"name":"web","services":[{"name":"web","github":{"repo":"acme/web","branch":"main"}}]}'`,
  },
  'app-update': {
    Spec: `'{"name":"web","services":[{"name":"web","github":{"repo":"acme/web","branch":"main"}}]}'`,
  },
  'app-validate-spec': {
    Spec: `'{"name":"web","services":[{"name":"web","github":{"repo":"acme/web","branch":"main"}}]}'`,
  },
  'spaces-key-create': { Grants: `'bucket=my-bucket;permission=readwrite'` },
  'spaces-key-update': { Name: 'NAME' },
  'cdn-create': { Origin: 'my-bucket.nyc3.digitaloceanspaces.com' },
  'cdn-update': { TTL: '600' },
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
  `sha256:${'0'.repeat(64)}`,
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
