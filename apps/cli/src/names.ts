/**
 * Names for ids, a CLI convenience (`cloudcall vm-get web-1`): where a VM, load balancer,
 * firewall, VPC, database cluster, volume, project, SSH key or image id is expected and the value
 * given is not an id, the resource is looked up by name with one list (one call of 200 in most
 * accounts). A name that matches several is refused with their ids. An image is first looked up
 * as a public image's slug (`--image-id ubuntu-24-04-x64`, one `GET /v2/images/{slug}`), then
 * among the account's own images by name; an SSH key by its fingerprint, then by name. The tools
 * (and so the MCP server) keep taking ids only.
 *
 * Which arguments hold which kind of id is read from the definitions, by the table below: the
 * path placeholder right after the kind's collection (`/v2/droplets/{ID}`), the argument names
 * that hold it elsewhere (`VmID`, `VpcID`), and the primary argument of handler tools named after
 * it.
 */
import type { AnyTool } from '@cloudcall/core';
import type { ListedTool } from './commands.js';
import type { FlagSpec } from './flags.js';

export interface NamedKind {
  /** As a person says it, in messages. */
  label: string;
  /** The collection's path: its `{placeholder}` segment holds this kind's id. */
  collection: string;
  /** Arguments that hold this kind's id (or ids) wherever they appear. */
  args: readonly string[];
  /**
   * Tools named `<prefix>-...` that build their request in a handler (no path to read) take this
   * kind's id as their primary argument (`db-cluster-get-mysql-config`).
   */
  prefix: string;
  /** The tool that lists them, and the field it lists them in. */
  list: string;
  items: string;
  /** Arguments of the list tool: which of them can be named (the account's own images). */
  listArgs?: Record<string, unknown>;
  /** The form of this kind's ids: a value of that form is an id, not looked up (name-lookup.ts). */
  idForm: 'numeric' | 'uuid' | 'access-key';
  /** The field of a listed item holding its id, where it is not `id` (a Spaces key's `access_key`). */
  idField?: string;
  /** The fields (dotted paths) of a listed item that name it, where it is not `name` (a CDN endpoint's origin, an app's spec.name), and their word. */
  names?: { fields: readonly string[]; word: string };
  /**
   * Another handle the platform takes in place of the id (a public image's slug), looked up by one
   * call of the tool that gets one (its path placeholder given the value) before any name is.
   */
  handle?: { word: string; tool: string; item: string; form: RegExp; example: string };
  /**
   * For a kind that lives in another (a cluster's node pools): the argument naming that other one
   * (looked up first, when it is a name) and the list tool's argument it is passed as.
   */
  parent?: { argument: string; listArgument: string };
  /**
   * Whether one is also named by its fingerprint (an SSH key), found in the same list: MD5 as the
   * platform lists it (with or without `MD5:`), or `SHA256:...` as `ssh-keygen -l` prints it.
   */
  fingerprint?: boolean;
  /**
   * Arguments that hold this kind's ids in some calls only, as text (an alert policy's Entities
   * are VM ids when it watches a VM metric): each, and when it does, from the call's arguments.
   */
  sometimes?: readonly { argument: string; when: (args: Readonly<Record<string, unknown>>) => boolean }[];
}

/** A UUID, which no VM id is: an alert policy's entity of another kind (a database, a load balancer). */
const UUID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const NAMED_KINDS: readonly NamedKind[] = [
  {
    label: 'uptime check',
    collection: '/v2/uptime/checks',
    args: ['CheckID'],
    prefix: 'monitoring-uptime',
    list: 'monitoring-uptime-list',
    items: 'checks',
    idForm: 'uuid',
  },
  {
    label: 'VM',
    collection: '/v2/droplets',
    args: ['VmID', 'VmIDs'],
    prefix: 'vm',
    list: 'vm-list',
    items: 'droplets',
    idForm: 'numeric',
    // doctl's monitoring alert create --entities web-1,web-2: the VMs a VM metric's policy watches.
    // Left out, the type is the policy's (an update): looked up unless one is a UUID (another kind's).
    sometimes: [
      {
        argument: 'Entities',
        when: (args) =>
          typeof args.Type === 'string'
            ? args.Type.startsWith('v1/insights/droplet/')
            : !(Array.isArray(args.Entities) && args.Entities.some((each) => UUID_FORM.test(String(each)))),
      },
    ],
  },
  {
    label: 'load balancer',
    collection: '/v2/load_balancers',
    args: ['LoadBalancerID', 'TargetLoadBalancerIDs'],
    prefix: 'load-balancer',
    list: 'load-balancer-list',
    items: 'load_balancers',
    idForm: 'uuid',
  },
  {
    label: 'firewall',
    collection: '/v2/firewalls',
    args: [],
    prefix: 'firewall',
    list: 'firewall-list',
    items: 'firewalls',
    idForm: 'uuid',
  },
  {
    label: 'VPC',
    collection: '/v2/vpcs',
    args: ['VpcID', 'Vpc1', 'Vpc2'],
    prefix: 'vpc',
    list: 'vpc-list',
    items: 'vpcs',
    idForm: 'uuid',
  },
  {
    label: 'database cluster',
    collection: '/v2/databases',
    args: [],
    prefix: 'db-cluster',
    list: 'db-cluster-list',
    items: 'databases',
    idForm: 'uuid',
  },
  {
    // Volume names are unique per region: a name used in two regions is refused with both ids.
    label: 'volume',
    collection: '/v2/volumes',
    args: ['Volumes'],
    prefix: 'volume',
    list: 'volume-list',
    items: 'volumes',
    idForm: 'uuid',
  },
  {
    label: 'project',
    collection: '/v2/projects',
    args: [],
    prefix: 'project',
    list: 'project-list',
    items: 'projects',
    idForm: 'uuid',
  },
  {
    // doctl's `ssh-key get|delete <key-id|key-fingerprint>`, and its name as well.
    label: 'SSH key',
    collection: '/v2/account/keys',
    args: ['SshKeys'],
    prefix: 'key',
    list: 'key-list',
    items: 'ssh_keys',
    idForm: 'numeric',
    fingerprint: true,
  },
  {
    label: 'Kubernetes cluster',
    collection: '/v2/kubernetes/clusters',
    args: ['ClusterID'],
    prefix: 'kubernetes-cluster',
    list: 'kubernetes-cluster-list',
    items: 'kubernetes_clusters',
    idForm: 'uuid',
  },
  {
    // After the cluster's kind: the cluster's name is looked up first, then the pool in it.
    label: 'node pool',
    collection: '/v2/kubernetes/clusters/{ClusterID}/node_pools',
    args: [],
    prefix: 'kubernetes-cluster-node-pool',
    list: 'kubernetes-cluster-node-pool-list',
    items: 'node_pools',
    idForm: 'uuid',
    parent: { argument: 'ClusterID', listArgument: 'ClusterID' },
  },
  {
    label: 'image',
    collection: '/v2/images',
    args: ['ImageID'],
    prefix: 'image',
    list: 'image-list',
    items: 'images',
    // Public images have slugs, not names of their own choosing: names are the account's images.
    listArgs: { Type: 'user', PerPage: 200 },
    idForm: 'numeric',
    handle: {
      word: 'slug',
      tool: 'image-get',
      item: 'image',
      form: /^[a-z0-9][a-z0-9.-]*$/,
      example: 'ubuntu-24-04-x64',
    },
  },
  {
    // doctl's `spaces keys get|update|delete <access key>`, and its name as well.
    label: 'Spaces key',
    collection: '/v2/spaces/keys',
    args: [],
    prefix: 'spaces-key',
    list: 'spaces-key-list',
    items: 'keys',
    idForm: 'access-key',
    idField: 'access_key',
  },
  {
    // A CDN endpoint has no name: its origin (the Space's host) or custom domain names it.
    label: 'CDN endpoint',
    collection: '/v2/cdn/endpoints',
    args: [],
    prefix: 'cdn',
    list: 'cdn-list',
    items: 'endpoints',
    idForm: 'uuid',
    names: { fields: ['origin', 'custom_domain'], word: 'origin' },
  },
  {
    // doctl's `apps get|update|delete <app id or name>`: an app's name is its spec's.
    label: 'app',
    collection: '/v2/apps',
    args: ['AppID'],
    prefix: 'app',
    list: 'app-list',
    items: 'apps',
    idForm: 'uuid',
    names: { fields: ['spec.name'], word: 'name' },
  },
];

/** How a kind's argument is described in help and messages: "id or name", "id, slug or name". */
export function handles(kind: NamedKind): string {
  const other = kind.handle?.word ?? (kind.fingerprint ? 'fingerprint' : undefined);
  const name = kind.names?.word ?? 'name';
  return other ? `id, ${other} or ${name}` : `id or ${name}`;
}

/** Arguments that take a name in place of an id, with the kind of each. */
export type NamedArguments = ReadonlyMap<string, NamedKind>;

/**
 * Whether `argument` holds `kind`'s ids in this call (always, unless the kind says when), and
 * whether as text (ids of an argument that holds them only sometimes are strings).
 */
export function holdsIds(
  kind: NamedKind,
  argument: string,
  args: Readonly<Record<string, unknown>>,
): { holds: boolean; text: boolean } {
  const sometimes = kind.sometimes?.find((entry) => entry.argument === argument);
  return sometimes ? { holds: sometimes.when(args), text: true } : { holds: true, text: false };
}

/** The arguments of `tool` that take a name in place of an id, with the kind of each. */
export function namedArguments(
  tool: ListedTool,
  flags: readonly FlagSpec[],
  primary: FlagSpec | undefined,
): NamedArguments {
  const found = new Map<string, NamedKind>();
  for (const kind of NAMED_KINDS) {
    const placeholder = tool.request?.path.startsWith(`${kind.collection}/{`)
      ? /^\{(\w+)\}/.exec(tool.request.path.slice(kind.collection.length + 1))?.[1]
      : undefined;
    for (const flag of flags) {
      if (
        flag.name === placeholder ||
        kind.args.includes(flag.name) ||
        kind.sometimes?.some((entry) => entry.argument === flag.name) ||
        (flag === primary && !tool.request && tool.name.startsWith(`${kind.prefix}-`))
      ) {
        found.set(flag.name, kind);
      }
    }
  }
  return found;
}

/** A tool by name (its family is loaded if need be), or undefined. */
export type ToolLookup = (name: string) => Promise<AnyTool | undefined>;
