/**
 * A tools/call whose params do not have the protocol's shape (`arguments` as a string, `name`
 * missing...) is answered with -32602 Invalid params naming the field, on both transports, in
 * raw JSON-RPC, and the server keeps serving.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { killAll, rawStdio, startHttp } from './testing/main.js';
import { httpRequest, initializeRaw, openSession } from './testing/process.js';

afterEach(killAll);

const BAD_ARGUMENTS: [unknown, string][] = [
  ['{"PerPage":1}', 'a string'],
  [5, 'a number'],
  [[1], 'an array'],
  [null, 'null'],
  [true, 'a boolean'],
];

const callWith = (id: number, params: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });

function expectInvalidParams(answer: unknown, id: number, message: RegExp): void {
  expect(answer).toEqual({
    jsonrpc: '2.0',
    id,
    error: { code: -32602, message: expect.stringMatching(message) },
  });
  // A sentence, not a dump of the validator's issues.
  const text = (answer as { error: { message: string } }).error.message;
  expect(text).not.toMatch(/[[{]|invalid_type|expected record/);
}

describe('tools/call with params of the wrong shape', () => {
  it('gets -32602 naming `arguments` over stdio, and the server keeps serving', async () => {
    const stdio = rawStdio(['--sandbox', '--families', 'account']);
    await initializeRaw(stdio);
    for (const [index, [value, kind]] of BAD_ARGUMENTS.entries()) {
      await stdio.send(callWith(index + 10, { name: 'key-list', arguments: value }));
      expectInvalidParams(
        await stdio.next(),
        index + 10,
        new RegExp(`arguments must be an object of the tool's arguments by name, not ${kind}`),
      );
    }
    await stdio.send(callWith(20, { arguments: {} }));
    expectInvalidParams(await stdio.next(), 20, /name must be the name of a tool/);
    await stdio.send({ jsonrpc: '2.0', id: 21, method: 'tools/call' });
    expectInvalidParams(await stdio.next(), 21, /params must be an object/);

    await stdio.send(callWith(22, { name: 'key-list', arguments: { PerPage: 1 } }));
    expect(await stdio.next()).toMatchObject({ id: 22, result: { content: [{ type: 'text' }] } });
    expect(await stdio.end()).toBe(0);
  });

  it('gets -32602 naming `arguments` over Streamable HTTP', async () => {
    const { url } = await startHttp([
      '--transport',
      'http',
      '--port',
      '0',
      '--sandbox',
      '--families',
      'account',
    ]);
    const session = await openSession(url);
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    for (const [index, [value, kind]] of BAD_ARGUMENTS.entries()) {
      const answer = await httpRequest(url, {
        headers,
        body: callWith(index + 10, { name: 'key-list', arguments: value }),
      });
      expect(answer.status).toBe(200);
      expectInvalidParams(answer.json, index + 10, new RegExp(`arguments must be an object .* not ${kind}`));
    }
    const good = await httpRequest(url, { headers, body: callWith(30, { name: 'key-list', arguments: {} }) });
    expect(good.json).toMatchObject({ id: 30, result: { content: [{ type: 'text' }] } });
  });

  it('a value nested 100,000 deep is an input error naming the argument, over stdio', async () => {
    const stdio = rawStdio(['--sandbox', '--sandbox-state', ':memory:', '--families', 'account']);
    await initializeRaw(stdio);
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    // A tool that changes something: the guard records its raw arguments before they are validated.
    await stdio.write(
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"key-create","arguments":{"Name":${deep},"PublicKey":"x"}}}\n`,
    );
    expect(await stdio.next()).toMatchObject({
      id: 7,
      result: {
        isError: true,
        structuredContent: {
          error_id: 'invalid_arguments',
          message: expect.stringMatching(/argument Name: is nested more than 32 levels deep/),
        },
      },
    });
    expect(await stdio.end()).toBe(0);
  });
});
