/**
 * Every account endpoint the tools use answers what the platform's OpenAPI description declares,
 * success and error alike. The subset's success schemas rarely require their top-level key (an
 * empty `{}` would pass), so each test also asserts the key and its content.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  assertValidResponse,
  responseContentTypes,
  subset,
  validateResponse,
} from '@cloudcall/openapi-subset';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshPublicKey } from './fixtures.js';
import { type Sandbox, startSandbox } from './server.js';
import { type CallOptions, callOperation, type Reply, steppingClock } from './testing/operations.js';
import { startAction } from './world.js';

const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const MONEY = /^-?\d+\.\d{2}$/;

/** A real OpenSSH ed25519 public key and its MD5 fingerprint, computed independently of the sandbox. */
function sshKeyPair(): { publicKey: string; fingerprint: string } {
  const publicKey = sshPublicKey();
  const blob = Buffer.from(publicKey.split(' ')[1] ?? '', 'base64');
  const hex = createHash('md5').update(blob).digest('hex');
  return { publicKey, fingerprint: hex.replace(/(..)(?!$)/g, '$1:') };
}

let sandbox: Sandbox;
/** The sandbox's clock, and this file's for what it writes into the world directly: it moves with advanceClock, not with real time. */
const now = steppingClock();

/** RFC 4180 rows (CRLF line ends, quoted fields with doubled quotes); written apart from the sandbox's writer. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else if (c === '"' || c === '\n' || c === '\r') throw new Error(`stray ${JSON.stringify(c)} at ${i}`);
    else field += c;
  }
  if (quoted || field !== '' || row.length > 0) throw new Error('the CSV does not end with CRLF');
  return rows;
}

/**
 * Checks a PDF's structure as a reader finds it: header, `startxref` pointing at the `xref` table,
 * every entry's offset at its `N 0 obj`, each stream as long as its /Length, and the trailer's /Root.
 */
function checkPdf(bytes: Buffer): string {
  const text = bytes.toString('latin1');
  expect(text.startsWith('%PDF-1.')).toBe(true);
  expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
  const start = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)?.[1]);
  expect(text.slice(start, start + 4)).toBe('xref');
  const [, first, count] = /^xref\s+(\d+) (\d+)\s+/.exec(text.slice(start)) ?? [];
  expect(Number(first)).toBe(0);
  const entries = text
    .slice(start)
    .split('\n')
    .slice(2, 2 + Number(count));
  expect(entries[0]).toMatch(/^\d{10} 65535 f $/);
  entries.slice(1).forEach((entry, i) => {
    expect(entry).toMatch(/^\d{10} 00000 n $/);
    const offset = Number(entry.slice(0, 10));
    expect(text.slice(offset, offset + `${i + 1} 0 obj`.length)).toBe(`${i + 1} 0 obj`);
  });
  for (const match of text.matchAll(/\/Length (\d+) >>\nstream\n/g)) {
    const from = (match.index ?? 0) + match[0].length;
    expect(text.slice(from + Number(match[1]), from + Number(match[1]) + 10)).toBe('\nendstream');
  }
  expect(text).toMatch(new RegExp(`trailer\\s*<< /Size ${count} /Root 1 0 R >>`));
  expect(text).toMatch(/1 0 obj\s*<< \/Type \/Catalog/);
  return text;
}

const call = (operationId: string, options?: CallOptions) => callOperation(sandbox.url, operationId, options);

/** The platform error body, as every error schema of the subset declares it. */
function expectError(reply: Reply, status: number, id: string): void {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual({ id, message: expect.any(String), request_id: expect.any(String) });
}

async function createKey(name: string) {
  const pair = sshKeyPair();
  const reply = await call('sshKeys_create', { json: { name, public_key: pair.publicKey } });
  expect(reply.status).toBe(201);
  return { ...pair, id: reply.body.ssh_key.id as number, reply };
}

beforeAll(async () => {
  sandbox = await startSandbox({ now });
});

afterAll(async () => {
  await sandbox.close();
});

describe('the validator itself', () => {
  it('rejects a body of the wrong shape, so passing tests mean something', () => {
    expect(validateResponse('sshKeys_get', 200, { ssh_key: { id: 'not a number' } }).valid).toBe(false);
    expect(validateResponse('sshKeys_get', 404, { message: 'no id' }).valid).toBe(false);
    expect(validateResponse('sshKeys_delete', 204, { unexpected: true }).valid).toBe(false);
  });
});

describe('account', () => {
  it('account_get', async () => {
    const { status, body } = await call('account_get');
    expect(status).toBe(200);
    expect(body.account).toMatchObject({
      droplet_limit: expect.any(Number),
      floating_ip_limit: expect.any(Number),
      email: expect.stringContaining('@'),
      uuid: expect.any(String),
      email_verified: expect.any(Boolean),
      status: 'active',
      status_message: expect.any(String),
      team: { uuid: expect.any(String), name: expect.any(String) },
    });
  });

  it('balance_get', async () => {
    const { status, body } = await call('balance_get');
    expect(status).toBe(200);
    expect(body.month_to_date_balance).toMatch(MONEY);
    expect(body.account_balance).toMatch(MONEY);
    expect(body.month_to_date_usage).toMatch(MONEY);
    expect(body.generated_at).toMatch(ISO_SECONDS);
  });

  it('billingHistory_list', async () => {
    const { status, body } = await call('billingHistory_list', { query: '?per_page=200' });
    expect(status).toBe(200);
    expect(body.billing_history.length).toBeGreaterThan(0);
    expect(body.meta.total).toBe(body.billing_history.length);
    for (const entry of body.billing_history) {
      expect(entry.amount).toMatch(MONEY);
      expect(entry.date).toMatch(ISO_SECONDS);
      expect(entry.description).toEqual(expect.any(String));
    }
  });

  it('invoices_list', async () => {
    const { status, body } = await call('invoices_list', { query: '?per_page=200' });
    expect(status).toBe(200);
    expect(body.invoices.length).toBeGreaterThan(0);
    expect(body.meta.total).toBe(body.invoices.length);
    expect(body.invoice_preview).toMatchObject({
      invoice_uuid: expect.any(String),
      amount: expect.stringMatching(MONEY),
      invoice_period: expect.stringMatching(/^\d{4}-\d{2}$/),
    });
    for (const invoice of body.invoices) expect(invoice.invoice_uuid).toEqual(expect.any(String));
  });

  it('invoices_get_byUUID: the line items, paged, adding up to the amount invoices_list shows', async () => {
    const list = (await call('invoices_list', { query: '?per_page=200' })).body;
    for (const invoice of [...list.invoices, list.invoice_preview]) {
      const params = { invoice_uuid: invoice.invoice_uuid };
      const { status, body } = await call('invoices_get_byUUID', { params, query: '?per_page=200' });
      expect(status).toBe(200);
      expect(body.invoice_items.length).toBeGreaterThan(0);
      expect(body.meta.total).toBe(body.invoice_items.length);
      const cents = body.invoice_items.reduce(
        (sum: number, item: { amount: string }) => sum + Math.round(Number(item.amount) * 100),
        0,
      );
      expect((cents / 100).toFixed(2)).toBe(invoice.amount);
      for (const item of body.invoice_items) {
        expect(item).toMatchObject({
          product: expect.any(String),
          amount: expect.stringMatching(MONEY),
          start_time: expect.stringMatching(ISO_SECONDS),
          end_time: expect.stringMatching(ISO_SECONDS),
        });
      }
      const second = await call('invoices_get_byUUID', { params, query: '?per_page=2&page=2' });
      expect(second.body.invoice_items).toEqual(body.invoice_items.slice(2, 4));
      expect(second.body.links.pages.prev).toMatch(/page=1/);
    }
  });

  it('invoices_get_summaryByUUID: the invoice of invoices_list, its charges by product', async () => {
    const list = (await call('invoices_list', { query: '?per_page=200' })).body;
    const account = (await call('account_get')).body.account;
    for (const invoice of [list.invoices[0], list.invoice_preview]) {
      const params = { invoice_uuid: invoice.invoice_uuid };
      const { status, body } = await call('invoices_get_summaryByUUID', { params });
      expect(status).toBe(200);
      expect(body).toMatchObject({
        invoice_uuid: invoice.invoice_uuid,
        invoice_id: invoice.invoice_id,
        billing_period: invoice.invoice_period,
        amount: invoice.amount,
        user_name: account.name,
        user_email: account.email,
        user_billing_address: { country_iso2_code: expect.stringMatching(/^[A-Z]{2}$/) },
        product_charges: { amount: invoice.amount },
        overages: { amount: '0.00' },
        taxes: { amount: '0.00' },
        credits_and_adjustments: { amount: '0.00' },
      });
      // Each product's charge is the sum of its line items.
      const items = (await call('invoices_get_byUUID', { params, query: '?per_page=200' })).body
        .invoice_items;
      for (const charge of body.product_charges.items) {
        const mine = items.filter((item: { product: string }) => item.product === charge.name);
        expect(charge.count).toBe(String(mine.length));
        const cents = mine.reduce(
          (sum: number, i: { amount: string }) => sum + Math.round(Number(i.amount) * 100),
          0,
        );
        expect(charge.amount).toBe((cents / 100).toFixed(2));
      }
    }
  });

  it('invoices_get_csvByUUID and _pdfByUUID: the invoice as a CSV and a PDF attachment', async () => {
    const list = (await call('invoices_list', { query: '?per_page=200' })).body;
    for (const invoice of [list.invoices[0], list.invoice_preview]) {
      const params = { invoice_uuid: invoice.invoice_uuid };
      const items = (await call('invoices_get_byUUID', { params, query: '?per_page=200' })).body
        .invoice_items as { description: string; amount: string }[];
      const download = async (format: 'csv' | 'pdf') => {
        const response = await fetch(
          `${sandbox.url}/v2/customers/my/invoices/${invoice.invoice_uuid}/${format}`,
          {
            headers: { authorization: `Bearer ${randomUUID()}` },
          },
        );
        expect(response.status).toBe(200);
        const type = response.headers.get('content-type');
        expect(responseContentTypes(`invoices_get_${format}ByUUID`, 200)).toEqual([type]);
        expect(response.headers.get('content-disposition')).toBe(
          `attachment; filename="DigitalOcean Invoice ${invoice.invoice_period.slice(0, 4)} ${new Date(`${invoice.invoice_period}-01T00:00:00Z`).toLocaleString('en', { month: 'short', timeZone: 'UTC' })} (${invoice.invoice_id}).${format}"`,
        );
        const bytes = Buffer.from(await response.arrayBuffer());
        expect(response.headers.get('content-length')).toBe(String(bytes.length));
        return bytes;
      };

      const rows = parseCsv((await download('csv')).toString('utf8'));
      expect(rows[0]).toEqual([
        'product',
        'group_description',
        'description',
        'hours',
        'start',
        'end',
        'USD',
        'project_name',
        'category',
      ]);
      expect(rows.slice(1).map((row) => row[2])).toEqual(items.map((item) => item.description));
      for (const row of rows.slice(1)) {
        expect(row).toHaveLength(9);
        expect(row[4]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+0000$/);
        expect(row[6]).toMatch(/^\$\d+\.\d{2}$/);
      }
      const cents = rows.slice(1).reduce((sum, row) => sum + Math.round(Number(row[6]?.slice(1)) * 100), 0);
      expect((cents / 100).toFixed(2)).toBe(invoice.amount);

      const pdf = checkPdf(await download('pdf'));
      expect(pdf).toContain(`(Total $${invoice.amount}) Tj`);
      // Parentheses inside a PDF string are escaped.
      expect(pdf).toContain(`(Invoice ${invoice.invoice_id} \\(${invoice.invoice_uuid}\\)) Tj`);
    }
  });

  it('an unknown invoice is 404', async () => {
    const params = { invoice_uuid: randomUUID() };
    expectError(await call('invoices_get_byUUID', { params }), 404, 'not_found');
    expectError(await call('invoices_get_summaryByUUID', { params }), 404, 'not_found');
    expectError(await call('invoices_get_csvByUUID', { params }), 404, 'not_found');
    expectError(await call('invoices_get_pdfByUUID', { params }), 404, 'not_found');
  });

  it('answers 401 as each operation declares it', async () => {
    const params = { ssh_key_identifier: 1, action_id: 1, invoice_uuid: randomUUID() };
    for (const operationId of [
      'account_get',
      'balance_get',
      'billingHistory_list',
      'invoices_list',
      'invoices_get_byUUID',
      'invoices_get_summaryByUUID',
      'sshKeys_list',
      'sshKeys_create',
      'sshKeys_get',
      'sshKeys_delete',
      'actions_list',
      'actions_get',
    ]) {
      const reply = await call(operationId, { params, auth: false });
      expectError(reply, 401, 'unauthorized');
    }
  });
});

describe('ssh keys', () => {
  it('sshKeys_create answers 201 with the key and its MD5 fingerprint', async () => {
    const { reply, publicKey, fingerprint } = await createKey('laptop');
    expect(reply.body.ssh_key).toEqual({
      id: expect.any(Number),
      fingerprint,
      public_key: publicKey,
      name: 'laptop',
    });
  });

  it('sshKeys_list includes a created key', async () => {
    const { id, fingerprint } = await createKey('listed');
    const { status, body } = await call('sshKeys_list', { query: '?per_page=200' });
    expect(status).toBe(200);
    expect(body.meta.total).toBe(body.ssh_keys.length);
    expect(body.ssh_keys).toContainEqual(expect.objectContaining({ id, fingerprint, name: 'listed' }));
  });

  it('sshKeys_get finds a key by id and by fingerprint', async () => {
    const { id, fingerprint, publicKey } = await createKey('by-either');
    const byId = await call('sshKeys_get', { params: { ssh_key_identifier: id } });
    expect(byId.status).toBe(200);
    expect(byId.body.ssh_key).toEqual({ id, fingerprint, public_key: publicKey, name: 'by-either' });
    const byFingerprint = await call('sshKeys_get', { params: { ssh_key_identifier: fingerprint } });
    expect(byFingerprint.status).toBe(200);
    expect(byFingerprint.body.ssh_key).toEqual(byId.body.ssh_key);
  });

  it('renames a key with PUT, by id or by fingerprint', async () => {
    const { id, fingerprint } = await createKey('old-name');
    // The subset has no sshKeys_update yet; its 200 body is the same `{ssh_key}` as sshKeys_get's.
    const schemaOf = Object.hasOwn(subset.operations, 'sshKeys_update') ? 'sshKeys_update' : 'sshKeys_get';
    for (const [ref, name] of [
      [id, 'new-name'],
      [fingerprint, 'newer-name'],
    ] as const) {
      const response = await fetch(`${sandbox.url}/v2/account/keys/${ref}`, {
        method: 'PUT',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      const body: Reply['body'] = await response.json();
      expect(response.status).toBe(200);
      assertValidResponse(schemaOf, 200, body);
      expect(body.ssh_key).toMatchObject({ id, fingerprint, name });
      const renamed = await call('sshKeys_get', { params: { ssh_key_identifier: id } });
      expect(renamed.body.ssh_key.name).toBe(name);
    }
  });

  it('sshKeys_delete answers 204 with no body, after which the key is gone', async () => {
    const { id } = await createKey('doomed');
    const reply = await call('sshKeys_delete', { params: { ssh_key_identifier: id } });
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    const gone = await call('sshKeys_get', { params: { ssh_key_identifier: id } });
    expectError(gone, 404, 'not_found');
    const again = await call('sshKeys_delete', { params: { ssh_key_identifier: id } });
    expectError(again, 404, 'not_found');
  });

  it('sshKeys_get answers 404 for a missing id or fingerprint', async () => {
    expectError(await call('sshKeys_get', { params: { ssh_key_identifier: 999_999_999 } }), 404, 'not_found');
    const unknown = sshKeyPair().fingerprint;
    expectError(await call('sshKeys_get', { params: { ssh_key_identifier: unknown } }), 404, 'not_found');
  });

  it('sshKeys_create answers 422 for a key that is not an OpenSSH public key', async () => {
    const { publicKey } = sshKeyPair();
    const blob = publicKey.split(' ')[1] as string;
    for (const bad of [
      'not a key',
      `ssh-ed25519 ${blob.slice(0, 10)}!!`,
      // The blob names a different type than the text does.
      `ssh-rsa ${blob}`,
      `ssh-foo ${blob}`,
      '',
    ]) {
      const reply = await call('sshKeys_create', { json: { name: 'bad', public_key: bad } });
      expectError(reply, 422, 'unprocessable_entity');
    }
    expectError(
      await call('sshKeys_create', { json: { public_key: publicKey } }),
      422,
      'unprocessable_entity',
    );
  });

  it('sshKeys_create answers 422 for a key already on the account', async () => {
    const { publicKey, id } = await createKey('original');
    const reply = await call('sshKeys_create', {
      json: { name: 'copy', public_key: `${publicKey} a comment` },
    });
    expectError(reply, 422, 'unprocessable_entity');
    const list = await call('sshKeys_list', { query: '?per_page=200' });
    expect(list.body.ssh_keys.filter((k: { public_key: string }) => k.public_key === publicKey)).toEqual([
      expect.objectContaining({ id, name: 'original' }),
    ]);
  });
});

describe('actions', () => {
  /** Inserts an action through the store, started now on the sandbox clock. */
  async function insertAction(init: { duration_ms: number; errored?: boolean; region_slug?: string | null }) {
    return sandbox.store.write((world) =>
      startAction(world, now() + world.clockOffsetMs, {
        type: 'create',
        resource_id: 480_000_001,
        resource_type: 'droplet',
        region_slug: init.region_slug === undefined ? 'nyc3' : init.region_slug,
        duration_ms: init.duration_ms,
        ...(init.errored ? { errored: true } : {}),
      }),
    );
  }

  it('actions_list lists actions newest first', async () => {
    const older = await insertAction({ duration_ms: 60_000 });
    const newer = await insertAction({ duration_ms: 60_000, region_slug: null });
    const { status, body } = await call('actions_list', { query: '?per_page=200' });
    expect(status).toBe(200);
    expect(body.meta.total).toBe(body.actions.length);
    const ids = body.actions.map((a: { id: number }) => a.id);
    expect(ids.indexOf(newer.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
    const withRegion = body.actions.find((a: { id: number }) => a.id === older.id);
    expect(withRegion.region).toMatchObject({ slug: 'nyc3', name: expect.any(String), available: true });
    const withoutRegion = body.actions.find((a: { id: number }) => a.id === newer.id);
    expect(withoutRegion.region).toBeUndefined();
    expect(withoutRegion.region_slug).toBeNull();
  });

  it('actions_get answers 404 for a missing or malformed id', async () => {
    expectError(await call('actions_get', { params: { action_id: 1 } }), 404, 'not_found');
    expectError(await call('actions_get', { params: { action_id: 'abc' } }), 404, 'not_found');
  });

  it('actions_get completes an action when the sandbox clock passes its duration', async () => {
    const ok = await insertAction({ duration_ms: 30_000 });
    const failing = await insertAction({ duration_ms: 30_000, errored: true });

    const before = await call('actions_get', { params: { action_id: ok.id } });
    expect(before.status).toBe(200);
    expect(before.body.action).toMatchObject({
      id: ok.id,
      status: 'in-progress',
      type: 'create',
      started_at: expect.stringMatching(ISO_SECONDS),
      completed_at: null,
      resource_id: 480_000_001,
      resource_type: 'droplet',
      region_slug: 'nyc3',
    });
    const failingBefore = await call('actions_get', { params: { action_id: failing.id } });
    expect(failingBefore.body.action.status).toBe('in-progress');

    await sandbox.advanceClock(30_001);

    const after = await call('actions_get', { params: { action_id: ok.id } });
    expect(after.body.action.status).toBe('completed');
    expect(after.body.action.completed_at).toMatch(ISO_SECONDS);
    const took = Date.parse(after.body.action.completed_at) - Date.parse(after.body.action.started_at);
    // Timestamps are in whole seconds.
    expect(Math.abs(took - 30_000)).toBeLessThanOrEqual(1_000);
    const failingAfter = await call('actions_get', { params: { action_id: failing.id } });
    expect(failingAfter.body.action.status).toBe('errored');
    expect(failingAfter.body.action.completed_at).toMatch(ISO_SECONDS);
  });
});
