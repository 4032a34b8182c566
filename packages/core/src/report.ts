/**
 * A failed call as facts a program can act on: what kind of failure, whether trying again can
 * help and when, and the platform's ids. The MCP server returns it as an error result's
 * `structuredContent`; the CLI prints its message. Hints are added by the app layer (the catalog),
 * which knows the tools a hint can name.
 */
import {
  ApiError,
  CloudcallError,
  describeError,
  InputError,
  type InputIssue,
  WaitFailedError,
  WaitTimeoutError,
} from './errors.js';

export interface ErrorReport {
  /** The one-line message both apps show. */
  message: string;
  /** The platform's error id (`not_found`, `unprocessable_entity`...) or cloudcall's own kind. */
  error_id: string;
  /** The HTTP status, when the platform answered. */
  status?: number;
  request_id?: string;
  /** Whether the same call may succeed later, unchanged. */
  retryable: boolean;
  /** Seconds to wait before retrying, when the platform said (`Retry-After`). */
  retry_after_seconds?: number;
  /** The arguments refused before any request was sent. */
  issues?: InputIssue[];
  /** A wait that ended without its target ready: what it watched and the last state seen. */
  target?: { kind: string; id: string };
  last_status?: string;
  last_observed?: unknown;
  waited_seconds?: number;
  /** What to do about it. */
  hint?: string;
}

/** The report of any thrown value; never carries a credential (errors never hold one). */
export function errorReport(error: unknown): ErrorReport {
  if (error instanceof ApiError) {
    const report: ErrorReport = {
      message: error.summary,
      error_id: error.id,
      status: error.status,
      retryable: error.retryable,
    };
    if (error.requestId) report.request_id = error.requestId;
    if (error.retryAfterSeconds !== undefined) report.retry_after_seconds = error.retryAfterSeconds;
    return report;
  }
  if (error instanceof InputError) {
    return {
      message: `Invalid arguments: ${error.message}`,
      error_id: 'invalid_arguments',
      retryable: false,
      issues: error.issues,
    };
  }
  if (error instanceof WaitTimeoutError || error instanceof WaitFailedError) {
    const report: ErrorReport = {
      message: error.message,
      error_id: error instanceof WaitTimeoutError ? 'wait_timeout' : 'wait_failed',
      retryable: error.retryable,
      target: error.target,
      waited_seconds: error.waitedSeconds,
    };
    if (error.lastStatus !== undefined) report.last_status = error.lastStatus;
    if (error.lastObserved !== undefined) report.last_observed = error.lastObserved;
    return report;
  }
  if (error instanceof CloudcallError) {
    if (error.kind === 'network') {
      return { message: `Network error: ${error.message}`, error_id: 'network_error', retryable: true };
    }
    return { message: error.message, error_id: error.kind, retryable: false };
  }
  return { message: `Internal error: ${describeError(error)}`, error_id: 'internal_error', retryable: false };
}
