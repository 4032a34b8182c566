/**
 * Fair share between the callers of a team service, instead of first come, first served: what
 * each caller holds now (`CallerCounts`), for the limits on requests being answered (http.ts,
 * --max-in-flight-per-caller) and on `wait` calls (server.ts, --max-waits-per-caller, and
 * --max-wait-seconds). A caller is who http.ts says is calling (callerOf): a client key's name,
 * or the hash of a passed-through token.
 */
import type { ErrorReport } from '@cloudcall/core/internal';

/** What each caller holds; callers holding nothing are forgotten, so it is as large as the work in flight. */
export class CallerCounts {
  private readonly counts = new Map<string, number>();

  /** How many `caller` holds now. */
  of(caller: string): number {
    return this.counts.get(caller) ?? 0;
  }

  /** One more for `caller`, when it holds fewer than `most`: true, and `release` gives it back. */
  take(caller: string, most: number): boolean {
    const held = this.of(caller);
    if (held >= most) return false;
    this.counts.set(caller, held + 1);
    return true;
  }

  release(caller: string): void {
    const held = this.of(caller) - 1;
    if (held > 0) this.counts.set(caller, held);
    else this.counts.delete(caller);
  }
}

/** A call refused at a caller's share (`report` says which and what to do): an error result. */
export class ShareRefusal extends Error {
  constructor(readonly report: ErrorReport) {
    super(report.message);
    this.name = 'ShareRefusal';
  }
}

/** Refuses a `wait` past --max-waits-per-caller: nothing was waited for, later it may pass. */
export function waitShareRefusal(most: number): ShareRefusal {
  return new ShareRefusal({
    message: `wait refused: this caller already has ${most} waits in flight on this server, the most one caller may have (--max-waits-per-caller ${most}). Nothing was waited for.`,
    error_id: 'too_many_waits',
    retryable: true,
    hint: 'Let one of your waits end (or cancel one), then call wait again; a wait on a VM that is off with nothing in progress ends at once.',
  });
}

/**
 * A wait's arguments with TimeoutSeconds cut to `most` (--max-wait-seconds) when it asks for
 * longer, or would last longer by default (`fallback`); the wait's own schema checks the rest.
 */
export function boundedWait(
  args: Record<string, unknown>,
  most: number,
  fallback: number,
): Record<string, unknown> {
  const asked = args.TimeoutSeconds ?? fallback;
  return typeof asked === 'number' && asked > most ? { ...args, TimeoutSeconds: most } : args;
}
