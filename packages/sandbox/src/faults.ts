/**
 * Faults on request, for tests: answer the next matching requests with a 429 (or any error
 * status) instead of serving them, count matching requests, and report a chosen request budget.
 * Rules live in the world, so a rule set by one process (a test) is met by whichever process
 * answers the request (the server under test, on the same state file), and is used up once.
 */
import { STATUS_CODES } from 'node:http';
import type { Store } from './store.js';

/** Which requests a rule applies to. */
export interface RequestMatch {
  /** Only this method, such as `GET` (any when absent). */
  method?: string;
  /**
   * Only this path and the paths below it, whole segments only: `/v2/droplets` matches
   * `/v2/droplets` and `/v2/droplets/7`, not `/v2/droplets_x`. Any path when absent. The query
   * is not part of the path.
   */
  path?: string;
}

/** A fault to answer instead of serving matching requests. */
export interface SandboxFault extends RequestMatch {
  /** The status to answer: 429 (the default) or another 4xx/5xx. */
  status?: number;
  /** Seconds sent in `Retry-After`; none when absent. */
  retryAfterSeconds?: number;
  /** How many matching requests get the fault (default 1). 0 answers none and only counts them. */
  times?: number;
  /** The error message; the platform's own for a 429, a generic one otherwise. */
  message?: string;
  /**
   * Serve the request first, then answer the fault instead of its answer: a change made whose
   * answer was lost on the way back (a proxy's 503 after the platform acted).
   */
  afterServing?: boolean;
}

/** A rule as the world keeps it. */
export interface FaultRule {
  id: number;
  method?: string;
  path?: string;
  status: number;
  retryAfterSeconds?: number;
  message?: string;
  afterServing?: boolean;
  /** Faults still to answer. */
  remaining: number;
  /** Requests that matched, faulted or not, since the rule was set. */
  matched: number;
}

/** The request budget to report instead of the counted one. */
export interface RateLimitSetting {
  /** Requests left, reported as is on every answer until cleared. */
  remaining: number;
  /** The budget per hour; 5000 (the platform's) by default. */
  limit?: number;
  /** Seconds from now until the reported reset; an hour by default. */
  resetInSeconds?: number;
}

export interface FaultState {
  rules: FaultRule[];
  nextId: number;
  /** The budget every answer reports, when a test set one. */
  rateLimit?: { limit: number; remaining: number; reset: number };
}

export const seedFaults = (): FaultState => ({ rules: [], nextId: 1 });

/** The request header that asks for a fault on that one request: `429` or `503; retry-after=2`. */
export const FAULT_HEADER = 'x-sandbox-fault';

/** The budget the platform grants a token per hour. */
export const RATE_LIMIT = 5000;

interface WithFaults {
  faults: FaultState;
}

/** Adds a rule and returns its id. Throws a TypeError for a fault no platform would answer. */
export function addRule(state: FaultState, fault: SandboxFault): number {
  const status = fault.status ?? 429;
  if (!Number.isInteger(status) || status < 400 || status > 599) {
    throw new TypeError(`a fault's status is an error status (400-599), not ${status}`);
  }
  const times = fault.times ?? 1;
  if (!Number.isInteger(times) || times < 0) throw new TypeError('times is a whole number, 0 or more');
  const retry = fault.retryAfterSeconds;
  if (retry !== undefined && (!Number.isInteger(retry) || retry < 0)) {
    throw new TypeError('retryAfterSeconds is a whole number of seconds');
  }
  if (fault.path !== undefined && !fault.path.startsWith('/')) {
    throw new TypeError(`a fault's path starts with "/", such as /v2/droplets; got ${fault.path}`);
  }
  const rule: FaultRule = { id: state.nextId++, status, remaining: times, matched: 0 };
  if (fault.method !== undefined) rule.method = fault.method.toUpperCase();
  if (fault.path !== undefined) rule.path = fault.path.replace(/\/+$/, '') || '/';
  if (retry !== undefined) rule.retryAfterSeconds = retry;
  if (fault.message !== undefined) rule.message = fault.message;
  if (fault.afterServing) rule.afterServing = true;
  state.rules.push(rule);
  return rule.id;
}

export function setRateLimit(state: FaultState, setting: RateLimitSetting | undefined, now: number): void {
  if (setting === undefined) {
    delete state.rateLimit;
    return;
  }
  const limit = setting.limit ?? RATE_LIMIT;
  if (!Number.isInteger(setting.remaining) || setting.remaining < 0 || setting.remaining > limit) {
    throw new TypeError(`remaining is a whole number from 0 to the limit (${limit})`);
  }
  state.rateLimit = {
    limit,
    remaining: setting.remaining,
    reset: Math.ceil(now / 1000) + (setting.resetInSeconds ?? 3600),
  };
}

function matches(rule: FaultRule, method: string, path: string): boolean {
  if (rule.method !== undefined && rule.method !== method) return false;
  if (rule.path === undefined || rule.path === '/') return true;
  return path === rule.path || path.startsWith(`${rule.path}/`);
}

/**
 * Counts the request against every rule it matches, and takes the first fault still to answer
 * (undefined when none). Only a request that some rule matches costs a write: the check itself
 * is a read.
 */
export async function takeFault<W extends WithFaults>(
  store: Store<W>,
  method: string,
  path: string,
): Promise<FaultRule | undefined> {
  const any = await store.read((world) => world.faults.rules.some((rule) => matches(rule, method, path)));
  if (!any) return undefined;
  // Decided again under the write lock: two processes never both take a fault meant for one request.
  return store.write((world) => {
    let taken: FaultRule | undefined;
    for (const rule of world.faults.rules) {
      if (!matches(rule, method, path)) continue;
      rule.matched++;
      if (!taken && rule.remaining > 0) {
        rule.remaining--;
        taken = { ...rule };
      }
    }
    return taken;
  });
}

/** A FAULT_HEADER that does not say a fault: the request is answered 400 with this message. */
export class FaultHeaderError extends Error {}

/** The fault a request asks for in its FAULT_HEADER, undefined when it asks for none. */
export function headerFault(value: string | string[] | undefined): FaultRule | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const found = /^\s*(\d{3})\s*(?:;\s*retry-after\s*=\s*(\d{1,6})\s*)?$/i.exec(text);
  const status = Number(found?.[1]);
  if (!found || status < 400 || status > 599) {
    throw new FaultHeaderError(
      `The ${FAULT_HEADER} header must be an error status, optionally with a Retry-After, such as "429; retry-after=1".`,
    );
  }
  const rule: FaultRule = { id: 0, status, remaining: 0, matched: 1 };
  if (found[2] !== undefined) rule.retryAfterSeconds = Number(found[2]);
  return rule;
}

/**
 * The answer to a faulted request: the platform's error body and, for a 429, an empty budget
 * that resets when `Retry-After` says.
 */
export function faultAnswer(
  fault: FaultRule,
  requestId: string,
  now: number,
  budget: Record<string, string>,
): { status: number; body: unknown; headers: Record<string, string> } {
  const headers: Record<string, string> = { ...budget };
  if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
  if (fault.status === 429) {
    headers['ratelimit-remaining'] = '0';
    if (fault.retryAfterSeconds !== undefined) {
      headers['ratelimit-reset'] = String(Math.ceil(now / 1000) + fault.retryAfterSeconds);
    }
  }
  const id =
    fault.status === 429
      ? 'too_many_requests'
      : fault.status >= 500 && fault.status !== 503
        ? 'server_error'
        : (STATUS_CODES[fault.status] ?? 'error').toLowerCase().replace(/[^a-z]+/g, '_');
  const message =
    fault.message ??
    (fault.status === 429
      ? 'API Rate limit exceeded.'
      : `The sandbox answered ${fault.status} because a test asked it to.`);
  return { status: fault.status, body: { id, message, request_id: requestId }, headers };
}
