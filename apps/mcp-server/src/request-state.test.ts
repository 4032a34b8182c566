/**
 * The sealed state of a confirmation question: what a client holds between rounds. Every way of
 * changing it, making it, or keeping it past its time is refused; its contents cannot be read.
 */
import { randomBytes } from 'node:crypto';
import { redisConnection } from '@cloudcall/guard/redis';
import { type RedisServer, startRedisServer } from '@cloudcall/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  argumentsDigest,
  memorySpent,
  redisSpent,
  StateRefused,
  stateKey,
  stateSeal,
} from './request-state.js';

const QUESTION = { caller: 'alice', tool: 'vm-delete', args: argumentsDigest({ ID: 7 }), expected: 'web-1' };

describe('the state a confirmation question carries', () => {
  it('opens what it sealed, with an expiry and a nonce of its own', () => {
    let now = 1_000_000;
    const seal = stateSeal(randomBytes(32), { ttlMs: 60_000, now: () => now });
    const one = seal.seal(QUESTION);
    const two = seal.seal(QUESTION);
    expect(one).not.toBe(two);
    const opened = seal.open(one);
    expect(opened).toMatchObject({ ...QUESTION, expires: 1_060_000 });
    expect(opened.nonce).not.toBe(seal.open(two).nonce);
    now = 1_059_999;
    expect(seal.open(one).tool).toBe('vm-delete');
  });

  it('cannot be read: neither the name nor the caller appears in it', () => {
    const text = stateSeal(randomBytes(32)).seal(QUESTION);
    const bytes = Buffer.from(text.split('.')[1] ?? '', 'base64url').toString('latin1');
    for (const secret of ['web-1', 'alice', 'vm-delete']) {
      expect(text).not.toContain(secret);
      expect(bytes).not.toContain(secret);
    }
  });

  it('refuses every changed byte, a state sealed under another key, and made-up ones', () => {
    const key = randomBytes(32);
    const seal = stateSeal(key);
    const text = seal.seal(QUESTION);
    const [version, body = ''] = text.split('.');
    const bytes = Buffer.from(body, 'base64url');
    for (let at = 0; at < bytes.length; at++) {
      const changed = Buffer.from(bytes);
      changed[at] = (changed[at] ?? 0) ^ 0x01;
      expect(() => seal.open(`${version}.${changed.toString('base64url')}`)).toThrow(StateRefused);
    }
    expect(() => stateSeal(randomBytes(32)).open(text)).toThrow(/not made by this service/);
    for (const forged of [
      '',
      'v1.',
      `v2.${body}`,
      `${text}.x`,
      `v1.${Buffer.from(JSON.stringify(QUESTION)).toString('base64url')}`,
      `v1.${bytes.subarray(0, 20).toString('base64url')}`,
    ]) {
      expect(() => seal.open(forged)).toThrow(StateRefused);
    }
    // The same key, given again (as every replica is given it), opens it.
    expect(stateSeal(Buffer.from(key)).open(text).expected).toBe('web-1');
  });

  it('refuses a state once its time is up', () => {
    let now = 0;
    const seal = stateSeal(randomBytes(32), { ttlMs: 1000, now: () => now });
    const text = seal.seal(QUESTION);
    now = 1000;
    expect(() => seal.open(text)).toThrow(/expired/);
  });

  it('takes a key as base64, hex or text of 32 bytes or more, and refuses a short one', () => {
    const raw = randomBytes(32);
    expect(stateKey(raw.toString('base64'))).toEqual(raw);
    expect(stateKey(raw.toString('hex'))).toEqual(raw);
    expect(stateKey('a passphrase of thirty-two characters!')).toHaveLength(38);
    expect(stateKey(undefined)).toBeUndefined();
    expect(stateKey('')).toBeUndefined();
    expect(() => stateSeal(Buffer.from('short'))).toThrow(/at least 32 bytes/);
  });

  it('without a key seals under a random one of its own, which no other seal opens', () => {
    const mine = stateSeal(undefined);
    const text = mine.seal(QUESTION);
    expect(mine.open(text)).toMatchObject(QUESTION);
    expect(mine.open(mine.seal(QUESTION))).toMatchObject(QUESTION);
    expect(() => stateSeal(undefined).open(text)).toThrow(/not made by this service/);
  });

  it('digests arguments the same in any key order, and differently for any other value', () => {
    expect(argumentsDigest({ ID: 7, Force: true })).toBe(argumentsDigest({ Force: true, ID: 7 }));
    expect(argumentsDigest({ a: { x: 1, y: 2 } })).toBe(argumentsDigest({ a: { y: 2, x: 1 } }));
    const digests = [{ ID: 7 }, { ID: 8 }, { ID: '7' }, { ID: 7, Force: true }, {}, { ID: [7] }].map(
      argumentsDigest,
    );
    expect(new Set(digests).size).toBe(digests.length);
  });
});

describe('spent answers', () => {
  it('in this process: once, until the question would have expired', async () => {
    let now = 0;
    const spent = memorySpent(() => now);
    expect(await spent.spend('n1', 100)).toBe(true);
    expect(await spent.spend('n1', 100)).toBe(false);
    expect(await spent.spend('n2', 100)).toBe(true);
    now = 100;
    // Forgotten once expired: a state that old is refused before its nonce is looked at.
    expect(await spent.spend('n1', 200)).toBe(true);
  });

  describe('in Redis, for every replica', () => {
    let redis: RedisServer;
    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(() => redis?.stop());

    it('one spend wins among replicas racing with the same answer', async () => {
      const connections = [0, 1, 2].map(() => redisConnection({ url: redis.url }));
      try {
        const replicas = connections.map((connection) => redisSpent(connection));
        const expires = Date.now() + 60_000;
        const nonce = randomBytes(8).toString('hex');
        const results = await Promise.all(
          Array.from({ length: 30 }, (_, at) => replicas[at % 3]?.spend(nonce, expires)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await replicas[0]?.spend(randomBytes(8).toString('hex'), expires)).toBe(true);
      } finally {
        await Promise.all(connections.map((connection) => connection.close()));
      }
    });

    it('refuses to answer for a spend when Redis cannot be reached', async () => {
      const connection = redisConnection({ url: 'redis://127.0.0.1:1', timeoutMs: 300 });
      try {
        await expect(redisSpent(connection).spend('n', Date.now() + 1000)).rejects.toThrow(/Redis at/);
      } finally {
        await connection.close();
      }
    });
  });
});
