/**
 * Platform objects that several families return: actions (every asynchronous change), regions
 * and sizes, as the platform's OpenAPI description gives them (@cloudcall/platform, generated).
 * Family packages re-export them under their own names.
 */
import type { Always, Schemas } from '@cloudcall/platform';

/**
 * An asynchronous change on the platform, such as a VM power-off or an image transfer. The
 * description requires only `status`; every action the platform answers carries the others (its
 * `id` is what a caller polls by), so they are always present here.
 */
export type Action = Always<
  Schemas['action'],
  'id' | 'type' | 'started_at' | 'completed_at' | 'resource_id' | 'resource_type' | 'region_slug'
>;

export type Region = Schemas['region'];

export type Size = Schemas['size'];
