/**
 * The account a fresh sandbox starts with: account information, balance, billing history and invoices,
 * in the API's wire shape.
 *
 * Everything is derived from `now` (so the data always looks current) and from nothing else: the same
 * `now` always yields the same account, with no randomness. Amounts are computed in cents from the
 * catalogue's prices, so invoices, their line items, the billing history and the balance all agree.
 */
import type { Always, Schemas } from '@cloudcall/platform';
import { HOURS_PER_BILLING_MONTH, sizes } from './catalog.js';

export type AccountStatus = Schemas['account']['status'];

/** The description's account, every field present, and the limits it leaves out that the platform sends. */
export type Account = Required<Schemas['account']> & { reserved_ip_limit: number; volume_limit: number };

export type Balance = Required<Schemas['balance']>;

export type BillingHistoryType = NonNullable<Schemas['billing_history']['type']>;

/** Amounts are dollars as a decimal string; negative for money received (payments, credits). */
export type BillingHistoryEntry = Always<
  Schemas['billing_history'],
  'description' | 'amount' | 'date' | 'type'
>;

/** The `invoice_preview` schema, used both for closed invoices and for the current month's preview. */
export type Invoice = Required<Schemas['invoice_preview']>;

/** Every field but the resource's id or UUID, one of which a line has. Durations are hours. */
export type InvoiceItem = Always<
  Schemas['invoice_item'],
  Exclude<keyof Schemas['invoice_item'], 'resource_uuid' | 'resource_id'>
>;

export interface SeededAccount {
  account: Account;
  balance: Balance;
  /** Newest first, as the platform lists it. */
  billingHistory: BillingHistoryEntry[];
  /** Closed invoices, newest first. */
  invoices: Invoice[];
  /** The current, still-open month. */
  invoicePreview: Invoice;
  /** Line items by `invoice_uuid`, for every closed invoice and for the preview. */
  invoiceItems: Record<string, InvoiceItem[]>;
}

const INVOICE_COUNT = 6;
const PROJECT_NAME = 'cloudcall-demo';
const HOUR_MS = 3_600_000;
// Invoices close a few hours into the month and the card on file is charged shortly after.
const INVOICE_ISSUE_OFFSET_MS = 6 * HOUR_MS + 13 * 60_000;
const PAYMENT_DELAY_MS = 2 * HOUR_MS + 41 * 60_000;
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** Seconds-precision ISO 8601, as the platform formats timestamps. */
const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const dollars = (cents: number): string => (cents / 100).toFixed(2);

/** 32-bit FNV-1a: a cheap, stable hash so ids look random yet never change for the same input. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  // Murmur3's finalizer: without it, seeds differing only in their last characters give look-alike ids.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** A version-4-shaped UUID derived from `seed`. */
export function stableUuid(seed: string): string {
  const hex = [0, 1, 2, 3].map((i) => fnv1a(`${i}:${seed}`).toString(16).padStart(8, '0')).join('');
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A calendar month, counted in months since year 0 so neighbours are one apart. */
type Period = number;

const periodOf = (date: Date): Period => date.getUTCFullYear() * 12 + date.getUTCMonth();
const periodStart = (period: Period): number => Date.UTC(Math.floor(period / 12), period % 12, 1);
const periodLabel = (period: Period): string =>
  `${Math.floor(period / 12)}-${String((period % 12) + 1).padStart(2, '0')}`;
const periodName = (period: Period): string => `${MONTH_NAMES[period % 12]} ${Math.floor(period / 12)}`;
// Numeric, increasing with time, unique per month.
const invoiceIdOf = (period: Period): string => String(2_000_000 + period * 4_211);
const invoiceUuidOf = (period: Period): string => stableUuid(`invoice:${periodLabel(period)}`);

const monthlyPriceOf = (sizeSlug: string): number => {
  const size = sizes.find((candidate) => candidate.slug === sizeSlug);
  if (!size) throw new Error(`seed references unknown size ${sizeSlug}`);
  return size.price_monthly;
};

/** Something the account pays for by the hour, capped at its monthly price like the platform does. */
interface Billable {
  product: string;
  name: string;
  description: string;
  monthlyDollars: number;
  resourceId?: string;
  /** Hours it ran in a month: always-on resources run the whole month. */
  hoursIn?: (period: Period) => { startOffsetHours: number; hours: number };
}

const webMonthly = monthlyPriceOf('s-2vcpu-4gb');

const BILLABLES: Billable[] = [
  {
    product: 'Droplets',
    name: 'web-1',
    description: 'web-1 (s-2vcpu-4gb)',
    monthlyDollars: webMonthly,
    resourceId: '412093871',
  },
  {
    product: 'Backups',
    name: 'web-1',
    description: 'Weekly backups of web-1',
    // Backups cost a fifth of the droplet's price.
    monthlyDollars: webMonthly * 0.2,
    resourceId: '412093871',
  },
  {
    product: 'Droplets',
    name: 'worker-1',
    description: 'worker-1 (s-1vcpu-1gb)',
    monthlyDollars: monthlyPriceOf('s-1vcpu-1gb'),
    resourceId: '412094556',
  },
  {
    product: 'Droplets',
    name: 'ci-runner',
    description: 'ci-runner (s-2vcpu-2gb)',
    monthlyDollars: monthlyPriceOf('s-2vcpu-2gb'),
    resourceId: '418830214',
    // A runner created and destroyed on demand: a different, deterministic stretch every month.
    hoursIn: (period) => ({ startOffsetHours: (period % 7) * 24, hours: 96 + ((period * 131) % 400) }),
  },
  {
    product: 'Volumes',
    name: 'data-1',
    description: 'data-1 (100 GiB)',
    monthlyDollars: 10,
  },
  {
    product: 'Spaces Subscription',
    name: 'spaces',
    description: 'Spaces (250 GiB storage, 1 TiB transfer)',
    monthlyDollars: 5,
  },
];

/** Line items of `period`, billed up to `untilMs` (the period's end, or "now" for the preview). */
function itemsFor(period: Period, untilMs: number): InvoiceItem[] {
  const startMs = periodStart(period);
  const elapsedHours = Math.max(0, Math.floor((untilMs - startMs) / HOUR_MS));
  return BILLABLES.map((billable) => {
    const run = billable.hoursIn?.(period) ?? { startOffsetHours: 0, hours: elapsedHours };
    const from = Math.min(run.startOffsetHours, elapsedHours);
    const hours = Math.max(0, Math.min(run.hours, elapsedHours - from));
    const cents = Math.round(
      Math.min((hours * billable.monthlyDollars) / HOURS_PER_BILLING_MONTH, billable.monthlyDollars) * 100,
    );
    const item: InvoiceItem = {
      product: billable.product,
      group_description: billable.name,
      description: billable.description,
      amount: dollars(cents),
      duration: String(hours),
      duration_unit: 'Hours',
      start_time: iso(startMs + from * HOUR_MS),
      end_time: iso(startMs + (from + hours) * HOUR_MS),
      project_name: PROJECT_NAME,
    };
    if (billable.resourceId !== undefined) {
      item.resource_id = billable.resourceId;
      item.resource_uuid = stableUuid(`resource:${billable.name}`);
    }
    return item;
  });
}

const centsOf = (amount: string): number => Math.round(Number(amount) * 100);
const totalCents = (items: InvoiceItem[]): number =>
  items.reduce((sum, item) => sum + centsOf(item.amount), 0);

/** Builds the seeded account as it looks at `now`. */
export function seedAccount(now: Date): SeededAccount {
  const nowMs = now.getTime();
  const current = periodOf(now);
  const invoiceItems: Record<string, InvoiceItem[]> = {};
  const invoices: Invoice[] = [];
  const billingHistory: BillingHistoryEntry[] = [];

  // Last month's invoice only exists once it has been issued, hence looking one month further back.
  for (let period = current - 1; invoices.length < INVOICE_COUNT; period--) {
    const issuedMs = periodStart(period + 1) + INVOICE_ISSUE_OFFSET_MS;
    if (issuedMs > nowMs) continue;
    const items = itemsFor(period, periodStart(period + 1));
    const invoice: Invoice = {
      invoice_uuid: invoiceUuidOf(period),
      invoice_id: invoiceIdOf(period),
      amount: dollars(totalCents(items)),
      invoice_period: periodLabel(period),
      updated_at: iso(issuedMs),
    };
    invoices.push(invoice);
    invoiceItems[invoice.invoice_uuid] = items;

    const paidMs = issuedMs + PAYMENT_DELAY_MS;
    // A just-issued invoice may not be paid yet; it then shows in the account balance.
    if (paidMs <= nowMs) {
      billingHistory.push({
        description: 'Payment (Visa ending in 4242)',
        amount: `-${invoice.amount}`,
        date: iso(paidMs),
        type: 'Payment',
      });
    }
    billingHistory.push({
      description: `Invoice for ${periodName(period)}`,
      amount: invoice.amount,
      invoice_id: invoice.invoice_id,
      invoice_uuid: invoice.invoice_uuid,
      date: iso(issuedMs),
      type: 'Invoice',
    });
  }

  // The preview is refreshed hourly, so it (and its items) stop at the last full hour.
  const previewMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  const previewItems = itemsFor(current, previewMs);
  const invoicePreview: Invoice = {
    invoice_uuid: invoiceUuidOf(current),
    invoice_id: invoiceIdOf(current),
    amount: dollars(totalCents(previewItems)),
    invoice_period: periodLabel(current),
    updated_at: iso(previewMs),
  };
  invoiceItems[invoicePreview.invoice_uuid] = previewItems;

  const owedCents = billingHistory.reduce((sum, entry) => sum + centsOf(entry.amount), 0);
  const usageCents = centsOf(invoicePreview.amount);

  return {
    account: {
      droplet_limit: 25,
      floating_ip_limit: 3,
      reserved_ip_limit: 3,
      volume_limit: 100,
      email: 'ada@cloudcall.example',
      name: 'Ada Lovelace',
      uuid: '7d0c4f1e9a3b5c2d8e6f0a1b2c3d4e5f6a7b8c9d',
      email_verified: true,
      status: 'active',
      status_message: '',
      team: { uuid: '3b9e2a7c1d5f4e8a0c6b2d9f1e7a3c5b8d0f4e2a', name: 'Cloudcall Sandbox' },
    },
    balance: {
      month_to_date_balance: dollars(owedCents + usageCents),
      account_balance: dollars(owedCents),
      month_to_date_usage: dollars(usageCents),
      generated_at: iso(nowMs),
    },
    billingHistory,
    invoices,
    invoicePreview,
    invoiceItems,
  };
}
