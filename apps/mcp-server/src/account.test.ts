/**
 * Every account tool through a real MCP client, in process over the SDK's in-memory transport,
 * against the built-in sandbox; the start-up log and state kept between runs through the built
 * server over stdio.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sshPublicKey as publicKey } from '@cloudcall/sandbox';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, hintsOf, refusedCall } from './testing/client.js';
import { inProcessServer } from './testing/in-process.js';
import { killAll, stdioClient } from './testing/main.js';
import { waitForOutput } from './testing/process.js';

// Servers started through ./testing/main.js that a test left running.
afterAll(killAll);

let client: Client;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ client, close } = await inProcessServer({ families: 'account' }));
});
afterAll(async () => {
  await close();
});

describe('the account family over MCP stdio', () => {
  it('lists the twenty-two account tools, projects included (and the guard tools plan and audit-list), with their hints and input schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'account-get-information',
        'action-get',
        'action-list',
        'balance-get',
        'billing-history-list',
        'invoice-list',
        'invoice-get',
        'invoice-get-summary',
        'key-create',
        'key-delete',
        'key-get',
        'key-list',
        'project-list',
        'project-get',
        'project-get-default',
        'project-create',
        'project-update',
        'project-update-default',
        'project-delete',
        'project-list-resources',
        'project-assign-resources',
        'wait',
        'plan',
        'audit-list',
      ].sort(),
    );
    for (const tool of tools) {
      // A read-only tool says so; any other tool says whether it is destructive, default or not.
      if (tool.annotations?.readOnlyHint !== true) {
        expect(tool.annotations?.destructiveHint, tool.name).toEqual(expect.any(Boolean));
      }
      expect(tool.inputSchema.type).toBe('object');
    }
    const keyDelete = tools.find((t) => t.name === 'key-delete');
    expect(keyDelete?.annotations?.destructiveHint).toBe(true);
    expect(hintsOf(keyDelete ?? {}).idempotentHint).toBe(true);
    const keyList = tools.find((t) => t.name === 'key-list');
    expect(keyList?.annotations?.readOnlyHint).toBe(true);
    expect(keyList?.inputSchema.properties?.PerPage).toMatchObject({ default: 30 });
  });

  it('says it is in sandbox mode, in its instructions and its startup log', async () => {
    expect(client.getInstructions()).toMatch(/SANDBOX/);
    const built = await stdioClient(['--sandbox', '--families', 'account']);
    try {
      expect(built.client.getInstructions()).toMatch(/SANDBOX/);
      // The handshake is answered while the sandbox starts: its log line may follow the answer.
      await waitForOutput(built.stderr, /SANDBOX MODE/);
    } finally {
      await built.close();
    }
  });

  it('account-get-information and balance-get return the platform JSON', async () => {
    const info = await call(client, 'account-get-information');
    expect(info.isError).toBe(false);
    expect(info.json).toMatchObject({ account: { status: 'active', email: expect.stringContaining('@') } });
    const balance = await call(client, 'balance-get');
    expect(balance.json).toMatchObject({ month_to_date_usage: expect.stringMatching(/^\d+\.\d\d$/) });
  });

  it('billing-history-list and invoice-list page with links and meta.total', async () => {
    const history = await call(client, 'billing-history-list', { PerPage: 3 });
    const body = history.json as {
      billing_history: unknown[];
      links: { pages?: { next?: string } };
      meta: { total: number };
    };
    expect(body.billing_history).toHaveLength(3);
    expect(body.meta.total).toBeGreaterThan(3);
    expect(body.links.pages?.next).toContain('page=2');
    const invoices = await call(client, 'invoice-list', { Page: 1 });
    expect(invoices.json).toMatchObject({ invoices: expect.any(Array), invoice_preview: expect.any(Object) });
  });

  it("invoice-get pages an invoice's items; invoice-get-summary gives its totals", async () => {
    const list = (await call(client, 'invoice-list', {})).json as {
      invoices: { invoice_uuid: string; amount: string; invoice_period: string }[];
    };
    const [invoice] = list.invoices;
    if (!invoice) throw new Error('the sandbox has no invoice');
    const items = await call(client, 'invoice-get', { ID: invoice.invoice_uuid, PerPage: 2 });
    expect(items.isError, items.text).toBe(false);
    expect(items.json).toMatchObject({
      invoice_items: [{ amount: expect.stringMatching(/^\d+\.\d\d$/) }, expect.any(Object)],
      links: { pages: { next: expect.stringContaining('page=2') } },
    });
    const summary = await call(client, 'invoice-get-summary', { ID: invoice.invoice_uuid });
    expect(summary.json).toMatchObject({
      invoice_uuid: invoice.invoice_uuid,
      billing_period: invoice.invoice_period,
      amount: invoice.amount,
    });
    const bad = await call(client, 'invoice-get-summary', { ID: '2000123' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/ID/);
  });

  it('creates, gets, lists and deletes an SSH key', async () => {
    const created = await call(client, 'key-create', { Name: 'laptop', PublicKey: publicKey('me@laptop') });
    expect(created.isError).toBe(false);
    const key = (created.json as { ssh_key: { id: number; fingerprint: string; name: string } }).ssh_key;
    expect(key.name).toBe('laptop');
    expect(key.fingerprint).toMatch(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/);

    const got = await call(client, 'key-get', { ID: key.id });
    expect(got.json).toEqual({ ssh_key: key });

    const list = await call(client, 'key-list', {});
    expect((list.json as { ssh_keys: { id: number }[] }).ssh_keys.map((k) => k.id)).toContain(key.id);

    const deleted = await call(client, 'key-delete', { ID: key.id });
    expect(deleted.isError).toBe(false);
    const gone = await call(client, 'key-get', { ID: key.id });
    expect(gone.isError).toBe(true);
  });

  it('action-list and action-get answer (an empty account has no actions yet)', async () => {
    const list = await call(client, 'action-list', {});
    expect(list.json).toMatchObject({ actions: [], meta: { total: 0 } });
    const missing = await call(client, 'action-get', { ID: 12345 });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/404/);
  });
});

describe('errors come back as tool results', () => {
  it('an unknown id gives the platform message, error id and request id', async () => {
    const result = await call(client, 'key-get', { ID: 999999 });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(
      /^API error 404 \(not_found, request id [0-9a-f-]{36}\): .*could not be found/,
    );
  });

  it('a platform 422 keeps its message', async () => {
    const result = await call(client, 'key-create', { Name: 'bad', PublicKey: 'not a key' });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/422 \(unprocessable_entity/);
    expect(result.text).toMatch(/Key invalid/);
  });

  it('invalid arguments are refused before any request, naming the argument', async () => {
    const before = await call(client, 'key-list', {});
    const missing = await call(client, 'key-create', { Name: 'x' });
    expect(missing.isError).toBe(true);
    expect(missing.text.split('\n')[0]).toBe('Invalid arguments: argument PublicKey: is required');
    const wrongType = await call(client, 'key-get', { ID: 'seven' });
    expect(wrongType.isError).toBe(true);
    expect(wrongType.text).toMatch(/argument ID: expected number/);
    const wrongCase = await call(client, 'key-get', { id: 7 });
    expect(wrongCase.text).toMatch(/argument id: is not an argument/);
    const after = await call(client, 'key-list', {});
    expect(after.json).toEqual(before.json);
  });

  it('an unknown tool is the protocol error -32602 the specification lists, not a tool result', async () => {
    const refused = await refusedCall(client, 'key-explode', {});
    expect(refused).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/Unknown tool key-explode/),
      data: { error_id: 'unknown_tool', hint: expect.stringMatching(/tools\/list/) },
    });
    // A near miss names the tools meant.
    const typo = await refusedCall(client, 'key-lst', {});
    expect(typo.message).toMatch(/Did you mean key-list/);
  });
});

describe('--sandbox-state', () => {
  it('keeps the world in a file that a restarted server (or the CLI) sees', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'cloudcall-mcp-')), 'world.json');
    const first = await stdioClient(['--sandbox', '--sandbox-state', statePath]);
    const created = await call(first.client, 'key-create', {
      Name: 'kept',
      PublicKey: publicKey('kept@test'),
    });
    const id = (created.json as { ssh_key: { id: number } }).ssh_key.id;
    await first.close();
    expect(first.stderr()).toContain(`state in ${statePath}`);

    const second = await stdioClient(['--sandbox', '--sandbox-state', statePath]);
    const got = await call(second.client, 'key-get', { ID: id });
    await second.close();
    expect(got.json).toMatchObject({ ssh_key: { id, name: 'kept' } });
  });
});
