/**
 * The HTTP service's defaults, with no imports: main reads them on every start (flags.ts shows
 * them in the help), and loads service-config.ts (node:crypto, node:net) only with --transport http.
 */

export const DEFAULT_MAX_SESSIONS = 100;
export const DEFAULT_SESSION_IDLE_TIMEOUT_S = 900;

export const DEFAULT_GRACE_SECONDS = 25;

/** Requests to /mcp answered at once by one process; past it a request gets 503 and Retry-After. */
export const DEFAULT_MAX_IN_FLIGHT = 64;

// Fair share between the callers of a team service (issue 33): --max-in-flight-per-caller,
// --header-timeout, --body-timeout, --max-waits-per-caller, --max-wait-seconds,
// --max-event-store-bytes.

/**
 * A caller's share of --max-in-flight by default: a quarter of it (16 of 64), so that one caller,
 * whatever it sends, leaves three quarters of the process to everyone else.
 */
export const DEFAULT_CALLER_SHARE_DIVISOR = 4;
/** Seconds a request's headers may take to arrive (MCP clients send them in one packet). */
export const DEFAULT_HEADER_TIMEOUT_S = 10;
/** Seconds a request's body may take to arrive after its headers: 4 MiB at about 140 KB/s. */
export const DEFAULT_BODY_TIMEOUT_S = 30;
/** `wait` calls one caller may have in flight on one process. */
export const DEFAULT_MAX_WAITS_PER_CALLER = 4;
/**
 * The longest one `wait` call waits on a team service: under the 300 s proxy_read_timeout of the
 * shipped nginx settings (deploy/mcp-proxy.conf), so a wait's answer comes before the proxy gives
 * up on it; a longer wait is another call, which picks up where the last one stopped.
 */
export const DEFAULT_MAX_WAIT_SECONDS = 240;
/**
 * Bytes of SSE events kept for resuming streams, all sessions together: with --max-sessions 100
 * and 512 KiB a session, the store alone could otherwise hold 50 MiB.
 */
export const DEFAULT_MAX_EVENT_STORE_BYTES = 16 * 1024 * 1024;

/** --auth oauth: the platform's authorization server, the origin of its OAuth endpoints (doctl's /v1/oauth/...). */
export const DEFAULT_OAUTH_ISSUER = 'https://cloud.digitalocean.com';
