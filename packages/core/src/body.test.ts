/**
 * readBody against a real HTTP server on loopback: whole bodies in one chunk or many, the limit,
 * and a client that goes away mid-body.
 */
import { createServer, type IncomingMessage, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readBody } from './body.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A server that hands each request's readBody outcome to `seen` and answers 200. */
async function serve(
  limit: number,
): Promise<{ port: number; seen: Promise<{ body?: Buffer; error?: Error }> }> {
  let report: (outcome: { body?: Buffer; error?: Error }) => void = () => undefined;
  const seen = new Promise<{ body?: Buffer; error?: Error }>((resolve) => {
    report = resolve;
  });
  const server = createServer((req: IncomingMessage, res) => {
    readBody(req, limit).then(
      (body) => {
        report(body === undefined ? {} : { body });
        res.setHeader('connection', 'close');
        res.end('ok');
      },
      (error: Error) => report({ error }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as AddressInfo).port, seen };
}

/** POSTs `parts` one write at a time (chunked), then ends the request unless `cut`. */
function post(port: number, parts: Buffer[], cut = false): Promise<void> {
  return new Promise((resolve) => {
    const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/' }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', () => resolve());
    for (const part of parts) req.write(part);
    if (cut) setTimeout(() => req.destroy(), 50);
    else req.end();
  });
}

describe('readBody', () => {
  it('reads a body of one chunk, and of many, byte for byte', async () => {
    const one = await serve(1024);
    await post(one.port, [Buffer.from('{"jsonrpc":"2.0"}')]);
    expect((await one.seen).body?.toString()).toBe('{"jsonrpc":"2.0"}');

    const many = await serve(1 << 20);
    const parts = Array.from({ length: 20 }, (_, i) => Buffer.alloc(3000, 97 + i));
    await post(many.port, parts);
    expect((await many.seen).body?.equals(Buffer.concat(parts))).toBe(true);
  });

  it('reads a body of exactly the limit, and gives undefined for one byte more', async () => {
    const exact = await serve(10);
    await post(exact.port, [Buffer.from('0123456789')]);
    expect((await exact.seen).body?.toString()).toBe('0123456789');

    const over = await serve(10);
    await post(over.port, [Buffer.from('01234'), Buffer.from('567890')]);
    expect(await over.seen).toEqual({});
  });

  it('rejects when the client goes away before the body ends', async () => {
    const server = await serve(1 << 20);
    await post(server.port, [Buffer.from('{"partial":')], true);
    const { error, body } = await server.seen;
    expect(body).toBeUndefined();
    expect(error).toBeInstanceOf(Error);
  });
});
