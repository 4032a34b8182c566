/**
 * How results look: JSON for programs (and pipes), tables for people at a terminal.
 */
import Table from 'cli-table3';

export type OutputFormat = 'json' | 'table';

/**
 * A result in `format`. On a terminal JSON is indented for reading; in a pipe it is one compact
 * line (half the bytes for a list such as size-list), which jq and other programs read alike.
 */
export function formatResult(result: unknown, format: OutputFormat, terminal = false): string {
  if (format === 'json') return `${terminal ? JSON.stringify(result, null, 2) : JSON.stringify(result)}\n`;
  return `${renderTable(result, terminal)}\n`;
}

type Row = Record<string, unknown>;

const isRecord = (value: unknown): value is Row =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A list answer (`{ ssh_keys: [...], links, meta }`) becomes one row per item; a single resource
 * (`{ ssh_key: {...} }`) becomes field/value rows; anything else is shown as JSON.
 */
export function renderTable(result: unknown, color = false): string {
  if (!isRecord(result)) return JSON.stringify(result, null, 2);
  const entries = Object.entries(result).filter(([key]) => key !== 'links' && key !== 'meta');
  const lists = entries.filter(([, value]) => Array.isArray(value));
  if (lists.length === 1 && entries.length <= 2) {
    const [key, items] = lists[0] as [string, unknown[]];
    const footer = pageFooter(result, items.length);
    if (items.length === 0) return `No ${key.replace(/_/g, ' ')}.${footer}`;
    return rowsTable(items, color) + footer;
  }
  const single = entries.length === 1 && isRecord(entries[0]?.[1]) ? (entries[0]?.[1] as Row) : result;
  return fieldsTable(single, color);
}

function pageFooter(result: Row, shown: number): string {
  const total =
    isRecord(result.meta) && typeof result.meta.total === 'number' ? result.meta.total : undefined;
  const pages = isRecord(result.links) && isRecord(result.links.pages) ? result.links.pages : undefined;
  const next = typeof pages?.next === 'string' ? new URL(pages.next).searchParams.get('page') : null;
  const parts: string[] = [];
  if (total !== undefined) parts.push(`${shown} shown of ${total}`);
  if (next) parts.push(`more on page ${next} (--Page ${next})`);
  return parts.length ? `\n${parts.join('; ')}` : '';
}

function rowsTable(items: unknown[], color: boolean): string {
  if (!items.every(isRecord)) return items.map((item) => cell(item, 80)).join('\n');
  const rows = items as Row[];
  // Columns: the scalar fields, in the order the first item has them, at most eight.
  const columns: string[] = [];
  for (const row of rows) {
    for (const [key, value] of Object.entries(row)) {
      if (!columns.includes(key) && (value === null || typeof value !== 'object')) columns.push(key);
    }
  }
  const shown = columns.slice(0, 8);
  const table = new Table({ head: shown, style: plain(color, ['bold']), wordWrap: true });
  for (const row of rows) table.push(shown.map((column) => cell(row[column], 48)));
  return table.toString();
}

function fieldsTable(record: Row, color: boolean): string {
  const table = new Table({ style: plain(color, []), wordWrap: true, colWidths: [24, 80] });
  for (const [key, value] of Object.entries(record)) table.push([key, cell(value, 400)]);
  return table.toString();
}

function cell(value: unknown, max: number): string {
  const text =
    value === null || value === undefined
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Colours only on a terminal: a table sent to a file has no escape codes. */
function plain(color: boolean, head: string[]) {
  return color ? { head } : { head: [], border: [] };
}
