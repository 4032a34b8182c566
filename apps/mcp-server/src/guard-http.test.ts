/**
 * Confirmation of destructive calls over Streamable HTTP, through the built server and the
 * official SDK client. Stateful (the default): the server asks the client with
 * `elicitation/create` on the session's stream, and only an accept runs the call. `--stateless`:
 * docs/team-service.md says no server-to-client requests reach the client there, so the server never asks
 * (even a client that declared elicitation) and `--confirm` decides instead: `auto` (the default)
 * refuses what nobody confirmed, `never` runs it, as the operator chose.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { call, createKey, createSandboxVm, keyExists } from './testing/client.js';
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
async function connect(args: string[], answer: () => ElicitResult, families = 'account') {
  const { url } = await startHttp([
    '--transport',
    'http',
    '--port',
    '0',
    '--sandbox',
    '--sandbox-state',
    ':memory:',
    '--families',
    families,
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

  it('auto (the default) refuses a destructive call nobody can confirm, saying how to, and deletes nothing; other calls run', async () => {
    // A client that would accept anything: it is never asked, nor could its answer reach this request.
    const { client, asked } = await connect(
      ['--stateless'],
      () => ({ action: 'accept', content: { confirm: 'anything' } }),
      'account,vms,api',
    );
    // Calls that destroy nothing run: creating a VM and a key, a generic read and a generic create.
    const vm = await createSandboxVm(client, 'stateless-vm');
    const key = await createKey(client, 'stateless-key');
    const read = await call(client, 'api-call', { Method: 'GET', Path: `/v2/droplets/${vm}` });
    expect(read.isError, read.text).toBe(false);
    const tagged = await call(client, 'api-call', {
      Method: 'POST',
      Path: '/v2/tags',
      Body: { name: 'kept' },
    });
    expect(tagged.isError, tagged.text).toBe(false);

    const refusals = [
      await call(client, 'vm-delete', { ID: vm }),
      await call(client, 'key-delete', { ID: key }),
      await call(client, 'api-call', { Method: 'DELETE', Path: `/v2/droplets/${vm}` }),
      // A call asking for progress is answered by an SDK server of its own: refused there too.
      await client
        .callTool({ name: 'vm-delete', arguments: { ID: vm } }, undefined, { onprogress: () => undefined })
        .then((result) => ({
          isError: result.isError === true,
          text: (result.content as { text: string }[])[0]?.text ?? '',
          structured: result.structuredContent,
        })),
    ];
    for (const [index, result] of refusals.entries()) {
      const tool = ['vm-delete', 'key-delete', 'api-call', 'vm-delete'][index];
      expect(result.isError, result.text).toBe(true);
      expect(result.text).toContain(
        `${tool} is destructive: this server has no sessions (--stateless), so it cannot ask you to confirm, and with --confirm auto it runs no destructive call unconfirmed. Nothing was sent.`,
      );
      expect(result.text).toMatch(
        /\nHint: To confirm it, make this change with the cloudcall CLI .* --confirm never/,
      );
      expect(result.structured).toMatchObject({ error_id: 'refused', retryable: false });
    }
    expect(asked).toEqual([]);
    // The sandbox still holds both.
    const still = await call(client, 'vm-get', { ID: vm });
    expect(still.isError, still.text).toBe(false);
    expect(await keyExists(client, key)).toBe(true);
  });

  it('never (the operator said so) runs it without asking', async () => {
    const { client, asked } = await connect(
      ['--stateless', '--confirm', 'never'],
      () => ({ action: 'decline' }),
      'account,vms,api',
    );
    const vm = await createSandboxVm(client, 'never-vm');
    const id = await createKey(client, 'never');
    const deleted = await call(client, 'key-delete', { ID: id });
    expect(deleted.isError, deleted.text).toBe(false);
    const gone = await call(client, 'api-call', { Method: 'DELETE', Path: `/v2/droplets/${vm}` });
    expect(gone.isError, gone.text).toBe(false);
    expect(asked).toEqual([]);
    expect(await keyExists(client, id)).toBe(false);
    expect((await call(client, 'vm-get', { ID: vm })).structured).toMatchObject({ status: 404 });
  });
});
