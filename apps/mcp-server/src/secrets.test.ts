/**
 * Database passwords stay out of tool results unless the server was started with --show-secrets.
 */
import { describe, expect, it } from 'vitest';
import { call, stdioClient } from './testing/client.js';

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
    const { client, close } = await stdioClient(['--sandbox', '--families', 'databases']);
    try {
      const created = await call(client, 'db-cluster-create', createArgs);
      const { connection } = (created.json as Created).database;
      expect(connection.password).toMatch(/^\[hidden/);
      expect(connection.uri).toMatch(/^postgresql:\/\/doadmin:\[hidden[^@]*\]@/);
      expect(client.getInstructions()).toMatch(/--show-secrets/);
    } finally {
      await close();
    }
  });

  it('are shown with --show-secrets', async () => {
    const { client, close } = await stdioClient(['--sandbox', '--families', 'databases', '--show-secrets']);
    try {
      const created = await call(client, 'db-cluster-create', createArgs);
      const { connection } = (created.json as Created).database;
      expect(connection.password).not.toMatch(/hidden/);
      expect(connection.password.length).toBeGreaterThan(8);
      expect(connection.uri).toContain(`:${connection.password}@`);
    } finally {
      await close();
    }
  });
});
