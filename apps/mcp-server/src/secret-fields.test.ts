/**
 * Every field the API description marks secret (core's SECRET_FIELDS and URI_FIELDS, generated
 * from the OpenAPI subset) is hidden in what the server shows: a Kafka user's private access key,
 * passwords, the credentials in connection URIs, and a private key in a plan's request body. The
 * server runs against a sandbox this test reads directly, so the test knows the real values.
 */
import { HIDDEN } from '@cloudcall/core';
import { SECRET_FIELDS, URI_FIELDS } from '@cloudcall/core/internal';
import { connectSandbox, SANDBOX_TOKEN, type SandboxConnection } from '@cloudcall/sandbox';
import { leaked, SECRET_SCENARIO, truthOf } from '@cloudcall/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './testing/client.js';
import { killAll, stdioClient } from './testing/main.js';

// Servers started through ./testing/main.js that a test left running.
afterAll(killAll);

let connection: SandboxConnection;
beforeAll(async () => {
  connection = await connectSandbox();
});
afterAll(() => connection.close());

const PRIVATE_KEY = SECRET_SCENARIO.privateKey('mcp-canary');
const CERT = SECRET_SCENARIO.certificate;
const { user } = SECRET_SCENARIO;

describe('secret fields from the API description', () => {
  it('are hidden in every result and plan that holds one, the Kafka access key included', async () => {
    const { client, close } = await stdioClient(
      ['--api-url', connection.sandbox.url, '--families', 'account,databases,networking'],
      {
        DIGITALOCEAN_API_TOKEN: SANDBOX_TOKEN,
      },
    );
    const shown: string[] = [];
    try {
      const kafka = await call(client, 'db-cluster-create', {
        name: 'kafka-secrets',
        ...SECRET_SCENARIO.cluster,
      });
      const id = (kafka.json as { database: { id: string } }).database.id;
      const created = await call(client, 'db-cluster-create-user', { id, name: user });
      const got = await call(client, 'db-cluster-get-user', { id, user });
      const cluster = await call(client, 'db-cluster-get', { id });
      const plan = await call(client, 'plan', {
        Tool: 'custom-certificate-create',
        Arguments: { Name: 'c', PrivateKey: PRIVATE_KEY, LeafCertificate: CERT, CertificateChain: CERT },
      });
      for (const result of [kafka, created, got, cluster, plan]) {
        expect(result.isError, result.text).toBe(false);
        shown.push(result.text, JSON.stringify(result.structured));
      }
      // What the platform holds, read past the server.
      const secrets = await truthOf(connection.client, id, SECRET_FIELDS, URI_FIELDS);
      expect(new Set(secrets.map((secret) => secret.field))).toEqual(
        new Set(['password', 'access_key', 'uri']),
      );
      const text = shown.join('\n');
      expect(leaked(text, secrets)).toEqual([]);
      expect(text).not.toContain('mcp-canary');
      const shownUser = (got.json as { user: Record<string, string> }).user;
      expect(shownUser).toMatchObject({ password: HIDDEN, access_key: HIDDEN });
      expect(shownUser.access_cert).toMatch(/^-----BEGIN CERTIFICATE-----/);
      expect((plan.json as { request: { body: Record<string, string> } }).request.body.private_key).toMatch(
        /^\[hidden/,
      );
    } finally {
      await close();
    }
  });
});
