/**
 * Test harness: the MCP server in this process, built with `createLegacyServer` from the options
 * main.ts builds from its flags, and the official SDK client talking to it over the SDK's
 * in-memory transport; tools run against the real sandbox on loopback (in memory, or on a state
 * file) or against an API at `apiUrl`. No process is started, so a test file pays for no spawn.
 *
 *   const server = await inProcessServer({ families: 'account,vms', sandboxState: path });
 *   const result = await call(server.client, 'vm-create', { ... });   // call() from ./client.js
 *   await server.sandbox.advanceClock(5_000);                        // the wait tool's clock too
 *   expect(server.log()).toMatch(/tool vm-create: ok/);
 *   await server.close();
 *
 * What only the process does (parsing flags and variables, exit codes, start-up lines, stdio
 * framing, HTTP) is tested through the built app: ./client.js (stdioClient) and ./process.js.
 */
import { chooseFamilies, parseToolList, selectTools } from '@cloudcall/catalog/select';
import type { ToolClock } from '@cloudcall/core';
import { sleep } from '@cloudcall/core/internal';
import { connectSandbox, type Sandbox } from '@cloudcall/sandbox';
import { Client as ModernClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpHandler } from '@modelcontextprotocol/server';
import packageJson from '../../package.json' with { type: 'json' };
import { apiClients } from '../clients.js';
import { startGuard } from '../guard.js';
import { LISTING } from '../listing.generated.js';
import { createModernServer } from '../modern.js';
import { memorySpent, stateKey, stateSeal } from '../request-state.js';
import { createLegacyServer, type McpServerOptions, type ToolMode } from '../server.js';
import { createToolCall } from '../tool-call.js';
import { familiesByDefault } from '../tool-data.js';

/** The server's flags, by the name of the flag each stands for. */
export interface InProcessOptions {
  /** `--sandbox-state FILE`; the sandbox keeps its state in memory when absent. */
  sandboxState?: string;
  /**
   * The sandbox's real clock (Date.now when absent): one that stands still leaves only
   * `advanceClock` to move sandbox time, so a VM boots when the test says, however slow the machine.
   */
  sandboxNow?: () => number;
  /** `--api-url URL` with `DIGITALOCEAN_API_TOKEN`: an API stand-in instead of the sandbox. */
  api?: { url: string; token: string };
  families?: string;
  tools?: string;
  excludeTools?: string;
  readOnly?: boolean;
  toolMode?: ToolMode;
  showSecrets?: boolean;
  confirm?: string;
  protect?: string[];
  policy?: string;
  auditLog?: string;
  quota?: string;
  redis?: string;
  /** The MCP client's own options (its capabilities, such as `elicitation`). */
  client?: ConstructorParameters<typeof Client>[1];
}

export interface InProcessServer {
  client: Client;
  /** A client at protocol revision 2026-07-28 (the SDK's v2 line), through the modern path in process. */
  modernClient(options?: ConstructorParameters<typeof ModernClient>[1]): Promise<ModernClient>;
  /** The sandbox the tools talk to (absent with `api`): move its clock, inject faults. */
  sandbox: Sandbox | undefined;
  /**
   * How many waits are sleeping now on the clock tools wait by: 0 once a cancelled or finished
   * wait has stopped, which a test checks instead of sleeping to see that nothing more happens.
   */
  sleeping(): number;
  /** What the server logged, as the process writes it to stderr (`[cloudcall-mcp] tool ...`). */
  log(): string;
  close(): Promise<void>;
}

export async function inProcessServer(options: InProcessOptions = {}): Promise<InProcessServer> {
  const families = chooseFamilies(
    options.families ?? familiesByDefault(options.toolMode === 'dynamic', options.tools),
    LISTING.families,
  );
  const selected = selectTools(LISTING.tools, {
    families: families.map((family) => family.name),
    defaultFamilies: options.families === undefined,
    readOnly: Boolean(options.readOnly),
    include: options.tools === undefined ? undefined : parseToolList(options.tools),
    exclude: options.excludeTools === undefined ? undefined : parseToolList(options.excludeTools),
  });
  let lines = '';
  const log = (line: string) => {
    lines += `[cloudcall-mcp] ${line}\n`;
  };
  const guard = await startGuard(
    {
      confirm: options.confirm,
      protect: options.protect,
      policy: options.policy,
      'audit-log': options.auditLog,
      quota: options.quota,
      redis: options.redis,
    },
    { info: log, warn: log },
  );

  let sandbox: Sandbox | undefined;
  let clock: ToolClock | undefined;
  let api: ReturnType<typeof apiClients>['client'];
  let closeApi: () => Promise<void>;
  const version = packageJson.version;
  if (options.api) {
    const clients = apiClients({
      token: options.api.token,
      baseUrl: options.api.url,
      userAgentSuffix: `mcp-server/${version}`,
    });
    api = clients.client;
    closeApi = clients.close;
  } else {
    const connection = await connectSandbox({ statePath: options.sandboxState, now: options.sandboxNow });
    const ready = Promise.resolve(connection.client);
    api = () => ready;
    sandbox = connection.sandbox;
    clock = connection.clock;
    closeApi = connection.close;
  }

  let sleeping = 0;
  const tracked = clock ?? { now: () => Date.now(), sleep };
  const serverOptions: McpServerOptions = {
    client: api,
    clock: {
      now: tracked.now,
      sleep: async (ms, signal) => {
        sleeping++;
        try {
          await tracked.sleep(ms, signal);
        } finally {
          sleeping--;
        }
      },
    },
    tools: selected.tools,
    hidden: selected.hidden,
    families,
    toolMode: options.toolMode ?? 'static',
    version,
    sandbox: !options.api,
    showSecrets: Boolean(options.showSecrets),
    guard,
    log,
    requestState: { seal: stateSeal(stateKey(undefined)), spent: memorySpent() },
  };
  const server = createLegacyServer(serverOptions);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'cloudcall-test', version: '1.0.0' }, options.client ?? {});
  await client.connect(clientSide);
  const modernClients: ModernClient[] = [];
  return {
    client,
    async modernClient(clientOptions = {}) {
      // The SDK's per-request handler, called in process: its fetch serves the client's requests.
      const call = createToolCall(serverOptions);
      const handler = createMcpHandler(() => createModernServer(serverOptions, call), { legacy: 'reject' });
      const modern = new ModernClient(
        { name: 'cloudcall-test', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } }, ...clientOptions },
      );
      await modern.connect(
        new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
          fetch: (url, init) => handler.fetch(new Request(url, init)),
        }),
      );
      modernClients.push(modern);
      return modern;
    },
    sandbox,
    sleeping: () => sleeping,
    log: () => lines,
    close: async () => {
      for (const modern of modernClients) await modern.close();
      await client.close();
      await server.close();
      await closeApi();
      await guard.quota?.counter.close();
      await guard.redis?.close();
    },
  };
}
