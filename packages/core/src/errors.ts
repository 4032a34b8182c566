/**
 * The one error hierarchy of cloudcall. Handlers throw these; the MCP server turns them into
 * `isError` tool results and the CLI into exit codes. No error ever carries a credential.
 */

/**
 * `timeout` and `failed` are a wait's outcomes (WaitTimeoutError, WaitFailedError); a request
 * that got no answer in time is a `network` TimeoutError.
 */
export type ErrorKind = 'api' | 'input' | 'network' | 'cancelled' | 'timeout' | 'failed';

export abstract class CloudcallError extends Error {
  abstract readonly kind: ErrorKind;
}

export interface ApiErrorInit {
  status: number;
  /** The platform's error id, such as `not_found` or `unprocessable_entity`. */
  id: string;
  /** The platform's human-readable message. */
  apiMessage: string;
  requestId?: string | undefined;
  method: string;
  path: string;
  /** Seconds the platform asked us to wait (from `Retry-After`), when it said. */
  retryAfterSeconds?: number | undefined;
  /** How many times the request was sent before this answer was final. */
  attempts?: number | undefined;
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

/** An error response from the platform API: HTTP status plus the `{id, message, request_id}` body. */
export class ApiError extends CloudcallError {
  readonly kind = 'api' as const;
  readonly status: number;
  readonly id: string;
  readonly apiMessage: string;
  readonly requestId: string | undefined;
  readonly method: string;
  readonly path: string;
  readonly retryAfterSeconds: number | undefined;
  readonly attempts: number;

  constructor(init: ApiErrorInit) {
    const request = init.requestId ? `, request id ${init.requestId}` : '';
    super(`${init.apiMessage} (HTTP ${init.status} ${init.id}${request})`);
    this.name = new.target.name;
    this.status = init.status;
    this.id = init.id;
    this.apiMessage = init.apiMessage;
    this.requestId = init.requestId;
    this.method = init.method;
    this.path = init.path;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.attempts = init.attempts ?? 1;
  }

  /**
   * The error as both apps show it: status, error id, request id and the platform's message, and
   * for an answer we retried (such as a 429) how many attempts were made and what `Retry-After` said.
   */
  get summary(): string {
    const request = this.requestId ? `, request id ${this.requestId}` : '';
    const notes: string[] = [];
    if (this.attempts > 1 || this.retryable) {
      notes.push(`gave up after ${this.attempts} attempt${this.attempts === 1 ? '' : 's'}`);
    }
    if (this.retryAfterSeconds !== undefined) {
      notes.push(`Retry-After said ${this.retryAfterSeconds} s`);
    } else if (this.status === 429) {
      notes.push('no Retry-After given');
    }
    const note = notes.length ? ` (${notes.join('; ')})` : '';
    return `API error ${this.status} (${this.id}${request}): ${this.apiMessage}${note}`;
  }

  /** Whether sending the same request again may succeed (rate limits and transient server faults). */
  get retryable(): boolean {
    return RETRYABLE_STATUS.has(this.status);
  }

  static from(init: ApiErrorInit): ApiError {
    return init.status >= 500 ? new ServerApiError(init) : new ClientApiError(init);
  }
}

/** A 4xx answer: the request was wrong, unauthorised, or named something that does not exist. */
export class ClientApiError extends ApiError {}

/** A 5xx answer: the platform failed. */
export class ServerApiError extends ApiError {}

/**
 * An answer that is not the API's: a redirect, or a success whose body is not whole JSON (a proxy's
 * HTML page, a cut-off body). Never reported as success.
 */
export class UnexpectedResponseError extends ApiError {
  readonly contentType: string;

  constructor(init: ApiErrorInit & { contentType: string }) {
    super(init);
    this.contentType = init.contentType;
  }

  override get retryable(): boolean {
    return false;
  }
}

export interface InputIssue {
  /** Dotted path of the offending argument, such as `ForwardingRules.0.EntryPort`. */
  argument: string;
  message: string;
}

/** Arguments that fail validation. Raised before any request is sent. */
export class InputError extends CloudcallError {
  readonly kind = 'input' as const;
  readonly issues: InputIssue[];

  constructor(issues: InputIssue[] | string, argument?: string) {
    const list = typeof issues === 'string' ? [{ argument: argument ?? '', message: issues }] : issues;
    super(
      list
        .map((issue) => (issue.argument ? `argument ${issue.argument}: ${issue.message}` : issue.message))
        .join('; '),
    );
    this.name = 'InputError';
    this.issues = list;
  }

  /** The first argument named, for callers that report one. */
  get argument(): string {
    return this.issues[0]?.argument ?? '';
  }
}

/** The platform could not be reached, or the connection failed before an answer arrived. */
export class NetworkError extends CloudcallError {
  readonly kind = 'network' as const;
  /** The low-level error code (ECONNREFUSED, UND_ERR_SOCKET...), when there is one. */
  readonly code: string | undefined;

  constructor(message: string, options?: { code?: string | undefined; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options?.code;
  }
}

/** No answer in time: connect timeout, response timeout, or the overall deadline of a call. */
export class TimeoutError extends NetworkError {}

/** The caller cancelled the call through its AbortSignal. */
export class CancelledError extends CloudcallError {
  readonly kind = 'cancelled' as const;

  constructor(message = 'The request was cancelled.') {
    super(message);
    this.name = 'CancelledError';
  }
}

/** What a wait watches, named as the `wait` tool's arguments name it. */
export interface WaitTarget {
  /** `action`, `vm`, `database`, `load-balancer`, `database-replica`... (the `wait` tool's kinds). */
  kind: string;
  id: string;
  /** The name that completes the id, for kinds addressed by two (a replica: cluster id and name). */
  name?: string;
}

export interface WaitErrorInit {
  target: WaitTarget;
  /** The last answer read (such as `{ droplet: {...} }`); undefined when none arrived. */
  lastObserved: unknown;
  /** The status (or state) in the last answer. */
  lastStatus: string | undefined;
  /** Seconds waited. */
  waitedSeconds: number;
  cause?: unknown;
}

/**
 * A wait ran out of time before its target was ready. Nothing failed: waiting again (the message
 * says how) picks up where this one stopped.
 */
export class WaitTimeoutError extends CloudcallError {
  readonly kind = 'timeout' as const;
  readonly target: WaitTarget;
  readonly lastObserved: unknown;
  readonly lastStatus: string | undefined;
  readonly waitedSeconds: number;
  /** Waiting again may succeed. */
  readonly retryable = true;

  constructor(message: string, init: WaitErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'WaitTimeoutError';
    this.target = init.target;
    this.lastObserved = init.lastObserved;
    this.lastStatus = init.lastStatus;
    this.waitedSeconds = init.waitedSeconds;
  }
}

/**
 * What a wait watched ended in an error state (an `errored` action or load balancer, a
 * certificate in `error`): it will never be ready, so waiting again cannot help.
 */
export class WaitFailedError extends CloudcallError {
  readonly kind = 'failed' as const;
  readonly target: WaitTarget;
  readonly lastObserved: unknown;
  /** The error state, such as `errored`. */
  readonly lastStatus: string;
  readonly waitedSeconds: number;
  readonly retryable = false;

  constructor(message: string, init: WaitErrorInit & { lastStatus: string }) {
    super(message);
    this.name = 'WaitFailedError';
    this.target = init.target;
    this.lastObserved = init.lastObserved;
    this.lastStatus = init.lastStatus;
    this.waitedSeconds = init.waitedSeconds;
  }
}

/** Removes every occurrence of the given secrets from a text. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    // Looked for first: nearly every text has none, and a search allocates nothing.
    if (secret && secret.length >= 4 && out.includes(secret)) out = out.replaceAll(secret, '[REDACTED]');
  }
  return out;
}

/** A one-line description of any thrown value, never `[object Object]`. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
