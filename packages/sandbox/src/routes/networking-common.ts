/** Checks and lookups the networking routes share: regions, droplets, names, ports. */

import { ensureDefaultVpc, type Vpc } from '../families/networking.js';
import type { Droplet } from '../families/vms.js';
import { notFound, unprocessable } from '../http.js';
import { findItem } from '../journal.js';
import { regionOf, type World } from '../world.js';

/** A region slug field naming an existing region open to new resources, or the platform's 422. */
export function requireRegion(world: World, value: unknown, field = 'region') {
  if (typeof value !== 'string' || value.trim() === '') throw unprocessable(`${field} is required`);
  const region = regionOf(world, value);
  if (!region) throw unprocessable(`${field} "${value}" is not a valid region`);
  if (!region.available) throw unprocessable(`${field} "${value}" is not available for new resources`);
  return region;
}

/** The region object the platform embeds in resources. */
export function regionView(world: World, slug: string) {
  const region = regionOf(world, slug);
  if (!region) return { slug, name: slug, sizes: [], features: [], available: false };
  return region;
}

export const dropletById = (world: World, id: number): Droplet | undefined =>
  world.droplets.find((droplet) => droplet.id === id);

/** Ids still naming existing droplets: references to deleted VMs drop out when read. */
export const liveDropletIds = (world: World, ids: readonly number[]): number[] =>
  ids.filter((id) => dropletById(world, id) !== undefined);

/**
 * A numeric id field as the platform reads it: a positive integer, or the same digits in a string.
 * Clients send droplet ids both ways (python-digitalocean and dots-wrapper pass `droplet_id` through
 * as the caller gave it, often a string read from a config file or a URL), and the platform answers
 * both as the number. Anything else is a type error naming the field, never "does not exist".
 * Returns undefined when the field is absent (undefined or null).
 */
export function idField(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  if (typeof value === 'string' && /^[1-9]\d{0,15}$/.test(value)) return Number(value);
  throw unprocessable(
    `${field} must be a numeric id (a number, or its digits in a string); got ${JSON.stringify(value)}`,
  );
}

/**
 * A `droplet_ids`-style field: an array of existing droplet ids (optionally all in one region),
 * or a 422 naming the field and the offending id.
 */
export function requireDropletIds(
  world: World,
  value: unknown,
  field: string,
  region?: string | null,
  options: { allowEmpty?: boolean } = {},
): number[] {
  if (!Array.isArray(value) || (value.length === 0 && !options.allowEmpty)) {
    throw unprocessable(`${field} must be a non-empty array of droplet ids`);
  }
  const ids: number[] = [];
  for (const raw of value) {
    const item = idField(raw, `${field} item`);
    if (item === undefined) throw unprocessable(`${field} must hold numeric droplet ids; got null`);
    const droplet = dropletById(world, item);
    if (!droplet) throw unprocessable(`${field}: droplet ${item} does not exist`);
    if (region && droplet.region.slug !== region) {
      throw unprocessable(`${field}: droplet ${item} is in ${droplet.region.slug}, not ${region}`);
    }
    if (!ids.includes(item)) ids.push(item);
  }
  return ids;
}

const TAG = /^[a-zA-Z0-9_\-:]{1,255}$/;

/** A `tags`-style field: tag names, or a 422 naming the field. */
export function requireTags(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.length === 0)
    throw unprocessable(`${field} must be a non-empty array of tag names`);
  for (const tag of value) {
    if (typeof tag !== 'string' || !TAG.test(tag)) {
      throw unprocessable(`${field}: ${JSON.stringify(tag)} is not a valid tag name`);
    }
  }
  return [...new Set(value as string[])];
}

/** A port number field (1-65535). */
export function requirePort(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65535) {
    throw unprocessable(`${field} must be a port number from 1 to 65535`);
  }
  return value;
}

/** An optional field of a type, or a 422 naming it. */
export function optional<T>(
  value: unknown,
  field: string,
  check: (v: unknown) => v is T,
  expected: string,
): T | undefined {
  if (value === undefined) return undefined;
  if (!check(value)) throw unprocessable(`${field} must be ${expected}`);
  return value;
}

export const isString = (v: unknown): v is string => typeof v === 'string';
export const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';

/** Finds by a key or answers the platform's 404. */
export function findOr404<T>(items: T[], match: (item: T) => boolean): T {
  const item = findItem(items, match);
  if (!item) throw notFound();
  return item;
}

/**
 * The VPC a new resource in `region` joins: the one `value` names, which must exist and be in that
 * region, or the region's default when none is named. The platform refuses the others with a 422
 * rather than falling back to the default, so a caller never lands somewhere they did not ask for.
 */
export function vpcFor(world: World, value: unknown, region: string, now: number, field = 'vpc_uuid'): Vpc {
  if (value === undefined || value === null || value === '') return ensureDefaultVpc(world, region, now);
  if (typeof value !== 'string') throw unprocessable(`${field} must be the id of a VPC`);
  const vpc = world.vpcs.find((v) => v.id === value);
  if (!vpc) throw unprocessable(`${field} ${value} is not a VPC of this account`);
  if (vpc.region !== region) {
    throw unprocessable(`${field} ${value} is a VPC in ${vpc.region}; the resource is in ${region}`);
  }
  return vpc;
}
