/**
 * Fair share between the callers of a team service, each promise shown by the attack that broke
 * it, on loopback: stateless replicas of the built server behind a real nginx with the proxy
 * settings shipped in deploy/, a stand-in API (or the sandbox), and raw sockets for what no
 * client library sends (a body, or headers, a byte a second).
 *
 * - Bodies that drip hold no place among the requests answered at once, and are cut off (408) at
 *   --body-timeout, straight to a replica or through nginx: every other caller is served.
 * - Headers that drip are cut off (408) at --header-timeout.
 * - One caller gets its share of --max-in-flight (--max-in-flight-per-caller): past it 503, while
 *   another caller is still served.
 * - `wait` on a VM that stays off ends at once; waits are bounded per caller in number and length.
 */
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectSandbox } from '@cloudcall/sandbox';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { call } from './testing/client.js';
import { exitOf, startHttp, killAll as stopInProcess } from './testing/main.js';
import { type HttpAnswer, httpRequest, killAll } from './testing/process.js';
import { httpClient, sample, scrape, startReplicas, startStandInApi } from './testing/service.js';

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  killAll();
  await stopInProcess();
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const HTTP = ['--transport', 'http', '--port', '0'];
/** Replica starts, nginx and a few seconds of dripping on a small CI machine. */
const LONG = 120_000;
/** The test's --body-timeout: short, so the drips are cut off within the test. */
const BODY_TIMEOUT_S = 3;
/** Attackers and the other callers, as the report had them. */
const ATTACKERS = 64;
const OTHERS = 8;

/** A raw tools/call of `tool`. */
const toolCall = (id: number, tool: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: tool, arguments: args },
});

/** A tool's result from a raw answer (200 and JSON). */
const resultOf = (answer: HttpAnswer) => (answer.json as { result?: CallToolResult }).result;

interface Dripped {
  /** The status of the answer (0: the connection closed unanswered). */
  status: number;
  text: string;
  /** Milliseconds from the headers to the answer. */
  ms: number;
}

/**
 * A POST to `url` with `token`, its headers at once, its body then a byte a second for as long as
 * the server reads it: the answer, once the connection closes. `sent` resolves once the first
 * byte of the body is out.
 */
function drip(url: string, token: string): { sent: Promise<void>; answer: Promise<Dripped> } {
  const target = new URL(url);
  const body = JSON.stringify(toolCall(1, 'key-get', { ID: 1 }));
  const socket = connect(Number(target.port), target.hostname);
  let text = '';
  let timer: NodeJS.Timeout | undefined;
  let started = 0;
  const sent = new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.write(
        `POST ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
          `Content-Length: ${body.length}\r\n\r\n`,
      );
      started = Date.now();
      let at = 0;
      const next = () => {
        if (at < body.length && socket.writable) socket.write(body[at++] as string);
      };
      next();
      timer = setInterval(next, 1000);
      resolve();
    });
  });
  const answer = new Promise<Dripped>((resolve) => {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, text, ms: Date.now() - started });
    });
  });
  return { sent, answer };
}

/**
 * `calls` calls of key-get by each of OTHERS callers (their own tokens), one after another, each
 * caller alternating between the URLs given: every answer's status and key id.
 */
async function otherCallers(urls: string[], calls: number): Promise<{ status: number; id?: number }[]> {
  const answers = await Promise.all(
    Array.from({ length: OTHERS }, async (_, caller) => {
      const seen: { status: number; id?: number }[] = [];
      for (let n = 0; n < calls; n++) {
        const id = (caller + 1) * 1000 + n;
        const answer = await httpRequest(urls[n % urls.length] as string, {
          body: toolCall(id, 'key-get', { ID: id }),
          headers: { authorization: `Bearer other-caller-${caller}-0123456789` },
        });
        const key = (resultOf(answer)?.structuredContent as { ssh_key?: { id: number } } | undefined)
          ?.ssh_key;
        seen.push({ status: answer.status, ...(key ? { id: key.id } : {}) });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return seen;
    }),
  );
  return answers.flat();
}

describe('bodies that drip', () => {
  it(
    `${ATTACKERS} POSTs dripping their bodies (a byte a second, each its own bearer string), straight to a replica and as many through nginx, take no place in flight: ${OTHERS} other callers are all served, and the drips get 408 at --body-timeout`,
    async () => {
      const api = await startStandInApi();
      cleanup.push(api.close);
      const { replicas, nginx } = await startReplicas(['r1', 'r2'], (name) => [
        ...['--api-url', api.urlFor(name), '--families', 'account'],
        ...['--body-timeout', String(BODY_TIMEOUT_S)],
      ]);
      cleanup.push(nginx.stop);
      const [r1] = replicas;
      if (!r1) throw new Error('no replica');

      // --max-in-flight is 64 (the default): before, 64 drips straight to r1 took every place.
      const drips = [
        ...Array.from({ length: ATTACKERS }, (_, n) => drip(r1.url, `dripper-${n}-${'x'.repeat(20)}`)),
        ...Array.from({ length: ATTACKERS }, (_, n) =>
          drip(nginx.url, `nginx-dripper-${n}-${'x'.repeat(20)}`),
        ),
      ];
      await Promise.all(drips.map((each) => each.sent));
      // While they drip, r1 has nothing in flight; the other callers, straight and through nginx.
      const inFlight = sample(await scrape(r1.url), 'cloudcall_requests_in_flight');
      const served = await otherCallers([r1.url, nginx.url], 10);
      expect(served.filter((answer) => answer.status !== 200)).toEqual([]);
      expect(served.filter((answer) => answer.id === undefined)).toEqual([]);
      expect(served).toHaveLength(OTHERS * 10);
      expect(inFlight).toBe(0);

      // Every drip, straight or through nginx, was cut off by the body timeout: 408, saying so.
      const dripped = await Promise.all(drips.map((each) => each.answer));
      for (const answer of dripped) {
        expect(answer.status, answer.text).toBe(408);
        expect(answer.text).toContain(`--body-timeout ${BODY_TIMEOUT_S}`);
        expect(answer.ms).toBeGreaterThanOrEqual(BODY_TIMEOUT_S * 1000 - 100);
        expect(answer.ms).toBeLessThan(BODY_TIMEOUT_S * 1000 + 5000);
      }
      // Each replica counted the ones it cut off, and none reached the API.
      const cut = await Promise.all(
        replicas.map(async (replica) =>
          sample(await scrape(replica.url), 'cloudcall_requests_refused_total', { reason: 'body-timeout' }),
        ),
      );
      expect(cut.reduce((sum, each) => sum + each, 0)).toBe(2 * ATTACKERS);
      expect(api.seen.filter((upstream) => upstream.token.includes('dripper'))).toEqual([]);
    },
    LONG,
  );
});

describe('headers that drip', () => {
  it('are cut off with 408 at --header-timeout', async () => {
    const { url } = await startHttp([...HTTP, '--sandbox', '--header-timeout', '2']);
    const target = new URL(url);
    const socket = connect(Number(target.port), target.hostname);
    const headers = `POST /mcp HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\n`;
    let text = '';
    const started = Date.now();
    const closed = new Promise<number>((resolve) => {
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(Date.now() - started));
    });
    let at = 0;
    const timer = setInterval(() => {
      if (at < headers.length && socket.writable) socket.write(headers[at++] as string);
    }, 500);
    const ms = await closed;
    clearInterval(timer);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(ms).toBeGreaterThanOrEqual(1900);
    expect(ms).toBeLessThan(6000);
    expect(at).toBeLessThan(headers.length);
  });
});

describe('--max-in-flight-per-caller', () => {
  it('one caller past its share gets 503 naming the share, while another caller is served; its calls pass again once its held ones end', async () => {
    const api = await startStandInApi();
    cleanup.push(api.close);
    const { url } = await startHttp([
      ...HTTP,
      ...[
        '--stateless',
        '--auth',
        'token-passthrough',
        '--api-url',
        api.urlFor('one'),
        '--families',
        'account',
      ],
      ...['--allowed-hosts', '127.0.0.1', '--max-in-flight', '8', '--max-in-flight-per-caller', '2'],
    ]);
    const greedy = 'greedy-caller-0123456789';
    const other = 'other-caller-0123456789';
    const as = (token: string, id: number) =>
      httpRequest(url, {
        body: toolCall(id, 'key-get', { ID: id }),
        headers: { authorization: `Bearer ${token}` },
      });

    // The greedy caller's calls are held by the API: two of them fill its share.
    api.holdToken = greedy;
    const held = [as(greedy, 1), as(greedy, 2)];
    while (api.held.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    const refused = await as(greedy, 3);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: expect.stringMatching(
          /^Too many requests from this caller: 2 of its requests are being answered, its share of this server \(--max-in-flight-per-caller 2 of --max-in-flight 8\); other callers are still served\./,
        ),
      },
      id: 3,
    });
    // Another caller is served meanwhile, with only 2 of 8 places taken.
    const served = await as(other, 4);
    expect(served.status).toBe(200);
    expect(resultOf(served)?.structuredContent).toMatchObject({ ssh_key: { id: 4 } });
    expect(api.seen.map((upstream) => upstream.id)).toEqual([1, 2, 4]); // the refused call did nothing

    const metrics = await scrape(url);
    expect(sample(metrics, 'cloudcall_requests_refused_total', { reason: 'max-in-flight-per-caller' })).toBe(
      1,
    );
    expect(sample(metrics, 'cloudcall_requests_in_flight')).toBe(2);

    api.holdToken = undefined;
    api.release();
    expect((await Promise.all(held)).map((answer) => answer.status)).toEqual([200, 200]);
    expect((await as(greedy, 5)).status).toBe(200);
  });

  it('a notification (such as a cancel) passes even when its caller is at its share', async () => {
    const api = await startStandInApi();
    cleanup.push(api.close);
    const { url } = await startHttp([
      ...HTTP,
      ...[
        '--stateless',
        '--auth',
        'token-passthrough',
        '--api-url',
        api.urlFor('one'),
        '--families',
        'account',
      ],
      ...['--allowed-hosts', '127.0.0.1', '--max-in-flight-per-caller', '1'],
    ]);
    const token = 'Bearer cancelling-caller-0123456789';
    api.holdToken = 'cancelling-caller-0123456789';
    const held = httpRequest(url, {
      body: toolCall(1, 'key-get', { ID: 1 }),
      headers: { authorization: token },
    });
    while (api.held.length < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    const cancel = await httpRequest(url, {
      body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'enough' } },
      headers: { authorization: token },
    });
    expect(cancel.status).toBe(202);
    // The call it cancelled ended (an empty answer), and its place is free again.
    expect((await held).status).toBe(200);
    api.holdToken = undefined;
    api.release();
    const again = await httpRequest(url, {
      body: toolCall(2, 'key-get', { ID: 2 }),
      headers: { authorization: token },
    });
    expect(again.status).toBe(200);
  });
});

describe('wait, per caller', () => {
  it(
    `${ATTACKERS} waits on a VM that stays off, one caller's token through nginx, end at once with the answer (or are refused past that caller's share); ${OTHERS} other callers are served`,
    async () => {
      const state = join(mkdtempSync(join(tmpdir(), 'cloudcall-fair-')), 'sandbox.json');
      const { nginx } = await startReplicas(['r1', 'r2'], () => [
        ...['--sandbox', '--sandbox-state', state, '--families', 'account,vms'],
      ]);
      cleanup.push(nginx.stop);
      const token = 'Bearer waiting-caller-0123456789';
      let id = 0;
      const as = async (authorization: string, tool: string, args: Record<string, unknown>) =>
        httpRequest(nginx.url, { body: toolCall(++id, tool, args), headers: { authorization } });
      const ok = async (tool: string, args: Record<string, unknown>) => {
        const answer = await as(token, tool, args);
        const result = resultOf(answer);
        expect(result?.isError, answer.text).toBeFalsy();
        return result?.structuredContent as Record<string, { id: number; status: string }>;
      };

      // A VM, waited for while it boots (that wait goes on until it is active), then powered off
      // by its owner (beside the service: with --stateless and --confirm auto the service itself
      // refuses to power off a VM nobody confirmed).
      const created = await ok('vm-create', {
        Name: 'off-vm',
        Size: 's-1vcpu-1gb',
        ImageID: 161928327,
        Region: 'nyc3',
      });
      const vm = created.droplet?.id as number;
      expect((await ok('wait', { Kind: 'vm', ID: vm })).droplet).toMatchObject({ status: 'active' });
      const owner = await connectSandbox({ statePath: state });
      cleanup.push(owner.close);
      const off = await owner.client.request<{ action: { id: number } }>({
        method: 'POST',
        path: `/v2/droplets/${vm}/actions`,
        body: { type: 'power_off' },
      });
      await ok('wait', { Kind: 'action', ID: off.action.id });

      const started = Date.now();
      const [waits, served] = await Promise.all([
        Promise.all(
          Array.from({ length: ATTACKERS }, () =>
            as(token, 'wait', { Kind: 'vm', ID: vm, TimeoutSeconds: 1800 }),
          ),
        ),
        Promise.all(
          Array.from({ length: OTHERS }, async (_, caller) => {
            const statuses: (number | string)[] = [];
            for (let n = 0; n < 5; n++) {
              const answer = await as(`Bearer other-caller-${caller}-0123456789`, 'vm-get', { ID: vm });
              statuses.push(resultOf(answer)?.isError ? answer.text : answer.status);
            }
            return statuses;
          }),
        ),
      ]);
      // Before, each of these waits lasted until its timeout (here 30 minutes), holding its place.
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(served.flat()).toEqual(Array(OTHERS * 5).fill(200));
      const outcomes = waits.map((answer) => {
        if (answer.status === 503) return (answer.json as { error: { message: string } }).error.message;
        return (resultOf(answer)?.structuredContent as { error_id?: string } | undefined)?.error_id;
      });
      for (const outcome of outcomes) {
        expect([
          'wait_failed',
          'too_many_waits',
          expect.stringMatching(/--max-in-flight-per-caller 16/),
        ]).toContainEqual(outcome);
      }
      const ended = waits.find(
        (answer) =>
          (resultOf(answer)?.structuredContent as { error_id?: string })?.error_id === 'wait_failed',
      );
      expect(resultOf(ended as HttpAnswer)?.structuredContent).toMatchObject({
        last_status: 'off',
        message: expect.stringMatching(
          new RegExp(
            `^vm ${vm} is off and no action is in progress on it: it will not be active by itself, so the wait ended at once\\. Power it on \\(power-on-vm\\)`,
          ),
        ),
      });
    },
    LONG,
  );

  it('past --max-waits-per-caller a wait is refused, another caller still waits; TimeoutSeconds is cut to --max-wait-seconds', async () => {
    const { url } = await startHttp([
      ...HTTP,
      ...['--stateless', '--auth', 'token-passthrough', '--sandbox', '--sandbox-state', ':memory:'],
      ...['--families', 'account,vms', '--max-waits-per-caller', '2', '--max-wait-seconds', '60'],
    ]);
    const greedy = await httpClient(url, 'Bearer greedy-waiter-0123456789');
    const other = await httpClient(url, 'Bearer other-waiter-0123456789');
    cleanup.push(
      () => greedy.close(),
      () => other.close(),
    );
    // VMs boot in 3 s: a wait on a new one lasts that long.
    const vms: number[] = [];
    for (const name of ['w1', 'w2', 'w3']) {
      const created = await call(greedy, 'vm-create', {
        Name: name,
        Size: 's-1vcpu-1gb',
        ImageID: 161928327,
        Region: 'nyc3',
      });
      vms.push((created.json as { droplet: { id: number } }).droplet.id);
    }
    const messages: string[] = [];
    const waiting = [0, 1].map((n) =>
      greedy.callTool(
        { name: 'wait', arguments: { Kind: 'vm', ID: vms[n], TimeoutSeconds: 1800 } },
        undefined,
        {
          onprogress: (update: Progress) => void messages.push(update.message ?? ''),
        },
      ),
    );
    while (messages.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    const refused = await call(greedy, 'wait', { Kind: 'vm', ID: vms[2] });
    expect(refused.isError).toBe(true);
    expect(refused.structured).toMatchObject({
      error_id: 'too_many_waits',
      retryable: true,
      message:
        'wait refused: this caller already has 2 waits in flight on this server, the most one caller may have (--max-waits-per-caller 2). Nothing was waited for.',
    });
    const theirs = await call(other, 'wait', { Kind: 'vm', ID: vms[2] });
    expect(theirs.isError, theirs.text).toBe(false);
    for (const result of (await Promise.all(waiting)) as CallToolResult[])
      expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
    // Asked for 1800 s, each wait gave up at 60: its progress says so while it waits.
    const waitingOnes = messages.filter((message) => message.includes('→'));
    expect(waitingOnes.length).toBeGreaterThanOrEqual(2);
    expect(waitingOnes.every((message) => message.endsWith(', gives up at 60 s)'))).toBe(true);
    // Its waits over, the greedy caller may wait again.
    expect((await call(greedy, 'wait', { Kind: 'vm', ID: vms[2] })).isError).toBe(false);
  });
});

describe('start-up refusals', () => {
  it('refuses per-caller limits without callers to tell apart, a share above the whole, and timeouts of 0', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['--max-waits-per-caller', '2'],
        /--max-waits-per-caller is for --auth static, token-passthrough or oauth/,
      ],
      [
        ['--max-in-flight-per-caller', '2'],
        /--max-in-flight-per-caller is for --auth static, token-passthrough or oauth/,
      ],
      [
        ['--auth', 'token-passthrough', '--max-in-flight-per-caller', '65'],
        /--max-in-flight-per-caller 65 is more than --max-in-flight 64/,
      ],
      [['--body-timeout', '0'], /--body-timeout must be a whole number of seconds, at least 1/],
      [['--header-timeout', 'soon'], /--header-timeout must be a whole number of seconds/],
      [
        ['--max-event-store-bytes', '10'],
        /--max-event-store-bytes must be a whole number of bytes, at least 1024/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await exitOf([...HTTP, '--sandbox', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
  });
});
