/**
 * The sandbox answering in the caller's process (what the CLI's `--sandbox` uses): the answers the
 * HTTP server gives, request for request, over the same state file, with core's client on top (its
 * retries, faults, cancel) and no socket opened.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApiClient,
  ApiError,
  CancelledError,
  type DispatchRequest,
  type DispatchResponse,
  type HttpMethod,
} from '@cloudcall/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectSandboxInProcess } from './connect.js';
import { sshPublicKey } from './fixtures.js';
import { IN_PROCESS_URL, openSandbox } from './in-process.js';
import { BODY_LIMIT } from './limits.js';
import { startSandbox } from './server.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  vi.restoreAllMocks();
});

const stateFile = () => join(mkdtempSync(join(tmpdir(), 'cloudcall-in-process-')), 'sandbox.json');

interface Sent {
  method: HttpMethod;
  target: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const bearer = { authorization: 'Bearer in-process-test' };

/** One request straight to an in-process sandbox's dispatcher, as core's client hands it over. */
async function inProcess(dispatch: (request: DispatchRequest) => Promise<DispatchResponse>, sent: Sent) {
  const signal = Object.assign(new EventEmitter(), { aborted: false, reason: undefined });
  const response = await dispatch({
    origin: IN_PROCESS_URL,
    path: sent.target,
    method: sent.method,
    headers: sent.headers ?? bearer,
    body: sent.body,
    signal,
    headersTimeout: 5_000,
    bodyTimeout: 5_000,
  });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

/** The same request over HTTP to a sandbox server, its target sent as it is (fetch would normalise it). */
function overHttp(base: string, sent: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${base}${sent.target.startsWith('/') ? '' : '/'}`, {
      method: sent.method,
      path: sent.target,
      headers: sent.headers ?? bearer,
    });
    request.on('error', reject);
    request.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text }),
      );
    });
    request.end(sent.body);
  });
}

/** What two answers to the same request must share: status, content type, error id, the body's shape. */
function shape(answer: Answer) {
  const body = answer.text === '' ? undefined : JSON.parse(answer.text);
  return {
    status: answer.status,
    contentType: answer.headers['content-type'],
    rateLimit: answer.headers['ratelimit-limit'],
    requestId: typeof answer.headers['x-request-id'],
    error: answer.status >= 400 ? body?.id : undefined,
    keys: body && typeof body === 'object' ? Object.keys(body).sort() : body,
  };
}

describe('a sandbox in this process', () => {
  it('answers each request as the HTTP server does', async () => {
    const server = await startSandbox();
    closers.push(server.close);
    const local = await openSandbox();
    const key = JSON.stringify({ name: 'parity', public_key: sshPublicKey() });
    const requests: Sent[] = [
      { method: 'GET', target: '/v2/account' },
      { method: 'GET', target: '/v2/account/keys?per_page=1' },
      { method: 'POST', target: '/v2/account/keys', body: key },
      { method: 'POST', target: '/v2/account/keys', body: JSON.stringify({ name: 'no key' }) },
      { method: 'POST', target: '/v2/account/keys', body: '{"name":' },
      { method: 'POST', target: '/v2/account/keys', body: '[]' },
      { method: 'GET', target: '/v2/account', headers: {} },
      { method: 'GET', target: '/v2/account', headers: { authorization: 'Basic x' } },
      { method: 'GET', target: '/v2/no-such-thing' },
      { method: 'DELETE', target: '/v2/account' },
      { method: 'GET', target: '/v2/account/keys/.%2e' },
      { method: 'GET', target: '/v2/droplets/999999' },
      { method: 'GET', target: '/v2/account', headers: { ...bearer, 'x-sandbox-fault': '503' } },
      { method: 'GET', target: '/v2/account', headers: { ...bearer, 'x-sandbox-fault': 'soon' } },
      { method: 'HEAD', target: '/v2/account' },
    ];
    const statuses = new Set<number>();
    for (const sent of requests) {
      const here = await inProcess(local.dispatcher.request, sent);
      const there = await overHttp(server.url, sent);
      expect(shape(here), `${sent.method} ${sent.target}`).toEqual(shape(there));
      statuses.add(here.status);
    }
    // Not every answer was the same kind: the list covers successes and refusals alike.
    expect([...statuses].sort()).toEqual([200, 201, 400, 401, 404, 405, 422, 503]);
  });

  it('answers HEAD without a body and a body over the limit with a 413 that changes nothing', async () => {
    const local = await openSandbox();
    const head = await inProcess(local.dispatcher.request, { method: 'HEAD', target: '/v2/account' });
    expect(head).toMatchObject({ status: 200, text: '' });
    expect(head.headers['content-type']).toMatch(/^application\/json/);

    const before = await local.store.read((world) => world.sshKeys.length);
    const huge = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT), public_key: sshPublicKey() });
    const refused = await inProcess(local.dispatcher.request, {
      method: 'POST',
      target: '/v2/account/keys',
      body: huge,
    });
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.text).id).toBe('payload_too_large');
    expect(await local.store.read((world) => world.sshKeys.length)).toBe(before);
  });

  it('shares its state file with a server, both ways, the clock included', async () => {
    const statePath = stateFile();
    const server = await startSandbox({ statePath });
    closers.push(server.close);
    const { client, clock, close } = await connectSandboxInProcess({ statePath });
    closers.push(close);
    const remote = new ApiClient({ token: 'other', baseUrl: server.url });
    closers.push(() => remote.close());

    const created = await client.request<{ ssh_key: { id: number } }>({
      method: 'POST',
      path: '/v2/account/keys',
      body: { name: 'made-in-process', public_key: sshPublicKey() },
    });
    const listed = await remote.request<{ ssh_keys: { id: number; name: string }[] }>({
      method: 'GET',
      path: '/v2/account/keys',
      query: { per_page: 200 },
    });
    expect(listed.ssh_keys).toContainEqual(
      expect.objectContaining({ id: created.ssh_key.id, name: 'made-in-process' }),
    );

    await remote.request({ method: 'DELETE', path: `/v2/account/keys/${created.ssh_key.id}` });
    await expect(
      client.request({ method: 'GET', path: `/v2/account/keys/${created.ssh_key.id}` }),
    ).rejects.toMatchObject({ status: 404, id: 'not_found' });

    const before = clock.now();
    await server.advanceClock(3_600_000);
    expect(clock.now() - before).toBeGreaterThanOrEqual(3_600_000);
  });

  it("meets the faults another process set, and core's client retries them", async () => {
    const statePath = stateFile();
    const server = await startSandbox({ statePath });
    closers.push(server.close);
    const { client, close } = await connectSandboxInProcess({
      statePath,
      client: { retry: { baseDelayMs: 1, maxDelayMs: 10 } },
    });
    closers.push(close);
    const watch = await server.watchRequests({ path: '/v2/account' });
    await server.injectFault({ method: 'GET', path: '/v2/account', status: 503, times: 2 });
    const account = await client.request<{ account: { email: string } }>({
      method: 'GET',
      path: '/v2/account',
    });
    expect(account.account.email).toEqual(expect.any(String));
    // Two faults, then the answer: three requests reached the sandbox, in this process.
    expect(await server.matchedRequests(watch)).toBe(3);

    await server.injectFault({ method: 'POST', path: '/v2/account/keys', status: 503 });
    const refused = client.request({
      method: 'POST',
      path: '/v2/account/keys',
      body: { name: 'never', public_key: sshPublicKey() },
    });
    // A POST is not repeated: the fault is the answer.
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ status: 503, attempts: 1 });
  });

  it('stops waiting when the caller cancels, as over HTTP', async () => {
    const { client, close } = await connectSandboxInProcess();
    closers.push(close);
    const cancelled = new AbortController();
    cancelled.abort();
    await expect(
      client.request({ method: 'GET', path: '/v2/account', signal: cancelled.signal }),
    ).rejects.toBeInstanceOf(CancelledError);
  });

  it('opens no socket and listens on nothing', async () => {
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const listen = vi.spyOn(net.Server.prototype, 'listen');
    const { client, sandbox, close } = await connectSandboxInProcess();
    closers.push(close);
    expect(sandbox.url).toBe(IN_PROCESS_URL);
    const keys = await client.request<{ ssh_keys: unknown[]; links: unknown }>({
      method: 'GET',
      path: '/v2/account/keys',
      query: { per_page: 1 },
    });
    expect(keys.ssh_keys).toBeInstanceOf(Array);
    expect(connect).not.toHaveBeenCalled();
    expect(listen).not.toHaveBeenCalled();
  });
});
