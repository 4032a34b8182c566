/**
 * How the client reads the answers a platform, a proxy or the network can give: the error id for
 * a status whose body names none, messages from bodies that are not the API's, content types, the
 * bounds between success, redirect and error, nesting depth; which low-level failures count as
 * never sent (a POST retried) and which as timeouts; a deadline already passed or a cancel before
 * sending (nothing sent); and the order of a call's hooks. A stand-in API on loopback answers;
 * failures that loopback cannot make (a connect timeout) come from undici's MockAgent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, type ClientOptions, type RequestOptions } from './client.js';
import {
  CancelledError,
  ClientApiError,
  NetworkError,
  ServerApiError,
  TimeoutError,
  UnexpectedResponseError,
} from './errors.js';

const TOKEN = 'dop_v1_answers_test_token_0123456789abcdef';

type Answer = (res: ServerResponse) => void;

const servers: Server[] = [];
const clients: ApiClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** A stand-in API on loopback answering every request with `answer`; `seen` counts them. */
async function standIn(answer: Answer): Promise<{ url: string; seen: IncomingMessage[] }> {
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(req);
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** Backoff passes at once. */
const clock = () => {
  let now = 1_700_000_000_000;
  return {
    now: () => now,
    sleep: async (ms: number) => {
      now += ms;
    },
  };
};

function clientOf(url: string, options: Partial<ClientOptions> = {}): ApiClient {
  const client = new ApiClient({
    token: TOKEN,
    baseUrl: url,
    clock: clock(),
    retry: { maxAttempts: 1 },
    ...options,
  });
  clients.push(client);
  return client;
}

const raw =
  (status: number, body: string, headers: Record<string, string> = {}): Answer =>
  (res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

const failureOf = (client: ApiClient, options: Partial<RequestOptions> = {}) =>
  client.request({ method: 'GET', path: '/v2/account', ...options }).catch((error: unknown) => error);

describe('an error answer without the API body', () => {
  it('gets the id its status stands for', async () => {
    const ids: Record<number, string> = {
      400: 'bad_request',
      401: 'unauthorized',
      403: 'forbidden',
      404: 'not_found',
      409: 'bad_request',
      422: 'unprocessable_entity',
      429: 'too_many_requests',
      499: 'bad_request',
      500: 'server_error',
      503: 'server_error',
    };
    for (const [status, id] of Object.entries(ids)) {
      const api = await standIn(raw(Number(status), ''));
      const error = (await failureOf(clientOf(api.url))) as ClientApiError;
      expect(error.id, status).toBe(id);
      expect(error.status).toBe(Number(status));
      expect(error).toBeInstanceOf(Number(status) >= 500 ? ServerApiError : ClientApiError);
      expect(error.apiMessage).toBe(`HTTP ${status} with no message`);
    }
  });

  it("takes a proxy's text as the message, trimmed and cut at 200 characters", async () => {
    const short = await standIn(raw(502, '  Bad Gateway\n', { 'content-type': 'text/plain' }));
    expect(((await failureOf(clientOf(short.url))) as ServerApiError).apiMessage).toBe('Bad Gateway');
    const long = await standIn(raw(502, `<html>${'x'.repeat(300)}</html>`, { 'content-type': 'text/html' }));
    const message = ((await failureOf(clientOf(long.url))) as ServerApiError).apiMessage;
    expect(message).toHaveLength(200);
    expect(message).toBe(`<html>${'x'.repeat(193)}…`);
    const exact = await standIn(raw(502, 'y'.repeat(200)));
    expect(((await failureOf(clientOf(exact.url))) as ServerApiError).apiMessage).toBe('y'.repeat(200));
  });

  it('ignores fields that are not text, and cuts an id and a request id at 100 characters', async () => {
    const api = await standIn(
      raw(422, JSON.stringify({ id: 42, message: '', request_id: 'r'.repeat(150) }), {
        'content-type': 'application/json',
      }),
    );
    const error = (await failureOf(clientOf(api.url))) as ClientApiError;
    expect(error.id).toBe('unprocessable_entity');
    // An empty message is no message: the body's text stands in.
    expect(error.apiMessage).toBe(JSON.stringify({ id: 42, message: '', request_id: 'r'.repeat(150) }));
    expect(error.requestId).toBe(`${'r'.repeat(99)}…`);
    const longId = await standIn(raw(400, JSON.stringify({ id: 'i'.repeat(120), message: 'm' })));
    expect(((await failureOf(clientOf(longId.url))) as ClientApiError).id).toBe(`${'i'.repeat(99)}…`);
  });

  it('gives Retry-After in whole seconds, rounded up', async () => {
    const api = await standIn(raw(429, '', { 'retry-after': '1.2' }));
    const error = (await failureOf(clientOf(api.url))) as ClientApiError;
    expect(error.retryAfterSeconds).toBe(2);
    const none = await standIn(raw(429, ''));
    expect(((await failureOf(clientOf(none.url))) as ClientApiError).retryAfterSeconds).toBeUndefined();
  });
});

describe('a success answer', () => {
  it('takes JSON in any spelling of its type, +json types included', async () => {
    for (const type of [
      'application/json',
      'Application/JSON; charset=utf-8',
      ' application/json ;x=1',
      'application/problem+json',
    ]) {
      const api = await standIn(raw(200, '{"ok":true}', { 'content-type': type }));
      expect(await clientOf(api.url).request({ method: 'GET', path: '/v2/account' }), type).toEqual({
        ok: true,
      });
    }
  });

  it('refuses a body that is not JSON, naming what came', async () => {
    const html = await standIn(raw(200, '<html></html>', { 'content-type': 'text/html' }));
    const error = (await failureOf(clientOf(html.url))) as UnexpectedResponseError;
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error.id).toBe('unexpected_response');
    expect(error.apiMessage).toBe('the API answered HTTP 200 with content type text/html, not JSON');
    const jsonish = await standIn(raw(200, '{}', { 'content-type': 'application/jsonx' }));
    expect(((await failureOf(clientOf(jsonish.url))) as UnexpectedResponseError).id).toBe(
      'unexpected_response',
    );
    const untyped = await standIn(raw(200, '{}'));
    expect(((await failureOf(clientOf(untyped.url))) as UnexpectedResponseError).apiMessage).toBe(
      'the API answered HTTP 200 with content type none, not JSON',
    );
  });

  it('refuses an empty body where JSON was expected, naming the content type or its absence', async () => {
    const typed = await standIn(raw(200, '', { 'content-type': 'application/json' }));
    expect(((await failureOf(clientOf(typed.url))) as UnexpectedResponseError).apiMessage).toBe(
      'the API answered HTTP 200 with an empty body (content type application/json), where JSON was expected',
    );
    const untyped = await standIn(raw(201, ''));
    expect(((await failureOf(clientOf(untyped.url))) as UnexpectedResponseError).apiMessage).toBe(
      'the API answered HTTP 201 with an empty body (content type none), where JSON was expected',
    );
  });

  it('takes JSON nested as deep as the limit, and refuses one level more', async () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    const deep = await standIn(raw(200, nested(64), { 'content-type': 'application/json' }));
    expect(await clientOf(deep.url).request({ method: 'GET', path: '/v2/x' })).toBeDefined();
    const deeper = await standIn(raw(200, nested(65), { 'content-type': 'application/json' }));
    expect(((await failureOf(clientOf(deeper.url))) as UnexpectedResponseError).apiMessage).toMatch(
      /nested more than 64 levels deep/,
    );
  });
});

describe('the bounds between success, redirect and error', () => {
  it('treats a 3xx as an unexpected redirect, naming where to, and a 400 as an error', async () => {
    const moved = await standIn(raw(300, '', { location: 'http://elsewhere.invalid/v2' }));
    const redirect = (await failureOf(clientOf(moved.url))) as UnexpectedResponseError;
    expect(redirect).toBeInstanceOf(UnexpectedResponseError);
    expect(redirect.id).toBe('unexpected_redirect');
    expect(redirect.apiMessage).toBe(
      'the API answered with a redirect to http://elsewhere.invalid/v2; cloudcall does not follow redirects (check --api-url)',
    );
    const nowhere = await standIn(raw(399, ''));
    expect(((await failureOf(clientOf(nowhere.url))) as UnexpectedResponseError).apiMessage).toBe(
      'the API answered with a redirect; cloudcall does not follow redirects (check --api-url)',
    );
    const bad = await standIn(raw(400, ''));
    const error = await failureOf(clientOf(bad.url));
    expect(error).toBeInstanceOf(ClientApiError);
    expect(error).not.toBeInstanceOf(UnexpectedResponseError);
  });

  it('after a failed DELETE, takes a 404 as already gone; a first 404 stays an error', async () => {
    let calls = 0;
    const api = await standIn((res) => {
      calls += 1;
      res.writeHead(calls === 1 ? 503 : 404);
      res.end();
    });
    const client = clientOf(api.url, { retry: { maxAttempts: 3 } });
    const response = await client.send({ method: 'DELETE', path: '/v2/droplets/1' });
    expect(response).toMatchObject({ status: 404, alreadyGone: true, data: undefined });
    const first = await standIn(raw(404, ''));
    expect(
      await failureOf(clientOf(first.url, { retry: { maxAttempts: 3 } }), { method: 'DELETE' }),
    ).toBeInstanceOf(ClientApiError);
  });
});

describe('a call that cannot start', () => {
  it('gives up before sending when its deadline has passed', async () => {
    const api = await standIn(raw(200, '{}', { 'content-type': 'application/json' }));
    const client = clientOf(api.url);
    const error = (await failureOf(client, { deadline: 1_000 })) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.message).toMatch(/^GET \/v2\/account gave up at its deadline, after 0 ms$/);
    expect(api.seen).toHaveLength(0);
  });

  it('is cancelled before sending when its signal was already aborted', async () => {
    const api = await standIn(raw(200, '{}', { 'content-type': 'application/json' }));
    const controller = new AbortController();
    controller.abort();
    const error = await failureOf(clientOf(api.url), { signal: controller.signal });
    expect(error).toBeInstanceOf(CancelledError);
    expect(api.seen).toHaveLength(0);
  });
});

describe('low-level failures (MockAgent)', () => {
  const ORIGIN = 'http://api.test';

  /** A MockAgent failing the first `failures` requests with `error`, then answering 201. */
  function failing(error: Error, failures: number) {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: /.*/, method: /.*/ }).replyWithError(error).times(failures);
    pool
      .intercept({ path: /.*/, method: /.*/ })
      .reply(201, { ok: true }, { headers: { 'content-type': 'application/json' } });
    return agent;
  }

  const coded = (message: string, code: string | undefined, cause?: unknown) =>
    Object.assign(new Error(message, cause === undefined ? undefined : { cause }), code ? { code } : {});

  it('retries a POST that never connected, and reports a connect timeout as a timeout', async () => {
    const timeout = () => coded('Connect Timeout Error', 'UND_ERR_CONNECT_TIMEOUT');
    const retried = clientOf(ORIGIN, { dispatcher: failing(timeout(), 1), retry: { maxAttempts: 2 } });
    expect(await retried.request({ method: 'POST', path: '/v2/tags', body: {} })).toEqual({ ok: true });
    const error = (await failureOf(clientOf(ORIGIN, { dispatcher: failing(timeout(), 1) }), {
      method: 'POST',
      path: '/v2/tags',
    })) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.code).toBe('UND_ERR_CONNECT_TIMEOUT');
    expect(error.message).toBe(`POST ${ORIGIN}/v2/tags: could not connect in time`);
  });

  it('reports a headers or body timeout as a timeout', async () => {
    for (const code of ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']) {
      const error = (await failureOf(
        clientOf(ORIGIN, { dispatcher: failing(coded('late', code), 1) }),
      )) as TimeoutError;
      expect(error, code).toBeInstanceOf(TimeoutError);
      expect(error.code).toBe(code);
      expect(error.message).toBe(`GET ${ORIGIN}/v2/account: no response in time`);
    }
    const other = await failureOf(
      clientOf(ORIGIN, { dispatcher: failing(coded('other side closed', 'UND_ERR_SOCKET'), 1) }),
    );
    expect(other).toBeInstanceOf(NetworkError);
    expect(other).not.toBeInstanceOf(TimeoutError);
  });

  it("finds the code in the error's causes (past undici's generic UND_ERR), and names it once", async () => {
    const wrapped = coded(
      'fetch failed',
      'UND_ERR',
      coded('wrapper', undefined, coded('connect ECONNREFUSED', 'ECONNREFUSED')),
    );
    const retried = clientOf(ORIGIN, { dispatcher: failing(wrapped, 1), retry: { maxAttempts: 2 } });
    expect(await retried.request({ method: 'POST', path: '/v2/tags', body: {} })).toEqual({ ok: true });
    const error = (await failureOf(clientOf(ORIGIN, { dispatcher: failing(wrapped, 1) }))) as NetworkError;
    expect(error.code).toBe('ECONNREFUSED');
    expect(error.message).toBe(`GET ${ORIGIN}/v2/account: fetch failed (ECONNREFUSED)`);
    const named = (await failureOf(
      clientOf(ORIGIN, { dispatcher: failing(coded('connect ECONNREFUSED 1.2.3.4', 'ECONNREFUSED'), 1) }),
    )) as NetworkError;
    expect(named.message).toBe(`GET ${ORIGIN}/v2/account: connect ECONNREFUSED 1.2.3.4`);
    const codeless = (await failureOf(
      clientOf(ORIGIN, { dispatcher: failing(coded('odd', undefined), 1) }),
    )) as NetworkError;
    expect(codeless.code).toBeUndefined();
    expect(codeless.message).toBe(`GET ${ORIGIN}/v2/account: odd`);
  });

  it('looks four causes deep, no further, and never retries a POST whose failure has no code', async () => {
    let deep: Error = coded('bottom', 'ECONNREFUSED');
    for (let level = 0; level < 4; level++) deep = coded(`level ${level}`, undefined, deep);
    const error = (await failureOf(clientOf(ORIGIN, { dispatcher: failing(deep, 1) }))) as NetworkError;
    expect(error.code).toBeUndefined();
    const codeless = clientOf(ORIGIN, {
      dispatcher: failing(coded('odd', undefined), 1),
      retry: { maxAttempts: 2 },
    });
    expect(await failureOf(codeless, { method: 'POST', path: '/v2/tags' })).toBeInstanceOf(NetworkError);
  });
});

describe("a call's hooks", () => {
  it('run latest first before a mutating request, and hear its failure after', async () => {
    const api = await standIn(raw(500, ''));
    const heard: string[] = [];
    const client = clientOf(api.url)
      .forCall({
        beforeMutation: () => void heard.push('outer before'),
        afterMutation: (_request, outcome) => void heard.push(`outer after ${'error' in outcome}`),
      })
      .forCall({
        beforeMutation: () => void heard.push('inner before'),
        afterMutation: (_request, outcome) => void heard.push(`inner after ${'error' in outcome}`),
      });
    expect(await failureOf(client, { method: 'POST', path: '/v2/tags' })).toBeInstanceOf(ServerApiError);
    expect(heard).toEqual(['inner before', 'outer before', 'outer after true', 'inner after true']);
  });

  it('pass a read of the same call without running, and let a hook without callbacks be', async () => {
    const api = await standIn(raw(200, '{}', { 'content-type': 'application/json' }));
    const heard: string[] = [];
    const client = clientOf(api.url)
      .forCall({ beforeMutation: () => void heard.push('before') })
      .forCall({});
    expect(await client.request({ method: 'GET', path: '/v2/account' })).toEqual({});
    expect(
      await client.request({ method: 'HEAD', path: '/v2/account', noResponseBody: true }),
    ).toBeUndefined();
    expect(heard).toEqual([]);
    expect(await client.request({ method: 'PUT', path: '/v2/tags/x', body: {} })).toEqual({});
    expect(heard).toEqual(['before']);
    expect(api.seen.map((request) => request.method)).toEqual(['GET', 'HEAD', 'PUT']);
  });
});

describe('an answer that is text (a kubeconfig)', () => {
  it('is read as its text with responseText, asking for any type; without it, refused as not JSON', async () => {
    const yaml = 'apiVersion: v1\nkind: Config\n';
    const api = await standIn((res) => {
      res.writeHead(200, { 'content-type': 'application/yaml' });
      res.end(yaml);
    });
    const client = clientOf(api.url);
    const path = '/v2/kubernetes/clusters/x/kubeconfig';
    await expect(client.request({ method: 'GET', path, responseText: true })).resolves.toBe(yaml);
    expect(api.seen[0]?.headers.accept).toBe('*/*');
    await expect(client.request({ method: 'GET', path })).rejects.toBeInstanceOf(UnexpectedResponseError);
    expect(api.seen[1]?.headers.accept).toBe('application/json');
  });

  it('an error is still read as the API error it is', async () => {
    const api = await standIn((res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ id: 'not_found', message: 'The resource you were accessing could not be found.' }),
      );
    });
    const error = await clientOf(api.url)
      .request({ method: 'GET', path: '/v2/kubernetes/clusters/x/kubeconfig', responseText: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientApiError);
    expect(error).toMatchObject({ status: 404, id: 'not_found' });
  });
});
