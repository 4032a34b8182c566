/** The guard's refusal: its own module, so that the quota's refusals (quota.ts) can extend it. */
import { CloudcallError } from '@cloudcall/core';

/** A call the guard stopped before anything was sent. */
export class GuardRefusal extends CloudcallError {
  readonly kind = 'input' as const;
  override name = 'GuardRefusal';
  constructor(
    /** `refused` by a rule or setting, or `declined` by the person asked. */
    readonly outcome: 'refused' | 'declined',
    message: string,
    /** What refused it: the rule, or the setting. */
    readonly reason: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/**
 * Thrown by a `confirm` that cannot wait for its answer (a protocol whose client answers a
 * question in a new request, carrying the question's sealed state): nothing was sent and nothing
 * is recorded, since the call has not happened; the front end turns `question` into its way of
 * asking, and the next round calls the tool again with the answer.
 */
export class ConfirmationPending extends Error {
  override name = 'ConfirmationPending';
  constructor(readonly question: unknown) {
    super('a confirmation question is pending');
  }
}
