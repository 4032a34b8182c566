/**
 * The server's flags, in one table: main's parser (node:util parseArgs takes the table as its
 * options), the --help text, the CLOUDCALL_ variable of each flag, which flags only the HTTP
 * transport takes, and the docs table (docs/mcp-server-flags.md, written by
 * scripts/flags-doc.mjs; `pnpm generate` refreshes it). A leaf module: main reads it on every
 * start.
 */
import { DEFAULT_BASE_URL, TOKEN_ENV_VARS } from '@cloudcall/core/credentials';
import { wrapWords } from '@cloudcall/core/internal';
import {
  DEFAULT_BODY_TIMEOUT_S,
  DEFAULT_CALLER_SHARE_DIVISOR,
  DEFAULT_GRACE_SECONDS,
  DEFAULT_HEADER_TIMEOUT_S,
  DEFAULT_MAX_EVENT_STORE_BYTES,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_WAIT_SECONDS,
  DEFAULT_MAX_WAITS_PER_CALLER,
  DEFAULT_OAUTH_ISSUER,
  DEFAULT_SESSION_IDLE_TIMEOUT_S,
} from './service-flags.js';

export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export interface Flag {
  /** parseArgs: a flag with a value (string) or without (boolean). */
  type: 'string' | 'boolean';
  short?: string;
  /** parseArgs: repeatable, giving a list. */
  multiple?: boolean;
  /** How the value is shown after the flag in the help: `PORT`, `stdio|http`. */
  value?: string;
  /** One paragraph, wrapped when shown. */
  help: string;
  /** Only the HTTP transport takes it: refused as a flag with stdio, its variable ignored there. */
  http?: boolean;
  /** No CLOUDCALL_ variable stands for it (--help, --version). */
  noEnv?: boolean;
}

/** Every flag, in the order the help lists them. */
export const FLAGS = {
  transport: { type: 'string', value: 'stdio|http', help: 'stdio (default) or Streamable HTTP' },
  host: {
    type: 'string',
    value: 'HOST',
    http: true,
    help: 'HTTP interface (default 127.0.0.1); anything but loopback (127.0.0.0/8, ::1, localhost) needs --auth static, token-passthrough or oauth',
  },
  port: { type: 'string', value: 'PORT', http: true, help: 'HTTP port (default 3333; 0 picks a free one)' },
  'max-sessions': {
    type: 'string',
    value: 'N',
    http: true,
    help: `HTTP sessions open at once (default ${DEFAULT_MAX_SESSIONS}); past it a new session gets 503`,
  },
  'session-idle-timeout': {
    type: 'string',
    value: 'SECONDS',
    http: true,
    help: `close an HTTP session with no request or stream open for this long (default ${DEFAULT_SESSION_IDLE_TIMEOUT_S}, 15 min); its id then gets 404`,
  },
  stateless: {
    type: 'boolean',
    http: true,
    help: "HTTP without sessions: every request stands alone, so any replica behind a load balancer can answer it (progress still streams in the call's answer; no server-initiated requests, no --tool-mode dynamic)",
  },
  auth: {
    type: 'string',
    value: 'none|static|token-passthrough|oauth',
    http: true,
    help: "how HTTP clients authenticate (default none, loopback only). token-passthrough: each request brings its caller's API token as \"Authorization: Bearer\", used for that request only. oauth: the same, with a token the host signs in for itself at --oauth-issuer, found through this server's /.well-known/oauth-protected-resource (RFC 9728); a request without one gets 401 saying where. static: the server's token; clients send a key listed in --client-keys",
  },
  'oauth-issuer': {
    type: 'string',
    value: 'URL',
    http: true,
    help: `--auth oauth: the authorization server hosts sign in at (default ${DEFAULT_OAUTH_ISSUER}, the platform's); https, or http on loopback`,
  },
  'public-url': {
    type: 'string',
    value: 'URL',
    http: true,
    help: "--auth oauth: this server's MCP endpoint as clients reach it, such as https://mcp.example.com/mcp behind a proxy: the resource its metadata names (default: http://HOST/mcp from each request's Host)",
  },
  'client-keys': {
    type: 'string',
    value: 'FILE',
    http: true,
    help: '--auth static: one SHA-256 (hex) of a client key per line, optionally followed by the key\'s name (what audit lines call its caller); make one with: printf %s KEY | sha256sum | sed "s/-$/alice/"',
  },
  'audit-scope': {
    type: 'string',
    value: 'own|all',
    http: true,
    help: '--auth static: the audit lines audit-list shows a client key: own (default), those of calls made with that key, or all. token-passthrough and oauth: always own, after the token is checked with the platform',
  },
  'allowed-hosts': {
    type: 'string',
    value: 'LIST',
    http: true,
    help: "Host header values served (host or host:port, comma-separated), instead of this server's loopback names",
  },
  'allowed-origins': {
    type: 'string',
    value: 'LIST',
    http: true,
    help: 'browser Origins allowed (such as https://app.example), instead of loopback pages',
  },
  'grace-seconds': {
    type: 'string',
    value: 'N',
    http: true,
    help: `on SIGTERM, stop accepting and give calls in flight this long to finish, then exit 0 (default ${DEFAULT_GRACE_SECONDS})`,
  },
  'max-in-flight': {
    type: 'string',
    value: 'N',
    http: true,
    help: `MCP requests (POSTs to /mcp) answered at once, with or without --stateless (default ${DEFAULT_MAX_IN_FLIGHT}); past it a request gets 503 with Retry-After, so its client (or the balancer) can try again or elsewhere`,
  },
  // Fair share between callers (issue 33); defaults in service-flags.ts.
  'max-in-flight-per-caller': {
    type: 'string',
    value: 'N',
    http: true,
    help: `--auth static, token-passthrough or oauth: MCP requests answered at once for one caller (a client key, or a passed-through token), default a 1/${DEFAULT_CALLER_SHARE_DIVISOR} share of --max-in-flight (${Math.ceil(DEFAULT_MAX_IN_FLIGHT / DEFAULT_CALLER_SHARE_DIVISOR)} of ${DEFAULT_MAX_IN_FLIGHT}); past it that caller gets 503 with Retry-After, while other callers are still served`,
  },
  'header-timeout': {
    type: 'string',
    value: 'SECONDS',
    http: true,
    help: `a request's headers must arrive within this long (default ${DEFAULT_HEADER_TIMEOUT_S}), else 408 and the connection closes`,
  },
  'body-timeout': {
    type: 'string',
    value: 'SECONDS',
    http: true,
    help: `a request's body must arrive whole within this long after its headers (default ${DEFAULT_BODY_TIMEOUT_S}), else 408 and the connection closes; a body still arriving takes no place in --max-in-flight`,
  },
  'max-waits-per-caller': {
    type: 'string',
    value: 'N',
    http: true,
    help: `--auth static, token-passthrough or oauth: wait calls one caller may have in flight at once (default ${DEFAULT_MAX_WAITS_PER_CALLER}); past it a wait is refused (isError, error_id too_many_waits)`,
  },
  'max-wait-seconds': {
    type: 'string',
    value: 'SECONDS',
    http: true,
    help: `--auth static, token-passthrough or oauth: the longest one wait call waits (default ${DEFAULT_MAX_WAIT_SECONDS}, under the 300 s read timeout of the shipped nginx settings); a longer TimeoutSeconds is cut to it, and calling wait again resumes`,
  },
  'max-event-store-bytes': {
    type: 'string',
    value: 'N',
    http: true,
    help: `bytes (UTF-8) of the SSE events kept for clients to resume their streams, all sessions together (default ${DEFAULT_MAX_EVENT_STORE_BYTES}, 16 MiB; each session also keeps at most 512 KiB); past it the oldest events go first`,
  },
  'max-message-bytes': {
    type: 'string',
    value: 'N',
    help: `largest JSON-RPC message read, on a stdio line or an HTTP body (default ${DEFAULT_MAX_MESSAGE_BYTES}, 4 MiB); a larger one gets a JSON-RPC error and is skipped`,
  },
  'api-url': { type: 'string', value: 'URL', help: `API base URL (default ${DEFAULT_BASE_URL})` },
  sandbox: { type: 'boolean', help: 'use the built-in offline sandbox instead of the real API' },
  'sandbox-state': {
    type: 'string',
    value: 'FILE',
    help: "keep the sandbox's state in FILE (default: the file the cloudcall CLI's --sandbox uses, so both see the same world; :memory: keeps this run apart)",
  },
  families: {
    type: 'string',
    value: 'LIST',
    help: 'comma-separated families to serve, or all (default: account, databases, networking, vms, images, api; on request: kubernetes, registry, apps, monitoring, spaces)',
  },
  tools: {
    type: 'string',
    value: 'LIST',
    help: 'serve only these tools: names and globs, such as "vm-*,db-cluster-get-*" (comma- or space-separated)',
  },
  'exclude-tools': { type: 'string', value: 'LIST', help: 'do not serve these tools (names and globs)' },
  'read-only': {
    type: 'boolean',
    help: 'serve only tools that change nothing (readOnlyHint); api-call stays, taking GET and HEAD only',
  },
  'tool-mode': {
    type: 'string',
    value: 'static|dynamic',
    help: "static (default) lists every tool served; dynamic lists toolset-list and toolset-enable (and the api family's three tools), and adds families or tools as the client enables them (for hosts that cap the number of tools)",
  },
  'show-secrets': {
    type: 'boolean',
    help: 'include secrets (database passwords) in results; by default they are hidden',
  },
  confirm: {
    type: 'string',
    value: 'auto|never|always-refuse',
    help: "destructive tools: auto (default) asks a client with form elicitation to type the resource's name, runs them for other clients, and refuses them with --stateless (no session to ask on); never runs them without asking; always-refuse refuses them, whatever the client declares",
  },
  protect: {
    type: 'string',
    multiple: true,
    value: 'RULE',
    help: 'refuse every tool that would change a resource matching tag:NAME, name:NAME or id:ID; allow:TOOL lets a named tool through (repeatable, or a,b)',
  },
  policy: { type: 'string', value: 'FILE', help: 'JSON file of protection rules: {"protect": [...]}' },
  'audit-log': { type: 'string', value: 'FILE', help: 'append one JSON line per mutating call to FILE' },
  'confirm-ttl': {
    type: 'string',
    value: 'SECONDS',
    help: 'how long a confirmation question asked to a 2026-07-28 client stays answerable (default 300; more than 3600 counts as 3600); a later answer is refused and the call must be made again',
  },
  quota: {
    type: 'string',
    value: 'LIST',
    help: "limit each caller's requests that change something, such as writes=30/hour,deletes=5/minute: writes counts every mutating request, deletes those that destroy (also counted as writes); per minute, hour or day. One over a limit is refused before it is sent. Counted in this process unless --redis",
  },
  redis: {
    type: 'string',
    value: 'URL',
    help: 'keep what replicas share in Redis at URL (redis://HOST:6379): --quota counts and spent confirmation answers; while Redis cannot be reached, requests that change something are refused (reads go on)',
  },
  'request-state-key': {
    type: 'string',
    value: 'KEY',
    http: true,
    help: 'the secret (32 bytes or more: base64, hex or text) that seals the state of a confirmation question asked to a 2026-07-28 client, so that its answer may come to any replica holding the same key; by default a random key of this process',
  },
  'tasks-per-caller': {
    type: 'string',
    value: 'N',
    help: 'the most tasks (2026-07-28 clients) one caller may have working at once, on this server or with --redis across the replicas (default 10); one more is refused before anything is sent',
  },
  'task-keep': {
    type: 'string',
    value: 'SECONDS',
    help: "how long a task stays fetchable (tasks/get) after its wait's longest time, for its caller to collect its result (default 3600)",
  },
  quiet: { type: 'boolean', help: 'log only errors' },
  help: { type: 'boolean', short: 'h', noEnv: true, help: 'show this help' },
  version: { type: 'boolean', short: 'v', noEnv: true, help: 'show the version' },
} as const satisfies Record<string, Flag>;

export type FlagName = keyof typeof FLAGS;

const entries = Object.entries(FLAGS) as [FlagName, Flag][];

/** Flags that only the HTTP transport uses: refused on the command line with stdio. */
export const HTTP_ONLY: readonly FlagName[] = entries.filter(([, flag]) => flag.http).map(([name]) => name);

/** The environment variable standing for a flag: `--read-only` is CLOUDCALL_READ_ONLY. */
export function envName(flag: string): string {
  return `CLOUDCALL_${flag.toUpperCase().replaceAll('-', '_')}`;
}

/** The flag as written in the help and the docs: `--port PORT`, `-h, --help`. */
export function flagSyntax(name: string, flag: Flag): string {
  return `${flag.short ? `-${flag.short}, ` : ''}--${name}${flag.value ? ` ${flag.value}` : ''}`;
}

/** What the help says of the environment, after the options. */
export const ENV_HELP: readonly [string, string][] = [
  [TOKEN_ENV_VARS.join(', '), 'API token (one is required unless --sandbox)'],
  [
    'CLOUDCALL_<FLAG>',
    `every option, for hosts that pass only the environment: CLOUDCALL_READ_ONLY=1, CLOUDCALL_TOOLS="vm-*", CLOUDCALL_TOOL_MODE=dynamic... A flag wins over its variable. With stdio, the HTTP-only options (${HTTP_ONLY.map((name) => `--${name}`).join(', ')}) are refused as flags and their variables are ignored.`,
  ],
];

const WIDTH = 80;
const COLUMN = 27;

/** One entry of the help: the name in the left column, the text wrapped in the right one. */
function helpEntry(left: string, text: string): string {
  const [first = '', ...rest] = wrapWords(text, WIDTH - COLUMN);
  const pad = ' '.repeat(COLUMN);
  const head = `  ${left}`;
  const lines = head.length < COLUMN - 1 ? [`${head.padEnd(COLUMN)}${first}`] : [head, `${pad}${first}`];
  return [...lines, ...rest.map((line) => `${pad}${line}`)].join('\n');
}

/** The --help text. */
export function usage(version: string): string {
  return `cloudcall-mcp ${version}: cloudcall's tools over the Model Context Protocol

Usage: cloudcall-mcp [options]

Options:
${entries.map(([name, flag]) => helpEntry(flagSyntax(name, flag), flag.help)).join('\n')}

Environment:
${ENV_HELP.map(([name, text]) => helpEntry(name, text)).join('\n')}
`;
}
