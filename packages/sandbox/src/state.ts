/**
 * Where the sandbox keeps its world, shared by the apps: both `--sandbox` flags use the same file
 * by default, so what an agent creates through the MCP server a person sees with the CLI, and
 * `:memory:` keeps one run apart. Also what `cloudcall sandbox reset` and `status` do to a file.
 */
import { defaultSandboxStatePath } from '@cloudcall/core/credentials';
import { Store } from './store.js';
import { seedWorld, upgradeWorld, type World } from './world.js';

/** The `--sandbox-state` value that keeps the world in memory, apart from every other run. */
export const MEMORY_STATE = ':memory:';

/**
 * The shared state file: `cloudcall/sandbox.json` in the configuration directory
 * (`$XDG_CONFIG_HOME`, `%APPDATA%` on Windows, else `~/.config`). The apps pass their environment.
 */
export const defaultStatePath = defaultSandboxStatePath;

/** The variable that stands for `--sandbox-state` in both apps (the flag wins). */
export const STATE_ENV_VAR = 'CLOUDCALL_SANDBOX_STATE';

/**
 * The state file a `--sandbox-state` value names, else `CLOUDCALL_SANDBOX_STATE`: the shared
 * default when both are absent, none (memory) for `:memory:`, else the file given. One rule for
 * both apps, so a variable set for the MCP server points the CLI at the same world.
 */
export function statePathFor(
  flag: string | undefined,
  env: Record<string, string | undefined>,
): string | undefined {
  const value = flag ?? (env[STATE_ENV_VAR] || undefined);
  if (value === MEMORY_STATE) return undefined;
  return value ?? defaultStatePath(env);
}

/** Opens a state file (creating it, seeded, when new) without serving it. */
export async function openState(path: string | undefined): Promise<Store<World>> {
  const store = new Store<World>({ path, seed: () => seedWorld(), upgrade: upgradeWorld });
  await store.open();
  return store;
}

/** How many of each kind of thing the world holds, by the world's field names (`droplets: 2`). */
export function stateCounts(world: World): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [key, value] of Object.entries(world)) {
    if (Array.isArray(value)) counts[key] = value.length;
  }
  return counts;
}
