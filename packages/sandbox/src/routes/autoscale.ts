/**
 * Droplet autoscale pools: create (a static size, or a minimum and maximum with utilization
 * targets; a droplet template checked as a VM create is: region, size, image, SSH keys, VPC), list
 * (by name, in pages), get, update (the whole pool, as PUT gives it), delete (the pool; its members
 * stay, ordinary VMs from then on) and delete dangerously (with its members); members and history.
 *
 * Members are real VMs made from the template (so a client sees them in `GET /v2/droplets`, boots
 * and all): a member is `provisioning` while its VM boots, then `active`. The sandbox's VMs carry
 * no load, so a pool scaled by utilization keeps its minimum. Each change of size is a history event
 * (CONFIGURATION_CHANGE), `in_progress` until the VMs it made have booted. A pool is `active` from
 * the start (the description's pool states are active, deleting and error), `deleting` for a few
 * seconds once deleted, then gone.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  AUTOSCALE_DELETE_MS,
  type DynamicConfig,
  type StaticConfig,
  type StoredAutoscalePool,
  type StoredTemplate,
} from '../families/autoscale.js';
import { type Droplet, DURATIONS, dropletAt } from '../families/vms.js';
import {
  HttpError,
  notFound,
  paginate,
  type Route,
  requireDangerous,
  requireString,
  type SandboxRequest,
  unprocessable,
} from '../http.js';
import { iso } from '../time.js';
import type { World } from '../world.js';
import { assignToProject, projectForCreate } from './projects.js';
import { createDroplet, deleteDroplet } from './vms.js';

/** The regions the API description lets a pool's template name. */
const POOL_REGIONS = [
  'nyc1',
  'nyc2',
  'nyc3',
  'ams2',
  'ams3',
  'sfo1',
  'sfo2',
  'sfo3',
  'sgp1',
  'lon1',
  'fra1',
  'tor1',
  'blr1',
  'syd1',
];
const DEFAULT_COOLDOWN = 10;

const isDeleting = (pool: StoredAutoscalePool) => pool.deleted_ms !== undefined;
const gone = (pool: StoredAutoscalePool, now: number) =>
  pool.deleted_ms !== undefined && now >= pool.deleted_ms + AUTOSCALE_DELETE_MS;
const pools = (world: World, now: number) => world.autoscalePools.filter((p) => !gone(p, now));

function findPool(world: World, req: SandboxRequest): StoredAutoscalePool {
  const pool = pools(world, req.now).find((p) => p.id === req.params.id);
  if (!pool) throw notFound();
  return pool;
}

/** The pool's members that still exist, oldest first. */
function members(world: World, pool: StoredAutoscalePool): Droplet[] {
  return pool.member_ids.flatMap((id) => world.droplets.find((d) => d.id === id) ?? []);
}

/** A member's load: an idle VM's (a little CPU, its memory's baseline), none until it runs. */
function utilization(droplet: Droplet, now: number) {
  if (dropletAt(droplet, now).status !== 'active') return { cpu: 0, memory: 0 };
  return {
    cpu: 0.02,
    memory: Math.round(Math.min(0.9, 160 / Math.max(droplet.memory, 1)) * 10_000) / 10_000,
  };
}

function memberView(droplet: Droplet, now: number) {
  const status = dropletAt(droplet, now).status;
  const booted = status === 'active';
  const created = Date.parse(droplet.created_at);
  return {
    droplet_id: droplet.id,
    created_at: droplet.created_at,
    updated_at: iso(booted ? created + DURATIONS.boot : created),
    health_status: booted ? ('healthy' as const) : ('unhealthy' as const),
    ...(booted
      ? {}
      : { unhealthy_reason: status === 'new' ? 'Droplet is provisioning' : `Droplet is ${status}` }),
    status:
      status === 'new'
        ? ('provisioning' as const)
        : status === 'active'
          ? ('active' as const)
          : ('off' as const),
    current_utilization: utilization(droplet, now),
  };
}

function poolView(world: World, pool: StoredAutoscalePool, now: number) {
  const running = members(world, pool).filter((d) => dropletAt(d, now).status === 'active');
  const loads = running.map((d) => utilization(d, now));
  const mean = (key: 'cpu' | 'memory') =>
    Math.round((loads.reduce((sum, l) => sum + l[key], 0) / Math.max(loads.length, 1)) * 10_000) / 10_000;
  return {
    id: pool.id,
    name: pool.name,
    config: { ...pool.config },
    droplet_template: { ...pool.droplet_template, ssh_keys: [...pool.droplet_template.ssh_keys] },
    ...(loads.length ? { current_utilization: { cpu: mean('cpu'), memory: mean('memory') } } : {}),
    created_at: iso(pool.created_ms),
    updated_at: iso(pool.updated_ms),
    status: isDeleting(pool) ? ('deleting' as const) : ('active' as const),
    active_resources_count: running.length,
  };
}

function intIn(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw unprocessable(
      `config.${field} must be an integer from ${min} to ${max}; got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function ratio(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || value < 0.05 || value > 1) {
    throw unprocessable(`config.${field} must be a fraction from 0.05 to 1; got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A static config (`target_number_instances`) or a dynamic one (min, max, targets), never both. */
function checkConfig(value: unknown): StaticConfig | DynamicConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw unprocessable('config is required');
  const c = value as Record<string, unknown>;
  const isStatic = c.target_number_instances !== undefined;
  const isDynamic = c.min_instances !== undefined || c.max_instances !== undefined;
  if (isStatic && isDynamic) {
    throw unprocessable(
      'config is either static (target_number_instances) or dynamic (min_instances, max_instances), not both',
    );
  }
  if (isStatic)
    return { target_number_instances: intIn(c.target_number_instances, 'target_number_instances', 1, 1000) };
  if (!isDynamic)
    throw unprocessable('config needs target_number_instances, or min_instances and max_instances');
  const min = intIn(c.min_instances, 'min_instances', 1, 500);
  const max = intIn(c.max_instances, 'max_instances', 1, 1000);
  if (min > max)
    throw unprocessable(`config.min_instances (${min}) must not exceed config.max_instances (${max})`);
  const cpu = ratio(c.target_cpu_utilization, 'target_cpu_utilization');
  const memory = ratio(c.target_memory_utilization, 'target_memory_utilization');
  if (cpu === undefined && memory === undefined) {
    throw unprocessable(
      'a dynamic config scales by target_cpu_utilization, target_memory_utilization or both: give one',
    );
  }
  const cooldown =
    c.cooldown_minutes === undefined
      ? DEFAULT_COOLDOWN
      : intIn(c.cooldown_minutes, 'cooldown_minutes', 5, 20);
  return {
    min_instances: min,
    max_instances: max,
    ...(cpu === undefined ? {} : { target_cpu_utilization: cpu }),
    ...(memory === undefined ? {} : { target_memory_utilization: memory }),
    cooldown_minutes: cooldown,
  };
}

/** How many members a config asks for: its size, or (with no load) its minimum. */
const desiredOf = (config: StaticConfig | DynamicConfig) =>
  'target_number_instances' in config ? config.target_number_instances : config.min_instances;

const optional = <T>(t: Record<string, unknown>, field: string, type: string): T | undefined => {
  const value = t[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== type) throw unprocessable(`droplet_template.${field} must be a ${type}`);
  return value as T;
};

/** The template's own rules; what a VM create checks (size, image, keys...) is checked by making them. */
function checkTemplate(world: World, value: unknown, dynamic: boolean): StoredTemplate {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw unprocessable('droplet_template is required');
  }
  const t = value as Record<string, unknown>;
  const region = requireString(t, 'region');
  if (!POOL_REGIONS.includes(region)) {
    throw unprocessable(
      `droplet_template.region ${region} does not offer autoscale pools; use one of ${POOL_REGIONS.join(', ')}`,
    );
  }
  const size = requireString(t, 'size');
  const image = t.image;
  if ((typeof image !== 'string' || image === '') && typeof image !== 'number') {
    throw unprocessable('droplet_template.image is required: an image slug or id');
  }
  const keys = t.ssh_keys;
  if (
    !Array.isArray(keys) ||
    keys.some((k) => (typeof k !== 'string' || k === '') && typeof k !== 'number')
  ) {
    throw unprocessable('droplet_template.ssh_keys is required: SSH key ids or fingerprints');
  }
  const tags = t.tags;
  if (
    tags !== undefined &&
    tags !== null &&
    (!Array.isArray(tags) || tags.some((x) => typeof x !== 'string'))
  ) {
    throw unprocessable('droplet_template.tags must be tag names');
  }
  const publicNetworking = optional<boolean>(t, 'public_networking', 'boolean') ?? true;
  const ipv6 = optional<boolean>(t, 'ipv6', 'boolean');
  if (!publicNetworking && ipv6) {
    throw unprocessable('droplet_template.ipv6 must be false when public_networking is false');
  }
  const agent = optional<boolean>(t, 'with_droplet_agent', 'boolean');
  if (dynamic && agent === false) {
    throw unprocessable(
      'droplet_template.with_droplet_agent must be true: a pool scaled by utilization reads it from the agent',
    );
  }
  const projectId = optional<string>(t, 'project_id', 'string');
  projectForCreate(world, projectId);
  const template: StoredTemplate = {
    ...(optional<string>(t, 'name', 'string') ? { name: t.name as string } : {}),
    region,
    size,
    image: String(image),
    ssh_keys: (keys as unknown[]).map(String),
    ...(Array.isArray(tags) ? { tags: [...(tags as string[])] } : {}),
    ...(optional<string>(t, 'vpc_uuid', 'string') ? { vpc_uuid: t.vpc_uuid as string } : {}),
    ...(agent === undefined ? {} : { with_droplet_agent: agent }),
    ...(projectId ? { project_id: projectId } : {}),
    ...(ipv6 === undefined ? {} : { ipv6 }),
    ...(optional<string>(t, 'user_data', 'string') !== undefined ? { user_data: t.user_data as string } : {}),
    public_networking: publicNetworking,
  };
  return template;
}

/** Makes one member from the template: a VM create, its refusals named as the template's. */
function addMember(world: World, pool: StoredAutoscalePool, now: number): void {
  const t = pool.droplet_template;
  const body: Record<string, unknown> = {
    region: t.region,
    size: t.size,
    image: /^\d+$/.test(t.image) ? Number(t.image) : t.image,
    ssh_keys: t.ssh_keys,
    tags: t.tags,
    vpc_uuid: t.vpc_uuid,
    ipv6: t.ipv6,
    user_data: t.user_data,
    with_droplet_agent: t.with_droplet_agent ?? true,
    monitoring: true,
  };
  const base = (t.name ?? pool.name).replace(/[^a-zA-Z0-9.-]/g, '-').slice(0, 240) || 'autoscale';
  let made: ReturnType<typeof createDroplet>;
  try {
    made = createDroplet(world, body, `${base}-${randomBytes(3).toString('hex')}`, now);
  } catch (error) {
    if (error instanceof HttpError) {
      throw new HttpError(error.status, error.id, `droplet_template: ${error.message}`, error.extra);
    }
    throw error;
  }
  const { droplet } = made;
  // Without public networking a member has its VPC address only.
  if (!t.public_networking) {
    droplet.networks.v4 = (droplet.networks.v4 ?? []).filter((n) => n.type !== 'public');
  }
  assignToProject(world, `do:droplet:${droplet.id}`, t.project_id, now);
  pool.member_ids.push(droplet.id);
}

/** Brings the pool to its config's size (making members, or deleting the newest), recording the change. */
function scale(world: World, pool: StoredAutoscalePool, now: number, changed: boolean): void {
  const current = members(world, pool);
  pool.member_ids = current.map((d) => d.id);
  const desired = desiredOf(pool.config);
  if (!changed && current.length === desired) return;
  for (let n = current.length; n < desired; n++) addMember(world, pool, now);
  for (const droplet of current.slice(desired).reverse()) {
    deleteDroplet(world, droplet, now);
    pool.member_ids = pool.member_ids.filter((id) => id !== droplet.id);
  }
  pool.history.push({
    history_event_id: uuidV7(now),
    current_instance_count: current.length,
    desired_instance_count: desired,
    reason: 'CONFIGURATION_CHANGE',
    created_ms: now,
    done_ms: desired > current.length ? now + DURATIONS.boot : now,
  });
}

/** A time-ordered UUID (version 7), as the platform's history event ids are. */
function uuidV7(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0') + randomBytes(10).toString('hex');
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function checkName(world: World, body: Record<string, unknown>, now: number, self?: string): string {
  const name = requireString(body, 'name');
  if (pools(world, now).some((p) => p.id !== self && p.name === name)) {
    throw unprocessable(`an autoscale pool named ${name} already exists`);
  }
  return name;
}

function deletePool(world: World, req: SandboxRequest, withMembers: boolean) {
  const pool = findPool(world, req);
  if (isDeleting(pool)) throw unprocessable(`autoscale pool ${pool.name} is already being deleted`);
  if (withMembers) {
    for (const droplet of members(world, pool)) deleteDroplet(world, droplet, req.now);
  }
  pool.member_ids = [];
  pool.deleted_ms = req.now;
  pool.updated_ms = req.now;
  world.autoscalePools = pools(world, req.now);
  return { status: 202 };
}

export const autoscaleRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/droplets/autoscale',
    handler: (req, world) => {
      const name = req.query.get('name');
      const page = paginate(
        pools(world, req.now).filter((p) => !name || p.name === name),
        req,
      );
      return {
        body: {
          autoscale_pools: page.items.map((p) => poolView(world, p, req.now)),
          links: page.links,
          meta: page.meta,
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/v2/droplets/autoscale',
    handler: (req, world) => {
      world.autoscalePools = pools(world, req.now);
      const name = checkName(world, req.body, req.now);
      const config = checkConfig(req.body.config);
      const template = checkTemplate(
        world,
        req.body.droplet_template,
        !('target_number_instances' in config),
      );
      const pool: StoredAutoscalePool = {
        id: randomUUID(),
        name,
        config,
        droplet_template: template,
        member_ids: [],
        history: [],
        created_ms: req.now,
        updated_ms: req.now,
      };
      world.autoscalePools.push(pool);
      scale(world, pool, req.now, true);
      return { status: 202, body: { autoscale_pool: poolView(world, pool, req.now) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/droplets/autoscale/{id}',
    handler: (req, world) => ({ body: { autoscale_pool: poolView(world, findPool(world, req), req.now) } }),
  },
  {
    method: 'PUT',
    path: '/v2/droplets/autoscale/{id}',
    handler: (req, world) => {
      const pool = findPool(world, req);
      if (isDeleting(pool)) throw unprocessable(`autoscale pool ${pool.name} is being deleted`);
      const name = checkName(world, req.body, req.now, pool.id);
      const config = checkConfig(req.body.config);
      const template = checkTemplate(
        world,
        req.body.droplet_template,
        !('target_number_instances' in config),
      );
      const changed =
        JSON.stringify(config) !== JSON.stringify(pool.config) ||
        JSON.stringify(template) !== JSON.stringify(pool.droplet_template);
      Object.assign(pool, { name, config, droplet_template: template, updated_ms: req.now });
      // A member deleted some other way is made again here, with the pool's next change.
      scale(world, pool, req.now, changed);
      return { body: { autoscale_pool: poolView(world, pool, req.now) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/droplets/autoscale/{id}',
    handler: (req, world) => deletePool(world, req, false),
  },
  {
    method: 'DELETE',
    path: '/v2/droplets/autoscale/{id}/dangerous',
    handler: (req, world) => {
      findPool(world, req);
      requireDangerous(req, 'an autoscale pool with its Droplets');
      return deletePool(world, req, true);
    },
  },
  {
    method: 'GET',
    path: '/v2/droplets/autoscale/{id}/members',
    handler: (req, world) => {
      const page = paginate(members(world, findPool(world, req)), req);
      return {
        body: { droplets: page.items.map((d) => memberView(d, req.now)), links: page.links, meta: page.meta },
      };
    },
  },
  {
    method: 'GET',
    path: '/v2/droplets/autoscale/{id}/history',
    handler: (req, world) => {
      const pool = findPool(world, req);
      const page = paginate([...pool.history].reverse(), req);
      const history = page.items.map((event) => ({
        history_event_id: event.history_event_id,
        current_instance_count: event.current_instance_count,
        desired_instance_count: event.desired_instance_count,
        reason: event.reason,
        status: req.now < event.done_ms ? ('in_progress' as const) : ('success' as const),
        created_at: iso(event.created_ms),
        updated_at: iso(req.now < event.done_ms ? event.created_ms : event.done_ms),
      }));
      return { body: { history, links: page.links, meta: page.meta } };
    },
  },
];
