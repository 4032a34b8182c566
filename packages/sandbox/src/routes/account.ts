/**
 * Account endpoints: account information, balance, billing history, invoices, billing insights,
 * SSH keys, actions.
 */
import { createHash } from 'node:crypto';
import {
  badRequest,
  FileBody,
  intParam,
  listBody,
  notFound,
  paginate,
  type Route,
  requireString,
  type SandboxRequest,
  unprocessable,
} from '../http.js';
import type { Invoice, InvoiceItem } from '../seed/account.js';
import { nextId, type SshKey, type World } from '../world.js';
import { actionListReply, actionReply } from './actions.js';
import { invoiceCsv, invoiceFileName, invoicePdf } from './invoice-files.js';

const KEY_TYPES = new Set([
  'ssh-rsa',
  'ssh-ed25519',
  'ssh-dss',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
]);

/**
 * The platform's MD5 fingerprint of an OpenSSH public key (`type base64 [comment]`), or a 422 when
 * the text is not one. The key blob must start with its own type, as real keys do.
 */
export function fingerprintOf(publicKey: string): string {
  const [type, data] = publicKey.trim().split(/\s+/);
  const invalid = () => unprocessable('Key invalid, key should be of the format `type key [comment]`');
  if (!type || !data || !KEY_TYPES.has(type) || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) throw invalid();
  const blob = Buffer.from(data, 'base64');
  const length = blob.length >= 4 ? blob.readUInt32BE(0) : -1;
  if (length !== type.length || blob.subarray(4, 4 + length).toString('latin1') !== type) throw invalid();
  const hex = createHash('md5').update(blob).digest('hex');
  return hex.match(/../g)!.join(':');
}

/** An SSH key by numeric id or by fingerprint, as the platform addresses them. */
function findKey(world: World, request: SandboxRequest): SshKey {
  const ref = request.params.key ?? '';
  const key = /^\d+$/.test(ref)
    ? world.sshKeys.find((k) => k.id === Number(ref))
    : world.sshKeys.find((k) => k.fingerprint === ref);
  if (!key) throw notFound();
  return key;
}

/** A closed invoice or the current month's preview, by `invoice_uuid`, with its line items. */
function findInvoice(world: World, request: SandboxRequest): { invoice: Invoice; items: InvoiceItem[] } {
  const uuid = request.params.invoice ?? '';
  const invoice = [...world.invoices, world.invoicePreview].find((i) => i.invoice_uuid === uuid);
  const items = world.invoiceItems[uuid];
  if (!invoice || !items) throw notFound();
  return { invoice, items };
}

const cents = (amount: string): number => Math.round(Number(amount) * 100);
const dollars = (total: number): string => (total / 100).toFixed(2);
const charge = (name: string, amount: string) => ({ name, amount });

/**
 * An invoice's summary as the platform gives it: the customer, and the line items grouped by
 * product. The sandbox bills no overages, taxes or credits, so the product charges add up to the
 * invoice's amount, as invoice-list shows it.
 */
function invoiceSummary(world: World, invoice: Invoice, items: InvoiceItem[]) {
  const products = new Map<string, { count: number; cents: number }>();
  for (const item of items) {
    const product = products.get(item.product) ?? { count: 0, cents: 0 };
    product.count += 1;
    product.cents += cents(item.amount);
    products.set(item.product, product);
  }
  // The address was entered when the account was opened: before its oldest invoice.
  const opened = world.invoices.at(-1)?.updated_at ?? invoice.updated_at;
  return {
    invoice_uuid: invoice.invoice_uuid,
    invoice_id: invoice.invoice_id,
    billing_period: invoice.invoice_period,
    amount: invoice.amount,
    user_name: world.account.name,
    user_billing_address: { ...BILLING_ADDRESS, created_at: opened, updated_at: opened },
    user_company: world.account.team.name,
    user_email: world.account.email,
    product_charges: {
      name: 'Product usage charges',
      amount: dollars([...products.values()].reduce((sum, p) => sum + p.cents, 0)),
      items: [...products].map(([name, p]) => ({ name, count: String(p.count), amount: dollars(p.cents) })),
    },
    overages: charge('Overages', '0.00'),
    taxes: charge('Taxes', '0.00'),
    credits_and_adjustments: charge('Credits & adjustments', '0.00'),
  };
}

const DAY_MS = 86_400_000;

/** A `YYYY-MM-DD` path date as the start of its UTC day, or the platform's 400. */
function dateParam(request: SandboxRequest, name: string): number {
  const text = request.params[name] ?? '';
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== text) {
    throw badRequest(`${name} must be a date such as 2025-01-31; got ${JSON.stringify(text)}`);
  }
  return ms;
}

/** Product codes of the SKUs insights name items by, shaped as the platform's (`1-DO-DROP-0109`). */
const SKU_CODES: Record<string, string> = {
  Droplets: 'DROP',
  Backups: 'BKUP',
  Volumes: 'BLKS',
  'Spaces Subscription': 'SPCS',
};

/**
 * Billing insights: the invoice line items (closed months and the month so far) spread over the
 * days they ran, one data point a day and item, from `start` to `end` (both included), oldest
 * first. An item's amount is divided by the hours it ran each day, so a month's points add up to
 * its invoice (to the cent, a day's rounding aside).
 */
function insights(world: World, start: number, end: number) {
  const team = `do:team:${world.account.team.uuid}`;
  const points: { day: number; order: number; point: Record<string, string> }[] = [];
  let order = 0;
  for (const items of Object.values(world.invoiceItems)) {
    for (const item of items) {
      order += 1;
      const from = Date.parse(item.start_time);
      const to = Date.parse(item.end_time);
      const hours = (to - from) / 3_600_000;
      if (!(hours > 0)) continue;
      for (
        let day = Math.max(start, Math.floor(from / DAY_MS) * DAY_MS);
        day <= end && day < to;
        day += DAY_MS
      ) {
        const share = (Math.min(to, day + DAY_MS) - Math.max(from, day)) / 3_600_000 / hours;
        const code = SKU_CODES[item.product] ?? 'MISC';
        points.push({
          day,
          order,
          point: {
            usage_team_urn: team,
            start_date: new Date(day).toISOString().slice(0, 10),
            total_amount: (Math.round(Number(item.amount) * 100 * share) / 100).toFixed(2),
            // The seeded account's resources are in nyc3; Spaces' subscription is account-wide.
            region: item.product === 'Spaces Subscription' ? '' : 'nyc3',
            sku: `1-DO-${code}-0109`,
            description: item.description,
            group_description: item.group_description,
          },
        });
      }
    }
  }
  return points.sort((a, b) => a.day - b.day || a.order - b.order).map((p) => p.point);
}

const BILLING_ADDRESS = {
  address_line1: '12 Analytical Row',
  city: 'London',
  region: 'LND',
  postal_code: 'W1 1AA',
  country_iso2_code: 'GB',
};

export const accountRoutes: Route[] = [
  { method: 'GET', path: '/v2/account', handler: (_req, world) => ({ body: { account: world.account } }) },
  { method: 'GET', path: '/v2/customers/my/balance', handler: (_req, world) => ({ body: world.balance }) },
  {
    method: 'GET',
    path: '/v2/customers/my/billing_history',
    handler: (req, world) => ({ body: listBody('billing_history', world.billingHistory, req) }),
  },
  {
    method: 'GET',
    path: '/v2/billing/{urn}/insights/{start}/{end}',
    handler: (req, world) => {
      // Only the account's own team: another's is not found.
      if (req.params.urn !== `do:team:${world.account.team.uuid}`) throw notFound();
      const start = dateParam(req, 'start');
      const end = dateParam(req, 'end');
      if (start > end) throw badRequest('start_date must not be after end_date');
      const page = paginate(insights(world, start, end), req);
      return {
        body: {
          data_points: page.items,
          total_items: page.meta.total,
          total_pages: page.pages,
          current_page: page.page,
        },
      };
    },
  },
  {
    method: 'GET',
    path: '/v2/customers/my/invoices',
    handler: (req, world) => ({
      body: { ...listBody('invoices', world.invoices, req), invoice_preview: world.invoicePreview },
    }),
  },
  {
    method: 'GET',
    path: '/v2/customers/my/invoices/{invoice}',
    handler: (req, world) => ({ body: listBody('invoice_items', findInvoice(world, req).items, req) }),
  },
  {
    method: 'GET',
    path: '/v2/customers/my/invoices/{invoice}/summary',
    handler: (req, world) => {
      const { invoice, items } = findInvoice(world, req);
      return { body: invoiceSummary(world, invoice, items) };
    },
  },
  {
    method: 'GET',
    path: '/v2/customers/my/invoices/{invoice}/csv',
    handler: (req, world) => {
      const { invoice, items } = findInvoice(world, req);
      return { body: new FileBody('text/csv', invoiceFileName(invoice, 'csv'), invoiceCsv(items)) };
    },
  },
  {
    method: 'GET',
    path: '/v2/customers/my/invoices/{invoice}/pdf',
    handler: (req, world) => {
      const { invoice, items } = findInvoice(world, req);
      const customer = world.account.team.name || world.account.email;
      return {
        body: new FileBody(
          'application/pdf',
          invoiceFileName(invoice, 'pdf'),
          invoicePdf(invoice, items, customer),
        ),
      };
    },
  },
  {
    method: 'GET',
    path: '/v2/account/keys',
    handler: (req, world) => ({ body: listBody('ssh_keys', world.sshKeys, req) }),
  },
  {
    method: 'POST',
    path: '/v2/account/keys',
    handler: (req, world) => {
      const name = requireString(req.body, 'name');
      const publicKey = requireString(req.body, 'public_key').trim();
      const fingerprint = fingerprintOf(publicKey);
      if (world.sshKeys.some((k) => k.fingerprint === fingerprint)) {
        throw unprocessable('SSH Key is already in use on your account');
      }
      const key: SshKey = { id: nextId(world, 'sshKey'), fingerprint, public_key: publicKey, name };
      world.sshKeys.push(key);
      return { status: 201, body: { ssh_key: key } };
    },
  },
  {
    method: 'GET',
    path: '/v2/account/keys/{key}',
    handler: (req, world) => ({ body: { ssh_key: findKey(world, req) } }),
  },
  {
    method: 'PUT',
    path: '/v2/account/keys/{key}',
    handler: (req, world) => {
      const key = findKey(world, req);
      if (req.body.name !== undefined) key.name = requireString(req.body, 'name');
      return { body: { ssh_key: key } };
    },
  },
  {
    method: 'DELETE',
    path: '/v2/account/keys/{key}',
    handler: (req, world) => {
      const key = findKey(world, req);
      world.sshKeys = world.sshKeys.filter((k) => k !== key);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    path: '/v2/actions',
    handler: (req, world) => actionListReply(world, req),
  },
  {
    method: 'GET',
    path: '/v2/actions/{id}',
    handler: (req, world) => actionReply(world, intParam(req, 'id'), req.now),
  },
];
