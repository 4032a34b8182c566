/**
 * Argument schemas for the spec's conventions, shared by every family: "integer as string" and
 * "bool as string" arguments, pages, and comma-separated lists. Each accepts what a caller
 * reasonably sends (text or a JSON number/boolean) and hands the request builder one form.
 */
import { z } from 'zod';

/**
 * Length limits the platform applies, or sane ones where it documents none. Names and
 * descriptions follow the API description (255); user data is the platform's 64 KiB.
 */
export const LIMITS = {
  /** Resource names: VMs, keys, firewalls, images, snapshots, certificates... */
  name: 255,
  /** Free-text descriptions. */
  description: 255,
  /** Tag names. */
  tag: 255,
  /** Slugs: regions, sizes, image slugs, engine versions. */
  slug: 64,
  /** A DNS name (RFC 1035). */
  hostname: 253,
  /** An OpenSSH public key line (large RSA keys included). */
  publicKey: 16_384,
  /** PEM certificates, chains and private keys. */
  pem: 65_536,
  /** A URL the platform fetches, such as an image import: room for pre-signed storage URLs. */
  url: 2_048,
  /** cloud-init user data, the platform's limit. */
  userData: 65_536,
  /** Any other short value: ids, addresses, ports, settings. */
  short: 1_024,
} as const;

/** "integer as string": text holding an integer, or a JSON integer. Comes out as a number. */
export function intAsString(description: string) {
  return z
    .union([
      z
        .string()
        .max(32)
        .regex(/^\s*-?\d+\s*$/, 'expected an integer, such as "2"'),
      z.number().int(),
    ])
    .transform((value) => (typeof value === 'number' ? value : Number.parseInt(value, 10)))
    .describe(description);
}

/** "bool as string": "true"/"false" text, or a JSON boolean. Comes out as a boolean. */
export function boolAsString(description: string) {
  return z
    .union([z.enum(['true', 'false']), z.boolean()])
    .transform((value) => value === true || value === 'true')
    .describe(description);
}

/** A comma-separated list in (as the spec types it), an array of trimmed, non-empty items out. */
export function commaList(description: string, max: number = LIMITS.short) {
  return z
    .string()
    .max(max)
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    )
    .describe(description);
}

/** `Page`/`PerPage` with the spec's defaults for a family (Limits table). */
export function pageArgs(perPageDefault: number) {
  return {
    Page: z.number().int().min(1).default(1).describe('From 1.'),
    PerPage: z.number().int().min(1).max(200).default(perPageDefault).describe('Max 200.'),
  };
}

/** The query of a paged list: `page`/`per_page` on the wire from `Page`/`PerPage` (see pageArgs). */
export const pageQuery = { page: 'Page', per_page: 'PerPage' } as const;

/** A positive numeric platform id, described with where a caller finds it. */
export function numericId(description: string) {
  return z.number().int().positive().describe(description);
}

/** The platform's UUIDs (clusters, firewalls, load balancers, VPCs, certificates...): 8-4-4-4-12 hex. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID argument, described with where a caller finds it. */
export function uuid(description: string) {
  return z
    .string()
    .regex(UUID_PATTERN, 'expected a UUID, such as "9cc10173-e9ea-4176-9dbc-a4cee4c4ff30"')
    .describe(description);
}

/**
 * Free text with the platform's length limit (`max`, in characters) and, unless `min` says
 * otherwise, not empty. Every free-text argument has a limit, so no call can send megabytes.
 */
export function text(description: string, limits: { max: number; min?: number }) {
  return z
    .string()
    .min(limits.min ?? 1)
    .max(limits.max)
    .describe(description);
}

/** Region slugs such as "nyc3": three letters and a digit. */
export const REGION_SLUG = /^[a-z]{3}\d$/;

/** A region slug argument. */
export function regionSlug(description: string) {
  return z
    .string()
    .max(LIMITS.slug)
    .regex(REGION_SLUG, 'expected a region slug such as "nyc3"')
    .describe(description);
}

/** A size or image slug as the platform writes them: lowercase letters, digits, "-", "_" and ".". */
export function slug(description: string, example: string) {
  return z
    .string()
    .max(LIMITS.slug)
    .regex(/^[a-z0-9][a-z0-9._-]*$/, `expected a slug such as "${example}"`)
    .describe(description);
}

/** A tag name as the platform accepts it: letters, digits, "_", "-" and ":". */
export function tagName(description?: string) {
  const schema = z
    .string()
    .max(LIMITS.tag)
    .regex(/^[a-zA-Z0-9_:-]+$/, 'expected a tag name: letters, digits, "_", "-" or ":"');
  return description === undefined ? schema : schema.describe(description);
}
