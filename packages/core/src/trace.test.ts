import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pageArgs, pageQuery } from './args.js';
import { ApiClient, type ClientEvent } from './client.js';
import { runAllPages } from './pagination.js';
import { annotations, defineTool } from './tool.js';
import { maskToken, traceLine } from './trace.js';

const TOKEN = 'dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab';

/** A list endpoint on loopback: 5 items, `links.pages.next` while more remain, a low budget. */
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const page = Number(url.searchParams.get('page'));
  const perPage = Number(url.searchParams.get('per_page'));
  const items = [1, 2, 3, 4, 5].slice((page - 1) * perPage, page * perPage).map((id) => ({ id }));
  const more = page * perPage < 5;
  res.writeHead(200, {
    'content-type': 'application/json',
    'x-request-id': `req-${page}`,
    'ratelimit-limit': '1000',
    'ratelimit-remaining': '10',
    'ratelimit-reset': String(Math.floor(Date.now() / 1000) + 100),
  });
  res.end(
    JSON.stringify({
      things: items,
      links: more ? { pages: { next: `http://x/v2/things?page=${page + 1}&per_page=${perPage}` } } : {},
      meta: { total: 5 },
    }),
  );
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const thingList = defineTool({
  name: 'thing-list',
  family: 'account',
  title: 'List things',
  description: 'Things.',
  input: z.strictObject({ ...pageArgs(2) }),
  annotations: annotations.read,
  request: { method: 'GET', path: '/v2/things', query: pageQuery },
});

describe('runAllPages', () => {
  it('follows links.pages.next, merges the items and waits between pages while the budget is low', async () => {
    const events: ClientEvent[] = [];
    const client = new ApiClient({ token: TOKEN, baseUrl: url, onEvent: (event) => events.push(event) });
    const pauses: number[] = [];
    const reports: string[] = [];
    const result = await runAllPages(
      thingList,
      { PerPage: 2 },
      {
        client,
        clock: { now: Date.now, sleep: async (ms) => void pauses.push(ms) },
        progress: (update) => reports.push(update.message),
      },
    );
    await client.close();
    expect(result).toEqual({ things: [1, 2, 3, 4, 5].map((id) => ({ id })), links: {}, meta: { total: 5 } });
    expect(events.filter((e) => e.type === 'request').map((e) => (e as { target: string }).target)).toEqual([
      '/v2/things?page=1&per_page=2',
      '/v2/things?page=2&per_page=2',
      '/v2/things?page=3&per_page=2',
    ]);
    // 10 requests left for about 100 s: about 10 s between pages.
    expect(pauses).toHaveLength(2);
    for (const pause of pauses) expect(pause).toBeGreaterThan(8_000);
    expect(reports[0]).toMatch(/^waiting \d+ s before page 2: API rate limit low: 10 of 1000 requests left/);
  });
});

describe('traceLine', () => {
  it('shows requests without the token and with secrets in the body masked', () => {
    const line = traceLine({
      type: 'request',
      method: 'POST',
      path: '/v2/certificates',
      target: '/v2/certificates',
      attempt: 1,
      body: { name: 'c', private_key: 'KEY-TEXT' },
    });
    expect(line).toBe(
      '> POST /v2/certificates authorization: Bearer [hidden] body {"name":"c","private_key":"[hidden: run with --show-secrets to see it]"}',
    );
  });

  it('shows responses with status, time, rate limit and request id', () => {
    const line = traceLine({
      type: 'response',
      method: 'GET',
      path: '/v2/account',
      target: '/v2/account',
      status: 200,
      attempt: 1,
      ms: 12,
      rateLimit: { limit: 5000, remaining: 4999, reset: 1_800_000_000 },
      requestId: 'abc',
    });
    expect(line).toBe(
      '< 200 GET /v2/account in 12 ms; ratelimit 4999/5000 reset 2027-01-15T08:00:00Z; request id abc',
    );
  });
});

describe('maskToken', () => {
  it('keeps the prefix and the last four characters only', () => {
    expect(maskToken(TOKEN)).toBe('dop_v1_****89ab');
    expect(maskToken('short-token')).toBe('****');
    expect(maskToken('abcdefghijklmnopqrstuvwxyz')).toBe('****wxyz');
  });
});
