/**
 * `cloudcall auth login`, and the refresh of a signed-in context's token before a command uses
 * it: OAuth 2.0 authorization code with PKCE (S256) through openid-client, the client registered
 * with the authorization server on first use (RFC 7591) unless `--client-id` names one, the
 * browser sent back to a listener on 127.0.0.1 (a random port, RFC 8252), `state` and `iss`
 * (RFC 9207) checked, and the tokens kept in the context as `auth init` keeps one (mode 0600).
 * No token, refresh token or client secret is printed or put in an error. Loaded only by
 * `auth login`, by a command whose context must be refreshed, and by `auth remove` of a
 * signed-in context (whose refresh token it revokes).
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CancelledError, InputError, NetworkError } from '@cloudcall/core';
import { showControls } from '@cloudcall/core/internal';
import { PLATFORM_SCOPES } from '@cloudcall/platform';
import * as client from 'openid-client';
import {
  type Context,
  DEFAULT_ISSUER,
  expiresSoon,
  type OAuthGrant,
  readConfig,
  SignInError,
  updateConfig,
} from './config.js';

/** How long `auth login` waits for the browser to come back. */
const LOGIN_TIMEOUT_MS = 5 * 60_000;

/** Seconds each request to the authorization server may take. */
const REQUEST_TIMEOUT_S = 30;

/** What the CLI registers itself as (RFC 7591): a native app with a loopback redirect, no secret. */
const CLIENT_METADATA: Partial<client.ClientMetadata> = {
  client_name: 'cloudcall CLI',
  application_type: 'native',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};

export interface LoginIo {
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  signal?: AbortSignal | undefined;
}

export interface LoginOptions {
  /** The config file, and the context to save the tokens in. */
  path: string;
  context: string;
  issuer?: string | undefined;
  /** The scopes to ask for; by default every scope the platform's operations name (full access). */
  scopes?: string[] | undefined;
  /** A client already registered with the authorization server; else one is registered. */
  clientId?: string | undefined;
  apiUrl?: string | undefined;
  /** Never start a browser: print the address only. */
  noBrowser?: boolean;
}

/** The issuer as a URL: https, or http on a loopback address (a provider under test). */
export function issuerUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InputError(`--issuer must be a URL such as ${DEFAULT_ISSUER}, not ${text}`, 'issuer');
  }
  const loopback = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new InputError(
      `--issuer must be an https URL (http only on a loopback address), not ${url.origin}`,
      'issuer',
    );
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new InputError('--issuer takes no query, fragment or credentials (RFC 8414)', 'issuer');
  }
  return url;
}

/**
 * Signs in at the authorization server and saves the tokens as the context `options.context`,
 * which becomes the current one; resolves with the line that says so.
 */
export async function login(io: LoginIo, options: LoginOptions): Promise<string> {
  const issuer = issuerUrl(options.issuer ?? DEFAULT_ISSUER);
  const listener = await callbackListener();
  try {
    const redirectUri = `http://127.0.0.1:${listener.port}/callback`;
    const known = options.clientId
      ? { clientId: options.clientId }
      : reusableClient(readConfig(options.path).contexts[options.context], issuer);
    const config = known
      ? await discover(issuer, known.clientId, known.clientSecret)
      : await register(issuer, redirectUri);
    const registration: Pick<OAuthGrant, 'clientId' | 'clientSecret'> = {
      clientId: config.clientMetadata().client_id,
      ...(typeof config.clientMetadata().client_secret === 'string'
        ? { clientSecret: config.clientMetadata().client_secret as string }
        : {}),
    };
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const address = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      scope: (options.scopes ?? PLATFORM_SCOPES).join(' '),
    });
    const opened = !options.noBrowser && openBrowser(address.href, io.env);
    io.stderr(
      `cloudcall: ${opened ? 'your browser was opened to sign in; if it did not open, visit' : 'to sign in, open this address in a browser'}:\n\n  ${address.href}\n\ncloudcall: waiting for the browser to come back to ${redirectUri} (Ctrl+C to give up)...\n`,
    );
    const answer = await listener.next(io.signal);
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await signInStep(
        () =>
          client.authorizationCodeGrant(config, answer.url, {
            pkceCodeVerifier: verifier,
            expectedState: state,
          }),
        'sign in',
      );
    } catch (error) {
      answer.reply(
        400,
        `cloudcall: the sign-in failed: ${error instanceof Error ? error.message : 'unknown error'}`,
      );
      throw error;
    }
    answer.reply(200, 'cloudcall: signed in. You can close this tab and return to the terminal.');
    // The issuer as its own metadata spells it: what `iss` is checked against on refresh too.
    const grant = grantOf(tokens, config.serverMetadata().issuer, registration);
    await updateConfig(options.path, (file) => {
      const context: Context = { token: tokens.access_token, oauth: grant };
      if (options.apiUrl) context.apiUrl = options.apiUrl;
      file.contexts[options.context] = context;
      file.current = options.context;
    });
    const expiry = grant.expiresAt ? `; the access token expires at ${grant.expiresAt}` : '';
    const renewal = grant.refreshToken ? ' and is refreshed before each command that needs it' : '';
    return `cloudcall: signed in at ${issuer.origin}${scopesNote(grant.scopes)}; saved as context ${options.context} in ${options.path}, now the current context${expiry}${renewal}.\n`;
  } finally {
    await listener.close();
  }
}

/**
 * The context's access token, refreshed first when it is about to expire: under the config
 * file's lock, so that commands run at once refresh it once (a refresh token may be good for one
 * use only), the others finding the new one.
 */
export async function freshToken(path: string, name: string, now = Date.now): Promise<string> {
  return updateConfig(path, async (file) => {
    const context = file.contexts[name];
    if (!context) throw new InputError(`no context named ${JSON.stringify(name)}`, 'context');
    const grant = context.oauth;
    if (!grant || !expiresSoon(grant.expiresAt, now())) return context.token;
    const again = `cloudcall auth login --context ${name}${sameIssuer(grant.issuer, new URL(DEFAULT_ISSUER)) ? '' : ` --issuer ${grant.issuer}`}`;
    if (!grant.refreshToken) {
      throw new SignInError(
        `the access token of context ${name} has expired, and the authorization server gave no refresh token`,
        `sign in again: ${again}`,
      );
    }
    const refreshToken = grant.refreshToken;
    const config = await discover(issuerUrl(grant.issuer), grant.clientId, grant.clientSecret);
    const tokens = await signInStep(() => client.refreshTokenGrant(config, refreshToken), 'refresh', again);
    context.token = tokens.access_token;
    context.oauth = {
      ...grantOf(tokens, grant.issuer, grant),
      // Without rotation, the one given at sign-in stays good.
      refreshToken: tokens.refresh_token ?? refreshToken,
      ...(tokens.scope === undefined && grant.scopes ? { scopes: grant.scopes } : {}),
    };
    return context.token;
  });
}

/**
 * Revokes a removed context's refresh token (RFC 7009) where the authorization server offers
 * revocation, so that a copy of the file left somewhere cannot mint tokens; resolves with what to
 * add to the line saying the context was removed. Never fails the removal: the file no longer
 * holds the grant either way.
 */
export async function revoke(grant: OAuthGrant): Promise<string> {
  if (!grant.refreshToken) return '';
  const refreshToken = grant.refreshToken;
  try {
    const config = await discover(issuerUrl(grant.issuer), grant.clientId, grant.clientSecret);
    if (!config.serverMetadata().revocation_endpoint) {
      return `; ${grant.issuer} offers no revocation, so its refresh token stays good there until it expires`;
    }
    await signInStep(
      () => client.tokenRevocation(config, refreshToken, { token_type_hint: 'refresh_token' }),
      'revocation',
    );
    return `, and its refresh token was revoked at ${grant.issuer}`;
  } catch (error) {
    return `; its refresh token could not be revoked at ${grant.issuer} (${error instanceof Error ? error.message : 'unknown error'})`;
  }
}

/** The scopes granted, as the sign-in's line says them: a long list by its length. */
function scopesNote(scopes: string[] | undefined): string {
  if (!scopes) return '';
  if (scopes.length > 6) return ` with ${scopes.length} scopes (auth list shows the context)`;
  return ` (scopes: ${scopes.join(' ') || 'none'})`;
}

/** What is kept of a token answer. */
function grantOf(
  tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
  issuer: string,
  registration: Pick<OAuthGrant, 'clientId' | 'clientSecret'>,
): OAuthGrant {
  if (tokens.token_type.toLowerCase() !== 'bearer') {
    throw new SignInError(
      `the authorization server issued a ${tokens.token_type} token; cloudcall sends bearer tokens only`,
      'ask for a bearer token, or use cloudcall auth init with an API token',
    );
  }
  const seconds = tokens.expiresIn();
  return {
    issuer,
    clientId: registration.clientId,
    ...(registration.clientSecret ? { clientSecret: registration.clientSecret } : {}),
    ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
    ...(seconds === undefined ? {} : { expiresAt: new Date(Date.now() + seconds * 1000).toISOString() }),
    ...(tokens.scope === undefined ? {} : { scopes: tokens.scope.split(' ').filter(Boolean) }),
  };
}

/** The client a context already registered at this issuer: signing in again reuses it. */
function reusableClient(
  context: Context | undefined,
  issuer: URL,
): { clientId: string; clientSecret?: string | undefined } | undefined {
  const grant = context?.oauth;
  return grant && sameIssuer(grant.issuer, issuer)
    ? { clientId: grant.clientId, clientSecret: grant.clientSecret }
    : undefined;
}

/** Two spellings of one issuer (`https://a.example` and `https://a.example/`). */
function sameIssuer(stored: string, issuer: URL): boolean {
  try {
    return new URL(stored).href === issuer.href;
  } catch {
    return false;
  }
}

/** The options of every request to the authorization server: http allowed only to loopback. */
function requestOptions(issuer: URL): client.DiscoveryRequestOptions {
  return {
    timeout: REQUEST_TIMEOUT_S,
    ...(issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {}),
  };
}

/**
 * The authorization server's metadata, as RFC 8414 publishes it, else as OpenID Connect
 * Discovery does (what MCP clients try too), with the client it knows.
 */
async function discover(issuer: URL, clientId: string, clientSecret?: string): Promise<client.Configuration> {
  const auth = clientSecret ? client.ClientSecretPost(clientSecret) : client.None();
  return metadataStep(
    (algorithm) =>
      client.discovery(issuer, clientId, clientSecret, auth, { ...requestOptions(issuer), algorithm }),
    'discovery',
  );
}

/** Registers this CLI with the authorization server (RFC 7591) and returns its configuration. */
async function register(issuer: URL, redirectUri: string): Promise<client.Configuration> {
  return metadataStep(
    (algorithm) =>
      client.dynamicClientRegistration(
        issuer,
        { ...CLIENT_METADATA, redirect_uris: [redirectUri] },
        undefined,
        { ...requestOptions(issuer), algorithm },
      ),
    'registration',
  );
}

async function metadataStep(
  step: (algorithm: 'oauth2' | 'oidc') => Promise<client.Configuration>,
  what: string,
): Promise<client.Configuration> {
  try {
    return await step('oauth2');
  } catch (first) {
    // No RFC 8414 document: the OpenID Connect one says the same.
    if (!isMissingDocument(first)) return signInStep(() => Promise.reject(first), what);
    return signInStep(() => step('oidc'), what);
  }
}

/** openid-client's error for a metadata document that is not there (a 404, not JSON). */
function isMissingDocument(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' || code === 'OAUTH_RESPONSE_IS_NOT_JSON';
}

/**
 * Runs one exchange with the authorization server, its failures as the CLI reports them: a
 * refusal (an OAuth error answer, a response that fails its checks) as a SignInError, an
 * address out of reach as a NetworkError. The server's own words are shown, never a token.
 */
async function signInStep<T>(step: () => Promise<T>, what: string, again?: string): Promise<T> {
  const hint = again ? `sign in again: ${again}` : 'check --issuer and try again';
  try {
    return await step();
  } catch (error) {
    if (error instanceof client.ResponseBodyError) {
      const said = error.error_description ? `: ${showControls(error.error_description)}` : '';
      throw new SignInError(
        `the authorization server refused the ${what} (HTTP ${error.status} ${showControls(error.error)}${said})`,
        hint,
      );
    }
    if (error instanceof client.AuthorizationResponseError) {
      const said = error.error_description ? `: ${showControls(error.error_description)}` : '';
      throw new SignInError(
        `the sign-in was not granted (${showControls(error.error)}${said})`,
        'run cloudcall auth login again, and allow access in the browser',
      );
    }
    const cause = (error as { cause?: { code?: string } }).cause;
    if (error instanceof TypeError && cause?.code) {
      throw new NetworkError(`the authorization server cannot be reached (${cause.code})`, {
        code: cause.code,
      });
    }
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
      throw new NetworkError(`the authorization server did not answer within ${REQUEST_TIMEOUT_S} s`);
    }
    if (error instanceof client.ClientError || (error instanceof Error && 'code' in error)) {
      // openid-client's message names the kind of failure, its cause's which check failed (the
      // library's own words, such as 'unexpected "state" response parameter value': no value).
      const cause = (error as Error).cause;
      const detail = cause instanceof Error && cause.message !== error.message ? `: ${cause.message}` : '';
      throw new SignInError(`the ${what} failed: ${showControls(`${error.message}${detail}`)}`, hint);
    }
    throw error;
  }
}

interface CallbackAnswer {
  /** The address the browser was sent back to, with the authorization response. */
  url: URL;
  /** Answers the browser (a plain text page) and closes its connection. */
  reply(status: number, text: string): void;
}

/**
 * The loopback listener the authorization server sends the browser back to: 127.0.0.1 on a
 * random port, answering /callback once; anything else gets 404.
 */
async function callbackListener(): Promise<{
  port: number;
  next(signal?: AbortSignal): Promise<CallbackAnswer>;
  close(): Promise<void>;
}> {
  let deliver: ((answer: CallbackAnswer) => void) | undefined;
  const arrived: CallbackAnswer[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (req.method !== 'GET' || url.pathname !== '/callback' || arrived.length) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    const answer: CallbackAnswer = {
      url,
      reply: (status, text) => {
        res
          .writeHead(status, {
            'content-type': 'text/plain; charset=utf-8',
            'cache-control': 'no-store',
            connection: 'close',
          })
          .end(`${text}\n`);
      },
    };
    arrived.push(answer);
    deliver?.(answer);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    next: (signal) =>
      new Promise<CallbackAnswer>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new SignInError(
                `the browser did not come back within ${LOGIN_TIMEOUT_MS / 60_000} minutes; nothing was saved`,
                'run cloudcall auth login again, and finish signing in in the browser',
              ),
            ),
          LOGIN_TIMEOUT_MS,
        );
        const done = () => clearTimeout(timer);
        signal?.addEventListener(
          'abort',
          () => {
            done();
            reject(new CancelledError('the sign-in was cancelled; nothing was saved.'));
          },
          { once: true },
        );
        deliver = (answer) => {
          done();
          resolve(answer);
        };
        const first = arrived[0];
        if (first) deliver(first);
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Starts the desktop's browser at `url`, where there is one: not in CI, not without a display on
 * Linux. Whether it really opened is not known; the address is printed either way.
 */
function openBrowser(url: string, env: Record<string, string | undefined>): boolean {
  if (env.CI || env.CLOUDCALL_NO_BROWSER) return false;
  const command =
    process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['rundll32', 'url.dll,FileProtocolHandler', url]
        : env.DISPLAY || env.WAYLAND_DISPLAY
          ? ['xdg-open', url]
          : undefined;
  if (!command) return false;
  const [program = '', ...args] = command;
  try {
    const child = spawn(program, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}
