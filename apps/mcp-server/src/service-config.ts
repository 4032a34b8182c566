/**
 * The flags that make the HTTP transport a team service: stateless replicas, client
 * authentication, the Host and Origin lists behind a proxy, the shutdown grace period. A leaf
 * module: main checks them before loading the transport, and a bad value stops start-up.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { FileReadError, readBoundedFile } from '@cloudcall/core/internal';
import { CALLER_PREFIXES } from '@cloudcall/guard';
import { bindProblem } from './bind.js';
import type { FlagName } from './flags.js';
import { checkedUrl, DEFAULT_OAUTH_ISSUER, issuerId, type OAuthResource } from './oauth-resource.js';
import {
  DEFAULT_BODY_TIMEOUT_S,
  DEFAULT_CALLER_SHARE_DIVISOR,
  DEFAULT_GRACE_SECONDS,
  DEFAULT_HEADER_TIMEOUT_S,
  DEFAULT_MAX_EVENT_STORE_BYTES,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_WAIT_SECONDS,
  DEFAULT_MAX_WAITS_PER_CALLER,
} from './service-flags.js';

export const AUTH_MODES = ['none', 'static', 'token-passthrough', 'oauth'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export interface ServiceSettings extends FairShareSettings {
  stateless: boolean;
  auth: AuthMode;
  /** The client keys: their SHA-256 digests and names (--auth static). */
  clientKeys: ClientKey[];
  /**
   * The audit lines audit-list shows a caller: `own` (its own caller id's) for client keys by
   * default and for passed-through tokens always; `all` with --auth none (one local user).
   */
  auditScope: 'all' | 'own';
  /** Lower-case Host values served; undefined: this server's own loopback names. */
  allowedHosts: string[] | undefined;
  /** Origins allowed; undefined: loopback pages. */
  allowedOrigins: string[] | undefined;
  graceMs: number;
  /** POSTs to /mcp answered at once; past it 503 with Retry-After. */
  maxInFlight: number;
  /** --auth oauth: the authorization server, and this server's public URL (oauth-resource.ts). */
  oauth: OAuthResource | undefined;
}

/** How callers share a process (fairShareSettings). */
export interface FairShareSettings {
  /** Requests carrying calls answered at once for one caller (callerOf); all of them with --auth none. */
  maxInFlightPerCaller: number;
  /** Time for a request's headers to arrive, from its first byte. */
  headerTimeoutMs: number;
  /** Time for a request's body to arrive whole, from its headers. */
  bodyTimeoutMs: number;
  /** `wait` per caller: calls in flight and seconds each; none with --auth none (one caller). */
  waits: { perCaller: number; maxSeconds: number } | undefined;
  /** Bytes of SSE events kept for resuming streams, all sessions together. */
  maxEventStoreBytes: number;
}

type Flags = { [flag in Exclude<FlagName, 'protect'>]?: string | boolean | undefined };

/** The service settings from the flags, or an Error saying what is wrong with them. */
export function serviceSettings(flags: Flags, host: string): ServiceSettings {
  const auth = (flags.auth ?? 'none') as AuthMode;
  if (!AUTH_MODES.includes(auth))
    throw new Error(`--auth must be ${AUTH_MODES.join(', ')}, not ${flags.auth}`);
  const problem = bindProblem(host, auth);
  if (problem) throw new Error(problem);
  const stateless = flags.stateless === true;
  if (stateless && flags['tool-mode'] === 'dynamic') {
    throw new Error(
      '--tool-mode dynamic keeps the tools each session enabled in that process, which --stateless has not: drop one of them',
    );
  }
  const keysFile = flags['client-keys'];
  if ((auth === 'static') !== (typeof keysFile === 'string')) {
    throw new Error(
      auth === 'static'
        ? '--auth static needs --client-keys FILE: the SHA-256 (hex) of each client key, one per line'
        : '--client-keys is for --auth static',
    );
  }
  const scope = flags['audit-scope'];
  if (scope !== undefined && scope !== 'own' && scope !== 'all') {
    throw new Error(`--audit-scope must be own or all, not ${scope}`);
  }
  if (scope !== undefined && auth !== 'static') {
    throw new Error(
      auth === 'none'
        ? '--audit-scope is for --auth static: with --auth none every caller is the one local user, who reads every line'
        : `--audit-scope is for --auth static: a --auth ${auth} caller reads only its own audit lines`,
    );
  }
  const oauth = oauthResource(flags, auth);
  const grace = flags['grace-seconds'] ?? String(DEFAULT_GRACE_SECONDS);
  if (typeof grace !== 'string' || !/^\d+$/.test(grace) || Number(grace) > 3600) {
    throw new Error(`--grace-seconds must be a whole number of seconds up to 3600, not ${grace}`);
  }
  const maxInFlight = flags['max-in-flight'] ?? String(DEFAULT_MAX_IN_FLIGHT);
  if (typeof maxInFlight !== 'string' || !/^\d+$/.test(maxInFlight) || !(Number(maxInFlight) >= 1)) {
    throw new Error(`--max-in-flight must be a whole number of requests, at least 1, not ${maxInFlight}`);
  }
  const inFlightCap = Math.min(Number(maxInFlight), Number.MAX_SAFE_INTEGER);
  return {
    stateless,
    auth,
    clientKeys: typeof keysFile === 'string' ? readClientKeys(keysFile) : [],
    auditScope: auth === 'none' ? 'all' : ((scope as 'own' | 'all' | undefined) ?? 'own'),
    allowedHosts: list(flags['allowed-hosts'], '--allowed-hosts', (name) => {
      if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(name)) return 'a host or host:port';
    }),
    allowedOrigins: list(flags['allowed-origins'], '--allowed-origins', (origin) => {
      if (!/^https?:\/\//.test(origin) || safeUrl(origin)?.origin !== origin)
        return 'an origin such as https://app.example';
    }),
    graceMs: Number(grace) * 1000,
    maxInFlight: inFlightCap,
    oauth,
    ...fairShareSettings(flags, auth, inFlightCap),
  };
}

/**
 * --auth oauth's settings: the authorization server (--oauth-issuer, the platform's by default)
 * and the URL clients reach this server at (--public-url; behind a proxy, the proxy's), both
 * https or loopback http. Either flag without --auth oauth is refused.
 */
function oauthResource(flags: Flags, auth: AuthMode): OAuthResource | undefined {
  const issuer = flags['oauth-issuer'];
  const publicUrl = flags['public-url'];
  if (auth !== 'oauth') {
    const given =
      issuer !== undefined ? '--oauth-issuer' : publicUrl !== undefined ? '--public-url' : undefined;
    if (given) throw new Error(`${given} is for --auth oauth (this is --auth ${auth})`);
    return undefined;
  }
  return {
    issuer: issuerId(
      checkedUrl(
        typeof issuer === 'string' ? issuer : DEFAULT_OAUTH_ISSUER,
        '--oauth-issuer',
        DEFAULT_OAUTH_ISSUER,
      ),
    ),
    publicUrl:
      typeof publicUrl === 'string'
        ? checkedUrl(publicUrl, '--public-url', 'https://mcp.example.com/mcp')
        : undefined,
  };
}

/** The flags that only mean something where callers are told apart (--auth static, token-passthrough). */
const PER_CALLER_FLAGS = ['max-in-flight-per-caller', 'max-waits-per-caller', 'max-wait-seconds'] as const;

/**
 * How callers share this process: each caller's part of --max-in-flight and of `wait`, and how
 * long a request may take to arrive. Per-caller limits need callers told apart: with --auth none
 * every request is the one local user's, and their flags are refused.
 */
function fairShareSettings(flags: Flags, auth: AuthMode, maxInFlight: number): FairShareSettings {
  const team = auth !== 'none';
  const given = PER_CALLER_FLAGS.find((flag) => flags[flag] !== undefined);
  if (!team && given) {
    throw new Error(
      `--${given} is for --auth static, token-passthrough or oauth: with --auth none every caller is the one local user`,
    );
  }
  const share = wholeFlag(
    flags,
    'max-in-flight-per-caller',
    Math.ceil(maxInFlight / DEFAULT_CALLER_SHARE_DIVISOR),
    1,
    'requests',
  );
  if (share > maxInFlight) {
    throw new Error(
      `--max-in-flight-per-caller ${share} is more than --max-in-flight ${maxInFlight}: one caller's share is part of the whole`,
    );
  }
  const seconds = (flag: Exclude<FlagName, 'protect'>, fallback: number) =>
    wholeFlag(flags, flag, fallback, 1, 'seconds', 86_400);
  return {
    maxInFlightPerCaller: team ? share : maxInFlight,
    headerTimeoutMs: seconds('header-timeout', DEFAULT_HEADER_TIMEOUT_S) * 1000,
    bodyTimeoutMs: seconds('body-timeout', DEFAULT_BODY_TIMEOUT_S) * 1000,
    waits: team
      ? {
          perCaller: wholeFlag(flags, 'max-waits-per-caller', DEFAULT_MAX_WAITS_PER_CALLER, 1, 'calls'),
          maxSeconds: seconds('max-wait-seconds', DEFAULT_MAX_WAIT_SECONDS),
        }
      : undefined,
    maxEventStoreBytes: wholeFlag(
      flags,
      'max-event-store-bytes',
      DEFAULT_MAX_EVENT_STORE_BYTES,
      1024,
      'bytes',
    ),
  };
}

/** A flag's whole-number value, from `min` to `max`, or `fallback` when not given. */
function wholeFlag(
  flags: Flags,
  flag: Exclude<FlagName, 'protect'>,
  fallback: number,
  min: number,
  unit: string,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const value = flags[flag];
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    const most = max === Number.MAX_SAFE_INTEGER ? '' : ` and at most ${max}`;
    throw new Error(`--${flag} must be a whole number of ${unit}, at least ${min}${most}, not ${value}`);
  }
  return Number(value);
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function list(
  value: string | boolean | undefined,
  flag: string,
  problem: (item: string) => string | undefined,
): string[] | undefined {
  if (typeof value !== 'string') return undefined;
  const items = value
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((item) => item.toLowerCase());
  if (!items.length) throw new Error(`${flag} needs at least one value`);
  for (const item of items) {
    const wrong = problem(item);
    if (wrong) throw new Error(`${flag}: ${JSON.stringify(item)} is not ${wrong}`);
  }
  return items;
}

/**
 * What a passed-through API token goes by, both from one SHA-256 of it, neither usable as a
 * token: `clientId`, its caller as audit lines name it (`token:` and the first 12 hex digits),
 * and `owner`, the whole digest, which tells callers apart for sessions and cancellation.
 */
export function tokenNames(token: string): { owner: string; clientId: string } {
  const digest = createHash('sha256').update(token, 'utf8').digest();
  return { owner: digest.toString('base64url'), clientId: `token:${digest.toString('hex').slice(0, 12)}` };
}

/** One accepted client key: the SHA-256 of the key, and the name its calls are audited under. */
export interface ClientKey {
  digest: Buffer;
  /** The name after the digest on its line, else `key:` and the digest's first 12 hex digits. */
  name: string;
}

const KEY_NAME = /^[\w.@:+-]{1,64}$/;

/** The largest client-keys file read: about 10,000 digests with names. */
export const CLIENT_KEYS_MAX_BYTES = 1024 * 1024;

/**
 * The keys in a client-keys file: per line, 64 hex digits (the SHA-256 of a key) and optionally
 * a name for it (letters, digits, `._@:+-`), as `sha256sum` prints a digest and a file name;
 * blank lines and # comments skipped.
 */
export function readClientKeys(file: string): ClientKey[] {
  let text: string;
  try {
    text = readBoundedFile(file, CLIENT_KEYS_MAX_BYTES);
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    const advice = error.reason === 'unreadable' ? '' : '; give a text file of key digests';
    throw new Error(`--client-keys ${file}: ${error.message}${advice}`);
  }
  const keys: ClientKey[] = [];
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const [hex = '', name, ...rest] = line.split(/\s+/);
    // Only the line number: a plain key pasted here by mistake must not reach the log.
    if (!/^[0-9a-f]{64}$/i.test(hex)) {
      throw new Error(
        `--client-keys ${file} line ${index + 1} is not a SHA-256 in hex (64 hex digits); store the digest of each key, never the key: printf %s KEY | sha256sum`,
      );
    }
    if (rest.length || (name !== undefined && !KEY_NAME.test(name))) {
      throw new Error(
        `--client-keys ${file} line ${index + 1}: after the digest comes at most one name, of letters, digits and ._@:+- (up to 64)`,
      );
    }
    const taken = CALLER_PREFIXES.find((prefix) => name?.toLowerCase().startsWith(prefix));
    if (taken) {
      throw new Error(
        `--client-keys ${file} line ${index + 1}: a key's name may not start with ${taken} (the apps name other callers so; the key would read their audit lines)`,
      );
    }
    const digest = Buffer.from(hex, 'hex');
    keys.push({ digest, name: name ?? `key:${hex.slice(0, 12).toLowerCase()}` });
  }
  if (!keys.length) throw new Error(`--client-keys ${file} has no keys`);
  const names = keys.map((key) => key.name);
  const twice = names.find((name, at) => names.indexOf(name) !== at);
  if (twice) throw new Error(`--client-keys ${file}: the name ${twice} is given to two keys`);
  return keys;
}

/**
 * The key `presented` hashes to, or undefined. Every digest is compared, in constant time, so
 * the answer's timing says nothing about which key or how much of it matched.
 */
export function acceptedKey(presented: string, keys: readonly ClientKey[]): ClientKey | undefined {
  const digest = createHash('sha256').update(presented, 'utf8').digest();
  let accepted: ClientKey | undefined;
  for (const key of keys) if (timingSafeEqual(digest, key.digest)) accepted = key;
  return accepted;
}
