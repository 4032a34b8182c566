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
