/**
 * How results look. `json` and `yaml` for programs, `table` (plain aligned columns, default
 * columns per kind of resource), `wide` (more columns) and `tsv` (tab-separated, whole values)
 * for people and shell pipes. `--query` (JMESPath) picks from the result first; `--format`
 * chooses the columns; `--no-header` drops the header row. Colour only when asked for (the
 * caller decides: a terminal, and no NO_COLOR).
 */
import { Option } from 'commander';

export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml', 'tsv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface OutputOptions {
  format: OutputFormat;
  /** `--format`: column headers or dotted paths. */
  columns?: string[] | undefined;
  header?: boolean | undefined;
  /** `--query`: a JMESPath expression, checked with {@link checkQuery} before any request. */
  query?: string | undefined;
  /** stdout is a terminal: JSON is indented there. */
  terminal?: boolean | undefined;
  color?: boolean | undefined;
}

/** Thrown for a `--query` that is not JMESPath, before anything is sent. */
export class QueryError extends Error {}

// JMESPath and YAML are loaded only by the runs that use them: most print a table or JSON.
const jmespath = () => import('@jmespath-community/jmespath');

export async function checkQuery(query: string): Promise<void> {
  const { compile } = await jmespath();
  try {
    compile(query);
  } catch (error) {
    throw new QueryError(`--query: ${(error as Error).message}`);
  }
}

/** Whether to colour: only on a terminal, never with NO_COLOR set (https://no-color.org). */
export function useColor(terminal: boolean, env: Record<string, string | undefined>): boolean {
  return terminal && !env.NO_COLOR && env.TERM !== 'dumb';
}

/**
 * A command's own result (auth list, sandbox status, audit, a plan) in a format, the terminal's
 * defaults applied: indented JSON and colour only on a terminal.
 */
export function formatFor(
  result: unknown,
  format: OutputFormat,
  io: { isTty: boolean; env: Record<string, string | undefined> },
): Promise<string> {
  return formatResult(result, { format, terminal: io.isTty, color: useColor(io.isTty, io.env) });
}

/**
 * `-o`: the formats of the tools' results, and doctl's `text` for `table`. Commander checks the
 * choice (its own message and help); `text` is then read as `table`.
 */
export function outputOption(): Option {
  const option = new Option(
    '-o, --output <format>',
    "default: table on a terminal, json in a pipe; doctl's text is table",
  ).choices([...OUTPUT_FORMATS, 'text']);
  const choose = option.parseArg;
  return option.argParser((value: string, previous: unknown) => {
    const format = choose ? choose(value, previous) : value;
    return format === 'text' ? 'table' : format;
  });
}

export async function formatResult(result: unknown, options: OutputOptions): Promise<string> {
  const shown =
    options.query === undefined ? result : (await jmespath()).search(result as never, options.query);
  switch (options.format) {
    case 'json':
      return `${options.terminal ? JSON.stringify(shown, null, 2) : JSON.stringify(shown)}\n`;
    case 'yaml':
      return (await import('yaml')).stringify(shown);
    default:
      // A kubeconfig reads as the YAML kubectl reads, not as a table.
      if (isKubeconfig(shown)) return (await import('yaml')).stringify(shown);
      // The text formats measure what a terminal shows (string-width, Intl.Segmenter): loaded by
      // the runs that print them, not by help, completion or JSON.
      return (await import('./table.js')).renderText(shown, options);
  }
}

/** Thrown for a `--format` column that is neither a column of the result's kind nor a field of it. */
export class ColumnError extends Error {}

/** A kubeconfig (kubernetes-cluster-get-kubeconfig's answer). */
export function isKubeconfig(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'Config' &&
    Array.isArray((value as { clusters?: unknown }).clusters)
  );
}
