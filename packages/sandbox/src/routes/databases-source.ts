/**
 * Checking an online-migration source for real: connect to `host:port` (TLS unless the caller
 * disabled it) with a short timeout and, for a Valkey/Redis-compatible source, read its version
 * with `INFO server`. A minimal RESP exchange over node:net is all this needs (AUTH, then one
 * command and one bulk-string reply), so no client library is pulled in.
 *
 * Only loopback sources are probed: the sandbox must never reach past this machine, so any other
 * host fails as an unreachable source would, before any DNS lookup or connection.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { BlockList, isIP, type Socket, connect as tcpConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface SourceProbe {
  host: string;
  port: number;
  username?: string | undefined;
  password?: string | undefined;
  /** Plain TCP when true; TLS (any certificate) otherwise. */
  disableSsl: boolean;
  /** Whether to speak RESP and read the version (Valkey/Redis targets); otherwise only connect. */
  resp: boolean;
  timeoutMs?: number;
}

/** Why a source cannot be migrated from; the message names the source, never its password. */
export class SourceError extends Error {}

type Reply = { kind: 'simple' | 'error' | 'bulk' | 'int'; text: string } | { kind: 'nil'; text: '' };

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Whether `host` names this machine without asking DNS: an address in 127.0.0.0/8, `::1` (also
 * written in full, bracketed or IPv4-mapped) or `localhost`. Any other name, even one that public
 * DNS resolves to 127.0.0.1, is not loopback here: resolving it would be a lookup already.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (/^localhost\.?$/i.test(bare)) return true;
  const family = isIP(bare);
  return family !== 0 && LOOPBACK.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/** Resolves `localhost` to the loopback addresses itself, so even it needs no resolver. */
function localhostLookup(
  _host: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
): void {
  if (options.all)
    callback(null, [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
  else callback(null, '127.0.0.1', 4);
}

/** Connects to the source; resolves with its version (`valkey_version` or `redis_version`) when read. */
export async function probeSource(probe: SourceProbe): Promise<{ version?: string }> {
  const timeoutMs = probe.timeoutMs ?? 2_500;
  const where = `${probe.host}:${probe.port}`;
  if (!isLoopbackHost(probe.host)) {
    throw new SourceError(
      `could not connect to the source at ${where}: the sandbox reaches only loopback sources (127.0.0.0/8, ::1, localhost)`,
    );
  }
  const socket = await open(probe, timeoutMs, where);
  try {
    if (!probe.resp) return {};
    const session = new RespSession(socket, timeoutMs, where);
    if (probe.password) {
      const auth = await session.command(
        probe.username ? ['AUTH', probe.username, probe.password] : ['AUTH', probe.password],
      );
      // A source without a password set answers that AUTH was not needed: it accepts the connection.
      if (auth.kind === 'error' && !/without any password configured/i.test(auth.text)) {
        throw new SourceError(`the source at ${where} refused the credentials: ${firstWord(auth.text)}`);
      }
    }
    const info = await session.command(['INFO', 'server']);
    if (info.kind === 'error') {
      throw new SourceError(`the source at ${where} refused INFO server: ${info.text}`);
    }
    if (info.kind !== 'bulk')
      throw new SourceError(`the source at ${where} did not answer like Valkey or Redis`);
    const field = (name: string) => new RegExp(`^${name}:([^\\r\\n]+)`, 'm').exec(info.text)?.[1]?.trim();
    const version = field('valkey_version') ?? field('redis_version');
    if (!version) throw new SourceError(`the source at ${where} reported no version in INFO server`);
    return { version };
  } finally {
    socket.destroy();
  }
}

function firstWord(text: string): string {
  return text.split(/\s/)[0] ?? 'error';
}

function open(probe: SourceProbe, timeoutMs: number, where: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const host = probe.host.startsWith('[') ? probe.host.slice(1, -1) : probe.host;
    const lookup = isIP(host) === 0 ? localhostLookup : undefined;
    const socket = probe.disableSsl
      ? tcpConnect({ host, port: probe.port, ...(lookup ? { lookup } : {}) })
      : tlsConnect({ host, port: probe.port, rejectUnauthorized: false, ...(lookup ? { lookup } : {}) });
    const fail = (message: string) => {
      socket.destroy();
      reject(new SourceError(message));
    };
    let connected = false;
    socket.once('connect', () => {
      connected = true;
    });
    const timer = setTimeout(
      () =>
        fail(
          connected && !probe.disableSsl
            ? `connected to the source at ${where}, but its TLS connection did not open within ${timeoutMs} ms; set disable_ssl if the source does not use TLS`
            : `could not connect to the source at ${where}: no answer within ${timeoutMs} ms`,
        ),
      timeoutMs,
    );
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const tls =
        !probe.disableSsl &&
        !['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN'].includes(error.code ?? '');
      fail(
        tls
          ? `could not open a TLS connection to the source at ${where} (${error.code ?? error.message}); set disable_ssl if the source does not use TLS`
          : `could not connect to the source at ${where}: ${error.code ?? error.message}`,
      );
    });
    socket.once(probe.disableSsl ? 'connect' : 'secureConnect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
  });
}

/** Sends RESP commands one at a time and parses each reply. */
class RespSession {
  private buffer = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  private failure: Error | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly timeoutMs: number,
    private readonly where: string,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiting?.();
    });
    const end = (error?: Error) => {
      this.failure = new SourceError(
        `the source at ${where} closed the connection${error ? ` (${(error as NodeJS.ErrnoException).code ?? error.message})` : ''}`,
      );
      this.waiting?.();
    };
    socket.on('error', end);
    socket.on('close', () => end());
  }

  async command(args: string[]): Promise<Reply> {
    const parts = [`*${args.length}\r\n`];
    for (const arg of args) parts.push(`$${Buffer.byteLength(arg)}\r\n${arg}\r\n`);
    this.socket.write(parts.join(''));
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const reply = this.parse();
      if (reply) return reply;
      if (this.failure) throw this.failure;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new SourceError(`the source at ${this.where} did not answer within ${this.timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiting = undefined;
    }
  }

  /** One complete reply from the buffer, or undefined while more bytes are needed. */
  private parse(): Reply | undefined {
    const end = this.buffer.indexOf('\r\n');
    if (end < 0) return undefined;
    const type = String.fromCharCode(this.buffer[0] ?? 0);
    const line = this.buffer.subarray(1, end).toString('utf8');
    if (type === '+' || type === '-' || type === ':') {
      this.buffer = this.buffer.subarray(end + 2);
      return { kind: type === '+' ? 'simple' : type === '-' ? 'error' : 'int', text: line };
    }
    if (type === '$' || type === '=') {
      const length = Number(line);
      if (length < 0) {
        this.buffer = this.buffer.subarray(end + 2);
        return { kind: 'nil', text: '' };
      }
      if (this.buffer.length < end + 2 + length + 2) return undefined;
      const text = this.buffer.subarray(end + 2, end + 2 + length).toString('utf8');
      this.buffer = this.buffer.subarray(end + 2 + length + 2);
      return { kind: 'bulk', text };
    }
    throw new SourceError(`the source at ${this.where} did not answer like Valkey or Redis`);
  }
}

/** Compares dotted versions numerically: negative when a < b. Missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((part) => Number.parseInt(part, 10) || 0);
  const pb = b.split('.').map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}
