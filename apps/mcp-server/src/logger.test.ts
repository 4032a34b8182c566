/**
 * The HTTP server's JSON log: what it censors. (How it is written to stderr, buffered and
 * flushed at exit, is tested on the real process in service.test.ts.)
 */
import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, isoTime, requestLineWriter } from './logger.js';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return {
    stream,
    text: () => text,
    lines: () =>
      text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('the JSON log', () => {
  it('censors a token or an authorization header in the fields a line is given, wherever the paths name them', () => {
    const { stream, lines } = capture();
    const logger = createLogger({ quiet: false, stream });
    logger.info({ token: 'dop_v1_secret-one', authorization: 'Bearer secret-two' }, 'top level');
    logger.info({ headers: { authorization: 'Bearer secret-three', accept: 'application/json' } }, 'headers');
    logger.info({ req: { headers: { authorization: 'Bearer secret-four' } } }, 'request');
    const [top, headers, request] = lines();
    expect(top).toMatchObject({ token: '[redacted]', authorization: '[redacted]', msg: 'top level' });
    expect(headers).toMatchObject({ headers: { authorization: '[redacted]', accept: 'application/json' } });
    expect(request).toMatchObject({ req: { headers: { authorization: '[redacted]' } } });
    expect(JSON.stringify(lines())).not.toMatch(/secret-/);
  });

  it('leaves the fields it was given as they were (the censoring works on a copy)', () => {
    const { stream } = capture();
    const fields = { token: 'dop_v1_kept', headers: { authorization: 'Bearer kept' } };
    createLogger({ quiet: false, stream }).info(fields, 'line');
    expect(fields).toEqual({ token: 'dop_v1_kept', headers: { authorization: 'Bearer kept' } });
  });

  it('at --quiet writes errors only', () => {
    const { stream, lines } = capture();
    const logger = createLogger({ quiet: true, stream });
    logger.info('not this');
    logger.warn('nor this');
    logger.error('this');
    expect(lines().map((line) => line.msg)).toEqual(['this']);
  });
});

describe("a line's time", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is pino's isoTime at every millisecond, across seconds, minutes, days and years", () => {
    const times = [
      Date.UTC(2026, 10, 28, 3, 22, 45, 0),
      Date.UTC(2026, 10, 28, 3, 22, 45, 7),
      Date.UTC(2026, 10, 28, 3, 22, 45, 42),
      Date.UTC(2026, 10, 28, 3, 22, 45, 999),
      Date.UTC(2026, 10, 28, 3, 22, 46, 0),
      Date.UTC(2026, 10, 28, 3, 22, 46, 100),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1, 0, 0, 0, 1),
      // Back in time (the clock was set back): the second is made again.
      Date.UTC(2026, 10, 28, 3, 22, 45, 500),
    ];
    const now = vi.spyOn(Date, 'now');
    for (const time of times) {
      now.mockReturnValue(time);
      expect(isoTime()).toBe(pino.stdTimeFunctions.isoTime());
      expect(isoTime()).toBe(`,"time":"${new Date(time).toISOString()}"`);
    }
  });

  it('is the time a line is written', () => {
    const { stream, lines } = capture();
    const logger = createLogger({ quiet: false, stream });
    const before = Date.now();
    logger.info('now');
    const after = Date.now();
    const [line] = lines();
    const time = Date.parse(String(line?.time));
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(after);
  });
});

describe('a request line', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is the line pino writes for the same fields, whichever fields a request has', () => {
    vi.spyOn(Date, 'now').mockReturnValue(Date.UTC(2026, 10, 28, 4, 53, 42, 83));
    const ours = capture();
    const theirs = capture();
    const write = requestLineWriter(createLogger({ quiet: false, stream: ours.stream }));
    const pinoLogger = createLogger({ quiet: false, stream: theirs.stream });
    const lines = [
      {
        req_id: 'd3b07384-d113-4ec6-a8b5-5c1b2d7c9f00',
        tool: 'key-list',
        method: 'POST',
        path: '/mcp',
        status: 200,
        ms: 3,
      },
      // No tool (not a call), no method, a refusal; a request id with characters JSON escapes.
      { req_id: 'nginx"\\id', tool: undefined, method: undefined, path: '/mcp', status: 503, ms: 0 },
      { req_id: 'abc', tool: 'db-cluster-list', method: 'DELETE', path: '/mcp', status: 405, ms: 1234 },
    ];
    for (const line of lines) {
      write(line);
      const { tool, method, ...rest } = line;
      pinoLogger.info(
        {
          req_id: rest.req_id,
          ...(tool !== undefined && { tool }),
          method,
          path: rest.path,
          status: rest.status,
          ms: rest.ms,
        },
        'request',
      );
    }
    expect(ours.lines()).toHaveLength(lines.length);
    expect(ours.text()).toBe(theirs.text());
  });

  it('writes nothing when quiet (the log at error)', () => {
    const { stream, text } = capture();
    requestLineWriter(createLogger({ quiet: true, stream }))({
      req_id: 'a',
      tool: 'key-list',
      method: 'POST',
      path: '/mcp',
      status: 200,
      ms: 1,
    });
    expect(text()).toBe('');
  });
});
