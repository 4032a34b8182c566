/**
 * Test helpers: the server as main.ts starts it (`startServer`: the same flags, variables,
 * start-up refusals, stdio and HTTP transports), in this process, with streams of the test's own
 * for stdin, stdout and stderr. The same helpers as ./process.js and ./client.js, without a Node
 * start per server:
 *
 *   const { url, output } = await startHttp(['--transport', 'http', '--port', '0', '--sandbox']);
 *   const { code, stderr } = await exitOf(['--sandbox', '--tools', 'vm-gett']);
 *   const { client } = await stdioClient(['--sandbox']);
 *   afterEach(killAll);
 *
 * What only a process does (signals, its own exit, the bundle's start-up) stays with ./process.js.
 */
import { PassThrough, type Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { StartExit, startServer } from '../start.js';
import { MAIN, serverEnv } from './client.js';
import { type RawStdio, rawLines } from './process.js';

/** A server started in this process, with what it wrote and how it ended. */
interface Started {
  stdin: PassThrough;
  stdout: PassThrough;
  /** stdout and stderr as they came. */
  output: () => string;
  stdoutText: () => string;
  stderr: () => string;
  /** The exit code it ended with (0 after its shutdown, 2 for refused flags). */
  exit: Promise<number>;
  /** Resolves once it serves (or has ended): undefined, or its URL over HTTP. */
  started: Promise<string | undefined>;
  /** Its orderly shutdown, as SIGTERM starts it (a no-op once it has ended). */
  stop(): Promise<void>;
}

const running = new Set<Started>();

/** Stops every server these helpers started (`afterEach(killAll)`). */
export async function killAll(): Promise<void> {
  const all = [...running];
  running.clear();
  await Promise.all(all.map((server) => server.stop()));
}

function start(args: string[], env: Record<string, string>): Started {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let all = '';
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    all += chunk.toString();
  });
  const stderr = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      err += chunk.toString();
      all += chunk.toString();
      done();
    },
  });
  let ended: (code: number) => void = () => undefined;
  let code: number | undefined;
  const exit = new Promise<number>((resolve) => {
    ended = (value) => {
      code ??= value;
      resolve(code);
    };
  });
  const serving = startServer({
    argv: args,
    env: serverEnv(env),
    stdin,
    stdout,
    stderr,
    exit: ended,
    onSignal: () => undefined,
    entry: pathToFileURL(MAIN).href,
  }).then(
    (shutdown) => {
      if (!shutdown) ended(0);
      return shutdown;
    },
    (error: unknown) => {
      if (error instanceof StartExit) ended(error.code);
      else {
        stderr.write(`[cloudcall-mcp] fatal: ${error instanceof Error ? error.message : String(error)}\n`);
        ended(1);
      }
      return undefined;
    },
  );
  const server: Started = {
    stdin,
    stdout,
    output: () => all,
    stdoutText: () => out,
    stderr: () => err,
    exit,
    started: serving.then(() => /listening on (http:\/\/\S+\/mcp)/.exec(all)?.[1]),
    stop: async () => {
      const shutdown = await serving;
      stdin.end();
      if (code === undefined) await shutdown?.();
    },
  };
  running.add(server);
  return server;
}

/** Starts the server and resolves with its URL (from its start-up text) and its output so far. */
export async function startHttp(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ url: string; output: () => string; stop: () => Promise<void>; exit: Promise<number> }> {
  const server = start(args, env);
  const url = await server.started;
  if (!url) throw new Error(`no URL printed; output: ${server.output()}`);
  return { url, output: server.output, stop: server.stop, exit: server.exit };
}

/** Runs the server to its exit (a refusal, `--help`) and resolves with its exit code and output. */
export async function exitOf(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const server = start(args, env);
  const code = await server.exit;
  running.delete(server);
  return { code, stderr: server.stderr(), stdout: server.stdoutText() };
}

/** The client side of stdio over the server's streams, as the SDK's StdioClientTransport reads a child's. */
class StreamClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      try {
        for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage())
          this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    });
    this.input.on('end', () => this.onclose?.());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.output.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.output.end();
    this.onclose?.();
  }
}

/** Starts the server on stdio and connects the SDK client to it. */
export async function stdioClient(
  args: string[],
  env: Record<string, string> = {},
  options: ConstructorParameters<typeof Client>[1] = {},
): Promise<{ client: Client; stderr: () => string; close: () => Promise<void> }> {
  const server = start(args, env);
  const client = new Client({ name: 'cloudcall-test', version: '1.0.0' }, options);
  await client.connect(new StreamClientTransport(server.stdout, server.stdin));
  return {
    client,
    stderr: server.stderr,
    close: async () => {
      await client.close();
      await server.stop();
    },
  };
}

/**
 * Starts the server on stdio and gives the client side of its streams as a transport, for any
 * client (the SDK's v2 client at 2026-07-28 as well as 1.x's).
 */
export function stdioTransport(
  args: string[],
  env: Record<string, string> = {},
): { transport: Transport; stderr: () => string; stop: () => Promise<void> } {
  const server = start(args, env);
  return {
    transport: new StreamClientTransport(server.stdout, server.stdin),
    stderr: server.stderr,
    stop: server.stop,
  };
}

/** The server on stdio, spoken to in raw lines (as ./process.js's rawStdio). */
export function rawStdio(args: string[], env: Record<string, string> = {}): RawStdio {
  const server = start(args, env);
  return rawLines({ stdin: server.stdin, stdout: server.stdout, stderr: server.stderr, exited: server.exit });
}
