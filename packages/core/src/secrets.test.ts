import { describe, expect, it } from 'vitest';
import { HIDDEN, maskSecrets } from './secrets.js';

describe('maskSecrets', () => {
  it('hides password fields and the password inside connection URIs, keeping the rest', () => {
    const cluster = {
      database: {
        name: 'pg1',
        connection: {
          uri: 'postgresql://doadmin:AVNS_abc123@pg1.example:25061/defaultdb?sslmode=require',
          user: 'doadmin',
          password: 'AVNS_abc123',
          port: 25061,
        },
        users: [
          { name: 'app', password: 'AVNS_zzz', mysql_settings: { auth_plugin: 'mysql_native_password' } },
        ],
      },
    };
    const masked = JSON.stringify(maskSecrets(cluster));
    expect(masked).not.toContain('AVNS_abc123');
    expect(masked).not.toContain('AVNS_zzz');
    expect(maskSecrets(cluster)).toMatchObject({
      database: {
        name: 'pg1',
        connection: {
          uri: `postgresql://doadmin:${HIDDEN}@pg1.example:25061/defaultdb?sslmode=require`,
          user: 'doadmin',
          password: HIDDEN,
          port: 25061,
        },
        users: [{ name: 'app', password: HIDDEN, mysql_settings: { auth_plugin: 'mysql_native_password' } }],
      },
    });
  });

  it('leaves values without secrets as they are', () => {
    const key = {
      ssh_key: { id: 1, public_key: 'ssh-ed25519 AAAA x', name: 'laptop' },
      links: {},
      url: 'https://a.example/x',
    };
    expect(maskSecrets(key)).toEqual(key);
    expect(maskSecrets(null)).toBeNull();
    expect(maskSecrets({ password: '' })).toEqual({ password: '' });
  });

  it('hides the credentials of the whole platform, and a secret name only where it is one', () => {
    const credentials = {
      kubernetes_cluster_config: {
        server: 'https://k8s.example',
        client_key_data: 'LS0tLS1CRUdJTg==',
        token: 't0k',
      },
      logsink: { server: 'logs.example', key: '-----BEGIN PRIVATE KEY-----\nx' },
      namespace: { uuid: 'ns-1', key: 'd1zcd455h01mqjfs' },
      app: { envs: [{ key: 'BASE_URL', value: 'https://x.example', scope: 'RUN_TIME' }] },
      taint: { key: 'priority', value: 'high', effect: 'NoSchedule' },
      completion: { token: 'Hello', logprob: -0.1 },
      spaces_key: { name: 'ci', access_key: 'DOACCESSKEYEXAMPLE', grants: [], secret_key: 's3cr3t' },
      kafka_user: { name: 'app', access_key: '-----BEGIN PRIVATE KEY-----\ny' },
      docker: { auths: { 'registry.example': { auth: 'dXNlcjpwYXNz' } } },
    };
    expect(maskSecrets(credentials)).toEqual({
      kubernetes_cluster_config: { server: 'https://k8s.example', client_key_data: HIDDEN, token: HIDDEN },
      logsink: { server: 'logs.example', key: HIDDEN },
      namespace: { uuid: 'ns-1', key: HIDDEN },
      app: { envs: [{ key: 'BASE_URL', value: 'https://x.example', scope: 'RUN_TIME' }] },
      taint: { key: 'priority', value: 'high', effect: 'NoSchedule' },
      completion: { token: 'Hello', logprob: -0.1 },
      spaces_key: { name: 'ci', access_key: 'DOACCESSKEYEXAMPLE', grants: [], secret_key: HIDDEN },
      kafka_user: { name: 'app', access_key: HIDDEN },
      docker: { auths: { 'registry.example': { auth: HIDDEN } } },
    });
  });

  it('leaves the fields a tool reveals, and only those, hiding the rest as ever', () => {
    const created = {
      key: { name: 'ci', access_key: 'DO00EXAMPLE', grants: [], secret_key: 's3cr3t', password: 'p' },
      others: [{ secret_key: 'nested' }],
    };
    expect(maskSecrets(created, ['secret_key'])).toEqual({
      key: { name: 'ci', access_key: 'DO00EXAMPLE', grants: [], secret_key: 's3cr3t', password: HIDDEN },
      others: [{ secret_key: 'nested' }],
    });
    expect(maskSecrets(created, [])).toEqual(maskSecrets(created));
    expect(JSON.stringify(maskSecrets(created))).not.toContain('s3cr3t');
  });
});
