/**
 * cloudcall-mcp: flags and environment -> API client -> tools -> stdio or Streamable HTTP.
 * stdout carries JSON-RPC on stdio, so everything the server says goes to stderr.
 */
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
// Start-up loads only what answering initialize and tools/list needs: the build-time listing and,
// on stdio, the early answers of handshake.ts. The MCP SDK loads when a message needs it (plain
// calls do not); the tool runner, the API client and a tool's family once the tool list is out or
// with the first call; the sandbox only with --sandbox, the HTTP transport only with
// --transport http.
import { chooseFamilies, parseToolList, selectTools } from '@cloudcall/catalog/select';
import type { ApiClient, ToolClock } from '@cloudcall/core';
import { DEFAULT_BASE_URL, resolveCredentials, TOKEN_ENV_VARS } from '@cloudcall/core/credentials';
import type { AuthInfo, JSONRPCMessage } from '@modelcontextprotocol/server';
import packageJson from '../package.json' with { type: 'json' };
import { apiClients } from './clients.js';
import { sessionCalls } from './fast-call.js';
import { DEFAULT_MAX_MESSAGE_BYTES, envName, FLAGS, HTTP_ONLY, usage } from './flags.js';
import { type AskingServer, type ServerGuard, startGuard } from './guard.js';
import { EarlyStdio } from './handshake.js';
import { defaultToolsListBytes, LISTING, toolsListBytes } from './listing.generated.js';
import { memorySpent, QUESTION_TTL_MS, redisSpent, stateKey, stateSeal } from './request-state.js';
import type { McpServerOptions, ToolMode } from './server.js';
import type { ServiceSettings } from './service-config.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_S } from './service-flags.js';
import { lowerHelperThreads, threadIds } from './thread-priority.js';
import type { ToolCall } from './tool-call.js';
import { familiesByDefault, listingOf, type ToolData } from './tool-data.js';
import { promotingFirstCall, youngCollector } from './young-generation.js';

const VERSION = packageJson.version;

/** What the server runs with: the process's (main.ts), or a test's in this process. */
export interface ServerIo {
  /** The arguments, without node and the script. */
  argv: string[];
  env: Record<string, string | undefined>;
  /** stdin and stdout carry JSON-RPC on stdio. */
  stdin: Readable;
  stdout: Writable;
  /** Everything the server says; the JSON log over HTTP too. */
  stderr: Writable;
  /** Ends the server with this exit code (process.exit in the process). */
  exit: (code: number) => void;
  /** Called with the server's orderly shutdown, which SIGINT and SIGTERM start. */
  onSignal: (shutdown: () => Promise<void>) => void;
  /** The URL of the entry a host starts (dist/main.js), for the connection help. */
  entry: string;
  /**
   * The server is this process (main.ts), not a test's: over stdio it sets V8's heap flags
   * (STDIO_HEAP_FLAGS), and call lines still waiting are written at the process's exit.
   */
  ownsProcess?: boolean;
}

/**
 * V8's heap sizing for one client over stdio, set once the tool list is out or with the first
 * call (before its work), since a desktop host keeps several servers running and each should
 * stay small. Every flag here is read while the process runs, not only at start (which is why
 * --max-semi-space-size, read once at start, is not one):
 * - --semi-space-growth-factor=1: the young generation keeps its first size (1 MiB semi-spaces)
 *   instead of doubling under load to 16 MiB each, which V8 never gives back;
 * - --heap-growing-percent=30: the old generation is collected when it has grown 30 % past what
 *   the last full collection kept, instead of up to 4 times that;
 * - --liftoff-only: undici's WebAssembly HTTP parser stays in its baseline code instead of being
 *   compiled again by the optimising compiler, which needs tens of MiB while it works;
 * - --no-parallel-scavenge --no-concurrent-array-buffer-sweeping: a young-generation collection
 *   (one every 30 calls or so) is the main thread's alone, with no part of it, or of freeing the
 *   buffers it found dead, handed to V8's workers. Those run in the idle class over stdio
 *   (thread-priority.ts), and a collection waits for a part it handed out: on a machine with
 *   every core busy, an idle thread holding one could keep the call waiting for as long as the
 *   busy processes leave it no core. (Within the runs' spread otherwise: with 1 MiB semi-spaces a
 *   collection has little to share.)
 * docs/benchmark.md has the measurements. Over HTTP (a service, many callers) V8's defaults stay:
 * there calls per second count more than memory.
 */
const STDIO_HEAP_FLAGS =
  '--semi-space-growth-factor=1 --heap-growing-percent=30 --liftoff-only --no-parallel-scavenge --no-concurrent-array-buffer-sweeping';

/**
 * V8's tiering over HTTP (stdio's is STDIO_JIT_FLAGS): a function is optimised after a quarter of the work V8
 * waits for by default (--interrupt-budget, in bytes of bytecode run; default 67584). A call
 * runs a long path through many functions (the tool, the guard, the API client, undici), each
 * run once a call, so with the default most of them were still unoptimised a thousand calls in:
 * over stdio, p50 of the first 2,000 sequential calls went from about 0.74 to 0.50 ms, and
 * processor time per call over HTTP by 5-8 % (docs/benchmark.md). Read when a function's budget
 * is next set, so setting it at run time works.
 */
const JIT_FLAGS = '--interrupt-budget=16384';

/**
 * Over stdio, TurboFan optimises no function of more than 300 bytes of bytecode
 * (--max-optimized-bytecode-size, default 61440; read whenever V8 decides whether to optimise),
 * and inlines at most 100 bytes of bytecode into a function it optimises
 * (--max-inlined-bytecode-size-cumulative, default 920; read at each compile): both work when set
 * at run time. A cold server's optimising runs on V8's worker threads while the calls run, on
 * the same cores as the host and the calls' own answers: the slow calls of the first thousand are
 * mostly ones that waited for those threads. With less inlining, optimised functions are smaller
 * and compile in less time: over the first 2,000 sequential calls p99 went from 4.63 to 3.46 ms and the worker threads'
 * processor time a call from 0.21 to 0.17 ms, p50 within the runs' spread (docs/benchmark.md,
 * eighth pass). Over HTTP V8's default stays: a service's throughput once warm counts more there.
 * And over stdio a function is optimised sooner still, after an eighth of V8's default budget
 * (instead of JIT_FLAGS' quarter): a cold session's calls reach their optimised code in fewer
 * calls, and over the first 2,000 p99 went from 1.35 to 1.16 times the Go server's, and from 1.50
 * to 1.30 in another run, p50 and processor time a call within the runs' spread (docs/benchmark.md,
 * tenth pass); a half or a whole of the default was slower on both. The size limit keeps the few
 * long functions a call runs (the API client's request loop, the call's own path, each 10 KB or
 * more of optimised code and up to tens of milliseconds of a worker's time to compile) in V8's
 * baseline code: a cold server's first 2,000 calls took 11 % less processor time and their p99
 * went from 1.38 to 1.22 times the Go server's (docs/benchmark.md, eleventh pass). The limit was
 * 800 bytes then; with the compiles moved out of the way (thread-priority.ts, young-generation.ts)
 * the slow calls left in a cold server's first 300 were mostly ones during which compiles
 * finished, and at 300 bytes there are fewer: p99 0.90 and 1.00 against 0.97 and 1.05 times the
 * Go server's in two runs (150 bytes: 0.84 and 0.92, but p50 0.88–0.95 and a warm call's
 * processor time up to the Go server's; docs/benchmark.md, twelfth pass). Once warm a call costs
 * about 0.02 ms more than at 800, about two thirds of the Go server's.
 */
const STDIO_JIT_FLAGS =
  '--interrupt-budget=8192 --max-inlined-bytecode-size-cumulative=100 --max-optimized-bytecode-size=300';

/**
 * How long a call's line on stdio may wait to go out with the lines after it (`logLater`): a
 * stderr write wakes the host's reader, and on a busy machine each wake-up can cost the next
 * call its turn on a core.
 */
const CALL_LINES_MS = 50;

/** Thrown to end start-up with an exit code once the reason is written (2: refused flags). */
export class StartExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/**
 * Starts the server as main.ts does with the process's arguments, environment and streams:
 * resolves once it serves, with its orderly shutdown (undefined when `--help` or `--version`
 * asked for no server); rejects with StartExit when start-up is refused.
 */
export async function startServer(io: ServerIo): Promise<(() => Promise<void>) | undefined> {
  const log = (line: string) => void io.stderr.write(`[cloudcall-mcp] ${line}\n`);
  /**
   * Each call's line on stdio, written after the call's answer: the lines of the next
   * CALL_LINES_MS go out in one write, so a run of calls costs one stderr write (and one wake-up
   * of the host reading it) every CALL_LINES_MS instead of one a call, and none waits in front of
   * its answer. The timer keeps no process alive; lines still waiting go out at exit.
   */
  let lines: string[] = [];
  const flushLines = () => {
    if (!lines.length) return;
    const text = lines.join('');
    lines = [];
    io.stderr.write(text);
  };
  const logLater = (line: string) => {
    if (lines.push(`[cloudcall-mcp] ${line}\n`) === 1) setTimeout(flushLines, CALL_LINES_MS).unref();
  };
  // stderr is a pipe or a file, written synchronously: lines still waiting go out at exit.
  if (io.ownsProcess) process.on('exit', flushLines);
  function fail(message: string): never {
    io.stderr.write(`cloudcall-mcp: ${message}\n`);
    throw new StartExit(2);
  }
  /** The API URL as logged: without any `user:password@`, and refused (exit 2) when it is no URL. */
  function shownUrl(text: string): string {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      fail(`--api-url must be a URL such as ${DEFAULT_BASE_URL}, not ${text}`);
    }
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  }
  /** A flag's whole-number value of at least `min`, or its default. */
  function wholeNumber(flag: string, value: string | undefined, fallback: number, min: number, unit: string) {
    if (value === undefined) return fallback;
    const number = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < min)
      fail(`${flag} must be a whole number of ${unit}, at least ${min}, not ${value}`);
    return number;
  }

  let flags: ReturnType<typeof parse>['flags'];
  let commandLine: Set<string>;
  try {
    ({ flags, commandLine } = parse(io.argv, io.env));
  } catch (error) {
    fail(`${(error as Error).message}\n\n${usage(VERSION)}`);
  }
  if (flags.help) {
    io.stderr.write(usage(VERSION));
    return undefined;
  }
  if (flags.version) {
    io.stderr.write(`${VERSION}\n`);
    return undefined;
  }
  const transport = flags.transport ?? 'stdio';
  if (transport !== 'stdio' && transport !== 'http')
    fail(`--transport must be stdio or http, not ${transport}`);
  if (transport === 'stdio') {
    const given = HTTP_ONLY.filter((flag) => commandLine.has(flag)).map((flag) => `--${flag}`);
    if (given.length)
      fail(`${given.join(', ')} ${given.length > 1 ? 'need' : 'needs'} --transport http (this is stdio)`);
  }
  // Node's own threads, before the server has made any (libuv's pool starts with its first job):
  // with the first call they go to the idle class (thread-priority.ts).
  const nodeThreads = transport === 'stdio' && io.ownsProcess ? threadIds() : [];
  const port = Number(flags.port ?? 3333);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(`--port must be a port number, not ${flags.port}`);
  const host = flags.host ?? '127.0.0.1';
  let service: ServiceSettings | undefined;
  try {
    service =
      transport === 'http' ? (await import('./service-config.js')).serviceSettings(flags, host) : undefined;
  } catch (error) {
    fail((error as Error).message);
  }
  // --auth oauth passes the token a host signed in for through as token-passthrough does.
  const passthrough = service?.auth === 'token-passthrough' || service?.auth === 'oauth';
  // Over HTTP: JSON logs and metrics, made first so the API client and the servers report to them.
  const httpModule = transport === 'http' ? await import('./http.js') : undefined;
  const httpService = httpModule?.createHttpService({ quiet: Boolean(flags.quiet), stream: io.stderr });
  const maxSessions = wholeNumber(
    '--max-sessions',
    flags['max-sessions'],
    DEFAULT_MAX_SESSIONS,
    1,
    'sessions',
  );
  const maxMessageBytes = wholeNumber(
    '--max-message-bytes',
    flags['max-message-bytes'],
    DEFAULT_MAX_MESSAGE_BYTES,
    1024,
    'bytes',
  );
  const idleSeconds = Number(flags['session-idle-timeout'] ?? DEFAULT_SESSION_IDLE_TIMEOUT_S);
  // setTimeout's own limit is about 24.8 days.
  if (!(idleSeconds > 0 && idleSeconds <= 2_000_000))
    fail(
      `--session-idle-timeout must be a number of seconds above 0 (at most 2000000), not ${flags['session-idle-timeout']}`,
    );

  const toolMode = (flags['tool-mode'] ?? 'static') as ToolMode;
  if (toolMode !== 'static' && toolMode !== 'dynamic')
    fail(`--tool-mode must be static or dynamic, not ${flags['tool-mode']}`);
  let families: ReturnType<typeof chooseFamilies<(typeof LISTING.families)[number]>>;
  let selected: ReturnType<typeof selectTools<(typeof LISTING.tools)[number]>>;
  try {
    families = chooseFamilies(
      flags.families ?? familiesByDefault(toolMode === 'dynamic', flags.tools),
      LISTING.families,
    );
  } catch (error) {
    fail(`--families: ${(error as Error).message}`);
  }
  try {
    selected = selectTools(LISTING.tools, {
      families: families.map((family) => family.name),
      defaultFamilies: flags.families === undefined,
      readOnly: Boolean(flags['read-only']),
      include: flags.tools === undefined ? undefined : parseToolList(flags.tools),
      exclude: flags['exclude-tools'] === undefined ? undefined : parseToolList(flags['exclude-tools']),
    });
  } catch (error) {
    fail((error as Error).message);
  }
  const tools = selected.tools;
  if (!tools.length)
    fail('no tools left to serve: --families, --tools, --exclude-tools and --read-only leave none');
  const info = httpService ? httpService.log : flags.quiet ? () => undefined : log;
  const onEvent = httpService?.metrics.observeClient;

  // On stdio, initialize and tools/list are answered from here on (handshake.ts), while the guard
  // and the sandbox start; the SDK server takes over once they have and a message needs it.
  let ready: (options: McpServerOptions) => void = () => undefined;
  const options = new Promise<McpServerOptions>((resolve) => {
    ready = resolve;
  });
  /**
   * The session's tool runner, made with the first call or once the tool list is out, with what
   * calls need loading beside it (warmUp). The SDK's server is not part of it.
   */
  let runner: Promise<ToolCall> | undefined;
  /** The runner once made: a plain call then goes to it at once, not a turn later. */
  let madeRunner: ToolCall | undefined;
  const toolRunner = () => {
    runner ??= (async () => {
      // Before the first call's work (node:v8 is loaded here, not at start: tools/list needs none
      // of it); the helper threads below this one (thread-priority.ts).
      if (io.ownsProcess) {
        (await import('node:v8')).setFlagsFromString(`${STDIO_HEAP_FLAGS} ${STDIO_JIT_FLAGS}`);
        lowerHelperThreads(nodeThreads);
      }
      const [{ createToolCall, warmUp }, serverOptions, collect] = await Promise.all([
        import('./tool-call.js'),
        options,
        // The first call's loading moved out of the young generation (young-generation.ts).
        io.ownsProcess ? youngCollector() : undefined,
      ]);
      warmUp(serverOptions);
      const call = createToolCall(serverOptions);
      madeRunner = collect ? promotingFirstCall(call, collect) : call;
      return madeRunner;
    })();
    return runner;
  };
  /** The session's SDK server, once a message has needed it. */
  let sdkServer: AskingServer | undefined;
  /** How a plain call's answer goes out: written here, then through the SDK server's transport. */
  let sendAnswer = (_message: JSONRPCMessage, text: string) =>
    new Promise<void>((resolve, reject) => {
      io.stdout.write(`${text}\n`, (error) => (error ? reject(error) : resolve()));
    });
  // A plain tools/call goes straight to the runner (fast-call.ts), before and after the SDK server
  // loads; dynamic mode's tools are the session server's.
  const calls =
    transport === 'stdio' && toolMode === 'static'
      ? sessionCalls(
          (params, extra) =>
            madeRunner ? madeRunner(params, extra) : toolRunner().then((run) => run(params, extra)),
          () => sdkServer,
          (message, text) => sendAnswer(message, text),
          (error) => log(error.message),
        )
      : undefined;
  const connect = async () => {
    if (early?.modern) return connectModern();
    const [{ createLegacyServer, warmUp }, { StdioLineTransport }, serverOptions, toolCall] =
      await Promise.all([import('./server.js'), import('./stdio.js'), options, toolRunner()]);
    const server = createLegacyServer(serverOptions, toolCall);
    server.onerror = (error) => log(error.message);
    // The host closing our stdin (or stdout failing) is the end of the session.
    server.onclose = () => void shutdown();
    closeTransport = () => server.close();
    const transport = new StdioLineTransport({
      input: io.stdin,
      output: io.stdout,
      maxMessageBytes,
      handover: early,
    });
    if (calls) {
      transport.calls = calls;
      sdkServer = server;
      sendAnswer = (message, text) => transport.sendText(message, text);
    }
    await server.connect(transport);
    // A client that got this far is about to call a tool: load what calls need now.
    warmUp(serverOptions);
  };
  /** A session at revision 2026-07-28: the SDK's v2 server on the same line transport. */
  const connectModern = async () => {
    const [modern, { StdioLineTransport }, { warmUp }, serverOptions, toolCall] = await Promise.all([
      import('./modern.js'),
      import('./stdio.js'),
      import('./tool-call.js'),
      options,
      toolRunner(),
    ]);
    const lines = new StdioLineTransport({
      input: io.stdin,
      output: io.stdout,
      maxMessageBytes,
      handover: early,
    });
    const tasks = taskService(toolCall);
    const handle = modern.serveModernStdio(
      () => modern.createModernServer(serverOptions, toolCall, tasks),
      lines,
      (error) => log(error.message),
    );
    closeTransport = () => handle.close();
    // The host closing our stdin is the end of the session, as on the 2025 path.
    io.stdin.once('end', () => void shutdown());
    warmUp(serverOptions);
  };
  const early =
    transport === 'stdio'
      ? new EarlyStdio({
          input: io.stdin,
          write: (line) => io.stdout.write(line),
          maxMessageBytes,
          identity: {
            version: VERSION,
            sandbox: Boolean(flags.sandbox),
            showSecrets: Boolean(flags['show-secrets']),
            dynamic: toolMode === 'dynamic',
          },
          // Every tool, or the default ones (no selection flag): the build's bytes of their entries
          // as they are.
          listTools:
            toolMode !== 'static'
              ? undefined
              : sameTools(tools, LISTING.tools)
                ? toolsListBytes
                : sameTools(tools, LISTING.tools.slice(0, LISTING.defaults.count))
                  ? defaultToolsListBytes
                  : () => JSON.stringify(listingOf(tools)),
          needServer: () =>
            void connect().catch((error: unknown) => {
              log(`fatal: ${error instanceof Error ? error.message : String(error)}`);
              io.exit(1);
            }),
          calls,
          // The client has its tools and is about to call one: load what calls need now.
          listed: () =>
            void toolRunner().catch((error: unknown) => log(`could not load the tools: ${String(error)}`)),
          ended: () => {
            calls?.close();
            // Once start-up is done (shutdown closes what it opened).
            void options.then(() => shutdown());
          },
        })
      : undefined;
  early?.start();
  /** Where the API is, for /readyz. */
  let apiUrl: string;
  let guard: ServerGuard;
  try {
    guard = await startGuard(flags, { info, warn: httpService ? (line) => httpService.warn(line) : log });
  } catch (error) {
    fail((error as Error).message);
  }

  let client: (auth?: AuthInfo) => Promise<ApiClient>;
  let checkToken: ((auth?: AuthInfo) => Promise<void>) | undefined;
  let clock: ToolClock | undefined;
  let closeConnection: () => Promise<void>;
  let sandboxState: string | undefined;
  if (flags.sandbox) {
    // The sandbox starts at once: a state file it cannot use stops start-up, saying why. On stdio,
    // after the input already there is answered (a host sends initialize as it starts the server):
    // loading the sandbox starts Node's ES module loader, which holds this thread a while.
    if (early) await new Promise((resolve) => setImmediate(resolve));
    const { connectSandbox, StateFileError, statePathFor } = await import('@cloudcall/sandbox');
    // By default the CLI's state file: what an agent creates here, the person sees there.
    sandboxState = statePathFor(flags['sandbox-state'], io.env);
    let connection: Awaited<ReturnType<typeof connectSandbox>>;
    try {
      connection = await connectSandbox({ statePath: sandboxState, client: { onEvent } });
    } catch (error) {
      if (error instanceof StateFileError) fail(error.message);
      throw error;
    }
    const ready = Promise.resolve(connection.client);
    client = () => ready;
    // Waits count sandbox time, so moving the sandbox clock ends them (tests, demos).
    clock = connection.clock;
    closeConnection = connection.close;
    apiUrl = connection.sandbox.url;
    if (passthrough) {
      // Each caller's token goes to the sandbox too, which accepts any.
      const clients = apiClients({
        token: undefined,
        baseUrl: apiUrl,
        userAgentSuffix: `mcp-server/${VERSION}`,
        onEvent,
      });
      client = clients.client;
      checkToken = clients.checkToken;
      closeConnection = () => clients.close().then(connection.close);
    }
    info(
      `SANDBOX MODE: tools talk to the built-in offline sandbox at ${connection.sandbox.url}, state ${sandboxState ? `in ${sandboxState}` : 'in memory'}. Nothing is real or billed.`,
    );
  } else {
    const credentials = passthrough ? undefined : resolveCredentials(io.env);
    if (!credentials && !passthrough) {
      fail(
        `no API token. Set ${TOKEN_ENV_VARS[0]} (or ${TOKEN_ENV_VARS[1]}) to a personal access token from the control panel's API page, or pass --sandbox to try cloudcall offline.`,
      );
    }
    const baseUrl = shownUrl(flags['api-url'] ?? DEFAULT_BASE_URL);
    apiUrl = flags['api-url'] ?? DEFAULT_BASE_URL;
    // The client (and what sends its requests: plain sockets over stdio, undici's pool over HTTP)
    // loads with the first call.
    const clients = apiClients({
      token: credentials?.token,
      baseUrl: flags['api-url'],
      userAgentSuffix: `mcp-server/${VERSION}`,
      onEvent,
      // Over stdio, one client's requests one after another from the start: plain sockets
      // (core's `transport: 'socket'`), which load quickly and cost a cold call the least.
      transport: early ? 'socket' : undefined,
    });
    client = clients.client;
    checkToken = clients.checkToken;
    closeConnection = clients.close;
    info(
      `using the API at ${baseUrl} ${credentials ? `with the token from ${credentials.source}` : `with each request's own token (--auth ${service?.auth})`}`,
    );
  }
  info(
    `serving ${tools.length} tools from ${[...new Set(tools.map((tool) => tool.family))].join(', ')}${flags['read-only'] ? ', read-only' : ''}${toolMode === 'dynamic' ? ', enabled on demand (--tool-mode dynamic)' : ''}`,
  );

  // Seconds a confirmation question stays answerable: an hour at most, a replay's window.
  const confirmTtlMs =
    Math.min(wholeNumber('--confirm-ttl', flags['confirm-ttl'], QUESTION_TTL_MS / 1000, 1, 'seconds'), 3600) *
    1000;
  // The task service's own defaults (tasks/service.ts) where a flag is not given.
  const taskLimits = {
    ...(flags['tasks-per-caller'] !== undefined && {
      workingPerCaller: wholeNumber('--tasks-per-caller', flags['tasks-per-caller'], 0, 1, 'tasks'),
    }),
    ...(flags['task-keep'] !== undefined && {
      keepMs: wholeNumber('--task-keep', flags['task-keep'], 0, 1, 'seconds') * 1000,
    }),
  };
  const serverOptions: McpServerOptions = {
    client,
    clock,
    tools,
    hidden: selected.hidden,
    families,
    toolMode,
    version: VERSION,
    sandbox: Boolean(flags.sandbox),
    showSecrets: Boolean(flags['show-secrets']),
    guard,
    log: info,
    // Over HTTP a call's request line says as much (and its metrics count it): debug only.
    logCall: httpService?.debug ?? (flags.quiet ? info : logLater),
    warn: httpService?.warn ?? info,
    onCall: httpService?.onCall,
    tokenFromRequest: passthrough,
    auditScope: service?.auditScope ?? 'all',
    checkToken,
    // No session to ask on: --confirm auto refuses destructive calls (guard.ts).
    stateless: service?.stateless,
    waits: service?.waits,
    // Confirmation in rounds for 2026-07-28 clients: the question's state sealed with the key
    // the replicas share, its answer spent once (in Redis with --redis).
    requestState: {
      seal: stateSeal(stateKey(flags['request-state-key']), { ttlMs: confirmTtlMs }),
      spent: guard.redis ? redisSpent(guard.redis) : memorySpent(),
    },
  };
  /**
   * The process's task service (tasks/), made with the first 2026-07-28 request that needs it: in
   * Redis with --redis (shared by the replicas), else in this process.
   */
  let tasks: Promise<import('./tasks/service.js').TaskService<AuthInfo>> | undefined;
  const taskService = (call: ToolCall) => () => {
    tasks ??= import('./tasks/start.js').then(({ toolTaskService }) =>
      toolTaskService({
        call,
        redis: guard.redis,
        tokenFromRequest: passthrough,
        limits: taskLimits,
        log: info,
      }),
    );
    return tasks;
  };
  let closeTransport: () => Promise<void> = async () => undefined;
  let closing = false;
  async function shutdown(): Promise<void> {
    if (closing) return;
    closing = true;
    await closeTransport().catch(() => undefined);
    // Its runs stop and their leases are given back: another replica takes them over at once.
    await (await tasks)?.close().catch(() => undefined);
    await closeConnection().catch(() => undefined);
    await guard.quota?.counter.close().catch(() => undefined);
    await guard.redis?.close().catch(() => undefined);
    flushLines();
    io.exit(0);
  }
  io.onSignal(shutdown);

  if (early) {
    // The SDK server takes over from the early answers when a message needs it (see above).
    ready(serverOptions);
  } else {
    if (io.ownsProcess) (await import('node:v8')).setFlagsFromString(JIT_FLAGS);
    const [{ serveHttp, readiness }, { createToolCall }] = await Promise.all([
      import('./http.js'),
      import('./tool-call.js'),
    ]);
    // One tool runner for every server and request of the process. The SDK server loads with
    // the first request that needs one: stateless plain calls never do (http.ts).
    const toolCall = createToolCall(serverOptions);
    let sdkServer: Promise<typeof import('./server.js')> | undefined;
    const newServer = async () => {
      sdkServer ??= import('./server.js');
      return (await sdkServer).createLegacyServer(serverOptions, toolCall);
    };
    let modern: Promise<import('./modern.js').ModernHttp> | undefined;
    const tasksOf = taskService(toolCall);
    let running: Awaited<ReturnType<typeof serveHttp>>;
    try {
      running = await serveHttp({
        host,
        port,
        newServer,
        modern: () => {
          modern ??= import('./modern.js').then((parts) =>
            parts.modernHttp(
              async () => parts.createModernServer(serverOptions, toolCall, tasksOf),
              (error) => info(`mcp: ${error.message}`),
            ),
          );
          return modern;
        },
        // Dynamic mode's toolset tools belong to a session: each request gets an SDK server.
        toolCall: toolMode === 'static' ? toolCall : undefined,
        log: info,
        logger: httpService?.logger,
        requests: httpService?.requests,
        metrics: httpService?.metrics,
        maxSessions,
        sessionIdleTimeoutMs: idleSeconds * 1000,
        maxMessageBytes,
        ...service,
        checkToken: service?.auth === 'oauth' ? checkToken : undefined,
        ready: readiness(apiUrl),
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      fail(
        code === 'EADDRINUSE'
          ? `port ${port} is in use; choose another with --port`
          : (error as Error).message,
      );
    }
    closeTransport = running.close;
    // With Redis, tasks a stopped replica left are this one's to take over, asked or not.
    if (guard.redis) void tasksOf().catch((error: unknown) => info(`tasks: ${(error as Error).message}`));
    // The log is buffered (logger.ts): its start-up lines go out now, before the help below.
    httpService?.logger.flush();
    // How to connect a desktop host: for one person on loopback, not for a team service.
    if (service?.auth === 'none') {
      const { connectHelp } = await import('./instructions.js');
      io.stderr.write(
        connectHelp(running.url, {
          sandbox: Boolean(flags.sandbox),
          sandboxState,
          // The bundle's entry (dist/main.js); the help is in a chunk beside it.
          entry: io.entry,
          tools: toolMode === 'dynamic' ? undefined : tools.length,
        }),
      );
    }
    info(
      `listening on ${running.url}${service?.stateless ? ' (stateless)' : ''} with --auth ${service?.auth}`,
    );
    if (service?.oauth) {
      const { metadataUrl, resourceOf } = await import('./oauth-resource.js');
      const resource = resourceOf(service.oauth, new URL(running.url).host);
      info(
        `hosts sign in at ${service.oauth.issuer}, as this server's protected resource metadata says (${metadataUrl(resource)})`,
      );
    }
    // And whoever waits for this line gets it now.
    httpService?.logger.flush();
  }
  return shutdown;
}

/**
 * The flags, each taken from its CLOUDCALL_ variable when not given on the command line (hosts
 * such as some MCP clients pass only an environment), and the names given on the command line.
 * A boolean variable is 1/true/yes or 0/false/no; anything else is refused rather than guessed.
 * With stdio, the HTTP-only variables are ignored: a host starts every server with the same
 * environment, and one set up for an HTTP server must not stop a stdio one.
 */
function parse(args: string[], env: Record<string, string | undefined>) {
  const { values } = parseArgs({ args, options: FLAGS, strict: true, allowPositionals: false });
  const merged: Record<string, string | string[] | boolean | undefined> = { ...values };
  const commandLine = new Set(Object.keys(values));
  const stdio = (values.transport ?? env[envName('transport')] ?? 'stdio') === 'stdio';
  for (const [flag, option] of Object.entries(FLAGS)) {
    if ('noEnv' in option || merged[flag] !== undefined) continue;
    if (stdio && 'http' in option) continue;
    const text = env[envName(flag)];
    if (text === undefined || text === '') continue;
    if (option.type === 'string') {
      merged[flag] = text;
    } else if (/^(1|true|yes|on)$/i.test(text)) {
      merged[flag] = true;
    } else if (/^(0|false|no|off)$/i.test(text)) {
      merged[flag] = false;
    } else {
      throw new Error(
        `${envName(flag)} must be 1 or 0 (true or false), not ${JSON.stringify(text.slice(0, 20))}`,
      );
    }
  }
  return { flags: merged as typeof values, commandLine };
}

/** Whether two tool lists are the same tools in the same order. */
function sameTools(some: readonly ToolData[], others: readonly ToolData[]): boolean {
  return some.length === others.length && some.every((tool, at) => tool === others[at]);
}
