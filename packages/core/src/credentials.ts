/**
 * Where a token comes from. Apps pass their environment in: nothing below an app reads
 * `process.env` itself. A leaf module (`@cloudcall/core/credentials`): an app can check for a
 * token at start without loading the client.
 */

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
