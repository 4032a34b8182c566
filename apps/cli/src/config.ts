/**
 * Contexts: named tokens (and API URLs) kept in `$XDG_CONFIG_HOME/cloudcall/config.json`, as
 * doctl keeps its auth contexts. The file holds tokens, so it is created with mode 0600 (its
 * directory 0700) and replaced atomically: a temp file written and synced, then renamed over it.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { configDirectory, InputError, resolveCredentials, TOKEN_ENV_VARS } from '@cloudcall/core';

export interface Context {
  token: string;
  /** The API this context talks to, when not the platform's (a sandbox server, say). */
  apiUrl?: string;
}

export interface Config {
  /** The context used when no `--context` is given. */
  current?: string;
  contexts: Record<string, Context>;
}

export const DEFAULT_CONTEXT = 'default';

export function configPath(env: Record<string, string | undefined>): string {
  return join(configDirectory(env), 'config.json');
}

/** The configuration, or an empty one when there is no file yet. */
export function readConfig(path: string): Config {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { contexts: {} };
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InputError(`${path} is not valid JSON; fix or remove it`);
  }
  const config = parsed as Partial<Config> | null;
  if (!config || typeof config !== 'object' || typeof config.contexts !== 'object' || !config.contexts) {
    throw new InputError(`${path} holds no "contexts" object; fix or remove it`);
  }
  return { current: config.current, contexts: config.contexts };
}

/** Replaces the file atomically, readable and writable by its owner only. */
export function writeConfig(path: string, config: Config): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(config, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

export interface ResolvedToken {
  token: string;
  /** Where it came from, for messages: a variable, `--token`, or `context NAME`. */
  source: string;
  apiUrl?: string | undefined;
  /** Said on stderr: a token given that a higher source overrides. */
  note?: string;
}

/**
 * The token to use. Precedence: the environment (DIGITALOCEAN_API_TOKEN, then
 * DIGITALOCEAN_ACCESS_TOKEN), then `-t/--token`, then the context (`--context NAME`, else the
 * current one). A `--context` that names no context is an input error.
 */
export function resolveToken(
  env: Record<string, string | undefined>,
  flags: { token?: string | undefined; context?: string | undefined },
): ResolvedToken | undefined {
  const fromEnv = resolveCredentials(env);
  const overridden = [flags.token ? '--token' : undefined, flags.context ? '--context' : undefined].filter(
    Boolean,
  );
  if (fromEnv) {
    return {
      ...fromEnv,
      note: overridden.length
        ? `using the token from ${fromEnv.source}, which comes before ${overridden.join(' and ')}`
        : undefined,
    };
  }
  const flagToken = flags.token?.trim();
  if (flagToken) return { token: flagToken, source: '--token' };
  const path = configPath(env);
  const config = readConfig(path);
  const name = flags.context ?? config.current;
  if (name === undefined) return undefined;
  const context = config.contexts[name];
  if (!context) {
    if (flags.context === undefined) return undefined;
    const known = Object.keys(config.contexts);
    throw new InputError(
      `no context named ${JSON.stringify(name)}${known.length ? ` (there are: ${known.join(', ')})` : ''}; cloudcall auth init --context ${name} adds it`,
      'context',
    );
  }
  return { token: context.token, source: `context ${name}`, apiUrl: context.apiUrl };
}

/** Where a token can come from, for the message when there is none. */
export const TOKEN_SOURCES = `Set ${TOKEN_ENV_VARS[0]} (or ${TOKEN_ENV_VARS[1]}), pass -t/--token, or run "cloudcall auth init"`;
