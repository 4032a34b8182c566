/**
 * The server over Streamable HTTP on loopback, started as the README starts it (the built server
 * once, then as main.ts starts it in this process), with a real MCP client; and the start-up
 * refusals a user meets.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sshPublicKey } from '@cloudcall/sandbox';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { call } from './testing/client.js';
import { exitOf, killAll, startHttp as start, stdioClient } from './testing/main.js';
import {
  httpRequest,
  INITIALIZE,
  killAll as killProcesses,
  openSession,
  startHttp as startProcess,
} from './testing/process.js';

afterEach(async () => {
  killProcesses();
  await killAll();
});

describe('Streamable HTTP', () => {
  it('serves tools on 127.0.0.1 and prints how to connect the usual hosts', async () => {
    // The built server as a person starts it: the process-level smoke test of HTTP start-up.
    const { url, output } = await startProcess(['--transport', 'http', '--port', '0', '--sandbox']);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(output()).toMatch(/claude mcp add --transport http cloudcall http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(output()).toMatch(/Cursor/);
    expect(output()).toMatch(/MCP Inspector/);
    expect(output()).toMatch(/Claude Desktop/);

    const client = new Client({ name: 'http-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('key-create');
    const balance = await call(client, 'balance-get');
    expect(balance.isError).toBe(false);
    expect(balance.json).toMatchObject({ account_balance: expect.any(String) });

    // A second session shares the same sandbox world.
    const second = new Client({ name: 'http-test-2', version: '1.0.0' });
    await second.connect(new StreamableHTTPClientTransport(new URL(url)));
    expect((await call(second, 'account-get-information')).json).toEqual(
      (await call(client, 'account-get-information')).json,
    );
    await client.close();
    await second.close();
  });

  it('refuses requests addressed to another host name (DNS rebinding)', async () => {
    const { url } = await start(['--transport', 'http', '--port', '0', '--sandbox']);
    const forged = await httpRequest(url, { body: INITIALIZE, headers: { host: 'evil.example' } });
    expect(forged.status).toBe(403);
    expect(forged.json).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32000, message: expect.stringMatching(/Host/) },
    });
    const samePortOtherName = await httpRequest(url, {
      body: INITIALIZE,
      headers: { host: `evil.example:${new URL(url).port}` },
    });
    expect(samePortOtherName.status).toBe(403);
  });

  it('refuses a request from a foreign Origin with 403, and the tool does not run', async () => {
    const { url } = await start(['--transport', 'http', '--port', '0', '--sandbox', '--families', 'account']);
    const session = await openSession(url);
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    const createKey = (origin: string, id: number) =>
      httpRequest(url, {
        headers: { ...headers, origin },
        body: {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'key-create', arguments: { Name: `key ${id}`, PublicKey: sshPublicKey() } },
        },
      });
    const foreign = [
      'https://evil.example',
      'http://evil.example:3333',
      'http://localhost.evil.example',
      'http://127.0.0.1.evil.example',
      'http://10.0.0.1',
      'null',
      'file://',
      'chrome-extension://abcdef',
    ];
    for (const [index, origin] of foreign.entries()) {
      const answer = await createKey(origin, index + 10);
      expect(answer.status, origin).toBe(403);
      expect(answer.json, origin).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32000, message: expect.stringMatching(/Origin/) },
      });
    }
    // Nothing ran: the key list is still empty.
    const list = await httpRequest(url, {
      headers,
      body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'key-list', arguments: {} } },
    });
    expect(list.status).toBe(200);
    const result = (list.json as { result: { content: { text: string }[] } }).result;
    expect(JSON.parse(result.content[0]!.text)).toMatchObject({ ssh_keys: [], meta: { total: 0 } });
    // The same call from a loopback page does run (so the refusals above were not vacuous).
    expect((await createKey('http://localhost:5173', 99)).status).toBe(200);
    const after = await httpRequest(url, {
      headers,
      body: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'key-list', arguments: {} } },
    });
    const listed = (after.json as { result: { content: { text: string }[] } }).result.content[0]!.text;
    expect(JSON.parse(listed)).toMatchObject({ meta: { total: 1 } });
    // A session cannot be opened from there either.

    const opened = await httpRequest(url, { body: INITIALIZE, headers: { origin: 'https://evil.example' } });
    expect(opened.status).toBe(403);
    expect(opened.headers['mcp-session-id']).toBeUndefined();
  });

  it('accepts requests with no Origin or a loopback Origin on any port', async () => {
    const { url } = await start(['--transport', 'http', '--port', '0', '--sandbox', '--families', 'account']);
    for (const origin of [
      undefined,
      'http://localhost:6274',
      'http://LOCALHOST:5173',
      'https://localhost',
      'http://127.0.0.1:8080',
      'http://127.45.6.7:1',
      'http://[::1]:6274',
    ]) {
      const answer = await httpRequest(url, { body: INITIALIZE, headers: origin ? { origin } : {} });
      expect(answer.status, origin).toBe(200);
      expect(answer.headers['mcp-session-id'], origin).toEqual(expect.any(String));
    }
  });

  it('refuses a body over --max-message-bytes with 413 and a JSON-RPC error', async () => {
    const { url } = await start([
      '--transport',
      'http',
      '--port',
      '0',
      '--sandbox',
      '--max-message-bytes',
      '2048',
    ]);
    const big = { ...INITIALIZE, params: { ...INITIALIZE.params, padding: 'p'.repeat(3000) } };
    const refused = await httpRequest(url, { body: big });
    expect(refused.status).toBe(413);
    expect(refused.json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Request body larger than 2048 bytes' },
    });
    expect((await httpRequest(url, { body: INITIALIZE })).status).toBe(200);
  });

  it('serves on another loopback address: 127.0.0.2, ::1 and localhost', async () => {
    for (const host of ['127.0.0.2', '::1', 'localhost']) {
      const { url } = await start(['--transport', 'http', '--host', host, '--port', '0', '--sandbox']);
      const client = new Client({ name: 'loopback', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      expect((await call(client, 'balance-get')).isError, host).toBe(false);
      await client.close();
    }
  });
});

describe('start-up', () => {
  it('without a token or --sandbox, exits saying how to fix it', async () => {
    const result = await exitOf([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/DIGITALOCEAN_API_TOKEN/);
    expect(result.stderr).toMatch(/--sandbox/);
    expect(result.stdout).toBe('');
  });

  it('names an unknown family and the valid ones', async () => {
    const result = await exitOf(['--sandbox', '--families', 'account,dns']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /unknown family dns; choose from account, databases, networking, vms, images/,
    );
  });

  it('refuses a sandbox state file it cannot use, naming it and the reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudcall-mcp-state-'));
    const notJson = join(dir, 'state.json');
    writeFileSync(notJson, 'not json');
    const cases: [string, RegExp][] = [
      [dir, /is a directory/],
      [notJson, /not valid JSON/],
      [join(notJson, 'state.json'), /is not a directory/],
    ];
    for (const [path, reason] of cases) {
      const result = await exitOf(['--sandbox', '--sandbox-state', path]);
      expect(result.code, path).toBe(2);
      expect(result.stderr, path).toContain(`cloudcall-mcp: The sandbox state file ${path} cannot be used`);
      expect(result.stderr, path).toMatch(reason);
    }
    expect(readFileSync(notJson, 'utf8')).toBe('not json');
  });

  it('refuses to listen on a non-loopback address, saying why', async () => {
    for (const host of ['0.0.0.0', '::', '192.0.2.10']) {
      const result = await exitOf(['--transport', 'http', '--host', host, '--port', '0', '--sandbox']);
      expect(result.code, host).toBe(2);
      expect(result.stderr, host).toContain(`--host ${host} is not a loopback address`);
      expect(result.stderr, host).toMatch(/--auth none lets anyone who can reach it run every tool/);
      expect(result.stderr, host).not.toMatch(/listening on/);
    }
  });

  it('never prints the password of an --api-url with credentials, nor the token', async () => {
    const token = 'dop_v1_f3a9c27e5b1d4086af7e92c3d5b8e1a0';
    const password = 'secretpass';
    const seen: { url?: string; authorization?: string }[] = [];
    const api = createServer((req, res) => {
      seen.push({ url: req.url, authorization: req.headers.authorization });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ month_to_date_balance: '0.00', account_balance: '0.00' }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const { port } = api.address() as AddressInfo;
    const { client, stderr, close } = await stdioClient(
      ['--api-url', `http://user:${password}@127.0.0.1:${port}`],
      { DIGITALOCEAN_API_TOKEN: token },
    );
    try {
      const balance = await call(client, 'balance-get');
      expect(balance.isError).toBe(false);
      // The call really went to that server, with the token as a bearer token.
      expect(seen).toEqual([{ url: '/v2/customers/my/balance', authorization: `Bearer ${token}` }]);
      expect(stderr()).toContain(`using the API at http://127.0.0.1:${port} `);
      // No 8-character run of the token and no 4-character run of the password.
      for (const run of [...runs(token, 8), ...runs(password, 4)]) expect(stderr()).not.toContain(run);
    } finally {
      await close();
      await new Promise((resolve) => api.close(resolve));
    }
  });

  it('with a token, uses --api-url and never prints the token', async () => {
    const token = 'dop_v1_mcp_test_secret_0123456789abcdef';
    const { output } = await start(
      ['--transport', 'http', '--port', '0', '--api-url', 'http://127.0.0.1:9'],
      {
        DIGITALOCEAN_ACCESS_TOKEN: token,
      },
    );
    expect(output()).toMatch(
      /using the API at http:\/\/127\.0\.0\.1:9 with the token from DIGITALOCEAN_ACCESS_TOKEN/,
    );
    expect(output()).not.toContain(token);
  });
});

function runs(secret: string, length: number): string[] {
  return Array.from({ length: secret.length - length + 1 }, (_, at) => secret.slice(at, at + length));
}
