import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type ClientCapabilities,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { call, createKey, keyExists } from './testing/client.js';
import { killAll, startHttp, stdioClient } from './testing/main.js';

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.map((close) => close()));
  closers = [];
  await killAll();
});

type Transport = 'stdio' | 'http';

/**
 * The server in the sandbox (in memory) and a client declaring `capabilities`; when it declares
 * elicitation, it answers every question with `answer` and records the question.
 */
async function connect(
  transport: Transport,
  args: string[],
  capabilities: ClientCapabilities,
  answer: () => ElicitResult = () => ({ action: 'decline' }),
) {
  const serverArgs = [
    '--sandbox',
    '--sandbox-state',
    ':memory:',
    '--families',
    'account,networking',
    ...args,
  ];
  let client: Client;
  if (transport === 'stdio') {
    const connection = await stdioClient(serverArgs, {}, { capabilities });
    client = connection.client;
  } else {
    const { url } = await startHttp(['--transport', 'http', '--port', '0', ...serverArgs]);
    client = new Client({ name: 'confirm-test', version: '1.0.0' }, { capabilities });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  }
  closers.push(() => client.close());
  const asked: { message: string; schema: unknown }[] = [];
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as { message: string; requestedSchema?: unknown };
      asked.push({ message: params.message, schema: params.requestedSchema });
      return answer();
    });
  }
  return { client, asked };
}

const FORM: ClientCapabilities = { elicitation: { form: {} } };
const LEGACY: ClientCapabilities = { elicitation: {} };
const URL_ONLY: ClientCapabilities = { elicitation: { url: {} } };

describe.each(['stdio', 'http'] as const)('over %s', (transport) => {
  it('an accept without the name typed as asked confirms nothing: the key stays, the result says why', async () => {
    const wrong = [
      { action: 'accept' }, // no content
      { action: 'accept', content: {} },
      { action: 'accept', content: { confirm: true } },
      { action: 'accept', content: { confirm: 'web-2' } },
      { action: 'accept', content: { confirm: 'WEB-1' } },
    ] as ElicitResult[];
    const answers = [...wrong];
    const { client, asked } = await connect(transport, [], FORM, () => answers.shift() as ElicitResult);
    const id = await createKey(client, 'web-1');
    for (const answer of wrong) {
      const result = await call(client, 'key-delete', { ID: id });
      expect(result.isError, JSON.stringify(answer)).toBe(true);
      expect(result.text).toContain(
        'key-delete was not confirmed: the answer did not type web-1 as asked. Nothing was sent.',
      );
      expect(result.structured).toMatchObject({ error_id: 'declined', retryable: false });
    }
    expect(asked).toHaveLength(wrong.length);
    expect(await keyExists(client, id)).toBe(true);
  });

  it.each([
    ['form', FORM],
    ['the empty capability (forms)', LEGACY],
  ] as const)(
    'a client declaring %s is asked to type the name, and the call runs when it does',
    async (_, capabilities) => {
      const { client, asked } = await connect(transport, [], capabilities, () => ({
        action: 'accept',
        content: { confirm: 'web-1' },
      }));
      const id = await createKey(client, 'web-1');
      const result = await call(client, 'key-delete', { ID: id });
      expect(result.isError, result.text).toBe(false);
      expect(asked).toEqual([
        {
          message: expect.stringMatching(/\(key-delete\): .*web-1.*\? To run it, type web-1\.$/),
          schema: {
            type: 'object',
            properties: {
              confirm: expect.objectContaining({ type: 'string', title: 'Type web-1 to confirm' }),
            },
            required: ['confirm'],
          },
        },
      ]);
      expect(await keyExists(client, id)).toBe(false);
    },
  );

  it('always-refuse refuses, never asking, a client that would type the name', async () => {
    const { client, asked } = await connect(transport, ['--confirm', 'always-refuse'], FORM, () => ({
      action: 'accept',
      content: { confirm: 'web-1' },
    }));
    const id = await createKey(client, 'web-1');
    const result = await call(client, 'key-delete', { ID: id });
    expect(asked).toEqual([]);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(
      'key-delete is destructive: this server refuses destructive tools (--confirm always-refuse), whatever its client declares.',
    );
    expect(result.structured).toMatchObject({ error_id: 'refused' });
    expect(await keyExists(client, id)).toBe(true);
    // Tools that are not destructive still run.
    await createKey(client, 'web-2');
  });

  it('a client that declared only URL elicitation counts as one without: auto runs, always-refuse refuses, no internal error', async () => {
    const auto = await connect(transport, [], URL_ONLY, () => ({ action: 'accept' }));
    const id = await createKey(auto.client, 'web-1');
    const ran = await call(auto.client, 'key-delete', { ID: id });
    expect(ran.isError, ran.text).toBe(false);
    expect(auto.asked).toEqual([]);

    const refusing = await connect(transport, ['--confirm', 'always-refuse'], URL_ONLY);
    const kept = await createKey(refusing.client, 'web-1');
    const refused = await call(refusing.client, 'key-delete', { ID: kept });
    expect(refused.text).toContain('this server refuses destructive tools (--confirm always-refuse)');
    expect(refused.structured).toMatchObject({ error_id: 'refused' });
    expect(refusing.asked).toEqual([]);
    expect(await keyExists(refusing.client, kept)).toBe(true);
  });
});

it('a resource with no name is confirmed by typing its id (a reserved IP, its address)', async () => {
  const answers: string[] = [];
  const { client, asked } = await connect('stdio', [], FORM, () => ({
    action: 'accept',
    content: { confirm: answers.shift() ?? '' },
  }));
  const created = await call(client, 'reserved-ip-reserve', { Region: 'nyc3', Type: 'ipv4' });
  expect(created.isError, created.text).toBe(false);
  const ip = (created.json as { reserved_ip: { ip: string } }).reserved_ip.ip;
  answers.push('reserved-ip-release', ip);
  const wrong = await call(client, 'reserved-ip-release', { IP: ip, Type: 'ipv4' });
  expect(wrong.text).toContain(`the answer did not type ${ip} as asked`);
  const right = await call(client, 'reserved-ip-release', { IP: ip, Type: 'ipv4' });
  expect(right.isError, right.text).toBe(false);
  expect(asked.map((question) => question.message)).toEqual([
    expect.stringMatching(new RegExp(`To run it, type ${ip.replaceAll('.', '\\.')}\\.$`)),
    expect.stringMatching(new RegExp(`To run it, type ${ip.replaceAll('.', '\\.')}\\.$`)),
  ]);
});
