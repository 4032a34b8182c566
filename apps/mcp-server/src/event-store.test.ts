/**
 * The store of SSE events for resuming streams counts bytes (UTF-8), not characters, and bounds
 * every session together: on its own, then as the report's attack had it, the built server with
 * the 96 MiB heap of the report and 100 sessions of answers in a non-Latin script.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBudget, MAX_BYTES, SessionEventStore } from './event-store.js';
import { DEFAULT_MAX_EVENT_STORE_BYTES } from './service-flags.js';
import { httpRequest, killAll, openSession, startHttp } from './testing/process.js';
import { sample, scrape } from './testing/service.js';

let cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  killAll();
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A tool result as the server sends it, whose text is `text`. */
const answer = (id: number, text: string): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  result: { content: [{ type: 'text', text }] },
});

/** Chinese text: 3 bytes of UTF-8 a character. */
const HAN = '漢字';

describe('SessionEventStore', () => {
  it('counts UTF-8 bytes: a session keeps at most MAX_BYTES of them, whatever the script', async () => {
    const store = new SessionEventStore();
    const text = HAN.repeat(20_000); // 40,000 characters, 120,000 bytes
    const ids: string[] = [];
    for (let n = 0; n < 10; n++) ids.push(await store.storeEvent('s', answer(n, text)));
    const one = Buffer.byteLength(JSON.stringify(answer(9, text)));
    expect(one).toBeGreaterThan(3 * text.length);
    const kept = Math.floor(MAX_BYTES / one); // 4, where counting characters kept all 10
    expect(kept).toBe(4);
    // The newest four are kept, the older ones gone.
    const oldest = ids[10 - kept] as string;
    expect(await store.getStreamIdForEventId(oldest)).toBe('s');
    expect(await store.getStreamIdForEventId(ids[10 - kept - 1] as string)).toBeUndefined();
    const replayed: string[] = [];
    await store.replayEventsAfter(oldest, { send: async (id) => void replayed.push(id) });
    expect(replayed).toEqual(ids.slice(10 - kept + 1));
  });

  it('keeps every session together within the budget, the oldest events of any session going first; a closed session gives its bytes back', async () => {
    const text = HAN.repeat(10_000);
    const size = Buffer.byteLength(JSON.stringify(answer(1, text)));
    const budget = new EventBudget(3 * size);
    const first = new SessionEventStore(budget);
    const second = new SessionEventStore(budget);
    const a1 = await first.storeEvent('a', answer(1, text));
    const a2 = await first.storeEvent('a', answer(2, text));
    const b1 = await second.storeEvent('b', answer(3, text));
    expect(budget.bytes).toBe(3 * size);
    // A fourth event goes past the budget: the oldest of all (the first session's first) goes.
    const b2 = await second.storeEvent('b', answer(4, text));
    expect(budget.bytes).toBe(3 * size);
    expect(await first.getStreamIdForEventId(a1)).toBeUndefined();
    for (const [store, id] of [
      [first, a2],
      [second, b1],
      [second, b2],
    ] as const) {
      expect(await store.getStreamIdForEventId(id)).toBeDefined();
    }
    // A replay sends what was kept, parsed again from its text.
    const sent: JSONRPCMessage[] = [];
    await second.replayEventsAfter(b1, { send: async (_, message) => void sent.push(message) });
    expect(sent).toEqual([answer(4, text)]);
    second.clear();
    expect(budget.bytes).toBe(size);
    first.clear();
    expect(budget.bytes).toBe(0);
  });
});

/** The API stand-in: every SSH key it answers is named in Chinese, `chars` characters long. */
async function chineseApi(chars: number): Promise<{ url: string; close: () => Promise<void> }> {
  const name = HAN.repeat(chars / HAN.length);
  const server = createServer((req, res) => {
    const id = Number(/\/v2\/account\/keys\/(\d+)$/.exec(req.url ?? '')?.[1]);
    if (!id) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"id":"not_found","message":"no"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ssh_key: { id, name, fingerprint: 'f', public_key: 'ssh-ed25519 AAAA' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const SESSIONS = 100;
const CALLS = 5;

describe('the built server, under the heap of the report', () => {
  it(`${SESSIONS} sessions of answers in Chinese leave a server with a 96 MiB heap up, the store within its byte bound`, async () => {
    // Each answer holds the name twice (text and structuredContent): 120,000 characters, 360 KB
    // of UTF-8. Counted in characters, a session kept 4 of them (nearly 1 MiB of V8 strings),
    // and 100 sessions more than the heap.
    const api = await chineseApi(60_000);
    cleanup.push(api.close);
    const server = await startHttp(
      [
        ...['--transport', 'http', '--port', '0', '--api-url', api.url],
        ...['--families', 'account', '--allowed-hosts', '127.0.0.1'],
      ],
      { DIGITALOCEAN_API_TOKEN: 'server-token-0123456789' },
      ['--max-old-space-size=96'],
    );
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
    let crashed: number | null | undefined;
    void exited.then((code) => {
      crashed = code;
    });

    let call = 0;
    const session = async () => {
      const id = await openSession(server.url);
      for (let n = 0; n < CALLS; n++) {
        const got = await httpRequest(server.url, {
          body: {
            jsonrpc: '2.0',
            id: ++call,
            method: 'tools/call',
            params: { name: 'key-get', arguments: { ID: call } },
          },
          headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
        });
        expect(got.status).toBe(200);
        expect(got.text).toContain(HAN.repeat(100));
      }
    };
    // Ten sessions at a time, as clients come and go; none of them ever resumes or closes.
    for (let batch = 0; batch < SESSIONS / 10; batch++) {
      await Promise.all(Array.from({ length: 10 }, session));
      expect(crashed, server.output().slice(-2000)).toBeUndefined();
    }

    const metrics = await scrape(server.url);
    expect(sample(metrics, 'cloudcall_sessions_open')).toBe(SESSIONS);
    const kept = sample(metrics, 'cloudcall_event_store_bytes');
    expect(kept).toBeGreaterThan(DEFAULT_MAX_EVENT_STORE_BYTES / 2);
    expect(kept).toBeLessThanOrEqual(DEFAULT_MAX_EVENT_STORE_BYTES);
    expect((await fetch(new URL('/healthz', server.url))).status).toBe(200);
    expect(crashed).toBeUndefined();
    expect(server.output()).not.toMatch(/heap out of memory/i);
  }, 180_000);
});
