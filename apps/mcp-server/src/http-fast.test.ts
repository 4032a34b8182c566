/**
 * The stateless fast path answers a plain tools/call exactly as the SDK's server and transport
 * do. Two servers in process on the same sandbox, one with the shared tool runner (fast path)
 * and one without (every request through a fresh SDK server and transport, as before): the same
 * raw requests over loopback HTTP must get the same status, content type and JSON-RPC answer,
 * for results, tool errors, protocol errors and everything the fast path leaves to the SDK.
 */
import { connectSandbox } from '@cloudcall/sandbox';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningHttp, serveHttp } from './http.js';
import { LISTING } from './listing.generated.js';
import { createLegacyServer, createToolCall, type McpServerOptions } from './server.js';
import { httpRequest } from './testing/process.js';

let sandbox: Awaited<ReturnType<typeof connectSandbox>>;
let fast: RunningHttp;
let sdk: RunningHttp;
/** Servers made per request by each: the fast path makes none for a plain call. */
const made = { fast: 0, sdk: 0 };

beforeAll(async () => {
  sandbox = await connectSandbox({});
  const client = Promise.resolve(sandbox.client);
  const options: McpServerOptions = {
    client: () => client,
    tools: LISTING.tools.filter((tool) => tool.family === 'account' && tool.name !== 'key-delete'),
    hidden: new Map([['key-delete', 'hidden by --read-only (CLOUDCALL_READ_ONLY)']]),
    version: '0',
    sandbox: true,
    log: () => {},
  };
  const toolCall = createToolCall(options);
  const serve = (which: 'fast' | 'sdk') =>
    serveHttp({
      host: '127.0.0.1',
      port: 0,
      log: () => {},
      maxSessions: 10,
      sessionIdleTimeoutMs: 60_000,
      maxMessageBytes: 1024 * 1024,
      stateless: true,
      newServer: () => {
        made[which]++;
        return createLegacyServer(options, toolCall);
      },
      toolCall: which === 'fast' ? toolCall : undefined,
    });
  [fast, sdk] = await Promise.all([serve('fast'), serve('sdk')]);
});

afterAll(async () => {
  await Promise.all([fast?.close(), sdk?.close()]);
  await sandbox?.close();
});

const call = (id: unknown, params: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });

/** The same request to both servers: their answers, compared field by field. */
async function both(body: unknown, headers: Record<string, string> = {}) {
  const [a, b] = await Promise.all([
    httpRequest(fast.url, { body, headers }),
    httpRequest(sdk.url, { body, headers }),
  ]);
  // The API's request id differs from one request to the next: the same placeholder in both.
  const view = (answer: typeof a) => ({
    status: answer.status,
    type: answer.headers['content-type'],
    json: JSON.parse(JSON.stringify(answer.json ?? null).replace(UUID, '<request id>')) as unknown,
  });
  return { fast: view(a), sdk: view(b) };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const V = { 'mcp-protocol-version': '2025-06-18' };

describe('the stateless fast path', () => {
  it.each([
    ['a result', call(1, { name: 'key-list', arguments: {} }), V],
    ['a result, string id, no arguments', call('call-7', { name: 'balance-get' }), V],
    ['a result, no MCP-Protocol-Version header', call(2, { name: 'key-list', arguments: {} }), {}],
    ['a tool error (isError)', call(3, { name: 'key-get', arguments: { ID: 987654 } }), V],
    ['invalid arguments (isError)', call(4, { name: 'key-get', arguments: { ID: 'seven' } }), V],
    ['an unknown tool (-32602)', call(5, { name: 'key-explode', arguments: {} }), V],
    ['a hidden tool (-32602)', call(6, { name: 'key-delete', arguments: { ID: 1 } }), V],
  ])('answers %s as the SDK does', async (_what, body, headers) => {
    const before = made.fast;
    const answers = await both(body, headers);
    expect(answers.fast).toEqual(answers.sdk);
    expect(answers.fast.status).toBe(200);
    // Answered by the shared runner: no server was made for it.
    expect(made.fast).toBe(before);
  });

  it.each([
    ['params of the wrong shape', call(10, { name: 'key-list', arguments: [1] }), V],
    ['a progress token (a stream)', call(11, { name: 'key-list', _meta: { progressToken: 't' } }), V],
    [
      'an unsupported protocol version',
      call(12, { name: 'key-list' }),
      { 'mcp-protocol-version': '1999-01-01' },
    ],
    ['a wrong Accept', call(13, { name: 'key-list' }), { ...V, accept: 'application/json' }],
    ['a text/plain body', call(14, { name: 'key-list' }), { ...V, 'content-type': 'text/plain' }],
    ['tools/list', { jsonrpc: '2.0', id: 15, method: 'tools/list' }, V],
    ['an id that is not a JSON-RPC id', call(null, { name: 'key-list' }), V],
  ])('leaves %s to the SDK, which answers it alike on both', async (_what, body, headers) => {
    const before = made.fast;
    const answers = await both(body, headers);
    expect(answers.fast).toEqual(answers.sdk);
    expect(made.fast).toBe(before + 1);
  });

  it('answers the official SDK client, whose unknown tool is an McpError -32602', async () => {
    const client = new Client({ name: 'fast-path', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(fast.url)));
    try {
      const listed = await client.callTool({ name: 'key-list', arguments: {} });
      expect(listed.isError).toBeFalsy();
      const refused = await client
        .callTool({ name: 'key-lst', arguments: {} })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(McpError);
      expect(refused).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/Did you mean key-list/),
      });
    } finally {
      await client.close();
    }
  });
});
