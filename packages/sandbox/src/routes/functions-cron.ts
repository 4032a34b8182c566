/**
 * Cron expressions as scheduled triggers take them: five fields (minute, hour, day of month, month,
 * day of week), each `*`, a value, a range `a-b`, a step `*\/n` or `a-b/n`, or a comma list of those;
 * months and weekdays also by their English three-letter names; 0 and 7 are both Sunday. As in
 * standard cron, when both the day of month and the day of week are restricted, a day matching
 * either runs. Times are UTC.
 */

export interface Cron {
  minutes: boolean[];
  hours: boolean[];
  days: boolean[];
  months: boolean[];
  weekdays: boolean[];
  /** Whether the day of month, and the day of week, are restricted (not `*`). */
  daysRestricted: boolean;
  weekdaysRestricted: boolean;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS, base: 1 },
  { name: 'day of week', min: 0, max: 7, names: WEEKDAYS, base: 0 },
] as const;

/** Parses a cron expression; throws an Error saying what is wrong. */
export function parseCron(expression: string): Cron {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5) {
    throw new Error(`a cron expression has 5 fields (minute hour day month weekday); got ${parts.length}`);
  }
  const sets = parts.map((part, i) => parseField(part, FIELDS[i] as (typeof FIELDS)[number]));
  const [minutes, hours, days, months, rawWeekdays] = sets as [
    boolean[],
    boolean[],
    boolean[],
    boolean[],
    boolean[],
  ];
  // 7 is Sunday too.
  const weekdays = rawWeekdays.slice(0, 7);
  if (rawWeekdays[7]) weekdays[0] = true;
  return {
    minutes,
    hours,
    days,
    months,
    weekdays,
    daysRestricted: parts[2] !== '*',
    weekdaysRestricted: parts[4] !== '*',
  };
}

function parseField(
  text: string,
  field: { name: string; min: number; max: number; names?: readonly string[]; base?: number },
): boolean[] {
  const set = Array<boolean>(field.max + 1).fill(false);
  const value = (token: string): number => {
    const named = field.names?.indexOf(token.toUpperCase()) ?? -1;
    const n = named >= 0 ? named + (field.base ?? 0) : /^\d+$/.test(token) ? Number(token) : Number.NaN;
    if (!Number.isInteger(n) || n < field.min || n > field.max) {
      throw new Error(`${field.name} ${JSON.stringify(token)} is not within ${field.min}-${field.max}`);
    }
    return n;
  };
  for (const item of text.split(',')) {
    const [range = '', stepText, extra] = item.split('/');
    if (extra !== undefined || range === '')
      throw new Error(`${field.name} ${JSON.stringify(item)} is not valid`);
    const step = stepText === undefined ? 1 : /^[1-9]\d*$/.test(stepText) ? Number(stepText) : 0;
    if (step === 0)
      throw new Error(`${field.name} step ${JSON.stringify(stepText)} is not a positive number`);
    let from: number;
    let to: number;
    if (range === '*') {
      [from, to] = [field.min, field.max];
    } else if (range.includes('-')) {
      const [a = '', b = ''] = range.split('-');
      [from, to] = [value(a), value(b)];
      if (from > to) throw new Error(`${field.name} range ${range} runs backwards`);
    } else {
      from = value(range);
      to = stepText === undefined ? from : field.max;
    }
    for (let n = from; n <= to; n += step) set[n] = true;
  }
  return set;
}

const MINUTE = 60_000;
const DAY = 86_400_000;

function dayMatches(cron: Cron, dayStart: number): boolean {
  const date = new Date(dayStart);
  if (!cron.months[date.getUTCMonth() + 1]) return false;
  const byDay = cron.days[date.getUTCDate()] === true;
  const byWeekday = cron.weekdays[date.getUTCDay()] === true;
  if (cron.daysRestricted && cron.weekdaysRestricted) return byDay || byWeekday;
  return byDay && byWeekday;
}

/** How far the searches look: a schedule that never comes within it (February 30th) never runs. */
const SEARCH_DAYS = 366 * 5;

/** The first time the schedule runs strictly after `after`, or null when it never does. */
export function nextRun(cron: Cron, after: number): number | null {
  const first = Math.floor(after / MINUTE) * MINUTE + MINUTE;
  let dayStart = Math.floor(first / DAY) * DAY;
  for (let i = 0; i < SEARCH_DAYS; i++, dayStart += DAY) {
    if (!dayMatches(cron, dayStart)) continue;
    for (let hour = 0; hour < 24; hour++) {
      if (!cron.hours[hour]) continue;
      for (let minute = 0; minute < 60; minute++) {
        const at = dayStart + hour * 3_600_000 + minute * MINUTE;
        if (cron.minutes[minute] && at >= first) return at;
      }
    }
  }
  return null;
}

/** The last time the schedule ran at or before `atOrBefore` and at or after `notBefore`, or null. */
export function lastRun(cron: Cron, atOrBefore: number, notBefore: number): number | null {
  const last = Math.floor(atOrBefore / MINUTE) * MINUTE;
  let dayStart = Math.floor(last / DAY) * DAY;
  for (let i = 0; i < SEARCH_DAYS && dayStart + DAY > notBefore; i++, dayStart -= DAY) {
    if (!dayMatches(cron, dayStart)) continue;
    for (let hour = 23; hour >= 0; hour--) {
      if (!cron.hours[hour]) continue;
      for (let minute = 59; minute >= 0; minute--) {
        const at = dayStart + hour * 3_600_000 + minute * MINUTE;
        if (cron.minutes[minute] && at <= last) return at >= notBefore ? at : null;
      }
    }
  }
  return null;
}
