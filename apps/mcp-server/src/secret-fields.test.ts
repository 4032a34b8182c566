/**
 * Every field the API description marks secret (core's SECRET_FIELDS and URI_FIELDS, generated
 * from the OpenAPI subset) is hidden in what the server shows: a Kafka user's private access key,
 * passwords, the credentials in connection URIs, and a private key in a plan's request body. The
 * server runs against a sandbox this test reads directly, so the test knows the real values.
 */
import { HIDDEN, SECRET_FIELDS, URI_FIELDS } from '@cloudcall/core';
import { connectSandbox, SANDBOX_TOKEN, type SandboxConnection } from '@cloudcall/sandbox';
import { secretsIn } from '@cloudcall/testing';
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

const PRIVATE_KEY =
  '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC-mcp-canary\n-----END PRIVATE KEY-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';

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
        engine: 'kafka',
        version: '3.8',
        region: 'nyc3',
        size: 'db-s-1vcpu-1gb',
        num_nodes: 3,
      });
      const id = (kafka.json as { database: { id: string } }).database.id;
      const created = await call(client, 'db-cluster-create-user', { id, name: 'producer' });
      const got = await call(client, 'db-cluster-get-user', { id, user: 'producer' });
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
      const truth = await Promise.all([
        connection.client.request({ method: 'GET', path: `/v2/databases/${id}` }),
        connection.client.request({ method: 'GET', path: `/v2/databases/${id}/users/producer` }),
      ]);
      const secrets = secretsIn(truth, SECRET_FIELDS, URI_FIELDS);
      expect(new Set(secrets.map((secret) => secret.field))).toEqual(
        new Set(['password', 'access_key', 'uri']),
      );
      const text = shown.join('\n');
      for (const secret of secrets) expect(text, `${secret.field} shows`).not.toContain(secret.value);
      expect(text).not.toContain('mcp-canary');
      const user = (got.json as { user: Record<string, string> }).user;
      expect(user).toMatchObject({ password: HIDDEN, access_key: HIDDEN });
      expect(user.access_cert).toMatch(/^-----BEGIN CERTIFICATE-----/);
      expect((plan.json as { request: { body: Record<string, string> } }).request.body.private_key).toMatch(
        /^\[hidden/,
      );
    } finally {
      await close();
    }
  });
});
