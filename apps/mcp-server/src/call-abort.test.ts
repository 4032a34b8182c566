/**
 * A call's cancellation on the fast paths: it must behave as the AbortSignal it stands in for,
 * for what the call path does with one (the API client, sleeps), and stop a real request.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient, CancelledError } from '@cloudcall/core';
import { sleep } from '@cloudcall/core/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { CallAbort } from './call-abort.js';

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

describe("a call's cancellation", () => {
  it('tells each listener once, in the order added, with the reason an AbortController gives', () => {
    const abort = new CallAbort();
    const real = new AbortController();
    const heard: string[] = [];
    const first = () => heard.push('first');
    const second = { handleEvent: (event: Event) => heard.push(`second ${event.type}`) };
    const removed = () => heard.push('removed');
    for (const signal of [abort.signal, real.signal]) {
      signal.addEventListener('abort', first);
      signal.addEventListener('abort', first); // the same listener twice is there once
      signal.addEventListener('abort', second);
      signal.addEventListener('abort', removed);
      signal.removeEventListener('abort', removed);
      signal.addEventListener('other', removed);
    }
    expect(abort.signal.aborted).toBe(false);
    expect(() => abort.signal.throwIfAborted()).not.toThrow();
    abort.abort();
    real.abort();
    expect(heard).toEqual(['first', 'second abort', 'first', 'second abort']);
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBeInstanceOf(DOMException);
    expect((abort.signal.reason as DOMException).name).toBe((real.signal.reason as DOMException).name);
    expect(() => abort.signal.throwIfAborted()).toThrow(abort.signal.reason as Error);
    // Once only, and a listener added afterwards is not told.
    abort.abort(new Error('again'));
    abort.signal.addEventListener('abort', first);
    expect(heard).toHaveLength(4);
    expect((abort.signal.reason as DOMException).name).toBe('AbortError');
  });

  it('keeps the reason it is given, and a listener that throws keeps no other from hearing', async () => {
    const abort = new CallAbort();
    const heard: unknown[] = [];
    abort.signal.addEventListener('abort', () => {
      throw new Error('a listener fails');
    });
    abort.signal.addEventListener('abort', () => heard.push(abort.signal.reason));
    const thrown = new Promise<unknown>((resolve) => process.once('uncaughtException', resolve));
    const reason = new Error('the client closed the connection');
    abort.abort(reason);
    expect(heard).toEqual([reason]);
    expect(await thrown).toMatchObject({ message: 'a listener fails' });
  });

  it("ends core's sleep at once", async () => {
    const abort = new CallAbort();
    const started = Date.now();
    const slept = sleep(30_000, abort.signal).catch((error: unknown) => error);
    abort.abort(new Error('stop'));
    expect(await slept).toMatchObject({ message: 'stop' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('stops an API request the server holds, which then ends as cancelled', async () => {
    const abort = new CallAbort();
    // The request has reached the server, which never answers: cancel it then.
    const server = createServer(() => abort.abort(new Error('cancelled by the client')));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = new ApiClient({ token: 'dop_v1_test_token', baseUrl: `http://127.0.0.1:${port}` });
    const started = Date.now();
    const error = await client
      .request({ method: 'GET', path: '/v2/account', signal: abort.signal })
      .catch((e: unknown) => e);
    await client.close();
    expect(error).toBeInstanceOf(CancelledError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
