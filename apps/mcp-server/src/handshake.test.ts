/**
 * The answers given before the SDK loads (handshake.ts) are the SDK server's own answers, and the
 * SDK server takes over the session without losing, repeating or reordering a message.
 */
import { PassThrough } from 'node:stream';
import { connectSandbox } from '@cloudcall/sandbox';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CallRouter, sessionCalls } from './fast-call.js';
import { EarlyStdio, initializeResult, type ServerIdentity } from './handshake.js';
import { defaultToolsListBytes, LISTING, toolsListBytes, toolsListText } from './listing.generated.js';
import { PROTOCOL } from './protocol.generated.js';
import { createLegacyServer, createToolCall, type McpServerOptions } from './server.js';
import { StdioLineTransport } from './stdio.js';
import { killAll, rawStdio } from './testing/process.js';
import { listingOf } from './tool-data.js';

afterEach(killAll);

const INITIALIZE_PARAMS = {
  protocolVersion: '2025-06-18',
  capabilities: { elicitation: {}, roots: { listChanged: true } },
  clientInfo: { name: 'test', version: '1.0.0' },
};

const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: INITIALIZE_PARAMS };
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

function serverOptions(identity: ServerIdentity): McpServerOptions {
  return {
    client: () => Promise.reject(new Error('no API in this test')),
    tools: LISTING.tools,
    families: LISTING.families,
    toolMode: identity.dynamic ? 'dynamic' : 'static',
    version: identity.version,
    sandbox: identity.sandbox,
    showSecrets: identity.showSecrets,
    log: () => undefined,
  };
}

/** The SDK server's answers to raw requests, over an in-memory transport. */
async function sdkAnswers(identity: ServerIdentity, requests: Record<string, unknown>[]) {
  const [ours, theirs] = InMemoryTransport.createLinkedPair();
  const server = createLegacyServer(serverOptions(identity));
  await server.connect(theirs);
  const answers = new Map<unknown, JSONRPCMessage>();
  ours.onmessage = (message) => {
    if ('id' in message) answers.set(message.id, message);
  };
  await ours.start();
  for (const request of requests) await ours.send(request as JSONRPCMessage);
  await expect.poll(() => answers.size).toBe(requests.length);
  await server.close();
  return answers;
}

describe('the answers given before the SDK loads', () => {
  it('use the bundled SDK protocol versions', () => {
    expect(PROTOCOL).toEqual({ latest: LATEST_PROTOCOL_VERSION, supported: SUPPORTED_PROTOCOL_VERSIONS });
  });

  it("list every tool with the build's text of their entries: JSON.stringify's of the listing, in ASCII", async () => {
    // The characters beyond ASCII as escapes (the script's asciiOnly): the same JSON, held by V8
    // one byte a character.
    expect(toolsListText()).toBe(await asciiOnly(JSON.stringify(listingOf(LISTING.tools))));
    expect(toolsListText()).toMatch(/^[\x20-\x7e]*$/);
    expect(toolsListText()).toContain('\\u2026');
    expect(JSON.parse(toolsListText())).toEqual(listingOf(LISTING.tools));
  });

  it("list the default tools with the build's bytes of their entries, the start of every entry's", async () => {
    const defaults = LISTING.tools.slice(0, LISTING.defaults.count);
    expect(defaultToolsListBytes().toString('latin1')).toBe(
      await asciiOnly(JSON.stringify(listingOf(defaults))),
    );
    expect(toolsListBytes().toString('latin1')).toBe(toolsListText());
    // The tools offered on request come after the default ones.
    expect(defaults.length).toBeLessThan(LISTING.tools.length);
  });

  const identities: ServerIdentity[] = [
    { version: '1.2.3', sandbox: false, showSecrets: false, dynamic: false },
    { version: '1.2.3', sandbox: true, showSecrets: true, dynamic: false },
    { version: '0.0.1', sandbox: true, showSecrets: false, dynamic: true },
  ];
  for (const identity of identities) {
    it(`are the SDK server's for initialize and tools/list (${JSON.stringify(identity)})`, async () => {
      for (const protocolVersion of [...SUPPORTED_PROTOCOL_VERSIONS, '1999-01-01']) {
        const params = { ...INITIALIZE_PARAMS, protocolVersion };
        const answers = await sdkAnswers(identity, [
          { jsonrpc: '2.0', id: 1, method: 'initialize', params },
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        ]);
        const early = initializeResult(params, identity);
        expect(early).toBeDefined();
        expect(answers.get(1)).toEqual({ jsonrpc: '2.0', id: 1, result: early });
        if (!identity.dynamic) {
          expect(answers.get(2)).toEqual({
            jsonrpc: '2.0',
            id: 2,
            result: { tools: listingOf(LISTING.tools) },
          });
        }
      }
    });
  }

  it('leave a malformed initialize to the SDK server', () => {
    const identity = identities[0] as ServerIdentity;
    const malformed: unknown[] = [
      undefined,
      [],
      { ...INITIALIZE_PARAMS, protocolVersion: 20250618 },
      { ...INITIALIZE_PARAMS, clientInfo: undefined },
      { ...INITIALIZE_PARAMS, clientInfo: { name: 'x' } },
      { ...INITIALIZE_PARAMS, capabilities: { roots: true } },
      { ...INITIALIZE_PARAMS, capabilities: [] },
    ];
    for (const params of malformed)
      expect(initializeResult(params, identity), JSON.stringify(params)).toBeUndefined();
  });
});

/**
 * EarlyStdio in front of the real SDK server and StdioLineTransport, on in-process streams.
 * The SDK server loads when the test calls `load()` (at once unless `held`), so a test decides
 * what arrives while it loads instead of racing a timer.
 */
function session(dynamic = false, held = false, router?: CallRouter, ended?: () => void) {
  let load: () => void = () => undefined;
  const loaded = new Promise<void>((resolve) => {
    load = resolve;
  });
  if (!held) load();
  const input = new PassThrough();
  const output = new PassThrough();
  const identity: ServerIdentity = { version: '1.0.0', sandbox: false, showSecrets: false, dynamic };
  const errors: string[] = [];
  const events: string[] = [];
  let written = '';
  output.on('data', (chunk: Buffer) => {
    written += chunk.toString();
  });
  const early: EarlyStdio = new EarlyStdio({
    input,
    write: (line) => {
      events.push(
        `answered ${JSON.parse(typeof line === 'string' ? line : Buffer.from(line).toString()).id}`,
      );
      output.write(line);
    },
    maxMessageBytes: 1 << 20,
    identity,
    // As start.ts for every tool: the build's bytes of the entries as they are.
    listTools: dynamic ? undefined : toolsListBytes,
    needServer: () => {
      events.push('needServer');
      // As main does: the server loads asynchronously, while input keeps arriving.
      void loaded.then(() => {
        const server = createLegacyServer(serverOptions(identity));
        server.onerror = (error) => errors.push(error.message);
        server.onclose = () => events.push('closed');
        const transport = new StdioLineTransport({
          input,
          output,
          maxMessageBytes: 1 << 20,
          handover: early,
        });
        // As start.ts: the same router takes plain calls from the transport from here on.
        transport.calls = router;
        void server.connect(transport);
      });
    },
    calls: router,
    listed: () => events.push('listed'),
    ended,
  });
  early.start();
  const lines = () => written.split('\n').filter(Boolean);
  const answers = () => lines().map((line) => JSON.parse(line) as Record<string, unknown>);
  return { input, output, early, errors, events, answers, lines, load };
}

/** The build's escaping of the listing files (scripts/listing.mjs): characters beyond ASCII as \uXXXX. */
async function asciiOnly(json: string): Promise<string> {
  const script = new URL('../scripts/listing.mjs', import.meta.url).href;
  return ((await import(script)) as { asciiOnly: (text: string) => string }).asciiOnly(json);
}

describe('EarlyStdio handing over to the SDK server', () => {
  it('answers initialize, tools/list and ping itself, then the SDK server answers the rest, each once and in order', async () => {
    const s = session(false, true);
    s.input.write(
      line(initialize) +
        line(initialized) +
        line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) +
        line({ jsonrpc: '2.0', id: 3, method: 'ping' }) +
        line({
          jsonrpc: '2.0',
          id: 4,
          method: 'tools/call',
          params: { name: 'no-such-tool', arguments: {} },
        }),
    );
    await expect.poll(() => s.events).toContain('needServer');
    // Arrives while the SDK server loads: kept, and answered after the call before it.
    s.input.write(line({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} }));
    expect(s.answers()).toHaveLength(3);
    s.load();
    await expect.poll(() => s.answers().length).toBe(5);
    const answers = s.answers();
    // The early answers in order; the SDK server's two in whichever order they end (it runs
    // requests concurrently, and the unknown tool's error may come after the list).
    const ids = answers.map((answer) => answer.id);
    expect(ids.slice(0, 3)).toEqual([1, 2, 3]);
    expect(ids.slice(3).sort()).toEqual([4, 5]);
    const byId = (id: number) => answers.find((answer) => answer.id === id);
    expect(s.events.slice(0, 4)).toEqual(['answered 1', 'answered 2', 'answered 3', 'needServer']);
    // The call and the later list came from the SDK server, which saw the replayed initialize.
    expect(byId(4)).toMatchObject({
      error: { code: -32602, data: { error_id: 'unknown_tool' } },
    });
    expect(byId(5)?.result).toEqual(answers[1]?.result);
    // Byte for byte: the early list (the build's text) is the line the SDK server wrote, with its
    // characters beyond ASCII escaped.
    const sdkLine = s.lines().find((text) => text.endsWith('"id":5}')) ?? '';
    expect(s.lines()[1]?.replace(/"id":2}$/, '"id":5}')).toBe(await asciiOnly(sdkLine));
    expect(sdkLine).not.toBe(await asciiOnly(sdkLine));
    // Its second answer to initialize was dropped, and it equalled the first.
    await expect.poll(() => s.early.answered.size).toBe(0);
    expect(s.errors).toEqual([]);
    s.input.end();
  });

  it('leaves everything to the SDK server from the first line it does not answer', async () => {
    const s = session();
    s.input.write(`${line(initialize)}not json\n${line({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}`);
    await expect.poll(() => s.answers().length).toBe(3);
    const [first, second, third] = s.answers();
    expect(first).toMatchObject({ id: 1, result: { serverInfo: { name: 'cloudcall' } } });
    expect(second).toMatchObject({ id: null, error: { code: -32700 } });
    expect(third).toMatchObject({ id: 2, result: { tools: expect.any(Array) } });
    expect(s.events).toEqual(['answered 1', 'needServer']);
  });

  it('in dynamic mode, leaves tools/list to the SDK server, which lists the toolset and api tools', async () => {
    const s = session(true);
    s.input.write(
      line(initialize) + line(initialized) + line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    );
    await expect.poll(() => s.answers().length).toBe(2);
    expect(s.answers()[1]).toMatchObject({
      result: {
        tools: [
          { name: 'toolset-list' },
          { name: 'toolset-enable' },
          { name: 'api-search' },
          { name: 'api-describe' },
          { name: 'api-call' },
        ],
      },
    });
    expect((s.answers()[1]?.result as { tools?: unknown[] } | undefined)?.tools).toHaveLength(5);
  });

  it('closes the session when input ends before the SDK server loads', async () => {
    const s = session(false, true);
    s.input.write(line(initialize));
    s.input.end();
    await expect.poll(() => s.events).toContain('needServer');
    s.load();
    // The transport sees the end it missed, and the server closes (the process then exits).
    await expect.poll(() => s.events).toEqual(['answered 1', 'needServer', 'closed']);
  });
});

describe('plain calls before the SDK server loads', () => {
  let sandbox: Awaited<ReturnType<typeof connectSandbox>>;
  beforeAll(async () => {
    sandbox = await connectSandbox({});
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  /** A session whose plain calls go to the tool runner (as start.ts sets it up), over the sandbox. */
  function callingSession(capabilities: Record<string, unknown>) {
    const options: McpServerOptions = {
      ...serverOptions({ version: '1.0.0', sandbox: true, showSecrets: false, dynamic: false }),
      client: () => Promise.resolve(sandbox.client),
    };
    const taken: unknown[] = [];
    let ended = false;
    // As start.ts: before the SDK server loads, answers are written as they are.
    const router = sessionCalls(
      createToolCall(options),
      () => undefined,
      (_message, text) => new Promise<void>((resolve) => s.output.write(`${text}\n`, () => resolve())),
      () => undefined,
    );
    const counting: CallRouter = {
      ...router,
      call: (id, params) => {
        const took = router.call(id, params);
        if (took) taken.push(id);
        return took;
      },
    };
    const s = session(false, false, counting, () => {
      ended = true;
    });
    const start = { ...initialize, params: { ...INITIALIZE_PARAMS, capabilities } };
    return { ...s, taken, start, ended: () => ended };
  }
  const keyList = (id: number, extra: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'key-list', arguments: {}, ...extra },
  });

  it('are answered without the SDK server, which never loads, and input ending ends the session', async () => {
    const s = callingSession({ roots: {} });
    s.input.write(
      line(s.start) +
        line(initialized) +
        line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) +
        line(keyList(3)) +
        line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } }) +
        line(keyList(4)),
    );
    await expect.poll(() => s.answers().length).toBe(4);
    const byId = new Map(s.answers().map((answer) => [answer.id, answer]));
    expect(byId.get(3)).toMatchObject({ result: { structuredContent: { ssh_keys: expect.any(Array) } } });
    expect(byId.get(4)).toMatchObject({ result: { structuredContent: { ssh_keys: expect.any(Array) } } });
    expect(s.taken).toEqual([3, 4]);
    await expect.poll(() => s.events).toContain('listed');
    s.input.end();
    await expect.poll(() => s.ended()).toBe(true);
    expect(s.events).not.toContain('needServer');
  });

  it('leave a call of another shape to the SDK server, which answers it after the plain ones', async () => {
    const s = callingSession({});
    s.input.write(
      line(s.start) +
        line(initialized) +
        line(keyList(3)) +
        line(keyList(4, { _meta: { progressToken: 'p' } })) +
        line(keyList(5)),
    );
    await expect.poll(() => s.answers().length).toBe(4);
    expect(s.events).toContain('needServer');
    // Call 3 was the router's before the SDK server loaded; 5, plain too, its after.
    expect(s.taken).toEqual([3, 5]);
    const byId = new Map(s.answers().map((answer) => [answer.id, answer]));
    for (const id of [3, 5]) {
      expect(byId.get(id)).toMatchObject({ result: { structuredContent: { ssh_keys: expect.any(Array) } } });
    }
    // The SDK server's own runner in this test has no API: its answer says it ran call 4.
    expect(byId.get(4)).toMatchObject({ error: { message: 'no API in this test' } });
    s.input.end();
    await expect.poll(() => s.events).toContain('closed');
    expect(s.ended()).toBe(false);
  });

  it('leave every call of a client that declared elicitation to the SDK server, which can ask it', async () => {
    const s = callingSession({ elicitation: { form: {} } });
    s.input.write(line(s.start) + line(initialized) + line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    // With nothing to take calls for, the server loads once the list is out, as without a router.
    await expect.poll(() => s.events).toContain('needServer');
    expect(s.events).not.toContain('listed');
    s.input.write(line(keyList(3)));
    await expect.poll(() => s.answers().length).toBe(3);
    // The transport's router took it, with the SDK server there to ask the client.
    expect(s.taken).toEqual([3]);
    expect(s.answers()[2]).toMatchObject({
      id: 3,
      result: { structuredContent: { ssh_keys: expect.any(Array) } },
    });
    s.input.end();
  });
});

describe('the built server over stdio', () => {
  it('answers a whole session written at once, and calls a tool through the SDK server it handed over to', async () => {
    const stdio = rawStdio(['--sandbox']);
    await stdio.write(
      line(initialize) +
        line(initialized) +
        line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) +
        line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'key-list', arguments: {} } }),
    );
    const answers = [await stdio.next(), await stdio.next(), await stdio.next()];
    expect(answers.map((answer) => answer.id)).toEqual([1, 2, 3]);
    // The default listing: every tool but those of the families offered on request.
    expect((answers[1]?.result as { tools?: unknown[] } | undefined)?.tools).toHaveLength(
      LISTING.defaults.count,
    );
    expect(answers[2]).toMatchObject({ result: { structuredContent: { ssh_keys: expect.any(Array) } } });
    expect(await stdio.end()).toBe(0);
    expect(stdio.stderr()).not.toMatch(/differs from the server's/);
  });
});
