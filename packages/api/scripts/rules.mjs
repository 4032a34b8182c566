// The reviewed table beside the operation model: what the API description is silent on. Which
// fields of a request name a resource, of what kind, and what the request does to it; which
// operations and action types destroy or replace; which deletes empty a container whose members
// must be looked at first. generate.mjs applies it to every operation of the subset, refuses a
// field that looks like a resource reference and that no rule covers, and writes the result into
// the model; src/rules.test.ts holds each rule to its example.
//
// Roles: `target` the request changes it; `join` the request makes something a member of it (a
// project, a VPC, a tag); `source` the request copies its data into something new (a snapshot, an
// image); `use` the request points at it without changing it (an SSH key installed, a certificate
// served, a firewall rule's traffic source); `none` it names nothing cloudcall can protect.

/**
 * The kinds of resource a request can name, and where one is read by its id (`{id}`), so that the
 * guard sees its name and tags. `urn`: its type in a URN (`do:droplet:7`); `types`: its
 * `resource_type` in a tag's resource list. A kind with no `read` is known by what the request says
 * (a tag is its name).
 */
export const KINDS = {
  droplet: { read: '/v2/droplets/{id}', urn: ['droplet'], types: ['droplet'] },
  volume: { read: '/v2/volumes/{id}', urn: ['volume'], types: ['volume'], byName: '/v2/volumes' },
  snapshot: { read: '/v2/snapshots/{id}', types: ['volume_snapshot'] },
  image: { read: '/v2/images/{id}', types: ['image'] },
  vpc: { read: '/v2/vpcs/{id}', urn: ['vpc'] },
  project: { read: '/v2/projects/{id}' },
  tag: {},
  database: { read: '/v2/databases/{id}', urn: ['dbaas'], types: ['database'] },
  kubernetes_cluster: { read: '/v2/kubernetes/clusters/{id}', urn: ['kubernetes'] },
  load_balancer: { read: '/v2/load_balancers/{id}', urn: ['loadbalancer'] },
  firewall: { read: '/v2/firewalls/{id}' },
  certificate: { read: '/v2/certificates/{id}' },
  ssh_key: { read: '/v2/account/keys/{id}' },
  domain: { read: '/v2/domains/{id}', urn: ['domain'] },
  reserved_ip: { read: '/v2/reserved_ips/{id}', urn: ['floatingip', 'reservedip'] },
  app: { read: '/v2/apps/{id}', urn: ['app'] },
  space: { urn: ['space'] },
  nfs: { read: '/v2/nfs/{id}', urn: ['nfs'] },
  agent: { read: '/v2/gen-ai/agents/{id}' },
  knowledge_base: { read: '/v2/gen-ai/knowledge_bases/{id}' },
  workspace: { read: '/v2/gen-ai/workspaces/{id}' },
};

/**
 * Body fields, by name: the first rule whose `field` is the field's name, whose `under` (when
 * given) matches the path of the object holding it, and whose `ops` (when given) holds the
 * operation, decides. `by`: how the value names it (`id`, the default; `name`; `urn`; `typed`, a
 * `{ resource_id, resource_type }` object; `associated`, the lists a selective destroy names by
 * kind). `within`: a sibling field that narrows a name (a volume's region). Each has an example
 * request and the values the guard must find in it (`test`), checked by src/rules.test.ts.
 */
export const BODY_RULES = [
  // Traffic sources and destinations of a firewall rule: allowed to connect, not changed.
  ...['droplet_ids', 'kubernetes_ids', 'load_balancer_uids', 'tags'].map((field) => ({
    field,
    under: /(^|\.)(sources|destinations)$/,
    kind: {
      droplet_ids: 'droplet',
      kubernetes_ids: 'kubernetes_cluster',
      load_balancer_uids: 'load_balancer',
      tags: 'tag',
    }[field],
    role: 'use',
    by: field === 'tags' ? 'name' : 'id',
    test: {
      op: 'firewalls_add_rules',
      body: { inbound_rules: [{ protocol: 'tcp', ports: '22', sources: { [field]: ['x-1'] } }] },
      values: ['x-1'],
    },
  })),
  {
    field: 'droplet_id',
    kind: 'droplet',
    role: 'target',
    test: { op: 'volumeActions_post_byId', body: { type: 'attach', droplet_id: 7 }, values: [7] },
  },
  {
    field: 'droplet_ids',
    kind: 'droplet',
    role: 'target',
    test: { op: 'loadBalancers_add_droplets', body: { droplet_ids: [7, 8] }, values: [7, 8] },
  },
  {
    field: 'tags',
    under: /(^|\.)tags$/,
    kind: 'tag',
    role: 'none',
    note: "a custom model's own labels, not the platform's tags",
    test: { op: 'genai_update_custom_model_metadata', body: { tags: { tags: ['x'] } }, values: [] },
  },
  {
    field: 'tags',
    kind: 'tag',
    by: 'name',
    role: 'join',
    note: 'a resource tagged prod becomes a member of tag prod: a change to a protected tag',
    test: {
      op: 'droplets_create',
      body: { name: 'a', size: 's', image: 'i', tags: ['web', 'prod'] },
      values: ['web', 'prod'],
    },
  },
  {
    field: 'tag',
    under: /(^|\.)image$/,
    kind: 'tag',
    role: 'none',
    note: "a container image's tag",
    test: {
      op: 'apps_create',
      body: {
        spec: {
          name: 'a',
          services: [{ name: 's', image: { registry_type: 'DOCR', repository: 'r', tag: 'latest' } }],
        },
      },
      values: [],
    },
  },
  {
    field: 'tag',
    ops: ['domains_create_record', 'domains_update_record', 'domains_patch_record'],
    kind: 'tag',
    role: 'none',
    note: "a CAA record's tag (issue, iodef)",
    test: {
      op: 'domains_create_record',
      body: { type: 'CAA', name: '@', data: 'x', tag: 'issue' },
      values: [],
    },
  },
  {
    field: 'tag',
    kind: 'tag',
    by: 'name',
    role: 'join',
    note: 'a load balancer serving tag prod acts on every member of tag prod',
    test: {
      op: 'loadBalancers_create',
      body: { region: 'nyc3', forwarding_rules: [], tag: 'prod' },
      values: ['prod'],
    },
  },
  {
    field: 'resources',
    ops: ['tags_assign_resources', 'tags_unassign_resources'],
    kind: 'droplet',
    by: 'typed',
    role: 'target',
    test: {
      op: 'tags_assign_resources',
      body: { resources: [{ resource_id: '7', resource_type: 'droplet' }] },
      values: ['droplet:7'],
    },
  },
  {
    field: 'resources',
    ops: ['projects_assign_resources', 'projects_assign_resources_default'],
    kind: 'droplet',
    by: 'urn',
    role: 'target',
    note: 'assigning moves a resource out of the project it was in',
    test: {
      op: 'projects_assign_resources',
      body: { resources: ['do:droplet:7', 'do:volume:v-1'] },
      values: ['droplet:7', 'volume:v-1'],
    },
  },
  {
    field: 'resources',
    ops: ['monitoring_create_sink'],
    kind: 'droplet',
    role: 'none',
    note: 'a log sink reads the resources it lists (by URN, under resources[].urn)',
    test: {
      op: 'monitoring_create_sink',
      body: { destination_uuid: 'd', resources: [{ urn: 'do:dbaas:1', name: 'db' }] },
      values: [],
    },
  },
  {
    field: 'urn',
    under: /^resources\[\]$/,
    ops: ['monitoring_create_sink'],
    kind: 'database',
    by: 'urn',
    role: 'use',
    test: {
      op: 'monitoring_create_sink',
      body: { destination_uuid: 'd', resources: [{ urn: 'do:dbaas:1', name: 'db' }] },
      values: ['database:1'],
    },
  },
  {
    field: 'resources',
    ops: ['security_create_suppression', 'security_update_settings_plan'],
    kind: 'droplet',
    role: 'none',
    note: 'security scanning settings name resources they report on, not ones they change',
    test: { op: 'security_create_suppression', body: { resources: ['do:droplet:7'] }, values: [] },
  },
  {
    field: 'tags',
    under: /^tier_coverage\{\}$/,
    kind: 'tag',
    role: 'none',
    note: 'which tags a security plan scans',
    test: {
      op: 'security_update_settings_plan',
      body: { tier_coverage: { basic: { tags: ['prod'] } } },
      values: [],
    },
  },
  {
    field: 'volumes',
    ops: ['droplets_create'],
    kind: 'volume',
    role: 'target',
    note: 'attached to the new VM (ids, or objects with an id as the Go client sends them)',
    test: {
      op: 'droplets_create',
      body: { name: 'a', size: 's', image: 'i', volumes: ['v-1', { id: 'v-2' }] },
      values: ['v-1', 'v-2'],
    },
  },
  {
    field: 'names',
    ops: ['droplets_create'],
    kind: 'droplet',
    role: 'none',
    note: 'the names of the VMs it creates',
    test: { op: 'droplets_create', body: { names: ['a', 'b'], size: 's', image: 'i' }, values: [] },
  },
  ...[
    ['volumes', 'volume'],
    ['snapshots', 'snapshot'],
    ['volume_snapshots', 'snapshot'],
    ['reserved_ips', 'reserved_ip'],
    ['floating_ips', 'reserved_ip'],
    ['load_balancers', 'load_balancer'],
  ].map(([field, kind]) => ({
    field,
    ops: [
      'droplets_destroy_withAssociatedResourcesSelective',
      'kubernetes_destroy_associatedResourcesSelective',
    ],
    kind,
    role: 'target',
    note: 'destroyed with the VM or cluster',
    test: {
      // A cluster's destroy is the one that names load balancers.
      op:
        field === 'load_balancers'
          ? 'kubernetes_destroy_associatedResourcesSelective'
          : 'droplets_destroy_withAssociatedResourcesSelective',
      body: { [field]: ['x-1'] },
      values: ['x-1'],
    },
  })),
  ...['resources', 'volumes', 'volume_snapshots', 'droplets'].map((field) => ({
    field,
    ops: ['tags_create'],
    kind: 'tag',
    role: 'none',
    note: "a tag's resource counts, answered by the platform",
    test: { op: 'tags_create', body: { name: 't', resources: { droplets: { count: 1 } } }, values: [] },
  })),
  {
    field: 'snapshot_id',
    kind: 'snapshot',
    role: 'source',
    note: 'the new volume holds a copy of the snapshot, and of the volume it was taken of',
    test: {
      op: 'volumes_create',
      body: { name: 'v', size_gigabytes: 10, snapshot_id: 's-1' },
      values: ['s-1'],
    },
  },
  {
    field: 'image',
    ops: ['droplets_create', 'dropletActions_post', 'autoscalepools_create', 'autoscalepools_update'],
    kind: 'image',
    role: 'source',
    note: 'a VM made or rebuilt from a snapshot or backup holds a copy of its data (an id or a slug)',
    test: { op: 'droplets_create', body: { name: 'a', size: 's', image: 123 }, values: [123] },
  },
  {
    field: 'image',
    kind: 'image',
    role: 'none',
    note: "an app component's container image (registry, repository, tag)",
    test: { op: 'apps_create', body: { spec: { name: 'a' } }, values: [] },
  },
  ...['vpc_uuid', 'private_network_uuid'].map((field) => ({
    field,
    kind: 'vpc',
    role: 'join',
    note: 'a resource made in a VPC is a member of it',
    test:
      field === 'vpc_uuid'
        ? {
            op: 'droplets_create',
            body: { name: 'a', size: 's', image: 'i', vpc_uuid: 'vpc-1' },
            values: ['vpc-1'],
          }
        : {
            op: 'databases_create_cluster',
            body: {
              name: 'd',
              engine: 'pg',
              num_nodes: 1,
              size: 's',
              region: 'nyc3',
              private_network_uuid: 'vpc-1',
            },
            values: ['vpc-1'],
          },
  })),
  {
    field: 'id',
    under: /(^|\.)vpc$/,
    kind: 'vpc',
    role: 'join',
    test: { op: 'apps_create', body: { spec: { name: 'a', vpc: { id: 'vpc-1' } } }, values: ['vpc-1'] },
  },
  {
    field: 'uuid',
    under: /(^|\.)vpc$/,
    kind: 'vpc',
    role: 'join',
    test: { op: 'dedicatedInferences_create', body: { spec: { vpc: { uuid: 'vpc-1' } } }, values: ['vpc-1'] },
  },
  ...['vpc_id', 'vpc_ids', 'new_vpc_id', 'old_vpc_id'].map((field) => ({
    field,
    kind: 'vpc',
    role: 'join',
    note: 'attaches the resource to the VPC, or peers the VPC',
    test:
      field === 'vpc_ids'
        ? {
            op: 'vpcPeerings_create',
            body: { name: 'p', vpc_ids: ['vpc-1', 'vpc-2'] },
            values: ['vpc-1', 'vpc-2'],
          }
        : {
            op: 'nfs_create_action',
            body: { type: 'attach', params: { [field]: 'vpc-1' } },
            values: ['vpc-1'],
          },
  })),
  ...['vpcs', 'vpc'].map((field) => ({
    field,
    kind: 'vpc',
    role: 'none',
    note: 'what holds a VPC reference (its vpc_uuid, id or uuid is the reference)',
    test:
      field === 'vpcs'
        ? { op: 'vpcnatgateways_create', body: { vpcs: [{ vpc_uuid: 'vpc-1' }] }, values: [] }
        : { op: 'apps_create', body: { spec: { name: 'a', vpc: { id: 'vpc-1' } } }, values: [] },
  })),
  {
    field: 'project_id',
    kind: 'project',
    role: 'join',
    note: 'a resource made in a project is a member of it',
    test: { op: 'reservedIPs_create', body: { region: 'nyc3', project_id: 'p-1' }, values: ['p-1'] },
  },
  {
    field: 'ssh_keys',
    kind: 'ssh_key',
    role: 'use',
    note: 'installed on the new VM; the key itself is not changed',
    test: {
      op: 'droplets_create',
      body: { name: 'a', size: 's', image: 'i', ssh_keys: [1, 'ab:cd'] },
      values: [1, 'ab:cd'],
    },
  },
  {
    field: 'certificate_id',
    kind: 'certificate',
    role: 'use',
    note: 'served by a load balancer or CDN endpoint; not changed',
    test: { op: 'cdn_create_endpoint', body: { origin: 'o', certificate_id: 'c-1' }, values: ['c-1'] },
  },
  {
    field: 'target_load_balancer_ids',
    kind: 'load_balancer',
    role: 'use',
    note: 'a global load balancer sends traffic to them; they are not changed',
    test: {
      op: 'loadBalancers_create',
      body: { region: 'nyc3', forwarding_rules: [], target_load_balancer_ids: ['lb-1'] },
      values: ['lb-1'],
    },
  },
  {
    field: 'cluster_uuids',
    kind: 'kubernetes_cluster',
    role: 'target',
    note: "the clusters given (or refused) the registry's credentials",
    test: { op: 'kubernetes_add_registry', body: { cluster_uuids: ['k-1'] }, values: ['k-1'] },
  },
  {
    field: 'cluster_uuid',
    ops: ['oneClicks_install_kubernetes'],
    kind: 'kubernetes_cluster',
    role: 'target',
    note: 'the add-ons are installed into it',
    test: {
      op: 'oneClicks_install_kubernetes',
      body: { addon_slugs: ['x'], cluster_uuid: 'k-1' },
      values: ['k-1'],
    },
  },
  {
    field: 'cluster_uuid',
    kind: 'database',
    role: 'none',
    note: "a database firewall rule's own cluster, or a monitoring destination's OpenSearch cluster",
    test: {
      op: 'databases_update_firewall_rules',
      body: { rules: [{ type: 'ip_addr', value: '1.2.3.4', cluster_uuid: 'd-1' }] },
      values: [],
    },
  },
  {
    field: 'database_id',
    kind: 'database',
    role: 'use',
    note: 'where a knowledge base keeps its vectors',
    test: { op: 'genai_create_knowledge_base', body: { name: 'kb', database_id: 'd-1' }, values: ['d-1'] },
  },
  {
    field: 'linked_droplet_id',
    kind: 'droplet',
    role: 'use',
    test: { op: 'addons_create', body: { linked_droplet_id: 7 }, values: [7] },
  },
  {
    field: 'firewall',
    kind: 'firewall',
    role: 'none',
    note: "a load balancer's own firewall rules, not a firewall resource",
    test: {
      op: 'loadBalancers_create',
      body: { region: 'nyc3', forwarding_rules: [], firewall: { deny: [] } },
      values: [],
    },
  },
  {
    field: 'agent_uuids',
    ops: ['genai_update_agents_workspace', 'genai_create_workspace'],
    kind: 'agent',
    role: 'target',
    note: 'the agents move into the workspace',
    test: { op: 'genai_update_agents_workspace', body: { agent_uuids: ['a-1'] }, values: ['a-1'] },
  },
  ...[
    ['knowledge_base_uuid', 'knowledge_base'],
    ['workspace_uuid', 'workspace'],
  ].map(([field, kind]) => ({
    field,
    kind,
    role: 'use',
    test: { op: 'genai_create_agent', body: { name: 'a', [field]: 'x-1' }, values: ['x-1'] },
  })),
];

/**
 * Fields that look like references (their names end in `_id`, `_uuid`, `_name`, `_slug`...) but
 * name nothing cloudcall can protect: generated names, other services' ids, a resource's own new
 * name, a slug of a size or plan. Listed so that a new field of the description is looked at
 * rather than passed over.
 */
export const NOT_REFERENCES = [
  // Slugs of sizes, plans, tiers, regions, models, presets.
  'accelerator_slug',
  'addon_slugs',
  'app_slug',
  'environment_slug',
  'instance_size_slug',
  'model_slug',
  'plan_slug',
  'region_slug',
  'router_preset_slug',
  'subscription_tier_slug',
  'task_slug',
  'tier_slug',
  // New names a request gives, and names inside other services.
  'name',
  'action_destructive_requires_name',
  'agent_deployment_names',
  'agent_workspace_name',
  'bucket_name',
  'candidate_model_name',
  'cluster_name',
  'cookie_name',
  'database_name',
  'db_name',
  'db_names',
  'faas_name',
  'file_name',
  'function_name',
  'index_name',
  'metric_name',
  'original_file_name',
  'preset_name',
  'route_name',
  'run_name',
  'sink_name',
  'subject_name',
  'dns_names',
  'domain',
  'domains',
  'database',
  'databases',
  'registry',
  'registries',
  // Ids of things that are not account resources (users, files, calls, credentials, other clouds).
  'client_id',
  'owner_id',
  'owner_uuid',
  'recipient_uuid',
  'transfer_id',
  'request_id',
  'user_id',
  'file_id',
  'folder_id',
  'key_id',
  'repo_id',
  'tool_call_id',
  'tool_use_id',
  'model_id',
  'fingerprint',
  'id',
  'uuid',
  'resource_id',
  'app_id',
  'app_ids',
  'deployment_id',
  'backup_id',
  'fleet_uuid',
  'parent_uuid',
  'worker_subnet_uuid',
  'destination_uuid',
  'rule_uuid',
  // GenAI parts addressed by the path, or catalogue entries (models, presets, metrics, datasets).
  'agent_uuid',
  'api_key_uuid',
  'anthropic_key_uuid',
  'open_ai_key_uuid',
  'model_provider_key_uuid',
  'model_router_uuid',
  'model_uuid',
  'embedding_model_uuid',
  'candidate_model_uuid',
  'judge_model_uuid',
  'eval_preset_uuid',
  'eval_run_uuid',
  'metric_uuid',
  'metric_uuids',
  'dataset_uuid',
  'test_case_uuid',
  'data_source_uuid',
  'data_source_uuids',
  'function_uuid',
  'guardrail_uuid',
  'child_agent_uuid',
  'parent_agent_uuid',
  'agent_uuids',
];

/** What a name must look like to be taken for a reference, and so need a rule or a place above. */
export const REFERENCE_LIKE =
  /(^|_)(id|ids|uuid|uuids|uid|uids|urn|urns|name|names|slug|slugs|fingerprint)$|^(resources|tags?|volumes?|snapshots?|images?|droplets?|ssh_keys|vpcs?|reserved_ips|floating_ips|volume_snapshots|projects?|certificates?|databases?|clusters?|registry|registries|apps?|load_balancers?|firewalls?|domains?)$/;

/**
 * References the description does not list in the request body at all (it shows them only in its
 * examples), and query parameters of changing requests, with their rules.
 */
export const EXTRA_REFERENCES = [
  {
    op: 'volumeActions_post',
    in: 'body',
    at: 'volume_name',
    kind: 'volume',
    by: 'name',
    within: 'region',
    role: 'target',
    note: 'attach and detach by name: the volume of that name (in the region given)',
    test: { body: { type: 'attach', volume_name: 'data', region: 'nyc1', droplet_id: 7 }, values: ['data'] },
  },
  {
    op: 'volumes_delete_byName',
    in: 'query',
    at: 'name',
    kind: 'volume',
    by: 'name',
    within: 'region',
    role: 'target',
    test: { query: { name: 'data', region: 'nyc1' }, values: ['data'] },
  },
  ...['dropletActions_post_byTag', 'droplets_destroy_byTag'].map((op) => ({
    op,
    in: 'query',
    at: 'tag_name',
    kind: 'tag',
    by: 'members',
    role: 'target',
    note: 'acts on every VM carrying the tag, on every page of them',
    test: { query: { tag_name: 'web' }, values: ['web'] },
  })),
];

/** Query parameters of changing requests that name nothing (flags, pages, scopes). */
export const NOT_REFERENCE_QUERIES = [
  'job_name',
  'skip_drain',
  'replace',
  'region',
  'per_page',
  'page',
  'agent',
];

/**
 * Operations other than DELETEs that destroy or replace (each with why); for an action operation,
 * the action types that do (its other types do not). Every DELETE destroys.
 */
export const DESTRUCTIVE = {
  dropletActions_post: ['power_cycle', 'power_off', 'shutdown', 'rebuild', 'restore', 'resize'],
  dropletActions_post_byTag: ['power_cycle', 'power_off', 'shutdown', 'rebuild', 'restore', 'resize'],
  volumeActions_post: ['detach', 'resize'],
  volumeActions_post_byId: ['detach', 'resize'],
  reservedIPsActions_post: ['unassign'],
  reservedIPv6Actions_post: ['unassign'],
  floatingIPsAction_post: ['unassign'],
  nfs_create_action: ['detach', 'resize'],
  // Replace a whole set: rules, members, a spec, a database's size or version.
  loadBalancers_update: true,
  firewalls_update: true,
  databases_update_firewall_rules: true,
  databases_update_clusterSize: true,
  databases_update_major_version: true,
  apps_update: true,
  // Nodes replaced or removed: a recycle, an upgrade, a pool or autoscale pool set to fewer.
  kubernetes_recycle_node_pool: true,
  kubernetes_upgrade_cluster: true,
  kubernetes_update_nodePool: true,
  autoscalepools_update: true,
  // Garbage collection deletes the blobs no tag holds.
  registry_run_garbageCollection: true,
  registries_run_garbageCollection: true,
  // An image given to another account leaves this one.
  images_post_account_transfer_create: true,
};

/**
 * Deletes of a container: its members are read and each is checked, so that deleting a project or
 * a VPC holding a protected resource is refused before anything is sent. `read`: where the
 * members are listed (`list`: the answer's list; `urn`: each member's URN field), or answered by
 * kind (`associated`: answer key -> kind); `tagged`: lists read with the tag's name as `tag_name`.
 */
export const CONTAINERS = {
  // Deleting a tag strips it from every resource carrying it: each is read by the lists that
  // take a tag (the tag protects itself as well).
  tags_delete: { tagged: ['/v2/droplets', '/v2/databases'] },
  projects_delete: { read: '/v2/projects/{project_id}/resources', list: 'resources', urn: 'urn' },
  vpcs_delete: { read: '/v2/vpcs/{vpc_id}/members', list: 'members', urn: 'urn' },
  droplets_destroy_withAssociatedResourcesDangerous: {
    read: '/v2/droplets/{droplet_id}/destroy_with_associated_resources',
    associated: {
      reserved_ips: 'reserved_ip',
      floating_ips: 'reserved_ip',
      snapshots: 'snapshot',
      volumes: 'volume',
      volume_snapshots: 'snapshot',
    },
  },
  kubernetes_destroy_associatedResourcesDangerous: {
    read: '/v2/kubernetes/clusters/{cluster_id}/destroy_with_associated_resources',
    associated: { load_balancers: 'load_balancer', volumes: 'volume', volume_snapshots: 'snapshot' },
  },
};
