/**
 * The HTTP server as a team service: start-up refusals, client keys, Host and Origin lists,
 * progress without sessions, health and metrics, and draining on SIGTERM. The server as main.ts
 * starts it, in this process (a process of its own for SIGTERM), official SDK clients over HTTP,
 * loopback stand-ins.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '@cloudcall/sandbox';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { LOG_FLUSH_MS } from './logger.js';
import { call } from './testing/client.js';
import { exitOf, killAll, startHttp } from './testing/main.js';
import {
  httpRequest,
  INITIALIZE,
  killAll as killProcesses,
  openSession,
  startHttp as startProcess,
  waitForOutput,
} from './testing/process.js';
import { httpClient, observations, sample, scrape, startStandInApi } from './testing/service.js';

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  killProcesses();
  await killAll();
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const HTTP = ['--transport', 'http', '--port', '0'];
const temp = () => mkdtempSync(join(tmpdir(), 'cloudcall-service-'));

/** A pino line of the server's log. */
interface LogLine {
  level: number;
  msg: string;
  req_id?: string;
  tool?: string;
}

/** The JSON lines of a server's output (its log), parsed. */
const logLines = (output: () => string): LogLine[] =>
  output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

/** An in-process HTTP server over an in-memory sandbox, with these flags too. */
const sandboxHttp = (flags: string[]) =>
  startHttp([...HTTP, ...flags, '--sandbox', '--sandbox-state', ':memory:']);

/**
 * A stand-in API and a server process of its own (its signals, its exit and its stderr are the
 * process's), stateless and passing each caller's token through to the API under `replica`.
 */
async function passthroughProcess(replica: string, more: string[] = []) {
  const api = await startStandInApi();
  cleanup.push(api.close);
  const server = await startProcess([
    ...HTTP,
    '--stateless',
    '--auth',
    'token-passthrough',
    '--api-url',
    api.urlFor(replica),
    '--families',
    'account',
    ...more,
  ]);
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
  return { api, exited, ...server };
}
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A client-keys file holding the digests of these keys, with a comment and a blank line. */
function keysFile(...keys: string[]): string {
  const file = join(temp(), 'client-keys');
  writeFileSync(
    file,
    `# team keys\n\n${keys.map((key) => `${sha256(key)}  # ${key.length} chars`).join('\n')}\n`,
  );
  return file;
}

describe('start-up refusals', () => {
  it('refuses a non-loopback bind without client authentication, saying what to use', async () => {
    for (const args of [
      ['--host', '0.0.0.0'],
      ['--host', '::', '--auth', 'none'],
      ['--host', '192.0.2.10', '--stateless'],
    ]) {
      const result = await exitOf([...HTTP, ...args, '--sandbox']);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/is not a loopback address/);
      expect(result.stderr).toMatch(/--auth token-passthrough .* or --auth static --client-keys FILE/);
      expect(result.stderr).not.toMatch(/listening on/);
    }
  });

  it('refuses flags that cannot work together, and a key file holding a key instead of its digest', async () => {
    const plainKey = 'plain-team-key-0123456789abcdef';
    const plain = join(temp(), 'keys');
    writeFileSync(plain, `${sha256('fine')}\n${plainKey}\n`);
    const cases: [string[], RegExp][] = [
      [['--auth', 'static'], /--auth static needs --client-keys FILE/],
      [['--client-keys', keysFile('k')], /--client-keys is for --auth static/],
      [['--auth', 'basic'], /--auth must be none, static, token-passthrough, oauth, not basic/],
      [['--stateless', '--tool-mode', 'dynamic'], /--tool-mode dynamic .* --stateless/],
      [['--auth', 'static', '--client-keys', plain], /line 2 is not a SHA-256 in hex/],
      [['--auth', 'static', '--client-keys', join(temp(), 'missing')], /cannot be read/],
      [['--allowed-origins', 'app.example'], /--allowed-origins: "app.example" is not an origin/],
      [['--allowed-hosts', 'a b/c'], /--allowed-hosts: "b\/c" is not a host/],
      [['--grace-seconds', 'soon'], /--grace-seconds must be a whole number/],
      [['--max-in-flight', '0'], /--max-in-flight must be a whole number of requests, at least 1, not 0/],
    ];
    for (const [args, message] of cases) {
      const result = await exitOf([...HTTP, '--sandbox', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr).not.toContain(plainKey.slice(0, 8));
    }
  }, 100_000); // ten server starts on a shared CI machine
});

describe('--auth static: the server token, client keys', () => {
  it('answers 401 with WWW-Authenticate without a key or with a wrong one; serves a listed key', async () => {
    const { url } = await startHttp([
      ...HTTP,
      '--sandbox',
      '--stateless',
      '--auth',
      'static',
      '--client-keys',
      keysFile('team-key-one', 'team-key-two'),
    ]);
    const missing = await httpRequest(url, { body: INITIALIZE });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="cloudcall-mcp"');
    expect(missing.json).toMatchObject({ error: { message: expect.stringMatching(/send a client key/) } });
    for (const wrong of ['team-key-on', 'team-key-one2', 'TEAM-KEY-ONE', sha256('team-key-one')]) {
      const answer = await httpRequest(url, {
        body: INITIALIZE,
        headers: { authorization: `Bearer ${wrong}` },
      });
      expect(answer.status, wrong).toBe(401);
      expect(answer.headers['www-authenticate']).toMatch(
        /^Bearer realm="cloudcall-mcp", error="invalid_token"/,
      );
    }
    const basic = await httpRequest(url, {
      body: INITIALIZE,
      headers: { authorization: 'Basic dGVhbS1rZXktb25l' },
    });
    expect(basic.status).toBe(401);

    for (const key of ['team-key-one', 'team-key-two']) {
      const client = await httpClient(url, `Bearer ${key}`);
      const balance = await call(client, 'balance-get');
      expect(balance.isError, balance.text).toBe(false);
      expect(balance.json).toMatchObject({ account_balance: expect.any(String) });
      await client.close();
    }
    // Stateless: no stream to open, no session to delete.
    const get = await httpRequest(url, { method: 'GET', headers: { authorization: 'Bearer team-key-one' } });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });
});

describe('--auth token-passthrough', () => {
  it('uses the token of each request for that request only, and serves a session to its opener only (stateful)', async () => {
    const api = await startStandInApi();
    cleanup.push(api.close);
    const { url, output } = await startHttp([
      ...HTTP,
      '--auth',
      'token-passthrough',
      '--api-url',
      api.urlFor('stateful'),
      '--families',
      'account',
    ]);
    const missing = await httpRequest(url, { body: INITIALIZE });
    expect(missing.status).toBe(401);
    expect(missing.json).toMatchObject({ error: { message: expect.stringMatching(/send your API token/) } });

    const first = 'first-caller-token-0123456789';
    const session = await openSession(url, { authorization: `Bearer ${first}` });
    const keyGet = (token: string, id: number) =>
      httpRequest(url, {
        headers: {
          authorization: `Bearer ${token}`,
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-06-18',
        },
        body: {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'key-get', arguments: { ID: id } },
        },
      });
    // The session is its opener's: another token is not served in it (404, as for no session).
    const tokens = [first, 'second-caller-token-abcdef', first, 'third-caller-token-xyz987'];
    for (const [index, token] of tokens.entries())
      expect((await keyGet(token, index + 1)).status).toBe(token === first ? 200 : 404);
    // A request of the session without a token is refused, not served with an earlier one.
    const without = await httpRequest(url, {
      headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
      body: {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'key-get', arguments: { ID: 9 } },
      },
    });
    expect(without.status).toBe(401);
    expect(api.seen.map((upstream) => [upstream.id, upstream.token])).toEqual([
      [1, first],
      [3, first],
    ]);
    for (const token of tokens) expect(output()).not.toContain(token);
  });

  it("tells a caller whose token the API refuses to fix its own Authorization header, not the server's environment", async () => {
    const api = await startStandInApi(); // answers 401 to anything but key-get
    cleanup.push(api.close);
    const { url, output } = await startHttp([
      ...HTTP,
      '--stateless',
      '--auth',
      'token-passthrough',
      '--api-url',
      api.urlFor('refused'),
      '--families',
      'account',
    ]);
    const token = 'revoked-caller-token-4242';
    const client = await httpClient(url, `Bearer ${token}`);
    cleanup.push(() => client.close());
    const result = await call(client, 'account-get-information');
    expect(result.isError).toBe(true);
    const report = result.structured as { status: number; hint: string };
    expect(report.status).toBe(401);
    expect(report.hint).toMatch(/this request carried \(Authorization: Bearer\)/);
    expect(report.hint).toMatch(/Authorization header/);
    expect(report.hint).not.toMatch(/DIGITALOCEAN_API_TOKEN/);
    expect(result.text).not.toContain(token);
    expect(output()).not.toContain(token);
  });
});

describe('request ids from clients', () => {
  const TOKEN = `dop_v1_${'9e1b7c4d'.repeat(8)}`;
  const OTHER = 'caller-token-abcdef0123';
  const CALL = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'key-get', arguments: { ID: 5 } },
  };
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

  /** A stateless token-passthrough server over an API stand-in, in this process, with its log. */
  async function server() {
    const api = await startStandInApi();
    cleanup.push(api.close);
    return startHttp([
      ...HTTP,
      ...[
        '--stateless',
        '--auth',
        'token-passthrough',
        '--api-url',
        api.urlFor('ids'),
        '--families',
        'account',
      ],
    ]);
  }

  /** One call with this X-Request-Id and bearer: the id sent back, and the id its request line logs. */
  async function callWith(url: string, output: () => string, id: string, bearer: string) {
    const answer = await httpRequest(url, {
      body: CALL,
      headers: { 'x-request-id': id, authorization: `Bearer ${bearer}` },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({ result: { structuredContent: { ssh_key: { id: 5 } } } });
    const echoed = String(answer.headers['x-request-id']);
    await waitForOutput(output, new RegExp(`"req_id":"${echoed}"[^\n]*"msg":"request"`));
    return echoed;
  }

  it('replace an id that is, holds or is part of a token, never logging or sending it back', async () => {
    const { url, output } = await server();
    const hex = TOKEN.slice('dop_v1_'.length);
    const cases: [id: string, bearer: string, secret: string][] = [
      [TOKEN, TOKEN, TOKEN], // the caller's own token
      [`doo_v1_${hex}`, TOKEN, hex], // the platform's other token shapes, any case, anywhere
      [`dor_v1_${hex}`, TOKEN, hex],
      [`DOP_V1_${'f'.repeat(64)}`, TOKEN, 'f'.repeat(64)],
      [`req-dop_v1_${'e'.repeat(20)}`, TOKEN, 'e'.repeat(20)],
      [hex, TOKEN, hex], // the token without its prefix
      [`trace-${hex.slice(10, 22)}-7`, TOKEN, hex.slice(10, 22)], // 12 characters of it
      [OTHER, OTHER, OTHER], // a bearer of another shape
      [`id.${OTHER}.1`, OTHER, OTHER],
    ];
    for (const [id, bearer, secret] of cases) {
      const echoed = await callWith(url, output, id, bearer);
      expect(echoed, id).toMatch(UUID);
      expect(output(), id).not.toContain(secret);
    }
    // Ids that are no secret are kept, in the log and in the answer: nginx's, a UUID, a short word.
    for (const id of [
      '0123456789abcdef0123456789abcdef',
      '5f0c1d0e-7d4b-4f7e-9a53-2a6d9c0b1e33',
      'job-0123',
    ]) {
      expect(await callWith(url, output, id, TOKEN)).toBe(id);
    }
  });

  it('replace an id out of bounds: too long, or with characters other than letters, digits and _.:-', async () => {
    const { url, output } = await server();
    for (const id of ['a'.repeat(129), 'id with spaces', 'id;drop', '<script>', 'ïd', '']) {
      const echoed = await callWith(url, output, id, OTHER);
      expect(echoed, JSON.stringify(id)).toMatch(UUID);
    }
    expect(await callWith(url, output, 'a'.repeat(128), OTHER)).toBe('a'.repeat(128));
  });
});

describe('--allowed-hosts and --allowed-origins behind a proxy', () => {
  it('serve only the listed names and pages, instead of the loopback ones (403 otherwise)', async () => {
    const { url } = await startHttp([
      ...HTTP,
      '--sandbox',
      '--stateless',
      '--allowed-hosts',
      'mcp.example.test,proxy.example.test:8443',
      '--allowed-origins',
      'https://app.example.test',
    ]);
    const status = async (headers: Record<string, string>) =>
      (await httpRequest(url, { body: INITIALIZE, headers })).status;
    expect(await status({ host: 'mcp.example.test' })).toBe(200);
    expect(await status({ host: 'mcp.example.test:443' })).toBe(200);
    expect(await status({ host: 'proxy.example.test:8443' })).toBe(200);
    expect(await status({ host: 'proxy.example.test:8444' })).toBe(403);
    expect(await status({ host: 'evil.example.test' })).toBe(403);
    // The operator reading the refusal learns which flag lists the names served.
    const foreign = await httpRequest(url, { body: INITIALIZE, headers: { host: 'evil.example.test' } });
    expect(foreign.json).toMatchObject({
      error: { message: expect.stringMatching(/Host header .*--allowed-hosts/) },
    });
    // The loopback names are replaced, not added to.
    expect(await status({ host: new URL(url).host })).toBe(403);
    expect(await status({ host: 'mcp.example.test', origin: 'https://app.example.test' })).toBe(200);
    for (const origin of [
      'https://evil.example.test',
      'http://app.example.test',
      'http://localhost:5173',
      'null',
    ]) {
      const answer = await httpRequest(url, {
        body: INITIALIZE,
        headers: { host: 'mcp.example.test', origin },
      });
      expect(answer.status, origin).toBe(403);
      expect(answer.json).toMatchObject({ error: { message: expect.stringMatching(/--allowed-origins/) } });
    }
  });
});

describe('--stateless', () => {
  it("streams a call's progress in its own answer, then the result", async () => {
    const statePath = join(temp(), 'sandbox.json');
    const helper = await startSandbox({ statePath });
    cleanup.push(() => helper.close());
    const { url } = await startHttp([
      ...HTTP,
      '--stateless',
      '--sandbox',
      '--sandbox-state',
      statePath,
      '--families',
      'account,vms',
    ]);
    const client = await httpClient(url);
    cleanup.push(() => client.close());
    const created = await call(client, 'vm-create', {
      Name: 'stateless-wait',
      Size: 's-1vcpu-1gb',
      ImageID: 161928327,
      Region: 'nyc3',
    });
    expect(created.isError, created.text).toBe(false);
    const id = (created.json as { droplet: { id: number } }).droplet.id;
    const updates: Progress[] = [];
    let advanced: Promise<void> | undefined;
    const result = (await client.callTool({ name: 'wait', arguments: { Kind: 'vm', ID: id } }, undefined, {
      onprogress: (update) => {
        updates.push(update);
        advanced ??= helper.advanceClock(5_000);
      },
    })) as CallToolResult;
    await advanced;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ droplet: { id, status: 'active' } });
    expect(updates[0]).toMatchObject({
      total: 100,
      message: 'vm stateless-wait: new → active (0 s, usually about 45 s, gives up at 300 s)',
    });
  });
});

describe('--max-in-flight', () => {
  // Both modes: without sessions (every call its own POST) and with them (calls on a session).
  for (const mode of ['--stateless', 'stateful'] as const) {
    it(`${mode}: past the cap a request gets 503, Retry-After and a JSON-RPC error, counted; calls pass again once the held ones end`, async () => {
      const api = await startStandInApi();
      cleanup.push(api.close);
      api.hold = 'held';
      const cap = 2;
      const { url } = await startHttp([
        ...HTTP,
        ...(mode === '--stateless' ? ['--stateless'] : []),
        ...['--auth', 'token-passthrough', '--api-url', api.urlFor('held'), '--families', 'account'],
        ...['--allowed-hosts', '127.0.0.1', '--max-in-flight', String(cap)],
      ]);
      // A caller each: one caller's share (a quarter of the cap, at least 1) holds one call.
      const tokenOf = (n: number) => `Bearer caller-token-${n}-0123456789`;
      const token = tokenOf(cap);
      const clients = await Promise.all(Array.from({ length: cap }, (_, n) => httpClient(url, tokenOf(n))));
      cleanup.push(async () => void (await Promise.all(clients.map((client) => client.close()))));
      // `cap` calls held by the API stand-in: the replica is full.
      const slow = clients.map((client, index) => call(client, 'key-get', { ID: index + 1 }));
      while (api.held.length < cap) await new Promise((resolve) => setTimeout(resolve, 10));

      // One more request (a call, or an initialize that would open a session), another caller's, is
      // refused; the body was read, so the answer carries the request's id.
      const body =
        mode === '--stateless'
          ? { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'key-get', arguments: { ID: 9 } } }
          : INITIALIZE;
      const refused = await httpRequest(url, { body, headers: { authorization: token } });
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.json).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: expect.stringMatching(/--max-in-flight 2\).*try again in 1 s/) },
        id: body.id,
      });
      expect(api.seen.map((upstream) => upstream.id)).toEqual([1, 2]); // the refused call did nothing
      let metrics = await scrape(url);
      expect(sample(metrics, 'cloudcall_requests_in_flight')).toBe(cap);
      expect(sample(metrics, 'cloudcall_requests_refused_total', { reason: 'max-in-flight' })).toBe(1);
      expect(sample(metrics, 'cloudcall_sessions_open')).toBe(mode === '--stateless' ? 0 : cap);
      // Saturated, still ready (see /readyz in http.ts): the excess is shed per request.
      expect((await fetch(new URL('/readyz', url))).status).toBe(200);

      api.hold = undefined;
      api.release();
      const results = await Promise.all(slow);
      expect(results.map((result) => (result.json as { ssh_key?: { id: number } }).ssh_key?.id)).toEqual([
        1, 2,
      ]);
      const again = await call(clients[0] as (typeof clients)[number], 'key-get', { ID: 3 });
      expect(again.json).toMatchObject({ ssh_key: { id: 3 } });
      const fresh = await httpRequest(url, { body, headers: { authorization: token } });
      expect(fresh.status).toBe(200);
      metrics = await scrape(url);
      expect(sample(metrics, 'cloudcall_requests_in_flight')).toBe(0);
      expect(sample(metrics, 'cloudcall_requests_refused_total', { reason: 'max-in-flight' })).toBe(1);
    });
  }
});

describe('operations', () => {
  it('/healthz, /readyz (the API reachable), /metrics counting calls, API statuses, 429s, retries, sessions', async () => {
    const api = await startStandInApi();
    cleanup.push(api.close);
    const { url } = await startHttp(
      [...HTTP, '--api-url', api.urlFor('one'), '--families', 'account', '--allowed-hosts', '127.0.0.1'],
      { DIGITALOCEAN_API_TOKEN: 'server-token-0123456789' },
    );
    const get = (path: string) => fetch(new URL(path, url));
    expect(await (await get('/healthz')).json()).toEqual({ status: 'ok' });
    const ready = await get('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });

    // Stateful (the default): the session counts while open.
    const client = await httpClient(url);
    api.script.push(429); // the first key-get is rate limited once, then retried
    expect((await call(client, 'key-get', { ID: 1 })).isError).toBe(false);
    expect((await call(client, 'key-get', { ID: 2 })).isError).toBe(false);
    api.script.push(404);
    expect((await call(client, 'key-get', { ID: 3 })).isError).toBe(true);
    expect((await call(client, 'key-get', { ID: 0 })).isError).toBe(true); // refused before any request

    const metrics = await scrape(url);
    expect(sample(metrics, 'cloudcall_tool_calls_total', { tool: 'key-get', outcome: 'ok' })).toBe(2);
    expect(sample(metrics, 'cloudcall_tool_calls_total', { tool: 'key-get', outcome: 'error' })).toBe(2);
    expect(observations(metrics, 'cloudcall_tool_call_duration_seconds')).toBe(4);
    expect(sample(metrics, 'cloudcall_upstream_responses_total', { status: '200' })).toBe(2);
    expect(sample(metrics, 'cloudcall_upstream_responses_total', { status: '429' })).toBe(1);
    expect(sample(metrics, 'cloudcall_upstream_responses_total', { status: '404' })).toBe(1);
    expect(sample(metrics, 'cloudcall_upstream_rate_limited_total')).toBe(1);
    expect(sample(metrics, 'cloudcall_upstream_retries_total')).toBe(1);
    expect(sample(metrics, 'cloudcall_sessions_open')).toBe(1);
    expect(api.seen.map((upstream) => upstream.token)).toEqual(Array(4).fill('server-token-0123456789'));
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    await client.close();
    expect(sample(await scrape(url), 'cloudcall_sessions_open')).toBe(0);

    // The API out of reach: not ready, saying why; still alive.
    await api.close();
    const unready = await get('/readyz');
    expect(unready.status).toBe(503);
    expect(await unready.json()).toMatchObject({
      status: 'unready',
      reason: expect.stringMatching(/cannot be reached/),
    });
    expect((await get('/healthz')).status).toBe(200);
  });

  it.each([
    ['stateful (the SDK server of a session)', [], false],
    ['stateless (the fast path)', ['--stateless'], false],
    ['stateless (an SDK server for a call that asks for progress)', ['--stateless'], true],
  ])(
    '%s: logs a failed tool call at warn and a good one in its request line at info, each with its request id',
    async (_mode, flags, progress) => {
      const { url, output } = await sandboxHttp(flags);
      const client = await httpClient(url);
      const callTool = async (name: string, args: Record<string, unknown>) =>
        (
          await client.callTool(
            { name, arguments: args },
            undefined,
            progress ? { onprogress: () => undefined } : {},
          )
        ).isError === true;
      expect(await callTool('key-list', {})).toBe(false);
      expect(await callTool('key-get', { ID: 987654 })).toBe(true);
      await client.close();
      // The log lines are written as the calls end, and may come just after the answers.
      await waitForOutput(
        output,
        /"tool":"key-list"[\s\S]*"tool":"key-get"|"tool":"key-get"[\s\S]*"tool":"key-list"/,
      );
      const lines = logLines(output);
      // One line per call that went well: its request's, naming the tool (no second line for it).
      expect(lines.filter((line) => line.msg.startsWith('tool key-list'))).toEqual([]);
      const ok = lines.find((line) => line.msg === 'request' && line.tool === 'key-list');
      const failedRequest = lines.find((line) => line.msg === 'request' && line.tool === 'key-get');
      const failed = lines.find((line) => line.msg.startsWith('tool key-get: '));
      // pino's levels: 30 info, 40 warn.
      expect(ok).toMatchObject({ level: 30, req_id: expect.stringMatching(/^[0-9a-f-]{16,}$/) });
      expect(failed).toMatchObject({ level: 40, req_id: expect.stringMatching(/^[0-9a-f-]{16,}$/) });
      // The warn line names the request that carried the call, and no other.
      expect(failed?.req_id).toBe(failedRequest?.req_id);
      expect(failed?.req_id).not.toBe(ok?.req_id);
    },
  );

  it.each([
    ['stateful', []],
    ['stateless', ['--stateless']],
  ])(
    "%s: a failed call's warn line finds its request by the key the server set, not one the client sends",
    async (_mode, flags) => {
      const { url, output } = await sandboxHttp(flags);
      // Every request of this client names its own request id, and forges the header under which
      // the server keeps a request's key (pointing at no request, or at another one).
      const client = new Client({ name: 'forger', version: '1.0.0' });
      const headers = { 'x-request-id': 'client-chosen-id-1', 'x-cloudcall-request-key': '1' };
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      expect(await call(client, 'key-get', { ID: 987654 })).toMatchObject({ isError: true });
      await client.close();
      await waitForOutput(output, /tool key-get: /);
      const failed = logLines(output).find((line) => line.msg.startsWith('tool key-get: '));
      expect(failed?.req_id).toBe('client-chosen-id-1');
    },
  );

  it('writes its buffered log within a moment while it runs, and every line still waiting when it exits', async () => {
    const { url, child, output, exited } = await passthroughProcess('logs');
    const client = await httpClient(url, 'Bearer caller-token-abcdef0123');
    // Parsing every line also checks each is whole: nothing cut or run together.
    const callLines = () => logLines(output).filter((line) => line.tool === 'key-get');
    // One call and then nothing: its line is out within the flush interval, not at the next 4 KiB.
    expect((await call(client, 'key-get', { ID: 100 })).isError).toBe(false);
    const answered = Date.now();
    await waitForOutput(output, /"tool":"key-get"/);
    expect(Date.now() - answered).toBeLessThan(LOG_FLUSH_MS + 2_000);
    // Calls whose lines fill no buffer, then SIGTERM at once: every line is written before the exit.
    for (let i = 1; i <= 5; i++) expect((await call(client, 'key-get', { ID: 100 + i })).isError).toBe(false);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(callLines()).toHaveLength(6);
    expect(output()).not.toContain('caller-token');
  });

  it('keeps serving when whoever read its log has gone, and still exits 0 on SIGTERM', async () => {
    const { url, child, exited } = await passthroughProcess('gone');
    // The log's reader closes its end: every line from here on meets a broken pipe.
    child.stderr?.destroy();
    const client = await httpClient(url, 'Bearer caller-token-abcdef0123');
    for (let i = 0; i < 40; i++) expect((await call(client, 'key-get', { ID: i + 1 })).isError).toBe(false);
    await client.close();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('on SIGTERM stops accepting, lets the call in flight finish, then exits 0', async () => {
    const { api, url, child, output, exited } = await passthroughProcess('slow', ['--grace-seconds', '60']);
    api.hold = 'slow';
    const client = await httpClient(url, 'Bearer caller-token-abcdef0123');
    const slow = call(client, 'key-get', { ID: 42 });
    while (api.held.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));

    child.kill('SIGTERM');
    await waitForOutput(output, /draining: 1 call\(s\) in flight/);
    // No new connections while it drains.
    await expect(fetch(new URL('/healthz', url))).rejects.toThrow();
    expect(child.exitCode).toBeNull();

    api.release();
    const result = await slow;
    expect(result.isError, result.text).toBe(false);
    expect(result.json).toMatchObject({ ssh_key: { id: 42 } });
    expect(await exited).toBe(0);
    expect(output()).not.toContain('caller-token');
  });
});

describe('the shipped deployment settings', () => {
  const root = new URL('../../../', import.meta.url);
  const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

  it("start the server: the Kubernetes Deployment's args and the Compose and Dockerfile environment", async () => {
    const api = await startStandInApi();
    cleanup.push(api.close);
    // On loopback here: the manifests bind 0.0.0.0, which the tests never do.
    const loopback = (args: string[]) =>
      args.map((arg) => arg.replace(/^--host=.*/, '--host=127.0.0.1').replace(/^--port=.*/, '--port=0'));

    const deployment = read('deploy/k8s/deployment.yaml');
    const args = [...deployment.matchAll(/^ {12}- (--[a-z-]+(?:=\S+)?)\s*$/gm)].map(
      (match) => match[1] as string,
    );
    expect(args).toEqual(expect.arrayContaining(['--stateless', '--auth=token-passthrough']));
    const k8s = await startHttp([...loopback(args), `--api-url=${api.urlFor('k8s')}`]);
    expect(k8s.output()).toMatch(/\(stateless\) with --auth token-passthrough/);
    const probes = [...deployment.matchAll(/^ {14}path: (\/\w+)$/gm)].map((match) => match[1]);
    expect(probes.sort()).toEqual(['/healthz', '/readyz']);
    for (const path of probes) expect((await fetch(new URL(path as string, k8s.url))).status).toBe(200);

    const compose = read('deploy/compose.yaml');
    const env = Object.fromEntries(
      [...compose.matchAll(/^ {6}(CLOUDCALL_[A-Z_]+): "?([^"\n]+)"?$/gm)].map((match) => [
        match[1],
        match[2],
      ]),
    );
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^FROM node:20[\w.-]*alpine AS runtime$/m);
    // The runtime stage's ENV lines (not the comments).
    for (const match of dockerfile.matchAll(/^(?:ENV)?\s+(CLOUDCALL_[A-Z_]+)=([^\s\\]+)/gm)) {
      env[match[1] as string] ??= match[2];
    }
    expect(env).toMatchObject({ CLOUDCALL_STATELESS: '1', CLOUDCALL_AUTH: 'token-passthrough' });
    const composed = await startHttp([`--api-url=${api.urlFor('compose')}`], {
      ...env,
      CLOUDCALL_HOST: '127.0.0.1',
      CLOUDCALL_PORT: '0',
    });
    expect(composed.output()).toMatch(/\(stateless\) with --auth token-passthrough/);
    // nginx passes on the Host clients use (localhost:8080): the replicas serve it.
    const through = await httpRequest(composed.url, {
      body: INITIALIZE,
      headers: { host: 'localhost:8080', authorization: 'Bearer compose-caller' },
    });
    expect(through.status).toBe(200);
  });

  it("the image's HEALTHCHECK asks the server on the port CLOUDCALL_PORT gives, and fails once it is gone", async () => {
    const api = await startStandInApi();
    cleanup.push(api.close);
    // The check as Docker runs it (exec form: no shell, no tool the runtime image may lack).
    const line = /^HEALTHCHECK [^\n]*\\\n\s+CMD (\[.*\])$/m.exec(read('Dockerfile'))?.[1];
    expect(line, 'HEALTHCHECK ... CMD ["node", ...] in the Dockerfile').toBeDefined();
    const [program, ...args] = JSON.parse(line as string) as string[];
    expect(program).toBe('node');
    const check = (port: number) =>
      new Promise<number>((resolve) => {
        const child = execFile(process.execPath, args, {
          env: { CLOUDCALL_PORT: String(port) },
          // Docker gives it 3 s; a Node start on a loaded CI machine can take longer than that.
          timeout: 15_000,
        });
        child.once('exit', (code) => resolve(code ?? -1));
      });

    // A port other than the image's 3333, as `docker run -e CLOUDCALL_PORT=...` would set.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const { stop } = await startHttp(
      ['--transport', 'http', '--stateless', '--auth', 'token-passthrough', `--api-url=${api.urlFor('hc')}`],
      { CLOUDCALL_PORT: String(port) },
    );
    expect(await check(port)).toBe(0);
    await stop();
    expect(await check(port)).not.toBe(0);
  });

  it('the Kubernetes pod waits before it drains, and is killed only after the drain could end', () => {
    const deployment = read('deploy/k8s/deployment.yaml');
    // A terminating pod still gets new connections until every node and proxy has dropped its
    // endpoint: it keeps serving that long (preStop) before SIGTERM stops its listener.
    const preStop = /preStop:\s+exec:\s+command: \["sleep", "(\d+)"\]/.exec(deployment)?.[1];
    expect(preStop, 'a preStop sleep in the Deployment').toBeDefined();
    const grace = /--grace-seconds=(\d+)/.exec(deployment)?.[1];
    const kill = /terminationGracePeriodSeconds: (\d+)/.exec(deployment)?.[1];
    // The kubelet's SIGKILL comes terminationGracePeriodSeconds after the preStop starts.
    expect(Number(preStop)).toBeGreaterThanOrEqual(3);
    expect(Number(preStop) + Number(grace)).toBeLessThan(Number(kill));
  });
});
