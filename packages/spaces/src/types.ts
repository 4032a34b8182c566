/**
 * The platform's answers to the Spaces key and CDN tools, as library users receive them: the
 * shapes of the platform's OpenAPI description (@cloudcall/platform, generated). `Always` marks
 * what the description leaves optional and the platform always sends.
 */
import type { Always, ListAnswer, Schemas } from '@cloudcall/platform';

/** A grant of a Spaces key: a bucket and `read` or `readwrite`, or `fullaccess` with an empty bucket. */
export type SpacesGrant = Schemas['grant'];

/** A Spaces access key as listed and got: never its secret, which only its creation answers. */
export type SpacesKey = Always<Schemas['key'], 'name' | 'access_key' | 'grants' | 'created_at'>;

/** A Spaces key as its creation answers it: with `secret_key`, shown this once. */
export type SpacesKeyCreated = SpacesKey & { secret_key: string };

export type SpacesKeyList = ListAnswer<'spacesKey_list', 'keys', SpacesKey>;

/** A CDN endpoint in front of a Spaces bucket (its origin), served at `endpoint`. */
export type CdnEndpoint = Always<Schemas['cdn_endpoint'], 'id' | 'endpoint' | 'ttl' | 'created_at'>;

export type CdnEndpointList = ListAnswer<'cdn_list_endpoints', 'endpoints', CdnEndpoint>;
