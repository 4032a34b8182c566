/**
 * The client's connection pool: undici, through its public entry, loads with the first request
 * and not before; a call's client (`forCall`) shares its parent's pool and budget and closes
 * nothing; a factory's clients share one pool. Over real HTTP on loopback.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, createClientFactory } from './client.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(resolve);
        }),
    ),
  );
});

/** A loopback API answering every request with a budget header that counts its requests, and the peers it saw. */
async function api(): Promise<{ url: string; peers: Set<number>; tokens: string[] }> {
  const peers = new Set<number>();
  const tokens: string[] = [];
  let served = 0;
  const server = createServer((req, res) => {
    peers.add(req.socket.remotePort ?? 0);
    tokens.push(req.headers.authorization ?? '');
    served++;
    res.writeHead(200, {
      'content-type': 'application/json',
      'ratelimit-limit': '5000',
      'ratelimit-remaining': String(5000 - served),
      'ratelimit-reset': '2000000000',
    });
    res.end('{"ok":true}');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, peers, tokens };
}

/** The built package, as a user's process loads it. */
const DIST = new URL('../dist/index.js', import.meta.url).href;
const run = promisify(execFile);

describe('the connection pool', () => {
  it('loads undici with the first request, not when a client is made, forked or closed', async () => {
    // In a fresh process (the built package), since another test of this file may have sent a
    // request first: this process's module cache says nothing about the order of one run.
    const { url } = await api();
    const script = `
      const { createRequire } = await import('node:module');
      const { createClient, createClientFactory } = await import(process.argv[1]);
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => /[\\\\/]undici[\\\\/]/.test(file));
      const seen = [loaded()];
      const unused = createClient({ token: 'token-a', baseUrl: process.argv[2] });
      unused.forCall({ readOnly: 'key-list' });
      await unused.close();
      const factory = createClientFactory({ baseUrl: process.argv[2] });
      factory.client('token-b');
      await factory.close();
      seen.push(loaded());
      const client = createClient({ token: 'token-a', baseUrl: process.argv[2] });
      seen.push(await client.request({ method: 'GET', path: '/v2/account' }));
      seen.push(loaded());
      await client.close();
      process.stdout.write(JSON.stringify(seen));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, DIST, url]);
    expect(JSON.parse(stdout)).toEqual([false, false, { ok: true }, true]);
  });

  it("gives a call's client the parent's pool and budget and its own hooks; closing it closes nothing", async () => {
    const server = await api();
    const parent = createClient({ token: 'token-a', baseUrl: server.url, connections: 1 });
    const call = parent.forCall({ readOnly: 'key-list' });
    await call.request({ method: 'GET', path: '/v2/account/keys' });
    expect(parent.rateLimit?.remaining).toBe(4999);
    await parent.request({ method: 'GET', path: '/v2/account/keys' });
    expect(call.rateLimit?.remaining).toBe(4998);
    // The hooks are the call's: the parent may still send a change.
    await expect(call.request({ method: 'DELETE', path: '/v2/account/keys/1' })).rejects.toThrow(/read-only/);
    await expect(parent.request({ method: 'DELETE', path: '/v2/account/keys/1' })).resolves.toEqual({
      ok: true,
    });
    await call.close();
    await parent.request({ method: 'GET', path: '/v2/account/keys' });
    // One connection (connections: 1, kept alive) carried every request, before and after call.close().
    expect(server.peers.size).toBe(1);
    expect(server.tokens.every((token) => token === 'Bearer token-a')).toBe(true);
    await parent.close();
    await expect(parent.request({ method: 'GET', path: '/v2/account/keys' })).rejects.toThrow();
  });

  it("sends each factory client's own token over one shared pool, closed by the factory", async () => {
    const server = await api();
    const factory = createClientFactory({ baseUrl: server.url, connections: 1 });
    const a = factory.client('token-a');
    const b = factory.client('token-b');
    await Promise.all([
      a.request({ method: 'GET', path: '/v2/account' }),
      b.request({ method: 'GET', path: '/v2/account' }),
    ]);
    await a.close();
    await b.request({ method: 'GET', path: '/v2/account' });
    expect(server.tokens.sort()).toEqual(['Bearer token-a', 'Bearer token-b', 'Bearer token-b']);
    expect(server.peers.size).toBe(1);
    await factory.close();
    await expect(b.request({ method: 'GET', path: '/v2/account' })).rejects.toThrow();
  });
});
