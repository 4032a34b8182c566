/**
 * vms endpoints of the sandbox: droplets, droplet actions (one droplet or every droplet with a
 * tag) and droplet kernels. Effects the platform applies when an action completes are scheduled
 * on the droplet (families/vms.ts) and appear when the sandbox clock reaches them.
 */

import { DROPLET_BACKUP_POLICY_WEEKDAY } from '@cloudcall/platform';
import { cloneData } from '../clone.js';
import {
  type Droplet,
  DURATIONS,
  dropletAt,
  IMAGE_REGION_SLUGS,
  imageVisible,
  type StoredImage,
  schedule,
  settle,
} from '../families/vms.js';
import { type StoredVolume, VOLUMES_PER_DROPLET } from '../families/volumes.js';
import {
  intParam,
  listBody,
  notFound,
  type Route,
  requireString,
  type SandboxRequest,
  unprocessable,
} from '../http.js';
import { findItem, settled } from '../journal.js';
import { type Image, kernelsFor, type Size } from '../seed/catalog.js';
import { iso } from '../time.js';
import { actionView, nextId, type StoredAction, startAction, type World } from '../world.js';
import { actionListReply, actionReply } from './actions.js';
import { imageView } from './images.js';
import { vpcFor } from './networking-common.js';
import { dropFromProject } from './projects.js';
import { tagNewResource } from './tags.js';
import { attachVolume, volumeIdsOf } from './volumes.js';

const HOSTNAME = /^[a-zA-Z0-9][a-zA-Z0-9.-]*$/;

/** How many droplets one `names` request may create. */
const MULTI_CREATE_LIMIT = 10;

/** The backup plans the platform offers (GET /v2/droplets/backups/supported_policies). */
const BACKUP_PLANS = {
  daily: { window_length_hours: 4, retention_period_days: 7 },
  weekly: { window_length_hours: 4, retention_period_days: 28 },
} as const;
const WEEKDAYS = DROPLET_BACKUP_POLICY_WEEKDAY;
const WINDOW_STARTS = [0, 4, 8, 12, 16, 20] as const;

/** The plans as `GET /v2/droplets/backups/supported_policies` lists them (weekly first, as the platform does). */
export function supportedBackupPolicies() {
  return (['weekly', 'daily'] as const).map((name) => ({
    name,
    possible_window_starts: [...WINDOW_STARTS],
    window_length_hours: BACKUP_PLANS[name].window_length_hours,
    retention_period_days: BACKUP_PLANS[name].retention_period_days,
    possible_days: name === 'weekly' ? [...WEEKDAYS] : [],
  }));
}

/** A droplet's backup policy as the sandbox keeps it (`_backup_policy`). */
export interface BackupPolicy {
  plan: keyof typeof BACKUP_PLANS;
  weekday?: (typeof WEEKDAYS)[number];
  hour: (typeof WINDOW_STARTS)[number];
}

/** When no policy is given, backups are daily (the API description's default). */
const DEFAULT_POLICY: BackupPolicy = { plan: 'daily', hour: 0 };

/** The action types `POST /v2/droplets/actions?tag_name=` accepts. */
const TAG_ACTION_TYPES = new Set([
  'power_cycle',
  'power_on',
  'power_off',
  'shutdown',
  'enable_private_networking',
  'enable_ipv6',
  'enable_backups',
  'disable_backups',
  'snapshot',
]);

const images = (world: World) => world.images as StoredImage[];

/** A droplet as the platform shows it at `now`, with its backups and snapshots. */
export function dropletView(world: World, droplet: Droplet, now: number): Droplet {
  const view = dropletAt(droplet, now);
  const own = images(world).filter((image) => image._droplet_id === droplet.id && imageVisible(image, now));
  const typeAt = (image: StoredImage) => imageView(image, now).type;
  view.backup_ids = own.filter((image) => typeAt(image) === 'backup').map((image) => image.id);
  view.snapshot_ids = own.filter((image) => typeAt(image) === 'snapshot').map((image) => image.id);
  view.volume_ids = volumeIdsOf(world, droplet.id);
  return view;
}

/** Deletes a droplet; its backups go with it, its snapshots stay, its volumes are detached. */
export function deleteDroplet(world: World, droplet: Droplet, now: number): void {
  world.droplets = world.droplets.filter((d) => d !== droplet);
  dropFromProject(world, `do:droplet:${droplet.id}`);
  for (const volume of world.volumes)
    volume.droplet_ids = volume.droplet_ids.filter((id) => id !== droplet.id);
  world.images = images(world).filter(
    (image) => !(image._droplet_id === droplet.id && imageView(image, now).type === 'backup'),
  );
}

export function findDroplet(world: World, request: SandboxRequest, param = 'id'): Droplet {
  const id = intParam(request, param);
  const droplet = findItem(world.droplets, (d) => d.id === id);
  if (!droplet) throw notFound();
  return droplet;
}

function isDone(action: StoredAction, now: number): boolean {
  return now >= action.started_ms + action.duration_ms;
}

/** A usable image by id or slug (public, or the account's own once it exists and is available). */
function findImage(world: World, ref: unknown, now: number): StoredImage | undefined {
  const all = images(world).filter((image) => imageVisible(image, now));
  if (typeof ref === 'number') return all.find((image) => image.id === ref);
  if (typeof ref === 'string' && ref !== '') {
    return /^\d+$/.test(ref)
      ? all.find((image) => image.id === Number(ref))
      : all.find((image) => image.public && image.slug === ref);
  }
  return undefined;
}

/** Refuses an image that cannot boot `region` on a disk of `diskGb`, as the platform does. */
function checkBootable(
  world: World,
  image: StoredImage,
  region: string,
  diskGb: number,
  sizeSlug: string,
  now: number,
): void {
  const view = imageView(image, now);
  if (view.status !== 'available') {
    throw unprocessable(`Image ${image.id} is not available yet (status ${view.status}).`);
  }
  // The image schema cannot name atl1: a public image offered in every other open region is offered there too.
  const everywhereElse = world.regions
    .filter((r) => r.available && r.slug !== 'atl1')
    .every((r) => view.regions.includes(r.slug));
  const inRegion = view.regions.includes(region) || (image.public && region === 'atl1' && everywhereElse);
  if (!inRegion) {
    throw unprocessable(
      `Image ${image.id} is not available in region ${region}; it is in ${view.regions.join(', ') || 'no region'}.`,
    );
  }
  const needed = view.min_disk_size ?? 0;
  if (needed > diskGb) {
    throw unprocessable(
      `Image ${image.id} needs a disk of at least ${needed} GB; size ${sizeSlug} has ${diskGb} GB.`,
    );
  }
}

function optionalBoolean(body: Record<string, unknown>, field: string): boolean {
  const value = body[field];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw unprocessable(`${field} must be a boolean`);
  return value;
}

function checkName(name: string): string {
  if (!HOSTNAME.test(name) || name.length > 255) {
    throw unprocessable('Name Only valid hostname characters are allowed. (a-z, A-Z, 0-9, . and -)');
  }
  return name;
}

function publicAddress(seq: number): string {
  const blocks = ['192.0.2', '198.51.100', '203.0.113'];
  return `${blocks[Math.floor(seq / 250) % 3]}.${(seq % 250) + 2}`;
}

/** The `n`th address of a CIDR block such as 10.100.16.0/20, with the block's netmask. */
function addressIn(cidr: string, n: number): { ip: string; netmask: string; gateway: string } {
  const [base = '10.0.0.0', bits = '20'] = cidr.split('/');
  const prefix = Number(bits);
  const toInt = (ip: string) => ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
  const toIp = (value: number) =>
    [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
  const start = toInt(base);
  const hosts = 2 ** (32 - prefix) - 3;
  return {
    ip: toIp(start + 2 + (n % hosts)),
    netmask: toIp(2 ** 32 - 2 ** (32 - prefix)),
    gateway: toIp(start + 1),
  };
}

/** The next backup window of a policy after `now`: its hour (UTC), on its weekday when weekly. */
function backupWindow(now: number, policy: BackupPolicy): { start: string; end: string } {
  const day = 86_400_000;
  const hour = 3_600_000;
  let start = Math.floor(now / day) * day + policy.hour * hour;
  const due = (at: number) =>
    at > now && (policy.weekday === undefined || WEEKDAYS[new Date(at).getUTCDay()] === policy.weekday);
  while (!due(start)) start += day;
  return { start: iso(start), end: iso(start + BACKUP_PLANS[policy.plan].window_length_hours * hour) };
}

/**
 * A `backup_policy` of a request, checked as the platform checks it: a plan of daily or weekly,
 * a weekday for weekly plans only, a window starting at 0, 4, 8, 12, 16 or 20 (UTC). Fields left
 * out keep the `base` policy's; a weekly plan without a weekday backs up on Sundays.
 */
export function backupPolicy(value: unknown, base: BackupPolicy = DEFAULT_POLICY): BackupPolicy {
  if (value === undefined || value === null) return base;
  if (typeof value !== 'object' || Array.isArray(value))
    throw unprocessable('backup_policy must be an object');
  const { plan = base.plan, weekday, hour = base.hour } = value as Record<string, unknown>;
  if (plan !== 'daily' && plan !== 'weekly') {
    throw unprocessable(`backup_policy.plan must be daily or weekly; got ${JSON.stringify(plan)}`);
  }
  if (!WINDOW_STARTS.includes(hour as never)) {
    throw unprocessable(
      `backup_policy.hour must be one of ${WINDOW_STARTS.join(', ')}; got ${JSON.stringify(hour)}`,
    );
  }
  if (plan === 'daily') {
    if (weekday !== undefined) throw unprocessable('backup_policy.weekday applies to weekly plans only');
    return { plan, hour: hour as BackupPolicy['hour'] };
  }
  const day = weekday ?? (base.plan === 'weekly' ? base.weekday : undefined) ?? 'SUN';
  if (!WEEKDAYS.includes(day as never)) {
    throw unprocessable(
      `backup_policy.weekday must be one of ${WEEKDAYS.join(', ')}; got ${JSON.stringify(day)}`,
    );
  }
  return { plan, weekday: day as BackupPolicy['weekday'], hour: hour as BackupPolicy['hour'] };
}

/** A droplet's backup policy record (GET /v2/droplets/{id}/backups/policy). */
export function backupPolicyRecord(droplet: Droplet, now: number) {
  const view = dropletAt(droplet, now);
  const enabled = view.features.includes('backups');
  const policy = currentPolicy(droplet, now);
  return {
    droplet_id: droplet.id,
    backup_enabled: enabled,
    ...(enabled ? { backup_policy: { ...policy, ...BACKUP_PLANS[policy.plan] } } : {}),
    next_backup_window: view.next_backup_window,
  };
}

/** The policy in force at `now` (a change takes effect when its action completes). */
function currentPolicy(droplet: Droplet, now: number): BackupPolicy {
  let policy = (droplet._backup_policy as BackupPolicy | undefined) ?? DEFAULT_POLICY;
  for (const { at_ms, patch } of droplet._pending ?? []) {
    if (at_ms <= now && patch._backup_policy) policy = patch._backup_policy as BackupPolicy;
  }
  return policy;
}

/** A backup of the droplet, listed from `visibleAt` on. */
function takeBackup(world: World, droplet: Droplet, visibleAt: number): void {
  const backup: StoredImage = {
    ...snapshotImage(world, droplet, `${droplet.name} ${iso(visibleAt)}`, visibleAt),
    type: 'backup',
  };
  images(world).push(backup);
}

function snapshotImage(world: World, droplet: Droplet, name: string, visibleAt: number): StoredImage {
  const base = droplet.image as unknown as Image;
  return {
    id: nextId(world, 'image'),
    name,
    type: 'snapshot',
    distribution: base.distribution ?? 'Unknown',
    slug: null,
    public: false,
    regions: IMAGE_REGION_SLUGS.has(droplet.region.slug) ? [droplet.region.slug] : [],
    created_at: iso(visibleAt),
    min_disk_size: droplet.disk,
    size_gigabytes: Math.round(((base.size_gigabytes ?? 2) + 0.37) * 100) / 100,
    description: '',
    tags: [],
    status: 'available',
    error_message: '',
    _droplet_id: droplet.id,
    _visible_ms: visibleAt,
  };
}

/** Checks a size for a droplet in `region`: known, still sold, offered there. */
function sizeFor(world: World, slug: unknown, region: string, purpose: string): Size {
  if (typeof slug !== 'string' || slug === '')
    throw unprocessable('size is required and must be a size slug');
  const size = world.sizes.find((s) => s.slug === slug);
  if (!size) throw unprocessable(`You specified an invalid size for ${purpose}: ${slug} is not a size slug.`);
  if (!size.available) throw unprocessable(`Size ${slug} is no longer available.`);
  if (!size.regions.includes(region)) {
    throw unprocessable(`Size ${slug} is not available in region ${region}.`);
  }
  return size;
}

function sizeObject(size: Size): Size {
  const { disk_info: _diskInfo, gpu_info: _gpuInfo, ...rest } = cloneData(size);
  return rest;
}

/** The names of a create request: `name`, or `names` (up to the platform's limit), never both. */
function namesToCreate(body: Record<string, unknown>): string[] {
  if (body.names === undefined || body.names === null) return [checkName(requireString(body, 'name'))];
  if (body.name !== undefined) throw unprocessable('Give either name or names, not both.');
  const names = body.names;
  if (!Array.isArray(names) || names.length === 0 || names.some((n) => typeof n !== 'string' || n === '')) {
    throw unprocessable('names must be a non-empty array of Droplet names');
  }
  if (names.length > MULTI_CREATE_LIMIT) {
    throw unprocessable(
      `You can create up to ${MULTI_CREATE_LIMIT} Droplets per request; names has ${names.length}.`,
    );
  }
  return (names as string[]).map(checkName);
}

export function createDroplet(world: World, body: Record<string, unknown>, name: string, now: number) {
  const regionSlug = requireString(body, 'region');
  const region = world.regions.find((r) => r.slug === regionSlug);
  if (!region) {
    throw unprocessable(
      `You specified an invalid region for Droplet creation: ${regionSlug} is not a region slug.`,
    );
  }
  if (!region.available) throw unprocessable(`Region ${regionSlug} is not available for new Droplets.`);
  const size = sizeFor(world, body.size, regionSlug, 'Droplet creation');
  if (body.image === undefined || body.image === null) throw unprocessable('image is required');
  const image = findImage(world, body.image, now);
  if (!image) {
    throw unprocessable(
      `You specified an invalid image for Droplet creation: ${JSON.stringify(body.image)} is not an image id or public image slug.`,
    );
  }
  checkBootable(world, image, regionSlug, size.disk, size.slug, now);
  const backups = optionalBoolean(body, 'backups');
  const monitoring = optionalBoolean(body, 'monitoring');
  const ipv6 = optionalBoolean(body, 'ipv6');
  const policy = backupPolicy(body.backup_policy);
  const sshKeys = resolveSshKeys(world, body.ssh_keys);
  const userData = body.user_data ?? undefined;
  // Its 64 KiB limit is checked with every field's limit (limits.ts).
  if (userData !== undefined && typeof userData !== 'string') throw unprocessable('user_data must be text');
  const agent = body.with_droplet_agent ?? undefined;
  if (agent !== undefined && typeof agent !== 'boolean')
    throw unprocessable('with_droplet_agent must be a boolean');
  if (world.droplets.length >= world.account.droplet_limit) {
    throw unprocessable('creating this/these droplet(s) will exceed your droplet limit');
  }
  const vpc = vpcFor(world, body.vpc_uuid, regionSlug, now);
  const volumes = volumesToAttach(world, body.volumes, regionSlug);
  const id = nextId(world, 'droplet');
  // Tags named for the first time are created, as the platform creates them.
  const tags = tagNewResource(world, body.tags, 'droplet', id);
  const seq = id % 100_000;
  const inVpc = world.droplets.filter((d) => d.vpc_uuid === vpc.id).length;
  const privateAddress = addressIn(vpc.ip_range, inVpc);
  const droplet: Droplet = {
    id,
    name,
    memory: size.memory,
    vcpus: size.vcpus,
    disk: size.disk,
    locked: false,
    status: 'new',
    created_at: iso(now),
    features: [
      ...(backups ? ['backups'] : []),
      ...(monitoring ? ['monitoring'] : []),
      ...(ipv6 ? ['ipv6'] : []),
    ],
    backup_ids: [],
    next_backup_window: backups ? backupWindow(now, policy) : null,
    snapshot_ids: [],
    image: imageView(image, now) as unknown as Record<string, unknown>,
    volume_ids: [],
    size: sizeObject(size),
    size_slug: size.slug,
    networks: {
      v4: [
        {
          ip_address: publicAddress(seq),
          netmask: '255.255.255.0',
          gateway: publicAddress(seq).replace(/\.\d+$/, '.1'),
          type: 'public',
        },
        {
          ip_address: privateAddress.ip,
          netmask: privateAddress.netmask,
          gateway: privateAddress.gateway,
          type: 'private',
        },
      ],
      v6: ipv6 ? [v6Network(seq)] : [],
    },
    region: cloneData(region) as unknown as Droplet['region'],
    tags,
    vpc_uuid: vpc.id,
    kernel: null,
    // Kept as the platform keeps them, never shown in the droplet object.
    _ssh_key_ids: sshKeys,
    ...(userData === undefined ? {} : { _user_data: userData }),
    ...(agent === undefined ? {} : { _with_droplet_agent: agent }),
    ...(backups ? { _backup_policy: policy } : {}),
  };
  schedule(droplet, now + DURATIONS.boot, { status: 'active' });
  world.droplets.push(droplet);
  for (const volume of volumes) attachVolume(world, volume, droplet.id, 'volumes');
  if (backups) takeBackup(world, droplet, now + DURATIONS.boot + DURATIONS.firstBackup);
  const action = startAction(world, now, {
    type: 'create',
    resource_id: id,
    resource_type: 'droplet',
    region_slug: regionSlug,
    duration_ms: DURATIONS.boot,
  });
  return { droplet, action };
}

/**
 * The id a create's `volumes` entry gives. The API description lists ids (strings); the platform's
 * Go client sends each volume as an object, `{"id": "..."}` (godo's `DropletCreateVolume`
 * marshals itself so, and its tests expect that body), and the platform takes both: Terraform's
 * provider attaches a droplet's `volume_ids` at create so, through godo. godo's
 * deprecated `{"name": "..."}` the platform refuses: godo's maintainers deprecated the field
 * because the API never took a volume's name here and a client sending only a name got an error
 * (digitalocean/godo#433), as doctl's users had met (digitalocean/doctl#205). The refusal names
 * the volume's id when the name is one of the region's volumes.
 */
function volumeIdOf(world: World, ref: unknown, region: string): unknown {
  if (typeof ref !== 'object' || ref === null || Array.isArray(ref)) return ref;
  const { id, name } = ref as Record<string, unknown>;
  if (id !== undefined && id !== null && id !== '') return id;
  if (typeof name === 'string' && name !== '') {
    const named = world.volumes.find((v) => v.name === name && v.region === region);
    throw unprocessable(
      `volumes: give a volume by its id ({"id": "..."} or the id itself), not by its name ${JSON.stringify(name)}${named ? ` (its id is ${named.id})` : ''}`,
    );
  }
  throw unprocessable(`volumes: ${JSON.stringify(ref)} names no volume; give its id`);
}

/**
 * The volumes `volumes` names by id, checked before the VM exists: each of the account, in the VM's
 * region, attached to no other VM, and no more than a VM may hold.
 */
function volumesToAttach(world: World, value: unknown, region: string): StoredVolume[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw unprocessable('volumes must be an array of volume ids');
  const ids = value.map((ref) => volumeIdOf(world, ref, region));
  const volumes = [...new Set(ids)].map((ref) => {
    const volume = world.volumes.find((v) => v.id === ref);
    if (!volume) throw unprocessable(`volumes: volume ${JSON.stringify(ref)} does not exist`);
    if (volume.region !== region) {
      throw unprocessable(`volumes: volume ${volume.name} is in ${volume.region}, not ${region}`);
    }
    if (volume.droplet_ids.some((id) => world.droplets.some((d) => d.id === id))) {
      throw unprocessable(`volumes: volume ${volume.name} is attached to droplet ${volume.droplet_ids[0]}`);
    }
    return volume;
  });
  if (volumes.length > VOLUMES_PER_DROPLET) {
    throw unprocessable(`volumes: a Droplet may have at most ${VOLUMES_PER_DROPLET} volumes attached`);
  }
  return volumes;
}

/** The account's keys that `ssh_keys` names by id or fingerprint; any unknown one is the platform's 422. */
function resolveSshKeys(world: World, value: unknown): number[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw unprocessable('ssh_keys must be an array of key ids or fingerprints');
  const unknown: string[] = [];
  const ids = value.map((ref) => {
    const key =
      typeof ref === 'number' || (typeof ref === 'string' && /^\d+$/.test(ref))
        ? world.sshKeys.find((k) => k.id === Number(ref))
        : world.sshKeys.find((k) => k.fingerprint === ref);
    if (!key) unknown.push(JSON.stringify(ref));
    return key?.id ?? 0;
  });
  if (unknown.length) {
    throw unprocessable(`ssh_keys ${unknown.join(', ')} are invalid key identifiers for Droplet creation.`);
  }
  return [...new Set(ids)];
}

function v6Network(seq: number) {
  return {
    ip_address: `2001:db8:0:1::${(seq % 0xffff).toString(16)}:1`,
    netmask: 64,
    gateway: '2001:db8:0:1::1',
    type: 'public' as const,
  };
}

/**
 * Starts one action on one droplet, checking it as the platform does; the effect is scheduled for
 * when the action completes. Throws (leaving the world unchanged) when the platform would refuse.
 */
function startDropletAction(world: World, droplet: Droplet, body: Record<string, unknown>, now: number) {
  settle(droplet, now);
  const type = body.type;
  if (typeof type !== 'string' || type === '') throw unprocessable('type is required');
  const busy = settled(world).actions.some(
    (a) => a.resource_type === 'droplet' && a.resource_id === droplet.id && !isDone(a, now),
  );
  if (busy) throw unprocessable('Droplet already has a pending event.');
  let duration: number = DURATIONS.action;
  let patch: Partial<Droplet> | undefined;
  switch (type) {
    case 'reboot':
    case 'power_cycle':
    case 'power_on':
      patch = { status: 'active' };
      break;
    case 'power_off':
    case 'shutdown':
      patch = { status: 'off' };
      break;
    case 'password_reset':
      break;
    case 'rename':
      patch = { name: checkName(requireString(body, 'name')) };
      break;
    case 'change_kernel': {
      const kernelId = body.kernel;
      if (typeof kernelId !== 'number' || !Number.isInteger(kernelId)) {
        throw unprocessable('kernel is required and must be a kernel id');
      }
      const distribution = (droplet.image as { distribution?: string }).distribution ?? 'Unknown';
      const kernel = kernelsFor(distribution as Image['distribution']).find((k) => k.id === kernelId);
      if (!kernel) throw unprocessable(`Kernel ${kernelId} is not available for this Droplet's image.`);
      patch = { kernel: { ...kernel } };
      break;
    }
    case 'enable_ipv6':
      patch = {
        features: [...new Set([...droplet.features, 'ipv6'])],
        networks: {
          v4: droplet.networks.v4,
          v6: droplet.networks.v6?.length ? droplet.networks.v6 : [v6Network(droplet.id % 100_000)],
        },
      };
      break;
    case 'enable_private_networking':
      patch = { features: [...new Set([...droplet.features, 'private_networking'])] };
      break;
    case 'enable_backups': {
      const policy = backupPolicy(body.backup_policy);
      if (!droplet.features.includes('backups')) {
        takeBackup(world, droplet, now + duration + DURATIONS.firstBackup);
      }
      patch = {
        features: [...new Set([...droplet.features, 'backups'])],
        next_backup_window: backupWindow(now, policy),
        _backup_policy: policy,
      };
      break;
    }
    case 'change_backup_policy': {
      if (!droplet.features.includes('backups')) {
        throw unprocessable('Backups are not enabled on this Droplet: enable them first.');
      }
      if (body.backup_policy === undefined || body.backup_policy === null) {
        throw unprocessable('backup_policy is required');
      }
      const policy = backupPolicy(body.backup_policy, currentPolicy(droplet, now));
      patch = { next_backup_window: backupWindow(now, policy), _backup_policy: policy };
      break;
    }
    case 'disable_backups':
      // Backups not yet taken are never taken; those already taken stay.
      world.images = images(world).filter(
        (image) =>
          !(image._droplet_id === droplet.id && image.type === 'backup' && !imageVisible(image, now)),
      );
      patch = { features: droplet.features.filter((f) => f !== 'backups'), next_backup_window: null };
      break;
    case 'rebuild': {
      if (body.image === undefined || body.image === null) throw unprocessable('image is required');
      const image = findImage(world, body.image, now);
      if (!image)
        throw unprocessable(`You specified an invalid image for rebuild: ${JSON.stringify(body.image)}.`);
      checkBootable(world, image, droplet.region.slug, droplet.disk, droplet.size_slug, now);
      patch = { image: imageView(image, now) as unknown as Record<string, unknown>, status: 'active' };
      break;
    }
    case 'restore': {
      if (typeof body.image !== 'number' && typeof body.image !== 'string') {
        throw unprocessable('image is required and must be the id of a backup or snapshot of this Droplet');
      }
      const image = findImage(world, body.image, now);
      if (!image)
        throw unprocessable(`You specified an invalid image for restore: ${JSON.stringify(body.image)}.`);
      const kind = imageView(image, now).type;
      if (image._droplet_id !== droplet.id || (kind !== 'backup' && kind !== 'snapshot')) {
        throw unprocessable(`Image ${image.id} is not a backup or snapshot of Droplet ${droplet.id}.`);
      }
      if ((image.min_disk_size ?? 0) > droplet.disk) {
        throw unprocessable(`Image ${image.id} needs a disk of at least ${image.min_disk_size} GB.`);
      }
      patch = { image: imageView(image, now) as unknown as Record<string, unknown> };
      break;
    }
    case 'resize': {
      if (droplet.status !== 'off') {
        throw unprocessable('Droplet is currently on. Please power it off to run this event.');
      }
      const size = sizeFor(world, body.size, droplet.region.slug, 'resize');
      const disk = optionalBoolean(body, 'disk');
      if (size.disk < droplet.disk) {
        throw unprocessable(
          `This size is not available because it has a smaller disk: ${size.slug} has ${size.disk} GB, the Droplet's disk is ${droplet.disk} GB.`,
        );
      }
      patch = {
        size: sizeObject(size),
        size_slug: size.slug,
        memory: size.memory,
        vcpus: size.vcpus,
        ...(disk ? { disk: size.disk } : {}),
      };
      break;
    }
    case 'snapshot': {
      let name = `${droplet.name}-${iso(now)}`;
      if (body.name !== undefined) name = requireString(body, 'name');
      duration = DURATIONS.snapshot;
      images(world).push(snapshotImage(world, droplet, name, now + duration));
      break;
    }
    default:
      throw unprocessable(`${JSON.stringify(type)} is not a Droplet action type.`);
  }
  const action = startAction(world, now, {
    type,
    resource_id: droplet.id,
    resource_type: 'droplet',
    region_slug: droplet.region.slug,
    duration_ms: duration,
  });
  if (patch) schedule(droplet, now + duration, patch);
  return actionView(world, action, now);
}

export const vmsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/droplets',
    handler: (req, world) => {
      const tag = req.query.get('tag_name');
      const droplets = tag ? world.droplets.filter((d) => d.tags.includes(tag)) : world.droplets;
      return { body: listBody('droplets', droplets, req, (d) => dropletView(world, d, req.now)) };
    },
  },
  {
    method: 'POST',
    path: '/v2/droplets',
    handler: (req, world) => {
      const names = namesToCreate(req.body);
      const created = names.map((name) => createDroplet(world, req.body, name, req.now));
      const link = (id: number, rel: string) => ({ id, rel, href: `${req.baseUrl}/v2/actions/${id}` });
      if (req.body.names === undefined || req.body.names === null) {
        const [{ droplet, action }] = created as [(typeof created)[number]];
        return {
          status: 202,
          body: {
            droplet: dropletView(world, droplet, req.now),
            links: { actions: [link(action.id, 'create')] },
          },
        };
      }
      return {
        status: 202,
        body: {
          droplets: created.map(({ droplet }) => dropletView(world, droplet, req.now)),
          links: { actions: created.map(({ action }) => link(action.id, 'multiple_create')) },
        },
      };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/droplets',
    handler: (req, world) => {
      const tag = req.query.get('tag_name');
      if (!tag) throw unprocessable('tag_name is required: the tag of the Droplets to delete');
      if (!world.tags.some((t) => t.name === tag) && !world.droplets.some((d) => d.tags.includes(tag))) {
        throw notFound(`tag ${tag} not found`);
      }
      for (const droplet of world.droplets.filter((d) => d.tags.includes(tag))) {
        deleteDroplet(world, droplet, req.now);
      }
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/droplets/{id}',
    handler: (req, world) => ({ body: { droplet: dropletView(world, findDroplet(world, req), req.now) } }),
  },
  {
    method: 'DELETE',
    path: '/v2/droplets/{id}',
    handler: (req, world) => {
      deleteDroplet(world, findDroplet(world, req), req.now);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/droplets/{id}/kernels',
    handler: (req, world) => {
      const droplet = dropletAt(findDroplet(world, req), req.now);
      const distribution = (droplet.image as { distribution?: string }).distribution ?? 'Unknown';
      return { body: listBody('kernels', kernelsFor(distribution as Image['distribution']), req) };
    },
  },
  {
    method: 'GET',
    path: '/v2/droplets/{id}/actions',
    handler: (req, world) => actionListReply(world, req, { type: 'droplet', id: findDroplet(world, req).id }),
  },
  {
    method: 'POST',
    path: '/v2/droplets/{id}/actions',
    handler: (req, world) => ({
      status: 201,
      body: { action: startDropletAction(world, findDroplet(world, req), req.body, req.now) },
    }),
  },
  {
    method: 'GET',
    path: '/v2/droplets/{id}/actions/{action}',
    handler: (req, world) =>
      actionReply(world, intParam(req, 'action'), req.now, {
        type: 'droplet',
        id: findDroplet(world, req).id,
      }),
  },
  {
    method: 'POST',
    path: '/v2/droplets/actions',
    handler: (req, world) => {
      const tag = req.query.get('tag_name');
      if (!tag) throw unprocessable('tag_name is required');
      const type = req.body.type;
      if (typeof type !== 'string' || !TAG_ACTION_TYPES.has(type)) {
        throw unprocessable(
          `type must be one of ${[...TAG_ACTION_TYPES].join(', ')} for actions by tag; got ${JSON.stringify(type)}`,
        );
      }
      const tagged = world.droplets.filter((d) => d.tags.includes(tag));
      if (!tagged.length) throw notFound(`No Droplets are tagged ${tag}.`);
      const actions = tagged.map((d) => startDropletAction(world, d, req.body, req.now));
      return { status: 201, body: { actions } };
    },
  },
];
