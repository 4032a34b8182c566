/**
 * Time series for the metrics queries, as the platform's Prometheus answers them: a `matrix` of
 * series, each with its labels and `[unix seconds, "value"]` samples, one per step from the start
 * (aligned on the step) to the end, none before the resource existed nor after now.
 *
 * Values are derived, never stored: each series is a function of time seeded by the resource's id
 * (a sum of sines with periods of a day, an hour or so and some minutes), so the same query gives
 * the same numbers in any process, and a later query continues an earlier one. Counters (CPU
 * seconds) are the integral of such a rate, so they only ever grow.
 */
import { badRequest } from '../http.js';

/** One series: its labels, and its value at a time (unix seconds). */
export interface SeriesDef {
  labels: Record<string, string>;
  value: (t: number) => number;
  /** Decimal places answered; 0 for whole numbers (bytes, counts). */
  digits: number;
}

/** The most samples one series holds: the step grows with the range to keep within it. */
export const MAX_POINTS = 300;
/** Steps the sandbox samples at, in seconds: the smallest that keeps a series within MAX_POINTS. */
const STEPS = [60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800];

/** The step for a range of `seconds`. */
export function stepFor(seconds: number): number {
  for (const step of STEPS) if (Math.floor(seconds / step) + 1 <= MAX_POINTS) return step;
  return Math.ceil(seconds / (MAX_POINTS - 1));
}

/** FNV-1a of a text: the seed of everything derived from a resource. */
export function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** A number in [0, 1) from a seed and an index: the same for the same pair. */
export function unit(seed: number, index: number): number {
  let x = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return ((x ^ (x >>> 16)) >>> 0) / 2 ** 32;
}

/** A smooth wave in [-1, 1] and its integral: daily, hourly-ish and minutes-long swings. */
export interface Wave {
  at(t: number): number;
  /** The integral of `at` from `from` to `to`, in value-seconds. */
  integral(from: number, to: number): number;
}

export function wave(key: string): Wave {
  const seed = seedOf(key);
  const parts = [
    { amplitude: 0.5, period: 86_400 },
    { amplitude: 0.3, period: 3_000 + 2_400 * unit(seed, 1) },
    { amplitude: 0.2, period: 420 + 360 * unit(seed, 2) },
  ].map((part, index) => ({ ...part, phase: 2 * Math.PI * unit(seed, 10 + index) }));
  return {
    at: (t) =>
      parts.reduce((sum, p) => sum + p.amplitude * Math.sin((2 * Math.PI * t) / p.period + p.phase), 0),
    integral: (from, to) =>
      parts.reduce((sum, p) => {
        const w = (2 * Math.PI) / p.period;
        return sum + (p.amplitude / w) * (Math.cos(w * from + p.phase) - Math.cos(w * to + p.phase));
      }, 0),
  };
}

/** A wave moved into [0, 1]: how busy something is. */
export const activity = (w: Wave) => (t: number) => 0.5 + 0.5 * w.at(t);

/** A sample's value as the platform writes it: a decimal string, never an exponent. */
export function formatValue(value: number, digits: number): string {
  if (!Number.isFinite(value)) return '0';
  if (digits === 0) return String(Math.round(value));
  const text = value.toFixed(digits);
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** A time query parameter: UNIX seconds (as the description says), or an RFC 3339 time. */
export function timeParam(query: URLSearchParams, name: 'start' | 'end'): number {
  const text = query.get(name);
  if (text === null || text.trim() === '') throw badRequest(`${name} is required: a UNIX timestamp`);
  if (/^\d+(\.\d+)?$/.test(text.trim())) return Number(text);
  const ms = /^\d{4}-\d\d-\d\dT/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) throw badRequest(`${name} must be a UNIX timestamp; got ${JSON.stringify(text)}`);
  return ms / 1000;
}

/** The window a query asks for, checked: start before end. */
export function windowOf(query: URLSearchParams): { start: number; end: number } {
  const start = timeParam(query, 'start');
  const end = timeParam(query, 'end');
  if (!(start < end)) throw badRequest(`start (${start}) must be before end (${end})`);
  return { start, end };
}

/**
 * The platform's answer for `series` over a window: samples from `born` (when the resource came to
 * be) or the start, whichever is later, to the end or now, whichever is earlier. A series with no
 * sample is left out, as Prometheus leaves it out.
 */
export function matrix(
  series: readonly SeriesDef[],
  window: { start: number; end: number },
  born: number,
  nowMs: number,
) {
  const step = stepFor(window.end - window.start);
  const from = Math.ceil(Math.max(window.start, born) / step) * step;
  const to = Math.min(window.end, Math.floor(nowMs / 1000));
  const times: number[] = [];
  for (let t = from; t <= to; t += step) times.push(t);
  const result = times.length
    ? series.map((s) => ({
        metric: { ...s.labels },
        values: times.map((t) => [t, formatValue(s.value(t), s.digits)] as [number, string]),
      }))
    : [];
  return { status: 'success' as const, data: { resultType: 'matrix' as const, result } };
}

/** A required query parameter holding one of `values`. */
export function choiceParam<T extends string>(query: URLSearchParams, name: string, values: readonly T[]): T {
  const value = query.get(name);
  if (value === null || value === '') throw badRequest(`${name} is required: one of ${values.join(', ')}`);
  if (!values.includes(value as T)) {
    throw badRequest(`${name} must be one of ${values.join(', ')}; got ${JSON.stringify(value)}`);
  }
  return value as T;
}
