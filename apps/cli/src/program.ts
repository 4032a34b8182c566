/**
 * The command line, built from the tool definitions: every tool a command named as the tool,
 * every argument a flag named as the argument, help generated from the schema.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { families as allFamilies, hintFor } from '@cloudcall/catalog';
import {
  type AnyTool,
  type ApiClient,
  ApiError,
  CloudcallError,
  createClient,
  DEFAULT_BASE_URL,
  describeError,
  InputError,
  inputJsonSchema,
  maskSecrets,
  resolveCredentials,
  TOKEN_ENV_VARS,
  type ToolFamily,
  type ToolProgress,
} from '@cloudcall/core';
import { Command, CommanderError, Option } from 'commander';
import { FlagError, flagsOf, type JsonSchema, readFlag } from './flags.js';
import { auditCommand, type GuardFlags, guardOptions, mergeGuardFlags, startGuard } from './guard.js';
import { formatResult, type OutputFormat } from './output.js';

/** Exit codes, documented in the README. */
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
  /** Asks a question on the terminal (a destructive tool's y/N); absent when stdin is not one. */
  ask?: (question: string) => Promise<string | undefined>;
  signal?: AbortSignal;
}

interface GlobalOptions extends GuardFlags {
  apiUrl?: string;
  sandbox?: boolean;
  sandboxState?: string;
  output?: OutputFormat;
  showSecrets?: boolean;
}

/** Where `--sandbox` keeps its world between commands by default. */
export function defaultSandboxState(env: Record<string, string | undefined>): string {
  const base =
    env.XDG_CONFIG_HOME ||
    (process.platform === 'win32' && env.APPDATA) ||
    join(env.HOME || homedir(), '.config');
  return join(base, 'cloudcall', 'sandbox.json');
}

function toolList(families: readonly ToolFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`${family.title} (${family.tools.length} tools): ${family.description}`);
    if (family.tools.length === 0) lines.push('  (no tools yet)');
    const width = Math.max(0, ...family.tools.map((tool) => tool.name.length));
    for (const tool of family.tools) lines.push(`  ${tool.name.padEnd(width)}  ${tool.title}`);
    lines.push('');
  }
  return lines.join('\n');
}

/** The options that say where and how to talk: valid before the tool name and after it. */
function connectionOptions(env: Record<string, string | undefined>): Option[] {
  return [
    new Option('--api-url <url>', `API base URL (default ${DEFAULT_BASE_URL})`),
    new Option('--sandbox', 'use the built-in offline sandbox instead of the real API'),
    new Option('--sandbox-state <file>', `sandbox state file (default ${defaultSandboxState(env)})`),
    new Option('--show-secrets', 'show secrets (database passwords) in results instead of hiding them'),
    new Option(
      '-o, --output <format>',
      'json or table (default: table on a terminal, JSON when piped)',
    ).choices(['json', 'table']),
    ...guardOptions(),
  ];
}

/** Runs the CLI with the given argv (without node and script) and returns the exit code. */
export async function runCli(argv: string[], io: Io, version: string): Promise<number> {
  const families = allFamilies;
  let exitCode: number = EXIT.ok;
  let renderingHelp = false;
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
    .usage('[options] <tool> [tool flags]')
    .exitOverride()
    .addHelpText(
      'after',
      `\nTools:\n\n${toolList(families)}Run "cloudcall <tool> --help" for a tool's flags.\n\nAuthentication: set ${TOKEN_ENV_VARS[0]} (or ${TOKEN_ENV_VARS[1]}), or pass --sandbox.\nExit codes: 0 ok, 2 invalid input, 3 API error, 4 network error, 1 anything else.`,
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

  program.addCommand(
    auditCommand(io, (code) => {
      exitCode = code;
    }),
  );
  const flagged = new Map<Command, AnyTool>();
  for (const family of families) {
    for (const tool of family.tools) program.addCommand(toolCommand(tool));
  }

  /** A tool's command with name and summary only: flags are added when the command is run. */
  function toolCommand(tool: AnyTool): Command {
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

  function addFlags(command: Command, tool: AnyTool): void {
    const flags = flagsOf(inputJsonSchema(tool) as JsonSchema);
    const byAttribute = new Map<string, (typeof flags)[number]>();
    for (const flag of flags) {
      const value =
        flag.kind === 'boolean'
          ? ' [true|false]'
          : flag.kind === 'array' || flag.kind === 'object'
            ? ' <json>'
            : ' <value>';
      const extra = [
        flag.required ? 'required' : undefined,
        flag.choices ? `one of ${flag.choices.join(', ')}` : undefined,
        flag.defaultValue !== undefined ? `default ${JSON.stringify(flag.defaultValue)}` : undefined,
        flag.kind === 'array' ? 'JSON array, or comma-separated' : undefined,
        flag.kind === 'object' ? 'JSON object' : undefined,
      ].filter(Boolean);
      const option = new Option(
        `--${flag.name}${value}`,
        `${flag.description}${extra.length ? ` (${extra.join('; ')})` : ''}`,
      );
      byAttribute.set(option.attributeName(), flag);
      command.addOption(option);
    }
    const globals = new Set<string>();
    for (const option of connectionOptions(io.env)) {
      if (byAttribute.has(option.attributeName())) continue;
      globals.add(option.attributeName());
      command.addOption(option);
    }
    command.action(async (options: Record<string, string | boolean>) => {
      const args: Record<string, unknown> = {};
      const local: Record<string, unknown> = {};
      for (const [attribute, text] of Object.entries(options)) {
        const flag = byAttribute.get(attribute);
        if (flag) args[flag.name] = readFlag(flag, text);
        else if (globals.has(attribute)) local[attribute] = text;
      }
      const before = program.opts<GlobalOptions>();
      exitCode = await execute(tool, args, { ...before, ...local, ...mergeGuardFlags(before, local) });
    });
  }

  async function execute(
    tool: AnyTool,
    args: Record<string, unknown>,
    options: GlobalOptions,
  ): Promise<number> {
    const guard = startGuard(options, io, options.output);
    if (typeof guard === 'number') return guard;
    let client: ApiClient;
    let close: () => Promise<void>;
    if (options.sandbox) {
      // Loaded only when asked for: most runs talk to the real API.
      const { connectSandbox, StateFileError } = await import('@cloudcall/sandbox');
      let connection: Awaited<ReturnType<typeof connectSandbox>>;
      try {
        connection = await connectSandbox({ statePath: options.sandboxState ?? defaultSandboxState(io.env) });
      } catch (error) {
        // A state file that cannot be used is the caller's to fix, like any other bad input.
        if (!(error instanceof StateFileError)) throw error;
        io.stderr(`cloudcall: ${error.message}\n`);
        return EXIT.input;
      }
      client = connection.client;
      close = connection.close;
    } else {
      const credentials = resolveCredentials(io.env);
      if (!credentials) {
        io.stderr(
          `cloudcall: no API token. Set ${TOKEN_ENV_VARS[0]} (or ${TOKEN_ENV_VARS[1]}) to a personal access token, or pass --sandbox to work offline.\n`,
        );
        return EXIT.input;
      }
      client = createClient({
        token: credentials.token,
        baseUrl: options.apiUrl,
        userAgentSuffix: `cli/${version}`,
      });
      close = () => client.close();
    }
    try {
      const progress = io.stderrIsTty
        ? (update: ToolProgress) => io.stderr(`cloudcall: ${update.message}\n`)
        : undefined;
      const outcome = await guard.run(tool, args, { client, signal: io.signal, progress });
      if ('exit' in outcome) return outcome.exit;
      const { result } = outcome;
      const shown = options.showSecrets ? result : maskSecrets(result);
      io.stdout(formatResult(shown, options.output ?? (io.isTty ? 'table' : 'json'), io.isTty));
      return EXIT.ok;
    } finally {
      guard.close();
      await close();
    }
  }

  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.ok;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    return reportError(error, io);
  }
}

function reportError(error: unknown, io: Io): number {
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
  if (error instanceof FlagError || error instanceof InputError) {
    io.stderr(`cloudcall: invalid input: ${error.message}\n`);
    return EXIT.input;
  }
  // The same hint the MCP server gives, from the same tables.
  const hint = hintFor(error);
  const hintLine = hint ? `hint: ${hint}\n` : '';
  if (error instanceof ApiError) {
    io.stderr(`cloudcall: ${error.summary}\n${hintLine}`);
    return EXIT.api;
  }
  if (error instanceof CloudcallError && error.kind === 'network') {
    io.stderr(`cloudcall: network error: ${error.message}\n${hintLine}`);
    return EXIT.network;
  }
  if (error instanceof CloudcallError && (error.kind === 'timeout' || error.kind === 'failed')) {
    io.stderr(`cloudcall: ${error.message}\n`);
    return error.kind === 'timeout' ? EXIT.waitTimeout : EXIT.api;
  }
  if (error instanceof CloudcallError && error.kind === 'cancelled') {
    io.stderr('cloudcall: cancelled\n');
    return EXIT.cancelled;
  }
  io.stderr(`cloudcall: ${describeError(error)}\n`);
  return EXIT.internal;
}
