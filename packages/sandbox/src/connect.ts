/**
 * A client wired to an in-process sandbox: what the apps' `--sandbox` flag uses.
 */
import { ApiClient, type ClientOptions } from '@cloudcall/core';
import { type Sandbox, type SandboxOptions, startSandbox } from './server.js';

/** The token the apps send to their own sandbox; the sandbox accepts any bearer token. */
export const SANDBOX_TOKEN = 'sandbox-token';

export interface SandboxConnection {
  client: ApiClient;
  sandbox: Sandbox;
  close(): Promise<void>;
}

/** Starts a sandbox on loopback and returns a client pointed at it. */
export async function connectSandbox(
  options: SandboxOptions & { client?: Omit<ClientOptions, 'token' | 'baseUrl'> } = {},
): Promise<SandboxConnection> {
  const { client: clientOptions, ...sandboxOptions } = options;
  const sandbox = await startSandbox(sandboxOptions);
  const client = new ApiClient({ ...clientOptions, token: SANDBOX_TOKEN, baseUrl: sandbox.url });
  return {
    client,
    sandbox,
    close: async () => {
      await client.close();
      await sandbox.close();
    },
  };
}
