/**
 * The HTTP server's JSON log: what it censors. (How it is written to stderr, buffered and
 * flushed at exit, is tested on the real process in service.test.ts.)
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return {
    stream,
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
