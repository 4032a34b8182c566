/**
 * VPC NAT gateways: create (PUBLIC, in a region, the egress of VPCs of that region), list (by state,
 * region, type, name; in pages), get, update (name, size, VPCs, timeouts), delete. A gateway is NEW,
 * then PROVISIONING, then ACTIVE a few seconds of sandbox time after it is made, and only then shows
 * its public egress address; deleted, it is DELETING for a few seconds, then gone. Each VPC it serves
 * gets a gateway address from the top of the VPC's range; a VPC has at most one default gateway.
 * A gateway changes only while ACTIVE (422 otherwise), as the platform's do.
 */
import { randomUUID } from 'node:crypto';
import {
  NAT_GATEWAY_STEP_MS,
  NAT_GATEWAY_TIMEOUTS,
  type StoredNatGateway,
  type StoredNatGatewayVpc,
} from '../families/nat-gateways.js';
import {
  notFound,
  paginate,
  type Route,
  requireString,
  type SandboxRequest,
  unprocessable,
} from '../http.js';
import { iso } from '../time.js';
import { regionOf, type World } from '../world.js';
import { addressFromTop } from './nfs.js';

/** The regions the API description lets a gateway be in. */
const NAT_REGIONS = new Set([
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
  'atl1',
]);
/** Letters, digits, "-" and ".", as the platform's other network resources are named. */
const NAME = /^[a-zA-Z0-9.-]{1,255}$/;
/** Public egress addresses, from the top of a documentation range (the bottom is load balancers'). */
const EGRESS_PREFIX = '203.0.113.';

type State = 'NEW' | 'PROVISIONING' | 'ACTIVE' | 'DELETING';

function stateOf(gw: StoredNatGateway, now: number): State | 'GONE' {
  if (gw.deleted_ms !== undefined) return now < gw.deleted_ms + 2 * NAT_GATEWAY_STEP_MS ? 'DELETING' : 'GONE';
  if (now < gw.created_ms + NAT_GATEWAY_STEP_MS) return 'NEW';
  if (now < gw.created_ms + 2 * NAT_GATEWAY_STEP_MS) return 'PROVISIONING';
  return 'ACTIVE';
}

function view(gw: StoredNatGateway, now: number) {
  const state = stateOf(gw, now);
  return {
    id: gw.id,
    name: gw.name,
    type: 'PUBLIC' as const,
    state,
    region: gw.region,
    size: gw.size,
    vpcs: gw.vpcs.map((v) => ({
      vpc_uuid: v.vpc_uuid,
      gateway_ip: v.gateway_ip,
      default_gateway: v.default_gateway,
    })),
    egresses: state === 'ACTIVE' ? { public_gateways: [{ ipv4: gw.egress_ip }] } : {},
    udp_timeout_seconds: gw.udp_timeout_seconds,
    icmp_timeout_seconds: gw.icmp_timeout_seconds,
    tcp_timeout_seconds: gw.tcp_timeout_seconds,
    created_at: iso(gw.created_ms),
    updated_at: iso(gw.updated_ms),
  };
}

/** The gateways that still exist at `now` (deleted ones until they are gone). */
const live = (world: World, now: number) => world.natGateways.filter((gw) => stateOf(gw, now) !== 'GONE');

function findGateway(world: World, req: SandboxRequest): StoredNatGateway {
  const gw = live(world, req.now).find((g) => g.id === req.params.id);
  if (!gw) throw notFound();
  return gw;
}

function positiveInt(value: unknown, field: string, fallback?: number): number {
  if (value === undefined || value === null) {
    if (fallback !== undefined) return fallback;
    throw unprocessable(`${field} is required`);
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw unprocessable(`${field} must be a positive integer; got ${JSON.stringify(value)}`);
  }
  return value;
}

function checkName(world: World, body: Record<string, unknown>, now: number, self?: string): string {
  const name = requireString(body, 'name');
  if (!NAME.test(name)) throw unprocessable('name may only contain letters, digits, "-" and "."');
  if (live(world, now).some((gw) => gw.id !== self && gw.name === name)) {
    throw unprocessable(`a VPC NAT gateway named ${name} already exists`);
  }
  return name;
}

/** The `vpcs` of a request: VPCs of the region, each once, each with at most one default gateway. */
function checkVpcs(
  world: World,
  value: unknown,
  region: string,
  now: number,
  self?: StoredNatGateway,
): StoredNatGatewayVpc[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw unprocessable('vpcs must list at least one VPC ({"vpc_uuid": ...}) the gateway serves');
  }
  const others = live(world, now).filter((gw) => gw.id !== self?.id);
  const taken = new Set([
    ...others.flatMap((gw) => gw.vpcs.map((v) => v.gateway_ip)),
    ...world.nfsShares.map((s) => s.host),
  ]);
  const seen = new Set<string>();
  return value.map((item, i) => {
    const field = `vpcs[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw unprocessable(`${field} must be an object`);
    const { vpc_uuid: id, default_gateway: isDefault = false } = item as Record<string, unknown>;
    if (typeof id !== 'string' || id === '') throw unprocessable(`${field}.vpc_uuid is required`);
    const vpc = world.vpcs.find((v) => v.id === id);
    if (!vpc) throw unprocessable(`${field}.vpc_uuid: VPC ${id} does not exist`);
    if (vpc.region !== region)
      throw unprocessable(`${field}.vpc_uuid: VPC ${id} is in ${vpc.region}, not ${region}`);
    if (seen.has(id)) throw unprocessable(`${field}.vpc_uuid: VPC ${id} is listed twice`);
    seen.add(id);
    if (typeof isDefault !== 'boolean') throw unprocessable(`${field}.default_gateway must be a boolean`);
    if (isDefault) {
      const rival = others.find((gw) => gw.vpcs.some((v) => v.vpc_uuid === id && v.default_gateway));
      if (rival) throw unprocessable(`${field}: VPC ${id} already has a default NAT gateway (${rival.name})`);
    }
    // Kept when the gateway already serves the VPC; else the first free one from the range's top.
    let ip = self?.vpcs.find((v) => v.vpc_uuid === id)?.gateway_ip;
    for (let n = 10; ip === undefined && n < 4_000; n++) {
      const candidate = addressFromTop(vpc.ip_range, n);
      if (!taken.has(candidate)) ip = candidate;
    }
    if (ip === undefined) throw unprocessable(`${field}: VPC ${id} has no free address for a gateway`);
    taken.add(ip);
    return { vpc_uuid: id, default_gateway: isDefault, gateway_ip: ip };
  });
}

function egressAddress(world: World): string {
  const used = new Set<string | undefined>([
    ...world.natGateways.map((gw) => gw.egress_ip),
    ...world.loadBalancers.map((lb) => lb.ip),
    ...world.reservedIps.map((r) => r.ip),
    ...world.droplets.flatMap((d) => (d.networks.v4 ?? []).map((n) => n.ip_address)),
  ]);
  for (let host = 254; host > 0; host--)
    if (!used.has(`${EGRESS_PREFIX}${host}`)) return `${EGRESS_PREFIX}${host}`;
  throw unprocessable('the sandbox has no public addresses left for NAT gateways');
}

const timeouts = (body: Record<string, unknown>, base: { udp: number; icmp: number; tcp: number }) => ({
  udp_timeout_seconds: positiveInt(body.udp_timeout_seconds, 'udp_timeout_seconds', base.udp),
  icmp_timeout_seconds: positiveInt(body.icmp_timeout_seconds, 'icmp_timeout_seconds', base.icmp),
  tcp_timeout_seconds: positiveInt(body.tcp_timeout_seconds, 'tcp_timeout_seconds', base.tcp),
});

/** Forgets gateways deleted long enough ago to be gone. */
const prune = (world: World, now: number) => {
  world.natGateways = live(world, now);
};

export const natGatewaysRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/vpc_nat_gateways',
    handler: (req, world) => {
      const state = req.query.get('state')?.toUpperCase();
      const region = req.query.get('region');
      const type = req.query.get('type')?.toUpperCase();
      const name = req.query.get('name');
      const matching = live(world, req.now).filter(
        (gw) =>
          (!state || stateOf(gw, req.now) === state) &&
          (!region || gw.region === region) &&
          (!type || type === 'PUBLIC') &&
          (!name || gw.name === name),
      );
      const page = paginate(matching, req);
      return {
        body: {
          vpc_nat_gateways: page.items.map((gw) => view(gw, req.now)),
          links: page.links,
          meta: page.meta,
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/v2/vpc_nat_gateways',
    handler: (req, world) => {
      prune(world, req.now);
      const name = checkName(world, req.body, req.now);
      if (req.body.type !== 'PUBLIC') {
        throw unprocessable(
          `type must be PUBLIC, the only type of VPC NAT gateway; got ${JSON.stringify(req.body.type)}`,
        );
      }
      const region = requireString(req.body, 'region');
      if (!NAT_REGIONS.has(region) || !regionOf(world, region)?.available) {
        throw unprocessable(`region ${region} does not offer VPC NAT gateways`);
      }
      const size = positiveInt(req.body.size, 'size');
      const vpcs = checkVpcs(world, req.body.vpcs, region, req.now);
      const gw: StoredNatGateway = {
        id: randomUUID(),
        name,
        region,
        size,
        vpcs,
        egress_ip: egressAddress(world),
        ...timeouts(req.body, NAT_GATEWAY_TIMEOUTS),
        created_ms: req.now,
        updated_ms: req.now,
      };
      world.natGateways.push(gw);
      return { status: 202, body: { vpc_nat_gateway: view(gw, req.now) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/vpc_nat_gateways/{id}',
    handler: (req, world) => ({ body: { vpc_nat_gateway: view(findGateway(world, req), req.now) } }),
  },
  {
    method: 'PUT',
    path: '/v2/vpc_nat_gateways/{id}',
    handler: (req, world) => {
      const gw = findGateway(world, req);
      const state = stateOf(gw, req.now);
      if (state !== 'ACTIVE')
        throw unprocessable(`VPC NAT gateway ${gw.name} is ${state}: it changes only while ACTIVE`);
      const name = checkName(world, req.body, req.now, gw.id);
      const size = positiveInt(req.body.size, 'size');
      const vpcs =
        req.body.vpcs === undefined ? gw.vpcs : checkVpcs(world, req.body.vpcs, gw.region, req.now, gw);
      const current = {
        udp: gw.udp_timeout_seconds,
        icmp: gw.icmp_timeout_seconds,
        tcp: gw.tcp_timeout_seconds,
      };
      Object.assign(gw, { name, size, vpcs, ...timeouts(req.body, current), updated_ms: req.now });
      return { body: { vpc_nat_gateway: view(gw, req.now) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/vpc_nat_gateways/{id}',
    handler: (req, world) => {
      const gw = findGateway(world, req);
      if (gw.deleted_ms !== undefined)
        throw unprocessable(`VPC NAT gateway ${gw.name} is already being deleted`);
      gw.deleted_ms = req.now;
      gw.updated_ms = req.now;
      prune(world, req.now);
      return { status: 202 };
    },
  },
];
