/**
 * Secrets stay out of what the server shows: database passwords unless it was started with
 * --show-secrets, and the API token (and credentials in --api-url) always, even when the API
 * echoes the token back in every field it can.
 */
import { ECHO_TOKEN, type EchoingApi, secretRuns, startEchoingApi } from '@cloudcall/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './testing/client.js';
import { inProcessServer } from './testing/in-process.js';
import { killAll, stdioClient } from './testing/main.js';

// Servers started through ./testing/main.js that a test left running.
afterAll(killAll);

const createArgs = {
  name: 'pg-secret',
  engine: 'pg',
  version: '16',
  region: 'nyc1',
  size: 'db-s-1vcpu-1gb',
  num_nodes: 1,
};

interface Created {
  database: { connection: { password: string; uri: string } };
}

describe('secrets in results', () => {
  it('are hidden by default, in fields and inside URIs, and the instructions say how to see them', async () => {
    const { client, close } = await inProcessServer({ families: 'databases' });
    try {
      const created = await call(client, 'db-cluster-create', createArgs);
      const { connection } = (created.json as Created).database;
      expect(connection.password).toMatch(/^\[hidden/);
      expect(connection.uri).toMatch(/^postgresql:\/\/doadmin:\[hidden[^@]*\]@/);
      // structuredContent is the same object: hidden there too.
      expect(created.structured).toEqual(created.json);
      expect(client.getInstructions()).toMatch(/--show-secrets/);
    } finally {
      await close();
    }
  });

  it('are shown with --show-secrets', async () => {
    const { client, close } = await inProcessServer({ families: 'databases', showSecrets: true });
    try {
      const created = await call(client, 'db-cluster-create', createArgs);
      const { connection } = (created.json as Created).database;
      expect(connection.password).not.toMatch(/hidden/);
      expect(connection.password.length).toBeGreaterThan(8);
      expect(connection.uri).toContain(`:${connection.password}@`);
      expect(created.structured).toEqual(created.json);
    } finally {
      await close();
    }
  });
});

describe('the API token', () => {
  let api: EchoingApi;
  beforeAll(async () => {
    api = await startEchoingApi();
  });
  afterAll(() => api.close());

  it('never appears, in any 8-character part, in results or logs when the API echoes it back', async () => {
    const password = 'url-password-0f9e8d7c';
    const apiUrl = api.url.replace('http://', `http://admin:${password}@`);
    const { client, stderr, close } = await stdioClient(['--api-url', apiUrl, '--families', 'account'], {
      DIGITALOCEAN_API_TOKEN: ECHO_TOKEN,
    });
    const results: string[] = [];
    try {
      const calls = [
        call(client, 'account-get-information'),
        call(client, 'key-get', { ID: 1 }),
        call(client, 'key-get', { ID: 2 }),
        call(client, 'key-list'),
        call(client, 'action-list'),
      ];
      const answered = await Promise.all(calls);
      expect(answered.map((result) => result.isError)).toEqual([true, true, true, false, true]);
      expect(answered[1]?.text).toMatch(
        /^API error 404 \(not_found:\[REDACTED\], request id req-\[REDACTED\]\)/,
      );
      expect(answered[2]?.text).toMatch(/request id \[REDACTED\]/);
      expect(answered[4]?.text).toMatch(/^API error 302 \(unexpected_redirect/);
      results.push(...answered.map((result) => `${result.text}\n${JSON.stringify(result.structured)}`));
      expect(answered[1]?.structured).toMatchObject({ status: 404, error_id: 'not_found:[REDACTED]' });
    } finally {
      await close();
    }
    const logs = stderr();
    expect(logs).toMatch(
      /using the API at http:\/\/127\.0\.0\.1:\d+ with the token from DIGITALOCEAN_API_TOKEN/,
    );
    expect(logs).toMatch(/tool key-get: API error 404/);
    const shown = [...results, logs].join('\n');
    expect(secretRuns(shown)).toEqual([]);
    expect(shown).not.toContain(password);
  });
});
