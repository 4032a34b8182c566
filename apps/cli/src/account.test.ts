/**
 * Every account tool through the CLI, run as a process against the sandbox, whose state
 * persists between invocations.
 */
import { existsSync } from 'node:fs';
import { sshPublicKey as publicKey, readStateFile } from '@cloudcall/sandbox';
import { describe, expect, it } from 'vitest';
import { cliRunner } from './testing/run.js';

const cli = cliRunner();
const sandbox = (...args: string[]) => cli.run(['--sandbox', ...args]);

describe('cloudcall with no arguments', () => {
  it('lists the families and their resources and exits 0; help <family> lists its tools', async () => {
    const result = await cli.run([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^ {2}account \(22\) +account, balance, billing-history, invoice, key, action, wait, project$/m,
    );
    expect(result.stdout).toMatch(/^ {2}vms \(\d+\) +vm, /m);
    const account = await cli.run(['help', 'account']);
    expect(account.stdout).toMatch(/Account \(22 tools\)/);
    expect(account.stdout).toMatch(/^\s+invoice-get-summary\s+Get invoice summary$/m);
    expect(account.stdout).toMatch(/^\s+key-create\s+Create SSH key$/m);
    expect((await cli.run(['help', 'images'])).stdout).toMatch(/^\s+region-list\s+List regions$/m);
  });

  it('generates a tool’s help from its definition', async () => {
    const result = await cli.run(['key-create', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Adds an SSH public key/);
    expect(result.stdout).toMatch(/--name <value>.*\(required\)/s);
    expect(result.stdout).toMatch(/--public-key <value>/);
    const list = await cli.run(['key-list', '--help']);
    expect(list.stdout).toMatch(/--per-page <value>.*default 30/s);
    const del = await cli.run(['key-delete', '--help']);
    expect(del.stdout).toMatch(/DESTRUCTIVE/);
  });
});

describe('account tools against the sandbox', () => {
  it('keeps sandbox state between commands, under the config directory', async () => {
    const created = await sandbox('key-create', '--Name', 'laptop', '--PublicKey', publicKey('me@laptop'));
    expect(created.code).toBe(0);
    const key = (created.json as { ssh_key: { id: number; name: string } }).ssh_key;
    expect(key.name).toBe('laptop');
    expect(existsSync(cli.statePath)).toBe(true);

    const got = await sandbox('key-get', '--ID', String(key.id));
    expect(got.code).toBe(0);
    expect(got.json).toMatchObject({ ssh_key: { id: key.id, name: 'laptop' } });

    const listed = await sandbox('key-list');
    expect((listed.json as { ssh_keys: { id: number }[] }).ssh_keys.map((k) => k.id)).toContain(key.id);

    const deleted = await sandbox('key-delete', '--force', '--ID', String(key.id));
    expect(deleted.code).toBe(0);
    const gone = await sandbox('key-get', '--ID', String(key.id));
    expect(gone.code).toBe(3);
    expect((readStateFile(cli.statePath) as { sshKeys: unknown[] }).sshKeys).toEqual([]);
  });

  it('reads account information, balance, billing history, invoices and actions', async () => {
    const info = await sandbox('account-get-information');
    expect(info).toMatchObject({ code: 0, json: { account: { status: 'active' } } });
    const balance = await sandbox('balance-get');
    expect(balance.json).toMatchObject({ account_balance: expect.any(String) });
    const history = await sandbox('billing-history-list', '--PerPage', '2', '--Page', '2');
    expect(history.json).toMatchObject({
      billing_history: expect.any(Array),
      meta: { total: expect.any(Number) },
    });
    expect((history.json as { billing_history: unknown[] }).billing_history).toHaveLength(2);
    const invoices = await sandbox('invoice-list');
    expect(invoices.json).toMatchObject({ invoices: expect.any(Array) });
    const [invoice] = (invoices.json as { invoices: { invoice_uuid: string; amount: string }[] }).invoices;
    const items = await sandbox('invoice-get', '--ID', invoice?.invoice_uuid ?? '', '--PerPage', '2');
    expect(items).toMatchObject({
      code: 0,
      json: { invoice_items: [expect.any(Object), expect.any(Object)] },
    });
    const summary = await sandbox('invoice-get-summary', '--ID', invoice?.invoice_uuid ?? '');
    expect(summary.json).toMatchObject({ invoice_uuid: invoice?.invoice_uuid, amount: invoice?.amount });
    const actions = await sandbox('action-list');
    expect(actions.json).toMatchObject({ actions: expect.any(Array), meta: { total: expect.any(Number) } });
    const action = await sandbox('action-get', '--ID', '1');
    expect(action.code).toBe(3);
    expect(action.stderr).toMatch(/API error 404 \(not_found, request id [0-9a-f-]+\)/);
  });

  it('prints a table with --output table', async () => {
    const result = await sandbox('--output', 'table', 'billing-history-list', '--PerPage', '3');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Date {2,}Type {2,}Description {2,}Amount$/m);
    expect(result.stdout).toMatch(/3 shown of \d+; more on page 2 \(--page 2\)/);
    expect(result.stdout).not.toContain(String.fromCharCode(27));
  });
});

describe('exit codes', () => {
  it('2 for invalid input, naming the argument, before any request', async () => {
    const wrongType = await sandbox('key-get', '--ID', 'seven');
    expect(wrongType.code).toBe(2);
    expect(wrongType.stderr).toMatch(/--ID: expected a number, got "seven"/);
    const missing = await sandbox('key-create', '--Name', 'x');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--public-key: is required/);
    const unknownFlag = await sandbox('key-list', '--Pgae', '2');
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toMatch(/unknown flag --Pgae/);
    const unknownTool = await cli.run(['key-explode']);
    expect(unknownTool.code).toBe(2);
  });

  it('2 with a how-to-fix message when there is no token and no --sandbox', async () => {
    const result = await cli.run(['balance-get']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/DIGITALOCEAN_API_TOKEN/);
    expect(result.stderr).toMatch(/--sandbox/);
  });

  it('3 for an API error, with the platform message', async () => {
    const result = await sandbox('key-create', '--Name', 'x', '--PublicKey', 'ssh-rsa nonsense');
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/API error 422 \(unprocessable_entity.*Key invalid/);
  });

  it('4 for a network error, without leaking the token', async () => {
    const token = 'dop_v1_cli_test_secret_0123456789abcdef';
    const result = await cli.run(['--api-url', 'http://127.0.0.1:9', 'balance-get'], {
      DIGITALOCEAN_API_TOKEN: token,
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/network error/);
    expect(result.stderr + result.stdout).not.toContain(token);
  });
});

describe('typos', () => {
  it('suggests the tool or flag meant', async () => {
    const tool = await cli.run(['key-lst']);
    expect(tool.code).toBe(2);
    expect(tool.stderr).toMatch(/unknown command 'key-lst'\n\(Did you mean key-list\?\)/);
    const flag = await cli.run(['--sandbox', 'key-list', '--PerPag', '3']);
    expect(flag.stderr).toMatch(/unknown flag --PerPag \(did you mean --per-page\?\)/);
  });
});

describe('options after the tool name', () => {
  it('belong to the tool (its own --version), while connection options work on either side', async () => {
    const created = await cli.run([
      'db-cluster-create',
      '--sandbox',
      '--name',
      'pg-options',
      '--engine',
      'pg',
      '--version',
      '16',
      '--region',
      'nyc1',
      '--size',
      'db-s-1vcpu-1gb',
      '--num_nodes',
      '1',
    ]);
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({ database: { name: 'pg-options', version: '16' } });
    const table = await cli.run(['key-list', '--sandbox', '--output', 'table']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^(No SSH keys\.|ID {2,}Name {2,}Fingerprint)$/m);
    const version = await cli.run(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
