/**
 * Default table columns per kind of resource, keyed by the field the platform wraps it in
 * (`droplets` for a list, `droplet` for one). `-o table` shows the plain columns, `-o wide` adds
 * the `wide` ones. A kind not in the table gets its scalar fields.
 */

export interface Column {
  header: string;
  /** A dotted path into the item (`region.slug`, `networks.v4.0.ip_address`)... */
  path?: string;
  /** ...or a function of it, for values a path cannot reach. */
  get?: (item: Record<string, unknown>) => unknown;
  /** Shown with `-o wide` only. */
  wide?: true;
}

/** `networks.v4.0.ip_address` of `item`: numbers index arrays. */
export function valueAt(item: unknown, path: string): unknown {
  let current = item;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** The address of a VM (or load balancer) network of one version and type: public IPv4... */
function address(version: 'v4' | 'v6', type: 'public' | 'private') {
  return (item: Record<string, unknown>) => {
    const networks = valueAt(item, `networks.${version}`);
    if (!Array.isArray(networks)) return undefined;
    return networks.find((network) => network?.type === type)?.ip_address;
  };
}

const col = (header: string, path: string, wide?: true): Column =>
  wide ? { header, path, wide } : { header, path };
const created = col('Created', 'created_at', true);

const KINDS: Record<string, Column[]> = {
  droplets: [
    col('ID', 'id'),
    col('Name', 'name'),
    { header: 'Public IPv4', get: address('v4', 'public') },
    col('Region', 'region.slug'),
    col('Size', 'size_slug'),
    col('Status', 'status'),
    col('Tags', 'tags'),
    { header: 'Private IPv4', get: address('v4', 'private'), wide: true },
    { header: 'Public IPv6', get: address('v6', 'public'), wide: true },
    col('Memory', 'memory', true),
    col('VCPUs', 'vcpus', true),
    col('Disk', 'disk', true),
    col('Image', 'image.slug', true),
    col('VPC UUID', 'vpc_uuid', true),
    col('Features', 'features', true),
    created,
  ],
  ssh_keys: [
    col('ID', 'id'),
    col('Name', 'name'),
    col('Fingerprint', 'fingerprint'),
    col('Public Key', 'public_key', true),
  ],
  domains: [col('Name', 'name'), col('TTL', 'ttl')],
  domain_records: [
    col('ID', 'id'),
    col('Type', 'type'),
    col('Name', 'name'),
    col('Data', 'data'),
    col('Priority', 'priority'),
    col('Port', 'port'),
    col('TTL', 'ttl'),
    col('Weight', 'weight', true),
    col('Flags', 'flags', true),
    col('Tag', 'tag', true),
  ],
  certificates: [
    col('ID', 'id'),
    col('Name', 'name'),
    col('DNS Names', 'dns_names'),
    col('Type', 'type'),
    col('State', 'state'),
    col('Expires', 'not_after'),
    col('SHA1 Fingerprint', 'sha1_fingerprint', true),
    created,
  ],
  firewalls: [
    col('ID', 'id'),
    col('Name', 'name'),
    col('Status', 'status'),
    col('VM IDs', 'droplet_ids'),
    col('Tags', 'tags'),
    col('Inbound Rules', 'inbound_rules', true),
    col('Outbound Rules', 'outbound_rules', true),
    created,
  ],
  load_balancers: [
    col('ID', 'id'),
    col('Name', 'name'),
    col('IP', 'ip'),
    col('Status', 'status'),
    col('Region', 'region.slug'),
    col('Size Unit', 'size_unit'),
    col('VM IDs', 'droplet_ids'),
    col('Tag', 'tag', true),
    col('Type', 'type', true),
    col('VPC UUID', 'vpc_uuid', true),
    col('Forwarding Rules', 'forwarding_rules', true),
    created,
  ],
  reserved_ips: [
    col('IP', 'ip'),
    col('Region', 'region.slug'),
    col('VM ID', 'droplet.id'),
    col('VM Name', 'droplet.name'),
    col('Project ID', 'project_id', true),
    col('Locked', 'locked', true),
  ],
  vpcs: [
    col('ID', 'id'),
    col('Name', 'name'),
    col('Region', 'region'),
    col('IP Range', 'ip_range'),
    col('Default', 'default'),
    col('URN', 'urn', true),
    col('Description', 'description', true),
    created,
  ],
  members: [col('URN', 'urn'), col('Name', 'name'), created],
  vpc_peerings: [
    col('ID', 'id'),
    col('Name', 'name'),
    col('VPC IDs', 'vpc_ids'),
    col('Status', 'status'),
    created,
  ],
  byoip_prefixes: [
    col('UUID', 'uuid'),
    col('Prefix', 'prefix'),
    col('Region', 'region'),
    col('Status', 'status'),
    col('Advertised', 'advertised', true),
    col('Failure Reason', 'failure_reason', true),
  ],
  databases: [
    col('ID', 'id'),
    col('Name', 'name'),
    col('Engine', 'engine'),
    col('Version', 'version'),
    col('Region', 'region'),
    col('Status', 'status'),
    col('Size', 'size'),
    col('Nodes', 'num_nodes'),
    col('Storage MiB', 'storage_size_mib', true),
    col('Host', 'connection.host', true),
    col('Port', 'connection.port', true),
    col('Private Network', 'private_network_uuid', true),
    col('Tags', 'tags', true),
    created,
  ],
  users: [col('Name', 'name'), col('Role', 'role'), col('Auth Plugin', 'mysql_settings.auth_plugin', true)],
  dbs: [col('Name', 'name')],
  pools: [
    col('Name', 'name'),
    col('Mode', 'mode'),
    col('Size', 'size'),
    col('DB', 'db'),
    col('User', 'user'),
  ],
  replicas: [
    col('ID', 'id'),
    col('Name', 'name'),
    col('Region', 'region'),
    col('Status', 'status'),
    col('Size', 'size'),
    col('Host', 'connection.host', true),
    created,
  ],
  topics: [
    col('Name', 'name'),
    col('State', 'state'),
    col('Partitions', 'partition_count'),
    col('Replication', 'replication_factor'),
  ],
  // Database backups have these two; a VM's backups are images and add an id and a name.
  backups: [
    col('Created', 'created_at'),
    col('Size GB', 'size_gigabytes'),
    col('ID', 'id', true),
    col('Name', 'name', true),
  ],
  snapshots: [
    col('ID', 'id'),
    col('Name', 'name'),
    col('Resource Type', 'resource_type'),
    col('Resource ID', 'resource_id'),
    col('Regions', 'regions'),
    col('Size GB', 'size_gigabytes'),
    col('Min Disk', 'min_disk_size', true),
    created,
  ],
  tags: [col('Name', 'name'), col('Resources', 'resources.count'), col('VMs', 'resources.droplets.count')],
  kernels: [col('ID', 'id'), col('Name', 'name'), col('Version', 'version')],
  images: [
    col('ID', 'id'),
    col('Name', 'name'),
    col('Type', 'type'),
    col('Distribution', 'distribution'),
    col('Slug', 'slug'),
    col('Public', 'public'),
    col('Min Disk', 'min_disk_size'),
    col('Status', 'status', true),
    col('Regions', 'regions', true),
    created,
  ],
  sizes: [
    col('Slug', 'slug'),
    col('Memory', 'memory'),
    col('VCPUs', 'vcpus'),
    col('Disk', 'disk'),
    col('Price Monthly', 'price_monthly'),
    col('Price Hourly', 'price_hourly'),
    col('Transfer', 'transfer', true),
    col('Available', 'available', true),
    col('Regions', 'regions', true),
  ],
  regions: [
    col('Slug', 'slug'),
    col('Name', 'name'),
    col('Available', 'available'),
    col('Features', 'features', true),
  ],
  actions: [
    col('ID', 'id'),
    col('Status', 'status'),
    col('Type', 'type'),
    col('Started At', 'started_at'),
    col('Completed At', 'completed_at'),
    col('Resource ID', 'resource_id'),
    col('Resource Type', 'resource_type'),
    col('Region', 'region_slug'),
  ],
  billing_history: [
    col('Date', 'date'),
    col('Type', 'type'),
    col('Description', 'description'),
    col('Amount', 'amount'),
  ],
  invoices: [
    col('Invoice UUID', 'invoice_uuid'),
    col('Invoice ID', 'invoice_id'),
    col('Amount', 'amount'),
    col('Period', 'invoice_period'),
    col('Updated', 'updated_at', true),
  ],
  accounts: [
    col('Email', 'email'),
    col('Name', 'name'),
    col('UUID', 'uuid'),
    col('Status', 'status'),
    col('VM Limit', 'droplet_limit'),
    col('Email Verified', 'email_verified', true),
    col('Team', 'team.name', true),
  ],
};

/** One resource's wrapper -> its list's (`droplet` -> `droplets`, `db` -> `dbs`). */
const SINGULAR: Record<string, string> = {
  droplet: 'droplets',
  ssh_key: 'ssh_keys',
  domain: 'domains',
  domain_record: 'domain_records',
  certificate: 'certificates',
  firewall: 'firewalls',
  load_balancer: 'load_balancers',
  reserved_ip: 'reserved_ips',
  reserved_ipv6: 'reserved_ips',
  vpc: 'vpcs',
  vpc_peering: 'vpc_peerings',
  byoip_prefix: 'byoip_prefixes',
  database: 'databases',
  user: 'users',
  db: 'dbs',
  pool: 'pools',
  replica: 'replicas',
  topic: 'topics',
  image: 'images',
  snapshot: 'snapshots',
  tag: 'tags',
  size: 'sizes',
  region: 'regions',
  action: 'actions',
  account: 'accounts',
};

const PLURAL_ALIASES: Record<string, string> = { reserved_ipv6s: 'reserved_ips', invoice_items: 'invoices' };

/** What an empty list is called in the CLI's words, where the platform's key differs from them. */
const LIST_NAMES: Record<string, string> = {
  droplets: 'VMs',
  ssh_keys: 'SSH keys',
  dbs: 'databases',
  vpcs: 'VPCs',
  vpc_peerings: 'VPC peerings',
  byoip_prefixes: 'BYOIP prefixes',
  reserved_ips: 'reserved IPs',
  reserved_ipv6s: 'reserved IPv6 addresses',
  ips: 'IPs',
};

/** `No VMs.`: the sentence a table of no items is, for the list wrapped in `key`. */
export function emptyListText(key: string | undefined): string {
  return `No ${key === undefined ? 'items' : (LIST_NAMES[key] ?? key.replace(/_/g, ' '))}.`;
}

/** The default columns of the resources wrapped in `key` (list or single), if the table has them. */
export function columnsFor(key: string, wide: boolean): Column[] | undefined {
  const kind = KINDS[key] ?? KINDS[SINGULAR[key] ?? ''] ?? KINDS[PLURAL_ALIASES[key] ?? ''];
  return kind?.filter((column) => wide || !column.wide);
}

/**
 * Columns named by `--format`: a default column by header, compared without spaces or case
 * (`PublicIPv4`, `public ipv4`), else a path into each item (`networks.v4.0.ip_address`).
 */
export function chosenColumns(names: readonly string[], key: string | undefined): Column[] {
  const known = key ? (columnsFor(key, true) ?? []) : [];
  const squash = (text: string) => text.replace(/\s+/g, '').toLowerCase();
  return names.map(
    (name) => known.find((column) => squash(column.header) === squash(name)) ?? { header: name, path: name },
  );
}

export function cellValue(item: Record<string, unknown>, column: Column): unknown {
  return column.get ? column.get(item) : valueAt(item, column.path as string);
}
