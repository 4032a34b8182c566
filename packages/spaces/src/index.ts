/**
 * @cloudcall/spaces: Spaces access keys (with their bucket grants) and the CDN endpoints in front
 * of Spaces buckets, with cache purges, as tool definitions and as a typed API.
 *
 * ```ts
 * import { createClient } from '@cloudcall/core';
 * import { spacesApi } from '@cloudcall/spaces';
 * const spaces = spacesApi(createClient({ token }));
 * const { key } = await spaces.spacesKeyCreate({
 *   Name: 'ci',
 *   Grants: [{ Bucket: 'assets', Permission: 'readwrite' }],
 * });
 * // key.secret_key is answered this once.
 * ```
 */
import { type ApiClient, type BoundTools, bindTools, type ToolFamily } from '@cloudcall/core';
import { spacesTools } from './tools.js';

export type {
  CdnEndpoint,
  CdnEndpointList,
  SpacesGrant,
  SpacesKey,
  SpacesKeyCreated,
  SpacesKeyList,
} from './types.js';
export { spacesTools };

export const spacesFamily: ToolFamily = {
  name: 'spaces',
  title: 'Spaces keys and CDN',
  description:
    'Spaces access keys with bucket grants (the secret shown once, at creation); CDN endpoints in front of Spaces: TTL, custom domain, cache purges.',
  tools: spacesTools,
  onRequest: true,
};

/** The spaces tools bound to a client: `spacesKeyCreate`, `spacesKeyList`, `cdnCreate`, `cdnDeleteCache`... */
export function spacesApi(client: ApiClient): BoundTools<typeof spacesTools> {
  return bindTools(client, spacesTools);
}
