/**
 * Where the HTTP transport may listen, and its session defaults: a leaf module, so that main can
 * check --host without loading the transport (loaded only with --transport http).
 */
import { BlockList, isIP } from 'node:net';

export const DEFAULT_MAX_SESSIONS = 100;
export const DEFAULT_SESSION_IDLE_TIMEOUT_S = 900;

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** True for `localhost` and loopback addresses (127.0.0.0/8, ::1, also IPv4-mapped). */
export function isLoopback(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/** Why `host` may not be served on, or undefined when it may. */
export function bindProblem(host: string): string | undefined {
  if (isLoopback(host)) return undefined;
  return `--host ${host} is not a loopback address. cloudcall-mcp has no client authentication yet, so anyone who could reach it would run every tool with your API token. Serve on 127.0.0.1 (the default), ::1 or localhost; to use it from another machine, forward the port over SSH.`;
}
