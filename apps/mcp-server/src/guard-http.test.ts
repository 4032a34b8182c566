/**
 * Confirmation of destructive calls over Streamable HTTP, through the built server and the
 * official SDK client. Stateful (the default): the server asks the client with
 * `elicitation/create` on the session's stream, and only an accept runs the call. `--stateless`:
 * docs/team-service.md says no server-to-client requests reach the client there, so the server never asks
 * (even a client that declared elicitation) and `--confirm` decides instead.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { call, createKey, keyExists } from './testing/client.js';
import { killAll, startHttp } from './testing/main.js';

let clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
  await killAll();
});

/**
 * Starts the server over HTTP in the sandbox (state in memory, see serverEnv) and connects a
 * client that declares elicitation and answers every question with `answer`, recording what it
 * was asked.
 */
async function connect(args: string[], answer: () => ElicitResult) {
  const { url } = await startHttp([
    '--transport',
    'http',
    '--port',
    '0',
    '--sandbox',
    '--sandbox-state',
    ':memory:',
    '--families',
    'account',
    ...args,
  ]);
  const asked: string[] = [];
  const client = new Client(
    { name: 'guard-http-test', version: '1.0.0' },
    { capabilities: { elicitation: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return answer();
  });
  clients.push(client);
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, asked, transport };
}

describe('stateful HTTP (the default): elicitation', () => {
  it('accept: the server asks once over the session, then the delete runs', async () => {
    const { client, asked, transport } = await connect([], () => ({
      action: 'accept',
      content: { confirm: 'accept-me' },
    }));
    expect(transport.sessionId).toEqual(expect.any(String));
    const id = await createKey(client, 'accept-me');
    expect(asked).toEqual([]);
    const deleted = await call(client, 'key-delete', { ID: id });
    expect(deleted.isError, deleted.text).toBe(false);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/^Confirm a destructive call\. .*\(key-delete\)/);
    expect(asked[0]).toContain(String(id));
    expect(await keyExists(client, id)).toBe(false);
  });

  it.each([
    ['decline', { action: 'decline' }, 'declined'],
    ['cancel', { action: 'cancel' }, 'cancelled'],
  ] as const)('%s: nothing is sent, the key is still there, the result says so', async (_, answer, word) => {
    const { client, asked } = await connect([], () => answer as ElicitResult);
    const id = await createKey(client, 'keep-me');
    const result = await call(client, 'key-delete', { ID: id });
    expect(asked).toHaveLength(1);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(`key-delete was ${word}: nothing was sent.`);
    expect(result.structured).toMatchObject({ error_id: 'declined', retryable: false });
    expect(await keyExists(client, id)).toBe(true);
  });

  it('--confirm always-refuse refuses without asking, even a client that would type the name', async () => {
    const { client, asked } = await connect(['--confirm', 'always-refuse'], () => ({
      action: 'accept',
      content: { confirm: 'refused-anyway' },
    }));
    const id = await createKey(client, 'refused-anyway');
    const deleted = await call(client, 'key-delete', { ID: id });
    expect(deleted.isError).toBe(true);
    expect(deleted.text).toContain('key-delete is destructive: this server refuses destructive tools');
    expect(deleted.structured).toMatchObject({ error_id: 'refused' });
    expect(asked).toEqual([]);
    expect(await keyExists(client, id)).toBe(true);
  });
});

describe('--stateless: no elicitation, --confirm decides', () => {
  it('always-refuse refuses a destructive call without asking, even a client that declared elicitation', async () => {
    const { client, asked, transport } = await connect(['--stateless', '--confirm', 'always-refuse'], () => ({
      action: 'accept',
      content: { confirm: 'refused' },
    }));
    expect(transport.sessionId).toBeUndefined();
    const id = await createKey(client, 'refused');
    const result = await call(client, 'key-delete', { ID: id });
    expect(asked).toEqual([]);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(
      'key-delete is destructive: this server refuses destructive tools (--confirm always-refuse)',
    );
    expect(result.structured).toMatchObject({ error_id: 'refused', retryable: false });
    expect(await keyExists(client, id)).toBe(true);
  });

  it('auto (the default) runs it without asking, even when the client would decline', async () => {
    const { client, asked } = await connect(['--stateless'], () => ({ action: 'decline' }));
    const id = await createKey(client, 'auto');
    const deleted = await call(client, 'key-delete', { ID: id });
    expect(deleted.isError, deleted.text).toBe(false);
    expect(asked).toEqual([]);
    expect(await keyExists(client, id)).toBe(false);
  });
});
