/**
 * The server over Streamable HTTP on loopback, started as the README starts it, with a real MCP
 * client; and the start-up refusals a user meets.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { call, MAIN } from './testing/client.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
});

/** Starts the server and resolves with its URL (read from the start-up text) and its output so far. */
function start(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ url: string; output: () => string }> {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed; output: ${output}`)), 15_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+\/mcp)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ url, output: () => output });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
}

function exitOf(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.on('exit', (code) => resolve({ code, stderr, stdout }));
  });
}

describe('Streamable HTTP', () => {
  it('serves tools on 127.0.0.1 and prints how to connect the usual hosts', async () => {
    const { url, output } = await start(['--transport', 'http', '--port', '0', '--sandbox']);
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
    // fetch forbids setting Host, so this request goes through node:http.
    const target = new URL(url);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: {
            host: 'evil.example',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(403);
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
