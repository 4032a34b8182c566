/**
 * Database passwords stay out of the CLI's output unless --show-secrets is given.
 */
import { describe, expect, it } from 'vitest';
import { cliRunner } from './testing/run.js';

const cli = cliRunner();
const create = ['--name', 'pg-secret', '--engine', 'pg', '--version', '16', '--region', 'nyc1'];
const sized = [...create, '--size', 'db-s-1vcpu-1gb', '--num_nodes', '1'];

describe('secrets in output', () => {
  it('are hidden by default and shown with --show-secrets, on either side of the tool name', async () => {
    const hidden = await cli.run(['--sandbox', 'db-cluster-create', ...sized]);
    expect(hidden.code).toBe(0);
    const id = (hidden.json as { database: { id: string } }).database.id;
    expect(hidden.stdout).toMatch(/"password": "\[hidden/);

    const shown = await cli.run(['--sandbox', '--show-secrets', 'db-cluster-get', '--id', id]);
    const password = (shown.json as { database: { connection: { password: string } } }).database.connection
      .password;
    expect(password).not.toMatch(/hidden/);
    expect(shown.stdout).toContain(`:${password}@`);

    const after = await cli.run(['db-cluster-get', '--id', id, '--sandbox', '--show-secrets']);
    expect(after.stdout).toContain(password);
    const plain = await cli.run(['db-cluster-get', '--id', id, '--sandbox']);
    expect(plain.stdout).not.toContain(password);
  });
});
