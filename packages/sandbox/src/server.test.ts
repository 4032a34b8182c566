/**
 * The sandbox's HTTP conventions, over real HTTP on loopback: bearer auth, the platform's error
 * bodies, request ids, rate-limit headers, routing errors and pagination.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshPublicKey } from './fixtures.js';
import { type Sandbox, startSandbox } from './server.js';

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field.
  body: any;
}

interface CallOptions {
  method?: string;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is. */
  raw?: string;
  /** The whole Authorization header; null sends none. Default: a bearer token. */
  authorization?: string | null;
}

const TOKEN = `server-test-${randomUUID()}`;

async function call(base: string, path: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  const authorization = options.authorization === undefined ? `Bearer ${TOKEN}` : options.authorization;
  if (authorization !== null) headers.authorization = authorization;
  let body: string | undefined;
  if (options.json !== undefined) body = JSON.stringify(options.json);
  if (options.raw !== undefined) body = options.raw;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, { method: options.method ?? 'GET', headers, body });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: text === '' ? undefined : JSON.parse(text),
  };
}

/** The platform's error body, exactly: `{id, message, request_id}`, with the request id echoed. */
function expectPlatformError(reply: Reply, status: number, id: string): void {
  expect(reply.status).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(reply.body).sort()).toEqual(['id', 'message', 'request_id']);
  expect(reply.body.id).toBe(id);
  expect(typeof reply.body.message).toBe('string');
  expect(reply.body.message.length).toBeGreaterThan(0);
  expect(reply.body.request_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(reply.headers.get('x-request-id')).toBe(reply.body.request_id);
}

function expectRateLimitHeaders(reply: Reply): number {
  expect(reply.headers.get('ratelimit-limit')).toBe('5000');
  const remaining = Number(reply.headers.get('ratelimit-remaining'));
  expect(Number.isInteger(remaining)).toBe(true);
  expect(remaining).toBeGreaterThanOrEqual(0);
  expect(remaining).toBeLessThan(5000);
  const reset = Number(reply.headers.get('ratelimit-reset'));
  const nowSeconds = Date.now() / 1000;
  // Epoch seconds at the end of the current hourly window.
  expect(reset).toBeGreaterThan(nowSeconds);
  expect(reset).toBeLessThanOrEqual(Math.ceil(nowSeconds) + 3600);
  return remaining;
}

let sandbox: Sandbox;
let base: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
  base = sandbox.url;
});

afterAll(async () => {
  await sandbox.close();
});

describe('startSandbox', () => {
  it('listens on loopback on a free port', () => {
    expect(sandbox.port).toBeGreaterThan(0);
    expect(base).toBe(`http://127.0.0.1:${sandbox.port}`);
  });
});

describe('authentication', () => {
  const rejected: [string, string | null][] = [
    ['no Authorization header', null],
    ['an empty header', ''],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['Bearer without a token', 'Bearer'],
    ['a bare token', TOKEN],
    ['a token with a space in it', 'Bearer two words'],
  ];

  it.each(rejected)('answers 401 unauthorized to %s', async (_label, authorization) => {
    const reply = await call(base, '/v2/account', { authorization });
    expectPlatformError(reply, 401, 'unauthorized');
    expect(reply.body.account).toBeUndefined();
  });

  it('accepts any bearer token', async () => {
    const reply = await call(base, '/v2/account', { authorization: `Bearer ${randomUUID()}` });
    expect(reply.status).toBe(200);
    expect(reply.body.account.email).toEqual(expect.any(String));
  });

  it('checks the token before routing and before reading the body', async () => {
    expectPlatformError(await call(base, '/v2/no-such-thing', { authorization: null }), 401, 'unauthorized');
    expectPlatformError(
      await call(base, '/v2/account', { method: 'DELETE', authorization: null }),
      401,
      'unauthorized',
    );
    expectPlatformError(
      await call(base, '/v2/account/keys', { method: 'POST', raw: '{"name":', authorization: 'Basic x' }),
      401,
      'unauthorized',
    );
  });

  it('changes nothing for an unauthenticated write', async () => {
    const publicKey = sshPublicKey();
    const reply = await call(base, '/v2/account/keys', {
      method: 'POST',
      json: { name: 'sneaky', public_key: publicKey },
      authorization: null,
    });
    expectPlatformError(reply, 401, 'unauthorized');
    const keys = await call(base, '/v2/account/keys?per_page=200');
    expect(keys.body.ssh_keys.some((k: { public_key: string }) => k.public_key === publicKey)).toBe(false);

    // Deleting without a token leaves the key in place.
    const created = await call(base, '/v2/account/keys', {
      method: 'POST',
      json: { name: 'kept', public_key: publicKey },
    });
    expect(created.status).toBe(201);
    const path = `/v2/account/keys/${created.body.ssh_key.id}`;
    expectPlatformError(
      await call(base, path, { method: 'DELETE', authorization: null }),
      401,
      'unauthorized',
    );
    expect((await call(base, path)).status).toBe(200);
    expect((await call(base, path, { method: 'DELETE' })).status).toBe(204);
  });

  it('does not touch the state for an unauthenticated request', async () => {
    // With an unreadable state file, any request that reads the state fails; a 401 must not.
    const dir = mkdtempSync(join(tmpdir(), 'cloudcall-sandbox-auth-'));
    const statePath = join(dir, 'state.json');
    const own = await startSandbox({ statePath });
    try {
      writeFileSync(statePath, 'not json at all');
      expectPlatformError(await call(own.url, '/v2/account', { authorization: null }), 401, 'unauthorized');
      const authorized = await call(own.url, '/v2/account');
      expectPlatformError(authorized, 500, 'server_error');
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('request ids and rate-limit headers', () => {
  it('sends ratelimit-* and x-request-id on every kind of response', async () => {
    const created = await call(base, '/v2/account/keys', {
      method: 'POST',
      json: { name: 'headers', public_key: sshPublicKey() },
    });
    const replies: [string, Reply][] = [
      ['200', await call(base, '/v2/account')],
      ['201', created],
      ['204', await call(base, `/v2/account/keys/${created.body.ssh_key.id}`, { method: 'DELETE' })],
      ['400', await call(base, '/v2/account/keys', { method: 'POST', raw: '{' })],
      ['401', await call(base, '/v2/account', { authorization: null })],
      ['404', await call(base, '/v2/nothing-here')],
      ['405', await call(base, '/v2/account', { method: 'PATCH', json: {} })],
      [
        '422',
        await call(base, '/v2/account/keys', { method: 'POST', json: { name: 'x', public_key: 'nope' } }),
      ],
    ];
    const ids = new Set<string>();
    for (const [label, reply] of replies) {
      expect(String(reply.status), label).toBe(label);
      expectRateLimitHeaders(reply);
      const requestId = reply.headers.get('x-request-id');
      expect(requestId, label).toMatch(/^[0-9a-f-]{36}$/);
      ids.add(requestId as string);
      if (reply.status >= 400) expect(reply.body.request_id, label).toBe(requestId);
    }
    // A fresh id per request.
    expect(ids.size).toBe(replies.length);
  });

  it('counts down ratelimit-remaining per token', async () => {
    const token = `Bearer ${randomUUID()}`;
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) {
      seen.push(expectRateLimitHeaders(await call(base, '/v2/account', { authorization: token })));
    }
    expect(seen).toEqual([4999, 4998, 4997, 4996]);
    // Another token has its own budget; errors count too.
    const other = `Bearer ${randomUUID()}`;
    expect(expectRateLimitHeaders(await call(base, '/v2/nope', { authorization: other }))).toBe(4999);
    expect(expectRateLimitHeaders(await call(base, '/v2/account', { authorization: other }))).toBe(4998);
    expect(expectRateLimitHeaders(await call(base, '/v2/account', { authorization: token }))).toBe(4995);
  });

  it('echoes the request id of a 500 in x-request-id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudcall-sandbox-500-'));
    const statePath = join(dir, 'state.json');
    const own = await startSandbox({ statePath });
    try {
      writeFileSync(statePath, '{ broken');
      const reply = await call(own.url, '/v2/account/keys');
      expectPlatformError(reply, 500, 'server_error');
      expectRateLimitHeaders(reply);
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('routing errors', () => {
  it('answers 404 not_found for an unknown path', async () => {
    for (const path of ['/v2/nope', '/v2/account/keys/1/extra', '/', '/v3/account']) {
      expectPlatformError(await call(base, path), 404, 'not_found');
    }
    // A path that is no operation of the platform says the sandbox does not emulate it.
    const reply = await call(base, '/v2/nope');
    expect((reply.body as { message: string }).message).toBe(
      'The resource you were accessing could not be found: the sandbox does not emulate GET /v2/nope.',
    );
    // Every operation of the platform is answered, by a hand model or the generic layer.
    const clusters = await call(base, '/v2/kubernetes/clusters');
    expect(clusters.status).toBe(200);
    expect(clusters.body).toEqual({ kubernetes_clusters: [], links: {}, meta: { total: 0 } });
  });

  it('answers HEAD as GET, without the body', async () => {
    const head = await fetch(`${base}/v2/account`, {
      method: 'HEAD',
      headers: { authorization: 'Bearer x' },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await head.text()).toBe('');
    const missing = await fetch(`${base}/v2/droplets/1`, {
      method: 'HEAD',
      headers: { authorization: 'Bearer x' },
    });
    expect(missing.status).toBe(404);
  });

  it('answers 405 for a method the path does not take', async () => {
    for (const [method, path] of [
      ['DELETE', '/v2/account'],
      ['POST', '/v2/actions'],
      ['PATCH', '/v2/account/keys/1'],
      ['PUT', '/v2/customers/my/balance'],
    ] as const) {
      const reply = await call(base, path, { method, json: {} });
      expectPlatformError(reply, 405, 'method_not_allowed');
    }
  });

  it('answers 400 bad_request for a body that is not JSON, and creates nothing', async () => {
    const before = await call(base, '/v2/account/keys?per_page=200');
    for (const raw of ['{"name": "x", "public_key": ', 'not json', '[1, 2]', '"a string"']) {
      expectPlatformError(await call(base, '/v2/account/keys', { method: 'POST', raw }), 400, 'bad_request');
    }
    const after = await call(base, '/v2/account/keys?per_page=200');
    expect(after.body.meta.total).toBe(before.body.meta.total);
  });

  it('answers 400 bad_request for a path parameter that is not valid percent-encoding', async () => {
    expectPlatformError(await call(base, '/v2/account/keys/%E0%A4%A'), 400, 'bad_request');
  });

  it('accepts a trailing slash', async () => {
    const reply = await call(base, '/v2/account/');
    expect(reply.status).toBe(200);
    expect(reply.body.account).toBeDefined();
  });
});

describe('pagination', () => {
  let own: Sandbox;
  const ids: number[] = [];

  beforeAll(async () => {
    own = await startSandbox();
    for (let i = 0; i < 5; i++) {
      const reply = await call(own.url, '/v2/account/keys', {
        method: 'POST',
        json: { name: `page-key-${i}`, public_key: sshPublicKey() },
      });
      expect(reply.status).toBe(201);
      ids.push(reply.body.ssh_key.id);
    }
  });

  afterAll(async () => {
    await own.close();
  });

  const page = (n: number) => call(own.url, `/v2/account/keys?per_page=2&page=${n}`);
  const pageOf = (link: string) => {
    const url = new URL(link);
    expect(url.origin).toBe(own.url);
    expect(url.pathname).toBe('/v2/account/keys');
    expect(url.searchParams.get('per_page')).toBe('2');
    return Number(url.searchParams.get('page'));
  };

  it('cuts the list into pages of per_page with meta.total', async () => {
    const sizes: number[] = [];
    const seen: number[] = [];
    for (const n of [1, 2, 3]) {
      const reply = await page(n);
      expect(reply.status).toBe(200);
      expect(reply.body.meta).toEqual({ total: 5 });
      sizes.push(reply.body.ssh_keys.length);
      seen.push(...reply.body.ssh_keys.map((k: { id: number }) => k.id));
    }
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toEqual(ids);
  });

  it('links the first page forward only', async () => {
    const { pages } = (await page(1)).body.links;
    expect(Object.keys(pages).sort()).toEqual(['last', 'next']);
    expect(pageOf(pages.next)).toBe(2);
    expect(pageOf(pages.last)).toBe(3);
  });

  it('links a middle page both ways', async () => {
    const { pages } = (await page(2)).body.links;
    expect(Object.keys(pages).sort()).toEqual(['first', 'last', 'next', 'prev']);
    expect([pages.first, pages.prev, pages.next, pages.last].map(pageOf)).toEqual([1, 1, 3, 3]);
  });

  it('links the last page backward only', async () => {
    const { pages } = (await page(3)).body.links;
    expect(Object.keys(pages).sort()).toEqual(['first', 'prev']);
    expect(pages.next).toBeUndefined();
    expect(pageOf(pages.first)).toBe(1);
    expect(pageOf(pages.prev)).toBe(2);
  });

  it('walks every key by following next links', async () => {
    const seen: number[] = [];
    let reply = await page(1);
    for (let guard = 0; guard < 10; guard++) {
      seen.push(...reply.body.ssh_keys.map((k: { id: number }) => k.id));
      const next: string | undefined = reply.body.links.pages?.next;
      if (!next) break;
      reply = await call(own.url, new URL(next).pathname + new URL(next).search);
    }
    expect(seen).toEqual(ids);
  });

  it('has no page links when everything fits on one page', async () => {
    const reply = await call(own.url, '/v2/account/keys');
    expect(reply.body.ssh_keys).toHaveLength(5);
    expect(reply.body.links).toEqual({});
  });

  it('answers an empty page past the end, and 400 for a page that is not a number', async () => {
    const beyond = await page(9);
    expect(beyond.status).toBe(200);
    expect(beyond.body.ssh_keys).toEqual([]);
    expect(beyond.body.meta.total).toBe(5);
    expectPlatformError(await call(own.url, '/v2/account/keys?page=two'), 400, 'bad_request');
  });
});
