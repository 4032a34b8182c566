/**
 * Choosing the tools a server offers, as a host would configure it: --read-only, --tools and
 * --exclude-tools with globs, and the same through CLOUDCALL_ variables. A call to a tool left out
 * is an isError result naming the flag; a glob that matches nothing stops start-up.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { call, refusedCall } from './testing/client.js';
import { exitOf, killAll, stdioClient } from './testing/main.js';

afterEach(killAll);

const names = async (client: Awaited<ReturnType<typeof stdioClient>>['client']) =>
  (await client.listTools()).tools.map((tool) => tool.name);

describe('--read-only', () => {
  it('lists only read-only tools, and refuses a destructive call naming the flag, sending nothing', async () => {
    const state = join(mkdtempSync(join(tmpdir(), 'cloudcall-ro-')), 'sandbox.json');
    // A writer makes a key; the read-only server must not be able to delete it.
    const writer = await stdioClient(['--sandbox', '--sandbox-state', state, '--families', 'account']);
    const created = await call(writer.client, 'key-create', {
      Name: 'laptop',
      PublicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGmY0cr0Vz0bq8ZqR4nJp3Kf0q3xv6cO6hQJ1m8a8v2x me@laptop',
    });
    await writer.close();
    const id = (created.json as { ssh_key: { id: number } }).ssh_key.id;

    const { client, close } = await stdioClient(['--sandbox', '--sandbox-state', state, '--read-only']);
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(40);
      expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
      expect(tools.map((tool) => tool.name)).not.toContain('key-delete');

      // Not offered, so unknown to the client: -32602, with the flag that hides it.
      const refused = await refusedCall(client, 'key-delete', { ID: id });
      expect(refused.code).toBe(-32602);
      expect(refused.message).toMatch(
        /key-delete is not available: hidden by --read-only \(CLOUDCALL_READ_ONLY\)/,
      );
      expect(refused.data).toMatchObject({ error_id: 'tool_hidden' });

      const still = await call(client, 'key-get', { ID: id });
      expect(still.json).toMatchObject({ ssh_key: { id, name: 'laptop' } });
    } finally {
      await close();
    }
  });

  it('is also CLOUDCALL_READ_ONLY=1, and a flag wins over its variable', async () => {
    const fromEnv = await stdioClient(['--sandbox'], { CLOUDCALL_READ_ONLY: '1' });
    try {
      expect(await names(fromEnv.client)).not.toContain('vm-delete');
    } finally {
      await fromEnv.close();
    }
    const bad = await exitOf(['--sandbox'], { CLOUDCALL_READ_ONLY: 'maybe' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/CLOUDCALL_READ_ONLY must be 1 or 0/);
  });
});

describe('--tools and --exclude-tools', () => {
  it('take names and globs', async () => {
    const { client, close } = await stdioClient([
      '--sandbox',
      '--tools',
      'vm-*,db-cluster-get-*,size-list',
      '--exclude-tools',
      'vm-delete*',
    ]);
    try {
      const listed = await names(client);
      expect(listed).toContain('vm-create');
      expect(listed).toContain('vm-list');
      expect(listed).toContain('db-cluster-get-ca');
      expect(listed).toContain('size-list');
      expect(listed).not.toContain('vm-delete');
      expect(listed).not.toContain('db-cluster-list');
      expect(listed.every((name) => /^(vm-|db-cluster-get-|size-list$)/.test(name))).toBe(true);

      const excluded = await refusedCall(client, 'vm-delete', { ID: 1 });
      expect(excluded.message).toMatch(/hidden by --exclude-tools \(CLOUDCALL_EXCLUDE_TOOLS\)/);
      const notIncluded = await refusedCall(client, 'key-list');
      expect(notIncluded.message).toMatch(/key-list is not available: not in --tools \(CLOUDCALL_TOOLS\)/);
      const listing = await call(client, 'size-list', { PerPage: 1 });
      expect(listing.isError).toBe(false);
    } finally {
      await close();
    }
  });

  it('read CLOUDCALL_TOOLS and CLOUDCALL_EXCLUDE_TOOLS', async () => {
    const { client, close } = await stdioClient(['--sandbox'], {
      CLOUDCALL_TOOLS: 'key-*',
      CLOUDCALL_EXCLUDE_TOOLS: 'key-delete',
    });
    try {
      expect((await names(client)).sort()).toEqual(['key-create', 'key-get', 'key-list']);
    } finally {
      await close();
    }
  });

  it('refuse a name or glob that matches no tool, with the closest names', async () => {
    const typo = await exitOf(['--sandbox', '--tools', 'vm-gett,image-*']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/--tools: vm-gett matches no tool \(did you mean vm-get/);
    const none = await exitOf(['--sandbox', '--tools', 'vm-*', '--exclude-tools', 'vm-*']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no tools left to serve/);
  });
});
