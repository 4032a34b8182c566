/**
 * `cloudcall auth login` against a real OAuth provider on loopback (oidc-provider: dynamic
 * registration, PKCE required, refresh tokens, opaque access tokens), the CLI with its own config
 * directory (the built CLI as a process for the whole sign-in and a command after it), the
 * browser's part played over HTTP with the provider's own login and consent pages. The sandbox takes only tokens the provider issued and that have not
 * expired, so a command that works proves the token is the provider's and is current.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { PLATFORM_SCOPES } from '@cloudcall/platform';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { freePort } from '@cloudcall/testing';
import { type OidcProvider, startOidcProvider } from '@cloudcall/testing/oidc';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Config, configPath } from './config.js';
import { EXIT } from './program.js';
import { cliRunner, type Run } from './testing/run.js';

let provider: OidcProvider;
/** Access tokens that live `briefTtl` seconds: expired by the time a test waits a little. */
let brief: OidcProvider;
let briefTtl = 3;
let sandbox: Sandbox;
/** The tokens the sandbox was sent, in order. */
const sent: string[] = [];

beforeAll(async () => {
  // The platform's scopes, as its authorization server would take them.
  const scopes = PLATFORM_SCOPES.join(' ');
  [provider, brief] = await Promise.all([
    startOidcProvider({ scopes }),
    // One without RFC 8414's metadata document, only OpenID Connect Discovery's.
    startOidcProvider({ scopes, accessTokenTtl: () => briefTtl, oidcDiscoveryOnly: true }),
  ]);
  sandbox = await startSandbox({
    acceptToken: async (token) => {
      sent.push(token);
      return (await provider.accepts(token)) || (await brief.accepts(token));
    },
  });
});
afterAll(async () => {
  await Promise.all([provider.close(), brief.close(), sandbox.close()]);
});

/**
 * Each test's CLI, with a config directory of its own: in this process, but for the test that
 * runs the built CLI as a process (`asProcess`) for what only a process shows.
 */
let cli: ReturnType<typeof cliRunner>;
let file: string;
beforeEach(() => {
  cli = cliRunner();
  file = configPath({ XDG_CONFIG_HOME: `${cli.home}/config` });
});
function asProcess(): void {
  cli = cliRunner({}, { process: true });
  file = configPath({ XDG_CONFIG_HOME: `${cli.home}/config` });
}

const stored = (): Config => JSON.parse(readFileSync(file, 'utf8'));

interface Login {
  /** The address the CLI printed for the browser. */
  address: URL;
  /** Where the provider sent the browser back (the CLI's listener), as the test sent it on. */
  callback: URL;
  /** The CLI listener's answer to the browser. */
  page: { status: number; text: string };
  run: Run;
}

/**
 * `auth login` with `args`, the browser's part done over HTTP: the printed address opened at the
 * provider, signed in and consented to, and the provider's answer sent on to the CLI's listener,
 * changed first by `tamper` when given.
 */
async function login(
  args: string[],
  options: { at?: OidcProvider; tamper?: (callback: URL) => void } = {},
): Promise<Login> {
  const at = options.at ?? provider;
  const run = cli.start([
    'auth',
    'login',
    '--no-browser',
    '--issuer',
    at.issuer,
    '--api-url',
    sandbox.url,
    ...args,
  ]);
  await run.until(/waiting for the browser/);
  const printed = /^ {2}(http\S+)$/m.exec(run.output.stderr)?.[1];
  expect(printed, run.output.stderr).toBeDefined();
  const address = new URL(printed as string);
  const callback = await at.authorize(address);
  options.tamper?.(callback);
  const answer = await fetch(callback);
  const page = { status: answer.status, text: await answer.text() };
  return { address, callback, page, run: await run.exit };
}

/** Nothing secret of the config file in what a run printed. */
function expectNoSecrets(run: Run, config: Config): void {
  const printed = run.stdout + run.stderr;
  for (const context of Object.values(config.contexts)) {
    expect(printed).not.toContain(context.token);
    if (context.oauth?.refreshToken) expect(printed).not.toContain(context.oauth.refreshToken);
    if (context.oauth?.clientSecret) expect(printed).not.toContain(context.oauth.clientSecret);
  }
}

describe('auth login', () => {
  it('registers the CLI, signs in with PKCE, and saves a context that works for a real command', async () => {
    asProcess();
    const registered = provider.seen.filter((line) => line === 'POST /reg').length;
    const { address, callback, page, run } = await login([
      '--context',
      'work',
      '--scopes',
      'account:read,ssh_key:read',
    ]);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    expect(page).toEqual({ status: 200, text: expect.stringContaining('signed in') });
    // Registered itself (RFC 7591), then asked with PKCE (S256) and a state, to a loopback listener.
    expect(provider.seen.filter((line) => line === 'POST /reg')).toHaveLength(registered + 1);
    const asked = address.searchParams;
    expect(asked.get('response_type')).toBe('code');
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(asked.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(asked.get('scope')).toBe('account:read ssh_key:read');
    expect(asked.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(callback.searchParams.get('iss')).toBe(provider.issuer);
    // RFC 8414's metadata, where the server has it.
    expect(provider.seen).toContain('GET /.well-known/oauth-authorization-server');
    expect(provider.seen).not.toContain('GET /.well-known/openid-configuration');

    const config = stored();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(config.current).toBe('work');
    const work = config.contexts.work;
    expect(work).toEqual({
      token: expect.any(String),
      apiUrl: sandbox.url,
      oauth: {
        issuer: provider.issuer,
        clientId: asked.get('client_id'),
        refreshToken: expect.any(String),
        expiresAt: expect.any(String),
        scopes: ['account:read', 'ssh_key:read'],
      },
    });
    const lifetime = Date.parse(work?.oauth?.expiresAt ?? '') - Date.now();
    expect(lifetime).toBeGreaterThan(3500_000);
    expect(lifetime).toBeLessThanOrEqual(3600_000);
    expect(run.stderr).toContain(`saved as context work in ${file}, now the current context`);
    expectNoSecrets(run, config);

    // The saved context, as the current one, for a real command: the sandbox takes only tokens
    // the provider issued.
    const used = sent.length;
    const account = await cli.run(['account-get-information', '-o', 'json']);
    expect(account.code, account.stderr).toBe(EXIT.ok);
    expect(sent.slice(used)).toEqual([work?.token]);
    // Fresh: used as it is, no refresh.
    expect(stored()).toEqual(config);

    const list = await cli.run(['auth', 'list', '-o', 'json']);
    expect(list.code, list.stderr).toBe(EXIT.ok);
    expect(JSON.parse(list.stdout)).toEqual({
      contexts: [
        {
          name: 'work',
          current: true,
          kind: 'oauth',
          token: `****${work?.token.slice(-4)}`,
          expires: work?.oauth?.expiresAt,
          issuer: provider.issuer,
          api_url: sandbox.url,
        },
      ],
    });
    expectNoSecrets(list, config);
  });

  it('signing in again reuses the client it registered, and replaces the tokens', async () => {
    const first = await login(['--context', 'again']);
    expect(first.run.code, first.run.stderr).toBe(EXIT.ok);
    const before = stored().contexts.again;
    const registered = provider.seen.filter((line) => line === 'POST /reg').length;
    const second = await login(['--context', 'again']);
    expect(second.run.code, second.run.stderr).toBe(EXIT.ok);
    expect(provider.seen.filter((line) => line === 'POST /reg')).toHaveLength(registered);
    const after = stored().contexts.again;
    expect(after?.oauth?.clientId).toBe(before?.oauth?.clientId);
    expect(after?.token).not.toBe(before?.token);
    expect(second.address.searchParams.get('client_id')).toBe(before?.oauth?.clientId);
  });

  it('refreshes an expired token before a command, stores the new one, and refreshes once for commands run at once', async () => {
    const signed = await login(['--context', 'brief'], { at: brief });
    expect(signed.run.code, signed.run.stderr).toBe(EXIT.ok);
    // No RFC 8414 document there: OpenID Connect's.
    expect(brief.seen).toContain('GET /.well-known/oauth-authorization-server');
    expect(brief.seen).toContain('GET /.well-known/openid-configuration');
    const first = stored().contexts.brief;
    const token = first?.token as string;
    // Past its lifetime: the provider no longer takes it (nor does the sandbox).
    for (const deadline = Date.now() + 10_000; await brief.accepts(token); ) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const exchanges = () => brief.seen.filter((line) => line === 'POST /token').length;
    const before = exchanges();
    const used = sent.length;
    // The next token lives an hour: whichever command refreshes first, the others find it fresh.
    briefTtl = 3600;
    let runs: Run[];
    try {
      runs = await Promise.all([
        cli.run(['key-list', '-o', 'json']),
        cli.run(['account-get-information', '-o', 'json']),
        cli.run(['region-list', '-o', 'json']),
      ]);
    } finally {
      briefTtl = 3;
    }
    for (const run of runs) expect(run.code, run.stderr).toBe(EXIT.ok);
    // One refresh between them (the refresh token rotates: a second use would be refused, and
    // the provider would revoke the grant).
    expect(exchanges()).toBe(before + 1);
    const refreshed = stored().contexts.brief;
    expect(refreshed?.token).not.toBe(token);
    expect(refreshed?.oauth?.refreshToken).not.toBe(first?.oauth?.refreshToken);
    expect(refreshed?.oauth?.clientId).toBe(first?.oauth?.clientId);
    expect(Date.parse(refreshed?.oauth?.expiresAt ?? '')).toBeGreaterThan(
      Date.parse(first?.oauth?.expiresAt ?? ''),
    );
    expect(new Set(sent.slice(used))).toEqual(new Set([refreshed?.token]));
    for (const run of runs)
      expectNoSecrets(run, { contexts: { first: first as never, now: refreshed as never } });
  });

  it('a refused refresh says to sign in again, and prints no secret', async () => {
    const signed = await login(['--context', 'stale'], { at: brief });
    expect(signed.run.code, signed.run.stderr).toBe(EXIT.ok);
    const config = stored();
    const stale = config.contexts.stale;
    if (!stale?.oauth) throw new Error('no grant saved');
    // A refresh token the provider does not know (revoked, or from another grant), and an
    // access token that has expired.
    stale.oauth.refreshToken = 'not-a-refresh-token-the-provider-issued';
    stale.oauth.expiresAt = new Date(Date.now() - 1000).toISOString();
    writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
    const used = sent.length;
    const run = await cli.run(['account-get-information']);
    expect(run.code).toBe(EXIT.api);
    expect(run.stderr).toContain('the authorization server refused the refresh (HTTP 400 invalid_grant');
    expect(run.stderr).toContain(
      `hint: sign in again: cloudcall auth login --context stale --issuer ${brief.issuer}`,
    );
    expect(sent.slice(used)).toEqual([]);
    expectNoSecrets(run, config);
    expect(stored()).toEqual(config);
  });

  it.each([
    [
      'another state',
      (callback: URL) => callback.searchParams.set('state', 'forged-state-value-1234'),
      /state/,
    ],
    ['no state', (callback: URL) => callback.searchParams.delete('state'), /state/],
    [
      'another issuer (RFC 9207)',
      (callback: URL) => callback.searchParams.set('iss', 'http://127.0.0.1:1'),
      /iss/,
    ],
    [
      'no issuer, which the provider says it sends',
      (callback: URL) => callback.searchParams.delete('iss'),
      /iss/,
    ],
  ])('refuses an answer with %s, and saves nothing', async (_what, tamper, named) => {
    const exchanges = provider.seen.filter((line) => line === 'POST /token').length;
    const { page, run } = await login(['--context', 'tampered'], { tamper });
    expect(run.code).toBe(EXIT.api);
    expect(run.stderr).toMatch(/cloudcall: the sign in failed: .*/);
    expect(run.stderr.split('\n').find((line) => line.startsWith('cloudcall: the sign in failed'))).toMatch(
      named,
    );
    expect(page.status).toBe(400);
    // The code was never exchanged, and no context was saved.
    expect(provider.seen.filter((line) => line === 'POST /token')).toHaveLength(exchanges);
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
  });

  it('gives up at Ctrl+C while waiting for the browser, and saves nothing', async () => {
    const run = cli.start(['auth', 'login', '--no-browser', '--issuer', provider.issuer]);
    await run.until(/waiting for the browser/);
    const port = /127\.0\.0\.1:(\d+)\/callback/.exec(run.output.stderr)?.[1];
    run.child.kill('SIGINT');
    const done = await run.exit;
    expect(done.code).toBe(EXIT.cancelled);
    expect(done.stderr).toMatch(/^cloudcall: cancelled$/m);
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
    // The listener is gone with it.
    await expect(fetch(`http://127.0.0.1:${port}/callback?code=x&state=y`)).rejects.toThrow();
  });

  it('uses a client registered beforehand (--client-id) without registering one', async () => {
    const registration = await fetch(`${provider.issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    });
    const { client_id: clientId } = (await registration.json()) as { client_id: string };
    const registered = provider.seen.filter((line) => line === 'POST /reg').length;
    const { address, run } = await login(['--context', 'known', '--client-id', clientId]);
    expect(run.code, run.stderr).toBe(EXIT.ok);
    expect(provider.seen.filter((line) => line === 'POST /reg')).toHaveLength(registered);
    expect(address.searchParams.get('client_id')).toBe(clientId);
    expect(stored().contexts.known?.oauth?.clientId).toBe(clientId);
  });

  it('says so when the browser comes back with a refusal, and saves nothing', async () => {
    const { page, run } = await login(['--context', 'denied'], {
      tamper: (callback) => {
        callback.searchParams.delete('code');
        callback.searchParams.set('error', 'access_denied');
        callback.searchParams.set('error_description', 'End-User aborted interaction');
      },
    });
    expect(run.code).toBe(EXIT.api);
    expect(run.stderr).toContain(
      'cloudcall: the sign-in was not granted (access_denied: End-User aborted interaction)\nhint: run cloudcall auth login again, and allow access in the browser',
    );
    expect(page.status).toBe(400);
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
  });

  it('auth remove revokes the refresh token at the provider, then forgets the context', async () => {
    const signed = await login(['--context', 'leaving']);
    expect(signed.run.code, signed.run.stderr).toBe(EXIT.ok);
    const refreshToken = stored().contexts.leaving?.oauth?.refreshToken as string;
    expect(await provider.provider.RefreshToken.find(refreshToken)).toBeDefined();
    const removed = await cli.run(['auth', 'remove', 'leaving']);
    expect(removed.code, removed.stderr).toBe(EXIT.ok);
    expect(removed.stderr).toBe(
      `cloudcall: removed context leaving, and its refresh token was revoked at ${provider.issuer}.\n`,
    );
    expect(await provider.provider.RefreshToken.find(refreshToken)).toBeUndefined();
    expect(stored().contexts).toEqual({});
  });

  it('auth remove forgets the context even when the provider cannot be reached, and says so', async () => {
    const signed = await login(['--context', 'offline']);
    expect(signed.run.code, signed.run.stderr).toBe(EXIT.ok);
    const config = stored();
    const offline = config.contexts.offline;
    if (!offline?.oauth) throw new Error('no grant saved');
    // A loopback port nothing listens on.
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    offline.oauth.issuer = nowhere;
    writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
    const removed = await cli.run(['auth', 'remove', 'offline']);
    expect(removed.code, removed.stderr).toBe(EXIT.ok);
    expect(removed.stderr).toBe(
      `cloudcall: removed context offline; its refresh token could not be revoked at ${nowhere} (the authorization server cannot be reached (ECONNREFUSED)).\n`,
    );
    expectNoSecrets(removed, config);
    expect(stored().contexts).toEqual({});
  });

  it('refuses an issuer that is not https (but for loopback) before contacting anything', async () => {
    for (const issuer of ['http://auth.example', 'ftp://127.0.0.1', 'not a url', 'https://a.example/?x=1']) {
      const run = await cli.run(['auth', 'login', '--no-browser', '--issuer', issuer]);
      expect(run.code, issuer).toBe(EXIT.input);
      expect(run.stderr).toMatch(/--issuer/);
    }
  });
});
