/**
 * A real OAuth 2.0 / OpenID Connect provider on loopback (oidc-provider, by the author of
 * openid-client), for the tests of `cloudcall auth login` and of the MCP server's --auth oauth:
 * dynamic client registration open, PKCE required, refresh tokens issued, access tokens opaque
 * and bound to a resource (RFC 8707), and the provider's own development login and consent pages,
 * which `authorize` fills in over HTTP as a person would in a browser. Nothing is mocked: the
 * provider's discovery, registration, authorization, token and refresh endpoints are the ones
 * a client talks to, and `accepts` asks the provider's own store whether it issued a token.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface OidcProviderOptions {
  /**
   * Seconds an access token lives (default 3600), or what says so as each is issued; a short one
   * lets a test see it expire.
   */
  accessTokenTtl?: number | (() => number);
  /**
   * The scopes the resource servers take (the platform's, say), space-separated: a token gets
   * those of the ones asked for (default: a few of the platform's).
   */
  scopes?: string;
  /** The resource a token is for when the client names none (RFC 8707; default DEFAULT_RESOURCE). */
  defaultResource?: string;
  /**
   * Publish the metadata as OpenID Connect Discovery places it only (/.well-known/openid-configuration),
   * answering 404 where RFC 8414 places it, as a server without RFC 8414 does (oidc-provider
   * serves both).
   */
  oidcDiscoveryOnly?: boolean;
}

export interface OidcProvider {
  /** The issuer identifier: http://127.0.0.1:PORT, with no path. */
  issuer: string;
  provider: Provider;
  /** Whether this provider issued `token` as an access token and it has not expired. */
  accepts(token: string): Promise<boolean>;
  /**
   * Signs in (any login, as the development pages allow) and consents to an authorization
   * request, over HTTP with the pages' own forms and cookies, as a person in a browser; resolves
   * with the URL the provider sends the browser back to (the client's redirect_uri with `code`,
   * `state` and `iss`), not followed.
   */
  authorize(url: string | URL, login?: string): Promise<URL>;
  /** Requests seen by the provider, as `METHOD path`: what a client really asked. */
  seen: string[];
  close(): Promise<void>;
}

/** The resource an access token is for when the client asks for none. */
export const DEFAULT_RESOURCE = 'urn:cloudcall:test-api';

/** Starts the provider on a free loopback port; resolves once it listens. */
export async function startOidcProvider(options: OidcProviderOptions = {}): Promise<OidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const ttl = options.accessTokenTtl ?? 3600;
  const accessTokenTTL = typeof ttl === 'number' ? () => ttl : ttl;
  const scope = options.scopes ?? 'account:read droplet:read droplet:create ssh_key:read regions:read';
  const defaultResource = options.defaultResource ?? DEFAULT_RESOURCE;
  // The development pages and keys say so on the console once per provider: not worth a line per test.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).startsWith('oidc-provider WARNING')) warn(...args);
  };
  let provider: Provider;
  try {
    provider = new Provider(issuer, {
      // Any login is an account with that subject (the development login page takes any).
      findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
      cookies: { keys: ['cloudcall-test-cookie-key'] },
      // Named here too, so that a client may register with them (the MCP SDK registers with the
      // scopes the protected resource lists).
      scopes: ['openid', 'offline_access', ...scope.split(' ')],
      features: {
        devInteractions: { enabled: true },
        registration: { enabled: true },
        revocation: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: (_ctx, _client, oneOf) => oneOf ?? defaultResource,
          // A refresh keeps the resource the grant was for.
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, resource) => ({
            scope,
            audience: resource,
            accessTokenTTL: accessTokenTTL(),
            accessTokenFormat: 'opaque',
          }),
        },
      },
      pkce: { required: () => true },
      // Refresh tokens to every client allowed the grant, without offline_access (an OAuth
      // client, not an OpenID one, as the platform's CLI clients are).
      issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      ttl: { AccessToken: () => accessTokenTTL() },
    });
  } finally {
    console.warn = warn;
  }
  const seen: string[] = [];
  const callback = provider.callback();
  server.on('request', (req, res) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    seen.push(`${req.method} ${path}`);
    if (options.oidcDiscoveryOnly && path === '/.well-known/oauth-authorization-server') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
      return;
    }
    callback(req, res);
  });

  return {
    issuer,
    provider,
    seen,
    accepts: async (token) => {
      // `find` leaves the expiry to the caller (as the provider's own endpoints check it).
      const found = await provider.AccessToken.find(token);
      return Boolean(found && !found.isExpired);
    },
    authorize: (url, login = 'alice') => authorize(new URL(url), issuer, login),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Follows the authorization request through the provider's pages, with a cookie jar. */
async function authorize(start: URL, issuer: string, login: string): Promise<URL> {
  const cookies = new Map<string, string>();
  const send = async (url: URL, init: RequestInit = {}) => {
    const answer = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
      },
    });
    for (const line of answer.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return answer;
  };
  let url = start;
  let answer = await send(url);
  for (let steps = 0; steps < 20; steps++) {
    const location = answer.headers.get('location');
    if (answer.status >= 300 && answer.status < 400 && location) {
      await answer.body?.cancel();
      url = new URL(location, url);
      // Back to the client: the answer of the authorization request.
      if (url.origin !== issuer) return url;
      answer = await send(url);
      continue;
    }
    const page = await answer.text();
    if (answer.status !== 200)
      throw new Error(`the provider answered ${answer.status}: ${page.slice(0, 500)}`);
    const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(page);
    if (!form) throw new Error(`no form on the provider's page: ${page.slice(0, 500)}`);
    const fields = new URLSearchParams();
    for (const input of (form[2] ?? '').matchAll(/<input([^>]*)>/g)) {
      const name = /name="([^"]+)"/.exec(input[1] ?? '')?.[1];
      if (!name) continue;
      const value = /value="([^"]*)"/.exec(input[1] ?? '')?.[1] ?? '';
      fields.set(name, name === 'login' ? login : name === 'password' ? 'any password' : value);
    }
    url = new URL((form[1] ?? '').replaceAll('&amp;', '&'), url);
    answer = await send(url, {
      method: 'POST',
      body: fields.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }
  throw new Error('the provider never sent the browser back to the client');
}
