/**
 * The spaces family: Spaces access keys (each with grants: a bucket and read or readwrite, or
 * fullaccess to every bucket) and the CDN endpoints in front of Spaces buckets, with their cache
 * purges. A key's secret is answered once, by its creation: the tool says so (`reveals`), so the
 * apps show it there and hide it everywhere else (logs, audit lines, errors).
 */
import { annotations, defineTool, returns } from '@cloudcall/core';
import { LIMITS, pageArgs, pageQuery, text, uuid } from '@cloudcall/core/internal';
import { z } from 'zod';
import type { CdnEndpoint, CdnEndpointList, SpacesKey, SpacesKeyCreated, SpacesKeyList } from './types.js';

/** Key and endpoint lists page by 20, the platform's default. */
const page = pageArgs(20);

/** An access key id: `DO00` and capitals and digits (older keys: 20 capitals and digits). */
export const ACCESS_KEY_PATTERN = /^[A-Z0-9]{16,64}$/;
const AccessKey = z
  .string()
  .regex(ACCESS_KEY_PATTERN, 'expected an access key id such as "DO00QWERTYUIOPASDFGH"')
  .describe('Access key id (from spaces-key-list)');
const KeyName = text('Key name', { max: LIMITS.name });

/** A Spaces bucket name: 3 to 63 lowercase letters, digits and "-", a letter or digit at each end. */
const BUCKET = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;
const Bucket = z
  .string()
  .regex(BUCKET, 'expected a bucket name: 3 to 63 lowercase letters, digits and "-"')
  .describe('Bucket name');
export const SPACES_PERMISSIONS = ['read', 'readwrite', 'fullaccess'] as const;
const Permission = z.enum(SPACES_PERMISSIONS).describe('fullaccess: every bucket');

/**
 * A key's grants: read or readwrite on named buckets (each once), or fullaccess alone (it covers
 * every bucket, and has no bucket of its own).
 */
const Grants = z
  .array(z.strictObject({ Bucket: Bucket.optional(), Permission }))
  .min(1)
  .max(100)
  .superRefine((grants, context) => {
    const seen = new Set<string>();
    for (const [index, grant] of grants.entries()) {
      const problem =
        grant.Permission === 'fullaccess'
          ? grant.Bucket !== undefined
            ? 'a fullaccess grant covers every bucket: give it no Bucket'
            : grants.length > 1
              ? 'a fullaccess grant covers every bucket: give it alone'
              : undefined
          : grant.Bucket === undefined
            ? `is required with permission ${grant.Permission}`
            : seen.has(grant.Bucket)
              ? `names bucket ${grant.Bucket} again: one grant per bucket`
              : undefined;
      if (grant.Bucket !== undefined) seen.add(grant.Bucket);
      if (problem) context.addIssue({ code: 'custom', path: [index, 'Bucket'], message: problem });
    }
  })
  .describe('Bucket and permission each');

const grantsBody = (grants: readonly { Bucket?: string | undefined; Permission: string }[]) =>
  grants.map((grant) => ({ bucket: grant.Bucket ?? '', permission: grant.Permission }));

const EndpointId = uuid('CDN endpoint id (from cdn-list)');
/** A CDN origin: the host of a Spaces bucket, `<bucket>.<region>.digitaloceanspaces.com`. */
const Origin = z
  .string()
  .trim()
  .toLowerCase()
  .max(LIMITS.hostname)
  .regex(
    /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]\.[a-z]{3}\d\.digitaloceanspaces\.com$/,
    'expected a Space\'s host, such as "assets.nyc3.digitaloceanspaces.com"',
  )
  .describe('BUCKET.REGION.digitaloceanspaces.com');
/** The cache lifetimes the platform takes, in seconds. */
export const CDN_TTLS = [60, 600, 3600, 86400, 604800] as const;
const Ttl = z
  .number()
  .int()
  .refine((ttl) => (CDN_TTLS as readonly number[]).includes(ttl), 'must be 60, 600, 3600, 86400 or 604800')
  .describe('Seconds: 60, 600, 3600, 86400 or 604800');
/** A host name of two labels or more, such as "static.example.com". */
const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;
const domain = (empty: boolean) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .max(LIMITS.hostname)
    .refine(
      (value) => (empty && value === '') || HOSTNAME.test(value),
      'expected a host name such as "static.example.com"',
    );
const CustomDomain = domain(false).describe('Needs CertificateID');
const CertificateId = uuid('Cert covering it (certificate-list)');

/** A custom domain and its certificate go together: the CDN serves the domain over TLS. */
const domainPair = (
  args: { CustomDomain?: string | undefined; CertificateID?: string | undefined },
  context: z.RefinementCtx,
) => {
  if (args.CustomDomain && args.CertificateID === undefined) {
    context.addIssue({
      code: 'custom',
      path: ['CertificateID'],
      message: 'is required with CustomDomain: the CDN serves it over TLS',
    });
  }
  if (args.CertificateID !== undefined && !args.CustomDomain) {
    context.addIssue({
      code: 'custom',
      path: ['CustomDomain'],
      message: 'is required with CertificateID (an empty CustomDomain removes the domain, alone)',
    });
  }
};

/** A path to purge (`assets/app.css`), or a wildcard (`assets/*`, `*` for everything). */
const PurgePath = z
  .string()
  .trim()
  .min(1)
  .max(LIMITS.short)
  .regex(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
    /^[^\u0000-\u001f\u007f]+$/,
    'must not contain control characters',
  );

export const spacesTools = [
  defineTool({
    name: 'spaces-key-list',
    family: 'spaces',
    beyondSpec: true,
    title: 'List Spaces keys',
    description: 'Spaces access keys and grants.',
    details:
      'Lists the Spaces access keys: name, access key id, grants (bucket and permission) and creation time; never their secrets. Name, Bucket and Permission filter; newest first unless Sort says otherwise. Paginated.',
    input: z.strictObject({
      ...page,
      Name: KeyName.optional(),
      Bucket: Bucket.optional().describe('Keys granted on it'),
      Permission: Permission.optional().describe('Keys with it'),
      Sort: z.enum(['created_at', 'name']).optional().describe('Default created_at'),
      SortDirection: z.enum(['asc', 'desc']).optional().describe('Default desc'),
    }),
    annotations: annotations.read,
    request: {
      method: 'GET',
      path: '/v2/spaces/keys',
      query: {
        ...pageQuery,
        name: 'Name',
        bucket: 'Bucket',
        permission: 'Permission',
        sort: 'Sort',
        sort_direction: 'SortDirection',
      },
    },
    result: returns<SpacesKeyList>(),
  }),
  defineTool({
    name: 'spaces-key-get',
    family: 'spaces',
    beyondSpec: true,
    title: 'Get Spaces key',
    description: 'One Spaces key.',
    details: 'Shows one access key: its name, grants and creation time (never its secret).',
    input: z.strictObject({ AccessKey }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/spaces/keys/{AccessKey}' },
    result: returns<{ key: SpacesKey }>(),
  }),
  defineTool({
    name: 'spaces-key-create',
    family: 'spaces',
    beyondSpec: true,
    title: 'Create Spaces key',
    description: 'New key; its secret is shown once.',
    details:
      'Creates a Spaces access key with grants: read or readwrite on buckets, or fullaccess (every bucket, no Bucket given). The answer holds the secret_key, shown this once: the platform never shows it again, so keep it now.',
    input: z.strictObject({ Name: KeyName, Grants }),
    annotations: annotations.create,
    reveals: ['secret_key'],
    request: {
      method: 'POST',
      path: '/v2/spaces/keys',
      body: (args) => ({ name: args.Name, grants: grantsBody(args.Grants) }),
    },
    result: returns<{ key: SpacesKeyCreated }>(),
  }),
  defineTool({
    name: 'spaces-key-update',
    family: 'spaces',
    beyondSpec: true,
    title: 'Update Spaces key',
    description: 'Rename a key or set its grants.',
    details:
      'Renames an access key, or replaces its grants with the ones given (a scoped key stays scoped, a fullaccess key stays fullaccess). What is not given stays.',
    input: z
      .strictObject({ AccessKey, Name: KeyName.optional(), Grants: Grants.optional() })
      .superRefine((args, context) => {
        if (args.Name === undefined && args.Grants === undefined) {
          context.addIssue({
            code: 'custom',
            path: ['Name'],
            message: 'is required when Grants is not given: a change needs one',
          });
        }
      }),
    annotations: annotations.update,
    request: {
      method: 'PATCH',
      path: '/v2/spaces/keys/{AccessKey}',
      body: (args) => ({
        ...(args.Name !== undefined ? { name: args.Name } : {}),
        ...(args.Grants ? { grants: grantsBody(args.Grants) } : {}),
      }),
    },
    result: returns<{ key: SpacesKey }>(),
  }),
  defineTool({
    name: 'spaces-key-delete',
    family: 'spaces',
    beyondSpec: true,
    title: 'Delete Spaces key',
    description: 'Delete a Spaces key.',
    details: 'Deletes an access key for good: whatever uses it loses access to its buckets at once.',
    input: z.strictObject({ AccessKey }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/spaces/keys/{AccessKey}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'cdn-list',
    family: 'spaces',
    beyondSpec: true,
    title: 'List CDN endpoints',
    description: 'CDN endpoints of Spaces.',
    details:
      'Lists the CDN endpoints: origin (the Space), the CDN host serving it, TTL, custom domain and certificate. Paginated.',
    input: z.strictObject(page),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/cdn/endpoints', query: pageQuery },
    result: returns<CdnEndpointList>(),
  }),
  defineTool({
    name: 'cdn-get',
    family: 'spaces',
    beyondSpec: true,
    title: 'Get CDN endpoint',
    description: 'One CDN endpoint.',
    input: z.strictObject({ ID: EndpointId }),
    annotations: annotations.read,
    request: { method: 'GET', path: '/v2/cdn/endpoints/{ID}' },
    result: returns<{ endpoint: CdnEndpoint }>(),
  }),
  defineTool({
    name: 'cdn-create',
    family: 'spaces',
    beyondSpec: true,
    title: 'Create CDN endpoint',
    description: 'Put a CDN in front of a Space.',
    details:
      'Serves a Spaces bucket through the CDN, at BUCKET.REGION.cdn.digitaloceanspaces.com, caching for TTL seconds (3600 unless given). A custom domain needs a certificate of the account covering it (certificate-list). One endpoint per origin.',
    input: z
      .strictObject({
        Origin,
        TTL: Ttl.optional(),
        CustomDomain: CustomDomain.optional(),
        CertificateID: CertificateId.optional(),
      })
      .superRefine(domainPair),
    annotations: annotations.create,
    request: {
      method: 'POST',
      path: '/v2/cdn/endpoints',
      body: { origin: 'Origin', ttl: 'TTL', custom_domain: 'CustomDomain', certificate_id: 'CertificateID' },
    },
    result: returns<{ endpoint: CdnEndpoint }>(),
  }),
  defineTool({
    name: 'cdn-update',
    family: 'spaces',
    beyondSpec: true,
    title: 'Update CDN endpoint',
    description: 'Change TTL or custom domain.',
    details:
      'Changes the TTL, or the custom domain with its certificate (a certificate alone replaces the current domain\'s). CustomDomain "" removes the custom domain.',
    input: z
      .strictObject({
        ID: EndpointId,
        TTL: Ttl.optional(),
        CustomDomain: domain(true).optional().describe('"" removes it; needs CertificateID'),
        CertificateID: CertificateId.optional(),
      })
      .superRefine((args, context) => {
        if (args.TTL === undefined && args.CustomDomain === undefined && args.CertificateID === undefined) {
          context.addIssue({
            code: 'custom',
            path: ['TTL'],
            message: 'is required when none of CustomDomain, CertificateID is given: a change needs one',
          });
        }
        if (args.CustomDomain === '' && args.CertificateID !== undefined) {
          context.addIssue({
            code: 'custom',
            path: ['CertificateID'],
            message: 'must not be given with an empty CustomDomain, which removes the domain',
          });
        }
        // A certificate alone replaces the one of the domain the endpoint has.
        if (args.CustomDomain) domainPair(args, context);
      }),
    annotations: annotations.update,
    request: {
      method: 'PUT',
      path: '/v2/cdn/endpoints/{ID}',
      body: (args) => ({
        ...(args.TTL !== undefined ? { ttl: args.TTL } : {}),
        // No domain, no certificate: the platform drops both together.
        ...(args.CustomDomain === ''
          ? { custom_domain: '', certificate_id: '' }
          : {
              ...(args.CustomDomain !== undefined ? { custom_domain: args.CustomDomain } : {}),
              ...(args.CertificateID !== undefined ? { certificate_id: args.CertificateID } : {}),
            }),
      }),
    },
    result: returns<{ endpoint: CdnEndpoint }>(),
  }),
  defineTool({
    name: 'cdn-delete',
    family: 'spaces',
    beyondSpec: true,
    title: 'Delete CDN endpoint',
    description: 'Delete a CDN endpoint.',
    details: 'Stops serving the Space through the CDN; the Space and its files stay.',
    input: z.strictObject({ ID: EndpointId }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/cdn/endpoints/{ID}' },
    result: returns<{ ok: true }>(),
  }),
  defineTool({
    name: 'cdn-delete-cache',
    family: 'spaces',
    beyondSpec: true,
    title: 'Flush CDN cache',
    description: 'Purge cached files of an endpoint.',
    details:
      'Purges files from the CDN cache, so the next requests fetch them from the Space: paths such as "assets/app.css", wildcards such as "assets/*", or "*" for everything. The platform takes 50 files per 20 seconds (a wildcard counts once).',
    input: z.strictObject({
      ID: EndpointId,
      Files: z.array(PurgePath).min(1).max(50).describe('Paths, or "*" for all'),
    }),
    annotations: annotations.destroy,
    request: { method: 'DELETE', path: '/v2/cdn/endpoints/{ID}/cache', body: { files: 'Files' } },
    result: returns<{ ok: true }>(),
  }),
] as const;
