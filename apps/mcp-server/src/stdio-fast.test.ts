/**
 * Over stdio, a plain tools/call is answered by the shared runner straight from the transport
 * (fast-call.ts), as the SDK server answers it. Two sessions on one sandbox, each a
 * StdioLineTransport over in-memory streams and an SDK server, one with the fast path and one
 * without: the same lines in must give the same lines out, byte for byte, for results, tool
 * errors, protocol errors and everything the fast path leaves to the SDK; a cancel stops a call
 * taken by the fast path, with no answer, as the SDK does.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { createClient } from '@cloudcall/core';
import { connectSandbox } from '@cloudcall/sandbox';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallRouter, plainCallParams, sessionCalls } from './fast-call.js';
import { LISTING } from './listing.generated.js';
import { createLegacyServer, createToolCall, type McpServerOptions } from './server.js';
import { StdioLineTransport } from './stdio.js';

let sandbox: Awaited<ReturnType<typeof connectSandbox>>;

beforeAll(async () => {
  sandbox = await connectSandbox({});
});
afterAll(async () => {
  await sandbox?.close();
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** One stdio session in process; `fast` gives its transport the fast path. */
async function session(
  fast: boolean,
  client: McpServerOptions['client'] = () => Promise.resolve(sandbox.client),
) {
  const options: McpServerOptions = {
    client,
    tools: LISTING.tools.filter((tool) => tool.family === 'account' && tool.name !== 'key-delete'),
    hidden: new Map([['key-delete', 'hidden by --read-only (CLOUDCALL_READ_ONLY)']]),
    version: '0',
    sandbox: true,
    log: () => undefined,
  };
  const input = new PassThrough();
  const output = new PassThrough();
  const toolCall = createToolCall(options);
  const server = createLegacyServer(options, toolCall);
  const transport = new StdioLineTransport({ input, output, maxMessageBytes: 1024 * 1024 });
  /** Ids the fast path took. */
  const taken: RequestId[] = [];
  if (fast) {
    const router = sessionCalls(
      toolCall,
      () => server,
      (message, text) => transport.sendText(message, text),
      () => undefined,
    );
    transport.calls = {
      ...router,
      call: (id, params) => {
        taken.push(id);
        return router.call(id, params);
      },
    } satisfies CallRouter;
  }
  await server.connect(transport);
  const lines: string[] = [];
  /** Waiters for a number of lines, woken as lines come (no timers). */
  const waiting: { count: number; resolve: () => void }[] = [];
  let buffered = '';
  output.setEncoding('utf8').on('data', (text: string) => {
    buffered += text;
    for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
      lines.push(buffered.slice(0, end).replace(UUID, '<request id>'));
      buffered = buffered.slice(end + 1);
    }
    for (const waiter of waiting.filter((w) => lines.length >= w.count)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const send = (message: unknown) =>
    input.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  /** Sends each message and waits for `answers` more lines; gives the new lines. */
  const exchange = async (messages: unknown[], answers: number) => {
    const before = lines.length;
    const count = before + answers;
    const arrived = new Promise<void>((resolve) => {
      if (lines.length >= count) resolve();
      else waiting.push({ count, resolve });
    });
    for (const message of messages) send(message);
    await arrived;
    return lines.slice(before);
  };
  await exchange(
    [
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ],
    1,
  );
  return { exchange, send, lines, taken, close: () => server.close() };
}

const call = (id: unknown, params: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });

describe('a plain call over stdio', () => {
  let fast: Awaited<ReturnType<typeof session>>;
  let sdk: Awaited<ReturnType<typeof session>>;
  beforeAll(async () => {
    [fast, sdk] = await Promise.all([session(true), session(false)]);
  });
  afterAll(async () => {
    await Promise.all([fast?.close(), sdk?.close()]);
  });

  /** The same lines to both sessions, one at a time: their answers, and whether the fast path took them. */
  async function both(messages: unknown[], answers = messages.length) {
    const before = fast.taken.length;
    const a = await fast.exchange(messages, answers);
    const b = await sdk.exchange(messages, answers);
    return { fast: a, sdk: b, taken: fast.taken.length - before };
  }

  it.each([
    ['a result', call(1, { name: 'key-list', arguments: {} })],
    ['a result, string id, no arguments', call('call-7', { name: 'balance-get' })],
    ['a tool error (isError)', call(3, { name: 'key-get', arguments: { ID: 987654 } })],
    ['invalid arguments (isError)', call(4, { name: 'key-get', arguments: { ID: 'seven' } })],
    ['an unknown argument (isError)', call(5, { name: 'key-list', arguments: { Colour: 'red' } })],
    ['an unknown tool (-32602)', call(6, { name: 'key-explode', arguments: {} })],
    ['a hidden tool (-32602)', call(7, { name: 'key-delete', arguments: { ID: 1 } })],
  ])('answers %s byte for byte as the SDK server does', async (_what, message) => {
    const answers = await both([message]);
    expect(answers.taken).toBe(1);
    expect(answers.fast).toEqual(answers.sdk);
    expect(answers.fast).toHaveLength(1);
  });

  it.each([
    ['a progress token', call(20, { name: 'key-list', _meta: { progressToken: 'p' } })],
    ['a key params do not have', call(21, { name: 'key-list', arguments: {}, colour: 'red' })],
    ['arguments that are not an object', call(22, { name: 'key-list', arguments: [1] })],
    ['a name that is not a string', call(23, { name: 7 })],
    ['a fractional id', call(24.5, { name: 'key-list' })],
    ['a key a request does not have', { ...call(25, { name: 'key-list' }), extra: true }],
    [
      'an __proto__ argument',
      '{"jsonrpc":"2.0","id":26,"method":"tools/call","params":{"name":"key-list","arguments":{"__proto__":{"x":1}}}}',
    ],
  ])('leaves %s to the SDK server, which answers it alike on both', async (_what, message) => {
    const answers = await both([message]);
    expect(answers.taken).toBe(0);
    expect(answers.fast).toEqual(answers.sdk);
  });

  it('answers calls in a 2025-03-26 batch together, as the SDK path does', async () => {
    const batch = [
      call(30, { name: 'key-list' }),
      call(31, { name: 'key-nope' }),
      { jsonrpc: '2.0', id: 32, method: 'ping' },
    ];
    const answers = await both([batch], 1);
    expect(answers.taken).toBe(2);
    const byId = (text: string | undefined) =>
      (JSON.parse(text ?? '[]') as { id: number }[])
        .sort((x, y) => x.id - y.id)
        .map((answer) => JSON.stringify(answer));
    expect(byId(answers.fast[0])).toEqual(byId(answers.sdk[0]));
    expect(byId(answers.fast[0])).toHaveLength(3);
  });
});

describe('the exact plain-call check', () => {
  it('takes only messages the SDK schemas pass unchanged', () => {
    expect(plainCallParams(call(1, { name: 'a', arguments: { B: 1 } }))).toEqual({
      name: 'a',
      arguments: { B: 1 },
    });
    expect(plainCallParams(call('x', { name: 'a' }))).toEqual({ name: 'a' });
    for (const message of [
      call(1, { name: 'a', arguments: null }),
      call(null, { name: 'a' }),
      call(2 ** 53, { name: 'a' }),
      call(1, undefined),
      call(1, []),
      { ...call(1, { name: 'a' }), jsonrpc: '1.0' },
      { ...call(1, { name: 'a' }), method: 'tools/list' },
      [call(1, { name: 'a' })],
      JSON.parse(
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"__proto__":1}}}',
      ),
    ]) {
      expect(plainCallParams(message)).toBeUndefined();
    }
  });
});

describe('cancelling a call the fast path took', () => {
  let api: HttpServer;
  /** Requests the API holds unanswered, resolved when each closes. */
  const closed: Promise<void>[] = [];
  beforeAll(async () => {
    api = createServer((req) => {
      closed.push(new Promise((resolve) => req.socket.once('close', () => resolve())));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    api.closeAllConnections();
    await new Promise((resolve) => api.close(resolve));
  });

  it('stops it at once (its API request is dropped) and sends no answer, as the SDK does', async () => {
    const client = createClient({
      token: 'not-a-secret',
      baseUrl: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
    });
    const s = await session(true, () => Promise.resolve(client));
    try {
      s.send(call(40, { name: 'key-list' }));
      await expect.poll(() => closed.length, { timeout: 10_000 }).toBe(1);
      expect(s.taken).toEqual([40]);
      s.send({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 40, reason: 'changed my mind' },
      });
      await closed[0];
      // A ping sent after the cancel is answered; the call never is.
      const after = await s.exchange([{ jsonrpc: '2.0', id: 41, method: 'ping' }], 1);
      expect(after.map((text) => JSON.parse(text).id)).toEqual([41]);
      expect(s.lines.some((text) => JSON.parse(text).id === 40)).toBe(false);
    } finally {
      await s.close();
      await client.close();
    }
  });
});
