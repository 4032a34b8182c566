/**
 * @cloudcall/guard/redis: quota counts kept in Redis, so that every replica of a service counts
 * against the same windows. Its own entry, so that the Redis client (node-redis's
 * `@redis/client`) loads only for a process that asks for it: the CLI never does, the MCP server
 * only with --redis.
 *
 * A take is one Lua script (EVALSHA), which Redis runs atomically: it reads every window's count
 * and adds one to each only when all stay within their limits, so replicas racing for a caller's
 * last unit overshoot by none, and a refused request is not counted. When Redis is down, slow or
 * unreachable, a take fails at once, or within `timeoutMs`, with an error naming Redis: the guard
 * then sends nothing. Reads never come here.
 */
import { createHash } from 'node:crypto';
import { createClient } from '@redis/client';
import { type QuotaCounter, QuotaStoreError, type QuotaTake, type QuotaWindow } from './quota.js';

/** KEYS: the windows; ARGV: each window's limit, then each window's expiry (ms since the epoch). */
const TAKE = `
local n = #KEYS
local reply = {1}
for i = 1, n do
  local used = tonumber(redis.call('GET', KEYS[i]) or '0')
  reply[i + 1] = used
  if used + 1 > tonumber(ARGV[i]) then reply[1] = 0 end
end
if reply[1] == 1 then
  for i = 1, n do
    redis.call('INCR', KEYS[i])
    redis.call('PEXPIREAT', KEYS[i], ARGV[n + i])
  end
end
return reply
`;

/** KEYS: the windows to take one back from (never below 0). */
const GIVE_BACK = `
for i = 1, #KEYS do
  if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
return 0
`;

/**
 * A window's key outlives its end by this much: the replicas' clocks decide which window a
 * request falls in, Redis's when a key expires, and a key gone early would count from 0 again.
 */
const EXPIRY_MARGIN_MS = 60_000;

export interface RedisCounterOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://` (TLS). */
  url: string;
  /**
   * How long a take may wait for Redis (and, at start-up, for the first connection). Default
   * 2000 ms: Redis answers in well under a millisecond, but a process on a loaded machine may not
   * be scheduled for a while, and a take that times out has maybe been counted all the same.
   */
  timeoutMs?: number;
  /** Told when Redis becomes unreachable (with why) and when it answers again; not on each retry. */
  onState?: (state: 'down' | 'up', detail: string) => void;
}

/** The URL as shown in logs and errors: without its user and password. */
export function shownRedisUrl(url: string): string {
  const shown = new URL(url);
  shown.username = '';
  shown.password = '';
  return shown.toString().replace(/\/$/, '');
}

/** A connection to Redis that every user in a process shares: quotas, confirmations, tasks. */
export interface RedisConnection {
  /** `Redis at redis://host:port`, without user or password: for logs and errors. */
  readonly where: string;
  /**
   * One command, within the timeout: throws a QuotaStoreError naming Redis when it cannot be
   * reached, does not answer in time, or answers with an error.
   */
  command(args: readonly string[]): Promise<unknown>;
  /** A Lua script by its digest (EVALSHA), or whole when Redis does not know it yet. */
  script(text: string, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * A connection to Redis at `url`, made at once in the background and remade while Redis is away
 * (waits growing to 2 s, with jitter, so replicas do not reconnect in step); commands are never
 * queued while it is disconnected. Throws for a URL that is not a redis:// or rediss:// URL.
 */
export function redisConnection(options: RedisCounterOptions): RedisConnection {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new Error('--redis must be a URL such as redis://127.0.0.1:6379');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new Error(`--redis must be a redis:// or rediss:// URL, not ${url.protocol}//...`);
  }
  const where = `Redis at ${shownRedisUrl(options.url)}`;
  const timeoutMs = options.timeoutMs ?? 2000;
  const client = createClient({
    url: options.url,
    // A command while disconnected fails at once instead of waiting for a connection.
    disableOfflineQueue: true,
    socket: {
      // Connecting is done in the background (a take never waits for a reconnection): an attempt
      // given up too early on a loaded machine would make Redis look down when it is not.
      connectTimeout: Math.max(5000, timeoutMs),
      reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2000) * (0.75 + Math.random() / 2),
    },
  });
  let state: 'connecting' | 'up' | 'down' | 'closed' = 'connecting';
  let lastError = `no connection within ${timeoutMs} ms`;
  /** Settles when the first connection is made or fails: what a command waits for at start-up. */
  let settled: () => void = () => undefined;
  const firstAttempt = new Promise<void>((resolve) => {
    settled = resolve;
  });
  client.on('ready', () => {
    if (state === 'down') options.onState?.('up', where);
    state = 'up';
    settled();
  });
  // node-redis emits every socket error here (an unhandled one would end the process).
  client.on('error', (error: Error) => {
    lastError = error.message || error.name;
    if (state === 'closed') return;
    if (state !== 'down') options.onState?.('down', `${where}: ${lastError}`);
    state = 'down';
    settled();
  });
  client.connect().catch(() => undefined);

  const unreachable = () => new QuotaStoreError(`${where}, which cannot be reached (${lastError})`);

  const send = async (run: () => Promise<unknown>): Promise<unknown> => {
    if (state === 'connecting') await within(firstAttempt, timeoutMs).catch(() => undefined);
    if (state !== 'up' || !client.isReady) throw unreachable();
    try {
      return await within(run(), timeoutMs);
    } catch (error) {
      if (error instanceof Timeout) {
        throw new QuotaStoreError(`${where}, which did not answer within ${timeoutMs} ms`);
      }
      if (!client.isReady) throw unreachable();
      throw new QuotaStoreError(`${where}, which answered with an error: ${(error as Error).message}`);
    }
  };
  const digests = new Map<string, string>();

  return {
    where,
    command: (args) => send(() => client.sendCommand([...args])),
    script(text, keys, args) {
      const digest = digests.get(text) ?? sha1(text);
      digests.set(text, digest);
      return send(async () => {
        try {
          return await client.sendCommand(['EVALSHA', digest, String(keys.length), ...keys, ...args]);
        } catch (error) {
          if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
          return client.sendCommand(['EVAL', text, String(keys.length), ...keys, ...args]);
        }
      });
    },
    async close() {
      state = 'closed';
      settled();
      client.destroy();
    },
  };
}

/**
 * A counter in Redis: at `url` (a connection of its own), or on a connection the process shares.
 * A take is one script, so replicas racing for a caller's last unit overshoot by none.
 */
export function redisCounter(options: RedisCounterOptions | { connection: RedisConnection }): QuotaCounter {
  const shared = 'connection' in options;
  const connection = shared ? options.connection : redisConnection(options);
  const { where } = connection;
  return {
    where,
    async take(windows: readonly QuotaWindow[]): Promise<QuotaTake> {
      const reply = await connection.script(
        TAKE,
        windows.map((window) => window.key),
        [
          ...windows.map((window) => String(window.limit)),
          ...windows.map((window) => String(window.resetsAt + EXPIRY_MARGIN_MS)),
        ],
      );
      if (!Array.isArray(reply) || reply.length !== windows.length + 1) {
        throw new QuotaStoreError(`${where}, which answered the count with ${JSON.stringify(reply)}`);
      }
      const [taken, ...used] = reply.map(Number);
      return { taken: taken === 1, used };
    },
    async giveBack(windows) {
      await connection.script(
        GIVE_BACK,
        windows.map((window) => window.key),
        [],
      );
    },
    // A shared connection is closed by whoever opened it.
    close: () => (shared ? Promise.resolve() : connection.close()),
  };
}

class Timeout extends Error {}

/**
 * `promise`, or a Timeout after `ms` (the command is not withdrawn: Redis may still run it). The
 * timeout takes effect only after the event loop has read what is waiting on its sockets: a
 * process whose loop was held up (loading the tools, under load) would otherwise see its timer
 * fire before the answer that came in time.
 */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let check: NodeJS.Immediate | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      check = setImmediate(() => reject(new Timeout()));
    }, ms);
  });
  return Promise.race([promise, late]).finally(() => {
    clearTimeout(timer);
    if (check) clearImmediate(check);
  });
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
