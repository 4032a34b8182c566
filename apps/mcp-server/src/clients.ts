/**
 * The API client each tool call uses: one client for the server's own token, or, with
 * `--auth token-passthrough`, a client per call for the token its HTTP request carried (over one
 * shared connection pool), so one caller's token never serves another's call. Core and undici
 * load with the first call.
 */
import type { ApiClient, ClientEvent } from '@cloudcall/core';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';

export interface ApiClients {
  client(auth?: AuthInfo): Promise<ApiClient>;
  close(): Promise<void>;
}

export interface ApiClientsOptions {
  /** The server's token; undefined passes each request's own token through. */
  token: string | undefined;
  baseUrl?: string | undefined;
  userAgentSuffix: string;
  onEvent?: ((event: ClientEvent) => void) | undefined;
}

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
  const makeFactory = () => core().then(({ createClientFactory }) => createClientFactory(shared));
  return {
    client: async (auth) => {
      if (!auth?.token) {
        throw new Error('this request carries no API token: send it as "Authorization: Bearer <token>"');
      }
      factory ??= makeFactory();
      return (await factory).client(auth.token);
    },
    close: async () => {
      if (factory) await (await factory).close();
    },
  };
}
