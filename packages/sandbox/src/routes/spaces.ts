/**
 * Spaces access keys and CDN endpoints.
 *
 * Keys: a name and grants (a bucket and `read` or `readwrite`; or `fullaccess` to every bucket,
 * with an empty bucket). The secret is answered once, on creation, and never kept. A key given
 * fullaccess beside scoped grants becomes a fullaccess key (the description: fullaccess is
 * prioritized); an update renames a key or changes a scoped key's grants, but cannot turn a
 * fullaccess key into a scoped one or back (400, as the description's create/update answer says).
 * Get, update and delete by access key; list filtered by name, bucket and permission, sorted.
 *
 * CDN endpoints: the origin is a Spaces bucket's host (`<bucket>.<region>.digitaloceanspaces.com`,
 * else 422 `invalid origin`, as the platform answers a bucket with a dot); one endpoint per
 * origin (409 `cdn already enabled`); the endpoint is served at
 * `<bucket>.<region>.cdn.digitaloceanspaces.com`; the TTL is one of 60, 600, 3600, 86400, 604800
 * (3600 when not given); a custom domain needs a certificate of the account covering it. Purging
 * the cache takes paths or wildcards, at most 50 files per 20 seconds (a wildcard counts once) and
 * not the same purge twice while the first runs.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  CDN_TTLS,
  DEFAULT_CDN_TTL,
  PURGE_FILES_PER_WINDOW,
  PURGE_RUNNING_MS,
  PURGE_WINDOW_MS,
  SPACES_REGIONS,
  type SpacesGrant,
  type SpacesPermission,
  type StoredCdnEndpoint,
  type StoredSpacesKey,
} from '../families/spaces.js';
import {
  badRequest,
  HttpError,
  notFound,
  paginate,
  type Route,
  type SandboxRequest,
  unprocessable,
} from '../http.js';
import { iso } from '../time.js';
import type { World } from '../world.js';

// ---- Spaces keys ----

const PERMISSIONS: readonly SpacesPermission[] = ['read', 'readwrite', 'fullaccess'];
/** A Spaces bucket name: 3 to 63 lowercase letters, digits and "-", starting and ending with a letter or digit. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;
const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** An access key id as the platform makes them: `DO00` and 16 capitals and digits. */
function newAccessKey(world: World): string {
  for (;;) {
    const bytes = randomBytes(16);
    const id = `DO00${[...bytes].map((b) => KEY_ALPHABET[b % KEY_ALPHABET.length]).join('')}`;
    if (!world.spacesKeys.some((k) => k.access_key === id)) return id;
  }
}

/** A secret key as the platform makes them: 43 characters of base64. */
const newSecretKey = () => randomBytes(32).toString('base64').slice(0, 43);

function keyView(key: StoredSpacesKey) {
  return {
    name: key.name,
    access_key: key.access_key,
    grants: key.grants.map((g) => ({ bucket: g.bucket, permission: g.permission })),
    created_at: iso(key.created_ms),
  };
}

const isFullAccess = (grants: readonly SpacesGrant[]) => grants.some((g) => g.permission === 'fullaccess');

function keyName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw badRequest('name is required and must be a non-empty string');
  if (value.length > 255) throw badRequest('name may have at most 255 characters');
  return value;
}

/** Checks a key's grants: the fullaccess grant alone when one is given, else one grant per bucket. */
function keyGrants(value: unknown): SpacesGrant[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw badRequest(
      'grants is required: a list of {bucket, permission} (read or readwrite on a bucket, or fullaccess with an empty bucket)',
    );
  }
  const grants: SpacesGrant[] = [];
  for (const [i, grant] of value.entries()) {
    if (typeof grant !== 'object' || grant === null) throw badRequest(`grants[${i}] must be an object`);
    const { bucket, permission } = grant as Record<string, unknown>;
    if (!PERMISSIONS.includes(permission as SpacesPermission)) {
      throw badRequest(
        `grants[${i}].permission must be read, readwrite or fullaccess; got ${JSON.stringify(permission)}`,
      );
    }
    if (typeof bucket !== 'string') throw badRequest(`grants[${i}].bucket must be a string`);
    if (permission === 'fullaccess') {
      if (bucket !== '')
        throw badRequest(`grants[${i}]: a fullaccess grant covers every bucket; its bucket must be empty`);
    } else if (!BUCKET_NAME.test(bucket)) {
      throw badRequest(`grants[${i}].bucket ${JSON.stringify(bucket)} is not a bucket name`);
    }
    if (grants.some((g) => g.bucket === bucket))
      throw badRequest(`grants name bucket ${JSON.stringify(bucket)} more than once`);
    grants.push({ bucket, permission: permission as SpacesPermission });
  }
  // "A fullaccess permission will be prioritized if fullaccess and scoped permissions are both added."
  return isFullAccess(grants) ? [{ bucket: '', permission: 'fullaccess' }] : grants;
}

const findKey = (world: World, req: SandboxRequest) => {
  const key = world.spacesKeys.find((k) => k.access_key === req.params.access_key);
  if (!key) throw notFound(`access key ${JSON.stringify(req.params.access_key ?? '')} not found`);
  return key;
};

/** PUT and PATCH alike: what is given changes (the platform's clients send name and grants). */
function updateKey(req: SandboxRequest, world: World) {
  const key = findKey(world, req);
  const name = req.body.name === undefined || req.body.name === null ? key.name : keyName(req.body.name);
  let grants = key.grants;
  if (req.body.grants !== undefined && req.body.grants !== null) {
    grants = keyGrants(req.body.grants);
    if (isFullAccess(grants) !== isFullAccess(key.grants)) {
      throw badRequest(
        'cannot mix fullaccess permission with scoped permissions: a fullaccess key stays fullaccess and a scoped key stays scoped',
      );
    }
  }
  key.name = name;
  key.grants = grants;
  return { body: { key: keyView(key) } };
}

const KEY_SORTS = ['created_at', 'name'] as const;

function listKeys(req: SandboxRequest, world: World) {
  const name = req.query.get('name');
  const bucket = req.query.get('bucket');
  const permission = req.query.get('permission');
  const sort = req.query.get('sort') || 'created_at';
  const direction = req.query.get('sort_direction') || 'desc';
  if (!KEY_SORTS.includes(sort as (typeof KEY_SORTS)[number]))
    throw badRequest(`sort must be created_at or name; got ${JSON.stringify(sort)}`);
  if (direction !== 'asc' && direction !== 'desc')
    throw badRequest(`sort_direction must be asc or desc; got ${JSON.stringify(direction)}`);
  const keys = world.spacesKeys.filter(
    (k) =>
      (!name || k.name === name) &&
      (!bucket || k.grants.some((g) => g.bucket === bucket)) &&
      (permission === null || k.grants.some((g) => g.permission === permission)),
  );
  const sign = direction === 'asc' ? 1 : -1;
  keys.sort((a, b) => {
    const order =
      sort === 'name' ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.created_ms - b.created_ms;
    return sign * (order || (a.access_key < b.access_key ? -1 : 1));
  });
  const page = paginate(keys, req);
  return { body: { keys: page.items.map(keyView), links: page.links, meta: page.meta } };
}

const keyRoutes: Route[] = [
  { method: 'GET', path: '/v2/spaces/keys', handler: listKeys },
  {
    method: 'POST',
    path: '/v2/spaces/keys',
    handler: (req, world) => {
      const name = keyName(req.body.name);
      const grants = keyGrants(req.body.grants);
      const key: StoredSpacesKey = { access_key: newAccessKey(world), name, grants, created_ms: req.now };
      world.spacesKeys.push(key);
      // The secret is answered here only, and not kept.
      return { status: 201, body: { key: { ...keyView(key), secret_key: newSecretKey() } } };
    },
  },
  {
    method: 'GET',
    path: '/v2/spaces/keys/{access_key}',
    // The platform answers `{key}` (godo reads `key`), not the `{keys: [...]}` the description's schema has.
    handler: (req, world) => ({ body: { key: keyView(findKey(world, req)) } }),
  },
  { method: 'PUT', path: '/v2/spaces/keys/{access_key}', handler: updateKey },
  { method: 'PATCH', path: '/v2/spaces/keys/{access_key}', handler: updateKey },
  {
    method: 'DELETE',
    path: '/v2/spaces/keys/{access_key}',
    handler: (req, world) => {
      const key = findKey(world, req);
      world.spacesKeys = world.spacesKeys.filter((k) => k.access_key !== key.access_key);
      return { status: 204 };
    },
  },
];

// ---- CDN endpoints ----

const ORIGIN = new RegExp(
  `^([a-z0-9][a-z0-9-]{1,61}[a-z0-9])\\.(${SPACES_REGIONS.join('|')})\\.digitaloceanspaces\\.com$`,
);
/** A host name of two labels or more (a custom domain is a subdomain). */
const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

function endpointView(endpoint: StoredCdnEndpoint) {
  return {
    id: endpoint.id,
    origin: endpoint.origin,
    endpoint: endpoint.origin.replace(/\.digitaloceanspaces\.com$/, '.cdn.digitaloceanspaces.com'),
    created_at: iso(endpoint.created_ms),
    ttl: endpoint.ttl,
    ...(endpoint.custom_domain
      ? { certificate_id: endpoint.certificate_id, custom_domain: endpoint.custom_domain }
      : {}),
  };
}

/** A TTL field: one of the platform's; 0 or absent is `fallback` (godo sends 0 when none is set). */
function ttlField(value: unknown, fallback: number): number {
  if (value === undefined || value === null || value === 0) return fallback;
  if (!CDN_TTLS.includes(value as (typeof CDN_TTLS)[number])) {
    throw unprocessable(`ttl must be one of ${CDN_TTLS.join(', ')}; got ${JSON.stringify(value)}`);
  }
  return value as number;
}

const text = (value: unknown, field: string): string => {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw unprocessable(`${field} must be a string`);
  return value.trim().toLowerCase();
};

/** Whether a certificate's names cover a host: the name itself, or a wildcard one level up. */
const covers = (names: readonly string[], host: string) =>
  names.some((n) => n === host || (n.startsWith('*.') && host.slice(host.indexOf('.') + 1) === n.slice(2)));

/** Checks a custom domain and its certificate together; both empty removes them. */
function customDomain(
  world: World,
  domain: string,
  certificateId: string,
  self: string | undefined,
): { custom_domain: string; certificate_id: string } {
  if (!domain && !certificateId) return { custom_domain: '', certificate_id: '' };
  if (!domain) throw unprocessable('custom_domain is required with certificate_id');
  if (!certificateId)
    throw unprocessable('certificate_id is required with custom_domain: the CDN serves it over TLS');
  if (!HOSTNAME.test(domain))
    throw unprocessable(`custom_domain ${JSON.stringify(domain)} is not a host name`);
  const certificate = world.certificates.find((c) => c.id === certificateId);
  if (!certificate)
    throw unprocessable(`certificate_id: certificate ${JSON.stringify(certificateId)} does not exist`);
  if (!covers(certificate.dns_names, domain)) {
    throw unprocessable(
      `certificate ${certificate.name} covers ${certificate.dns_names.join(', ')}, not custom_domain ${domain}`,
    );
  }
  const other = world.cdnEndpoints.find((e) => e.custom_domain === domain && e.id !== self);
  if (other)
    throw new HttpError(409, 'conflict', `custom_domain ${domain} is in use by CDN endpoint ${other.id}`);
  return { custom_domain: domain, certificate_id: certificateId };
}

const findEndpoint = (world: World, req: SandboxRequest) => {
  const endpoint = world.cdnEndpoints.find((e) => e.id === req.params.cdn_id);
  if (!endpoint) throw notFound(`CDN endpoint ${JSON.stringify(req.params.cdn_id ?? '')} not found`);
  return endpoint;
};

/** A purge's files: paths, or `*` wildcards; at least one. */
function purgeFiles(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw unprocessable('files is required: the paths to purge, or "*" for everything');
  }
  const files = value.map((file, i) => {
    if (typeof file !== 'string' || file.trim() === '')
      throw unprocessable(`files[${i}] must be a non-empty path`);
    return file.trim().replace(/^\/+/, '');
  });
  return [...new Set(files)].sort();
}

/** How a purge counts against the limit: a wildcard path counts once, as does each file. */
const purgeWeight = (files: readonly string[]) => files.length;

const cdnRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v2/cdn/endpoints',
    handler: (req, world) => {
      const page = paginate(world.cdnEndpoints, req);
      return { body: { endpoints: page.items.map(endpointView), links: page.links, meta: page.meta } };
    },
  },
  {
    method: 'POST',
    path: '/v2/cdn/endpoints',
    handler: (req, world) => {
      const origin = text(req.body.origin, 'origin');
      if (!origin)
        throw unprocessable(
          'origin is required: the host of a Space, <bucket>.<region>.digitaloceanspaces.com',
        );
      // The platform's words for an origin that is not a Space's host (a bucket with a dot, say).
      if (!ORIGIN.test(origin)) throw unprocessable('invalid origin');
      const ttl = ttlField(req.body.ttl, DEFAULT_CDN_TTL);
      if (world.cdnEndpoints.some((e) => e.origin === origin)) {
        throw new HttpError(409, 'conflict', 'cdn already enabled');
      }
      const custom = customDomain(
        world,
        text(req.body.custom_domain, 'custom_domain'),
        text(req.body.certificate_id, 'certificate_id'),
        undefined,
      );
      const endpoint: StoredCdnEndpoint = { id: randomUUID(), origin, ttl, ...custom, created_ms: req.now };
      world.cdnEndpoints.push(endpoint);
      return { status: 201, body: { endpoint: endpointView(endpoint) } };
    },
  },
  {
    method: 'GET',
    path: '/v2/cdn/endpoints/{cdn_id}',
    handler: (req, world) => ({ body: { endpoint: endpointView(findEndpoint(world, req)) } }),
  },
  {
    method: 'PUT',
    path: '/v2/cdn/endpoints/{cdn_id}',
    handler: (req, world) => {
      const endpoint = findEndpoint(world, req);
      const ttl = ttlField(req.body.ttl, endpoint.ttl);
      // A client changes the TTL alone, or the custom domain and certificate (godo's two requests);
      // a certificate alone replaces the custom domain's.
      const domainGiven = 'custom_domain' in req.body;
      const certificateGiven = 'certificate_id' in req.body;
      let custom = { custom_domain: endpoint.custom_domain, certificate_id: endpoint.certificate_id };
      if (domainGiven || certificateGiven) {
        custom = customDomain(
          world,
          domainGiven ? text(req.body.custom_domain, 'custom_domain') : endpoint.custom_domain,
          certificateGiven ? text(req.body.certificate_id, 'certificate_id') : endpoint.certificate_id,
          endpoint.id,
        );
      }
      endpoint.ttl = ttl;
      endpoint.custom_domain = custom.custom_domain;
      endpoint.certificate_id = custom.certificate_id;
      return { body: { endpoint: endpointView(endpoint) } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/cdn/endpoints/{cdn_id}',
    handler: (req, world) => {
      const endpoint = findEndpoint(world, req);
      world.cdnEndpoints = world.cdnEndpoints.filter((e) => e.id !== endpoint.id);
      world.cdnPurges = world.cdnPurges.filter((p) => p.endpoint_id !== endpoint.id);
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/cdn/endpoints/{cdn_id}/cache',
    handler: (req, world) => {
      const endpoint = findEndpoint(world, req);
      const files = purgeFiles(req.body.files);
      world.cdnPurges = world.cdnPurges.filter((p) => req.now - p.at_ms < PURGE_WINDOW_MS);
      const mine = world.cdnPurges.filter((p) => p.endpoint_id === endpoint.id);
      const same = files.join('\n');
      if (mine.some((p) => req.now - p.at_ms < PURGE_RUNNING_MS && p.files.join('\n') === same)) {
        throw new HttpError(409, 'conflict', 'an identical purge of this endpoint is in progress');
      }
      const used = mine.reduce((sum, p) => sum + purgeWeight(p.files), 0);
      if (used + purgeWeight(files) > PURGE_FILES_PER_WINDOW) {
        throw new HttpError(
          429,
          'too_many_requests',
          `purging is limited to ${PURGE_FILES_PER_WINDOW} files per ${PURGE_WINDOW_MS / 1000} seconds; ${used} were purged in the last ${PURGE_WINDOW_MS / 1000} seconds`,
        );
      }
      world.cdnPurges.push({ endpoint_id: endpoint.id, files, at_ms: req.now });
      return { status: 204 };
    },
  },
];

export const spacesRoutes: Route[] = [...keyRoutes, ...cdnRoutes];
