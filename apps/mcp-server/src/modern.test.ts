/**
 * Protocol revision 2026-07-28 beside 2025-11-25: the official SDK's clients of both lines (1.x
 * for 2025-11-25, 2.x for 2026-07-28) list tools and call one over stdio and HTTP, stateful and
 * stateless; a destructive call is confirmed in rounds (the question in the answer, the answer in
 * the retry), and the retry may land on any replica.
 *
 * The team service's proof: three stateless replicas behind a real nginx, one Redis, one key: 100
 * deletes each asked on one replica and answered on another complete, and every replay of an
 * answer (other arguments, another caller, after use, after expiry, altered, another service's
 * key) is refused with its target still there.
 */
import { randomBytes } from 'node:crypto';
import { type Sandbox, sshPublicKey, startSandbox } from '@cloudcall/sandbox';
import { type RedisServer, startRedisServer } from '@cloudcall/testing';
import { type Nginx, startNginx } from '@cloudcall/testing/nginx';
import { Client as ModernClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAIN, serverEnv } from './testing/client.js';
import {
  stdioClient as inProcessStdio,
  killAll as killInProcess,
  startHttp as startInProcess,
  stdioTransport,
} from './testing/main.js';
import { httpRequest, killAll, startHttp } from './testing/process.js';

const MODERN = '2026-07-28';
const LONG = 180_000;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({});
});
afterAll(() => sandbox?.close());

let cleanup: (() => Promise<unknown>)[] = [];
/** After each test of a block whose servers are the test's own. */
async function cleanUp(): Promise<void> {
  killAll();
  await killInProcess();
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
  cleanup = [];
}

/** A 2026-07-28 client (the SDK's v2 line), answering a confirmation question with `typed`. */
function modernClient(answer?: (message: string) => { action: 'accept' | 'decline'; typed?: string }) {
  const client = new ModernClient(
    { name: 'cloudcall-test', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: MODERN } },
      ...(answer ? { capabilities: { elicitation: { form: {} } } } : {}),
    },
  );
  const asked: string[] = [];
  if (answer) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const message = String((request.params as { message: string }).message);
      asked.push(message);
      const { action, typed } = answer(message);
      return action === 'accept' ? { action, content: { confirm: typed ?? '' } } : { action };
    });
  }
  cleanup.push(() => client.close());
  return { client, asked };
}

/** The sandbox's SSH key `name`, made through its API; its id. */
async function sandboxKey(name: string): Promise<number> {
  const response = await fetch(`${sandbox.url}/v2/account/keys`, {
    method: 'POST',
    headers: { authorization: 'Bearer any', 'content-type': 'application/json' },
    body: JSON.stringify({ name, public_key: sshPublicKey(name) }),
  });
  const { ssh_key } = (await response.json()) as { ssh_key: { id: number } };
  return ssh_key.id;
}

async function keyExists(id: number): Promise<boolean> {
  const response = await fetch(`${sandbox.url}/v2/account/keys/${id}`, {
    headers: { authorization: 'Bearer any' },
  });
  await response.arrayBuffer();
  return response.status === 200;
}

function textOf(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as { type: string; text?: string }[];
  return first?.type === 'text' ? (first.text ?? '') : '';
}

describe('both protocol lines, both transports', () => {
  afterEach(cleanUp);
  it(
    'over stdio: a 2026-07-28 client and a 2025-11-25 client each list the tools and call one',
    async () => {
      const args = ['--api-url', sandbox.url];
      const env = { DIGITALOCEAN_ACCESS_TOKEN: 'test-token' };
      const { client: modern } = modernClient();
      // In this process, as main.ts starts it (the built server over a pipe: the confirmation test).
      const served = stdioTransport(args, env);
      cleanup.push(served.stop);
      await modern.connect(served.transport as never);
      expect(modern.getProtocolEra()).toBe('modern');
      const legacy = await inProcessStdio(args, env);
      cleanup.push(legacy.close);
      expect(legacy.client.getServerVersion()?.name).toBe('cloudcall');

      const [modernTools, legacyTools] = await Promise.all([modern.listTools(), legacy.client.listTools()]);
      expect(modernTools.tools.map((tool) => tool.name)).toEqual(legacyTools.tools.map((tool) => tool.name));
      expect(modernTools.tools.length).toBeGreaterThan(100);

      const name = `modern-${randomBytes(3).toString('hex')}`;
      const made = await modern.callTool({
        name: 'key-create',
        arguments: { Name: name, PublicKey: sshPublicKey(name) },
      });
      expect(made.isError).not.toBe(true);
      const id = (made.structuredContent as { ssh_key: { id: number } }).ssh_key.id;
      const read = await legacy.client.callTool({ name: 'key-get', arguments: { ID: id } });
      expect(JSON.parse(textOf(read as { content: unknown })).ssh_key.name).toBe(name);
    },
    LONG,
  );

  for (const mode of ['stateful', 'stateless'] as const) {
    it(
      `over HTTP (${mode}): both lines list and call; the 2.x client in auto mode settles on 2026-07-28`,
      async () => {
        const { url } = await startHttp(
          [
            '--transport',
            'http',
            '--port',
            '0',
            '--api-url',
            sandbox.url,
            ...(mode === 'stateless' ? ['--stateless'] : []),
          ],
          { DIGITALOCEAN_ACCESS_TOKEN: 'test-token' },
        );
        const { client: pinned } = modernClient();
        await pinned.connect(new StreamableHTTPClientTransport(new URL(url)));
        const auto = new ModernClient(
          { name: 'auto', version: '1' },
          { versionNegotiation: { mode: 'auto' } },
        );
        cleanup.push(() => auto.close());
        await auto.connect(new StreamableHTTPClientTransport(new URL(url)));
        expect(auto.getProtocolEra()).toBe('modern');
        const legacy = new LegacyClient({ name: 'legacy', version: '1' });
        cleanup.push(() => legacy.close());
        await legacy.connect(new LegacyHttp(new URL(url)));

        for (const client of [pinned, auto, legacy] as const) {
          const tools = await client.listTools();
          expect(tools.tools.some((tool) => tool.name === 'key-list')).toBe(true);
          const listed = await client.callTool({ name: 'region-list', arguments: {} });
          expect(listed.isError).not.toBe(true);
          expect(JSON.parse(textOf(listed as { content: unknown })).regions.length).toBeGreaterThan(0);
        }
        // An unknown tool is the protocol error the specification names, at either revision.
        await expect(pinned.callTool({ name: 'no-such-tool', arguments: {} })).rejects.toMatchObject({
          code: -32602,
        });
      },
      LONG,
    );
  }
});

describe('confirmation in rounds (2026-07-28)', () => {
  afterEach(cleanUp);
  it(
    'asks with the name to type; deletes on the right name, refuses a wrong one and a decline',
    async () => {
      const args = ['--api-url', sandbox.url];
      const env = { DIGITALOCEAN_ACCESS_TOKEN: 'test-token' };
      const names = ['right', 'wrong', 'declined'].map((word) => `${word}-${randomBytes(3).toString('hex')}`);
      const ids = await Promise.all(names.map(sandboxKey));
      const answers: Record<string, { action: 'accept' | 'decline'; typed?: string }> = {
        [names[0] as string]: { action: 'accept', typed: names[0] as string },
        [names[1] as string]: { action: 'accept', typed: 'something-else' },
        [names[2] as string]: { action: 'decline' },
      };
      const { client, asked } = modernClient((message) => {
        const name = names.find((candidate) => message.includes(`type ${candidate}.`));
        return answers[name ?? ''] ?? { action: 'decline' };
      });
      await client.connect(
        new ModernStdio({
          command: process.execPath,
          args: [MAIN, ...args],
          env: serverEnv(env),
          stderr: 'pipe',
        }),
      );
      const results = [];
      for (const id of ids)
        results.push(await client.callTool({ name: 'key-delete', arguments: { ID: id } }));
      expect(asked).toHaveLength(3);
      expect(results[0]?.isError).not.toBe(true);
      expect(textOf(results[1] as { content: unknown })).toContain(`did not type ${names[1]} as asked`);
      expect(textOf(results[2] as { content: unknown })).toMatch(/was declined: nothing was sent/);
      expect(await Promise.all(ids.map(keyExists))).toEqual([false, true, true]);
    },
    LONG,
  );

  it(
    'a stateless server asks a client that can answer; one that cannot is refused as before',
    async () => {
      const { url } = await startInProcess(
        ['--transport', 'http', '--port', '0', '--stateless', '--api-url', sandbox.url],
        { DIGITALOCEAN_ACCESS_TOKEN: 'test-token' },
      );
      const [asked, silent] = await Promise.all([sandboxKey('asked'), sandboxKey('silent')]);
      const { client: answering } = modernClient(() => ({ action: 'accept', typed: 'asked' }));
      await answering.connect(new StreamableHTTPClientTransport(new URL(url)));
      const { client: mute } = modernClient();
      await mute.connect(new StreamableHTTPClientTransport(new URL(url)));
      expect((await answering.callTool({ name: 'key-delete', arguments: { ID: asked } })).isError).not.toBe(
        true,
      );
      const refused = await mute.callTool({ name: 'key-delete', arguments: { ID: silent } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused as { content: unknown })).toMatch(/cannot ask you to confirm/);
      expect([await keyExists(asked), await keyExists(silent)]).toEqual([false, true]);
    },
    LONG,
  );
});

describe('progress at 2026-07-28', () => {
  afterEach(cleanUp);

  it(
    "a wait's progress reaches the client on its call's own stream, naming the VM, over stateless HTTP",
    async () => {
      const { url } = await startHttp(
        ['--transport', 'http', '--port', '0', '--stateless', '--api-url', sandbox.url],
        {
          DIGITALOCEAN_ACCESS_TOKEN: 'test-token',
        },
      );
      const made = await fetch(`${sandbox.url}/v2/droplets`, {
        method: 'POST',
        headers: { authorization: 'Bearer any', 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'progressing',
          region: 'nyc3',
          size: 's-1vcpu-1gb',
          image: 'ubuntu-24-04-x64',
        }),
      });
      const vm = ((await made.json()) as { droplet: { id: number } }).droplet.id;
      const { client } = modernClient();
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const reports: { progress: number; total?: number; message?: string }[] = [];
      const result = await client.callTool(
        { name: 'wait', arguments: { Kind: 'vm', ID: String(vm), TimeoutSeconds: 120 } },
        {
          onprogress: (progress) => {
            reports.push(progress);
            // The platform moves on once the client has seen the VM provisioning.
            if (reports.length === 1) sandbox.advanceClock(120_000);
          },
        },
      );
      expect(result.isError).not.toBe(true);
      expect(reports.length).toBeGreaterThan(0);
      expect(reports[0]?.message).toContain('progressing');
      expect(reports.every((report) => typeof report.total === 'number')).toBe(true);
    },
    LONG,
  );
});

/** The JSON-RPC envelope of a 2026-07-28 tools/call, as the SDK's client sends it. */
function modernCall(name: string, args: object, retry?: { state: string; answer: object }) {
  return {
    jsonrpc: '2.0',
    id: randomBytes(4).toString('hex'),
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
      },
      ...(retry ? { requestState: retry.state, inputResponses: { confirm: retry.answer } } : {}),
    },
  };
}

interface RoundAnswer {
  status: number;
  result?: {
    resultType?: string;
    isError?: boolean;
    content?: { text: string }[];
    requestState?: string;
    inputRequests?: Record<string, { method: string; params: { message: string } }>;
  };
  error?: { code: number; message: string };
}

async function round(
  url: string,
  token: string,
  name: string,
  args: object,
  retry?: { state: string; answer: object },
): Promise<RoundAnswer> {
  const answer = await httpRequest(url, {
    body: modernCall(name, args, retry),
    headers: {
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
  });
  return { status: answer.status, ...(answer.json as object) };
}

const accept = (typed: string) => ({ action: 'accept', content: { confirm: typed } });

describe('three stateless replicas behind nginx, one Redis, one --request-state-key', () => {
  let redis: RedisServer;
  let nginx: Nginx;
  let replicas: string[];
  /** A replica with a key of its own: not part of the service. */
  let stranger: string;
  /** A replica of the service whose questions stay answerable for a second (--confirm-ttl 1). */
  let brief: string;
  const key = randomBytes(32).toString('base64');

  beforeAll(async () => {
    redis = await startRedisServer();
    const flags = (stateKey: string, extra: string[] = []) => [
      ...['--transport', 'http', '--port', '0', '--stateless', '--auth', 'token-passthrough'],
      ...['--api-url', sandbox.url, '--allowed-hosts', '127.0.0.1', '--tools', 'key-*,untag-resources'],
      ...['--redis', redis.url, '--request-state-key', stateKey, '--max-in-flight-per-caller', '64'],
      ...extra,
    ];
    const started = await Promise.all([
      ...[0, 1, 2].map(() => startHttp(flags(key))),
      startHttp(flags(randomBytes(32).toString('base64'))),
      startHttp(flags(key, ['--confirm-ttl', '1'])),
    ]);
    replicas = started.slice(0, 3).map((replica) => replica.url);
    stranger = started[3]?.url as string;
    brief = started[4]?.url as string;
    nginx = await startNginx({ upstreams: replicas.map((url) => Number(new URL(url).port)) });
  }, LONG);
  afterAll(async () => {
    await cleanUp();
    await nginx?.stop();
    await redis?.stop();
  });

  it(
    '100 of 100 deletes complete, each asked on one replica and answered on another',
    async () => {
      const names = Array.from({ length: 100 }, (_, at) => `many-${at}-${randomBytes(2).toString('hex')}`);
      const ids = await Promise.all(names.map(sandboxKey));
      // Twenty at a time: a team's pace, within each replica's --max-in-flight (a refusal there
      // would be an answer without a result, which this test counts as a failure, not a delete).
      const outcomes: string[] = [];
      for (let first = 0; first < ids.length; first += 20) {
        const batch = ids.slice(first, first + 20).map(async (id, offset) => {
          const at = first + offset;
          const asking = replicas[at % 3] as string;
          const answering = replicas[(at + 1) % 3] as string;
          const question = await round(asking, 'alice', 'key-delete', { ID: id });
          expect(question.result?.resultType).toBe('input_required');
          expect(question.result?.inputRequests?.confirm?.params.message).toContain(`type ${names[at]}.`);
          const state = question.result?.requestState as string;
          const done = await round(
            answering,
            'alice',
            'key-delete',
            { ID: id },
            { state, answer: accept(names[at] as string) },
          );
          if (done.status !== 200 || !done.result) return `${done.status}: ${JSON.stringify(done)}`;
          return done.result.isError === true ? textOf(done.result) : 'ok';
        });
        outcomes.push(...(await Promise.all(batch)));
      }
      expect(outcomes.filter((outcome) => outcome !== 'ok')).toEqual([]);
      expect((await Promise.all(ids.map(keyExists))).filter(Boolean)).toHaveLength(0);
    },
    LONG,
  );

  it(
    'through nginx, the SDK client confirms a delete whatever replica each round lands on',
    async () => {
      const names = Array.from({ length: 6 }, (_, at) => `sdk-${at}-${randomBytes(2).toString('hex')}`);
      const ids = await Promise.all(names.map(sandboxKey));
      const { client } = modernClient((message) => ({
        action: 'accept',
        typed: names.find((name) => message.includes(`type ${name}.`)) ?? '',
      }));
      await client.connect(
        new StreamableHTTPClientTransport(new URL(nginx.url), {
          requestInit: { headers: { authorization: 'Bearer bob' } },
        }),
      );
      for (const id of ids)
        expect((await client.callTool({ name: 'key-delete', arguments: { ID: id } })).isError).not.toBe(true);
      expect((await Promise.all(ids.map(keyExists))).some(Boolean)).toBe(false);
    },
    LONG,
  );

  it(
    'refuses every replay of an answer, and its target survives',
    async () => {
      const [victim, other] = await Promise.all([sandboxKey('victim'), sandboxKey('other')]);
      const ask = async (id: number, token = 'alice', at = 0) => {
        const question = await round(replicas[at] as string, token, 'key-delete', { ID: id });
        return question.result?.requestState as string;
      };
      const refusal = async (
        url: string,
        token: string,
        args: object,
        retry: { state: string; answer: object },
      ) => {
        const answer = await round(url, token, 'key-delete', args, retry);
        // The whole answer in the message: a failure says what came instead of a refusal.
        expect(answer.result?.isError, JSON.stringify(answer)).toBe(true);
        return textOf(answer.result ?? {});
      };

      // Other arguments: the answer about `other` does not delete `victim`.
      const aboutOther = await ask(other);
      expect(
        await refusal(
          replicas[1] as string,
          'alice',
          { ID: victim },
          { state: aboutOther, answer: accept('other') },
        ),
      ).toMatch(/another call \(another tool or other arguments\)/);
      expect(
        await refusal(
          replicas[1] as string,
          'alice',
          { ID: victim },
          { state: aboutOther, answer: accept('victim') },
        ),
      ).toMatch(/another call/);

      // Another caller: bob replays alice's answer.
      const alices = await ask(victim);
      expect(
        await refusal(
          replicas[2] as string,
          'bob',
          { ID: victim },
          { state: alices, answer: accept('victim') },
        ),
      ).toMatch(/another caller/);

      // Altered, or sealed by a service with another key.
      const altered = `${alices.slice(0, -2)}${alices.endsWith('A') ? 'B' : 'A'}${alices.slice(-1)}`;
      expect(
        await refusal(
          replicas[1] as string,
          'alice',
          { ID: victim },
          { state: altered, answer: accept('victim') },
        ),
      ).toMatch(/not made by this service/);
      expect(
        await refusal(stranger, 'alice', { ID: victim }, { state: alices, answer: accept('victim') }),
      ).toMatch(/not made by this service/);

      // After expiry: asked where questions last a second, answered later (there or anywhere).
      const question = await round(brief, 'alice', 'key-delete', { ID: victim });
      const stale = question.result?.requestState as string;
      expect(typeof stale, JSON.stringify(question)).toBe('string');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      for (const url of [brief, replicas[2] as string]) {
        expect(
          await refusal(url, 'alice', { ID: victim }, { state: stale, answer: accept('victim') }),
        ).toMatch(/expired/);
      }
      expect(await keyExists(victim)).toBe(true);
      expect(await keyExists(other)).toBe(true);

      // After use: one untagging is confirmed once; its answer, replayed on every replica, is
      // refused, and the VM tagged again in between keeps its tag.
      const api = (method: string, path: string, body?: object) =>
        fetch(`${sandbox.url}${path}`, {
          method,
          headers: { authorization: 'Bearer any', 'content-type': 'application/json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        }).then(async (response) => (response.status === 204 ? {} : response.json()));
      const { droplet } = (await api('POST', '/v2/droplets', {
        name: 'tagged',
        region: 'nyc3',
        size: 's-1vcpu-1gb',
        image: 'ubuntu-24-04-x64',
      })) as { droplet: { id: number } };
      const resources = [{ resource_id: String(droplet.id), resource_type: 'droplet' }];
      const tag = `replayed-${randomBytes(2).toString('hex')}`;
      await api('POST', '/v2/tags', { name: tag });
      await api('POST', `/v2/tags/${tag}/resources`, { resources });
      const untag = (url: string, retry?: { state: string; answer: object }) =>
        round(url, 'alice', 'untag-resources', { Tag: tag, Resources: resources }, retry);
      const once = (await untag(replicas[2] as string)).result?.requestState as string;
      const used = await untag(replicas[0] as string, { state: once, answer: accept(tag) });
      expect(used.status).toBe(200);
      expect(used.result?.content, JSON.stringify(used)).toBeDefined();
      expect(used.result?.isError).not.toBe(true);
      await api('POST', `/v2/tags/${tag}/resources`, { resources });
      for (const url of replicas) {
        const replayed = await untag(url, { state: once, answer: accept(tag) });
        expect(replayed.result?.isError).toBe(true);
        expect(textOf(replayed.result ?? {})).toMatch(/used already/);
      }
      const { droplet: still } = (await api('GET', `/v2/droplets/${droplet.id}`)) as {
        droplet: { tags: string[] };
      };
      expect(still.tags).toContain(tag);
      // And a rename between question and answer: the question named what is no longer there.
      const renamedState = await ask(victim);
      await fetch(`${sandbox.url}/v2/account/keys/${victim}`, {
        method: 'PUT',
        headers: { authorization: 'Bearer any', 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'victim-renamed' }),
      }).then((response) => response.arrayBuffer());
      expect(
        await refusal(
          replicas[1] as string,
          'alice',
          { ID: victim },
          { state: renamedState, answer: accept('victim') },
        ),
      ).toMatch(/not the one the question named/);
      expect(await keyExists(victim)).toBe(true);
    },
    LONG,
  );
});
