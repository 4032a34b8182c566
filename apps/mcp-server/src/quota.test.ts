/**
 * Quotas per caller (--quota, --redis), the issue's proof: 3 stateless replicas of the built
 * server behind a real nginx, sharing a real redis-server, in front of one sandbox on loopback.
 * One caller's 60 writes at once, with --quota writes=30/day: exactly 30 reach the sandbox and
 * 30 are refused naming the quota and its reset; another caller is not affected. Then Redis
 * stopped under a running server: a write fails closed naming Redis and sends nothing, a read
 * still answers, and writes go on once Redis is back. Without --redis each process counts its
 * own, and the start-up refusals of the flags.
 */
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { type RedisServer, startRedisServer } from '@cloudcall/testing';
import { startNginx } from '@cloudcall/testing/nginx';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from './testing/client.js';
import { inProcessServer } from './testing/in-process.js';
import { exitOf, killAll as killInProcess } from './testing/main.js';
import { httpRequest, killAll, startHttp, waitForOutput } from './testing/process.js';
import { sample, scrape } from './testing/service.js';

const DAY = 86_400_000;
// Three replicas' starts and 60 calls through nginx on a small CI machine.
const LONG = 120_000;

let sandbox: Sandbox;
/** The sandbox's mutating requests, as `METHOD target`. */
const mutating: string[] = [];
beforeAll(async () => {
  sandbox = await startSandbox({
    onRequest: ({ method, target }) => {
      if (method !== 'GET') mutating.push(`${method} ${target}`);
    },
  });
});
afterAll(() => sandbox?.close());

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  killAll();
  await killInProcess();
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function redisServer(port?: number): Promise<RedisServer> {
  const redis = await startRedisServer(port === undefined ? {} : { port });
  cleanup.push(redis.stop);
  return redis;
}

/** A replica of the built server: stateless, each request with its caller's token, the sandbox's API. */
function replica(quota: string[]) {
  return startHttp([
    ...['--transport', 'http', '--port', '0', '--stateless', '--auth', 'token-passthrough'],
    ...['--api-url', sandbox.url, '--allowed-hosts', '127.0.0.1', '--tools', 'tag-create,tag-get,api-call'],
    ...quota,
  ]);
}

interface Answer {
  isError: boolean;
  text: string;
  structured: Record<string, unknown>;
}

/** One tools/call, standing alone (stateless), with the caller's token. */
async function callAs(url: string, token: string, name: string, args: object): Promise<Answer> {
  const answer = await httpRequest(url, {
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    headers: { authorization: `Bearer ${token}` },
  });
  const result = (answer.json as { result?: { isError?: boolean; content: { text: string }[] } })?.result;
  if (answer.status !== 200 || !result) throw new Error(`${name} answered ${answer.status}: ${answer.text}`);
  return {
    isError: result.isError === true,
    text: result.content[0]?.text ?? '',
    structured: (result as { structuredContent?: Record<string, unknown> }).structuredContent ?? {},
  };
}

/** A write: half through tag-create, half as a generic api-call POST /v2/tags. */
const write = (url: string, token: string, name: string, n: number) =>
  n % 2
    ? callAs(url, token, 'tag-create', { Name: name })
    : callAs(url, token, 'api-call', { Method: 'POST', Path: '/v2/tags', Body: { name } });

/** The sandbox's tags whose names start with `prefix`. */
async function tagsNamed(prefix: string): Promise<string[]> {
  const answer = await fetch(`${sandbox.url}/v2/tags?per_page=200`, {
    headers: { authorization: 'Bearer any' },
  });
  const { tags } = (await answer.json()) as { tags: { name: string }[] };
  return tags.map((tag) => tag.name).filter((name) => name.startsWith(prefix));
}

describe('--quota with --redis across replicas behind nginx', () => {
  it(
    "60 writes of one caller at once over 3 replicas with writes=30/day: exactly 30 are sent, 30 refused naming the quota and its reset; another caller's writes go on",
    async () => {
      // The 60 writes must fall in one window: a day's, which a run meets the end of once in 960;
      // then it waits for the next day rather than count across two windows.
      const left = DAY - (Date.now() % DAY);
      if (left < 90_000) await new Promise((resolve) => setTimeout(resolve, left + 1000));
      const redis = await redisServer();
      const replicas = await Promise.all(
        // All 60 at once from one caller: its share of in-flight requests must not turn any away first.
        [1, 2, 3].map(() =>
          replica(['--quota', 'writes=30/day', '--redis', redis.url, '--max-in-flight-per-caller', '64']),
        ),
      );
      const nginx = await startNginx({ upstreams: replicas.map((one) => Number(new URL(one.url).port)) });
      cleanup.push(nginx.stop);
      mutating.length = 0;

      const alice = `alice-${Date.now()}`;
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, n) => write(nginx.url, alice, `quota-a-${n}`, n)),
      );
      const done = Date.now();
      const ok = answers.filter((answer) => !answer.isError);
      const refused = answers.filter((answer) => answer.isError);
      const other = refused.filter((answer) => answer.structured.error_id !== 'quota_exceeded');
      process.stderr.write(
        `quota across 3 replicas: ${ok.length} of 60 writes ran with writes=30/day (overshoot ${ok.length - 30})${other.map((answer) => `\n  ${answer.text}`).join('')}\n`,
      );
      expect(refused.map((answer) => answer.structured.error_id)).toEqual(Array(30).fill('quota_exceeded'));
      expect(ok).toHaveLength(30);

      // Exactly 30 requests reached the sandbox, and it holds 30 of alice's tags.
      expect(mutating).toEqual(Array(30).fill('POST /v2/tags'));
      expect(await tagsNamed('quota-a-')).toHaveLength(30);

      // Each refusal names the quota, its reset (the next day) and the seconds until then.
      const reset = new Date(Math.ceil(done / DAY) * DAY).toISOString();
      for (const answer of refused) {
        expect(answer.text).toMatch(
          new RegExp(
            `^(tag-create|api-call) refused: caller token:[0-9a-f]{12} has used its quota of 30 writes per day \\(writes=30/day\\); it resets at ${reset.replaceAll('.', '\\.')}, in \\d+ s\\. Nothing was sent\\.\\nHint: Wait until`,
          ),
        );
        const seconds = answer.structured.retry_after_seconds as number;
        expect(Math.abs(seconds - (Date.parse(reset) - done) / 1000)).toBeLessThan(60);
        expect(answer.structured).toMatchObject({ retryable: true });
      }

      // Every replica answered some of the calls: the count was shared, not each replica's own.
      for (const one of replicas) {
        const metrics = await scrape(one.url);
        const calls =
          sample(metrics, 'cloudcall_tool_calls_total', { tool: 'tag-create', outcome: 'ok' }) +
          sample(metrics, 'cloudcall_tool_calls_total', { tool: 'tag-create', outcome: 'error' }) +
          sample(metrics, 'cloudcall_tool_calls_total', { tool: 'api-call', outcome: 'ok' }) +
          sample(metrics, 'cloudcall_tool_calls_total', { tool: 'api-call', outcome: 'error' });
        expect(calls).toBeGreaterThan(5);
      }

      // Another caller has a quota of its own; alice's reads are not counted.
      mutating.length = 0;
      const bob = `bob-${Date.now()}`;
      for (let n = 0; n < 3; n++) {
        const answer = await write(nginx.url, bob, `quota-b-${n}`, n);
        expect(answer.isError, answer.text).toBe(false);
      }
      expect(mutating).toEqual(Array(3).fill('POST /v2/tags'));
      const read = await callAs(nginx.url, alice, 'tag-get', { Name: 'quota-b-0' });
      expect(read.isError, read.text).toBe(false);
      expect(await tagsNamed('quota-b-')).toHaveLength(3);
    },
    LONG,
  );

  it(
    'Redis stopped under a running server: a write fails closed naming Redis and sends nothing, a read answers; writes go on once it is back',
    async () => {
      const redis = await redisServer();
      const server = await replica(['--quota', 'writes=100/hour', '--redis', redis.url]);
      const carol = `carol-${Date.now()}`;
      expect((await write(server.url, carol, 'quota-c-1', 1)).isError).toBe(false);
      mutating.length = 0;

      await redis.stop();
      const started = Date.now();
      const refused = await write(server.url, carol, 'quota-c-2', 1);
      const took = Date.now() - started;
      expect(refused.isError).toBe(true);
      expect(refused.structured).toMatchObject({ error_id: 'quota_unavailable', retryable: true });
      expect(refused.text).toContain(
        `tag-create was not sent: quotas are counted in Redis at ${redis.url}, which cannot be reached (`,
      );
      expect(refused.text).toContain('Nothing was sent.');
      expect(took).toBeLessThan(1500);
      // The generic call's write too.
      const generic = await write(server.url, carol, 'quota-c-3', 0);
      expect(generic.structured).toMatchObject({ error_id: 'quota_unavailable' });
      expect(mutating).toEqual([]);

      // Reads go on, not slowed: the quota is never asked about them.
      for (const [name, args] of [
        ['tag-get', { Name: 'quota-c-1' }],
        ['api-call', { Method: 'GET', Path: '/v2/tags/quota-c-1' }],
      ] as const) {
        const readStarted = Date.now();
        const read = await callAs(server.url, carol, name, args);
        expect(read.isError, read.text).toBe(false);
        expect(Date.now() - readStarted).toBeLessThan(1000);
      }
      // The server said once that Redis went away (a warning line, not one per retry).
      await waitForOutput(
        server.output,
        /what replicas share cannot be kept: Redis at redis:\/\/127\.0\.0\.1:\d+: /,
      );

      // Back (empty: nothing was persisted), and found again without a restart.
      await redisServer(redis.port);
      await expect
        .poll(async () => (await write(server.url, carol, `quota-c-back-${Date.now()}`, 1)).isError, {
          timeout: 10_000,
          interval: 250,
        })
        .toBe(false);
      // (The log is buffered: its lines go out within 250 ms.)
      await waitForOutput(server.output, /what replicas share is kept again in Redis at /);
      expect(server.output().match(/what replicas share cannot be kept/g)).toHaveLength(1);
    },
    LONG,
  );
});

describe('--quota without --redis', () => {
  it('counts in the process, and refuses the write over its limit as a tool error with its reset', async () => {
    const server = await inProcessServer({ tools: 'tag-create,tag-delete,tag-get', quota: 'writes=2/day' });
    cleanup.push(server.close);
    for (const name of ['quota-m-1', 'quota-m-2']) {
      expect((await call(server.client, 'tag-create', { Name: name })).isError).toBe(false);
    }
    const refused = await call(server.client, 'tag-delete', { Name: 'quota-m-1' });
    const reset = new Date(Math.ceil(Date.now() / 86_400_000) * 86_400_000).toISOString();
    expect(refused.isError).toBe(true);
    expect(refused.structured).toMatchObject({
      error_id: 'quota_exceeded',
      retryable: true,
      retry_after_seconds: expect.any(Number),
    });
    expect(refused.text).toMatch(
      new RegExp(
        `^tag-delete refused: caller local:\\S+ has used its quota of 2 writes per day \\(writes=2/day\\); it resets at ${reset.replaceAll('.', '\\.')}, in \\d+ s\\.`,
      ),
    );
    expect((await call(server.client, 'tag-get', { Name: 'quota-m-1' })).isError).toBe(false);
    expect(server.log()).toContain(
      'quotas per caller: writes=2/day, counted in this process (each process counts its own)',
    );
  });

  it('refuses a malformed --quota and a --redis that is no redis:// URL', async () => {
    for (const [args, message] of [
      [['--quota', 'writes=30'], '--quota: "writes=30" is not a limit; write KIND=N/PERIOD'],
      [['--redis', 'ftp://127.0.0.1:6379'], '--redis must be a redis:// or rediss:// URL'],
      [
        ['--quota', 'writes=3/hour', '--redis', 'http://127.0.0.1:6379'],
        '--redis must be a redis:// or rediss:// URL',
      ],
    ] as const) {
      const result = await exitOf(['--sandbox', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
    }
    // The variables too.
    const result = await exitOf(['--sandbox'], { CLOUDCALL_QUOTA: 'writes=1/week' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--quota: "writes=1/week" is not a limit');
  });
});
