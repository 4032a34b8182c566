/**
 * The account family as a library: the typed API bound to a client, against the sandbox.
 */
import { ClientApiError, InputError } from '@cloudcall/core';
import { connectSandbox, type SandboxConnection, sshPublicKey } from '@cloudcall/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountApi } from './index.js';

let connection: SandboxConnection;
beforeAll(async () => {
  connection = await connectSandbox();
});
afterAll(async () => {
  await connection.close();
});

describe('accountApi', () => {
  it('creates and reads keys with typed calls', async () => {
    const account = accountApi(connection.client);
    const { ssh_key } = await account.keyCreate({ Name: 'lib', PublicKey: sshPublicKey('lib@test') });
    expect(ssh_key.id).toBeGreaterThan(0);
    const listed = await account.keyList({ PerPage: 5 });
    expect(listed.ssh_keys.map((k) => k.id)).toContain(ssh_key.id);
    expect(listed.meta.total).toBe(1);
    const info = await account.accountGetInformation({});
    expect(info.account.status).toBe('active');
  });

  it('throws InputError before any request, and ClientApiError for platform errors', async () => {
    const account = accountApi(connection.client);
    // @ts-expect-error: ID must be a number; the runtime check catches untyped callers too.
    await expect(account.keyGet({ ID: 'x' })).rejects.toBeInstanceOf(InputError);
    const error = await account.keyGet({ ID: 424242 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientApiError);
    expect((error as ClientApiError).status).toBe(404);
  });
});
