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
});
