/**
 * Test helpers: the built server as a process, over Streamable HTTP or raw stdio lines.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import { MAIN, serverEnv } from './client.js';

const children = new Set<ChildProcess>();

/** Stops every server these helpers started (call it in afterEach). */
export function killAll(): void {
  for (const child of children) child.kill('SIGTERM');
  children.clear();
}

/** Starts the server and resolves with its URL (read from the start-up text) and its output so far. */
export function startHttp(
  args: string[],
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<{ url: string; output: () => string; child: ChildProcess }> {
  const child = spawn(process.execPath, [...nodeArgs, MAIN, ...args], {
    env: serverEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed; output: ${output}`)), 15_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+\/mcp)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ url, output: () => output, child });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
}

/** Runs the server to its exit and resolves with its exit code and output. */
export function exitOf(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: serverEnv(env) });
    children.add(child);
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.on('exit', (code) => resolve({ code, stderr, stdout }));
  });
}

/** Resolves once `output()` matches `pattern`, checking as output arrives (no fixed sleep). */
export async function waitForOutput(
  output: () => string,
  pattern: RegExp,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(output())) {
    if (Date.now() > deadline) throw new Error(`output never matched ${pattern}: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The JSON-RPC message of the answer: the JSON body, or the first `data:` event of an SSE body. */
  json: unknown;
}

/**
 * One HTTP request through node:http, which (unlike fetch) lets a test set `Host` and `Origin`.
 * Sends the Accept header Streamable HTTP requires unless `headers` overrides it.
 */
export function httpRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<HttpAnswer> {
  const target = new URL(url);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port,
        path: target.pathname,
        method: options.method ?? 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          const data = /^data: (.*)$/m.exec(text)?.[1];
          let json: unknown;
          try {
            json = JSON.parse(data ?? text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
} as const;

/** Opens a session with raw requests (initialize, then initialized) and returns its id. */
export async function openSession(url: string, headers: Record<string, string> = {}): Promise<string> {
  const answer = await httpRequest(url, { body: INITIALIZE, headers });
  const id = answer.headers['mcp-session-id'];
  if (answer.status !== 200 || typeof id !== 'string') {
    throw new Error(`initialize answered ${answer.status}: ${answer.text}`);
  }
  const initialized = await httpRequest(url, {
    body: { jsonrpc: '2.0', method: 'notifications/initialized' },
    headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18', ...headers },
  });
  if (initialized.status !== 202) throw new Error(`initialized answered ${initialized.status}`);
  return id;
}

/** The server on stdio, spoken to in raw lines. */
export interface RawStdio {
  /** Writes text to the server's stdin as is (add the newline yourself). */
  write(text: string | Buffer): Promise<void>;
  /** Sends one JSON-RPC message as a line. */
  send(message: unknown): Promise<void>;
  /** The next JSON-RPC line the server writes on stdout, parsed. */
  next(): Promise<Record<string, unknown>>;
  /** Closes stdin, then resolves with the exit code (rejects if the server is still running after 10 s). */
  end(): Promise<number | null>;
  stderr(): string;
}

export function rawStdio(args: string[], env: Record<string, string> = {}): RawStdio {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: serverEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.add(child);
  // A server that has exited (or stopped reading) is for the test to notice, not an EPIPE crash.
  child.stdin.on('error', () => undefined);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return rawLines({ stdin: child.stdin, stdout: child.stdout, stderr: () => stderr, exited });
}

/** A server's stdin and stdout spoken to in raw lines, whether it runs as a process or in this one. */
export function rawLines(server: {
  stdin: Writable;
  stdout: Readable;
  stderr: () => string;
  /** Its exit code, once it has exited. */
  exited: Promise<number | null>;
}): RawStdio {
  let buffered = '';
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  server.stdout.setEncoding('utf8');
  server.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    for (let at = buffered.indexOf('\n'); at !== -1; at = buffered.indexOf('\n')) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  const write = (text: string | Buffer) =>
    new Promise<void>((resolve, reject) =>
      server.stdin.write(text, (error) => (error ? reject(error) : resolve())),
    );
  /** `promise`, or a failure saying `what` (and the server's stderr) after 10 s. */
  const within = <T>(promise: Promise<T>, what: string) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}; stderr: ${server.stderr()}`)), 10_000);
    });
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
  };
  return {
    write,
    send: (message) => write(`${JSON.stringify(message)}\n`),
    next: () => {
      const ready = lines.shift();
      const line =
        ready !== undefined
          ? Promise.resolve(ready)
          : within(new Promise<string>((resolve) => waiting.push(resolve)), 'no answer on stdout');
      return line.then((text) => JSON.parse(text) as Record<string, unknown>);
    },
    end: () => {
      server.stdin.end();
      return within(server.exited, 'still running 10 s after stdin closed');
    },
    stderr: server.stderr,
  };
}

/** Sends initialize and initialized over raw stdio, so tools can be called. */
export async function initializeRaw(stdio: RawStdio): Promise<void> {
  await stdio.send(INITIALIZE);
  const answer = await stdio.next();
  if (answer.id !== 1 || !answer.result) throw new Error(`initialize answered ${JSON.stringify(answer)}`);
  await stdio.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
}
