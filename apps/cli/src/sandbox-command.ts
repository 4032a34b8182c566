/**
 * `cloudcall sandbox serve|reset|status`: the sandbox on its own, for doctl, Terraform, the
 * cloudcall apps or any client of the platform API, over the state file the apps' `--sandbox`
 * shares by default.
 */
import { InputError } from '@cloudcall/core';
import { Command, Option } from 'commander';
import { formatFor, type OutputFormat, outputOption } from './output.js';

export interface SandboxIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  isTty: boolean;
  signal?: AbortSignal | undefined;
}

export const DEFAULT_SANDBOX_PORT = 4010;

/** How to point each kind of client at a sandbox server. */
export function pointers(url: string, token: string): string {
  return [
    `The platform API v2 is served at ${url} (any token works; nothing is real or billed).`,
    'Point your tools at it:',
    `  doctl:      doctl --api-url ${url} --access-token ${token} compute droplet list`,
    `  Terraform:  provider "digitalocean" { api_endpoint = "${url}"  token = "${token}" }`,
    `  cloudcall:  cloudcall --api-url ${url} -t ${token} vm-list`,
    `  MCP server: DIGITALOCEAN_API_TOKEN=${token} cloudcall-mcp --api-url ${url}`,
    'Ctrl-C stops it.',
    '',
  ].join('\n');
}

/**
 * The `sandbox` command. `globals` gives cloudcall's own options (`--sandbox-state`, `-o`); a
 * subcommand's `--state` wins over `--sandbox-state`.
 */
export function sandboxCommand(
  io: SandboxIo,
  globals: () => { sandboxState?: string; output?: OutputFormat },
): Command {
  const sandbox = new Command('sandbox')
    .description('Run the offline sandbox on its own, reset it, or count what it holds.')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride();
  const stateOption = () =>
    new Option('--state <file>', 'state file (default: the one --sandbox uses; :memory: for none)');
  const load = () => import('@cloudcall/sandbox');
  const statePath = async (state: string | undefined) =>
    (await load()).statePathFor(state ?? globals().sandboxState, io.env);

  sandbox
    .command('serve')
    .description('Serve the sandbox on loopback until Ctrl-C, printing its URL and how to point tools at it.')
    .addOption(new Option('--port <port>', 'port (0 picks a free one)').default(String(DEFAULT_SANDBOX_PORT)))
    .addOption(stateOption())
    .action(async (options: { port: string; state?: string }) => {
      const port = Number(options.port);
      if (!/^\d+$/.test(options.port) || port > 65535) {
        throw new InputError(`must be a port number, not ${options.port}`, '--port');
      }
      const { startSandbox, SANDBOX_TOKEN } = await load();
      const path = await statePath(options.state);
      const server = await startSandbox({ port, statePath: path }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EADDRINUSE') throw error;
        throw new InputError(`port ${port} is in use; choose another (0 picks a free one)`, '--port');
      });
      io.stdout(`${server.url}\n`);
      io.stderr(`${pointers(server.url, SANDBOX_TOKEN)}State: ${path ?? 'in memory'}\n`);
      await new Promise<void>((resolve) => {
        if (!io.signal || io.signal.aborted) resolve();
        else io.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await server.close();
      io.stderr('cloudcall: sandbox stopped.\n');
    });
  sandbox
    .command('reset')
    .description('Replace the sandbox state with a fresh one (every resource created is gone).')
    .addOption(stateOption())
    .action(async (options: { state?: string }) => {
      const path = await statePath(options.state);
      const store = await (await load()).openState(path);
      await store.reset();
      io.stderr(`cloudcall: sandbox state ${path ?? 'in memory'} reset.\n`);
    });
  sandbox
    .command('status')
    .description('Count what the sandbox holds, per kind of resource.')
    .addOption(stateOption())
    .addOption(outputOption())
    .action(async (options: { state?: string; output?: OutputFormat }) => {
      const path = await statePath(options.state);
      const { openState, stateCounts } = await load();
      const counts = await (await openState(path)).read(stateCounts);
      const resources = Object.entries(counts).map(([resource, count]) => ({ resource, count }));
      const result = { resources, state: path ?? ':memory:' };
      const format = options.output ?? globals().output ?? (io.isTty ? 'table' : 'json');
      io.stdout(await formatFor(result, format, io));
    });
  return sandbox;
}
