/**
 * Contexts: named tokens (and API URLs) kept in `$XDG_CONFIG_HOME/cloudcall/config.json`, as
 * doctl keeps its auth contexts. The file holds tokens, so it is created with mode 0600 (its
 * directory 0700) and replaced atomically: a temp file written and synced, then renamed over it.
 */
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { InputError } from '@cloudcall/core';
import { configDirectory, resolveCredentials, TOKEN_ENV_VARS } from '@cloudcall/core/credentials';
import { FileReadError, readBoundedFile } from '@cloudcall/core/internal';

export interface Context {
  /** The API token; for a context made by `auth login`, the current access token. */
  token: string;
  /** The API this context talks to, when not the platform's (a sandbox server, say). */
  apiUrl?: string;
  /** How `auth login` signed in, for refreshing `token` before it expires; none for `auth init`'s. */
  oauth?: OAuthGrant;
}

/**
 * What `auth login` keeps beside the access token: where it came from, the client it was issued
 * to (registered by the CLI itself, RFC 7591, unless `--client-id` named one), and how to get the
 * next one. Secrets, like the token: the file is the owner's alone.
 */
export interface OAuthGrant {
  /** The authorization server's issuer identifier. */
  issuer: string;
  clientId: string;
  /** When the registration gave the client a secret (a public client has none). */
  clientSecret?: string;
  refreshToken?: string;
  /** When the access token expires (ISO 8601), as the authorization server said; none: not said. */
  expiresAt?: string;
  /** The scopes granted, when the authorization server said. */
  scopes?: string[];
}

/** A token with less than this left is refreshed before a command uses it. */
export const REFRESH_MARGIN_MS = 60_000;

/** Whether a signed-in context's token is about to expire (or has): it is refreshed before use. */
export function expiresSoon(expiresAt: string | undefined, now = Date.now()): boolean {
  if (expiresAt === undefined) return false;
  const at = Date.parse(expiresAt);
  return !Number.isFinite(at) || at - now < REFRESH_MARGIN_MS;
}

/**
 * The authorization server refused a sign-in or a refresh, or answered something no client can
 * use: reported with a hint (sign in again) and exit code 3, as an API refusal.
 */
export class SignInError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'SignInError';
  }
}

export interface Config {
  /** The context used when no `--context` is given. */
  current?: string;
  contexts: Record<string, Context>;
}

export const DEFAULT_CONTEXT = 'default';

/**
 * The platform's authorization server, where `auth login` signs in by default: the origin of
 * doctl's OAuth endpoints (/v1/oauth/...).
 */
export const DEFAULT_ISSUER = 'https://cloud.digitalocean.com';

export function configPath(env: Record<string, string | undefined>): string {
  return join(configDirectory(env), 'config.json');
}

/** The largest config file read: a context is a token and a URL, a few hundred bytes. */
export const CONFIG_MAX_BYTES = 1024 * 1024;

/**
 * The configuration, or an empty one when there is no file yet. Only a regular file of at most
 * CONFIG_MAX_BYTES is read: a FIFO (which would hang every command), a device or a directory is
 * an input error naming the file.
 */
export function readConfig(path: string): Config {
  let text: string;
  try {
    text = readBoundedFile(path, CONFIG_MAX_BYTES);
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    if (error.code === 'ENOENT') return { contexts: {} };
    throw new InputError(`config file ${path}: ${error.message}; fix or remove it`);
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

/**
 * The directory the config file lives in, made with mode 0700 when missing and tightened to 0700
 * when it exists with more (the sandbox, or an older cloudcall, may have made it 0755): the
 * file holds tokens, and its temp files and lock are made there.
 */
function privateDirectory(path: string): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32' && (statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** Replaces the file atomically, readable and writable by its owner only. */
export function writeConfig(path: string, config: Config): void {
  privateDirectory(path);
  // Web Crypto's random bytes (node:crypto is not loaded for the commands that only read).
  const temp = `${path}.${Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString('hex')}.tmp`;
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

/**
 * Reads the config, applies `change` and writes it back (atomically), holding the file's lock
 * (`config.json.lock`) the whole time, so that concurrent commands (eight `auth init` at once)
 * each see the others' changes instead of overwriting them. A lock left by a process that died
 * is taken over once stale (10 s without an update); waiting for a live one gives up after
 * about 10 s with an error naming the lock. `change` may be async (a token refreshed while the
 * lock is held, so that two commands never spend one refresh token): the lock is kept fresh meanwhile.
 */
export async function updateConfig<T>(path: string, change: (config: Config) => T | Promise<T>): Promise<T> {
  privateDirectory(path);
  const { lock } = await import('proper-lockfile');
  let release: () => Promise<void>;
  try {
    release = await lock(path, {
      realpath: false,
      stale: 10_000,
      retries: { retries: 60, factor: 1.2, minTimeout: 10, maxTimeout: 250, randomize: true },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    throw new InputError(
      `${path} is being changed by another cloudcall (its lock ${path}.lock is held); try again, or remove the lock if no cloudcall is running`,
      'config',
    );
  }
  try {
    const config = readConfig(path);
    const result = await change(config);
    writeConfig(path, config);
    return result;
  } finally {
    await release();
  }
}

export interface ResolvedToken {
  token: string;
  /** Where it came from, for messages: a variable, `--token`, or `context NAME`. */
  source: string;
  apiUrl?: string | undefined;
  /** The context that gave the token, when one did. */
  context?: string;
  /** For a context made by `auth login`: when its token expires, so that it is refreshed first. */
  expiresAt?: string | undefined;
  /** That context can refresh its token (it was made by `auth login`). */
  refreshable?: boolean;
  /** Said on stderr: a token given that a higher source overrides. */
  note?: string;
}

/**
 * The token to use, and the API it goes to. What is named on the command line comes first, as
 * doctl users expect: `-t/--token`, then `--context NAME`; then the environment
 * (DIGITALOCEAN_API_TOKEN, then DIGITALOCEAN_ACCESS_TOKEN); then the current context. A context
 * brings its API URL, which nothing replaces silently: a context named with `--context` keeps
 * it even beside `--token`, and a current context set aside for the environment's token is said
 * in a note. A `--context` that names no context is an input error.
 */
export function resolveToken(
  env: Record<string, string | undefined>,
  flags: { token?: string | undefined; context?: string | undefined },
): ResolvedToken | undefined {
  const flagToken = flags.token?.trim();
  const named = flags.context === undefined ? undefined : namedContext(env, flags.context);
  if (flagToken) {
    return {
      token: flagToken,
      source: '--token',
      ...(named?.context.apiUrl ? { apiUrl: named.context.apiUrl } : {}),
    };
  }
  if (named) return fromContext(named.name, named.context);
  const fromEnv = resolveCredentials(env);
  // With a token in the environment, a config file that cannot be read only loses the note.
  let config: Config = { contexts: {} };
  try {
    config = readConfig(configPath(env));
  } catch (error) {
    if (!fromEnv) throw error;
  }
  const current = config.current === undefined ? undefined : config.contexts[config.current];
  if (fromEnv) {
    return {
      ...fromEnv,
      note: current
        ? `using the token from ${fromEnv.source}, not the current context ${config.current}${current.apiUrl ? `; it goes to the platform's API, not ${current.apiUrl}` : ''}; pass --context ${config.current} to use the context`
        : undefined,
    };
  }
  if (!current) return undefined;
  return fromContext(config.current as string, current);
}

function fromContext(name: string, context: Context): ResolvedToken {
  return {
    token: context.token,
    source: `context ${name}`,
    apiUrl: context.apiUrl,
    context: name,
    ...(context.oauth ? { refreshable: true, expiresAt: context.oauth.expiresAt } : {}),
  };
}

/** The context `name` names in the config file; an input error listing the known ones if none. */
function namedContext(
  env: Record<string, string | undefined>,
  name: string,
): { name: string; context: Context } {
  const config = readConfig(configPath(env));
  const context = config.contexts[name];
  if (context) return { name, context };
  const known = Object.keys(config.contexts);
  throw new InputError(
    `no context named ${JSON.stringify(name)}${known.length ? ` (there are: ${known.join(', ')})` : ''}; cloudcall auth init --context ${name} adds it`,
    'context',
  );
}

/** Where a token can come from, for the message when there is none. */
export const TOKEN_SOURCES = `Set ${TOKEN_ENV_VARS[0]} (or ${TOKEN_ENV_VARS[1]}), pass -t/--token, or run "cloudcall auth login" (or "cloudcall auth init" with a token)`;
