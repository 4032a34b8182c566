/**
 * The command line, built from the tool definitions: every tool a command named as the tool,
 * every argument a flag named as the argument, help generated from the schema.
 */
import { loadFamily } from '@cloudcall/catalog/lazy';
import { ApiError, CloudcallError, type FamilyName, InputError } from '@cloudcall/core';
import { DEFAULT_BASE_URL, defaultSandboxStatePath, TOKEN_ENV_VARS } from '@cloudcall/core/credentials';
import { describeError, showControls } from '@cloudcall/core/internal';
import { Command, CommanderError, Option } from 'commander';
import { apiCommand, apiFlagFor } from './api-command.js';
import { authCommand } from './auth.js';
import { addCompletion, COMPLETE_COMMAND, completeCommand } from './cli-completion.js';
import { CommandWordError, commandWordIndex } from './commands.js';
import { SignInError } from './config.js';
import { EXEC_CREDENTIAL_COMMAND, execCredential, execCredentialCommand } from './exec-credential.js';
import { UnknownFlagError } from './flag-names.js';
import { FlagError } from './flags.js';
import { auditCommand, type GuardFlags, guardOptions, mergeGuardFlags } from './guard-flags.js';
import { helpFor, joinCommandWords, rootHelpText } from './help.js';
import type { ToolLookup } from './names.js';
import { ColumnError, type OutputFormat, outputOption, QueryError } from './output.js';
import { type PlumbingOptions, plumbingOptions } from './plumbing-options.js';
import { registryLoginCommand } from './registry-login.js';
import { sandboxCommand } from './sandbox-command.js';
import { type FamilyEntry, familyOf, loadIndex, type ToolEntry } from './tool-entry.js';
import { addToolFlags, defaultFlagFor } from './tool-flags.js';

/** Exit codes, documented in docs/cli.md. */
export const EXIT = {
  ok: 0,
  internal: 1,
  input: 2,
  api: 3,
  network: 4,
  /** A `wait` ran out of time; running it again resumes. */
  waitTimeout: 5,
  cancelled: 130,
} as const;

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  /** Whether stdout is a terminal: tables there, JSON otherwise. */
  isTty: boolean;
  /** Whether stderr is a terminal: progress of long commands (`wait`) is shown there. */
  stderrIsTty?: boolean;
  /** Where `auth init` reads a token from (a pipe, or a prompt on a terminal). */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Asks a question on the terminal (a destructive tool's y/N); absent when stdin is not one. */
  ask?: (question: string, signal?: AbortSignal) => Promise<string | undefined>;
  signal?: AbortSignal;
}

export interface GlobalOptions extends PlumbingOptions, GuardFlags {
  apiUrl?: string;
  sandbox?: boolean;
  sandboxState?: string;
  output?: OutputFormat;
  format?: string;
  header?: boolean;
  query?: string;
  showSecrets?: boolean;
  context?: string;
  token?: string;
  trace?: boolean;
}

/** The options that say where and how to talk: valid before the tool name and after it. */
function connectionOptions(env: Record<string, string | undefined>): Option[] {
  return [
    new Option('--api-url <url>', `API base URL (default ${DEFAULT_BASE_URL})`),
    new Option('--sandbox', 'use the offline sandbox instead of the real API'),
    new Option(
      '--sandbox-state <file>',
      `sandbox state, shared with cloudcall-mcp (or CLOUDCALL_SANDBOX_STATE; default ${defaultSandboxStatePath(env)})`,
    ),
    new Option('--context <name>', 'use this context\'s token (see "cloudcall auth list")'),
    new Option('-t, --token <token>', `API token (comes before ${TOKEN_ENV_VARS[0]} and contexts)`),
    new Option('--trace', 'print HTTP requests and responses to stderr, masked'),
    new Option('--show-secrets', 'show secrets (database passwords) in results'),
    outputOption(),
    new Option('--format <columns>', 'columns: ID,Name or paths like region.slug'),
    new Option('--no-header', 'no header row in table, wide and tsv output'),
    new Option('--query <jmespath>', 'a JMESPath expression applied to the result'),
    ...guardOptions(),
  ];
}

/**
 * Runs the CLI with the given argv (without node and script) and returns the exit code. The
 * commands, their help, flags and completion come from the build-time index; a command that runs
 * a tool loads that tool's family (and any other a name lookup needs) and execute.ts.
 */
export async function runCli(argv: string[], io: Io, version: string): Promise<number> {
  // A command line that names a tool (`cloudcall --sandbox key-list`) runs that tool: its command
  // is the only one made (commander's parsing, help and errors for it are the same).
  const only = toolNamed(argv, io.env);
  const families = await indexFor(only);
  const addOwn = (make: () => Command) => {
    if (only === undefined) program.addCommand(make());
  };
  // The definition that runs: its family loaded (looking up names may need a list tool of another
  // family: vm-list for --vm-ids web-1).
  const findTool: ToolLookup = async (name) => {
    const family = familyOf(name);
    return family ? (await loadFamily(family)).tools.find((tool) => tool.name === name) : undefined;
  };
  let exitCode: number = EXIT.ok;
  let renderingHelp = false;
  // The command being run and how it names its arguments, for error messages.
  let flagFor = defaultFlagFor;
  let running: string | undefined;
  const program = new Command('cloudcall')
    .description(
      'Manage DigitalOcean-compatible cloud infrastructure from the terminal. Every cloudcall tool is a command.',
    )
    .version(version, '-v, --version')
    // Options before the tool name belong to cloudcall; after it, to the tool (so a tool's own
    // `--version` argument is not cloudcall's version flag). The connection options are accepted
    // in both places.
    .enablePositionalOptions()
    .showSuggestionAfterError(true)
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    // Help lists tools grouped by family (below) instead of one long command list; typo
    // suggestions still consider every tool.
    .configureHelp({ visibleCommands: (command) => (renderingHelp ? [] : [...command.commands]) })
    .usage('[options] <tool> [id] [flags]   (or: <resource> <verb> [id] [flags])')
    .exitOverride()
    .addHelpText(
      'after',
      () =>
        `${rootHelpText(families)}\nAlso: cloudcall api PATH (any API request, as gh api: cloudcall api --help), auth login|init|list|switch|remove, sandbox serve|reset|status, audit.\nAuthentication, first found: -t/--token, --context NAME, ${TOKEN_ENV_VARS[0]} (or ${TOKEN_ENV_VARS[1]}), the current context; or pass --sandbox. A context's API URL goes with it.\nExit codes: 0 ok, 2 invalid input, 3 API error, 4 network error, 5 --wait timed out, 130 interrupted, 1 anything else.`,
    );

  for (const option of connectionOptions(io.env)) program.addOption(option);

  const helpInformation = program.helpInformation.bind(program);
  program.helpInformation = (context) => {
    renderingHelp = true;
    try {
      return helpInformation(context);
    } finally {
      renderingHelp = false;
    }
  };

  addOwn(() =>
    auditCommand(io, (code) => {
      exitCode = code;
    }),
  );
  const flagged = new Map<Command, ToolEntry>();
  for (const family of families) {
    for (const tool of family.tools) {
      if (only === undefined || tool.name === only) program.addCommand(toolCommand(tool));
    }
  }
  if (only === undefined) addCompletion(program, io.stdout);
  addOwn(() => authCommand(io, version, () => program.opts<GlobalOptions>()));
  addOwn(() => sandboxCommand(io, () => program.opts<GlobalOptions>()));
  // `cloudcall api PATH`: any request, run as the api-call tool is (api-request.ts).
  addOwn(() =>
    apiCommand(io, connectionOptions(io.env), async (path, local) => {
      flagFor = apiFlagFor(local);
      running = 'api';
      const before = program.opts<GlobalOptions>();
      const options = { ...before, ...local, ...mergeGuardFlags(before, local) };
      const { runApi } = await import('./api-request.js');
      exitCode = await runApi(path, options, io, version, findTool);
    }),
  );

  // `registry login`: registry-docker-config's answer written into docker's config, not printed.
  addOwn(() =>
    registryLoginCommand(io, connectionOptions(io.env), async (args, local) => {
      running = 'registry-login';
      const tool = await findTool('registry-docker-config');
      if (!tool) throw new Error('registry-docker-config is not in the registry family');
      const before = program.opts<GlobalOptions>();
      const options = { ...before, ...local, ...mergeGuardFlags(before, local) };
      const [{ execute }, { dockerConfigPath, mergeDockerConfig }] = await Promise.all([
        import('./execute.js'),
        import('./docker-config.js'),
      ]);
      const path = dockerConfigPath(io.env);
      exitCode = await execute(
        tool,
        { ...args },
        options,
        new Map(),
        [],
        io,
        version,
        findTool,
        async (result) => {
          const hosts = await mergeDockerConfig(path, result);
          return `Logged in to ${hosts.join(', ')}: credentials written to ${path}\n`;
        },
      );
    }),
  );

  // `kubernetes cluster kubeconfig exec-credential`: what kubectl runs for a saved cluster's token,
  // kubernetes-cluster-get-credentials' answer printed as an ExecCredential (exec-credential.ts).
  addOwn(() =>
    execCredentialCommand(io, connectionOptions(io.env), async (cluster, credentialVersion, local) => {
      running = EXEC_CREDENTIAL_COMMAND;
      const tool = await findTool('kubernetes-cluster-get-credentials');
      if (!tool) throw new Error('kubernetes-cluster-get-credentials is not in the kubernetes family');
      const before = program.opts<GlobalOptions>();
      const options = { ...before, ...local, ...mergeGuardFlags(before, local) };
      const { execute } = await import('./execute.js');
      exitCode = await execute(
        tool,
        { ID: cluster },
        options,
        new Map(),
        [],
        io,
        version,
        findTool,
        async (result) => execCredential(result, credentialVersion),
      );
    }),
  );

  /** A tool's command with name and summary only: flags are added when the command is run. */
  function toolCommand(tool: ToolEntry): Command {
    const hints = [
      tool.annotations.readOnlyHint ? 'read-only' : undefined,
      tool.annotations.destructiveHint ? 'DESTRUCTIVE' : undefined,
      tool.annotations.idempotentHint && !tool.annotations.readOnlyHint ? 'idempotent' : undefined,
    ].filter(Boolean);
    const command = new Command(tool.name)
      .summary(tool.title)
      .description(
        `${tool.description}${tool.details ? `\n\n${tool.details}` : ''}${hints.length ? `\n(${hints.join(', ')})` : ''}`,
      )
      .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
      .exitOverride()
      .showSuggestionAfterError(true);
    flagged.set(command, tool);
    return command;
  }

  // Converting a schema into flags costs time; do it only for the tool being run.
  program.hook('preSubcommand', (_program, command) => {
    const tool = flagged.get(command);
    if (tool) addFlags(command, tool);
  });

  function addFlags(command: Command, tool: ToolEntry): void {
    const line = addToolFlags(command, tool, [...connectionOptions(io.env), ...plumbingOptions(tool)]);
    flagFor = line.flagFor;
    running = tool.name;
    command.action(async () => {
      const { local, each, use } = line.read(command);
      const before = program.opts<GlobalOptions>();
      const options = { ...before, ...local, ...mergeGuardFlags(before, local) };
      // Once per id given first (`vm-delete 1 2`), stopping at the first that fails.
      const { execute } = await import('./execute.js');
      for (const args of each) {
        // An argument left out that doctl lets be left out: the tool that takes none runs.
        const instead = line.substitutes.find((entry) => args[entry.argument] === undefined);
        // A switch given (`cluster delete --dangerous`): the tool it names runs on the same arguments.
        const name = use ?? instead?.use ?? tool.name;
        const run = (await findTool(name)) || (await findTool(tool.name));
        if (!run) throw new Error(`${tool.name} is in the tool index but not in its family`);
        exitCode = await execute(run, args, options, line.named, line.defaults, io, version, findTool);
        if (exitCode !== EXIT.ok) break;
      }
    });
  }

  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.ok;
  }
  if (argv[0] === COMPLETE_COMMAND) {
    io.stdout(completeCommand(argv.slice(1), program, families));
    return EXIT.ok;
  }
  const help = helpFor(argv, families, program);
  if (help) {
    io.stdout(help);
    return EXIT.ok;
  }
  // Commander's own refusals (a missing argument, a value not among the choices) read like ours.
  for (const command of everyCommand(program)) {
    command.configureOutput({
      outputError: (text, write) => write(commanderMessage(text, commandPath(command))),
    });
  }
  try {
    await program.parseAsync(joinCommandWords(argv, program, families), { from: 'user' });
    return exitCode;
  } catch (error) {
    return await reportError(error, io, flagFor, running);
  }
}

function* everyCommand(command: Command): Generator<Command> {
  yield command;
  for (const sub of command.commands) yield* everyCommand(sub);
}

/** `cloudcall auth switch`: the words that run a command. */
function commandPath(command: Command): string {
  const words: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) words.unshift(at.name());
  return words.join(' ');
}

/**
 * Commander's `error: unknown option '--x'` as `cloudcall: unknown option '--x'`, with a hint to
 * the command's help. Its own suggestion (`(Did you mean --y?)`) stays.
 */
export function commanderMessage(text: string, command: string): string {
  const message = text.replace(/^error: /, '').trimEnd();
  return `cloudcall: ${message}\nhint: ${command} --help shows its usage\n`;
}

/**
 * The families whose tools a run makes commands of, loaded from the build-time index: the family
 * of the tool it names (`cloudcall [options] vm-list ...`), or all of them for anything else (help,
 * `<resource> <verb>`, completion, a misspelt tool to suggest names for).
 */
export function familiesFor(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): Promise<readonly FamilyEntry[]> {
  return indexFor(toolNamed(argv, env));
}

/** The index entries of `tool`'s family, or of every family when no tool is named. */
function indexFor(tool: string | undefined): Promise<readonly FamilyEntry[]> {
  return loadIndex(tool === undefined ? undefined : [familyOf(tool) as FamilyName]);
}

/** The tool a command line names first, after cloudcall's own options; undefined for anything else. */
export function toolNamed(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): string | undefined {
  const at = commandWordIndex(argv, connectionOptions(env));
  const word = at === -1 ? undefined : (argv[at] as string);
  return word !== undefined && familyOf(word) !== undefined ? word : undefined;
}

async function reportError(
  error: unknown,
  io: Io,
  flagFor: (argument: string) => string,
  running: string | undefined,
): Promise<number> {
  if (error instanceof CommanderError) {
    // Commander has already printed its message (or the help / version asked for).
    if (
      error.code === 'commander.helpDisplayed' ||
      error.code === 'commander.version' ||
      error.code === 'commander.help'
    ) {
      return EXIT.ok;
    }
    return EXIT.input;
  }
  if (error instanceof CommandWordError) {
    io.stderr(`cloudcall: ${error.problem.message}\nhint: ${error.problem.hint}\n`);
    return EXIT.input;
  }
  if (
    error instanceof FlagError ||
    error instanceof InputError ||
    error instanceof UnknownFlagError ||
    error instanceof QueryError ||
    error instanceof ColumnError
  ) {
    const issues =
      error instanceof InputError
        ? error.issues
        : error instanceof FlagError
          ? [{ argument: error.argument, message: error.detail }]
          : [{ argument: '', message: error.message }];
    const what = issues
      .map(({ argument, message }) => (argument ? `${flagFor(argument)}: ${message}` : message))
      .join('; ');
    const hint =
      running && !(error instanceof ColumnError) ? `hint: cloudcall ${running} --help lists its flags\n` : '';
    io.stderr(`cloudcall: invalid input: ${showControls(what)}\n${hint}`);
    return EXIT.input;
  }
  if (error instanceof SignInError) {
    io.stderr(`cloudcall: ${showControls(error.message)}\nhint: ${error.hint}\n`);
    return EXIT.api;
  }
  // The same hint the MCP server gives, from the same tables (loaded only now: they read the API's
  // operation model, a fifth of what a command would load otherwise).
  const { hintFor } = await import('@cloudcall/catalog/hints');
  const hint = hintFor(error);
  const hintLine = hint ? `hint: ${hint}\n` : '';
  if (error instanceof ApiError) {
    io.stderr(`cloudcall: ${showControls(error.summary)}\n${hintLine}`);
    return EXIT.api;
  }
  if (error instanceof CloudcallError && error.kind === 'network') {
    io.stderr(`cloudcall: network error: ${showControls(error.message)}\n${hintLine}`);
    return EXIT.network;
  }
  if (error instanceof CloudcallError && (error.kind === 'timeout' || error.kind === 'failed')) {
    io.stderr(`cloudcall: ${showControls(error.message)}\n`);
    return error.kind === 'timeout' ? EXIT.waitTimeout : EXIT.api;
  }
  if (error instanceof CloudcallError && error.kind === 'cancelled') {
    io.stderr('cloudcall: cancelled\n');
    return EXIT.cancelled;
  }
  io.stderr(`cloudcall: ${showControls(describeError(error))}\n`);
  return EXIT.internal;
}
