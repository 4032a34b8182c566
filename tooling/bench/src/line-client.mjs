/**
 * A bare MCP client over a child's stdio: JSON-RPC messages as lines, nothing validated. Per-call
 * latency is measured with it because the SDK client parses every result with zod (and checks
 * structured content against the tool's output schema), work of the same order as the server's
 * own per call; the SDK client's figure is reported beside it.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

export class LineClient {
  /** Spawns the server; `initialize()` next. */
  constructor(command, args, env) {
    this.child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.pending = new Map();
    this.nextId = 1;
    this.stderr = '';
    this.exited = new Promise((resolve) =>
      this.child.once('close', (code, signal) => resolve({ code, signal })),
    );
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (text) => {
      // The tail is what explains a failure.
      this.stderr = (this.stderr + text).slice(-4000);
    });
    let buffered = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (text) => {
      buffered += text;
      let end = buffered.indexOf('\n');
      while (end !== -1) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        if (line.trim()) this.receive(line);
        end = buffered.indexOf('\n');
      }
    });
    this.exited.then(({ code, signal }) => {
      const error = new Error(
        `the server exited (${signal ?? `code ${code}`}) with ${this.pending.size} requests unanswered; its stderr ends:\n${this.stderr}`,
      );
      for (const { reject } of this.pending.values()) reject(error);
      this.pending.clear();
    });
  }

  receive(line) {
    const message = JSON.parse(line);
    const waiting = this.pending.get(message.id);
    if (!waiting) return; // a notification or log line: not what is timed
    this.pending.delete(message.id);
    if (message.error) waiting.reject(new Error(`${waiting.method}: ${JSON.stringify(message.error)}`));
    else waiting.resolve({ result: message.result, bytes: Buffer.byteLength(line) });
  }

  /** Sends a request; resolves with its result and the answer's size in bytes. */
  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  async initialize() {
    const { result } = await this.request('initialize', {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'cloudcall-bench', version: '0.0.0' },
    });
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    return result;
  }

  /** One tools/call; a tool error is a failed benchmark, not a fast answer. */
  async call(name, args) {
    const { result } = await this.request('tools/call', { name, arguments: args });
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 500)}`);
    return result;
  }

  /** The process's peak resident set (VmHWM) in MiB, or undefined where /proc is missing. */
  peakRssMiB() {
    return peakRssMiB(this.child.pid);
  }

  /** Closes stdin, as a host ends a session; kills the server if it does not leave. */
  async close() {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 3000);
    await this.exited;
    clearTimeout(timer);
  }
}

export function peakRssMiB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]);
    return Number.isFinite(kib) ? kib / 1024 : undefined;
  } catch {
    return undefined;
  }
}
