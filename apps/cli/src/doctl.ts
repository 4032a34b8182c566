/**
 * doctl's habits, as aliases over the tools' own arguments: its flag names (`--image`,
 * `--tag-names`, `--record-type`...), its rule strings for firewalls and load balancers, and the
 * arguments a doctl user never types because doctl works them out (a reserved IP's type from its
 * address, a database's engine version). Tables, read by tool-flags.ts for any tool with the
 * argument named: no command has code of its own.
 */
import type { ToolContext } from '@cloudcall/core';
import { FlagError, type FlagSpec } from './flags.js';
import { readPublicKeyFile } from './public-key-file.js';
import { readSpecFile } from './spec-file.js';

/** What the tables read of a tool: its name. */
type NamedTool = { name: string };

/** doctl's group of infrastructure commands, optional here: `compute droplet list` is `droplet list`. */
export const DOCTL_GROUP = 'compute';

/**
 * doctl's resource words, as cloudcall's: `droplet list` is `vm list`. Plurals need no entry (a
 * word that is a resource once its `s` is dropped is that resource: `projects`, `vpcs`, `domain
 * records`, `ssh-keys`). Read before the words are joined into a tool's name (commands.ts), so
 * `droplet-action power-off 123` reaches `power-off-vm`.
 */
export const DOCTL_RESOURCES: Readonly<Record<string, string>> = {
  droplet: 'vm',
  'droplet-action': 'vm',
  'ssh-key': 'key',
  'reserved-ip-action': 'reserved-ip',
  'floating-ip': 'reserved-ip',
  'floating-ip-action': 'reserved-ip',
  databases: 'db-cluster',
  database: 'db-cluster',
  k8s: 'kubernetes',
};

/**
 * doctl's commands whose verb is not cloudcall's, as the tool each runs: keyed by cloudcall's
 * resource and doctl's verb (`reserved-ip create`), by a sub-resource's words where doctl nests one
 * (`db-cluster firewalls list`), or by doctl's own resource word where cloudcall's resource has a
 * verb of that name already (`droplet-action get` is a VM's action, `vm get` the VM).
 *
 * doctl's other sub-resources need no entry: `databases user list` is db-cluster's `list-users`,
 * `databases pool get` its `get-pool`, `projects resources list` project's `list-resources`.
 */
export const DOCTL_COMMANDS: Readonly<Record<string, string>> = {
  'reserved-ip create': 'reserved-ip-reserve',
  'reserved-ip delete': 'reserved-ip-release',
  'domain-record update': 'domain-record-edit',
  'volume-action attach': 'volume-attach',
  'volume-action detach': 'volume-detach',
  'volume-action resize': 'volume-resize',
  'key import': 'key-create',
  'vm backups': 'vm-list-backups',
  'vm kernels': 'vm-list-kernels',
  'vm neighbors': 'vm-list-neighbors',
  'vm snapshots': 'vm-list-snapshots',
  'droplet-action get': 'vm-action',
  'droplet-action password-reset': 'reset-vm-password',
  'droplet-action enable-private-networking': 'enable-private-net-vm',
  'droplet-action change-backup-policy': 'vm-update-backup-policy',
  'db-cluster backups': 'db-cluster-list-backups',
  'db-cluster migrate': 'db-cluster-migrate-region',
  'db-cluster firewalls list': 'db-cluster-get-firewall-rules',
  'db-cluster firewalls replace': 'db-cluster-update-firewall-rules',
  'db-cluster maintenance-window update': 'db-cluster-set-maintenance-window',
  // doctl monitoring metrics droplet cpu 123: the metric and the VM follow, as the tool's positionals.
  'monitoring-metrics droplet': 'monitoring-metrics-get',
  'cdn flush': 'cdn-delete-cache',
  'app spec validate': 'app-validate-spec',
  // doctl apps logs APP [COMPONENT] --type build: the logs' text, read from where the tool says.
  'app logs': 'app-get-logs --text',
  'kubernetes-cluster kubeconfig show': 'kubernetes-cluster-get-kubeconfig',
  'kubernetes-cluster kubeconfig save': 'kubernetes-cluster-get-kubeconfig --save',
  // doctl's replace-node is delete-node with a new node in its place.
  'kubernetes-cluster-node-pool replace-node': 'kubernetes-cluster-node-pool-delete-node --replace=true',
  'kubernetes options versions': 'kubernetes-list-versions',
  'kubernetes options sizes': 'kubernetes-list-sizes',
  'kubernetes options regions': 'kubernetes-list-regions',
  'registry options subscription-tiers': 'registry-list-options',
  'registry options available-regions': 'registry-list-options',
};

/**
 * What a command takes second without a flag where doctl takes it and the tool's request path
 * does not say (commands.ts reads the path): `apps logs APP web` is the component.
 */
export const DOCTL_SECOND: Readonly<Record<string, string>> = {
  'app-get-logs': 'Component',
};

/** A doctl flag that fills one of a tool's arguments. */
export interface FlagAlias {
  /** The flag as doctl spells it, without `--`. */
  flag: string;
  /** The argument it fills, on every tool that has it (unless `tools` narrows it). */
  argument: string;
  tools?: readonly string[];
  /** How doctl's text reads, where it is not the argument's own form (rule strings). */
  read?: (text: string, argument: string) => unknown;
  /** What it takes, for help, where that is not the argument's own form. */
  says?: string;
  /**
   * Given more than once, the values joined with this before `read` reads them, as doctl takes
   * `--node-pool` once a pool; without it, the last one counts.
   */
  repeats?: string;
}

const RECORD_TOOLS = ['domain-record-create', 'domain-record-edit'];
const USER_TOOLS = [
  'db-cluster-get-user',
  'db-cluster-delete-user',
  'db-cluster-update-user',
  'db-cluster-reset-user-auth',
];

const NODE_POOL_SAYS =
  'doctl\'s "name=NAME;size=SLUG;count=N[;tag=T][;label=K=V][;taint=K=V:EFFECT][;auto-scale=true;min-nodes=N;max-nodes=N]", pools separated by spaces';

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
  // doctl compute droplet-action snapshot, compute volume snapshot
  { flag: 'snapshot-name', argument: 'Name', tools: ['snapshot-vm', 'volume-snapshot-create'] },
  // doctl compute volume create, compute volume-action resize
  {
    flag: 'size',
    argument: 'SizeGigabytes',
    read: gibibytes,
    says: 'a size with its unit, as doctl: 100GiB, 1TiB (a bare number is GiB)',
  },
  { flag: 'desc', argument: 'Description', tools: ['volume-create'] },
  { flag: 'snapshot', argument: 'SnapshotID', tools: ['volume-create'] },
  { flag: 'fs-type', argument: 'FilesystemType' },
  { flag: 'fs-label', argument: 'FilesystemLabel' },
  { flag: 'tag', argument: 'Tags' },
  // doctl compute ssh-key import NAME --public-key-file ~/.ssh/id_ed25519.pub
  {
    flag: 'public-key-file',
    argument: 'PublicKey',
    tools: ['key-create'],
    read: readPublicKeyFile,
    says: 'a file holding the public key (a .pub file), read and checked here',
  },
  // doctl apps create --spec FILE, apps update APP --spec FILE, apps spec validate FILE
  {
    flag: 'spec',
    argument: 'Spec',
    read: readSpecFile,
    says: 'an app spec file, YAML or JSON (- for standard input), read and checked here',
  },
  // doctl apps logs APP --deployment ID --type build
  { flag: 'deployment', argument: 'DeploymentID', tools: ['app-get-logs'] },
  // doctl apps create-deployment APP --force-rebuild
  { flag: 'force-rebuild', argument: 'ForceBuild' },
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
  // doctl spaces keys create|update --grants "bucket=assets;permission=readwrite"
  { flag: 'grants', argument: 'Grants', read: spacesGrants, repeats: ',' },
  // doctl compute cdn create|update --domain static.example.com --certificate-id ...
  { flag: 'domain', argument: 'CustomDomain', tools: ['cdn-create', 'cdn-update'] },
  // doctl kubernetes cluster create NAME --node-pool "name=...;size=...;count=..."
  { flag: 'node-pool', argument: 'NodePools', read: nodePools, says: NODE_POOL_SAYS, repeats: ' ' },
  // doctl kubernetes 1-click install CLUSTER --1-clicks monitoring,cert-manager
  { flag: '1-clicks', argument: 'Slugs', tools: ['kubernetes-1-click-install'] },
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

/** Bytes in each unit doctl reads sizes in (go-humanize's: G is 10^9, GiB 2^30), and none as GiB. */
const SIZE_UNITS: Record<string, number> = {
  '': 2 ** 30,
  m: 1e6,
  mb: 1e6,
  mi: 2 ** 20,
  mib: 2 ** 20,
  g: 1e9,
  gb: 1e9,
  gi: 2 ** 30,
  gib: 2 ** 30,
  t: 1e12,
  tb: 1e12,
  ti: 2 ** 40,
  tib: 2 ** 40,
};

const DECIMAL_POWERS: Record<string, number> = { m: 6, g: 9, t: 12 };

/**
 * doctl's volume sizes (`--size 100GiB`, `1TiB`, `500GB`), as whole GiB. A size that is not a
 * whole number of GiB is refused, where doctl would round it down (`10GB` is 9.31 GiB).
 */
export function gibibytes(text: string, argument: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (!match) {
    throw new FlagError(argument, `expected a size such as 100GiB or 1TiB, got ${JSON.stringify(text)}`);
  }
  const [, amount = '', unit = ''] = match;
  const bytes = SIZE_UNITS[unit.toLowerCase()];
  if (bytes === undefined) {
    throw new FlagError(
      argument,
      `unknown unit ${JSON.stringify(unit)} in ${JSON.stringify(text)}; use GiB or TiB`,
    );
  }
  const size = (Number(amount) * bytes) / 2 ** 30;
  if (!Number.isInteger(size)) {
    // 100GB is 93.13 GiB: a doctl user most likely meant 100GiB.
    const letter = unit.charAt(0).toLowerCase();
    const meant = /^[mgt]b?$/i.test(unit)
      ? ` (${unit} is 10^${DECIMAL_POWERS[letter]} bytes: ${amount}${letter.toUpperCase()}iB?)`
      : '';
    throw new FlagError(
      argument,
      `${text.trim()} is ${Number(size.toFixed(2))} GiB; volumes are sized in whole GiB${meant}`,
    );
  }
  return size;
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
 * doctl's Spaces key grants: `bucket=assets;permission=readwrite`, several separated by commas,
 * as the tools' grant objects. A fullaccess grant has no bucket (`permission=fullaccess`, or
 * `bucket=;permission=fullaccess` as doctl lists it).
 */
export function spacesGrants(text: string, argument: string): unknown {
  if (text.trim().startsWith('[')) return undefined;
  const grants = text
    .split(',')
    .map((grant) => grant.trim())
    .filter(Boolean);
  return grants.map((grant) => {
    const out: Record<string, unknown> = {};
    for (const pair of grant.split(';').filter((part) => part.trim() !== '')) {
      const at = pair.indexOf('=');
      if (at <= 0) {
        throw new FlagError(
          argument,
          `expected key=value pairs such as bucket=assets;permission=read, got ${JSON.stringify(pair)}`,
        );
      }
      const key = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (key === 'bucket') {
        if (value !== '') out.Bucket = value;
      } else if (key === 'permission') out.Permission = value;
      else {
        throw new FlagError(
          argument,
          `unknown key ${JSON.stringify(key)} in a grant; doctl's keys are bucket and permission`,
        );
      }
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
  /**
   * doctl's flags that shape the default and are no argument of the tool (`cluster create --size
   * --count`, the default pool's): refused beside the argument itself, as doctl refuses them.
   */
  flags?: readonly { flag: string; says: string }[];
  /** `given`: the values of `flags` on the command line, by flag. */
  value: (
    args: Record<string, unknown>,
    lookup: DefaultLookup,
    given: Readonly<Record<string, string | undefined>>,
  ) => unknown;
}

/** Runs a read-only tool for a default that the platform knows (a database engine's versions). */
export type DefaultLookup = (
  tool: string,
  args: Record<string, unknown>,
  context?: ToolContext,
) => Promise<unknown>;

const hasFlag = (flags: readonly FlagSpec[], name: string) => flags.some((flag) => flag.name === name);

/** doctl's default pool of `kubernetes cluster create` (commands/kubernetes.go). */
export const DEFAULT_POOL = { size: 's-1vcpu-2gb-intel', count: 3 } as const;

export const CLI_DEFAULTS: readonly CliDefault[] = [
  {
    // kubernetes cluster create NAME without --node-pool: doctl's one pool, NAME-default-pool.
    argument: 'NodePools',
    says: `one pool, NAME-default-pool, of --count (${DEFAULT_POOL.count}) nodes of --size (${DEFAULT_POOL.size}), as doctl`,
    applies: (tool) => tool.name === 'kubernetes-cluster-create',
    flags: [
      {
        flag: 'size',
        says: `the default pool's node size (default ${DEFAULT_POOL.size}; not with --node-pool)`,
      },
      {
        flag: 'count',
        says: `the default pool's node count (default ${DEFAULT_POOL.count}; not with --node-pool)`,
      },
    ],
    value: (args, _lookup, given) => {
      const count = given.count ?? String(DEFAULT_POOL.count);
      if (!/^\d{1,3}$/.test(count.trim())) {
        throw new FlagError('count', `expected a whole number of nodes, got ${JSON.stringify(count)}`);
      }
      return [
        {
          Name: `${String(args.Name)}-default-pool`,
          Size: given.size ?? DEFAULT_POOL.size,
          Count: Number(count),
        },
      ];
    },
  },
  {
    // cdn flush ID: every file, as doctl's --files defaults to "*".
    argument: 'Files',
    says: '"*", every file, as doctl',
    applies: (tool) => tool.name === 'cdn-delete-cache',
    value: () => ['*'],
  },
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
  {
    // apps logs APP: the deployment live, else the one on its way (a new app's first), as doctl.
    argument: 'DeploymentID',
    says: "the app's active deployment, else the one in progress (app-get), as doctl",
    applies: (tool) => tool.name === 'app-get-logs',
    standIn: '00000000-0000-4000-8000-000000000000',
    value: async (args, lookup) => {
      type Ref = { id?: string } | undefined;
      const answer = (await lookup('app-get', { ID: args.AppID })) as {
        app?: { active_deployment?: Ref; in_progress_deployment?: Ref; pending_deployment?: Ref };
      };
      const { active_deployment, in_progress_deployment, pending_deployment } = answer.app ?? {};
      const id = active_deployment?.id ?? in_progress_deployment?.id ?? pending_deployment?.id;
      if (id === undefined) {
        throw new FlagError('DeploymentID', 'the app has no deployment yet, so it has no logs');
      }
      return id;
    },
  },
  {
    // doctl's registry commands name no registry: the account's, when it has one.
    argument: 'Registry',
    says: "the account's registry, when it has only one (registry-list)",
    applies: (tool, flags) => tool.name.startsWith('registry-') && hasFlag(flags, 'Registry'),
    standIn: 'registry',
    value: async (_args, lookup) => {
      const answer = (await lookup('registry-list', {})) as { registries?: { name: string }[] };
      const names = (answer.registries ?? []).map((registry) => registry.name);
      if (names.length === 1) return names[0];
      throw new FlagError(
        'Registry',
        names.length
          ? `the account has ${names.length} registries (${names.join(', ')}); give --registry`
          : 'the account has no container registry; create one with registry create NAME --subscription-tier basic',
      );
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

/**
 * A flag of doctl's that runs another tool on the same arguments: `kubernetes cluster delete NAME
 * --dangerous` deletes what the cluster made as well (kubernetes-cluster-delete-dangerous), asked
 * about and protected as that tool is.
 */
export interface CliSwitch {
  tool: string;
  /** The flag, without `--`: a boolean. */
  flag: string;
  /** The tool run when it is given (true). */
  use: string;
  says: string;
}

export const CLI_SWITCHES: readonly CliSwitch[] = [
  {
    tool: 'kubernetes-cluster-delete',
    flag: 'dangerous',
    use: 'kubernetes-cluster-delete-dangerous',
    says: "delete the volumes, volume snapshots and load balancers it made as well (kubernetes-cluster-delete-dangerous), as doctl's --dangerous",
  },
];

/** The switches of a tool. */
export function switchesFor(tool: NamedTool): CliSwitch[] {
  return CLI_SWITCHES.filter((entry) => entry.tool === tool.name);
}

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

/** doctl's keys of a node pool, as the tools' pool fields. */
const POOL_KEYS: Record<string, string> = {
  name: 'Name',
  size: 'Size',
  count: 'Count',
  tag: 'Tags',
  label: 'Labels',
  taint: 'Taints',
  'auto-scale': 'AutoScale',
  'min-nodes': 'MinNodes',
  'max-nodes': 'MaxNodes',
};

/**
 * doctl's node pools: `name=workers;size=s-2vcpu-4gb;count=3;tag=web;label=tier=front;taint=gpu=true:NoSchedule`,
 * pools separated by spaces, as the tools' pool objects (`tag`, `label` and `taint` given any
 * number of times).
 */
export function nodePools(text: string, argument: string): unknown {
  if (text.trim().startsWith('[')) return undefined;
  return rulesOf(text).map((spec) => {
    const pool: Record<string, unknown> = {};
    for (const pair of spec.split(';').filter(Boolean)) {
      const at = pair.indexOf('=');
      const key = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const field = POOL_KEYS[key];
      if (at <= 0 || !field) {
        throw new FlagError(
          argument,
          `expected key=value pairs with the keys ${Object.keys(POOL_KEYS).join(', ')}, got ${JSON.stringify(pair)}`,
        );
      }
      if (field === 'Tags') pool.Tags = [...((pool.Tags as string[]) ?? []), value];
      else if (field === 'Labels') {
        const [name = '', label = ''] = value.split(/=(.*)/s);
        pool.Labels = { ...(pool.Labels as object), [name]: label };
      } else if (field === 'Taints') {
        const match = /^([^=:]+)(?:=([^:]*))?:(\w+)$/.exec(value);
        if (!match) {
          throw new FlagError(argument, `expected a taint as key=value:Effect, got ${JSON.stringify(value)}`);
        }
        const taint = { Key: match[1], ...(match[2] ? { Value: match[2] } : {}), Effect: match[3] };
        pool.Taints = [...((pool.Taints as unknown[]) ?? []), taint];
      } else if (['Count', 'MinNodes', 'MaxNodes'].includes(field) && /^\d+$/.test(value)) {
        pool[field] = Number(value);
      } else if (field === 'AutoScale') pool.AutoScale = value === 'true';
      else pool[field] = value;
    }
    return pool;
  });
}
