/**
 * Where a token comes from. Apps pass their environment in: nothing below an app reads
 * `process.env` itself. A leaf module (`@cloudcall/core/credentials`): an app can check for a
 * token at start without loading the client.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The platform's API. */
export const DEFAULT_BASE_URL = 'https://api.digitalocean.com';

/** Environment variables holding a token, in order of preference. */
export const TOKEN_ENV_VARS = ['DIGITALOCEAN_API_TOKEN', 'DIGITALOCEAN_ACCESS_TOKEN'] as const;

export interface Credentials {
  token: string;
  /** Which variable or flag supplied it, for messages (never the token itself). */
  source: string;
}

/** The first token found in the given environment, or undefined. */
export function resolveCredentials(env: Record<string, string | undefined>): Credentials | undefined {
  for (const name of TOKEN_ENV_VARS) {
    const value = env[name]?.trim();
    if (value) return { token: value, source: name };
  }
  return undefined;
}

/**
 * cloudcall's configuration directory, where the CLI keeps its contexts (`config.json`) and the
 * apps their shared sandbox state (`sandbox.json`): `$XDG_CONFIG_HOME/cloudcall`, `%APPDATA%` on
 * Windows, else `~/.config/cloudcall`.
 */
export function configDirectory(
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): string {
  const base =
    env.XDG_CONFIG_HOME || (platform === 'win32' && env.APPDATA) || join(env.HOME || homedir(), '.config');
  return join(base, 'cloudcall');
}

/**
 * The sandbox state file both apps' `--sandbox` share by default: `sandbox.json` in the
 * configuration directory. Here, beside it, so an app can name it without loading the sandbox.
 */
export function defaultSandboxStatePath(
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform = process.platform,
): string {
  return join(configDirectory(env, platform), 'sandbox.json');
}
