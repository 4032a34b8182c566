/**
 * The HTTP service's defaults, with no imports: main reads them on every start (flags.ts shows
 * them in the help), and loads service-config.ts (node:crypto, node:net) only with --transport http.
 */

export const DEFAULT_MAX_SESSIONS = 100;
export const DEFAULT_SESSION_IDLE_TIMEOUT_S = 900;

export const DEFAULT_GRACE_SECONDS = 25;

/** Requests to /mcp answered at once by one process; past it a request gets 503 and Retry-After. */
export const DEFAULT_MAX_IN_FLIGHT = 64;
