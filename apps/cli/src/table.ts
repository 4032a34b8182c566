/**
 * The text formats of results (output.ts chooses the format): `table` (plain aligned columns,
 * default columns per kind of resource), `wide` (more columns) and `tsv` (tab-separated, whole
 * values), measured in the cells a terminal shows.
 */
import { styleText } from 'node:util';
import { showControls } from '@cloudcall/core/internal';
import stringWidth from 'string-width';
import {
  type Column,
  cellValue,
  chosenColumns,
  columnsFor,
  emptyListText,
  headerOf,
  knownColumns,
  rowsOf,
} from './columns.js';
import { ColumnError, type OutputFormat, type OutputOptions } from './output.js';

type Row = Record<string, unknown>;

const isRecord = (value: unknown): value is Row =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isScalar = (value: unknown) => value === null || typeof value !== 'object';

/** What a result holds, for the text formats: rows of one kind, one resource, or a plain value. */
function shapeOf(result: unknown): { key?: string; items?: unknown[]; single?: Row; value?: unknown } {
  if (Array.isArray(result)) return { items: result };
  if (!isRecord(result)) return { value: result };
  const rows = rowsOf(result);
  if (rows) return rows;
  const entries = Object.entries(result).filter(([key]) => key !== 'links' && key !== 'meta');
  const lists = entries.filter(([, value]) => Array.isArray(value));
  if (lists.length === 1) {
    const [key, items] = lists[0] as [string, unknown[]];
    return { key, items };
  }
  if (entries.length === 1 && isRecord(entries[0]?.[1])) {
    const [key, single] = entries[0] as [string, Row];
    return { key, single };
  }
  return { single: result };
}

/** A result in one of the text formats: table, wide or tsv. */
export function renderText(result: unknown, options: OutputOptions): string {
  const { format } = options;
  const wide = format === 'wide';
  const header = options.header !== false;
  const shape = shapeOf(result);
  if (shape.value !== undefined || (shape.items === undefined && shape.single === undefined)) {
    return `${text(shape.value, format)}\n`;
  }
  const items = shape.items ?? [shape.single];
  let columns: Column[] | undefined = options.columns?.length
    ? chosenColumns(options.columns, shape.key)
    : shape.key
      ? columnsFor(shape.key, wide)
      : undefined;
  if (!columns && shape.single && !shape.items) return fieldLines(shape.single, options);
  if (!columns && !items.every(isRecord)) return items.map((item) => `${text(item, format)}\n`).join('');
  if (options.columns?.length && columns) checkColumns(columns, items, shape.key);
  columns ??= automaticColumns(items as Row[], wide, options.query !== undefined);
  if (!options.columns?.length) {
    columns = columns.filter(
      (column) =>
        !column.whenSet || items.some((item) => isRecord(item) && cellValue(item, column) !== undefined),
    );
  }
  const body = (items as Row[]).map((item) =>
    columns.map((column) => cell(cellValue(item, column), column, format)),
  );
  const heads = columns.map((column) => column.header);
  if (format === 'tsv') {
    return (header ? [heads, ...body] : body).map((row) => `${row.join('\t')}\n`).join('');
  }
  const footer = header && shape.items && isRecord(result) ? pageFooter(result, items.length) : '';
  if (shape.items && items.length === 0 && header && !options.columns?.length) {
    return `${emptyListText(shape.key)}${footer}\n`;
  }
  return `${aligned(heads, body, header, options.color === true)}${footer}\n`;
}

/**
 * Refuses `--format` columns that name nothing: not a default column of the kind, and a path that
 * no item has (a typo such as `Nmae` would otherwise print an empty column). With no items there is
 * nothing to check a path against, and it is let be.
 */
function checkColumns(columns: readonly Column[], items: readonly unknown[], key: string | undefined): void {
  const known = key ? (knownColumns(key) ?? []) : [];
  const unknown = columns.filter(
    (column) =>
      !known.includes(column) &&
      items.length > 0 &&
      items.every((item) => !isRecord(item) || cellValue(item, column) === undefined),
  );
  if (!unknown.length) return;
  const names = unknown.map((column) => JSON.stringify(column.header)).join(', ');
  const offered = known.length
    ? `columns: ${known.map((column) => column.header.replace(/\s+/g, '')).join(', ')}; or `
    : '';
  throw new ColumnError(
    `--format: no column or field ${names} in this result (${offered}a field path such as ${pathExample(items)})`,
  );
}

/** A field path the items have, for a hint: `name`, or else their first field. */
function pathExample(items: readonly unknown[]): string {
  const first = items.find(isRecord);
  if (!first) return 'name';
  return 'name' in first ? 'name' : (Object.keys(first)[0] ?? 'name');
}

/**
 * The scalar fields of the items, in the order they come: at most eight unless wide, headed in
 * Title Case; a `--query` projection's keys are the caller's own words, and head their columns as
 * written.
 */
function automaticColumns(items: Row[], wide: boolean, asWritten: boolean): Column[] {
  const names: string[] = [];
  for (const item of items) {
    for (const [key, value] of Object.entries(item))
      if (!names.includes(key) && isScalar(value)) names.push(key);
  }
  const shown = wide ? names : names.slice(0, 8);
  return shown.map((name) => ({ header: asWritten ? name : headerOf(name), path: name }));
}

/** A single resource of no known kind: one `Field  value` line per field. */
function fieldLines(record: Row, options: OutputOptions): string {
  const entries = Object.entries(record).map(
    ([key, value]) => [options.query === undefined ? headerOf(key) : key, value] as const,
  );
  if (options.format === 'tsv') {
    return entries.map(([key, value]) => `${key}\t${text(value, 'tsv')}\n`).join('');
  }
  const width = Math.max(0, ...entries.map(([key]) => key.length));
  return entries
    .map(([key, value]) => {
      const name = key.padEnd(width);
      return `${options.color ? styleText('bold', name) : name}  ${text(value, options.format, 400)}\n`;
    })
    .join('');
}

/**
 * A column's cell: a `lines` column's list one item a line (`; `-joined in tsv, which keeps a row
 * a line), each line given more room than a cell as it has a line to itself; any other value as
 * `text` shows it.
 */
function cell(value: unknown, column: Column, format: OutputFormat): string {
  if (!column.lines || !Array.isArray(value)) return text(value, format);
  const lines = value.map((item) => text(item, format, 100));
  return lines.join(format === 'tsv' ? '; ' : '\n');
}

/**
 * A cell: lists of plain values comma-joined; objects summarized for people (`summary`), whole
 * JSON in tsv; cut in `table`, whole otherwise.
 */
function text(value: unknown, format: OutputFormat, max = 48): string {
  let shown: string;
  if (value === null || value === undefined) shown = '';
  else if (Array.isArray(value) && value.every(isScalar)) {
    if (format === 'table')
      return listToCells(
        value.map((item) => text(item, format, max)),
        max,
      );
    shown = value.join(',');
  } else if (typeof value === 'object') shown = format === 'tsv' ? JSON.stringify(value) : summary(value);
  else shown = String(value);
  // A value's own control characters are shown escaped (`\n`, `\x1b`, `\u202e`): a name cannot
  // break a row, recolour the terminal or reverse the cells after it. TSV keeps values whole
  // but for its own separators, tabs and line breaks, which become spaces.
  if (format === 'tsv') return showControls(shown.replace(/[\t\r\n]+/g, ' '));
  shown = showControls(shown);
  return format === 'table' ? cutToCells(shown, max) : shown;
}

/**
 * A nested value in words rather than JSON: an object by what names it (`slug`, `name`, `id` or
 * `urn`: a region is `nyc3`), else its fields as `key=value`; a list of them `; `-joined.
 */
export function summary(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) {
    return value.every(isScalar) ? value.join(',') : value.map(summary).filter(Boolean).join('; ');
  }
  if (!isRecord(value)) return String(value);
  for (const field of ['slug', 'name', 'id', 'urn']) {
    const handle = value[field];
    if (typeof handle === 'string' || typeof handle === 'number') return String(handle);
  }
  return Object.entries(value)
    .filter(([, field]) => field !== null && field !== undefined && field !== '')
    .map(
      ([key, field]) =>
        `${key}=${isScalar(field) || (Array.isArray(field) && field.every(isScalar)) ? summary(field) : `(${summary(field)})`}`,
    )
    .join(' ');
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * `text` in at most `max` terminal cells, cut with `…` between whole characters (never inside an
 * emoji or a letter with its accents); a double-width character counts two cells.
 */
export function cutToCells(text: string, max: number): string {
  if (stringWidth(text) <= max) return text;
  let kept = '';
  let width = 0;
  for (const { segment } of graphemes.segment(text)) {
    const cells = stringWidth(segment);
    if (width + cells > max - 1) break;
    kept += segment;
    width += cells;
  }
  return `${kept}…`;
}

/**
 * A list in at most `max` cells, cut between items and saying how many are left out:
 * `ams3,blr1,fra1 (+8 more)`, so that a cut list never looks whole.
 */
function listToCells(items: readonly string[], max: number): string {
  const whole = items.join(',');
  if (stringWidth(whole) <= max) return whole;
  for (let kept = items.length - 1; kept > 0; kept--) {
    const shown = `${items.slice(0, kept).join(',')} (+${items.length - kept} more)`;
    if (stringWidth(shown) <= max) return shown;
  }
  return cutToCells(`${items[0]} (+${items.length - 1} more)`, max);
}

/** Colours of a Status cell on a terminal. */
const STATUS_COLORS: Record<string, 'green' | 'yellow' | 'red'> = {
  active: 'green',
  available: 'green',
  completed: 'green',
  online: 'green',
  new: 'yellow',
  'in-progress': 'yellow',
  pending: 'yellow',
  creating: 'yellow',
  resizing: 'yellow',
  migrating: 'yellow',
  off: 'red',
  errored: 'red',
  error: 'red',
  archive: 'red',
};

/**
 * Plain aligned columns, two spaces apart, like doctl and kubectl; widths in terminal cells, so a
 * Japanese name or an emoji (two cells each) keeps the columns after it in line. A cell of several
 * lines (a firewall's rules) continues on the lines below its row, the other columns blank there.
 */
function aligned(heads: string[], body: string[][], header: boolean, color: boolean): string {
  const rows = (header ? [heads] : []).concat(
    body.flatMap((row) => {
      const split = row.map((value) => value.split('\n'));
      const height = Math.max(1, ...split.map((lines) => lines.length));
      return Array.from({ length: height }, (_, line) => split.map((lines) => lines[line] ?? ''));
    }),
  );
  const widths = heads.map((_, index) => Math.max(...rows.map((row) => stringWidth(row[index] ?? ''))));
  const status = heads.findIndex((head) => /^(status|state)$/i.test(head));
  const lines = rows.map((row, rowIndex) =>
    row
      .map((cell, index) => {
        const padded =
          index === row.length - 1 ? cell : cell + ' '.repeat((widths[index] ?? 0) - stringWidth(cell));
        if (!color) return padded;
        if (header && rowIndex === 0) return styleText('bold', padded);
        const tint = index === status ? STATUS_COLORS[cell] : undefined;
        return tint ? styleText(tint, padded) : padded;
      })
      .join('  ')
      .trimEnd(),
  );
  return lines.join('\n');
}

function pageFooter(result: Row, shown: number): string {
  const total =
    isRecord(result.meta) && typeof result.meta.total === 'number' ? result.meta.total : undefined;
  const pages = isRecord(result.links) && isRecord(result.links.pages) ? result.links.pages : undefined;
  const next = typeof pages?.next === 'string' ? new URL(pages.next).searchParams.get('page') : null;
  const parts: string[] = [];
  if (total !== undefined && total !== shown) parts.push(`${shown} shown of ${total}`);
  if (next) parts.push(`more on page ${next} (--page ${next})`);
  return parts.length ? `\n${parts.join('; ')}` : '';
}
