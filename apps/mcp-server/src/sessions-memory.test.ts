/**
 * An expired session leaves nothing behind: its MCP server instance is garbage-collected. In
 * process (serveHttp with the real server factory, a real SDK client over loopback HTTP), so that
 * the test can hold weak references to the servers and run the garbage collector.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { connectSandbox } from '@cloudcall/sandbox';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Server } from '@modelcontextprotocol/server';
import { expect, it } from 'vitest';
import { serveHttp } from './http.js';
import { LISTING } from './listing.generated.js';
import { createLegacyServer } from './server.js';
import { call } from './testing/client.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

it('the server instances of expired sessions are closed and garbage-collected', async () => {
  const sandbox = await connectSandbox({});
  const tools = LISTING.tools.filter((tool) => tool.family === 'account');
  const client = Promise.resolve(sandbox.client);
  const servers: WeakRef<Server>[] = [];
  const closed = new Set<number>();
  const lines: string[] = [];
  const running = await serveHttp({
    host: '127.0.0.1',
    port: 0,
    log: (line) => lines.push(line),
    maxSessions: 100,
    sessionIdleTimeoutMs: 500,
    maxMessageBytes: 1024 * 1024,
    newServer: () => {
      const server = createLegacyServer({
        client: () => client,
        tools,
        version: '0',
        sandbox: true,
        log: () => {},
      });
      const index = servers.push(new WeakRef(server)) - 1;
      server.onclose = () => closed.add(index);
      return server;
    },
  });
  try {
    for (let n = 0; n < 5; n++) {
      const client = new Client({ name: 'abandoned', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
      expect((await call(client, 'balance-get')).isError).toBe(false);
      await client.close(); // no DELETE: the session is abandoned
    }
    expect(servers).toHaveLength(5);
    while (lines.filter((line) => / expired after 0.5 s idle$/.test(line)).length < 5) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(closed.size).toBe(5);
    for (let attempt = 0; attempt < 20 && servers.some((ref) => ref.deref()); attempt++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    expect(servers.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
  } finally {
    await running.close();
    await sandbox.close();
  }
});
