/**
 * The error hierarchy's own promises: how an API error reads (and what its summary adds), which
 * class a status gets, the causes kept, the wait errors' fields, and redaction.
 */
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  CancelledError,
  ClientApiError,
  describeError,
  InputError,
  NetworkError,
  redact,
  ServerApiError,
  TimeoutError,
  UnexpectedResponseError,
  WaitFailedError,
  WaitTimeoutError,
} from './errors.js';

const init = { status: 404, id: 'not_found', apiMessage: 'No such key.', method: 'GET', path: '/v2/keys/1' };

describe('ApiError', () => {
  it('reads as the message, the status, the id and the request id when there is one', () => {
    expect(new ApiError(init).message).toBe('No such key. (HTTP 404 not_found)');
    expect(new ApiError({ ...init, requestId: 'r-1' }).message).toBe(
      'No such key. (HTTP 404 not_found, request id r-1)',
    );
  });

  it('is a server error from 500 up, a client error below', () => {
    expect(ApiError.from({ ...init, status: 500 })).toBeInstanceOf(ServerApiError);
    expect(ApiError.from({ ...init, status: 499 })).toBeInstanceOf(ClientApiError);
    expect(ApiError.from({ ...init, status: 500 }).name).toBe('ServerApiError');
  });

  it('summarises, noting attempts and Retry-After only where they tell something', () => {
    expect(new ApiError(init).summary).toBe('API error 404 (not_found): No such key.');
    expect(new ApiError({ ...init, requestId: 'r-1' }).summary).toBe(
      'API error 404 (not_found, request id r-1): No such key.',
    );
    expect(new ApiError({ ...init, attempts: 2 }).summary).toBe(
      'API error 404 (not_found): No such key. (gave up after 2 attempts)',
    );
    expect(new ApiError({ ...init, status: 503, id: 'unavailable' }).summary).toBe(
      'API error 503 (unavailable): No such key. (gave up after 1 attempt)',
    );
    expect(new ApiError({ ...init, status: 429, id: 'too_many_requests', attempts: 3 }).summary).toBe(
      'API error 429 (too_many_requests): No such key. (gave up after 3 attempts; no Retry-After given)',
    );
    expect(new ApiError({ ...init, retryAfterSeconds: 7 }).summary).toBe(
      'API error 404 (not_found): No such key. (Retry-After said 7 s)',
    );
  });

  it('is retryable for rate limits and transient faults; an unexpected answer never is', () => {
    expect([429, 500, 502, 503, 504].map((status) => new ApiError({ ...init, status }).retryable)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect([400, 404, 501].map((status) => new ApiError({ ...init, status }).retryable)).toEqual([
      false,
      false,
      false,
    ]);
    const unexpected = new UnexpectedResponseError({ ...init, status: 503, contentType: 'text/html' });
    expect(unexpected.retryable).toBe(false);
    expect(unexpected.contentType).toBe('text/html');
  });
});

describe('InputError', () => {
  it('joins its issues, naming each argument, and names the first', () => {
    const error = new InputError([
      { argument: 'Name', message: 'is required' },
      { argument: '', message: 'something else' },
    ]);
    expect(error.message).toBe('argument Name: is required; something else');
    expect(error.argument).toBe('Name');
    expect(error.name).toBe('InputError');
    expect(error.kind).toBe('input');
  });

  it('takes a plain message, with or without the argument', () => {
    expect(new InputError('bad path', 'path').issues).toEqual([{ argument: 'path', message: 'bad path' }]);
    expect(new InputError('bad').issues).toEqual([{ argument: '', message: 'bad' }]);
    expect(new InputError('bad').argument).toBe('');
    expect(new InputError([]).argument).toBe('');
  });
});

describe('network and cancel errors', () => {
  it('keep their code and cause, and no cause when none was given', () => {
    const cause = new Error('read ECONNRESET');
    const error = new NetworkError('GET x: read ECONNRESET', { code: 'ECONNRESET', cause });
    expect(error.code).toBe('ECONNRESET');
    expect(error.cause).toBe(cause);
    expect('cause' in new NetworkError('x', { code: 'E' })).toBe(false);
    expect('cause' in new NetworkError('x')).toBe(false);
    expect(new NetworkError('x').code).toBeUndefined();
    expect(new TimeoutError('late').name).toBe('TimeoutError');
  });

  it('says what a cancel is', () => {
    expect(new CancelledError().message).toBe('The request was cancelled.');
    expect(new CancelledError().name).toBe('CancelledError');
    expect(new CancelledError('stopped').message).toBe('stopped');
  });
});

describe('wait errors', () => {
  const target = { kind: 'vm', id: '7' };

  it('a timeout can be waited out again, with what it last saw', () => {
    const cause = new Error('poll failed');
    const error = new WaitTimeoutError('vm 7 not ready', {
      target,
      lastObserved: { droplet: { status: 'new' } },
      lastStatus: 'new',
      waitedSeconds: 300,
      cause,
    });
    expect(error).toMatchObject({
      name: 'WaitTimeoutError',
      kind: 'timeout',
      retryable: true,
      target,
      lastStatus: 'new',
      waitedSeconds: 300,
      lastObserved: { droplet: { status: 'new' } },
    });
    expect(error.cause).toBe(cause);
    const bare = new WaitTimeoutError('x', {
      target,
      lastObserved: undefined,
      lastStatus: undefined,
      waitedSeconds: 1,
    });
    expect('cause' in bare).toBe(false);
  });

  it('a failure cannot', () => {
    const error = new WaitFailedError('action errored', {
      target,
      lastObserved: {},
      lastStatus: 'errored',
      waitedSeconds: 12,
    });
    expect(error).toMatchObject({
      name: 'WaitFailedError',
      kind: 'failed',
      retryable: false,
      lastStatus: 'errored',
      waitedSeconds: 12,
      target,
    });
  });
});

describe('redact', () => {
  it('removes every occurrence of each secret of four characters or more', () => {
    expect(redact('a-token and a-token', ['a-token'])).toBe('[REDACTED] and [REDACTED]');
    expect(redact('pass abcd', ['abcd', undefined, ''])).toBe('pass [REDACTED]');
    // Shorter values (an empty URL password, a one-letter user) would blank ordinary words.
    expect(redact('the cat', ['cat', 'a', ''])).toBe('the cat');
  });
});

describe('describeError', () => {
  it('gives one line for anything thrown, never [object Object]', () => {
    expect(describeError(new Error('boom'))).toBe('boom');
    expect(describeError(new TypeError(''))).toBe('TypeError');
    expect(describeError('plain text')).toBe('plain text');
    expect(describeError({ code: 7 })).toBe('{"code":7}');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(describeError(circular)).toBe('[object Object]');
    expect(describeError(10n)).toBe('10');
  });
});
