/**
 * Consistency checks of the seed data: the catalogue's cross-references (regions, sizes, images,
 * kernels) and the seeded account's billing figures must agree with each other.
 */
import { subset } from '@cloudcall/openapi-subset';
import { describe, expect, it } from 'vitest';
import { seedAccount, stableUuid } from './account.js';
import {
  applicationImages,
  distributionImages,
  HOURS_PER_BILLING_MONTH,
  imageKind,
  images,
  kernelsByDistribution,
  kernelsFor,
  regions,
  sizes,
} from './catalog.js';

const ISO_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const MONEY = /^-?\d+\.\d{2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
// The image schema's `regions` items are this enum (read from the API description, not copied):
// anything else fails response validation.
const REGION_SLUG_ENUM = new Set((subset.components.schemas.region_slug as { enum: string[] }).enum);

const cents = (amount: string): number => Math.round(Number(amount) * 100);
const duplicates = <T>(values: T[]): T[] => values.filter((value, i) => values.indexOf(value) !== i);

describe('regions and sizes', () => {
  const regionBySlug = new Map(regions.map((region) => [region.slug, region]));
  const sizeBySlug = new Map(sizes.map((size) => [size.slug, size]));

  it('has unique slugs', () => {
    expect(duplicates(regions.map((region) => region.slug))).toEqual([]);
    expect(duplicates(sizes.map((size) => size.slug))).toEqual([]);
  });

  it('lists in each region only existing, available sizes that list the region back', () => {
    for (const region of regions) {
      for (const slug of region.sizes) {
        const size = sizeBySlug.get(slug);
        expect(size, `${region.slug} lists unknown size ${slug}`).toBeDefined();
        expect(size?.available).toBe(true);
        expect(size?.regions).toContain(region.slug);
      }
    }
  });

  it('offers each size only in existing, available regions that list the size back', () => {
    for (const size of sizes) {
      for (const slug of size.regions) {
        const region = regionBySlug.get(slug);
        expect(region, `${size.slug} lists unknown region ${slug}`).toBeDefined();
        expect(region?.available).toBe(true);
        expect(region?.sizes).toContain(size.slug);
      }
    }
  });

  it('keeps closed regions and unavailable sizes empty', () => {
    expect(regions.filter((region) => !region.available).map((region) => region.slug)).toEqual([
      'nyc2',
      'ams2',
    ]);
    for (const region of regions.filter((candidate) => !candidate.available))
      expect(region.sizes).toEqual([]);
    const unavailable = sizes.filter((size) => !size.available);
    expect(unavailable.length).toBeGreaterThan(0);
    for (const size of unavailable) expect(size.regions).toEqual([]);
  });

  it('leaves some sizes out of some open regions', () => {
    expect(regionBySlug.get('blr1')?.sizes).not.toContain('so-2vcpu-16gb');
    expect(regionBySlug.get('syd1')?.sizes).not.toContain('m-2vcpu-16gb');
    expect(regionBySlug.get('nyc3')?.sizes).toContain('so-2vcpu-16gb');
  });

  it('prices every size consistently', () => {
    for (const size of sizes) {
      const expected = size.price_monthly / HOURS_PER_BILLING_MONTH;
      expect(Math.abs(size.price_hourly - expected) / expected, size.slug).toBeLessThan(0.01);
      expect(
        Number.isInteger(size.memory) && Number.isInteger(size.vcpus) && Number.isInteger(size.disk),
      ).toBe(true);
      expect(size.description).not.toBe('');
      expect(size.disk_info?.[0]?.size?.amount).toBe(size.disk);
    }
    const monthly = sizes.map((size) => size.price_monthly);
    expect(monthly).toEqual([...monthly].sort((a, b) => a - b));
  });
});

describe('images and kernels', () => {
  const regionBySlug = new Map(regions.map((region) => [region.slug, region]));

  it('has unique ids and slugs', () => {
    expect(duplicates(images.map((image) => image.id))).toEqual([]);
    expect(duplicates(images.map((image) => image.slug))).toEqual([]);
    for (const image of images) expect(image.id).toBeGreaterThanOrEqual(100_000_000);
  });

  it('makes every image available in existing, open regions the schema can name', () => {
    for (const image of images) {
      expect(image.regions.length, image.name).toBeGreaterThan(0);
      for (const slug of image.regions) {
        expect(regionBySlug.get(slug)?.available, `${image.name} in ${slug}`).toBe(true);
        expect(REGION_SLUG_ENUM.has(slug), `${slug} is not a wire region_slug`).toBe(true);
      }
    }
  });

  it('fits every image on at least one available size', () => {
    for (const image of images) {
      expect(sizes.some((size) => size.available && size.disk >= (image.min_disk_size ?? 0))).toBe(true);
    }
  });

  it('classifies every public image exactly once', () => {
    expect(images).toHaveLength(distributionImages.length + applicationImages.length);
    for (const image of distributionImages) expect(imageKind[image.id]).toBe('distribution');
    for (const image of applicationImages) expect(imageKind[image.id]).toBe('application');
    expect(Object.keys(imageKind)).toHaveLength(images.length);
    for (const image of images) {
      expect(image).toMatchObject({
        type: 'base',
        public: true,
        status: 'available',
        error_message: '',
        tags: [],
      });
      expect(image.created_at).toMatch(ISO_SECONDS);
    }
  });

  it('has unique kernel ids within each distribution and a fallback for the rest', () => {
    for (const kernels of Object.values(kernelsByDistribution)) {
      expect(duplicates(kernels.map((kernel) => kernel.id))).toEqual([]);
    }
    expect(kernelsFor('Ubuntu').length).toBeGreaterThan(1);
    expect(kernelsFor('Fedora')).toHaveLength(1);
  });
});

describe('seedAccount', () => {
  const now = new Date('2025-03-17T10:42:31.123Z');
  const seeded = seedAccount(now);

  it('is deterministic and does not share state between calls', () => {
    const again = seedAccount(new Date(now.getTime()));
    expect(again).toEqual(seeded);
    expect(again.invoices).not.toBe(seeded.invoices);
  });

  it('returns a complete, active account', () => {
    expect(seeded.account).toMatchObject({ status: 'active', email_verified: true });
    expect(seeded.account.droplet_limit).toBeGreaterThan(0);
    expect(seeded.account.uuid).toMatch(/^[0-9a-f]{40}$/);
  });

  it('lists six closed invoices, newest first, before the current month', () => {
    expect(seeded.invoices.map((invoice) => invoice.invoice_period)).toEqual([
      '2025-02',
      '2025-01',
      '2024-12',
      '2024-11',
      '2024-10',
      '2024-09',
    ]);
    expect(seeded.invoicePreview.invoice_period).toBe('2025-03');
    const all = [...seeded.invoices, seeded.invoicePreview];
    expect(duplicates(all.map((invoice) => invoice.invoice_uuid))).toEqual([]);
    expect(duplicates(all.map((invoice) => invoice.invoice_id))).toEqual([]);
    for (const invoice of all) {
      expect(invoice.invoice_uuid).toMatch(UUID);
      expect(invoice.invoice_id).toMatch(/^\d+$/);
      expect(invoice.amount).toMatch(MONEY);
      expect(invoice.updated_at).toMatch(ISO_SECONDS);
    }
  });

  it('sums each invoice from its line items', () => {
    for (const invoice of [...seeded.invoices, seeded.invoicePreview]) {
      const items = seeded.invoiceItems[invoice.invoice_uuid];
      expect(items, invoice.invoice_period).toBeDefined();
      const total = (items ?? []).reduce((sum, item) => sum + cents(item.amount), 0);
      expect(total).toBe(cents(invoice.amount));
      for (const item of items ?? []) {
        expect(item.start_time <= item.end_time).toBe(true);
        expect(item.start_time.slice(0, 7)).toBe(invoice.invoice_period);
      }
    }
    expect(Object.keys(seeded.invoiceItems)).toHaveLength(seeded.invoices.length + 1);
  });

  it('keeps the billing history newest first, in the past, and matching the invoices', () => {
    const dates = seeded.billingHistory.map((entry) => entry.date);
    expect(dates).toEqual([...dates].sort().reverse());
    for (const date of dates) {
      expect(date).toMatch(ISO_SECONDS);
      expect(Date.parse(date)).toBeLessThanOrEqual(now.getTime());
    }
    const invoiceEntries = seeded.billingHistory.filter((entry) => entry.type === 'Invoice');
    expect(invoiceEntries.map((entry) => [entry.invoice_uuid, entry.invoice_id, entry.amount])).toEqual(
      seeded.invoices.map((invoice) => [invoice.invoice_uuid, invoice.invoice_id, invoice.amount]),
    );
    for (const entry of seeded.billingHistory) expect(entry.amount).toMatch(MONEY);
  });

  it('derives the balance from the history and the preview', () => {
    const owed = seeded.billingHistory.reduce((sum, entry) => sum + cents(entry.amount), 0);
    expect(owed).toBe(0);
    expect(seeded.balance).toEqual({
      account_balance: '0.00',
      month_to_date_usage: seeded.invoicePreview.amount,
      month_to_date_balance: seeded.invoicePreview.amount,
      generated_at: '2025-03-17T10:42:31Z',
    });
    expect(Date.parse(seeded.invoicePreview.updated_at)).toBeLessThanOrEqual(now.getTime());
  });

  it('shows a just-issued invoice as unpaid and never dates anything after now', () => {
    const early = seedAccount(new Date('2025-04-01T07:00:00Z'));
    expect(early.invoices[0]?.invoice_period).toBe('2025-03');
    expect(early.billingHistory[0]?.type).toBe('Invoice');
    expect(early.balance.account_balance).toBe(early.invoices[0]?.amount);

    const veryEarly = seedAccount(new Date('2025-04-01T03:00:00Z'));
    expect(veryEarly.invoices[0]?.invoice_period).toBe('2025-02');
    expect(veryEarly.invoices).toHaveLength(6);
    expect(veryEarly.invoicePreview.invoice_period).toBe('2025-04');
    expect(cents(veryEarly.invoicePreview.amount)).toBeLessThan(100);
  });

  it('generates well-formed, stable uuids', () => {
    expect(stableUuid('a')).toBe(stableUuid('a'));
    expect(stableUuid('a')).not.toBe(stableUuid('b'));
    expect(stableUuid('a')).toMatch(UUID);
  });
});
