/**
 * The guard both apps run every tool through. Read-only tools pass untouched. For a tool that
 * changes something, the guard stands between the tool and the API client: reads pass, and at the
 * first mutating request (whatever the tool, request mapping or handler) it finds the target
 * from that request, applies the protection rules, asks for confirmation when the tool is
 * destructive, and only then lets the request go. A plan (dry run) stops at that point instead
 * and describes the request. Every mutating call is written to the audit log, when there is one.
 */

import { userInfo } from 'node:os';
import {
  type AnyTool,
  type ApiClient,
  ApiError,
  type ApiResponse,
  CloudcallError,
  errorReport,
  InputError,
  type InputIssue,
  MAX_DEPTH,
  maskSecrets,
  parseArgs,
  type RequestOptions,
  runTool,
  type ToolContext,
} from '@cloudcall/core';
import { type AuditEntry, type AuditLog, AuditLogError, type FrontEnd, type Outcome } from './audit.js';
import { describeRule, type ProtectRule, protectingRule } from './policy.js';
import { type PriceChange, priceChange } from './prices.js';
import { describeTarget, readTarget, resourceOf, type Target, targetRead, unwrap } from './target.js';

export type Decision = 'accept' | 'decline' | 'cancel';

export interface ConfirmQuestion {
  tool: string;
  target?: Target;
  /** `Delete ... droplet web-1 (id 123)?`: the sentence to show. */
  message: string;
}

export interface GuardOptions {
  frontEnd: FrontEnd;
  /**
   * Who is calling, as a non-secret id written on every audit line (the client key's name, a
   * short hash of a passed-through token). Default: the local user, `local:NAME`.
   */
  caller?: string | undefined;
  rules?: readonly ProtectRule[];
  audit?: AuditLog | undefined;
  /** Asks a person before a destructive call; absent when nobody can be asked. */
  confirm?: ((question: ConfirmQuestion) => Promise<Decision>) | undefined;
  /**
   * A destructive call nobody is asked about: `run` it, or refuse it with this message (such as
   * "add --force"). Ignored when `confirm` is given.
   */
  unconfirmed: 'run' | { refuse: string; hint?: string };
}

/** `local:NAME`: the caller id of a call made by whoever runs this process. */
export function localCaller(): string {
  try {
    return `local:${userInfo().username}`;
  } catch {
    // No user name for this uid (a container running as an unnamed uid).
    return `local:uid-${process.getuid?.() ?? 'unknown'}`;
  }
}

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
 * Arguments and request bodies as logged and shown: secret fields (by the same rules as results,
 * and arguments such as `PrivateKey`) and passwords in URIs hidden. There is no flag to show them.
 */
export function maskArguments(args: unknown): unknown {
  return maskNamed(maskSecrets(capDepth(args, 0)));
}

/**
 * `value` with anything nested deeper than core's `MAX_DEPTH` replaced by a note. The audit entry
 * is made from the raw arguments before they are validated, and walking a value nested 100,000
 * deep would overflow the stack before `parseArgs` could refuse it as an input error.
 */
function capDepth(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return `[nested more than ${MAX_DEPTH} levels deep]`;
  if (Array.isArray(value)) return value.map((item) => capDepth(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, capDepth(item, depth + 1)]));
}

const SECRET_ARGUMENT = /password|private_?key|secret|token|signature|user_?data/i;

function maskNamed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskNamed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      SECRET_ARGUMENT.test(key) && item !== undefined && item !== '' ? '[hidden]' : maskNamed(item),
    ]),
  );
}

/** The first mutating request a tool makes, held back; what a plan or the gate works from. */
class Held extends Error {
  constructor(readonly request: RequestOptions) {
    super('held');
  }
}

/**
 * A client that sends reads as they come and hands the first mutating request to `gate`, which
 * returns only when it may be sent (or throws). Every later request goes straight through.
 */
function gatedClient(
  client: ApiClient,
  gate: (request: RequestOptions) => Promise<void>,
  sent: (response: ApiResponse<unknown>) => void,
): ApiClient {
  let passed = false;
  const gated = Object.create(client) as ApiClient;
  gated.send = async <T>(options: RequestOptions): Promise<ApiResponse<T>> => {
    if (options.method === 'GET' || options.method === 'HEAD') return client.send<T>(options);
    if (!passed) {
      await gate(options);
      passed = true;
      const response = await client.send<T>(options);
      sent(response);
      return response;
    }
    return client.send<T>(options);
  };
  return gated;
}

function targetSummary(target: Target | undefined): Record<string, unknown> | undefined {
  if (!target) return undefined;
  const { kind, id, name, tags, path, part, members } = target;
  return Object.fromEntries(
    Object.entries({
      kind,
      id,
      name,
      tags,
      path,
      part,
      members: members?.map((member) => member.name ?? member.id),
    }).filter(([, value]) => value !== undefined),
  );
}

/** Runs a tool through the guard: what both apps call instead of core's runTool. */
export async function guardedRun(
  tool: AnyTool,
  raw: unknown,
  context: ToolContext,
  options: GuardOptions,
): Promise<unknown> {
  if (tool.annotations.readOnlyHint) return runTool(tool, raw, context);
  const started = Date.now();
  const entry: Omit<AuditEntry, 'outcome' | 'duration_ms'> = {
    time: new Date(started).toISOString(),
    front_end: options.frontEnd,
    caller: options.caller ?? localCaller(),
    tool: tool.name,
    args: maskArguments(raw ?? {}),
  };
  let requestId: string | undefined;
  let target: Target | undefined;
  const finish = (outcome: Outcome, extra: Partial<AuditEntry> = {}) => {
    options.audit?.append({
      ...entry,
      ...(target || entry.target ? { target: targetSummary(target) ?? entry.target } : {}),
      outcome,
      ...extra,
      ...(requestId ? { request_id: requestId } : {}),
      duration_ms: Date.now() - started,
    });
  };

  const gate = async (request: RequestOptions) => {
    const args = parseArgs(tool, raw) as Record<string, unknown>;
    const read = targetRead(request, tool.request?.path, args);
    entry.target = read ? { path: read.path, ...(read.part ? { part: read.part } : {}) } : undefined;
    const destructive = tool.annotations.destructiveHint;
    const rules = options.rules ?? [];
    const asking = destructive && options.confirm !== undefined;
    if (destructive && options.unconfirmed !== 'run' && !options.confirm) {
      const { refuse, hint } = options.unconfirmed;
      throw new GuardRefusal('refused', `${tool.name} is destructive: ${refuse}`, refuse, hint);
    }
    if (read && destructive && (asking || rules.length)) {
      target = await readTarget(context.client, read, context.signal);
      const rule = protectingRule(rules, target);
      if (rule) {
        throw new GuardRefusal(
          'refused',
          `${tool.name} refused: ${describeTarget(target)} is protected by rule ${describeRule(rule)}. Nothing was sent.`,
          `rule ${rule.kind}:${rule.value}`,
          'Protection rules come from --protect and the policy file; the person running cloudcall decides them.',
        );
      }
    }
    if (asking && options.confirm) {
      const what = target ? describeTarget(target) : (read?.path ?? 'the account');
      const decision = await options.confirm({
        tool: tool.name,
        ...(target ? { target } : {}),
        message: `${tool.title} (${tool.name}): ${what}?`,
      });
      if (decision !== 'accept') {
        throw new GuardRefusal(
          'declined',
          `${tool.name} was ${decision === 'cancel' ? 'cancelled' : 'declined'}: nothing was sent.`,
          decision,
        );
      }
    }
  };

  const client = gatedClient(context.client, gate, (response) => {
    requestId = response.requestId;
  });
  let result: unknown;
  try {
    result = await runTool(tool, raw, { ...context, client });
  } catch (error) {
    if (error instanceof GuardRefusal) {
      finish(error.outcome, { reason: error.reason });
    } else {
      const report = errorReport(error);
      if (error instanceof ApiError && !requestId) requestId = error.requestId;
      finish('error', {
        ...(report.status !== undefined ? { status: report.status } : {}),
        error_id: report.error_id,
      });
    }
    throw error;
  }
  try {
    // A call with no target made one (a create): the audit line names what it made.
    if (!target && !entry.target) {
      const made = unwrap(result);
      const resource = resourceOf(made.state);
      if (resource.id !== undefined) entry.target = { kind: made.kind, ...resource };
    }
    finish('ok');
  } catch (error) {
    if (!(error instanceof AuditLogError)) throw error;
    throw new AuditLogError(`${tool.name} was done, but ${error.message}; the change is not recorded`);
  }
  return result;
}

export interface Plan {
  tool: string;
  destructive: boolean;
  /** Whether the arguments pass validation; when not, `issues` says why and there is no request. */
  valid: boolean;
  issues?: InputIssue[];
  /** The first request that would change something, exactly as it would be sent (secrets masked). */
  request?: { method: string; path: string; query?: Record<string, unknown>; body?: unknown };
  /** The resource it would act on, as it is now. */
  target?: {
    description: string;
    kind: string;
    id?: string | number;
    name?: string;
    tags?: string[];
    state: unknown;
  };
  /** When a protection rule would refuse it. */
  refused_by?: string;
  price?: PriceChange | { error: string };
  /** Why there is no request (a read-only tool), or anything else worth knowing. */
  note?: string;
}

/**
 * What a call would do, sending nothing that changes anything: the tool runs against a client
 * that lets reads through and stops at the first mutating request.
 */
export async function planCall(
  tool: AnyTool,
  raw: unknown,
  context: ToolContext,
  rules: readonly ProtectRule[] = [],
): Promise<Plan> {
  const plan: Plan = { tool: tool.name, destructive: tool.annotations.destructiveHint, valid: true };
  let args: Record<string, unknown>;
  try {
    args = parseArgs(tool, raw) as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { ...plan, valid: false, issues: error.issues };
  }
  if (tool.annotations.readOnlyHint) return { ...plan, note: 'read-only tool: it changes nothing' };
  let held: RequestOptions | undefined;
  try {
    const client = gatedClient(
      context.client,
      async (request) => {
        throw new Held(request);
      },
      () => undefined,
    );
    // The raw arguments: runTool parses them itself, and a parsed value (a comma-separated
    // list made an array) would not parse a second time.
    await runTool(tool, raw, { ...context, client });
  } catch (error) {
    if (error instanceof Held) held = error.request;
    else if (error instanceof InputError) return { ...plan, valid: false, issues: error.issues };
    else throw error;
  }
  if (!held) return { ...plan, note: 'the tool sent no mutating request' };
  const query = Object.fromEntries(
    Object.entries(held.query ?? {}).filter(([, value]) => value !== undefined),
  );
  plan.request = {
    method: held.method,
    path: held.path,
    ...(Object.keys(query).length ? { query } : {}),
    ...(held.body !== undefined ? { body: maskArguments(held.body) } : {}),
  };
  const read = targetRead(held, tool.request?.path, args);
  let target: Target | undefined;
  if (read) {
    target = await readTarget(context.client, read, context.signal);
    plan.target = {
      description: describeTarget(target),
      kind: target.kind,
      ...(target.id !== undefined ? { id: target.id } : {}),
      ...(target.name !== undefined ? { name: target.name } : {}),
      ...(target.tags ? { tags: target.tags } : {}),
      state: maskSecrets(target.state),
    };
    const rule = tool.annotations.destructiveHint ? protectingRule(rules, target) : undefined;
    if (rule) plan.refused_by = describeRule(rule);
  }
  try {
    const price = await priceChange(context.client, held, target, context.signal);
    if (price) plan.price = price;
  } catch (error) {
    plan.price = { error: error instanceof Error ? error.message : String(error) };
  }
  return plan;
}
