/**
 * `--auth oauth`: this server as an OAuth protected resource (RFC 9728, as the MCP authorization
 * specification uses it). Its metadata document, served at `/.well-known/oauth-protected-resource`
 * and at the path-suffixed form MCP clients ask for first (`.../oauth-protected-resource/mcp`),
 * names the authorization server a host signs in at; a request without a usable bearer token gets
 * 401 with `WWW-Authenticate: Bearer resource_metadata="<that document's URL>"`. The token a host
 * obtains is passed through to the API as `--auth token-passthrough` passes one: the API judges it.
 * A leaf module (http.ts uses it; service-config.ts checks the flags with it).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PLATFORM_SCOPES } from '@cloudcall/platform';

export { DEFAULT_OAUTH_ISSUER } from './service-flags.js';

/** Where the metadata is, before any path of the resource (RFC 9728 section 3). */
export const METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The MCP endpoint's path on this server. */
const ENDPOINT = '/mcp';

export interface OAuthResource {
  /** The authorization server's issuer identifier, as its own metadata spells it. */
  issuer: string;
  /**
   * This server's MCP endpoint as clients reach it (behind a proxy: the proxy's https URL),
   * the `resource` of the metadata; undefined: from each request's Host, over http.
   */
  publicUrl: URL | undefined;
}

/** What an issuer or public URL may be: https, or http on a loopback address; no query or fragment. */
export function checkedUrl(text: string, flag: string, example: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${flag} must be a URL such as ${example}, not ${text}`);
  }
  const loopback = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new Error(`${flag} must be an https URL (http only on a loopback address), not ${url.origin}`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new Error(`${flag} takes no query, fragment or credentials: ${example}`);
  }
  return url;
}

/** The issuer as clients compare it: without the slash a URL parser adds to a bare origin. */
export function issuerId(url: URL): string {
  return url.pathname === '/' ? url.origin : url.href;
}

/** The resource a request was addressed to: the public URL, else this server's /mcp by its Host. */
export function resourceOf(oauth: OAuthResource, host: string): URL {
  return oauth.publicUrl ?? new URL(`http://${host}${ENDPOINT}`);
}

/** The metadata document's URL for `resource`: the well-known path, then the resource's path. */
export function metadataUrl(resource: URL): string {
  const path = resource.pathname === '/' ? '' : resource.pathname.replace(/\/$/, '');
  return `${resource.origin}${METADATA_PATH}${path}`;
}

/**
 * Whether `path` is where this server serves the metadata: the bare well-known path, its form
 * for /mcp, and its form for the public URL's path (which a proxy may serve the endpoint under).
 */
export function isMetadataPath(path: string, oauth: OAuthResource): boolean {
  if (path === METADATA_PATH || path === `${METADATA_PATH}${ENDPOINT}`) return true;
  const own = oauth.publicUrl && new URL(metadataUrl(oauth.publicUrl)).pathname;
  return path === own;
}

/** The metadata document (RFC 9728 section 2) for `resource`. */
export function metadataDocument(oauth: OAuthResource, resource: URL): Record<string, unknown> {
  return {
    resource: resource.href,
    authorization_servers: [oauth.issuer],
    // RFC 6750's header only: a token in a query or a form body would end up in logs.
    bearer_methods_supported: ['header'],
    scopes_supported: PLATFORM_SCOPES,
    resource_name: 'cloudcall',
  };
}

/**
 * The `WWW-Authenticate` value of a 401 (RFC 9728 section 5.1, RFC 6750 section 3): where the
 * metadata is, and for a token given but refused, `invalid_token` and why.
 */
export function challenge(resource: URL, refused?: string): string {
  const metadata = `Bearer resource_metadata="${metadataUrl(resource)}"`;
  return refused
    ? `${metadata}, error="invalid_token", error_description="${refused.replaceAll('"', "'")}"`
    : metadata;
}

/**
 * Answers a request for the metadata: GET (or HEAD) the JSON document, OPTIONS a CORS preflight
 * (browser-based hosts read it from their own origin, with an MCP-Protocol-Version header), any
 * other method 405. The document is public: no credentials, any origin.
 */
export function answerMetadata(
  req: IncomingMessage,
  res: ServerResponse,
  oauth: OAuthResource,
  host: string,
): void {
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, OPTIONS',
    'access-control-allow-headers': 'mcp-protocol-version',
  };
  if (req.method === 'OPTIONS') {
    res.writeHead(204, { ...cors, 'access-control-max-age': '86400' }).end();
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { ...cors, allow: 'GET, HEAD, OPTIONS' }).end();
    return;
  }
  const body = JSON.stringify(metadataDocument(oauth, resourceOf(oauth, host)));
  res
    .writeHead(200, {
      ...cors,
      'content-type': 'application/json',
      'cache-control': 'public, max-age=3600',
      'content-length': Buffer.byteLength(body),
    })
    .end(req.method === 'HEAD' ? undefined : body);
}

/**
 * Whether checking a token with the platform found it refused (401): expired, revoked, or never
 * one. Anything else (no answer, a 403 for a token without account:read) leaves the token to the
 * call itself, which says what the API answered.
 */
export function refusedByPlatform(error: unknown): boolean {
  return (error as { status?: unknown } | null)?.status === 401;
}
