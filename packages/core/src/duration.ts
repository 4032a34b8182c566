/**
 * Durations as people type them on a command line (`--timeout 90s`, `--since 2d`): a number with
 * an optional unit, `ms`, `s` (the default), `m`, `h`, `d` or `w`.
 */
const UNIT_MS = { ms: 1, s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 604800e3 } as const;

/** The duration in milliseconds, or undefined when the text is not one. */
export function durationMs(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?\s*$/i.exec(text);
  if (!match) return undefined;
  const unit = (match[2]?.toLowerCase() ?? 's') as keyof typeof UNIT_MS;
  return Number(match[1]) * UNIT_MS[unit];
}
