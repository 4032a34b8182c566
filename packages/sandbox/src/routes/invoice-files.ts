/**
 * An invoice as the files the platform offers for download: a CSV of its line items and a PDF.
 * Both are small but valid (RFC 4180 CSV; a one-page PDF 1.4 with a correct cross-reference
 * table), built here: a CSV or PDF library would be more code than these few lines need.
 */
import type { Invoice, InvoiceItem } from '../seed/account.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The attachment's name, as the platform names it: `... Invoice 2020 Jul (<invoice id>).csv`. */
export function invoiceFileName(invoice: Invoice, extension: 'csv' | 'pdf'): string {
  const [year = '', month = '1'] = invoice.invoice_period.split('-');
  return `DigitalOcean Invoice ${year} ${MONTHS[Number(month) - 1] ?? month} (${invoice.invoice_id}).${extension}`;
}

/** `2020-07-01T00:00:00Z` as the CSV writes times: `2020-07-01 00:00:00 +0000`. */
const csvTime = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} +0000`;

/** A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180). */
const field = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

/** The line items, one row each, under the platform's header; CRLF line ends (RFC 4180). */
export function invoiceCsv(items: InvoiceItem[]): Buffer {
  const rows = [
    [
      'product',
      'group_description',
      'description',
      'hours',
      'start',
      'end',
      'USD',
      'project_name',
      'category',
    ],
    ...items.map((item) => [
      item.product,
      item.group_description,
      item.description,
      item.duration,
      csvTime(item.start_time),
      csvTime(item.end_time),
      `$${item.amount}`,
      item.project_name,
      'iaas',
    ]),
  ];
  return Buffer.from(rows.map((row) => `${row.map(field).join(',')}\r\n`).join(''), 'utf8');
}

/** Text for a PDF string literal: ASCII only, with `\`, `(` and `)` escaped. */
const pdfText = (text: string) => text.replace(/[^\x20-\x7e]/g, '?').replace(/[\\()]/g, (c) => `\\${c}`);

/** A one-page PDF: the invoice's id, period and amount, and one line per item. */
export function invoicePdf(invoice: Invoice, items: InvoiceItem[], customer: string): Buffer {
  const lines = [
    `Invoice ${invoice.invoice_id} (${invoice.invoice_uuid})`,
    `Billing period ${invoice.invoice_period}`,
    `Customer ${customer}`,
    '',
    ...items.slice(0, 40).map((item) => `${item.product}: ${item.description}  $${item.amount}`),
    ...(items.length > 40 ? [`... and ${items.length - 40} more items`] : []),
    '',
    `Total $${invoice.amount}`,
  ];
  const text = lines.map((line, i) => `${i === 0 ? '' : '0 -16 Td '}(${pdfText(line)}) Tj`).join('\n');
  const content = `BT /F1 11 Tf 56 780 Td\n${text}\nET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
  ];
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(pdf, 'latin1'));
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(pdf, 'latin1');
  // Each cross-reference entry is exactly 20 bytes: 10-digit offset, 5-digit generation, type, EOL.
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}
