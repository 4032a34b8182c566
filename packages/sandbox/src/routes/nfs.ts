/**
 * NFS shares: create (in a region, reachable from VPCs of that region, at least 50 GiB), list (by
 * region), get, delete; actions (resize, snapshot, attach, detach, reassign, switch performance
 * tier); snapshots; access points. A share is CREATING for a few seconds of sandbox time, then
 * ACTIVE, or INACTIVE while attached to no VPC. An action answers IN_PROGRESS and its effect (the
 * new size, the VPCs, the tier) shows when it completes; a share takes one action at a time. A share
 * is made with its default access point (`/`, which cannot be deleted); others are pinned to a VPC,
 * unique by name and by path, CREATING then ACTIVE, and soft-deleted (shown DELETED).
 *
 * The platform's codes as its description gives them: a bad request is a 400 (access point
 * operations answer `{code, message}`, which the sandbox adds to its usual error body), a name or
 * path taken a 409, a share, snapshot or access point that is not there (or not in the `region`
 * asked) a 404.
 */
import { randomUUID } from 'node:crypto';
import { ipv4ToInt, parseCidr, type Vpc } from '../families/networking.js';
import {
  NFS_DURATION_MS,
  NFS_MIN_GIB,
  type StoredAccessPoint,
  type StoredAccessPolicy,
  type StoredNfsAction,
  type StoredNfsSnapshot,
  type StoredShare,
} from '../families/nfs.js';
import { schedule, settle, stateAt } from '../families/vms.js';
import { badRequest, HttpError, notFound, type Route, type SandboxRequest } from '../http.js';
import { iso } from '../time.js';
import { regionOf, type World } from '../world.js';

const TIERS: Record<string, string> = {
  standard: 'PERFORMANCE_TIER_STANDARD',
  high: 'PERFORMANCE_TIER_HIGH',
  performance_tier_standard: 'PERFORMANCE_TIER_STANDARD',
  performance_tier_high: 'PERFORMANCE_TIER_HIGH',
};
const AP_NAME = /^[a-zA-Z0-9][a-zA-Z0-9-]{1,61}[a-zA-Z0-9]$/;
const AP_PATH = /^\/[a-zA-Z0-9_./-]{1,1023}$/;
const AP_STATUSES = [
  'ACCESS_POINT_CREATING',
  'ACCESS_POINT_ACTIVE',
  'ACCESS_POINT_FAILED',
  'ACCESS_POINT_DELETED',
];
const DEFAULT_POLICY: StoredAccessPolicy = {
  anonuid: 65534,
  anongid: 65534,
  protocols: ['NFS4', 'NFS'],
  squash_config: 'ROOT_SQUASH',
  identity_enforcement_enabled: false,
};

/** A 400 with the `code` the access point operations answer. */
const apError = (code: string, message: string) => new HttpError(400, 'bad_request', message, { code });
const conflict = (message: string, code?: string) =>
  new HttpError(409, 'conflict', message, code ? { code } : undefined);

/** The `n`th address down from the top of an IPv4 range (n = 1 is the last usable one). */
export function addressFromTop(range: string, n: number): string {
  const cidr = parseCidr(range);
  const bits = cidr?.family === 'ipv4' ? cidr.bits : 24;
  const base = cidr?.family === 'ipv4' ? ipv4ToInt(cidr.address) : ipv4ToInt('10.0.0.0');
  const size = 2 ** (32 - bits);
  const value = base + size - 1 - (n % Math.max(1, size - 2));
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

const accessPointStatus = (ap: StoredAccessPoint, now: number) =>
  ap.deleted_ms !== undefined
    ? 'ACCESS_POINT_DELETED'
    : now < ap.ready_ms
      ? 'ACCESS_POINT_CREATING'
      : 'ACCESS_POINT_ACTIVE';

function accessPointView(ap: StoredAccessPoint, shareId: string, now: number) {
  const status = accessPointStatus(ap, now);
  const updated =
    ap.deleted_ms !== undefined
      ? iso(ap.deleted_ms)
      : status === 'ACCESS_POINT_ACTIVE'
        ? iso(ap.ready_ms)
        : '';
  return {
    id: ap.id,
    name: ap.name,
    share_id: shareId,
    path: ap.path,
    ...(ap.vpc_id === undefined ? {} : { vpc_id: ap.vpc_id }),
    status,
    is_default: ap.is_default,
    created_at: iso(ap.created_ms),
    updated_at: updated,
    access_policy: { ...ap.access_policy, protocols: [...ap.access_policy.protocols] },
  };
}

/** Default first, then by creation. */
const ordered = (aps: readonly StoredAccessPoint[]) =>
  [...aps].sort((a, b) => Number(b.is_default) - Number(a.is_default) || a.created_ms - b.created_ms);

function shareView(share: StoredShare, now: number) {
  const current = stateAt<StoredShare>(share, now);
  const status = now < share.ready_ms ? 'CREATING' : current.vpc_ids.length ? 'ACTIVE' : 'INACTIVE';
  return {
    id: share.id,
    name: current.name,
    size_gib: current.size_gib,
    region: share.region,
    status,
    created_at: iso(share.created_ms),
    vpc_ids: [...current.vpc_ids],
    performance_tier: current.performance_tier,
    mount_path: share.mount_path,
    host: share.host,
    access_points: ordered(share.access_points.filter((ap) => ap.deleted_ms === undefined)).map((ap) =>
      accessPointView(ap, share.id, now),
    ),
  };
}

const snapshotView = (snapshot: StoredNfsSnapshot, now: number) => ({
  id: snapshot.id,
  name: snapshot.name,
  size_gib: snapshot.size_gib,
  region: snapshot.region,
  status: now < snapshot.created_ms + NFS_DURATION_MS ? 'CREATING' : 'ACTIVE',
  created_at: iso(snapshot.created_ms),
  share_id: snapshot.share_id,
});

const actionView = (action: StoredNfsAction, now: number) => ({
  id: action.id,
  region_slug: action.region,
  resource_id: action.resource_id,
  resource_type: action.resource_type,
  type: action.type,
  status: now < action.started_ms + NFS_DURATION_MS ? 'IN_PROGRESS' : 'COMPLETED',
  started_at: iso(action.started_ms),
});

/** `region` of the query, when given, must be the resource's: another region's is not found. */
function inRegion<T extends { region: string }>(req: SandboxRequest, found: T | undefined): T {
  const region = req.query.get('region');
  if (!found || (region && found.region !== region)) throw notFound();
  return found;
}

const findShare = (world: World, req: SandboxRequest, param = 'id') =>
  inRegion(
    req,
    world.nfsShares.find((s) => s.id === req.params[param]),
  );

const findSnapshot = (world: World, req: SandboxRequest) =>
  inRegion(
    req,
    world.nfsSnapshots.find((s) => s.id === req.params.snapshot),
  );

function findAccessPoint(world: World, req: SandboxRequest) {
  for (const share of world.nfsShares) {
    const ap = share.access_points.find((a) => a.id === req.params.ap);
    if (ap) return { share, ap };
  }
  throw notFound();
}

/** A VPC of the account in `region`, or the platform's 400 naming the field. */
function vpcIn(world: World, value: unknown, region: string, field: string): Vpc {
  if (typeof value !== 'string' || value === '') throw badRequest(`${field} is required`);
  const vpc = world.vpcs.find((v) => v.id === value);
  if (!vpc) throw badRequest(`${field}: VPC ${value} does not exist`);
  if (vpc.region !== region) {
    throw badRequest(`${field}: VPC ${value} is in ${vpc.region}; the share is in ${region}`);
  }
  return vpc;
}

function tierOf(value: unknown, field: string): string {
  const tier = typeof value === 'string' ? TIERS[value.toLowerCase()] : undefined;
  if (!tier) throw badRequest(`${field} must be standard or high; got ${JSON.stringify(value)}`);
  return tier;
}

/** Drops the record of actions long completed (they only hold the next one back while running). */
function pruneActions(world: World, now: number): void {
  world.nfsActions = world.nfsActions.filter((a) => now < a.started_ms + NFS_DURATION_MS);
}

/** An action on `share` (kept by the caller when it holds the share's next action back). */
const newAction = (
  share: StoredShare,
  now: number,
  init: Pick<StoredNfsAction, 'type' | 'resource_id' | 'resource_type'>,
): StoredNfsAction => ({
  id: randomUUID(),
  share_id: share.id,
  region: share.region,
  started_ms: now,
  ...init,
});

/** The first address down from the top of the VPC's range that no other share or NAT gateway holds. */
function freeHost(world: World, vpc: Vpc): string {
  const taken = new Set([
    ...world.nfsShares.map((s) => s.host),
    ...world.natGateways.flatMap((gw) => gw.vpcs.map((v) => v.gateway_ip)),
  ]);
  for (let n = 2; n < 4_000; n++) {
    const candidate = addressFromTop(vpc.ip_range, n);
    if (!taken.has(candidate)) return candidate;
  }
  throw badRequest(`VPC ${vpc.id} has no free address for the share`);
}

function newShare(world: World, body: Record<string, unknown>, now: number): StoredShare {
  const { name, size_gib: size, region, vpc_ids: vpcIds } = body;
  if (typeof name !== 'string' || name.trim() === '') throw badRequest("The value for 'name' is required.");
  if (!/^[a-zA-Z0-9][a-zA-Z0-9._-]{0,254}$/.test(name)) {
    throw badRequest("The value for 'name' may hold letters, digits, '.', '_' and '-' only.");
  }
  if (typeof size !== 'number' || !Number.isInteger(size)) {
    throw badRequest("The value for 'size_gib' must be an integer number of GiB.");
  }
  if (size < NFS_MIN_GIB) {
    throw badRequest(`The value for 'size_gib' must be greater than or equal to ${NFS_MIN_GIB}Gib.`);
  }
  if (typeof region !== 'string' || region === '') throw badRequest("The value for 'region' is required.");
  const known = regionOf(world, region);
  if (!known?.available)
    throw badRequest(`The value for 'region' is not a region open to new shares: ${region}`);
  if (!Array.isArray(vpcIds) || vpcIds.length === 0) {
    throw badRequest("The value for 'vpc_ids' must list at least one VPC of the share's region.");
  }
  const vpcs = [...new Set(vpcIds)].map((id) => vpcIn(world, id, region, 'vpc_ids'));
  const tier =
    body.performance_tier == null ? TIERS.standard : tierOf(body.performance_tier, 'performance_tier');
  if (world.nfsShares.some((s) => s.region === region && s.name === name)) {
    throw conflict(`a share named ${name} already exists in ${region}`);
  }
  const id = randomUUID();
  const first = vpcs[0] as Vpc;
  const account = Number.parseInt(world.account.uuid.slice(0, 5), 16) % 1_000_000;
  return {
    id,
    name,
    region,
    size_gib: size,
    performance_tier: tier as string,
    vpc_ids: vpcs.map((v) => v.id),
    host: freeHost(world, first),
    mount_path: `/${account}/${id}`,
    access_points: [
      {
        id: randomUUID(),
        name: 'default',
        path: '/',
        is_default: true,
        access_policy: { ...DEFAULT_POLICY, protocols: [...DEFAULT_POLICY.protocols] },
        created_ms: now,
        ready_ms: now + NFS_DURATION_MS,
      },
    ],
    created_ms: now,
    ready_ms: now + NFS_DURATION_MS,
  };
}

/** Starts one share action as the platform checks it; its effect is scheduled for its completion. */
function shareAction(world: World, share: StoredShare, req: SandboxRequest) {
  const now = req.now;
  settle(share, now);
  const { type, region } = req.body;
  if (region != null && region !== '' && region !== share.region) {
    throw badRequest(`region ${JSON.stringify(region)} is not the share's region (${share.region})`);
  }
  const params = (req.body.params ?? {}) as Record<string, unknown>;
  if (typeof params !== 'object' || Array.isArray(params)) throw badRequest('params must be an object');
  if (now < share.ready_ms) throw conflict(`share ${share.name} is still being created`);
  if (world.nfsActions.some((a) => a.share_id === share.id && now < a.started_ms + NFS_DURATION_MS)) {
    throw conflict(`share ${share.name} has an action in progress; wait for it to complete`);
  }
  const done = now + NFS_DURATION_MS;
  const onShare = (actionType: string) => ({
    type: actionType,
    resource_id: share.id,
    resource_type: 'SHARE' as const,
  });
  let init: Pick<StoredNfsAction, 'type' | 'resource_id' | 'resource_type'>;
  switch (type) {
    case 'resize': {
      const size = params.size_gib;
      if (typeof size !== 'number' || !Number.isInteger(size))
        throw badRequest('params.size_gib is required');
      if (size <= share.size_gib) {
        throw badRequest(
          `params.size_gib must be larger than the share's ${share.size_gib} GiB: a share only grows`,
        );
      }
      schedule<StoredShare>(share, done, { size_gib: size });
      init = onShare('RESIZE_SHARE');
      break;
    }
    case 'snapshot': {
      const name = params.name;
      if (typeof name !== 'string' || name.trim() === '') throw badRequest('params.name is required');
      if (world.nfsSnapshots.some((s) => s.share_id === share.id && s.name === name)) {
        throw conflict(`share ${share.name} already has a snapshot named ${name}`);
      }
      const snapshot: StoredNfsSnapshot = {
        id: randomUUID(),
        name,
        share_id: share.id,
        region: share.region,
        size_gib: share.size_gib,
        created_ms: now,
      };
      world.nfsSnapshots.push(snapshot);
      init = { type: 'CREATE_SNAPSHOT', resource_id: snapshot.id, resource_type: 'SNAPSHOT' };
      break;
    }
    case 'attach': {
      const vpc = vpcIn(world, params.vpc_id, share.region, 'params.vpc_id');
      if (share.vpc_ids.includes(vpc.id))
        throw conflict(`share ${share.name} is already attached to VPC ${vpc.id}`);
      schedule<StoredShare>(share, done, { vpc_ids: [...share.vpc_ids, vpc.id] });
      init = onShare('ATTACH_SHARE');
      break;
    }
    case 'detach': {
      const id = params.vpc_id;
      if (typeof id !== 'string' || id === '') throw badRequest('params.vpc_id is required');
      if (!share.vpc_ids.includes(id)) throw badRequest(`share ${share.name} is not attached to VPC ${id}`);
      schedule<StoredShare>(share, done, { vpc_ids: share.vpc_ids.filter((v) => v !== id) });
      init = onShare('DETACH_SHARE');
      break;
    }
    case 'reassign': {
      const old = params.old_vpc_id;
      if (typeof old !== 'string' || !share.vpc_ids.includes(old)) {
        throw badRequest(
          `params.old_vpc_id must be a VPC the share is attached to; got ${JSON.stringify(old)}`,
        );
      }
      const vpc = vpcIn(world, params.new_vpc_id, share.region, 'params.new_vpc_id');
      if (share.vpc_ids.includes(vpc.id))
        throw conflict(`share ${share.name} is already attached to VPC ${vpc.id}`);
      schedule<StoredShare>(share, done, { vpc_ids: share.vpc_ids.map((v) => (v === old ? vpc.id : v)) });
      init = onShare('REASSIGN_SHARE');
      break;
    }
    case 'switch_performance_tier': {
      const tier = tierOf(params.performance_tier, 'params.performance_tier');
      if (tier === share.performance_tier) throw badRequest(`share ${share.name} is already on ${tier}`);
      schedule<StoredShare>(share, done, { performance_tier: tier });
      init = onShare('SWITCH_PERFORMANCE_TIER');
      break;
    }
    default:
      throw badRequest(
        `type must be resize, snapshot, attach, detach, reassign or switch_performance_tier; got ${JSON.stringify(type)}`,
      );
  }
  pruneActions(world, now);
  const action = newAction(share, now, init);
  world.nfsActions.push(action);
  return { status: 201, body: { action: actionView(action, now) } };
}

/** The access policy of a request, as the platform checks it. */
function accessPolicy(value: unknown): StoredAccessPolicy {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw apError('MISSING_ACCESS_POLICY', 'access_policy is required');
  }
  const p = value as Record<string, unknown>;
  for (const id of ['anonuid', 'anongid'] as const) {
    if (p[id] !== 65534)
      throw apError('INVALID_ACCESS_POLICY', `access_policy.${id} must be 65534, the only one supported`);
  }
  const protocols = p.protocols;
  if (
    !Array.isArray(protocols) ||
    protocols.length === 0 ||
    protocols.some((x) => x !== 'NFS4' && x !== 'NFS')
  ) {
    throw apError('INVALID_ACCESS_POLICY', 'access_policy.protocols must list NFS4, NFS or both');
  }
  const squash = p.squash_config;
  if (squash !== 'NO_SQUASH' && squash !== 'ROOT_SQUASH' && squash !== 'ALL_SQUASH') {
    throw apError(
      'INVALID_ACCESS_POLICY',
      'access_policy.squash_config must be NO_SQUASH, ROOT_SQUASH or ALL_SQUASH',
    );
  }
  if (typeof p.identity_enforcement_enabled !== 'boolean') {
    throw apError('INVALID_ACCESS_POLICY', 'access_policy.identity_enforcement_enabled must be a boolean');
  }
  return {
    anonuid: 65534,
    anongid: 65534,
    protocols: [...new Set(protocols as StoredAccessPolicy['protocols'])],
    squash_config: squash,
    identity_enforcement_enabled: p.identity_enforcement_enabled,
  };
}

function newAccessPoint(
  world: World,
  share: StoredShare,
  body: Record<string, unknown>,
  now: number,
): StoredAccessPoint {
  const status = shareView(share, now).status;
  if (status !== 'ACTIVE' && status !== 'INACTIVE') {
    throw apError(
      'FAILED_PRECONDITION',
      `share ${share.name} is ${status}: access points are made on an ACTIVE or INACTIVE share`,
    );
  }
  const { name, path, vpc_id: vpcId } = body;
  if (typeof name !== 'string' || name === '') throw apError('MISSING_NAME', 'name is required');
  if (!AP_NAME.test(name)) {
    throw apError(
      'INVALID_NAME',
      'name must be 3 to 63 letters, digits and "-", starting and ending with a letter or digit',
    );
  }
  if (name.toLowerCase() === 'default')
    throw apError('INVALID_NAME', 'the name default is reserved for the default access point');
  if (typeof path !== 'string' || path === '') throw apError('MISSING_PATH', 'path is required');
  if (path === '/') throw apError('INVALID_PATH', 'path / is reserved for the default access point');
  if (!AP_PATH.test(path) || path.split('/').includes('..')) {
    throw apError(
      'INVALID_PATH',
      'path must start with /, hold only letters, digits, "-", "_", "." and "/", have no ".." segment, and be at most 1024 characters',
    );
  }
  if (typeof vpcId !== 'string' || vpcId === '') throw apError('MISSING_VPC_ID', 'vpc_id is required');
  const vpc = world.vpcs.find((v) => v.id === vpcId);
  if (!vpc || vpc.region !== share.region) {
    throw apError('INVALID_VPC_ID', `vpc_id ${vpcId} is not a VPC of the account in ${share.region}`);
  }
  const policy = accessPolicy(body.access_policy);
  const live = share.access_points.filter((ap) => ap.deleted_ms === undefined);
  if (live.some((ap) => ap.name === name || ap.path === path)) {
    throw conflict('access point with this name or path already exists for this share', 'AlreadyExists');
  }
  return {
    id: randomUUID(),
    name,
    path,
    vpc_id: vpc.id,
    is_default: false,
    access_policy: policy,
    created_ms: now,
    ready_ms: now + NFS_DURATION_MS,
  };
}

export const nfsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/nfs',
    handler: (req, world) => {
      const region = req.query.get('region');
      const shares = world.nfsShares
        .filter((s) => !region || s.region === region)
        .map((s) => shareView(s, req.now));
      return { body: { shares } };
    },
  },
  {
    method: 'POST',
    path: '/v2/nfs',
    handler: (req, world) => {
      const share = newShare(world, req.body, req.now);
      world.nfsShares.push(share);
      return { status: 201, body: { share: shareView(share, req.now) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/nfs/snapshots',
    handler: (req, world) => {
      const region = req.query.get('region');
      const shareId = req.query.get('share_id');
      const snapshots = world.nfsSnapshots
        .filter((s) => (!region || s.region === region) && (!shareId || s.share_id === shareId))
        .map((s) => snapshotView(s, req.now));
      return { body: { snapshots } };
    },
  },
  {
    method: 'GET',
    path: '/v2/nfs/snapshots/{snapshot}',
    handler: (req, world) => ({ body: { snapshot: snapshotView(findSnapshot(world, req), req.now) } }),
  },
  {
    method: 'DELETE',
    path: '/v2/nfs/snapshots/{snapshot}',
    handler: (req, world) => {
      const { id } = findSnapshot(world, req);
      world.nfsSnapshots = world.nfsSnapshots.filter((s) => s.id !== id);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/nfs/{id}',
    handler: (req, world) => ({ body: { share: shareView(findShare(world, req), req.now) } }),
  },
  {
    method: 'DELETE',
    path: '/v2/nfs/{id}',
    handler: (req, world) => {
      const { id } = findShare(world, req);
      world.nfsShares = world.nfsShares.filter((s) => s.id !== id);
      world.nfsActions = world.nfsActions.filter((a) => a.share_id !== id);
      return { status: 204 };
    },
  },
  {
    method: 'POST',
    path: '/v2/nfs/{id}/actions',
    handler: (req, world) => shareAction(world, findShare(world, req), req),
  },
  {
    method: 'GET',
    path: '/v2/nfs/shares/{share}/access_points',
    handler: (req, world) => {
      const share = findShare(world, req, 'share');
      const status = req.query.get('status');
      if (status && !AP_STATUSES.includes(status)) {
        throw apError('INVALID_ACCESS_POINT_STATUS', 'invalid access point status');
      }
      const aps = ordered(share.access_points)
        .filter((ap) => !status || accessPointStatus(ap, req.now) === status)
        .map((ap) => accessPointView(ap, share.id, req.now));
      return { body: { access_points: aps } };
    },
  },
  {
    method: 'POST',
    path: '/v2/nfs/shares/{share}/access_points',
    handler: (req, world) => {
      const share = findShare(world, req, 'share');
      settle(share, req.now);
      const ap = newAccessPoint(world, share, req.body, req.now);
      share.access_points.push(ap);
      // Not one of the share's actions: an access point's gateway does not hold the share's back.
      const action = newAction(share, req.now, {
        type: 'CREATE_ACCESS_POINT',
        resource_id: ap.id,
        resource_type: 'SHARE',
      });
      return {
        status: 201,
        body: { access_point: accessPointView(ap, share.id, req.now), action: actionView(action, req.now) },
      };
    },
  },
  {
    method: 'GET',
    path: '/v2/nfs/access_points/{ap}',
    handler: (req, world) => {
      const { share, ap } = findAccessPoint(world, req);
      return { body: { access_point: accessPointView(ap, share.id, req.now) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/nfs/access_points/{ap}',
    handler: (req, world) => {
      const { share, ap } = findAccessPoint(world, req);
      if (ap.is_default) throw apError('InvalidArgument', 'the default access point cannot be deleted');
      if (ap.deleted_ms !== undefined)
        throw apError('InvalidArgument', 'the access point is already deleted');
      ap.deleted_ms = req.now;
      const action = newAction(share, req.now, {
        type: 'DELETE_ACCESS_POINT',
        resource_id: ap.id,
        resource_type: 'SHARE',
      });
      return {
        body: { access_point: accessPointView(ap, share.id, req.now), action: actionView(action, req.now) },
      };
    },
  },
];
