/**
 * Spaces keys and CDN endpoints through the CLI against its sandbox, whose state persists between
 * invocations, in doctl's words: `spaces keys create NAME --grants "bucket=...;permission=..."`
 * (the secret printed by the creation alone, also in its table), keys and endpoints named by name
 * or origin where ids are expected, and protected by each spelling, `compute cdn create ORIGIN
 * --ttl --domain --certificate-id`,
 * `compute cdn flush`, doctl's table columns, and the guard: deletes ask (refused without
 * --force off a terminal), a --protect rule refuses with nothing sent.
 */
import { describe, expect, it } from 'vitest';
import { cliRunner, type Json } from './testing/run.js';

const cli = cliRunner();
const { ok } = cli;

/** A table's rows, cells split on runs of two spaces or more. */
const rows = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));

describe('spaces keys through the CLI', () => {
  it("create with doctl's grants (the secret shown once), get and update by name, delete with --force", async () => {
    const created = await ok(
      'spaces',
      'keys',
      'create',
      'cli-key',
      '--grants',
      'bucket=assets;permission=readwrite',
    );
    const { access_key: id, secret_key: secret } = created.key;
    expect(id).toMatch(/^DO00[A-Z0-9]{16}$/);
    expect(secret).toMatch(/^[A-Za-z0-9+/]{40,}$/);
    expect(created.key.grants).toEqual([{ bucket: 'assets', permission: 'readwrite' }]);

    // Its table shows the secret too: the one time it can be read.
    const table = await cli.sandbox(
      'spaces',
      'keys',
      'create',
      'cli-table-key',
      '--grants',
      'permission=fullaccess',
      '-o',
      'table',
    );
    expect(table.code, table.stderr).toBe(0);
    const [head, row] = rows(table.stdout);
    expect(head).toEqual(['Name', 'Access Key', 'Secret Key', 'Grants', 'Created At']);
    expect(row?.slice(0, 1)).toEqual(['cli-table-key']);
    expect(row?.[2]).toMatch(/^[A-Za-z0-9+/]{40,}$/);
    expect(row?.[3]).toBe('bucket=;permission=fullaccess');

    // Everywhere else no secret: doctl's columns.
    const list = await cli.sandbox('spaces', 'keys', 'list', '-o', 'table');
    expect(list.code, list.stderr).toBe(0);
    const [listHead, ...listRows] = rows(list.stdout);
    expect(listHead).toEqual(['Name', 'Access Key', 'Grants', 'Created At']);
    expect(listRows.map((cells) => cells.slice(0, 3))).toContainEqual([
      'cli-key',
      id,
      'bucket=assets;permission=readwrite',
    ]);
    expect(list.stdout).not.toContain(secret);

    const got = await ok('spaces', 'keys', 'get', 'cli-key');
    expect(got.key).toMatchObject({ access_key: id, name: 'cli-key' });
    expect(JSON.stringify(got)).not.toContain(secret);
    const renamed = await ok('spaces', 'keys', 'update', 'cli-key', '--name', 'cli-key-2');
    expect(renamed.key).toMatchObject({ access_key: id, name: 'cli-key-2' });
    const regranted = await ok(
      'spaces',
      'keys',
      'update',
      id,
      '--grants',
      'bucket=assets;permission=read,bucket=logs;permission=readwrite',
    );
    expect(regranted.key.grants).toEqual([
      { bucket: 'assets', permission: 'read' },
      { bucket: 'logs', permission: 'readwrite' },
    ]);

    // Destructive: refused without --force when no one can be asked, and nothing changes.
    const unconfirmed = await cli.sandbox('spaces', 'keys', 'delete', 'cli-key-2');
    expect(unconfirmed.code).not.toBe(0);
    expect(unconfirmed.stderr).toContain('spaces-key-delete is destructive');
    expect((await ok('spaces-key-get', id)).key.name).toBe('cli-key-2');
    // A protection rule refuses even with --force, sending nothing.
    const protectedDelete = await cli.sandbox(
      'spaces',
      'keys',
      'delete',
      'cli-key-2',
      '--force',
      '--protect',
      'name:cli-key-2',
    );
    expect(protectedDelete.code).not.toBe(0);
    expect(protectedDelete.stderr).toContain(
      `spaces-key-delete refused: key cli-key-2 (id ${id}) is protected by rule name:cli-key-2 (--protect). Nothing was sent.`,
    );
    // Every spelling: a rule by access key refuses the call by name, a rule by name the call by
    // access key.
    for (const [given, rule] of [
      ['cli-key-2', `id:${id}`],
      [id, 'name:cli-key-2'],
      [id, `id:${id}`],
    ]) {
      const refused = await cli.sandbox('spaces', 'keys', 'delete', given, '--force', '--protect', rule);
      expect(refused.code, `${given} ${rule}`).toBe(2);
      expect(refused.stderr).toContain(`key cli-key-2 (id ${id}) is protected by rule ${rule} (--protect)`);
    }
    expect((await ok('spaces-key-get', id)).key.name).toBe('cli-key-2');
    expect(await ok('spaces', 'keys', 'delete', 'cli-key-2', '--force')).toEqual({ ok: true });
    const gone = await cli.sandbox('spaces', 'keys', 'get', 'cli-key-2');
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('no Spaces key has the id or name "cli-key-2"');
    for (const output of [unconfirmed, protectedDelete, gone]) {
      expect(output.stdout + output.stderr).not.toContain(secret);
    }
  }, 120_000);

  it("refuses bad grants before any request, in doctl's words", async () => {
    const unknownKey = await cli.sandbox(
      'spaces',
      'keys',
      'create',
      'bad',
      '--grants',
      'bucket=a1b;perm=read',
    );
    expect(unknownKey.code).not.toBe(0);
    expect(unknownKey.stderr).toContain(
      `unknown key "perm" in a grant; doctl's keys are bucket and permission`,
    );
    const noBucket = await cli.sandbox('spaces', 'keys', 'create', 'bad', '--grants', 'permission=read');
    expect(noBucket.code).not.toBe(0);
    expect(noBucket.stderr).toContain('is required with permission read');
    expect((await ok('spaces', 'keys', 'list', '--name', 'bad')).keys).toEqual([]);
  });
});

describe('CDN endpoints through the CLI', () => {
  it('create by origin, get, update and flush by origin, list as doctl, delete with --force', async () => {
    const origin = 'cli-assets.nyc3.digitaloceanspaces.com';
    const { endpoint }: Json = await ok('compute', 'cdn', 'create', origin, '--ttl', '600');
    expect(endpoint).toMatchObject({
      origin,
      endpoint: 'cli-assets.nyc3.cdn.digitaloceanspaces.com',
      ttl: 600,
    });
    expect((await ok('compute', 'cdn', 'get', origin)).endpoint.id).toBe(endpoint.id);

    await ok('domain-create', 'example.com');
    const { certificate } = await ok(
      'acme-certificate-create',
      '--name',
      'static',
      '--dns-names',
      'static.example.com',
    );
    const updated = await ok(
      'compute',
      'cdn',
      'update',
      origin,
      '--ttl',
      '86400',
      '--domain',
      'static.example.com',
      '--certificate-id',
      certificate.id,
    );
    expect(updated.endpoint).toMatchObject({
      ttl: 86400,
      custom_domain: 'static.example.com',
      certificate_id: certificate.id,
    });
    // By its custom domain too.
    expect((await ok('cdn', 'get', 'static.example.com')).endpoint.id).toBe(endpoint.id);

    const table = await cli.sandbox('compute', 'cdn', 'list', '-o', 'table');
    expect(table.code, table.stderr).toBe(0);
    const [head, row] = rows(table.stdout);
    expect(head).toEqual([
      'ID',
      'Origin',
      'Endpoint',
      'TTL',
      'Custom Domain',
      'Certificate ID',
      'Created At',
    ]);
    expect(row?.slice(0, 6)).toEqual([
      endpoint.id,
      origin,
      'cli-assets.nyc3.cdn.digitaloceanspaces.com',
      '86400',
      'static.example.com',
      certificate.id,
    ]);

    // doctl's flush: every file unless --files says which; destructive, so --force off a terminal.
    const unconfirmed = await cli.sandbox('compute', 'cdn', 'flush', origin);
    expect(unconfirmed.code).not.toBe(0);
    expect(unconfirmed.stderr).toContain('cdn-delete-cache is destructive');
    expect(await ok('compute', 'cdn', 'flush', origin, '--force')).toEqual({ ok: true });
    expect(await ok('compute', 'cdn', 'flush', origin, '--files', 'css/*,index.html', '--force')).toEqual({
      ok: true,
    });
    // The platform's refusal, with its message: the same purge again while the first runs.
    const again = await cli.sandbox(
      'compute',
      'cdn',
      'flush',
      origin,
      '--files',
      'css/*,index.html',
      '--force',
    );
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('an identical purge of this endpoint is in progress');

    const protectedDelete = await cli.sandbox(
      'compute',
      'cdn',
      'delete',
      origin,
      '--force',
      '--protect',
      `id:${endpoint.id}`,
    );
    expect(protectedDelete.code).not.toBe(0);
    expect(protectedDelete.stderr).toContain(
      `cdn-delete refused: endpoint ${origin} (id ${endpoint.id}) is protected by rule id:`,
    );
    expect(protectedDelete.stderr).toContain('Nothing was sent.');
    // Every spelling: by origin (a glob too) or custom domain, the call by id, origin or domain.
    for (const given of [endpoint.id, origin, 'static.example.com']) {
      for (const rule of [
        `name:${origin}`,
        'name:*.nyc3.digitaloceanspaces.com',
        'name:static.example.com',
      ]) {
        const refused = await cli.sandbox('compute', 'cdn', 'delete', given, '--force', '--protect', rule);
        expect(refused.code, `${given} ${rule}`).toBe(2);
        expect(refused.stderr).toContain(
          `cdn-delete refused: endpoint ${origin} (id ${endpoint.id}) is protected by rule ${rule} (--protect). Nothing was sent.`,
        );
      }
    }
    expect((await ok('cdn', 'get', endpoint.id)).endpoint.origin).toBe(origin);
    expect(await ok('compute', 'cdn', 'delete', origin, '--force')).toEqual({ ok: true });
    expect((await ok('compute', 'cdn', 'list')).endpoints).toEqual([]);
  }, 120_000);

  it('refuses a bad origin or TTL before any request', async () => {
    const origin = await cli.sandbox('compute', 'cdn', 'create', 'assets.example.com');
    expect(origin.code).not.toBe(0);
    expect(origin.stderr).toContain("expected a Space's host");
    const ttl = await cli.sandbox(
      'compute',
      'cdn',
      'create',
      'x1y.nyc3.digitaloceanspaces.com',
      '--ttl',
      '5',
    );
    expect(ttl.code).not.toBe(0);
    expect(ttl.stderr).toContain('must be 60, 600, 3600, 86400 or 604800');
  });
});
