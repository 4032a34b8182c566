/**
 * `cloudcall auth init|login|list|switch|remove`: contexts, as doctl users know them. `init` reads
 * a token (from a pipe, or a hidden prompt on a terminal), checks it with account-get-information,
 * and saves it; `login` signs in at the authorization server in a browser (oauth.ts); no command
 * prints a token whole.
 */
import { loadFamily } from '@cloudcall/catalog/lazy';
import { CancelledError, InputError } from '@cloudcall/core';
import { maskToken } from '@cloudcall/core/internal';
import { Command } from 'commander';
import {
  type Config,
  configPath,
  DEFAULT_CONTEXT,
  DEFAULT_ISSUER,
  readConfig,
  updateConfig,
} from './config.js';
import { formatFor, type OutputFormat, outputOption } from './output.js';

export interface AuthIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  isTty: boolean;
  stdin?: (NodeJS.ReadableStream & { isTTY?: boolean }) | undefined;
  signal?: AbortSignal | undefined;
}

interface AuthOptions {
  apiUrl?: string;
  token?: string;
  output?: OutputFormat;
}

/**
 * The `auth` command. `globals` gives cloudcall's own options (`--api-url`, `-t`, `-o`), which
 * may come before `auth`; `done` receives the exit code.
 */
export function authCommand(io: AuthIo, version: string, globals: () => AuthOptions): Command {
  const path = () => configPath(io.env);
  // Set before the subcommands are made, which inherit it: errors reach the caller as exit codes.
  const auth = new Command('auth')
    .description('Manage contexts: named API tokens kept in the config file.')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride();
  auth
    .command('init')
    .description(
      'Read a token (piped on stdin, or typed at a hidden prompt), check it with account-get-information, and save it as a context, which becomes the current one.',
    )
    .option('--context <name>', 'context name', DEFAULT_CONTEXT)
    .option('--api-url <url>', 'API base URL this context talks to (default: the platform)')
    .action(async (options: { context: string; apiUrl?: string }) => {
      const apiUrl = options.apiUrl ?? globals().apiUrl;
      const token = globals().token?.trim() || (await readToken(io));
      if (!token) throw new InputError('no token given: pipe it on stdin or type it at the prompt');
      // The client and the account family, as a command that runs a tool loads them.
      const [{ createClient, runTool }, family] = await Promise.all([
        import('./execute.js'),
        loadFamily('account'),
      ]);
      const client = createClient({
        token,
        baseUrl: apiUrl,
        userAgentSuffix: `cli/${version}`,
        transport: 'node',
      });
      let email: unknown;
      try {
        const tool = family.tools.find((t) => t.name === 'account-get-information');
        const answer = (await runTool(
          tool as NonNullable<typeof tool>,
          {},
          { client, signal: io.signal },
        )) as {
          account?: { email?: unknown };
        };
        email = answer.account?.email;
      } finally {
        await client.close();
      }
      const file = path();
      await updateConfig(file, (config) => {
        config.contexts[options.context] = apiUrl ? { token, apiUrl } : { token };
        config.current = options.context;
      });
      io.stderr(
        `cloudcall: token ${maskToken(token)} works${typeof email === 'string' ? ` (account ${email})` : ''}; saved as context ${options.context} in ${file}, now the current context.\n`,
      );
    });
  auth
    .command('login')
    .description(
      'Sign in at the authorization server in a browser (OAuth authorization code with PKCE; the CLI registers itself there unless --client-id names a client), and save the tokens as a context, which becomes the current one. The access token is refreshed before a command when it is about to expire. Nothing secret is printed.',
    )
    .option('--context <name>', 'context name', DEFAULT_CONTEXT)
    .option(
      '--scopes <list>',
      "scopes to ask for, comma-separated, such as droplet:read,droplet:create (default: every scope of the platform's API)",
    )
    .option('--issuer <url>', `the authorization server (default ${DEFAULT_ISSUER})`)
    .option('--client-id <id>', 'a client already registered there (default: register one)')
    .option('--api-url <url>', 'API base URL this context talks to (default: the platform)')
    .option('--no-browser', 'do not open a browser: print the address to open')
    .action(
      async (options: {
        context: string;
        scopes?: string;
        issuer?: string;
        clientId?: string;
        apiUrl?: string;
        browser: boolean;
      }) => {
        const scopes = options.scopes
          ?.split(/[\s,]+/)
          .map((scope) => scope.trim())
          .filter(Boolean);
        if (options.scopes !== undefined && !scopes?.length) {
          throw new InputError('--scopes needs at least one scope, such as droplet:read,droplet:create');
        }
        const { login } = await import('./oauth.js');
        io.stderr(
          await login(io, {
            path: path(),
            context: options.context,
            issuer: options.issuer,
            scopes,
            clientId: options.clientId,
            apiUrl: options.apiUrl ?? globals().apiUrl,
            noBrowser: !options.browser,
          }),
        );
      },
    );
  auth
    .command('list')
    .description(
      'List the contexts, the current one marked: how each signed in (token: auth init; oauth: auth login), tokens masked, when an OAuth access token expires.',
    )
    .addOption(outputOption())
    .action(async (options: { output?: OutputFormat }) => {
      const config = readConfig(path());
      const contexts = Object.entries(config.contexts).map(([name, context]) => ({
        name,
        current: name === config.current,
        kind: context.oauth ? 'oauth' : 'token',
        token: maskToken(context.token),
        expires: context.oauth?.expiresAt ?? '',
        issuer: context.oauth?.issuer ?? '',
        api_url: context.apiUrl ?? '',
      }));
      const format = options.output ?? globals().output ?? (io.isTty ? 'table' : 'json');
      io.stdout(await formatFor({ contexts }, format, io));
    });
  auth
    .command('switch')
    .description('Make a context the current one.')
    .argument('[name]', 'context name (auth list shows them)')
    .option('--context <name>', 'the same, as doctl spells it')
    .action(async (given: string | undefined, options: { context?: string }) => {
      const name = contextName('switch', given, options.context);
      await updateConfig(path(), (config) => {
        known(config, name);
        config.current = name;
      });
      io.stderr(`cloudcall: the current context is now ${name}.\n`);
    });
  auth
    .command('remove')
    .description(
      'Remove a context and its token from the config file; for one made by auth login, its refresh token is revoked at the authorization server first, where it offers that.',
    )
    .argument('[name]', 'context name (auth list shows them)')
    .option('--context <name>', 'the same, as doctl spells it')
    .action(async (given: string | undefined, options: { context?: string }) => {
      const name = contextName('remove', given, options.context);
      const removed = await updateConfig(path(), (config) => {
        known(config, name);
        const context = config.contexts[name];
        delete config.contexts[name];
        if (config.current === name) delete config.current;
        return context;
      });
      // Gone from the file whatever the server says; a refresh token left good there is said.
      const revoked = removed?.oauth ? await (await import('./oauth.js')).revoke(removed.oauth) : '';
      io.stderr(`cloudcall: removed context ${name}${revoked}.\n`);
    });
  return auth;
}

/** The context a command names, first or as `--context` (doctl's way): one of them, once. */
function contextName(verb: string, given: string | undefined, flag: string | undefined): string {
  if (given !== undefined && flag !== undefined && given !== flag) {
    throw new InputError(`--context: given twice (${given} and --context ${flag})`);
  }
  const name = given ?? flag;
  if (name === undefined) {
    throw new InputError(
      `name the context: cloudcall auth ${verb} NAME (or --context NAME); auth list shows them`,
    );
  }
  return name;
}

function known(config: Config, name: string): void {
  if (config.contexts[name]) return;
  const names = Object.keys(config.contexts);
  throw new InputError(
    `no context named ${JSON.stringify(name)}${names.length ? ` (there are: ${names.join(', ')})` : ' (there are none yet: cloudcall auth init adds one)'}`,
  );
}

/** A token from a pipe (its first line), or typed at a hidden prompt on a terminal. */
async function readToken(io: AuthIo): Promise<string> {
  const stdin = io.stdin;
  if (!stdin) return '';
  if (stdin.isTTY) {
    // A maintained prompt that hides what is typed; it writes to stderr, keeping stdout clean.
    const { default: password } = await import('@inquirer/password');
    try {
      return await password({ message: 'API token (input hidden):', mask: '*' }, { output: process.stderr });
    } catch (error) {
      // Ctrl+C at the prompt is a cancel, as at the guard's y/N (exit 130), not an internal error.
      if (error instanceof Error && error.name === 'ExitPromptError') {
        throw new CancelledError('the token prompt was cancelled; nothing was saved.');
      }
      throw error;
    }
  }
  let text = '';
  for await (const chunk of stdin) text += chunk.toString();
  return (
    text
      .split(/\r?\n/)
      .find((line) => line.trim() !== '')
      ?.trim() ?? ''
  );
}
