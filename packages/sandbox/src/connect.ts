/**
 * A client wired to a sandbox: served on loopback (what the MCP server's `--sandbox` uses), or
 * answering in this process (what the CLI's `--sandbox` uses: one command, no server).
 */
import { ApiClient, type ClientOptions, type ToolClock } from '@cloudcall/core';
import { sleep } from '@cloudcall/core/internal';
import { type InProcessSandbox, openSandbox } from './in-process.js';
import type { SandboxCoreOptions } from './respond.js';
import { type Sandbox, type SandboxOptions, startSandbox } from './server.js';
import type { Store } from './store.js';
import type { World } from './world.js';

/** The token the apps send to their own sandbox; the sandbox accepts any bearer token. */
export const SANDBOX_TOKEN = 'sandbox-token';

export interface SandboxConnection<S = Sandbox> {
  client: ApiClient;
  sandbox: S;
  /** The sandbox's time, for waits: moving the sandbox clock forward moves it too. */
  clock: ToolClock;
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
    clock: await sandboxClock(sandbox.store, sandboxOptions.now),
    close: async () => {
      await client.close();
      await sandbox.close();
    },
  };
}

/**
 * Opens a sandbox in this process and returns a client whose requests it answers directly: the
 * same answers and state file as `connectSandbox`, without a server, a port or an HTTP client.
 */
export async function connectSandboxInProcess(
  options: SandboxCoreOptions & { client?: Omit<ClientOptions, 'token' | 'baseUrl' | 'dispatcher'> } = {},
): Promise<SandboxConnection<InProcessSandbox>> {
  const { client: clientOptions, ...sandboxOptions } = options;
  const sandbox = await openSandbox(sandboxOptions);
  const client = new ApiClient({
    ...clientOptions,
    token: SANDBOX_TOKEN,
    baseUrl: sandbox.url,
    dispatcher: sandbox.dispatcher,
  });
  return {
    client,
    sandbox,
    clock: await sandboxClock(sandbox.store, sandboxOptions.now),
    close: async () => {
      await client.close();
      await sandbox.close();
    },
  };
}

/** How often a sleeping sandbox clock looks whether another process moved the clock. */
const CLOCK_CHECK_MS = 100;

/**
 * The sandbox's time: the real clock plus the world's offset, read again at every look and while
 * sleeping, so that a test (in any process on the same state file) that moves the clock forward
 * ends a wait's pause at once, and a timeout comes when sandbox time passes it, not real time.
 * Reading the offset at every `now()` keeps a long-lived server's clock right: a wait that starts
 * after the clock moved counts from the moved time.
 */
export async function sandboxClock(store: Store<World>, now: () => number = Date.now): Promise<ToolClock> {
  let offset = 0;
  const current = () => {
    try {
      offset = store.peek((world) => world.clockOffsetMs);
    } catch {
      // A state file that cannot be read now keeps the last offset; the next request says why.
    }
    return now() + offset;
  };
  await store.read(() => undefined);
  return {
    now: current,
    async sleep(ms, signal) {
      const until = current() + ms;
      for (let left = ms; left > 0; left = until - current()) {
        await sleep(Math.min(CLOCK_CHECK_MS, left), signal);
      }
    },
  };
}
