/**
 * Streamable HTTP sessions are bounded: a cap on open sessions (503 past it) and an idle timeout
 * after which a session is closed and its id is unknown (404). The server as main.ts starts it, in
 * this process (a process of its own where its heap limit matters), real SDK client over HTTP.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { call } from './testing/client.js';
import { killAll, startHttp } from './testing/main.js';
import {
  httpRequest,
  INITIALIZE,
  killAll as killProcesses,
  openSession,
  startHttp as startProcess,
  waitForOutput,
} from './testing/process.js';

afterEach(async () => {
  killProcesses();
  await killAll();
});

async function connect(url: string, sessionId?: string): Promise<Client> {
  const client = new Client({ name: 'sessions-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { sessionId }));
  return client;
}

const LIST = { jsonrpc: '2.0', id: 5, method: 'tools/list' };
const sessionHeaders = (id: string) => ({ 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' });

describe('Streamable HTTP sessions', () => {
  it('past --max-sessions a new session gets 503 with a JSON-RPC error; closing one frees its slot', async () => {
    const { url } = await startHttp([
      '--transport',
      'http',
      '--port',
      '0',
      '--sandbox',
      '--max-sessions',
      '2',
    ]);
    const first = await connect(url);
    const second = await connect(url);

    const refused = connect(url);
    await expect(refused).rejects.toBeInstanceOf(StreamableHTTPError);
    await expect(refused).rejects.toMatchObject({
      code: 503,
      message: expect.stringMatching(/2 sessions are open/),
    });

    const raw = await httpRequest(url, { body: INITIALIZE });
    expect(raw.status).toBe(503);
    expect(raw.headers['content-type']).toBe('application/json');
    expect(raw.headers['mcp-session-id']).toBeUndefined();
    expect(raw.json).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: expect.stringMatching(/^Too many sessions: 2 sessions are open/) },
    });

    // The open sessions are unaffected.
    expect((await call(second, 'balance-get')).isError).toBe(false);

    // A session the client ends (DELETE) frees its slot at once.
    await (first.transport as StreamableHTTPClientTransport).terminateSession();
    await first.close();
    const third = await connect(url);
    expect((await call(third, 'balance-get')).isError).toBe(false);
    await second.close();
    await third.close();
  });

  it('an idle session expires: its server is closed, its id gets the 404 of an unknown session, its slot is free', async () => {
    const { url, output } = await startHttp([
      '--transport',
      'http',
      '--port',
      '0',
      '--sandbox',
      '--max-sessions',
      '1',
      '--session-idle-timeout',
      '2',
    ]);
    const abandoned = await connect(url);
    expect((await call(abandoned, 'balance-get')).isError).toBe(false);
    const id = (abandoned.transport as StreamableHTTPClientTransport).sessionId!;
    // Gone without DELETE: the client closes its connections and never comes back. (The timeout
    // is small, yet longer than the gaps between one client's requests on a busy machine, whose
    // event loop the server shares here.)
    await abandoned.close();
    await waitForOutput(output, new RegExp(`session ${id} expired after 2 s idle`));

    const expired = await httpRequest(url, { body: LIST, headers: sessionHeaders(id) });
    const unknown = await httpRequest(url, {
      body: LIST,
      headers: sessionHeaders('00000000-0000-4000-8000-000000000000'),
    });
    expect(unknown.status).toBe(404);
    expect(expired).toMatchObject({ status: unknown.status, text: unknown.text });
    expect(unknown.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });

    // The official client resuming the expired id gets the same 404.
    const resumed = await connect(url, id);
    await expect(resumed.listTools()).rejects.toMatchObject({ code: 404 });
    await resumed.close();

    // With a cap of one session, a new one can open only because the expired one was closed.
    const fresh = await connect(url);
    expect((await call(fresh, 'balance-get')).isError).toBe(false);
    await fresh.close();
  });

  it('a session with an open stream or request does not expire while it is open', async () => {
    const { url, output } = await startHttp([
      '--transport',
      'http',
      '--port',
      '0',
      '--sandbox',
      '--session-idle-timeout',
      '2',
    ]);
    // The official client keeps a GET stream open for server-to-client messages.
    const client = await connect(url);
    const idle = await openSession(url);
    // The raw session has no stream open and was opened after the client's: had the client's
    // session been taken for idle, it would have expired first (same timeout, armed earlier).
    await waitForOutput(output, new RegExp(`session ${idle} expired`));
    expect((await call(client, 'balance-get')).isError).toBe(false);
    expect(output()).not.toMatch(
      new RegExp(`session ${(client.transport as StreamableHTTPClientTransport).sessionId} expired`),
    );
    await client.close();
  });

  it('with default settings and the 96 MB heap of the report, 400 abandoned sessions leave it up: past 100, 503', async () => {
    // A process of its own: the heap limit is the process's.
    const { url, child } = await startProcess(
      ['--transport', 'http', '--port', '0', '--sandbox', '--quiet'],
      {},
      ['--max-old-space-size=96'],
    );
    let exited: number | null | undefined;
    child.on('exit', (code) => {
      exited = code;
    });
    const statuses: number[] = [];
    // Each one initializes and never comes back.
    const abandon = async () => statuses.push((await httpRequest(url, { body: INITIALIZE })).status);
    for (let round = 0; round < 100 && exited === undefined; round++) {
      await Promise.all([abandon(), abandon(), abandon(), abandon()]);
    }
    expect(exited).toBeUndefined();
    expect(statuses.filter((status) => status === 200)).toHaveLength(100);
    expect(statuses.filter((status) => status === 503)).toHaveLength(300);
  });
});
