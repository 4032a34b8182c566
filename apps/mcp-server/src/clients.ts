/**
 * The API client each tool call uses: one client for the server's own token, or, with
 * `--auth token-passthrough`, a client for the token each HTTP request carries (over one shared
 * connection pool, kept for that token's later requests), so one caller's token never serves another's call. Core and undici
 * load with the first call.
 */
import type { ApiClient, ClientEvent } from '@cloudcall/core';
import type { AuthInfo } from '@modelcontextprotocol/server';

export interface ApiClients {
  client(auth?: AuthInfo): Promise<ApiClient>;
  /**
   * Passed-through tokens only: checks the request's token with the platform (GET /v2/account)
   * unless it passed within the last minute; throws the platform's error when it is refused.
   */
  checkToken?(auth?: AuthInfo): Promise<void>;
  close(): Promise<void>;
}

/** How long a token the platform accepted is taken as good without asking again. */
export const TOKEN_CHECK_TTL_MS = 60_000;
/** Tokens remembered as checked at most; past it the oldest is forgotten. */
const CHECKED_TOKENS = 10_000;

export interface ApiClientsOptions {
  /** The server's token; undefined passes each request's own token through. */
  token: string | undefined;
  baseUrl?: string | undefined;
  userAgentSuffix: string;
  onEvent?: ((event: ClientEvent) => void) | undefined;
  /** What sends the requests (core's `transport`): undici's pool by default. */
  transport?: 'pool' | 'node' | 'socket' | undefined;
}

/** Callers' clients kept at once with --auth token-passthrough (each is a few hundred bytes). */
const MAX_CLIENTS = 1000;

export function apiClients(options: ApiClientsOptions): ApiClients {
  const { token, ...shared } = options;
  const core = () => import('@cloudcall/core');
  if (token !== undefined) {
    let made: Promise<ApiClient> | undefined;
    return {
      client: () => (made ??= core().then(({ createClient }) => createClient({ ...shared, token }))),
      close: async () => {
        if (made) await (await made).close();
      },
    };
  }
  let factory: ReturnType<typeof makeFactory> | undefined;
  const byToken = new Map<string, ApiClient>();
  const makeFactory = () => core().then(({ createClientFactory }) => createClientFactory(shared));
  const client = async (auth?: AuthInfo) => {
    if (!auth?.token) {
      throw new Error('this request carries no API token: send it as "Authorization: Bearer <token>"');
    }
    // One client per token, kept for the token's next requests (its rate-limit budget with
    // it), the least recently used dropped past MAX_CLIENTS: a caller's calls make no client each.
    const kept = byToken.get(auth.token);
    if (kept) {
      byToken.delete(auth.token);
      byToken.set(auth.token, kept);
      return kept;
    }
    factory ??= makeFactory();
    const made = (await factory).client(auth.token);
    byToken.set(auth.token, made);
    if (byToken.size > MAX_CLIENTS) byToken.delete(byToken.keys().next().value as string);
    return made;
  };
  /** SHA-256 of a token checked -> until when it counts as good (the token itself is never kept). */
  const checked = new Map<string, number>();
  return {
    client,
    checkToken: async (auth) => {
      const api = await client(auth);
      // node:crypto loads here, not at start: a stdio server, which passes no tokens through, needs none of it.
      const { createHash } = await import('node:crypto');
      const key = createHash('sha256')
        .update(auth?.token ?? '', 'utf8')
        .digest('hex');
      const until = checked.get(key);
      if (until !== undefined && until > Date.now()) return;
      checked.delete(key);
      await api.send({ method: 'GET', path: '/v2/account' });
      if (checked.size >= CHECKED_TOKENS) checked.delete(checked.keys().next().value as string);
      checked.set(key, Date.now() + TOKEN_CHECK_TTL_MS);
    },
    close: async () => {
      if (factory) await (await factory).close();
    },
  };
}
