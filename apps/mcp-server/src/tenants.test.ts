/**
 * Tenants of the team service stay apart, through the built server over Streamable HTTP and the
 * official SDK client, against the sandbox behind a loopback stand-in that checks tokens as the
 * platform does:
 * - every audit line names its caller with a non-secret id (the client key's name, `token:` and a
 *   short hash of a passed-through token, the local user on stdio);
 * - `audit-list` shows a caller only its own lines, and with --auth token-passthrough only after
 *   the platform has accepted its token (a refused token gets the platform's 401);
 * - an HTTP session is bound to the key or token that opened it: any other gets 404 for calls,
 *   the stream and DELETE, and the session goes on for its owner.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { call, createKey } from './testing/client.js';
import { killAll, startHttp, stdioClient } from './testing/main.js';
import { httpRequest } from './testing/process.js';

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await killAll();
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const temp = () => mkdtempSync(join(tmpdir(), 'cloudcall-tenants-'));
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const HTTP = ['--transport', 'http', '--port', '0', '--families', 'account'];

const ALICE = 'alice-api-token-0123456789abcdef';
const BOB = 'bob-api-token-fedcba9876543210';

/**
 * The platform as far as tokens go: a request with a token it knows is passed to the sandbox,
 * any other gets the platform's 401. Records every request's method, path and token.
 */
async function tokenCheckingApi(sandbox: Sandbox, known: readonly string[]) {
  const seen: { method: string; path: string; token: string }[] = [];
  const server = createServer(async (req, res) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    seen.push({ method: req.method ?? '', path: req.url ?? '', token });
    if (!known.includes(token)) {
      res.writeHead(401, { 'content-type': 'application/json', 'x-request-id': 'req-401' });
      res.end(JSON.stringify({ id: 'unauthorized', message: 'Unable to authenticate you.' }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const answer = await fetch(new URL(req.url ?? '/', sandbox.url), {
      method: req.method ?? 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        ...(req.headers['content-type'] ? { 'content-type': req.headers['content-type'] } : {}),
      },
      ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
    });
    const headers: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (name !== 'content-length' && name !== 'transfer-encoding' && name !== 'connection')
        headers[name] = value;
    });
    res.writeHead(answer.status, headers);
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

async function sandbox(): Promise<Sandbox> {
  const started = await startSandbox({});
  cleanup.push(() => started.close());
  return started;
}

async function connectHttp(url: string, credential: string, sessionId?: string) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${credential}` } },
    ...(sessionId ? { sessionId } : {}),
  });
  const client = new Client({ name: 'tenants-test', version: '1.0.0' });
  await client.connect(transport);
  cleanup.push(() => client.close());
  return { client, transport };
}

type Entry = { caller?: string; tool: string; phase?: string; args: { Name?: string } };
/** Every line of the audit file: the write-ahead intent lines (`phase: "intent"`) and the outcomes. */
const allAuditLines = (file: string): Entry[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Entry);
/** The outcome lines only (one per call; they have no `phase`). */
const auditLines = (file: string): Entry[] =>
  allAuditLines(file).filter((entry) => entry.phase === undefined);

async function auditList(client: Client) {
  const listed = await call(client, 'audit-list');
  return { ...listed, entries: (listed.json as { entries?: Entry[] } | undefined)?.entries };
}

describe('--auth token-passthrough', () => {
  it('a caller reads only its own audit lines, after the platform has accepted its token; any other token gets the 401', async () => {
    const api = await tokenCheckingApi(await sandbox(), [ALICE, BOB]);
    const log = join(temp(), 'audit.jsonl');
    const { url, output } = await startHttp([
      ...HTTP,
      '--auth',
      'token-passthrough',
      '--api-url',
      api.url,
      '--audit-log',
      log,
    ]);
    const alice = await connectHttp(url, ALICE);
    const bob = await connectHttp(url, BOB);
    await createKey(alice.client, 'alice-key');
    await createKey(bob.client, 'bob-key');

    const aliceId = `token:${sha256(ALICE).slice(0, 12)}`;
    const bobId = `token:${sha256(BOB).slice(0, 12)}`;
    expect(auditLines(log).map((entry) => [entry.caller, entry.args.Name])).toEqual([
      [aliceId, 'alice-key'],
      [bobId, 'bob-key'],
    ]);

    const checks = () => api.seen.filter((request) => request.path === '/v2/account');
    const listed = await auditList(alice.client);
    expect(listed.isError, listed.text).toBe(false);
    expect(listed.entries?.map((entry) => entry.args.Name)).toEqual(['alice-key']);
    expect((await auditList(bob.client)).entries?.map((entry) => entry.args.Name)).toEqual(['bob-key']);
    // Each token was checked with the platform once; a second listing within the minute is not.
    expect((await auditList(alice.client)).entries).toHaveLength(1);
    expect(checks().map((request) => request.token)).toEqual([ALICE, BOB]);

    // A token the platform does not know: its 401, as a tool error, and no line of anyone's.
    for (const bad of ['x', 'not-a-real-token-but-long-enough']) {
      const stranger = await connectHttp(url, bad);
      const refused = await auditList(stranger.client);
      expect(refused.isError).toBe(true);
      expect(refused.entries).toBeUndefined();
      expect(refused.text).toContain('Unable to authenticate you.');
      expect(refused.structured).toMatchObject({ status: 401, error_id: 'unauthorized' });
      expect(refused.text).not.toMatch(/alice-key|bob-key/);
    }
    expect(checks().map((request) => request.token)).toEqual([
      ALICE,
      BOB,
      'x',
      'not-a-real-token-but-long-enough',
    ]);
    // No token reaches the log or the audit file.
    for (const token of [ALICE, BOB, 'not-a-real-token-but-long-enough']) {
      expect(output()).not.toContain(token);
      expect(readFileSync(log, 'utf8')).not.toContain(token);
    }
  });
});

/** A client-keys file: alice's key with her name, and an unnamed key. */
function keysFile(named: string, unnamed: string): string {
  const file = join(temp(), 'client-keys');
  writeFileSync(file, `# team\n${sha256(named)}  alice\n${sha256(unnamed)}\n`);
  return file;
}

describe('--auth static', () => {
  const ALICE_KEY = 'alice-client-key-0123456789';
  const OTHER_KEY = 'other-client-key-9876543210';

  it.each([
    ['own (the default)', [], false],
    ['all (--audit-scope all)', ['--audit-scope', 'all'], true],
  ] as const)('audit lines name the key; a key reads %s', async (_, scope, seesAll) => {
    const log = join(temp(), 'audit.jsonl');
    const { url } = await startHttp([
      ...HTTP,
      '--sandbox',
      '--sandbox-state',
      ':memory:',
      '--auth',
      'static',
      '--client-keys',
      keysFile(ALICE_KEY, OTHER_KEY),
      '--audit-log',
      log,
      ...scope,
    ]);
    const alice = await connectHttp(url, ALICE_KEY);
    const other = await connectHttp(url, OTHER_KEY);
    await createKey(alice.client, 'alice-key');
    await createKey(other.client, 'other-key');
    const otherId = `key:${sha256(OTHER_KEY).slice(0, 12)}`;
    expect(auditLines(log).map((entry) => entry.caller)).toEqual(['alice', otherId]);
    const names = async (client: Client) =>
      (await auditList(client)).entries?.map((entry) => entry.args.Name);
    expect(await names(alice.client)).toEqual(seesAll ? ['alice-key', 'other-key'] : ['alice-key']);
    expect(await names(other.client)).toEqual(seesAll ? ['alice-key', 'other-key'] : ['other-key']);
  });
});

/** A client-keys file of digests alone, as before keys had names. */
function unnamedKeys(...keys: string[]): string {
  const file = join(temp(), 'client-keys');
  writeFileSync(file, keys.map((key) => `${sha256(key)}\n`).join(''));
  return file;
}

describe('HTTP sessions are bound to who opened them', () => {
  it.each([
    ['client keys (--auth static)', 'static'],
    ['API tokens (--auth token-passthrough)', 'token-passthrough'],
  ] as const)('with %s, another identity gets 404 for calls, the stream and DELETE', async (_, mode) => {
    const [first, second] = mode === 'static' ? ['key-one-0123456789', 'key-two-0123456789'] : [ALICE, BOB];
    const args =
      mode === 'static'
        ? [
            '--auth',
            'static',
            '--client-keys',
            unnamedKeys(first, second),
            '--sandbox',
            '--sandbox-state',
            ':memory:',
          ]
        : [
            '--auth',
            'token-passthrough',
            '--api-url',
            (await tokenCheckingApi(await sandbox(), [ALICE, BOB])).url,
          ];
    const { url } = await startHttp([...HTTP, ...args]);
    const owner = await connectHttp(url, first);
    const sessionId = owner.transport.sessionId as string;
    expect(sessionId).toEqual(expect.any(String));
    await createKey(owner.client, 'owned');

    // The other identity, with the session's id: an SDK client resuming that session.
    const intruder = await connectHttp(url, second, sessionId);
    const notFound = { code: 404, message: expect.stringContaining('Session not found') };
    await expect(intruder.client.callTool({ name: 'key-list', arguments: {} })).rejects.toMatchObject(
      notFound,
    );
    await expect(intruder.transport.terminateSession()).rejects.toMatchObject({ code: 404 });
    const headers = {
      authorization: `Bearer ${second}`,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
    };
    const stream = await httpRequest(url, { method: 'GET', headers });
    expect(stream.status).toBe(404);
    expect(stream.json).toMatchObject({ error: { message: 'Session not found' } });
    // The same answer as for a session that does not exist: nothing says this one does.
    const unknown = await httpRequest(url, {
      method: 'DELETE',
      headers: { ...headers, 'mcp-session-id': '00000000-0000-4000-8000-000000000000' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toBe(stream.text);

    // The owner's session is untouched, and its owner can still end it.
    const listed = await call(owner.client, 'key-list');
    expect(listed.isError, listed.text).toBe(false);
    expect(JSON.stringify(listed.json)).toContain('owned');
    await owner.transport.terminateSession();
    expect(owner.transport.sessionId).toBeUndefined();
  });
});

it('over stdio, audit lines name the local user', async () => {
  const log = join(temp(), 'audit.jsonl');
  const { client, close } = await stdioClient(['--sandbox', '--families', 'account', '--audit-log', log]);
  cleanup.push(close);
  await createKey(client, 'local-key');
  expect(auditLines(log).map((entry) => entry.caller)).toEqual([`local:${userInfo().username}`]);
  // The write-ahead intent line names the caller too.
  expect(allAuditLines(log).map((entry) => [entry.phase, entry.caller])).toEqual([
    ['intent', `local:${userInfo().username}`],
    [undefined, `local:${userInfo().username}`],
  ]);
});
