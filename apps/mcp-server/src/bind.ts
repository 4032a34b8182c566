/**
 * Where the HTTP transport may listen, and its session defaults: a leaf module, so that main can
 * check --host without loading the transport (loaded only with --transport http).
 */
import { BlockList, isIP } from 'node:net';

export { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_S } from './service-flags.js';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** True for `localhost` and loopback addresses (127.0.0.0/8, ::1, also IPv4-mapped). */
export function isLoopback(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Why `host` may not be served on with this client authentication, or undefined when it may:
 * anything but loopback needs clients to authenticate (`--auth static`, `token-passthrough` or `oauth`).
 */
export function bindProblem(host: string, auth = 'none'): string | undefined {
  if (isLoopback(host) || auth === 'static' || auth === 'token-passthrough' || auth === 'oauth')
    return undefined;
  return `--host ${host} is not a loopback address, and --auth ${auth} lets anyone who can reach it run every tool with the server's API token. Serve on 127.0.0.1 (the default), ::1 or localhost; or make clients authenticate with --auth oauth (each signs in at the authorization server), --auth token-passthrough (each brings their own API token) or --auth static --client-keys FILE.`;
}
