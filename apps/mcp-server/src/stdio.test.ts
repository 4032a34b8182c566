/**
 * stdio survives bad input: garbage lines, JSON that is not JSON-RPC and oversized messages get a
 * JSON-RPC error and the server keeps serving; it exits when stdin ends. The transport on its own
 * (in process) and the server as main.ts starts it (in this process; the built one for its exit),
 * spoken to in raw lines.
 */
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { StdioLineTransport } from './stdio.js';
import { call } from './testing/client.js';
import { killAll, rawStdio, stdioClient } from './testing/main.js';
import { initializeRaw, killAll as killProcesses, rawStdio as rawProcess } from './testing/process.js';

afterEach(async () => {
  killProcesses();
  await killAll();
});

const PING = { jsonrpc: '2.0', id: 99, method: 'ping' };

function inProcess(maxMessageBytes: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new StdioLineTransport({ input, output, maxMessageBytes });
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  let closed = false;
  transport.onmessage = (message) => received.push(message);
  transport.onerror = (error) => errors.push(error.message);
  transport.onclose = () => {
    closed = true;
  };
  let written = '';
  output.on('data', (chunk: Buffer) => {
    written += chunk.toString();
  });
  const answers = () =>
    written
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { input, transport, received, errors, answers, closed: () => closed };
}

/** Lets the streams deliver what was written. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('StdioLineTransport', () => {
  it('reads messages split across chunks, several in one chunk, and CRLF lines', async () => {
    const t = inProcess(1024);
    await t.transport.start();
    const line = JSON.stringify(PING);
    t.input.write(line.slice(0, 5));
    t.input.write(line.slice(5, 20));
    t.input.write(`${line.slice(20)}\n${JSON.stringify({ ...PING, id: 100 })}\r\n\n   \n`);
    await settle();
    expect(t.received).toEqual([PING, { ...PING, id: 100 }]);
    expect(t.answers()).toEqual([]);
  });

  it('refuses an oversized line once, skips the rest of it, and reads the next line', async () => {
    const t = inProcess(100);
    await t.transport.start();
    // 1000 bytes in 10-byte chunks, then the newline and a good message in one chunk.
    for (let sent = 0; sent < 1000; sent += 10) t.input.write('x'.repeat(10));
    t.input.write(`\n${JSON.stringify(PING)}\n`);
    await settle();
    expect(t.answers()).toEqual([
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: message larger than 100 bytes; it was skipped' },
      },
    ]);
    expect(t.errors).toEqual(['stdio: a message larger than 100 bytes was skipped']);
    expect(t.received).toEqual([PING]);
  });

  it('answers an oversized request under its id when the id is its first or last member', async () => {
    const t = inProcess(100);
    await t.transport.start();
    const padding = 'p'.repeat(300);
    const lines = [
      `{"jsonrpc":"2.0","id":"first","method":"x","params":{"p":"${padding}"}}`,
      `{ "id" : 12 , "jsonrpc":"2.0","method":"x","params":{"p":"${padding}"}}`,
      `{"method":"x","params":{"p":"${padding}"},"jsonrpc":"2.0","id":34}`,
      `{"method":"x","params":{"p":"${padding}","id":56}}`,
      `{"method":"x","params":{"p":"${padding}"},"id":"a\\q"}`,
    ];
    t.input.write(`${lines.join('\n')}\n`);
    await settle();
    expect(t.answers().map((answer) => answer.id)).toEqual(['first', 12, 34, null, null]);
  });

  it('takes a line of exactly the limit, and closes when its input ends', async () => {
    const line = JSON.stringify({ ...PING, id: 'x'.repeat(50) });
    const t = inProcess(Buffer.byteLength(line));
    await t.transport.start();
    t.input.end(`${line}\n`);
    await settle();
    expect(t.received).toHaveLength(1);
    expect(t.closed()).toBe(true);
  });
});

describe('the server on stdio', () => {
  it('answers garbage with -32700 and JSON that is not JSON-RPC with -32600, and keeps serving', async () => {
    const stdio = rawStdio(['--sandbox', '--families', 'account']);
    await stdio.write('not json at all\n');
    expect(await stdio.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.stringMatching(/^Parse error/) },
    });
    await stdio.write('{"jsonrpc":"2.0","id":1,"method":"ping"\n');
    expect(await stdio.next()).toMatchObject({ id: null, error: { code: -32700 } });
    for (const notJsonRpc of [{ hello: 'world' }, [PING], 42, 'ping', null]) {
      await stdio.send(notJsonRpc);
      expect(await stdio.next(), JSON.stringify(notJsonRpc)).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) },
      });
    }
    // A request whose id can be read gets its error under that id.
    await stdio.send({ jsonrpc: '2.0', id: 7, method: 12 });
    expect(await stdio.next()).toMatchObject({ id: 7, error: { code: -32600 } });
    // Blank lines are skipped without an answer.
    await stdio.write('\n\r\n');

    await initializeRaw(stdio);
    await stdio.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'balance-get' } });
    const balance = await stdio.next();
    expect(balance).toMatchObject({ id: 2, result: { content: [{ type: 'text' }] } });
    expect(await stdio.end()).toBe(0);
  });

  it('refuses a message of 10 MiB with a JSON-RPC error, keeps serving, and exits when stdin closes', async () => {
    const stdio = rawStdio(['--sandbox', '--families', 'account']);
    await initializeRaw(stdio);
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'key-create', arguments: { Name: 'big', PublicKey: 'A'.repeat(10 * 1024 * 1024) } },
    });
    await stdio.write(`${huge}\n`);
    expect(await stdio.next()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32600,
        message: 'Invalid Request: message larger than 4194304 bytes; it was skipped',
      },
    });
    await stdio.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'key-list' } });
    expect(await stdio.next()).toMatchObject({ id: 3, result: { content: [{ type: 'text' }] } });
    expect(await stdio.end()).toBe(0);
    expect(stdio.stderr()).toMatch(/a message larger than 4194304 bytes was skipped/);
  });

  it('fails an oversized call of the official client at once, and the client keeps working', async () => {
    const { client, close } = await stdioClient(['--sandbox', '--families', 'account']);
    try {
      const huge = client.callTool({
        name: 'key-create',
        arguments: { Name: 'big', PublicKey: 'A'.repeat(10 * 1024 * 1024) },
      });
      await expect(huge).rejects.toMatchObject({
        code: -32600,
        message: expect.stringMatching(/larger than 4194304 bytes/),
      });
      expect((await call(client, 'balance-get')).isError).toBe(false);
    } finally {
      await close();
    }
  });

  it('--max-message-bytes sets the limit', async () => {
    const stdio = rawStdio(['--sandbox', '--families', 'account', '--max-message-bytes', '2000']);
    await initializeRaw(stdio);
    const withName = (id: number, length: number) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'key-get', arguments: { ID: 1, padding: 'p'.repeat(length) } },
      });
    await stdio.write(`${withName(4, 2000)}\n`);
    expect(await stdio.next()).toMatchObject({
      id: 4,
      error: { code: -32600, message: expect.stringContaining('larger than 2000 bytes') },
    });
    await stdio.write(`${withName(5, 1500)}\n`);
    // Read, and answered by the tool (which refuses the unknown argument).
    expect(await stdio.next()).toMatchObject({
      id: 5,
      result: { isError: true, content: [{ text: expect.stringMatching(/argument padding/) }] },
    });
    expect(await stdio.end()).toBe(0);
  });

  it('exits at once when stdin closes', async () => {
    // The built server: the process itself ends (the smoke test of stdio start-up and exit).
    const stdio = rawProcess(['--sandbox']);
    expect(await stdio.end()).toBe(0);
  });

  it('refuses a --max-message-bytes that is not a positive whole number', async () => {
    const stdio = rawStdio(['--sandbox', '--max-message-bytes', '1.5k']);
    expect(await stdio.end()).toBe(2);
    expect(stdio.stderr()).toMatch(
      /--max-message-bytes must be a whole number of bytes, at least 1024, not 1\.5k/,
    );
  });
});
