/**
 * --auth oauth: the server as an OAuth protected resource (RFC 9728, as the MCP authorization
 * specification uses it), against a real OAuth provider on loopback (oidc-provider) and the
 * sandbox, which takes only tokens that provider issued and that have not expired. The metadata
 * document and the 401's header are checked field by field, read by the official SDK client's own
 * discovery, and used by the SDK client's OAuth flow (registration, PKCE, the resource indicator)
 * to sign in, list tools and call one; directly and behind a real nginx at a public URL.
 */
import { PLATFORM_SCOPES } from '@cloudcall/platform';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { freePort } from '@cloudcall/testing';
import { type Nginx, startNginx } from '@cloudcall/testing/nginx';
import { type OidcProvider, startOidcProvider } from '@cloudcall/testing/oidc';
import {
  discoverOAuthProtectedResourceMetadata,
  discoverOAuthServerInfo,
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  OAuthProtectedResourceMetadataSchema,
  type OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from './testing/client.js';
import { exitOf, killAll, startHttp } from './testing/main.js';
import { httpRequest, INITIALIZE } from './testing/process.js';

let provider: OidcProvider;
let sandbox: Sandbox;
/** The tokens the sandbox was sent, in order. */
const sent: string[] = [];

beforeAll(async () => {
  // The platform's scopes, as its authorization server takes them.
  provider = await startOidcProvider({ scopes: PLATFORM_SCOPES.join(' ') });
  sandbox = await startSandbox({
    acceptToken: (token) => {
      sent.push(token);
      return provider.accepts(token);
    },
  });
});
afterAll(async () => {
  await Promise.all([provider.close(), sandbox.close()]);
});

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await killAll();
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const HTTP = ['--transport', 'http', '--port', '0'];

/** The server with --auth oauth at the loopback provider, its calls going to the sandbox. */
const oauthServer = (more: string[] = []) =>
  startHttp([
    ...HTTP,
    '--auth',
    'oauth',
    '--oauth-issuer',
    provider.issuer,
    '--api-url',
    sandbox.url,
    '--families',
    'account',
    ...more,
  ]);

/** `url` with another path (the server's own origin). */
const at = (url: string, path: string) => new URL(path, url).href;

/** The document RFC 9728 section 2 asks for, for the MCP endpoint at `resource`. */
const expectedMetadata = (resource: string) => ({
  resource,
  authorization_servers: [provider.issuer],
  bearer_methods_supported: ['header'],
  scopes_supported: [...PLATFORM_SCOPES],
  resource_name: 'cloudcall',
});

describe('--auth oauth: the protected resource metadata and the 401', () => {
  it('serves the metadata at the path-suffixed and the bare well-known path, and a 401 naming it', async () => {
    const { url } = await oauthServer(['--stateless']);
    const suffixed = at(url, '/.well-known/oauth-protected-resource/mcp');
    for (const path of [suffixed, at(url, '/.well-known/oauth-protected-resource')]) {
      const answer = await fetch(path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/json');
      // Public, and for browser-based hosts on any origin.
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      const document = await answer.json();
      expect(document).toEqual(expectedMetadata(url));
      expect(OAuthProtectedResourceMetadataSchema.strict().parse(document)).toEqual(document);
    }

    // No token: 401 pointing at the metadata, no error code (RFC 6750 section 3.1).
    const missing = await httpRequest(url, { body: INITIALIZE });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe(`Bearer resource_metadata="${suffixed}"`);
    expect(missing.json).toMatchObject({
      error: { code: -32001, message: expect.stringContaining(suffixed) },
    });
    // Another scheme is no bearer token either.
    const basic = await httpRequest(url, {
      body: INITIALIZE,
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
    });
    expect(basic.status).toBe(401);
    expect(basic.headers['www-authenticate']).toBe(`Bearer resource_metadata="${suffixed}"`);
    // A bearer token given but refused: malformed, or one the platform does not take.
    for (const authorization of [
      'Bearer',
      'Bearer ',
      'Bearer two words',
      'bearer tab\there',
      'Bearer never-issued-token-0123456789',
    ]) {
      const refused = await httpRequest(url, { body: INITIALIZE, headers: { authorization } });
      expect(refused.status, authorization).toBe(401);
      expect(refused.headers['www-authenticate'], authorization).toMatch(
        new RegExp(
          `^Bearer resource_metadata="${suffixed}", error="invalid_token", error_description="[^"]+"$`,
        ),
      );
    }

    // The SDK's own parsing and discovery find the same.
    const challenged = await fetch(url, {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify(INITIALIZE),
    });
    expect(extractWWWAuthenticateParams(challenged).resourceMetadataUrl?.href).toBe(suffixed);
    expect(await discoverOAuthProtectedResourceMetadata(url)).toEqual(expectedMetadata(url));
    const info = await discoverOAuthServerInfo(url);
    expect(info.authorizationServerUrl).toBe(provider.issuer);
    expect(info.authorizationServerMetadata).toMatchObject({
      issuer: provider.issuer,
      registration_endpoint: `${provider.issuer}/reg`,
      code_challenge_methods_supported: ['S256'],
    });
  });

  it('answers a CORS preflight, refuses other methods, and serves no other well-known path', async () => {
    const { url } = await oauthServer();
    const preflight = await httpRequest(at(url, '/.well-known/oauth-protected-resource/mcp'), {
      method: 'OPTIONS',
      headers: {
        origin: 'https://host.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'mcp-protocol-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-headers': 'mcp-protocol-version',
    });
    const post = await httpRequest(at(url, '/.well-known/oauth-protected-resource'), { body: {} });
    expect(post.status).toBe(405);
    for (const path of [
      '/.well-known/oauth-protected-resource/other',
      '/.well-known/oauth-authorization-server',
    ]) {
      expect((await httpRequest(at(url, path), { method: 'GET' })).status, path).toBe(404);
    }
    // Only names this server answers to: the Host check comes first.
    const foreign = await httpRequest(at(url, '/.well-known/oauth-protected-resource/mcp'), {
      method: 'GET',
      headers: { host: 'evil.example' },
    });
    expect(foreign.status).toBe(403);
  });

  it('serves no metadata without --auth oauth', async () => {
    const { url } = await startHttp([...HTTP, '--auth', 'token-passthrough', '--api-url', sandbox.url]);
    expect((await fetch(at(url, '/.well-known/oauth-protected-resource/mcp'))).status).toBe(404);
    const missing = await httpRequest(url, { body: INITIALIZE });
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="cloudcall-mcp"');
  });

  it('names its public URL behind a proxy: the resource, the path-suffixed metadata URL, the 401', async () => {
    const upstream = await freePort();
    const nginx: Nginx = await startNginx({ upstreams: [upstream] });
    cleanup.push(nginx.stop);
    const publicUrl = 'https://mcp.example.test/team/mcp';
    await oauthServer([
      '--stateless',
      '--port',
      String(upstream),
      '--public-url',
      publicUrl,
      '--allowed-hosts',
      'mcp.example.test',
    ]);
    const suffixed = 'https://mcp.example.test/.well-known/oauth-protected-resource/team/mcp';
    const host = { host: 'mcp.example.test' };
    // The paths a client derives from the public URL, and the replica's own /mcp form.
    for (const path of [
      '/.well-known/oauth-protected-resource/team/mcp',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const answer = await httpRequest(at(nginx.url, path), { method: 'GET', headers: host });
      expect(answer.status, path).toBe(200);
      expect(answer.headers['content-type']).toBe('application/json');
      expect(answer.json).toEqual(expectedMetadata(publicUrl));
    }
    const missing = await httpRequest(at(nginx.url, '/mcp'), { body: INITIALIZE, headers: host });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe(`Bearer resource_metadata="${suffixed}"`);
  });

  it('refuses its flags where they mean nothing, and an issuer or public URL that is not https', async () => {
    const cases: [string[], RegExp][] = [
      [['--oauth-issuer', provider.issuer], /--oauth-issuer is for --auth oauth \(this is --auth none\)/],
      [
        ['--auth', 'token-passthrough', '--public-url', 'https://a.example/mcp'],
        /--public-url is for --auth oauth/,
      ],
      [['--auth', 'oauth', '--oauth-issuer', 'http://auth.example'], /--oauth-issuer must be an https URL/],
      [['--auth', 'oauth', '--oauth-issuer', 'not a url'], /--oauth-issuer must be a URL/],
      [['--auth', 'oauth', '--public-url', 'https://a.example/mcp?x=1'], /--public-url takes no query/],
      [
        ['--auth', 'oauth', '--audit-scope', 'all'],
        /--audit-scope is for --auth static: a --auth oauth caller/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await exitOf([...HTTP, '--sandbox', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
    const stdio = await exitOf(['--sandbox', '--auth', 'oauth']);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toMatch(/--auth needs --transport http/);
  }, 60_000);
});

/**
 * A host's side of the SDK client's OAuth flow: it keeps what the SDK hands it, and for the
 * browser step keeps the address, which the test opens at the provider.
 */
class HostAuth implements OAuthClientProvider {
  readonly redirectUrl = 'http://127.0.0.1:9/callback';
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'test host',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('--auth oauth: a host signing in with the SDK client', () => {
  it.each([
    ['sessions', []],
    ['--stateless', ['--stateless']],
  ])('gets a token from the provider, lists tools and calls one with it (%s)', async (_mode, flags) => {
    const { url } = await oauthServer(flags);
    const auth = new HostAuth();
    const registered = provider.seen.filter((line) => line === 'POST /reg').length;
    const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: auth });
    await expect(new Client({ name: 'host', version: '1.0.0' }).connect(first)).rejects.toThrow(
      UnauthorizedError,
    );
    // The SDK found the provider through the metadata, registered, and asked with PKCE for this server.
    expect(provider.seen.filter((line) => line === 'POST /reg')).toHaveLength(registered + 1);
    const asked = auth.authorizationUrl?.searchParams;
    expect(asked?.get('code_challenge_method')).toBe('S256');
    expect(asked?.get('resource')).toBe(url);
    const back = await provider.authorize(auth.authorizationUrl as URL);
    await first.finishAuth(back.searchParams.get('code') as string);
    const token = auth.saved?.access_token as string;
    expect(await provider.accepts(token)).toBe(true);

    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: auth }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('account-get-information');
    const used = sent.length;
    const account = await call(client, 'account-get-information');
    expect(account.isError, account.text).toBe(false);
    expect(account.json).toMatchObject({ account: { email: expect.any(String) } });
    // The host's token, passed through to the API as it is.
    expect(sent.slice(used).length).toBeGreaterThan(0);
    expect(new Set(sent.slice(used))).toEqual(new Set([token]));
    await client.close();
  });
});
