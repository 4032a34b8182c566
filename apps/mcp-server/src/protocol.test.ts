/**
 * MCP to the letter, through the server as main.ts starts it (in this process): cancellation under --stateless
 * (the official SDK client's own cancel, and raw requests from two callers), resumable streams
 * for stateful HTTP (the SDK client resuming a stream whose connection dropped), and batches by
 * protocol version over stdio and HTTP. The sandbox runs on a state file; a second sandbox on the
 * same file, in this process, moves the shared clock and counts the server's requests.
 */
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxVm } from './testing/client.js';
import { killAll, rawStdio, startHttp } from './testing/main.js';
import { httpRequest } from './testing/process.js';
import { httpClient } from './testing/service.js';

const statePath = join(mkdtempSync(join(tmpdir(), 'cloudcall-mcp-protocol-')), 'sandbox.json');
let helper: Sandbox;

beforeAll(async () => {
  helper = await startSandbox({ statePath });
});
afterAll(async () => {
  await killAll();
  await helper.close();
});

const SERVER = ['--sandbox', '--sandbox-state', statePath, '--families', 'account,vms'];
const textOf = (result: CallToolResult) => (result.content[0]?.type === 'text' ? result.content[0].text : '');

/** Resolves once the server has polled VM `id` at least once since `watch` was set. */
async function polled(watch: number): Promise<void> {
  await expect.poll(() => helper.matchedRequests(watch), { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
}

describe('cancellation under --stateless', () => {
  let url: string;
  let output: () => string;
  let client: Client;
  beforeAll(async () => {
    ({ url, output } = await startHttp([
      '--transport',
      'http',
      '--port',
      '0',
      '--stateless',
      '--auth',
      'token-passthrough',
      ...SERVER,
    ]));
    client = await httpClient(url, 'Bearer caller-a');
  });
  afterAll(() => client.close());

  it.each([
    ['a plain call (answered as JSON)', false],
    ['a call that asked for progress (answered as a stream)', true],
  ])('stops %s at once when the SDK client cancels it', async (what, progress) => {
    const id = await createSandboxVm(client, `cancel-${progress ? 'stream' : 'json'}`);
    const cancelledLines = () =>
      output()
        .split('\n')
        .filter((line) => /tool wait: .*cancelled/i.test(line)).length;
    const before = cancelledLines();
    const watch = await helper.watchRequests({ method: 'GET', path: `/v2/droplets/${id}` });
    const controller = new AbortController();
    const outcome = client
      .callTool({ name: 'wait', arguments: { Kind: 'vm', ID: id } }, undefined, {
        signal: controller.signal,
        ...(progress ? { onprogress: () => controller.abort('enough') } : {}),
      })
      .catch((error: unknown) => error);
    if (!progress) {
      await polled(watch);
      controller.abort('enough');
    }
    expect(await outcome, what).toBeInstanceOf(Error);
    // The wait ends as cancelled (it would otherwise poll for 300 s): its line says so.
    await expect.poll(cancelledLines, { timeout: 8_000 }).toBe(before + 1);
  });

  it("a cancel from another caller leaves the call running; the caller's own stops it", async () => {
    const id = await createSandboxVm(client, 'cancel-other');
    const headers = (token: string) => ({
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2025-06-18',
    });
    const wait = (requestId: string) => ({
      jsonrpc: '2.0',
      id: requestId,
      method: 'tools/call',
      params: { name: 'wait', arguments: { Kind: 'vm', ID: id } },
    });
    const cancel = (requestId: string) => ({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId, reason: 'test' },
    });

    // The caller's own cancel: the answer ends at once, with no result (an empty stream).
    let watch = await helper.watchRequests({ method: 'GET', path: `/v2/droplets/${id}` });
    const stopped = httpRequest(url, { body: wait('w-1'), headers: headers('caller-a') });
    await polled(watch);
    expect((await httpRequest(url, { body: cancel('w-1'), headers: headers('caller-a') })).status).toBe(202);
    const ended = await stopped;
    expect({ status: ended.status, type: ended.headers['content-type'], text: ended.text }).toEqual({
      status: 200,
      type: 'text/event-stream',
      text: '',
    });

    // The same id cancelled by another caller (another token): nothing stops, the VM boots and
    // the wait answers it active.
    watch = await helper.watchRequests({ method: 'GET', path: `/v2/droplets/${id}` });
    const running = httpRequest(url, { body: wait('w-2'), headers: headers('caller-a') });
    await polled(watch);
    expect((await httpRequest(url, { body: cancel('w-2'), headers: headers('caller-b') })).status).toBe(202);
    await helper.advanceClock(5_000);
    const answered = await running;
    expect(answered.status).toBe(200);
    const result = (answered.json as { result: CallToolResult }).result;
    expect(JSON.parse(textOf(result)).droplet).toMatchObject({ id, status: 'active' });
  });
});

describe('a stateless call whose client goes away', () => {
  it('stops when the connection carrying it closes, on the replica running it', async () => {
    const { url, output } = await startHttp(['--transport', 'http', '--port', '0', '--stateless', ...SERVER]);
    const client = await httpClient(url);
    try {
      const id = await createSandboxVm(client, 'cancel-close');
      const watch = await helper.watchRequests({ method: 'GET', path: `/v2/droplets/${id}` });
      const target = new URL(url);
      const req = request({
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      });
      req.on('error', () => undefined);
      req.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'wait', arguments: { Kind: 'vm', ID: id } },
        }),
      );
      await polled(watch);
      req.destroy();
      // The wait ends as cancelled instead of polling on for 300 s.
      await expect.poll(() => /tool wait: .*cancelled/i.test(output()), { timeout: 8_000 }).toBe(true);
    } finally {
      await client.close();
    }
  });
});

/** A TCP relay in front of the server that can cut every connection through it at once. */
function relay(port: number): Promise<{ url: string; cut: () => void; heads: string[]; close: () => void }> {
  const sockets = new Set<Socket>();
  const heads: string[] = [];
  const server: NetServer = createServer((downstream) => {
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [downstream, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    downstream.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (/^(GET|POST|DELETE) /.test(text)) heads.push(text.split('\r\n\r\n')[0] ?? '');
    });
    downstream.pipe(upstream).pipe(downstream);
    downstream.on('close', () => upstream.destroy());
    upstream.on('close', () => downstream.destroy());
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port: own } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${own}/mcp`,
        heads,
        cut: () => {
          for (const socket of sockets) socket.destroy();
        },
        close: () => {
          for (const socket of sockets) socket.destroy();
          server.close();
        },
      });
    }),
  );
}

/**
 * A GET stream on `url`, once its headers have come: what has arrived, and whether it ends by
 * itself within 5 s (false: still open then).
 */
function openGet(
  url: string,
  headers: Record<string, string>,
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: () => string;
  ended: Promise<boolean>;
  close: () => void;
}> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'GET', headers: { accept: 'text/event-stream', ...headers } },
      (res) => {
        req.setTimeout(0);
        res.on('error', () => undefined);
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        const ended = new Promise<boolean>((done) => {
          const timer = setTimeout(() => done(false), 5000);
          res.once('end', () => {
            clearTimeout(timer);
            done(true);
          });
        });
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: () => text,
          ended,
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    // The headers must come well before the first keep-alive (15 s).
    req.setTimeout(3000, () => req.destroy(new Error('no answer within 3 s')));
    req.end();
  });
}

describe('resumable streams (stateful HTTP)', () => {
  let url: string;
  beforeAll(async () => {
    // Reached through a relay on another port too: loopback by any port.
    ({ url } = await startHttp([
      '--transport',
      'http',
      '--port',
      '0',
      '--allowed-hosts',
      '127.0.0.1',
      ...SERVER,
    ]));
  });

  it('a stream opens with a priming event carrying an id and retry:, and every event has an id', async () => {
    const headers = await rawSession();
    const answer = await httpRequest(url, {
      body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'balance-get', arguments: {} } },
      headers,
    });
    expect(answer.headers['content-type']).toBe('text/event-stream');
    const events = answer.text.split('\n\n').filter(Boolean);
    expect(events[0]).toMatch(/^id: \S+\nretry: 1000\ndata: $/);
    expect(events[1]).toMatch(/^event: message\nid: \S+\ndata: \{.*"id":2/);
  });

  /** A 2025-11-25 session opened with raw requests: the headers its requests carry. */
  async function rawSession(): Promise<Record<string, string>> {
    const initialize = await httpRequest(url, {
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      },
    });
    const headers = {
      'mcp-session-id': initialize.headers['mcp-session-id'] as string,
      'mcp-protocol-version': '2025-11-25',
    };
    await httpRequest(url, { body: { jsonrpc: '2.0', method: 'notifications/initialized' }, headers });
    return headers;
  }

  it("a GET stream's headers come at once, before any event: the client knows the stream is open", async () => {
    const headers = await rawSession();
    // Nothing is sent on this stream for 15 s (the first keep-alive), so its headers alone say it is open.
    const stream = await openGet(url, headers);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('text/event-stream');
      expect(stream.headers['mcp-session-id']).toBe(headers['mcp-session-id']);
      expect(stream.text()).toBe('');
    } finally {
      stream.close();
    }
  });

  it('a stream resumed after its answer was sent replays what was missed, then ends', async () => {
    const headers = await rawSession();
    const answer = await httpRequest(url, {
      body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'balance-get', arguments: {} } },
      headers,
    });
    const priming = /^id: (\S+)\nretry:/.exec(answer.text)?.[1] as string;
    expect(priming).toBeDefined();
    // Resumed from the priming event, as a client whose connection dropped before the answer.
    const resumed = await openGet(url, { ...headers, 'last-event-id': priming });
    try {
      expect(resumed.status).toBe(200);
      // The answer comes again, and the stream ends: a client waits on nothing more (the 1.x SDK
      // kept such a stream open, with keep-alives, until the client closed it).
      expect(await resumed.ended).toBe(true);
      const events = resumed.text().split('\n\n').filter(Boolean);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatch(/^event: message\nid: \S+\ndata: \{.*"id":2/);
      expect(events[0]).toContain('"result"');
      // Resuming from the answer itself: nothing to replay, the stream ends at once.
      const last = /\nid: (\S+)\n/.exec(events[0] as string)?.[1] as string;
      const after = await openGet(url, { ...headers, 'last-event-id': last });
      expect(await after.ended).toBe(true);
      expect({ status: after.status, text: after.text() }).toEqual({ status: 200, text: '' });
    } finally {
      resumed.close();
    }
  });

  it('the SDK client resumes a stream whose connection dropped, with Last-Event-ID, and gets the result it missed', async () => {
    const target = new URL(url);
    const cutter = await relay(Number(target.port));
    const client = new Client({ name: 'resuming', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(cutter.url)));
      const id = await createSandboxVm(client, 'resume');
      let cut = false;
      const result = (await client.callTool({ name: 'wait', arguments: { Kind: 'vm', ID: id } }, undefined, {
        onprogress: () => {
          if (cut) return;
          cut = true;
          // The connection drops mid-call; meanwhile the VM boots and the result is sent to no one.
          cutter.cut();
          void helper.advanceClock(5_000);
        },
      })) as CallToolResult;
      expect(cut).toBe(true);
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(JSON.parse(textOf(result)).droplet).toMatchObject({ id, status: 'active' });
      // It came back on a GET that named the last event the client had seen.
      expect(cutter.heads.some((head) => /^GET /.test(head) && /\r\nlast-event-id: \S+/i.test(head))).toBe(
        true,
      );
    } finally {
      await client.close();
      cutter.close();
    }
  });
});

describe('batches by protocol version', () => {
  afterEach(killAll);
  const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
  const keyList = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'key-list' },
  });
  const initialize = (protocolVersion: string) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

  it.each(['2024-11-05', '2025-03-26'])(
    'over stdio, %s answers a batch as one array, each member by its id',
    async (version) => {
      const stdio = rawStdio(SERVER);
      await stdio.send(initialize(version));
      expect(await stdio.next()).toMatchObject({ id: 1, result: { protocolVersion: version } });
      await stdio.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await stdio.send([
        ping(2),
        keyList(3),
        { jsonrpc: '2.0', method: 'notifications/progress-nonsense' },
        { id: 4 },
      ]);
      const answer = (await stdio.next()) as unknown as unknown[];
      expect(Array.isArray(answer)).toBe(true);
      for (const member of answer)
        expect(JSONRPCMessageSchema.safeParse(member).success || (member as { id: unknown }).id === 4).toBe(
          true,
        );
      const byId = new Map((answer as { id: number }[]).map((member) => [member.id, member]));
      expect([...byId.keys()].sort()).toEqual([2, 3, 4]);
      expect(byId.get(2)).toMatchObject({ result: {} });
      expect(byId.get(3)).toMatchObject({ result: { structuredContent: { ssh_keys: expect.any(Array) } } });
      expect(byId.get(4)).toMatchObject({ error: { code: -32600 } });
      // A batch of notifications only gets no answer: the next line answers the next request.
      await stdio.send([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
      await stdio.send(ping(5));
      expect(await stdio.next()).toMatchObject({ id: 5, result: {} });
      expect(await stdio.end()).toBe(0);
    },
  );

  it.each(['2025-06-18', '2025-11-25'])(
    'over stdio, %s refuses a batch with -32600 and keeps serving',
    async (version) => {
      const stdio = rawStdio(SERVER);
      await stdio.send(initialize(version));
      expect(await stdio.next()).toMatchObject({ id: 1, result: { protocolVersion: version } });
      await stdio.send([ping(2), ping(3)]);
      expect(await stdio.next()).toMatchObject({
        id: null,
        error: { code: -32600, message: expect.stringMatching(/batches are not part of protocol version/) },
      });
      await stdio.send(ping(4));
      expect(await stdio.next()).toMatchObject({ id: 4, result: {} });
      expect(await stdio.end()).toBe(0);
    },
  );

  it('over stdio, a batch before initialize is refused', async () => {
    const early = rawStdio(SERVER);
    await early.send([initialize('2025-03-26')]);
    expect(await early.next()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it.each([
    ['stateful', '2025-03-26', 200, []],
    ['stateful', '2025-06-18', 400, []],
    ['stateless', '2025-03-26', 200, ['--stateless']],
    ['stateless', '2025-06-18', 400, ['--stateless']],
  ])('over HTTP, %s, %s: a batch gets %i', async (_mode, version, status, flags) => {
    const { url } = await startHttp(['--transport', 'http', '--port', '0', ...flags, ...SERVER]);
    const opened = await httpRequest(url, { body: initialize(version) });
    const session = opened.headers['mcp-session-id'];
    const headers: Record<string, string> = typeof session === 'string' ? { 'mcp-session-id': session } : {};
    if (version >= '2025-06-18') headers['mcp-protocol-version'] = version;
    const answer = await httpRequest(url, { body: [ping(2), keyList(3)], headers });
    expect(answer.status, answer.text).toBe(status);
    if (status === 400) {
      expect(answer.json).toMatchObject({
        error: { code: -32600, message: expect.stringMatching(/batches/) },
      });
      return;
    }
    // Both answers, in one JSON array or as the events of one stream.
    const members =
      answer.headers['content-type'] === 'application/json'
        ? (JSON.parse(answer.text) as { id: number }[])
        : [...answer.text.matchAll(/^data: (.+)$/gm)].map(
            (match) => JSON.parse(match[1] as string) as { id: number },
          );
    expect(members.map((member) => member.id).sort()).toEqual([2, 3]);
  });
});
