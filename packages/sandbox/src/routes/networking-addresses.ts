/**
 * Reserved IPs (IPv4 and IPv6, each under its own path), BYOIP prefixes (advertised once active,
 * until told otherwise), VPCs and VPC peerings (under their own path and under each of their VPCs).
 */
import { randomUUID } from 'node:crypto';
import { clusterPlacement } from '../families/databases.js';
import {
  addressToBigInt,
  allocateAddress,
  cidrsOverlap,
  freeRange,
  isNetworkAddress,
  newVpc,
  POOLS,
  parseCidr,
  ready,
  type StoredByoipPrefix,
  type StoredPeering,
  type StoredReservedIp,
} from '../families/networking.js';
import {
  forbidden,
  listBody,
  paginate,
  type Route,
  requireString,
  type SandboxRequest,
  unprocessable,
} from '../http.js';
import { iso } from '../time.js';
import { actionView, startAction, type World } from '../world.js';
import { dropletById, findOr404, idField, regionView, requireRegion } from './networking-common.js';
import { assignToProject, dropFromProject, projectForCreate, projectOf } from './projects.js';

// ---------------------------------------------------------------- reserved IPs

/** The droplet a reserved IP points at, if it still exists. */
const assignedDroplet = (world: World, rip: StoredReservedIp) =>
  rip.droplet_id === null ? undefined : dropletById(world, rip.droplet_id);

function reservedIpView(world: World, rip: StoredReservedIp) {
  const droplet = assignedDroplet(world, rip) ?? null;
  if (rip.version === 6) {
    return { ip: rip.ip, region_slug: rip.region, reserved_at: iso(rip.reserved_ms), droplet };
  }
  return {
    ip: rip.ip,
    region: regionView(world, rip.region),
    droplet,
    locked: false,
    project_id: projectOf(world, { urn: `do:floatingip:${rip.ip}`, created_ms: rip.reserved_ms }),
  };
}

/** An action's numeric resource id for an address: the IPv4 as an integer, the low 32 bits of an IPv6. */
const resourceId = (ip: string) => Number(addressToBigInt(ip) & 0xffffffffn);

function findReserved(world: World, req: SandboxRequest, version: 4 | 6): StoredReservedIp {
  const ip = req.params.ip ?? '';
  return findOr404(world.reservedIps, (r) => r.version === version && r.ip === ip);
}

function reserve(world: World, version: 4 | 6, region: string, now: number): StoredReservedIp {
  if (world.reservedIps.length >= world.account.floating_ip_limit) {
    throw unprocessable(`the account may hold ${world.account.floating_ip_limit} reserved IPs`);
  }
  const pool = version === 4 ? POOLS.reservedV4 : POOLS.reservedV6;
  const ip = allocateAddress(
    pool,
    world.reservedIps.map((r) => r.ip),
  );
  if (!ip) throw unprocessable('the sandbox has no reserved addresses left');
  const rip: StoredReservedIp = { ip, version, region, droplet_id: null, project_id: null, reserved_ms: now };
  world.reservedIps.push(rip);
  return rip;
}

/** The `resource_type` of the actions on a reserved address, by the path that started them. */
const IP_ACTION_TYPES = new Set(['reserved_ip', 'floating_ip']);

/** Assigns or unassigns, as the actions endpoint of either version does. */
function reservedAction(world: World, req: SandboxRequest, version: 4 | 6, resourceType = 'reserved_ip') {
  const rip = findReserved(world, req, version);
  const type = req.body.type;
  if (type === 'assign') {
    const id = idField(req.body.droplet_id, 'droplet_id');
    if (id === undefined) throw unprocessable('droplet_id is required to assign');
    const droplet = dropletById(world, id);
    if (!droplet) throw unprocessable(`droplet_id: droplet ${id} does not exist`);
    if (droplet.region.slug !== rip.region) {
      throw unprocessable(
        `droplet_id: droplet ${id} is in ${droplet.region.slug}; the reserved IP is in ${rip.region}`,
      );
    }
    const other = world.reservedIps.find(
      (r) => r !== rip && r.version === version && r.droplet_id === id && assignedDroplet(world, r),
    );
    if (other) throw unprocessable(`droplet_id: droplet ${id} already has reserved IP ${other.ip}`);
    rip.droplet_id = id;
  } else if (type === 'unassign') {
    if (!assignedDroplet(world, rip)) throw unprocessable('the reserved IP is not assigned to a droplet');
    rip.droplet_id = null;
  } else {
    throw unprocessable('type must be assign or unassign');
  }
  const action = startAction(world, req.now, {
    type: type === 'assign' ? 'assign_ip' : 'unassign_ip',
    resource_id: resourceId(rip.ip),
    resource_type: resourceType,
    region_slug: rip.region,
  });
  return { status: 201, body: { action: actionView(world, action, req.now) } };
}

/**
 * The IPv4 collection under one of its two names: `reserved_ips`, and `floating_ips`, the name older
 * clients know. Both are views of the same addresses: one reserved under either name is listed,
 * assigned and released under both, with the body keys of the path it is asked by.
 */
function reservedV4Routes(collection: 'reserved_ips' | 'floating_ips'): Route[] {
  const base = `/v2/${collection}`;
  const one = collection === 'reserved_ips' ? 'reserved_ip' : 'floating_ip';
  // The actions of this reservation: an address released and reserved again starts afresh.
  const actionsOf = (world: World, rip: StoredReservedIp) =>
    world.actions
      .filter(
        (a) =>
          IP_ACTION_TYPES.has(a.resource_type) &&
          a.resource_id === resourceId(rip.ip) &&
          a.started_ms >= rip.reserved_ms,
      )
      .sort((a, b) => b.id - a.id);
  return [
    {
      method: 'GET',
      path: base,
      handler: (req, world) => ({
        body: listBody(
          collection,
          world.reservedIps.filter((r) => r.version === 4),
          req,
          (r) => reservedIpView(world, r),
        ),
      }),
    },
    {
      method: 'POST',
      path: base,
      handler: (req, world) => {
        // An empty string is absent: the platform takes `{"region": "", "droplet_id": N}` as an
        // assignment (clients that send every field send it so; godo leaves the empty one out with
        // `omitempty`, and both are answered the same), so only two present values conflict.
        const region = req.body.region === '' ? undefined : req.body.region;
        const dropletId = idField(req.body.droplet_id === '' ? undefined : req.body.droplet_id, 'droplet_id');
        if (region != null && dropletId !== undefined)
          throw unprocessable('give region or droplet_id, not both');
        if (dropletId !== undefined) {
          const droplet = dropletById(world, dropletId);
          if (!droplet) throw unprocessable(`droplet_id: droplet ${dropletId} does not exist`);
          const rip = reserve(world, 4, droplet.region.slug, req.now);
          rip.droplet_id = droplet.id;
          const action = startAction(world, req.now, {
            type: 'assign_ip',
            resource_id: resourceId(rip.ip),
            resource_type: one,
            region_slug: rip.region,
          });
          const href = `${req.baseUrl}/v2/actions/${action.id}`;
          return {
            status: 202,
            body: {
              [one]: reservedIpView(world, rip),
              links: {
                droplets: [
                  { id: droplet.id, rel: 'droplet', href: `${req.baseUrl}/v2/droplets/${droplet.id}` },
                ],
                actions: [{ id: action.id, rel: 'assign_ip', href }],
              },
            },
          };
        }
        const project = projectForCreate(world, req.body.project_id);
        const rip = reserve(world, 4, requireRegion(world, region).slug, req.now);
        if (project) rip.project_id = project;
        assignToProject(world, `do:floatingip:${rip.ip}`, project, req.now);
        return { status: 202, body: { [one]: reservedIpView(world, rip), links: {} } };
      },
    },
    {
      method: 'GET',
      path: `${base}/{ip}`,
      handler: (req, world) => ({ body: { [one]: reservedIpView(world, findReserved(world, req, 4)) } }),
    },
    {
      method: 'DELETE',
      path: `${base}/{ip}`,
      handler: (req, world) => {
        const rip = findReserved(world, req, 4);
        world.reservedIps = world.reservedIps.filter((r) => r !== rip);
        dropFromProject(world, `do:floatingip:${rip.ip}`);
        return { status: 204 };
      },
    },
    {
      method: 'POST',
      path: `${base}/{ip}/actions`,
      handler: (req, world) => reservedAction(world, req, 4, one),
    },
    {
      method: 'GET',
      path: `${base}/{ip}/actions`,
      handler: (req, world) => {
        const actions = actionsOf(world, findReserved(world, req, 4));
        return {
          body: listBody('actions', actions, req, (a) => actionView(world, a, req.now)),
        };
      },
    },
    {
      method: 'GET',
      path: `${base}/{ip}/actions/{action}`,
      handler: (req, world) => {
        const actions = actionsOf(world, findReserved(world, req, 4));
        const action = findOr404(actions, (a) => String(a.id) === req.params.action);
        return { body: { action: actionView(world, action, req.now) } };
      },
    },
  ];
}

const reservedIpRoutes: Route[] = [
  ...reservedV4Routes('reserved_ips'),
  ...reservedV4Routes('floating_ips'),
  {
    method: 'GET',
    path: '/v2/reserved_ipv6',
    handler: (req, world) => ({
      body: listBody(
        'reserved_ipv6s',
        world.reservedIps.filter((r) => r.version === 6),
        req,
        (r) => reservedIpView(world, r),
      ),
    }),
  },
  {
    method: 'POST',
    path: '/v2/reserved_ipv6',
    handler: (req, world) => {
      const region = requireRegion(world, req.body.region_slug, 'region_slug').slug;
      const rip = reserve(world, 6, region, req.now);
      const { droplet: _droplet, ...view } = reservedIpView(world, rip);
      return { status: 201, body: { reserved_ipv6: view } };
    },
  },
  {
    method: 'GET',
    path: '/v2/reserved_ipv6/{ip}',
    handler: (req, world) => ({
      body: { reserved_ipv6: reservedIpView(world, findReserved(world, req, 6)) },
    }),
  },
  {
    method: 'DELETE',
    path: '/v2/reserved_ipv6/{ip}',
    handler: (req, world) => {
      const rip = findReserved(world, req, 6);
      if (assignedDroplet(world, rip))
        throw unprocessable('the reserved IPv6 is assigned; unassign it first');
      world.reservedIps = world.reservedIps.filter((r) => r !== rip);
      return { status: 204 };
    },
  },
  {
    method: 'POST',
    path: '/v2/reserved_ipv6/{ip}/actions',
    handler: (req, world) => reservedAction(world, req, 6),
  },
];

// ---------------------------------------------------------------- BYOIP prefixes

function byoipView(prefix: StoredByoipPrefix, now: number) {
  const active = ready(prefix.created_ms, now);
  // Advertised once active, until a PATCH says otherwise.
  const advertised = active && (prefix.advertised ?? true);
  return {
    uuid: prefix.uuid,
    name: '',
    prefix: prefix.prefix,
    region: prefix.region,
    status: active ? 'active' : 'pending',
    validations: [{ name: 'signature', note: '', status: active ? 'passed' : 'pending' }],
    failure_reason: '',
    advertised,
    locked: false,
  };
}

const findPrefix = (world: World, req: SandboxRequest) =>
  findOr404(world.byoipPrefixes, (p) => p.uuid === req.params.uuid);

const byoipRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/byoip_prefixes',
    handler: (req, world) => ({
      body: listBody('byoip_prefixes', world.byoipPrefixes, req, (p) => byoipView(p, req.now)),
    }),
  },
  {
    method: 'POST',
    path: '/v2/byoip_prefixes',
    handler: (req, world) => {
      const prefix = requireString(req.body, 'prefix');
      const cidr = parseCidr(prefix);
      if (!cidr) throw unprocessable('prefix must be a CIDR block such as 203.0.113.0/24');
      const [low, high] = cidr.family === 'ipv4' ? [20, 24] : [32, 48];
      if (cidr.bits < low || cidr.bits > high)
        throw unprocessable(`prefix must be a /${low} to /${high} block`);
      if (!isNetworkAddress(prefix)) throw unprocessable('prefix must start at its network address');
      requireString(req.body, 'signature');
      const region = requireRegion(world, req.body.region).slug;
      const clash = world.byoipPrefixes.find((p) => cidrsOverlap(p.prefix, prefix));
      if (clash) throw unprocessable(`prefix overlaps ${clash.prefix}, already brought to the platform`);
      const stored: StoredByoipPrefix = { uuid: randomUUID(), prefix, region, created_ms: req.now };
      world.byoipPrefixes.push(stored);
      return { status: 202, body: { uuid: stored.uuid, region, status: 'pending' } };
    },
  },
  {
    method: 'GET',
    path: '/v2/byoip_prefixes/{uuid}',
    handler: (req, world) => ({ body: { byoip_prefix: byoipView(findPrefix(world, req), req.now) } }),
  },
  {
    method: 'PATCH',
    path: '/v2/byoip_prefixes/{uuid}',
    handler: (req, world) => {
      const prefix = findPrefix(world, req);
      const advertise = req.body.advertise;
      if (typeof advertise !== 'boolean') throw unprocessable('advertise must be a boolean');
      if (!ready(prefix.created_ms, req.now)) {
        throw unprocessable(`prefix ${prefix.prefix} is still being validated: it is advertised once active`);
      }
      prefix.advertised = advertise;
      return { status: 202, body: { byoip_prefix: byoipView(prefix, req.now) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/byoip_prefixes/{uuid}',
    handler: (req, world) => {
      const prefix = findPrefix(world, req);
      world.byoipPrefixes = world.byoipPrefixes.filter((p) => p !== prefix);
      return { status: 202 };
    },
  },
  {
    method: 'GET',
    path: '/v2/byoip_prefixes/{uuid}/ips',
    handler: (req, world) => {
      findPrefix(world, req);
      // No sandbox tool hands out addresses of a prefix yet, so none is in use.
      return { body: listBody('ips', [], req) };
    },
  },
];

// ---------------------------------------------------------------- VPCs and peerings

const VPC_NAME = /^[a-zA-Z0-9.-]{1,255}$/;
const PRIVATE_RANGES = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'];

function checkIpRange(world: World, range: unknown): string {
  if (typeof range !== 'string') throw unprocessable('ip_range must be a CIDR block such as 10.10.0.0/20');
  const cidr = parseCidr(range);
  if (cidr?.family !== 'ipv4')
    throw unprocessable(`ip_range ${JSON.stringify(range)} is not a valid IPv4 CIDR block`);
  if (cidr.bits < 16 || cidr.bits > 28) throw unprocessable('ip_range must be a /16 to /28 block');
  if (!isNetworkAddress(range)) throw unprocessable(`ip_range ${range} must start at its network address`);
  if (!PRIVATE_RANGES.some((p) => cidrsOverlap(p, range) && parseCidr(p)!.bits <= cidr.bits)) {
    throw unprocessable('ip_range must lie in a private range: 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16');
  }
  // Across the account, not only the region: the platform refuses any overlap.
  const clash = world.vpcs.find((vpc) => cidrsOverlap(vpc.ip_range, range));
  if (clash) {
    throw unprocessable(
      `ip_range ${range} overlaps VPC ${clash.name} (${clash.ip_range}, ${clash.region}); VPC ranges cannot overlap within an account`,
    );
  }
  return range;
}

function members(world: World, vpcId: string, now: number) {
  return [
    ...world.droplets
      .filter((d) => d.vpc_uuid === vpcId)
      .map((d) => ({ urn: `do:droplet:${d.id}`, name: d.name, created_at: d.created_at })),
    ...world.loadBalancers
      .filter((lb) => lb.vpc_uuid === vpcId)
      .map((lb) => ({ urn: `do:loadbalancer:${lb.id}`, name: lb.name, created_at: iso(lb.created_ms) })),
    ...world.clusters
      .filter((c) => clusterPlacement(c, now).private_network_uuid === vpcId)
      .map((c) => ({ urn: `do:dbaas:${c.id}`, name: c.name, created_at: iso(c.created_ms) })),
  ];
}

const findVpc = (world: World, req: SandboxRequest) =>
  findOr404(world.vpcs, (vpc) => vpc.id === req.params.id);

function peeringView(peering: StoredPeering, now: number, status?: 'DELETING') {
  return {
    id: peering.id,
    name: peering.name,
    vpc_ids: peering.vpc_ids,
    status: status ?? (ready(peering.created_ms, now) ? 'ACTIVE' : 'PROVISIONING'),
    created_at: iso(peering.created_ms),
  };
}

const findPeering = (world: World, req: SandboxRequest) =>
  findOr404(world.vpcPeerings, (p) => p.id === req.params.id);

/** A peering's new name, checked as a create's. */
function peeringName(body: Record<string, unknown>): string {
  const name = requireString(body, 'name');
  if (!VPC_NAME.test(name)) throw unprocessable('name must use letters, digits, "." and "-"');
  return name;
}

/** Peers two VPCs as the platform allows: both of the account, different, with ranges apart, not yet peered. */
function createPeering(world: World, name: string, ids: unknown, field: string, now: number): StoredPeering {
  if (!VPC_NAME.test(name)) throw unprocessable('name must use letters, digits, "." and "-"');
  if (!Array.isArray(ids) || ids.length !== 2 || ids[0] === ids[1]) {
    throw unprocessable(`${field} must name two different VPCs`);
  }
  const [a, b] = ids.map((id) => {
    const vpc = world.vpcs.find((v) => v.id === id);
    if (!vpc) throw unprocessable(`${field}: VPC ${JSON.stringify(id)} does not exist`);
    return vpc;
  });
  if (!a || !b) throw unprocessable(`${field} must name two different VPCs`);
  if (cidrsOverlap(a.ip_range, b.ip_range)) {
    throw unprocessable(`${field}: the ranges ${a.ip_range} and ${b.ip_range} overlap`);
  }
  if (world.vpcPeerings.some((p) => p.vpc_ids.includes(a.id) && p.vpc_ids.includes(b.id))) {
    throw unprocessable(`${field}: these VPCs are already peered`);
  }
  const peering: StoredPeering = { id: randomUUID(), name, vpc_ids: [a.id, b.id], created_ms: now };
  world.vpcPeerings.push(peering);
  return peering;
}

const vpcRoutes: Route[] = [
  { method: 'GET', path: '/v2/vpcs', handler: (req, world) => ({ body: listBody('vpcs', world.vpcs, req) }) },
  {
    method: 'POST',
    path: '/v2/vpcs',
    handler: (req, world) => {
      const name = requireString(req.body, 'name');
      if (!VPC_NAME.test(name)) throw unprocessable('name must use letters, digits, "." and "-"');
      if (world.vpcs.some((vpc) => vpc.name === name)) throw unprocessable(`name ${name} is already in use`);
      const region = requireRegion(world, req.body.region).slug;
      const description = req.body.description ?? '';
      if (typeof description !== 'string' || description.length > 255) {
        throw unprocessable('description must be text of at most 255 characters');
      }
      const range =
        req.body.ip_range === undefined ? freeRange(world) : checkIpRange(world, req.body.ip_range);
      const vpc = newVpc(world, { name, description, region, ip_range: range, now: req.now });
      world.vpcs.push(vpc);
      return { status: 201, body: { vpc } };
    },
  },
  { method: 'GET', path: '/v2/vpcs/{id}', handler: (req, world) => ({ body: { vpc: findVpc(world, req) } }) },
  {
    method: 'GET',
    path: '/v2/vpcs/{id}/members',
    handler: (req, world) => {
      const vpc = findVpc(world, req);
      const type = req.query.get('resource_type');
      const list = members(world, vpc.id, req.now).filter((m) => !type || m.urn.startsWith(`do:${type}:`));
      return { body: listBody('members', list, req) };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/vpcs/{id}',
    handler: (req, world) => {
      const vpc = findVpc(world, req);
      // The platform forbids (403) deleting a VPC that still has members, or a region's default;
      // Terraform's provider retries the delete on 403 while members are being destroyed.
      const inside = members(world, vpc.id, req.now);
      if (inside.length) {
        throw forbidden(`Can not delete VPC with members: it has ${inside.length}; remove them first.`);
      }
      if (world.vpcPeerings.some((p) => p.vpc_ids.includes(vpc.id))) {
        throw unprocessable('the VPC is peered; delete its peerings first');
      }
      if (vpc.default) throw forbidden('Can not delete the default VPC of a region.');
      world.vpcs = world.vpcs.filter((v) => v !== vpc);
      return { status: 204 };
    },
  },
  ...(['PUT', 'PATCH'] as const).map(
    (method): Route => ({
      method,
      path: '/v2/vpcs/{id}',
      handler: (req, world) => {
        const vpc = findVpc(world, req);
        // PUT replaces the updatable fields (name required, description back to empty when not
        // given); PATCH changes only those given.
        const whole = method === 'PUT';
        const { name, description } = req.body;
        if (whole || name !== undefined) {
          const checked = requireString(req.body, 'name');
          if (!VPC_NAME.test(checked)) throw unprocessable('name must use letters, digits, "." and "-"');
          if (world.vpcs.some((v) => v !== vpc && v.name === checked))
            throw unprocessable(`name ${checked} is already in use`);
        }
        const text = description ?? (whole ? '' : vpc.description);
        if (typeof text !== 'string' || text.length > 255) {
          throw unprocessable('description must be text of at most 255 characters');
        }
        const makeDefault = req.body.default;
        if (makeDefault !== undefined && typeof makeDefault !== 'boolean')
          throw unprocessable('default must be a boolean');
        if (makeDefault === false && vpc.default) {
          throw unprocessable('a region keeps a default VPC: make another VPC its default instead');
        }
        if (typeof name === 'string') vpc.name = name;
        vpc.description = text;
        if (makeDefault === true) {
          for (const other of world.vpcs) if (other.region === vpc.region) other.default = other === vpc;
        }
        return { body: { vpc } };
      },
    }),
  ),
  {
    method: 'GET',
    path: '/v2/vpc_peerings',
    handler: (req, world) => ({
      body: listBody('vpc_peerings', world.vpcPeerings, req, (p) => peeringView(p, req.now)),
    }),
  },
  {
    method: 'POST',
    path: '/v2/vpc_peerings',
    handler: (req, world) => {
      const peering = createPeering(
        world,
        requireString(req.body, 'name'),
        req.body.vpc_ids,
        'vpc_ids',
        req.now,
      );
      return { status: 202, body: { vpc_peering: peeringView(peering, req.now) } };
    },
  },
  {
    method: 'PATCH',
    path: '/v2/vpc_peerings/{id}',
    handler: (req, world) => {
      const peering = findPeering(world, req);
      peering.name = peeringName(req.body);
      return { body: { vpc_peering: peeringView(peering, req.now) } };
    },
  },
  // A VPC's own peerings: the same peerings, seen from one of their VPCs.
  {
    method: 'GET',
    path: '/v2/vpcs/{id}/peerings',
    handler: (req, world) => {
      const vpc = findVpc(world, req);
      const page = paginate(
        world.vpcPeerings.filter((p) => p.vpc_ids.includes(vpc.id)),
        req,
      );
      return {
        body: {
          peerings: page.items.map((p) => peeringView(p, req.now)),
          links: page.links,
          meta: page.meta,
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/v2/vpcs/{id}/peerings',
    handler: (req, world) => {
      const vpc = findVpc(world, req);
      const other = req.body.vpc_id;
      if (typeof other !== 'string' || other === '')
        throw unprocessable('vpc_id is required: the VPC to peer with');
      const peering = createPeering(
        world,
        requireString(req.body, 'name'),
        [vpc.id, other],
        'vpc_id',
        req.now,
      );
      return { status: 202, body: { peering: peeringView(peering, req.now) } };
    },
  },
  {
    method: 'PATCH',
    path: '/v2/vpcs/{id}/peerings/{peering}',
    handler: (req, world) => {
      const vpc = findVpc(world, req);
      const peering = findOr404(
        world.vpcPeerings,
        (p) => p.id === req.params.peering && p.vpc_ids.includes(vpc.id),
      );
      peering.name = peeringName(req.body);
      return { body: { peering: peeringView(peering, req.now) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/vpc_peerings/{id}',
    handler: (req, world) => ({ body: { vpc_peering: peeringView(findPeering(world, req), req.now) } }),
  },
  {
    method: 'DELETE',
    path: '/v2/vpc_peerings/{id}',
    handler: (req, world) => {
      const peering = findPeering(world, req);
      world.vpcPeerings = world.vpcPeerings.filter((p) => p !== peering);
      return { status: 202, body: { vpc_peering: peeringView(peering, req.now, 'DELETING') } };
    },
  },
];

export const addressRoutes: Route[] = [...reservedIpRoutes, ...byoipRoutes, ...vpcRoutes];
