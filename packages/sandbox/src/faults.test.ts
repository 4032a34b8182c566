/**
 * Faults on request: 429s and other error statuses a test asks for, met once by whichever process
 * answers the request on the shared state file; request counts; a chosen request budget; and the
 * core client's retry rules against them.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient, ClientApiError } from '@cloudcall/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAULT_HEADER } from './faults.js';
import { type Sandbox, startSandbox } from './server.js';
import { Child, killChildren, requireBuilt } from './testing/processes.js';

const statePath = join(mkdtempSync(join(tmpdir(), 'cloudcall-faults-')), 'sandbox.json');
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ statePath });
});
afterEach(async () => {
  await sandbox.clearFaults();
  await sandbox.setRateLimit(undefined);
});
afterAll(async () => {
  await killChildren();
  await sandbox.close();
});

async function get(
  base: string,
  path: string,
  init: { method?: string; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: 'Bearer faults-test', ...init.headers },
    ...(init.method === 'POST' ? { body: '{}' } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

describe('injected faults', () => {
  it('answers the next matching request with a 429 in the platform shape, then serves again', async () => {
    const id = await sandbox.injectFault({
      status: 429,
      retryAfterSeconds: 1,
      method: 'GET',
      path: '/v2/account',
    });
    const before = Math.floor(Date.now() / 1000);
    const limited = await get(sandbox.url, '/v2/account');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      id: 'too_many_requests',
      message: 'API Rate limit exceeded.',
      request_id: limited.headers.get('x-request-id'),
    });
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('ratelimit-limit')).toBe('5000');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    const reset = Number(limited.headers.get('ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(before + 1);
    expect(reset).toBeLessThanOrEqual(before + 3);

    const served = await get(sandbox.url, '/v2/account');
    expect(served.status).toBe(200);
    expect(await sandbox.matchedRequests(id)).toBe(2);
  });

  it('matches by method and by path on whole segments, and answers `times` faults', async () => {
    const id = await sandbox.injectFault({ status: 503, method: 'GET', path: '/v2/account/keys/', times: 2 });
    expect((await get(sandbox.url, '/v2/account')).status).toBe(200);
    expect((await get(sandbox.url, '/v2/account/keys', { method: 'POST' })).status).toBe(422);
    const first = await get(sandbox.url, '/v2/account/keys?page=1');
    expect(first.status).toBe(503);
    expect(first.body.id).toBe('service_unavailable');
    expect(first.headers.get('retry-after')).toBeNull();
    expect((await get(sandbox.url, '/v2/account/keys/7')).status).toBe(503);
    expect((await get(sandbox.url, '/v2/account/keys/7')).status).toBe(404);
    expect(await sandbox.matchedRequests(id)).toBe(3);
  });

  it('counts requests with watchRequests, without answering any fault', async () => {
    const watch = await sandbox.watchRequests({ method: 'GET', path: '/v2/regions' });
    for (let i = 0; i < 3; i++) expect((await get(sandbox.url, '/v2/regions')).status).toBe(200);
    await get(sandbox.url, '/v2/sizes');
    expect(await sandbox.matchedRequests(watch)).toBe(3);
    expect(await sandbox.matchedRequests(9999)).toBe(0);
  });

  it('refuses a fault no platform would answer', async () => {
    await expect(sandbox.injectFault({ status: 200 })).rejects.toThrow(/error status/);
    await expect(sandbox.injectFault({ path: 'v2/account' })).rejects.toThrow(/starts with "\/"/);
    await expect(sandbox.injectFault({ times: -1 })).rejects.toThrow(/times/);
  });

  it(`answers the fault a request asks for in ${FAULT_HEADER}, and refuses a malformed one`, async () => {
    const asked = await get(sandbox.url, '/v2/account', {
      headers: { [FAULT_HEADER]: '429; retry-after=2' },
    });
    expect(asked.status).toBe(429);
    expect(asked.headers.get('retry-after')).toBe('2');
    expect(asked.body.id).toBe('too_many_requests');
    expect((await get(sandbox.url, '/v2/account', { headers: { [FAULT_HEADER]: '500' } })).body.id).toBe(
      'server_error',
    );
    const bad = await get(sandbox.url, '/v2/account', { headers: { [FAULT_HEADER]: '200' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/x-sandbox-fault header/);
  });

  it('is met by another process on the same state file, once', async () => {
    requireBuilt();
    const child = new Child(
      `const { startSandbox } = await import(process.argv[1]);
       const sandbox = await startSandbox({ statePath: process.argv[2] });
       console.log('url ' + sandbox.url);`,
      [statePath],
    );
    const url = (await child.line((line) => line.startsWith('url '))).slice(4);
    const id = await sandbox.injectFault({ retryAfterSeconds: 1, path: '/v2/account' });
    expect((await get(url, '/v2/account')).status).toBe(429);
    expect((await get(sandbox.url, '/v2/account')).status).toBe(200);
    expect((await get(url, '/v2/account')).status).toBe(200);
    expect(await sandbox.matchedRequests(id)).toBe(3);
    child.kill();
  });
});

describe('a chosen request budget', () => {
  it('is reported on every answer until cleared', async () => {
    await sandbox.setRateLimit({ remaining: 312, resetInSeconds: 60 });
    const now = Math.floor(Date.now() / 1000);
    for (const path of ['/v2/account', '/v2/account/keys/1']) {
      const reply = await get(sandbox.url, path);
      expect(reply.headers.get('ratelimit-limit')).toBe('5000');
      expect(reply.headers.get('ratelimit-remaining')).toBe('312');
      expect(Number(reply.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(now + 59);
    }
    await sandbox.setRateLimit(undefined);
    expect(
      Number((await get(sandbox.url, '/v2/account')).headers.get('ratelimit-remaining')),
    ).toBeGreaterThan(4000);
    await expect(sandbox.setRateLimit({ remaining: 6000 })).rejects.toThrow(/remaining/);
  });
});

describe('the core client against injected 429s', () => {
  let client: ApiClient;
  /** The client's waits: recorded, not slept (the sandbox's Retry-After is real seconds). */
  const slept: number[] = [];
  beforeAll(() => {
    client = new ApiClient({
      token: 'faults-test',
      baseUrl: sandbox.url,
      clock: { now: Date.now, sleep: async (ms) => void slept.push(ms) },
    });
  });
  beforeEach(() => {
    slept.length = 0;
  });
  afterAll(async () => {
    await client.close();
  });

  it('waits for Retry-After and retries a GET', async () => {
    const id = await sandbox.injectFault({ retryAfterSeconds: 1, method: 'GET', path: '/v2/account' });
    const { account } = await client.request<{ account: { status: string } }>({
      method: 'GET',
      path: '/v2/account',
    });
    expect(account.status).toBe('active');
    expect(slept).toEqual([1_000]);
    expect(await sandbox.matchedRequests(id)).toBe(2);
    expect(client.rateLimit?.remaining).toBeGreaterThan(0);
  });

  it('never retries a POST, and says when to try again', async () => {
    const id = await sandbox.injectFault({ retryAfterSeconds: 1, method: 'POST', path: '/v2/account/keys' });
    const error = (await client
      .request({ method: 'POST', path: '/v2/account/keys', body: { name: 'x', public_key: 'y' } })
      .catch((e: unknown) => e)) as ClientApiError;
    expect(error).toBeInstanceOf(ClientApiError);
    expect(error).toMatchObject({ status: 429, id: 'too_many_requests', retryAfterSeconds: 1 });
    expect(error.retryable).toBe(true);
    expect(client.rateLimit?.remaining).toBe(0);
    expect(slept).toEqual([]);
    expect(await sandbox.matchedRequests(id)).toBe(1);
  });
});
