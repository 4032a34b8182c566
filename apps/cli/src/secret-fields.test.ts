/**
 * Every field the API description marks secret (core's SECRET_FIELDS and URI_FIELDS, generated
 * from the OpenAPI subset) is hidden in the CLI's output: a Kafka user's private access key,
 * passwords, the credentials in connection URIs, and a private key in a dry run's request body.
 * The CLI runs against a sandbox this test reads directly, so the test knows the real values.
 */
import { HIDDEN } from '@cloudcall/core';
import { SECRET_FIELDS, URI_FIELDS } from '@cloudcall/core/internal';
import { connectSandbox, SANDBOX_TOKEN, type SandboxConnection } from '@cloudcall/sandbox';
import { leaked, SECRET_SCENARIO, truthOf } from '@cloudcall/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliRunner } from './testing/run.js';

const cli = cliRunner();
let connection: SandboxConnection;
beforeAll(async () => {
  connection = await connectSandbox();
});
afterAll(() => connection.close());

const PRIVATE_KEY = SECRET_SCENARIO.privateKey('cli-canary');
const CERT = SECRET_SCENARIO.certificate;
const { cluster, user } = SECRET_SCENARIO;

describe('secret fields from the API description', () => {
  it('are hidden in every output that holds one, the Kafka access key included', async () => {
    const env = { DIGITALOCEAN_API_TOKEN: SANDBOX_TOKEN };
    const at = ['--api-url', connection.sandbox.url];
    const kafka = await cli.run(
      [...at, 'db-cluster-create', '--name', 'kafka-cli', '--engine', cluster.engine].concat([
        ...['--version', cluster.version, '--region', cluster.region, '--size', cluster.size],
        ...['--num_nodes', String(cluster.num_nodes)],
      ]),
      env,
    );
    expect(kafka.code, kafka.stderr).toBe(0);
    const id = (kafka.json as { database: { id: string } }).database.id;
    const runs = [
      kafka,
      await cli.run([...at, 'db-cluster-create-user', '--id', id, '--name', user], env),
      await cli.run([...at, 'db-cluster-get-user', '--id', id, '--user', user], env),
      await cli.run([...at, 'db-cluster-get-user', '--id', id, '--user', user, '--output', 'table'], env),
      await cli.run([...at, 'db-cluster-get', '--id', id], env),
      await cli.run(
        [...at, 'custom-certificate-create', '--dry-run', '--Name', 'c', '--PrivateKey', PRIVATE_KEY].concat([
          '--LeafCertificate',
          CERT,
          '--CertificateChain',
          CERT,
          '--output',
          'json',
        ]),
        env,
      ),
    ];
    for (const run of runs) expect(run.code, `${run.stderr}${run.stdout}`).toBe(0);
    const secrets = await truthOf(connection.client, id, SECRET_FIELDS, URI_FIELDS);
    expect(new Set(secrets.map((secret) => secret.field))).toEqual(
      new Set(['password', 'access_key', 'uri']),
    );
    const text = runs.map((run) => run.stdout + run.stderr).join('\n');
    expect(leaked(text, secrets)).toEqual([]);
    expect(text).not.toContain('cli-canary');
    expect((runs[2]?.json as { user?: Record<string, string> } | undefined)?.user).toMatchObject({
      password: HIDDEN,
      access_key: HIDDEN,
    });
    expect(
      (runs[5]?.json as { request?: { body?: Record<string, string> } } | undefined)?.request?.body
        ?.private_key,
    ).toMatch(/^\[hidden/);
  });
});
