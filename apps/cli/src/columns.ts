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
  /** Shown only when `--format` names it: the same facts as a default column, split as doctl does. */
  chosen?: true;
  /** Other names `--format` takes for it: doctl's (`DropletIDs` for `VM IDs`). */
  aliases?: readonly string[];
  /** A list shown one item a line in `table` and `wide` (a firewall's rules), `; `-joined in `tsv`. */
  lines?: true;
  /** Shown only when an item has it: a new Spaces key's secret, which its creation alone answers. */
  whenSet?: true;
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

type Item = Record<string, unknown>;
const isItem = (value: unknown): value is Item =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const listAt = (item: unknown, path: string): unknown[] => {
  const value = valueAt(item, path);
  return Array.isArray(value) ? value : [];
};

/**
 * A firewall rule in a line: `inbound tcp 22 from 0.0.0.0/0, tag:web`, `outbound icmp to
 * 0.0.0.0/0`. Sources and destinations as the platform groups them: addresses as they are, then
 * tags, VMs, load balancers and Kubernetes clusters by prefix.
 */
export function firewallRuleText(rule: unknown, direction: 'inbound' | 'outbound'): string {
  const ends = valueAt(rule, direction === 'inbound' ? 'sources' : 'destinations');
  const targets = [
    ...listAt(ends, 'addresses'),
    ...listAt(ends, 'tags').map((tag) => `tag:${tag}`),
    ...listAt(ends, 'droplet_ids').map((id) => `vm:${id}`),
    ...listAt(ends, 'load_balancer_uids').map((id) => `lb:${id}`),
    ...listAt(ends, 'kubernetes_ids').map((id) => `k8s:${id}`),
  ];
  const protocol = String(valueAt(rule, 'protocol') ?? '?');
  const ports = String(valueAt(rule, 'ports') ?? '');
  // ICMP has no ports; "0" and "all" are every port.
  const range =
    protocol === 'icmp' || ports === '' ? '' : ports === '0' || ports === 'all' ? ' all ports' : ` ${ports}`;
  const where = `${direction === 'inbound' ? 'from' : 'to'} ${targets.length ? targets.join(', ') : 'nowhere'}`;
  return `${direction} ${protocol}${range} ${where}`;
}

const rules = (direction: 'inbound' | 'outbound') => (item: Item) =>
  listAt(item, `${direction}_rules`).map((rule) => firewallRuleText(rule, direction));

/** A load balancer's forwarding rule: `https:443 → http:80`. */
const forwarding = (item: Item) =>
  listAt(item, 'forwarding_rules').map(
    (rule) =>
      `${valueAt(rule, 'entry_protocol')}:${valueAt(rule, 'entry_port')} → ${valueAt(rule, 'target_protocol')}:${valueAt(rule, 'target_port')}`,
  );

/** `480000001 waiting`, `480000002 removing, waiting`: a firewall's changes still being applied. */
const pendingChanges = (item: Item) =>
  listAt(item, 'pending_changes').map(
    (change) =>
      `${valueAt(change, 'droplet_id')} ${valueAt(change, 'removing') === true ? 'removing, ' : ''}${valueAt(change, 'status')}`,
  );

/** One engine of `db-cluster-list-options`, as `rowsOf` makes it a row. */
const layoutNodes = (item: Item) => listAt(item, 'layouts').map((layout) => valueAt(layout, 'num_nodes'));
const layoutSizes = (item: Item) => [
  ...new Set(listAt(item, 'layouts').flatMap((layout) => listAt(layout, 'sizes'))),
];
const endOfLife = (item: Item) =>
  listAt(item, 'version_availability').flatMap((version) => {
    const eol = valueAt(version, 'end_of_life');
    return typeof eol === 'string' && eol ? [`${valueAt(version, 'version')}: ${eol.slice(0, 10)}`] : [];
  });

/** A Spaces key's grant as doctl's `--grants` takes it: `bucket=assets;permission=read`. */
const grantText = (grant: unknown) =>
  `bucket=${String(valueAt(grant, 'bucket') ?? '')};permission=${String(valueAt(grant, 'permission'))}`;
/** A deployment's progress as doctl shows it: steps done of all its steps (`3/7`). */
const stepsDone = (item: Item) => {
  const done = valueAt(item, 'progress.success_steps');
  const total = valueAt(item, 'progress.total_steps');
  return typeof total === 'number' ? `${typeof done === 'number' ? done : 0}/${total}` : undefined;
};

/** Bytes in binary units, as doctl shows image sizes: `3.52 MiB`. */
const bytes = (path: string) => (item: Item) => {
  const value = valueAt(item, path);
  if (typeof value !== 'number') return undefined;
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let size = value;
  let unit = 0;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${size.toFixed(2)} ${units[unit]}`;
};

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
  // doctl's columns (Inbound Rules and Outbound Rules by --format), the rules one a line.
  firewalls: [
    col('ID', 'id'),
    col('Name', 'name'),
    col('Status', 'status'),
    { header: 'Created At', path: 'created_at', wide: true, aliases: ['Created'] },
    { header: 'Rules', get: (item) => [...rules('inbound')(item), ...rules('outbound')(item)], lines: true },
    { header: 'Inbound Rules', get: rules('inbound'), lines: true, chosen: true },
    { header: 'Outbound Rules', get: rules('outbound'), lines: true, chosen: true },
    { header: 'VM IDs', path: 'droplet_ids', aliases: ['Droplet IDs'] },
    col('Tags', 'tags'),
    { header: 'Pending Changes', get: pendingChanges, wide: true },
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
    { header: 'Forwarding Rules', get: forwarding, wide: true, lines: true },
    created,
  ],
  // doctl's columns.
  volumes: [
    col('ID', 'id'),
    col('Name', 'name'),
    {
      header: 'Size',
      get: (item) => (item.size_gigabytes == null ? undefined : `${item.size_gigabytes} GiB`),
    },
    col('Region', 'region.slug'),
    col('Filesystem Type', 'filesystem_type'),
    col('Filesystem Label', 'filesystem_label'),
    { header: 'VM IDs', path: 'droplet_ids', aliases: ['Droplet IDs'] },
    col('Tags', 'tags'),
    col('Description', 'description', true),
    { header: 'Created At', path: 'created_at', wide: true, aliases: ['Created'] },
  ],
  // doctl's columns; the owner's ids and the dates with -o wide, to fit a terminal.
  projects: [
    col('ID', 'id'),
    col('Owner UUID', 'owner_uuid', true),
    col('Owner ID', 'owner_id', true),
    col('Name', 'name'),
    col('Description', 'description'),
    col('Purpose', 'purpose'),
    col('Environment', 'environment'),
    col('Is Default', 'is_default'),
    col('Created At', 'created_at', true),
    col('Updated At', 'updated_at', true),
  ],
  // db-cluster-list-options, an engine a row (rowsOf): what db-cluster-create takes.
  database_options: [
    col('Engine', 'engine'),
    col('Versions', 'versions'),
    col('Default', 'default_version'),
    { header: 'Nodes', get: layoutNodes },
    col('Regions', 'regions'),
    { header: 'Sizes', get: layoutSizes },
    { header: 'End of Life', get: endOfLife, wide: true },
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
  // doctl's columns for the container registry, its repositories, tags, manifests and collections.
  registries: [
    col('Name', 'name'),
    { header: 'Endpoint', get: (item) => `registry.digitalocean.com/${String(item.name)}` },
    col('Region', 'region'),
    { header: 'Storage Usage', get: bytes('storage_usage_bytes'), wide: true },
    { header: 'Created At', path: 'created_at', wide: true, aliases: ['Created'] },
  ],
  repositories: [
    col('Name', 'name'),
    col('Latest Manifest', 'latest_manifest.digest'),
    col('Latest Tag', 'latest_manifest.tags.0'),
    col('Tag Count', 'tag_count'),
    col('Manifest Count', 'manifest_count'),
    col('Updated At', 'latest_manifest.updated_at'),
  ],
  repository_tags: [
    col('Tag', 'tag'),
    { header: 'Compressed Size', get: bytes('compressed_size_bytes') },
    col('Updated At', 'updated_at'),
    col('Manifest Digest', 'manifest_digest'),
  ],
  manifests: [
    col('Manifest Digest', 'digest'),
    { header: 'Compressed Size', get: bytes('compressed_size_bytes') },
    { header: 'Uncompressed Size', get: bytes('size_bytes') },
    col('Tags', 'tags'),
    col('Updated At', 'updated_at'),
  ],
  garbage_collections: [
    col('UUID', 'uuid'),
    col('Registry Name', 'registry_name'),
    col('Status', 'status'),
    col('Created At', 'created_at'),
    col('Updated At', 'updated_at'),
    col('Blobs Deleted', 'blobs_deleted'),
    col('Bytes Freed', 'freed_bytes'),
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
  // doctl's columns; a grant as doctl's --grants takes it, and the secret where creation answers it.
  keys: [
    col('Name', 'name'),
    col('Access Key', 'access_key'),
    { header: 'Secret Key', path: 'secret_key', whenSet: true },
    { header: 'Grants', get: (item) => listAt(item, 'grants').map(grantText), lines: true },
    { header: 'Created At', path: 'created_at', aliases: ['Created'] },
  ],
  endpoints: [
    col('ID', 'id'),
    col('Origin', 'origin'),
    col('Endpoint', 'endpoint'),
    col('TTL', 'ttl'),
    col('Custom Domain', 'custom_domain'),
    col('Certificate ID', 'certificate_id'),
    { header: 'Created At', path: 'created_at', aliases: ['Created'] },
  ],
  // doctl apps list, apps list-deployments, apps list-instance-sizes
  apps: [
    col('ID', 'id'),
    col('Spec Name', 'spec.name'),
    col('Default Ingress', 'default_ingress'),
    col('Active Deployment ID', 'active_deployment.id'),
    col('In Progress Deployment ID', 'in_progress_deployment.id'),
    col('Created At', 'created_at'),
    col('Updated At', 'updated_at'),
    col('Region', 'region.slug', true),
    col('Live URL', 'live_url', true),
  ],
  deployments: [
    col('ID', 'id'),
    col('Cause', 'cause'),
    { header: 'Progress', get: stepsDone },
    col('Phase', 'phase'),
    col('Created At', 'created_at'),
    col('Updated At', 'updated_at'),
  ],
  instance_sizes: [
    col('Name', 'name'),
    col('Slug', 'slug'),
    col('CPU Type', 'cpu_type'),
    col('CPUs', 'cpus'),
    col('Memory Bytes', 'memory_bytes'),
    col('USD/Month', 'usd_per_month'),
    col('Tier', 'tier_slug'),
    col('USD/Second', 'usd_per_second', true),
  ],
  // doctl's columns of `kubernetes cluster list`.
  kubernetes_clusters: [
    col('ID', 'id'),
    col('Name', 'name'),
    col('Region', 'region'),
    col('Version', 'version'),
    col('Auto Upgrade', 'auto_upgrade'),
    col('Status', 'status.state'),
    { header: 'Node Pools', get: (item) => listAt(item, 'node_pools').map((pool) => valueAt(pool, 'name')) },
    col('Endpoint', 'endpoint', true),
    col('IPv4', 'ipv4', true),
    col('VPC UUID', 'vpc_uuid', true),
    col('Tags', 'tags', true),
    created,
  ],
  node_pools: [
    col('ID', 'id'),
    col('Name', 'name'),
    col('Size', 'size'),
    col('Count', 'count'),
    col('Tags', 'tags'),
    col('Labels', 'labels', true),
    col('Auto Scale', 'auto_scale', true),
    col('Min Nodes', 'min_nodes', true),
    col('Max Nodes', 'max_nodes', true),
    {
      header: 'Nodes',
      get: (item) => listAt(item, 'nodes').map((node) => valueAt(node, 'name') || valueAt(node, 'id')),
    },
  ],
  kubernetes_versions: [
    col('Slug', 'slug'),
    col('Kubernetes Version', 'kubernetes_version'),
    col('Supported Features', 'supported_features'),
  ],
  kubernetes_sizes: [col('Slug', 'slug'), col('Name', 'name')],
  kubernetes_regions: [col('Slug', 'slug'), col('Name', 'name')],
  available_upgrade_versions: [col('Slug', 'slug'), col('Kubernetes Version', 'kubernetes_version')],
  diagnostics: [
    col('Check', 'check_name'),
    col('Severity', 'severity'),
    col('Kind', 'object.kind'),
    col('Namespace', 'object.namespace'),
    col('Name', 'object.name'),
    col('Message', 'message'),
  ],
  '1_clicks': [col('Slug', 'slug'), col('Type', 'type')],
  accounts: [
    col('Email', 'email'),
    col('Name', 'name'),
    col('UUID', 'uuid'),
    col('Status', 'status'),
    col('VM Limit', 'droplet_limit'),
    col('Email Verified', 'email_verified', true),
    col('Team', 'team.name', true),
  ],
  // doctl's columns of monitoring alert policies, uptime checks and uptime alerts.
  policies: [
    col('UUID', 'uuid'),
    col('Type', 'type'),
    col('Description', 'description'),
    col('Compare', 'compare'),
    col('Value', 'value'),
    col('Window', 'window'),
    col('Entities', 'entities'),
    col('Tags', 'tags'),
    col('Emails', 'alerts.email'),
    {
      header: 'Slack Channels',
      get: (item) => listAt(item, 'alerts.slack').map((s) => valueAt(s, 'channel')),
    },
    col('Enabled', 'enabled'),
  ],
  checks: [
    col('ID', 'id'),
    col('Name', 'name'),
    col('Type', 'type'),
    col('Target', 'target'),
    col('Regions', 'regions'),
    col('Enabled', 'enabled'),
  ],
  alerts: [
    col('ID', 'id'),
    col('Name', 'name'),
    col('Type', 'type'),
    col('Threshold', 'threshold'),
    col('Comparison', 'comparison'),
    col('Period', 'period'),
    col('Emails', 'notifications.email'),
    {
      header: 'Slack Channels',
      get: (item) => listAt(item, 'notifications.slack').map((s) => valueAt(s, 'channel')),
    },
  ],
  // monitoring-uptime-get-state, a region a row (rowsOf).
  uptime_regions: [
    col('Region', 'region'),
    col('Status', 'status'),
    col('Since', 'status_changed_at'),
    col('30-Day Uptime %', 'thirty_day_uptime_percentage'),
  ],
  // monitoring-metrics-get, a sample a row (rowsOf); Series tells several apart.
  metric_samples: [col('Time', 'time'), col('Value', 'value'), col('Series', 'series')],
};

/** One resource's wrapper -> its list's (`droplet` -> `droplets`, `db` -> `dbs`). */
const SINGULAR: Record<string, string> = {
  droplet: 'droplets',
  ssh_key: 'ssh_keys',
  domain: 'domains',
  domain_record: 'domain_records',
  certificate: 'certificates',
  firewall: 'firewalls',
  volume: 'volumes',
  project: 'projects',
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
  policy: 'policies',
  check: 'checks',
  alert: 'alerts',
  key: 'keys',
  endpoint: 'endpoints',
  app: 'apps',
  deployment: 'deployments',
  instance_size: 'instance_sizes',
  kubernetes_cluster: 'kubernetes_clusters',
  node_pool: 'node_pools',
  registry: 'registries',
  garbage_collection: 'garbage_collections',
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
  policies: 'alert policies',
  checks: 'uptime checks',
  metric_samples: 'samples',
  keys: 'Spaces keys',
  endpoints: 'CDN endpoints',
  kubernetes_clusters: 'Kubernetes clusters',
  node_pools: 'node pools',
};

/** `No VMs.`: the sentence a table of no items is, for the list wrapped in `key`. */
export function emptyListText(key: string | undefined): string {
  return `No ${key === undefined ? 'items' : (LIST_NAMES[key] ?? key.replace(/_/g, ' '))}.`;
}

/** Every column of the resources wrapped in `key` (list or single), if the table has them. */
export function knownColumns(key: string): Column[] | undefined {
  return KINDS[key] ?? KINDS[SINGULAR[key] ?? ''] ?? KINDS[PLURAL_ALIASES[key] ?? ''];
}

/** The default columns of the resources wrapped in `key` (list or single), if the table has them. */
export function columnsFor(key: string, wide: boolean): Column[] | undefined {
  return knownColumns(key)?.filter((column) => !column.chosen && (wide || !column.wide));
}

/**
 * Columns named by `--format`: a column of the kind by header or by doctl's name for it, compared
 * without spaces, punctuation or case (`PublicIPv4`, `public ipv4`, `DropletIDs`), else a path into
 * each item (`networks.v4.0.ip_address`).
 */
export function chosenColumns(names: readonly string[], key: string | undefined): Column[] {
  const known = key ? (knownColumns(key) ?? []) : [];
  const squash = (text: string) => text.replace(/[^\p{L}\p{N}]+/gu, '').toLowerCase();
  return names.map(
    (name) =>
      known.find((column) =>
        [column.header, ...(column.aliases ?? [])].some((header) => squash(header) === squash(name)),
      ) ?? { header: name, path: name },
  );
}

/**
 * Results that are not a list but read best as one, as rows of a kind: `db-cluster-list-options`
 * (`{ options: { pg: {...}, mysql: {...} }, version_availability }`) as an engine a row.
 */
export function rowsOf(result: Item): { key: string; items: Item[] } | undefined {
  const monitoring = metricRows(result) ?? uptimeStateRows(result);
  if (monitoring) return monitoring;
  // A repository's tags (registry-repository-list-tags), not the account's tags.
  const { tags } = result;
  if (Array.isArray(tags) && tags.some((tag) => isItem(tag) && 'manifest_digest' in tag)) {
    return { key: 'repository_tags', items: tags as Item[] };
  }
  const { options } = result;
  const engines = isItem(options) ? Object.entries(options) : [];
  const engineLike = (value: unknown) =>
    isItem(value) && ['regions', 'versions', 'layouts'].some((field) => Array.isArray(value[field]));
  if (!engines.length || !engines.every(([, value]) => engineLike(value))) return undefined;
  const availability = isItem(result.version_availability) ? result.version_availability : {};
  return {
    key: 'database_options',
    items: engines.map(([engine, value]) => ({
      engine,
      ...(value as Item),
      version_availability: availability[engine],
    })),
  };
}

const ACRONYMS: Record<string, string> = {
  id: 'ID',
  ids: 'IDs',
  uuid: 'UUID',
  urn: 'URN',
  url: 'URL',
  uri: 'URI',
  ip: 'IP',
  ips: 'IPs',
  ipv4: 'IPv4',
  ipv6: 'IPv6',
  vpc: 'VPC',
  dns: 'DNS',
  ttl: 'TTL',
  cpu: 'CPU',
  vcpus: 'VCPUs',
  gb: 'GB',
  mb: 'MB',
  mib: 'MiB',
  gib: 'GiB',
  ssl: 'SSL',
  tls: 'TLS',
  http: 'HTTP',
  https: 'HTTPS',
  api: 'API',
  cidr: 'CIDR',
  db: 'DB',
  sql: 'SQL',
  eol: 'EOL',
  ssh: 'SSH',
  sha1: 'SHA1',
  sha256: 'SHA256',
};

/** A field's name as a header, in doctl's Title Case: `assigned_at` -> `Assigned At`, `vpc_uuid` -> `VPC UUID`. */
export function headerOf(field: string): string {
  return field
    .split(/[_\s]+/)
    .filter(Boolean)
    .map((word) => ACRONYMS[word.toLowerCase()] ?? word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

export function cellValue(item: Record<string, unknown>, column: Column): unknown {
  return column.get ? column.get(item) : valueAt(item, column.path as string);
}

const timeText = (seconds: unknown) => new Date(Number(seconds) * 1000).toISOString().replace('.000Z', 'Z');

/**
 * A metrics answer (the platform's Prometheus matrix) as a sample a row: its time and value, and
 * with several series, the labels that tell them apart. CPU comes as seconds per mode, counters
 * that only grow: shown as the share of the time busy between samples, a row per interval.
 */
function metricRows(result: Item): { key: string; items: Item[] } | undefined {
  const data = result.data;
  if (!isItem(data) || data.resultType !== 'matrix' || !Array.isArray(data.result)) return undefined;
  const series = data.result.filter(isItem);
  const samples = (each: Item) => listAt(each, 'values').filter(Array.isArray) as unknown[][];
  const labels = (each: Item) => (isItem(each.metric) ? each.metric : {});
  if (series.length > 1 && series.every((each) => typeof labels(each).mode === 'string')) {
    const at = new Map<number, { idle: number; total: number }>();
    for (const each of series) {
      for (const [time, value] of samples(each)) {
        const sum = at.get(Number(time)) ?? { idle: 0, total: 0 };
        sum.total += Number(value);
        if (labels(each).mode === 'idle') sum.idle += Number(value);
        at.set(Number(time), sum);
      }
    }
    const times = [...at.keys()].sort((a, b) => a - b);
    const items = times.slice(1).map((time, index) => {
      const before = at.get(times[index] as number) as { idle: number; total: number };
      const now = at.get(time) as { idle: number; total: number };
      const spent = now.total - before.total;
      const busy = spent > 0 ? (100 * (1 - (now.idle - before.idle) / spent)).toFixed(2) : '';
      return { time: timeText(time), value: busy, series: 'CPU used %' };
    });
    return { key: 'metric_samples', items };
  }
  const varying = (each: Item) =>
    Object.entries(labels(each))
      .filter(([key, value]) => series.some((other) => labels(other)[key] !== value))
      .map(([key, value]) => `${key}=${value}`)
      .join(',');
  return {
    key: 'metric_samples',
    items: series.flatMap((each) =>
      samples(each).map(([time, value]) => ({
        time: timeText(time),
        value,
        ...(series.length > 1 ? { series: varying(each) } : {}),
      })),
    ),
  };
}

/** An uptime check's state (monitoring-uptime-get-state) as a region a row. */
function uptimeStateRows(result: Item): { key: string; items: Item[] } | undefined {
  const state = result.state;
  if (!isItem(state) || !isItem(state.regions) || Object.keys(result).length !== 1) return undefined;
  return {
    key: 'uptime_regions',
    items: Object.entries(state.regions).map(([region, value]) => ({
      region,
      ...(isItem(value) ? value : {}),
    })),
  };
}
