/**
 * The HTTP service's flags as main parses and describes them, with no imports: main reads them on
 * every start, and loads service-config.ts (node:crypto, node:net) only with --transport http.
 */

export const DEFAULT_MAX_SESSIONS = 100;
export const DEFAULT_SESSION_IDLE_TIMEOUT_S = 900;

export const DEFAULT_GRACE_SECONDS = 25;

/** Requests to /mcp answered at once by one process; past it a request gets 503 and Retry-After. */
export const DEFAULT_MAX_IN_FLIGHT = 64;

/** parseArgs entries, spread into main's options (each also has its CLOUDCALL_ variable). */
export const SERVICE_OPTIONS = {
  stateless: { type: 'boolean' },
  auth: { type: 'string' },
  'client-keys': { type: 'string' },
  'audit-scope': { type: 'string' },
  'allowed-hosts': { type: 'string' },
  'allowed-origins': { type: 'string' },
  'grace-seconds': { type: 'string' },
  'max-in-flight': { type: 'string' },
} as const;

export const SERVICE_USAGE = `  --stateless              HTTP without sessions: every request stands alone, so
                           any replica behind a load balancer can answer it
                           (progress still streams in the call's answer; no
                           server-initiated requests, no --tool-mode dynamic)
  --auth none|static|token-passthrough
                           how HTTP clients authenticate (default none, loopback
                           only). token-passthrough: each request brings its
                           caller's API token as "Authorization: Bearer", used
                           for that request only. static: the server's token;
                           clients send a key listed in --client-keys
  --client-keys FILE       --auth static: one SHA-256 (hex) of a client key per
                           line, optionally followed by the key's name (what
                           audit lines call its caller); make one with:
                           printf %s KEY | sha256sum | sed "s/-$/alice/"
  --audit-scope own|all    --auth static: the audit lines audit-list shows a
                           client key: own (default), those of calls made with
                           that key, or all. token-passthrough: always own, after
                           the token is checked with the platform
  --allowed-hosts LIST     Host header values served (host or host:port, comma-
                           separated), instead of this server's loopback names
  --allowed-origins LIST   browser Origins allowed (such as https://app.example),
                           instead of loopback pages
  --grace-seconds N        on SIGTERM, stop accepting and give calls in flight
                           this long to finish, then exit 0 (default ${DEFAULT_GRACE_SECONDS})
  --max-in-flight N        MCP requests (POSTs to /mcp) answered at once, with or
                           without --stateless (default ${DEFAULT_MAX_IN_FLIGHT}); past it a
                           request gets 503 with Retry-After, so its client (or
                           the balancer) can try again or elsewhere
`;
