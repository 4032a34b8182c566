/**
 * A client wired to an in-process sandbox: what the apps' `--sandbox` flag uses.
 */
import { ApiClient } from '@cloudcall/core';
import { startSandbox } from './server.js';
/** The token the apps send to their own sandbox; the sandbox accepts any bearer token. */
export const SANDBOX_TOKEN = 'sandbox-token';
/** Starts a sandbox on loopback and returns a client pointed at it. */
export async function connectSandbox(options = {}) {
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
