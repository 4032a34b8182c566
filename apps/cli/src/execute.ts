/**
 * Running a tool once its command line is read: the defaults the CLI works out, the arguments
 * checked, the guard, the connection (the sandbox or the platform), names looked up, pages and
 * waits, the result printed. Loaded (with the tool's family) by a command that runs a tool: help
 * and completion load none of it, nor zod, the guard or the HTTP client.
 */
import {
  type AnyTool,
  type ApiClient,
  createClient,
  maskSecrets,
  runTool,
  type ToolClock,
  type ToolContext,
  type ToolProgress,
} from '@cloudcall/core';
import { TOKEN_ENV_VARS } from '@cloudcall/core/credentials';
import { describeError, showControls, traceLine } from '@cloudcall/core/internal';
import { configPath, expiresSoon, resolveToken, TOKEN_SOURCES } from './config.js';
import type { CliDefault, DefaultLookup } from './doctl.js';
import type { CliGuard } from './guard.js';
import type { GuardFlags } from './guard-flags.js';
import { checkWithNames, resolveNames } from './name-lookup.js';
import type { NamedArguments, ToolLookup } from './names.js';
import { checkQuery, formatResult, isKubeconfig, useColor } from './output.js';
import { runPlumbed } from './plumbing.js';
import { CLUSTER_CREATE_TOOL, KUBECONFIG_TOOL, yesOrNo } from './plumbing-options.js';
import { EXIT, type GlobalOptions, type Io } from './program.js';

// auth init checks a token by running a tool, with what this module runs tools with.
export { createClient, runTool };

/** Runs `tool` with `args` as the command's options say; the exit code. */
export async function execute(
  tool: AnyTool,
  args: Record<string, unknown>,
  options: GlobalOptions,
  named: NamedArguments,
  defaults: readonly CliDefault[],
  io: Io,
  version: string,
  findTool: ToolLookup,
  /** Where the result goes instead of stdout (`registry login`'s docker config): the line to print. */
  deliver?: (result: unknown) => Promise<string>,
): Promise<number> {
  // Checked before anything is sent (names stand as ids of their kind until looked up).
  if (options.query !== undefined) await checkQuery(options.query);
  // The values of a default's own flags (`--size`, `--count`), as the command line read them.
  const shaping = options as Record<string, unknown>;
  const given = (entry: CliDefault) =>
    Object.fromEntries(
      (entry.flags ?? []).map(({ flag }) => [
        flag,
        typeof shaping[flag] === 'string' ? (shaping[flag] as string) : undefined,
      ]),
    );
  // Defaults the CLI works out: at once from the other arguments, or (standing in meanwhile)
  // from the platform once connected.
  const missing = defaults.filter((entry) => args[entry.argument] === undefined);
  const later = missing.filter((entry) => entry.standIn !== undefined);
  for (const entry of missing) {
    if (entry.standIn === undefined) args[entry.argument] = await entry.value(args, noLookup, given(entry));
  }
  const standIns = Object.fromEntries(later.map((entry) => [entry.argument, entry.standIn]));
  // (A dry run reports invalid arguments in its plan instead.)
  if (!options.dryRun) checkWithNames(tool, { ...args, ...standIns }, named);
  // doctl saves a new cluster into the kubeconfig; the sandbox's, only when asked (its clusters
  // are no servers kubectl can reach).
  const updateKubeconfig =
    tool.name === CLUSTER_CREATE_TOOL &&
    !options.dryRun &&
    yesOrNo(options.updateKubeconfig, '--update-kubeconfig', !options.sandbox);
  if (tool.name === CLUSTER_CREATE_TOOL) yesOrNo(options.setCurrentContext, '--set-current-context', true);
  const guard = needsGuard(tool, options, io.env)
    ? (await import('./guard.js')).startGuard(options, io, options.output)
    : unguarded;
  if (typeof guard === 'number') return guard;
  let client: ApiClient;
  let close: () => Promise<void>;
  let clock: ToolClock | undefined;
  /** Who is calling, on audit lines: `cli:CONTEXT` for a context's token, else the local user. */
  let caller: string | undefined;
  /**
   * The flags that reach the same API with the same credentials from a later command, without a
   * secret: what a saved kubeconfig's exec-credential command is given.
   */
  const connection: string[] = [];
  /** Said after saving a kubeconfig whose exec-credential cannot find the token used here. */
  let tokenNote = '';
  const onEvent = options.trace
    ? (event: Parameters<typeof traceLine>[0]) => io.stderr(`cloudcall: trace: ${traceLine(event)}\n`)
    : undefined;
  if (!tool.annotations.openWorldHint) {
    // A tool that answers from what cloudcall holds (api-search, api-describe) talks to no API:
    // it needs neither a token nor the sandbox. Its client refuses to send anything.
    const none = createClient({ token: 'none', baseUrl: 'http://127.0.0.1:9', onEvent });
    client = none.forCall({ readOnly: tool.name });
    close = () => none.close();
  } else if (options.sandbox) {
    // Loaded only when asked for: most runs talk to the real API. The sandbox answers in this
    // process, over the state file: a command makes a call or a few, not worth a server on
    // loopback and an HTTP client to reach it. Logs are read from the URLs it answers, which only
    // its server on loopback serves: for them, it is started for the command.
    const { connectSandbox, connectSandboxInProcess, StateFileError, statePathFor } = await import(
      '@cloudcall/sandbox'
    );
    const at = { statePath: statePathFor(options.sandboxState, io.env), client: { onEvent } };
    let sandbox: Pick<Awaited<ReturnType<typeof connectSandbox>>, 'client' | 'close' | 'clock'>;
    try {
      sandbox = options.text ? await connectSandbox(at) : await connectSandboxInProcess(at);
    } catch (error) {
      // A state file that cannot be used is the caller's to fix, like any other bad input.
      if (!(error instanceof StateFileError)) throw error;
      io.stderr(`cloudcall: ${error.message}\n`);
      return EXIT.input;
    }
    client = sandbox.client;
    close = sandbox.close;
    // Waits count sandbox time, so moving the sandbox clock ends them (tests, demos).
    clock = sandbox.clock;
    const { resolve } = await import('node:path');
    connection.push(
      '--sandbox',
      ...(options.sandboxState ? [`--sandbox-state=${resolve(options.sandboxState)}`] : []),
    );
  } else {
    const credentials = resolveToken(io.env, options);
    if (!credentials) {
      io.stderr(`cloudcall: no API token. ${TOKEN_SOURCES}, or pass --sandbox to work offline.\n`);
      return EXIT.input;
    }
    if (credentials.note) io.stderr(`cloudcall: ${credentials.note}\n`);
    if (credentials.context !== undefined) {
      caller = `cli:${credentials.context}`;
      connection.push(`--context=${credentials.context}`);
    }
    // A context from auth login whose token is about to expire: refreshed first (oauth.ts, with
    // openid-client, loaded only then).
    if (credentials.context !== undefined && credentials.refreshable && expiresSoon(credentials.expiresAt)) {
      const { freshToken } = await import('./oauth.js');
      credentials.token = await freshToken(configPath(io.env), credentials.context);
    }
    if (options.apiUrl !== undefined) connection.push(`--api-url=${options.apiUrl}`);
    if (credentials.source === '--token') {
      tokenNote = ` kubectl runs cloudcall without --token: it needs ${TOKEN_ENV_VARS[0]} or a context (cloudcall auth init).`;
    }
    client = createClient({
      token: credentials.token,
      baseUrl: options.apiUrl ?? credentials.apiUrl,
      userAgentSuffix: `cli/${version}`,
      // A command sends a request or a few, then exits: Node's own http modules load in a
      // fraction of the time undici's pool takes.
      transport: 'node',
      onEvent,
    });
    close = () => client.close();
  }
  try {
    const progress = io.stderrIsTty
      ? (update: ToolProgress) => io.stderr(`cloudcall: ${showControls(update.message)}\n`)
      : undefined;
    const context = { client, signal: io.signal, progress, clock, caller };
    const typed = { ...args };
    await resolveNames(args, named, findTool, context);
    for (const entry of later) {
      args[entry.argument] = await entry.value(
        args,
        async (name, lookupArgs) => {
          const lookup = await findTool(name);
          if (!lookup) throw new Error(`${name} is needed for the default of ${entry.argument}`);
          return runTool(lookup, lookupArgs, context);
        },
        given(entry),
      );
    }
    const outcome = await runPlumbed(
      tool,
      args,
      options,
      context,
      io,
      async (...call) => {
        const guarded = await guard.run(...call);
        return 'exit' in guarded ? { code: guarded.exit } : guarded;
      },
      actedOn(tool, named, typed, args),
    );
    if (!('result' in outcome)) return outcome.code;
    if (options.save) {
      // The kubeconfig goes into the file only, its token (if one is asked for) with it: what is
      // printed names no secret.
      const { saveKubeconfig } = await import('./kubeconfig.js');
      const saved = await saveKubeconfig(outcome.result, io.env, {
        ...(args.ExpirySeconds ? {} : { exec: { clusterId: String(args.ID), connection } }),
        setCurrentContext: yesOrNo(options.setCurrentContext, '--set-current-context', true),
      });
      io.stdout(`${saved}${args.ExpirySeconds ? '' : tokenNote}\n`);
      return outcome.code ?? EXIT.ok;
    }
    if (deliver) {
      io.stdout(await deliver(outcome.result));
      return outcome.code ?? EXIT.ok;
    }
    if (options.text) {
      const { printLogs } = await import('./app-logs.js');
      return await printLogs(outcome.result, io, { follow: args.Follow === true });
    }
    if (tool.name === CLUSTER_CREATE_TOOL && updateKubeconfig) {
      await saveNewCluster(outcome.result, context, findTool, io, {
        connection,
        note: tokenNote,
        setCurrentContext: yesOrNo(options.setCurrentContext, '--set-current-context', true),
      });
    }
    // A secret the tool exists to hand over (a new Spaces key's) is shown: it cannot be read again.
    const shown = options.showSecrets ? outcome.result : maskSecrets(outcome.result, tool.reveals);
    io.stdout(
      await formatResult(shown, {
        // --format asks for columns: a table, unless another format is named.
        // A kubeconfig is YAML, for kubectl, wherever it goes.
        format:
          options.output ??
          (isKubeconfig(outcome.result) ? 'yaml' : io.isTty || options.format ? 'table' : 'json'),
        columns: options.format?.split(',').map((column) => column.trim()),
        header: options.header,
        query: options.query,
        terminal: io.isTty,
        color: useColor(io.isTty, io.env),
      }),
    );
    return outcome.code ?? EXIT.ok;
  } finally {
    guard.close();
    await close();
  }
}

/**
 * Whether the guard has anything to do: a tool that changes something, a dry run, or guard
 * settings to read (a malformed policy stops even a read, before anything is sent). A read with
 * none of them runs as the guard would run it, without loading the guard.
 */
function needsGuard(tool: AnyTool, flags: GuardFlags, env: Record<string, string | undefined>): boolean {
  return (
    !tool.annotations.readOnlyHint ||
    Boolean(flags.dryRun || flags.protect?.length || flags.policy || flags.auditLog) ||
    ['CLOUDCALL_PROTECT', 'CLOUDCALL_POLICY', 'CLOUDCALL_AUDIT_LOG'].some((name) => env[name] !== undefined)
  );
}

/** What the guard does with a read when it has no settings: runs it. */
const unguarded: CliGuard = {
  run: async (tool, args, context) => ({ result: await runTool(tool, args, context) }),
  close: () => undefined,
};

/**
 * What a tool works on, by the name the command gave it (`volume logs` for `volume-detach logs`):
 * the named argument in the tool's path right after its kind's collection, when a name was looked
 * up for it. A wait's progress line says it; given an id, the wait reads the name itself.
 */
function actedOn(
  tool: AnyTool,
  named: NamedArguments,
  typed: Record<string, unknown>,
  args: Record<string, unknown>,
): string | undefined {
  const path = tool.request?.path ?? '';
  for (const [argument, kind] of named) {
    const given = typed[argument];
    if (
      path.includes(`${kind.collection}/{${argument}}`) &&
      typeof given === 'string' &&
      given !== String(args[argument])
    ) {
      return `${kind.label.toLowerCase()} ${given}`;
    }
  }
  return undefined;
}

/**
 * A new cluster's kubeconfig saved as `kubeconfig save` saves it, as doctl's `cluster create`
 * does. The cluster is made whatever happens here: a failure is said on stderr, as doctl warns,
 * and the exit code stays the create's.
 */
async function saveNewCluster(
  result: unknown,
  context: ToolContext,
  findTool: ToolLookup,
  io: Io,
  options: { connection: readonly string[]; note: string; setCurrentContext: boolean },
): Promise<void> {
  const id = (result as { kubernetes_cluster?: { id?: unknown } } | undefined)?.kubernetes_cluster?.id;
  try {
    const get = await findTool(KUBECONFIG_TOOL);
    if (typeof id !== 'string' || !get) throw new Error('the create answered no cluster id');
    const config = await runTool(get, { ID: id }, context);
    const { saveKubeconfig } = await import('./kubeconfig.js');
    const saved = await saveKubeconfig(config, io.env, {
      exec: { clusterId: id, connection: options.connection },
      setCurrentContext: options.setCurrentContext,
    });
    io.stderr(`cloudcall: ${saved}${options.note}\n`);
  } catch (error) {
    io.stderr(
      `cloudcall: the cluster was made, but its kubeconfig was not saved: ${showControls(describeError(error))}; run "cloudcall kubernetes cluster kubeconfig save ${String(id)}"\n`,
    );
  }
}

/** For defaults worked out from the other arguments alone. */
const noLookup: DefaultLookup = () => Promise.reject(new Error('no lookup before connecting'));
