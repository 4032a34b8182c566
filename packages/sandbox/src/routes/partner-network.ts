/**
 * Partner Network Connect attachments: create (a metro, a bandwidth, a provider, VPCs of that metro,
 * optionally BGP and a parent to pair with), list in pages, get, change (name, VPCs or BGP), delete;
 * their BGP auth key, their service key (regenerated on request) and their remote routes. States
 * as Terraform's provider waits for them: CREATING, then CREATED a few seconds of sandbox time
 * later; deleted, DELETING, then gone (404). An attachment changes only once CREATED, and one with
 * a redundant pair (children) is deleted after them. The sandbox has no partner router on the
 * other side, so no remote routes are learnt: the list is empty.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { cidrContains, ipv4ToInt, parseCidr, type Vpc } from '../families/networking.js';
import {
  PARTNER_ATTACHMENT_MS,
  PARTNER_LOCAL_ASN,
  type StoredPartnerAttachment,
  type StoredPartnerBgp,
} from '../families/partner-network.js';
import {
  listBody,
  notFound,
  paginate,
  type Route,
  requireString,
  type SandboxRequest,
  unprocessable,
} from '../http.js';
import { iso } from '../time.js';
import type { World } from '../world.js';

const METROS = ['nyc', 'sfo', 'fra', 'ams', 'sgp'];
const BANDWIDTHS = [1000, 2000, 5000, 10000];
const PROVIDERS = ['MEGAPORT'];
const ZONES = ['MEGAPORT_BLUE', 'MEGAPORT_RED'];
const NAME = /^[a-zA-Z0-9.-]{1,255}$/;

type State = 'CREATING' | 'CREATED' | 'DELETING' | 'GONE';

function stateOf(pa: StoredPartnerAttachment, now: number): State {
  if (pa.deleted_ms !== undefined) return now < pa.deleted_ms + PARTNER_ATTACHMENT_MS ? 'DELETING' : 'GONE';
  return now < pa.created_ms + PARTNER_ATTACHMENT_MS ? 'CREATING' : 'CREATED';
}

const live = (world: World, now: number) =>
  world.partnerAttachments.filter((pa) => stateOf(pa, now) !== 'GONE');

function view(world: World, pa: StoredPartnerAttachment, now: number) {
  const children = live(world, now)
    .filter((other) => other.parent_uuid === pa.id)
    .map((other) => other.id);
  return {
    id: pa.id,
    name: pa.name,
    state: stateOf(pa, now),
    connection_bandwidth_in_mbps: pa.connection_bandwidth_in_mbps,
    region: pa.region,
    naas_provider: pa.naas_provider,
    vpc_ids: [...pa.vpc_ids],
    bgp: {
      local_asn: PARTNER_LOCAL_ASN,
      ...(pa.bgp
        ? {
            local_router_ip: pa.bgp.local_router_ip,
            peer_router_ip: pa.bgp.peer_router_ip,
            peer_asn: pa.bgp.peer_router_asn,
          }
        : {}),
    },
    created_at: iso(pa.created_ms),
    ...(pa.parent_uuid ? { parent_uuid: pa.parent_uuid } : {}),
    // The description gives `children` at least one item: absent when there are none.
    ...(children.length ? { children } : {}),
  };
}

function findAttachment(world: World, req: SandboxRequest): StoredPartnerAttachment {
  const pa = live(world, req.now).find((p) => p.id === req.params.id);
  if (!pa) throw notFound();
  return pa;
}

/** An attachment that may change: CREATED. */
function changeable(pa: StoredPartnerAttachment, now: number): void {
  const state = stateOf(pa, now);
  if (state !== 'CREATED')
    throw unprocessable(`partner attachment ${pa.name} is ${state}: it changes only once CREATED`);
}

function checkName(world: World, value: unknown, now: number, self?: string): string {
  const name = requireString({ name: value }, 'name');
  if (!NAME.test(name)) throw unprocessable('name may only contain letters, digits, "-" and "."');
  if (live(world, now).some((pa) => pa.id !== self && pa.name === name)) {
    throw unprocessable(`a partner attachment named ${name} already exists`);
  }
  return name;
}

/** VPCs of the account in the metro (`nyc` holds nyc1, nyc2 and nyc3), each once. */
function checkVpcs(world: World, value: unknown, metro: string): string[] {
  if (!Array.isArray(value) || value.length === 0) throw unprocessable('vpc_ids must list at least one VPC');
  const ids: string[] = [];
  for (const id of value) {
    const vpc: Vpc | undefined = typeof id === 'string' ? world.vpcs.find((v) => v.id === id) : undefined;
    if (!vpc) throw unprocessable(`vpc_ids: VPC ${JSON.stringify(id)} does not exist`);
    if (!vpc.region.startsWith(metro)) {
      throw unprocessable(`vpc_ids: VPC ${vpc.id} is in ${vpc.region}, outside the ${metro} metro`);
    }
    if (ids.includes(vpc.id)) throw unprocessable(`vpc_ids: VPC ${vpc.id} is listed twice`);
    ids.push(vpc.id);
  }
  return ids;
}

/** A BGP configuration: two link-local addresses of one subnet, the peer's ASN, an auth key. */
function checkBgp(value: unknown): { bgp: StoredPartnerBgp; authKey: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw unprocessable('bgp must be an object');
  const b = value as Record<string, unknown>;
  const cidr = (field: 'local_router_ip' | 'peer_router_ip') => {
    const text = b[field];
    const parsed = typeof text === 'string' ? parseCidr(text) : undefined;
    if (parsed?.family !== 'ipv4') {
      throw unprocessable(`bgp.${field} must be an IPv4 address with its prefix, such as 169.254.0.1/29`);
    }
    if (!cidrContains('169.254.0.0/16', parsed.address)) {
      throw unprocessable(`bgp.${field} must be a link-local address (169.254.0.0/16)`);
    }
    if (parsed.bits < 24 || parsed.bits > 30)
      throw unprocessable(`bgp.${field} must have a /24 to /30 prefix`);
    return { text: text as string, parsed };
  };
  const local = cidr('local_router_ip');
  const peer = cidr('peer_router_ip');
  const network = (ip: string, bits: number) => Math.floor(ipv4ToInt(ip) / 2 ** (32 - bits));
  const sameNet =
    local.parsed.bits === peer.parsed.bits &&
    network(local.parsed.address, local.parsed.bits) === network(peer.parsed.address, peer.parsed.bits);
  if (!sameNet) throw unprocessable('bgp.local_router_ip and bgp.peer_router_ip must be in the same subnet');
  if (local.parsed.address === peer.parsed.address)
    throw unprocessable('bgp.local_router_ip and bgp.peer_router_ip must differ');
  const asn = b.peer_router_asn;
  if (typeof asn !== 'number' || !Number.isInteger(asn) || asn < 1 || asn > 4_294_967_294) {
    throw unprocessable('bgp.peer_router_asn must be an ASN from 1 to 4294967294');
  }
  if (asn === PARTNER_LOCAL_ASN)
    throw unprocessable(`bgp.peer_router_asn must differ from the platform's ASN ${PARTNER_LOCAL_ASN}`);
  const authKey = b.auth_key;
  if (typeof authKey !== 'string' || authKey === '') throw unprocessable('bgp.auth_key is required');
  return { bgp: { local_router_ip: local.text, peer_router_ip: peer.text, peer_router_asn: asn }, authKey };
}

const secret = () => randomBytes(18).toString('base64url');

function keyView(value: string, since: number, now: number) {
  return {
    value,
    created_at: iso(since),
    state: now < since + PARTNER_ATTACHMENT_MS ? 'CREATING' : 'CREATED',
  };
}

export const partnerNetworkRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/partner_network_connect/attachments',
    handler: (req, world) => {
      const page = paginate(live(world, req.now), req);
      return {
        body: {
          partner_attachments: page.items.map((pa) => view(world, pa, req.now)),
          links: page.links,
          meta: page.meta,
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/v2/partner_network_connect/attachments',
    handler: (req, world) => {
      const now = req.now;
      world.partnerAttachments = live(world, now);
      const b = req.body;
      const name = checkName(world, b.name, now);
      const bandwidth = b.connection_bandwidth_in_mbps;
      if (typeof bandwidth !== 'number' || !BANDWIDTHS.includes(bandwidth)) {
        throw unprocessable(`connection_bandwidth_in_mbps must be one of ${BANDWIDTHS.join(', ')}`);
      }
      const metro = b.region;
      if (typeof metro !== 'string' || !METROS.includes(metro)) {
        throw unprocessable(`region must be one of ${METROS.join(', ')} (a metro, not a datacenter)`);
      }
      const provider = b.naas_provider;
      if (typeof provider !== 'string' || !PROVIDERS.includes(provider.toUpperCase())) {
        throw unprocessable(`naas_provider must be one of ${PROVIDERS.join(', ')}`);
      }
      const vpcIds = checkVpcs(world, b.vpc_ids, metro);
      const bgp = b.bgp === undefined || b.bgp === null ? undefined : checkBgp(b.bgp);
      const zone = b.redundancy_zone;
      if (zone !== undefined && zone !== null && (typeof zone !== 'string' || !ZONES.includes(zone))) {
        throw unprocessable(`redundancy_zone must be one of ${ZONES.join(', ')}`);
      }
      let parent: StoredPartnerAttachment | undefined;
      if (b.parent_uuid !== undefined && b.parent_uuid !== null && b.parent_uuid !== '') {
        parent = live(world, now).find((pa) => pa.id === b.parent_uuid && pa.deleted_ms === undefined);
        if (!parent)
          throw unprocessable(
            `parent_uuid: partner attachment ${JSON.stringify(b.parent_uuid)} does not exist`,
          );
        if (parent.region !== metro)
          throw unprocessable(`parent_uuid: the parent is in the ${parent.region} metro`);
        if (parent.parent_uuid)
          throw unprocessable('parent_uuid: the parent is itself the pair of another attachment');
        if (zone && parent.redundancy_zone === zone) {
          throw unprocessable(`redundancy_zone: the parent is in ${zone} already; a pair spans both zones`);
        }
      }
      const pa: StoredPartnerAttachment = {
        id: randomUUID(),
        name,
        region: metro,
        connection_bandwidth_in_mbps: bandwidth,
        naas_provider: provider,
        vpc_ids: vpcIds,
        ...(bgp ? { bgp: bgp.bgp } : {}),
        bgp_auth_key: bgp?.authKey ?? secret(),
        bgp_auth_key_ms: now,
        ...(typeof zone === 'string' ? { redundancy_zone: zone } : {}),
        ...(parent ? { parent_uuid: parent.id } : {}),
        service_key: randomUUID(),
        service_key_ms: now,
        created_ms: now,
      };
      world.partnerAttachments.push(pa);
      return { status: 202, body: { partner_attachment: view(world, pa, now) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/partner_network_connect/attachments/{id}',
    handler: (req, world) => ({
      body: { partner_attachment: view(world, findAttachment(world, req), req.now) },
    }),
  },
  {
    method: 'PATCH',
    path: '/v2/partner_network_connect/attachments/{id}',
    handler: (req, world) => {
      const pa = findAttachment(world, req);
      changeable(pa, req.now);
      const { name, vpc_ids: vpcIds, bgp } = req.body;
      if (name === undefined && vpcIds === undefined && bgp === undefined) {
        throw unprocessable('give the name, the vpc_ids or the bgp configuration to change');
      }
      const checked = {
        name: name === undefined ? pa.name : checkName(world, name, req.now, pa.id),
        vpc_ids: vpcIds === undefined ? pa.vpc_ids : checkVpcs(world, vpcIds, pa.region),
        bgp: bgp === undefined ? undefined : checkBgp(bgp),
      };
      pa.name = checked.name;
      pa.vpc_ids = checked.vpc_ids;
      if (checked.bgp) {
        pa.bgp = checked.bgp.bgp;
        pa.bgp_auth_key = checked.bgp.authKey;
        pa.bgp_auth_key_ms = req.now;
      }
      return { status: 202, body: { partner_attachment: view(world, pa, req.now) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/partner_network_connect/attachments/{id}',
    handler: (req, world) => {
      const pa = findAttachment(world, req);
      if (pa.deleted_ms !== undefined)
        throw unprocessable(`partner attachment ${pa.name} is already being deleted`);
      const children = live(world, req.now).filter(
        (other) => other.parent_uuid === pa.id && other.deleted_ms === undefined,
      );
      if (children.length) {
        throw unprocessable(
          `partner attachment ${pa.name} is paired with ${children.map((c) => c.name).join(', ')}: delete that first`,
        );
      }
      pa.deleted_ms = req.now;
      world.partnerAttachments = live(world, req.now);
      return { status: 202, body: { partner_attachment: view(world, pa, req.now) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/partner_network_connect/attachments/{id}/bgp_auth_key',
    handler: (req, world) => {
      const pa = findAttachment(world, req);
      // Given (or made) with the attachment's BGP configuration: in force from then on.
      return {
        body: {
          bgp_auth_key: { value: pa.bgp_auth_key, created_at: iso(pa.bgp_auth_key_ms), state: 'CREATED' },
        },
      };
    },
  },
  {
    method: 'GET',
    path: '/v2/partner_network_connect/attachments/{id}/service_key',
    handler: (req, world) => {
      const pa = findAttachment(world, req);
      return { body: { service_key: keyView(pa.service_key, pa.service_key_ms, req.now) } };
    },
  },
  {
    method: 'POST',
    path: '/v2/partner_network_connect/attachments/{id}/service_key',
    handler: (req, world) => {
      const pa = findAttachment(world, req);
      changeable(pa, req.now);
      pa.service_key = randomUUID();
      pa.service_key_ms = req.now;
      return { status: 202, body: {} };
    },
  },
  {
    method: 'GET',
    path: '/v2/partner_network_connect/attachments/{id}/remote_routes',
    handler: (req, world) => {
      findAttachment(world, req);
      return { body: listBody('remote_routes', [], req) };
    },
  },
];
