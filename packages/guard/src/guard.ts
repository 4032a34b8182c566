/**
 * The guard both apps run every tool through. Read-only tools run as they are: core's client
 * refuses any request of theirs but a read. For a tool that changes something, the guard is the
 * API client's hook before every mutating request (whatever the tool, request mapping or
 * handler): it reads what the request would change, applies the protection rules, asks for
 * confirmation before a destructive tool's first request, writes the audit intent, and only then
 * lets the request go. A plan (dry run) stops at the first mutating request instead and describes
 * it. Every mutating call ends with an outcome line in the audit log, when there is one.
 */
import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { destroys } from '@cloudcall/api/model';
import {
  type AnyTool,
  ApiError,
  InputError,
  type InputIssue,
  maskSecrets,
  parseArgs,
  type RequestOptions,
  runTool,
  type ToolContext,
} from '@cloudcall/core';
import { errorReport, MAX_DEPTH, showControls } from '@cloudcall/core/internal';
import {
  type AuditEntry,
  type AuditLog,
  AuditLogError,
  type AuditRequest,
  type FrontEnd,
  type Outcome,
  shortenArguments,
} from './audit.js';
import { describeRule, type ProtectRule, protectingRule, protectsAnything } from './policy.js';
import { type PriceChange, priceChange } from './prices.js';
import { countRequest, type Quota } from './quota.js';
import { ConfirmationPending, GuardRefusal } from './refusal.js';
import {
  type Changes,
  changesOf,
  describeTarget,
  requestOperation,
  resourceOf,
  type Target,
  unwrap,
} from './target.js';

export { ConfirmationPending, GuardRefusal };

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
  /**
   * The JSON-RPC id of the MCP request (tools/call) that made the call, written on its audit
   * lines: how a client that lost the answer (a 502) finds out with `audit-list` whether it ran.
   */
  rpcId?: string | number | undefined;
  rules?: readonly ProtectRule[];
  audit?: AuditLog | undefined;
  /** Asks a person before a destructive call; absent when nobody can be asked. */
  confirm?: ((question: ConfirmQuestion) => Promise<Decision>) | undefined;
  /**
   * A destructive call nobody is asked about: `run` it, or refuse it with this message (such as
   * "add --force"). Ignored when `confirm` is given.
   */
  unconfirmed: 'run' | { refuse: string; hint?: string };
  /**
   * Quotas per caller: each mutating request counts as a write, and as a delete too when it
   * destroys (as confirmation decides). Counted after the rules and the confirmation and before
   * the intent line; a request over a limit is refused (QuotaExceeded) and not counted, one whose
   * count cannot be kept (QuotaUnavailable) is not sent. Absent: no quotas (the CLI).
   */
  quota?: Quota | undefined;
}

/**
 * The prefixes of caller ids the apps make themselves: `local:` (this process's user), `cli:` (a
 * CLI context), `token:` (a passed-through token's hash), `key:` (an unnamed client key). A name
 * given to anything else (a client key's) must not start with one, or it would read another
 * caller's audit lines.
 */
export const CALLER_PREFIXES = ['local:', 'cli:', 'token:', 'key:'] as const;

/** `local:NAME`: the caller id of a call made by whoever runs this process. */
export function localCaller(): string {
  try {
    return `local:${userInfo().username}`;
  } catch {
    // No user name for this uid (a container running as an unnamed uid).
    return `local:uid-${process.getuid?.() ?? 'unknown'}`;
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

/**
 * A JSON-RPC id as recorded: a client may send any string, so a long one is cut (and then cannot
 * be looked up; no client makes ids that long).
 */
function rpcIdOf(id: string | number): string | number {
  return typeof id === 'string' && id.length > MAX_RPC_ID ? `${id.slice(0, MAX_RPC_ID)}…` : id;
}

/** The longest JSON-RPC id recorded whole (and the longest `audit-list` takes). */
export const MAX_RPC_ID = 128;

/** The first mutating request a tool makes, held back; what a plan works from. */
class Held extends Error {
  constructor(readonly request: RequestOptions) {
    super('held');
  }
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

/**
 * Whether a request destroys or replaces: as its operation in the model says (every DELETE, the
 * reviewed operations and action types), or as a named tool's annotations say. A generic tool's
 * annotations say what it may do at most, so only its request decides.
 */
function destroying(tool: AnyTool, request: RequestOptions, operation: Changes['operation']): boolean {
  const byModel = operation ? destroys(operation, request.body) : false;
  return byModel || (!tool.generic && tool.annotations.destructiveHint);
}

/**
 * The rule that refuses a request changing what `changes` holds, with the resource it protects:
 * the path's target, everything else it names, and what a snapshot or image is a copy of.
 */
function refusalOf(
  tool: AnyTool,
  changes: Changes,
  rules: readonly ProtectRule[],
): { rule: ProtectRule; target: Target; copyOf?: Target } | undefined {
  for (const each of [...(changes.target ? [changes.target] : []), ...changes.others]) {
    const rule = protectingRule(rules, each, tool.name);
    if (rule) return { rule, target: each };
    const origin = each.origin && protectingRule(rules, each.origin, tool.name);
    if (origin && each.origin) return { rule: origin, target: each, copyOf: each.origin };
  }
  return undefined;
}

/** A mutating request the model has no operation for: with rules, nothing can say it is safe. */
function unknownRefusal(tool: AnyTool, request: RequestOptions): GuardRefusal {
  return new GuardRefusal(
    'refused',
    `${tool.name} refused: ${request.method} ${showControls(request.path.split('?')[0] as string)} is no operation of the platform's API description, so protection cannot tell what it changes. Nothing was sent.`,
    'unknown operation',
    'Protection rules are set; a request the operation model does not know is never sent under them.',
  );
}

/** The refusal of a request that would change `target`, protected by `rule` (or a copy of what it protects). */
function protectedRefusal(tool: AnyTool, target: Target, rule: ProtectRule, copyOf?: Target): GuardRefusal {
  const what = copyOf
    ? `${describeTarget(target)} is a copy of ${describeTarget(copyOf)}, which`
    : describeTarget(target);
  return new GuardRefusal(
    'refused',
    `${tool.name} refused: ${what} is protected by rule ${describeRule(rule)}. Nothing was sent.`,
    `rule ${rule.kind}:${rule.value}`,
    'Protection rules come from --protect and the policy file; the person running cloudcall decides them (allow:TOOL lets a tool through).',
  );
}

/**
 * Runs a tool through the guard: what both apps call instead of core's runTool. A read-only
 * tool runs as it is (core's client refuses any request of it but a read). For any other tool,
 * the guard is the client's hook before every mutating request the tool sends, whatever its
 * request mapping or handler does: it reads what the request would change and refuses it when a
 * rule protects any of it, asks before the first request of a destructive tool, writes the
 * intent line, and only then lets the request go. The outcome line follows when the call ends.
 */
export function guardedRun(
  tool: AnyTool,
  raw: unknown,
  context: ToolContext,
  options: GuardOptions,
): Promise<unknown> {
  // The read's own promise, not one wrapped around it: each wrapping costs a call its turns of
  // the event loop (a read runs this for every call of a server).
  return tool.annotations.readOnlyHint
    ? runTool(tool, raw, context)
    : guardedMutation(tool, raw, context, options);
}

/** `guardedRun` for a tool that may change something. */
async function guardedMutation(
  tool: AnyTool,
  raw: unknown,
  context: ToolContext,
  options: GuardOptions,
): Promise<unknown> {
  const started = Date.now();
  const entry: Omit<AuditEntry, 'outcome' | 'duration_ms'> = {
    time: new Date(started).toISOString(),
    call: randomUUID(),
    front_end: options.frontEnd,
    caller: options.caller ?? localCaller(),
    ...(options.rpcId !== undefined ? { rpc_id: rpcIdOf(options.rpcId) } : {}),
    tool: tool.name,
    // Masked first, then cut: a cut never shows part of a secret, and every line stays bounded.
    args: shortenArguments(maskArguments(raw ?? {})),
  };
  let requestId: string | undefined;
  let target: Target | undefined;
  let asked = false;
  /** Whether the call came to a mutating request (even one refused). */
  let mutating = false;
  /** Set when an intent line could not be written: the request was not sent. */
  let unrecorded: AuditLogError | undefined;
  /** The requests whose intent lines were written. */
  const requests: AuditRequest[] = [];
  const finish = async (outcome: Outcome, extra: Partial<AuditEntry> = {}) => {
    // A generic call that only read (api-call GET) is a read, not a mutating call to record.
    if (tool.generic && !mutating) return;
    await options.audit?.append({
      ...entry,
      ...(target || entry.target ? { target: targetSummary(target) ?? entry.target } : {}),
      outcome,
      ...extra,
      ...(requestId ? { request_id: requestId } : {}),
      ...(requests.length ? { requests } : {}),
      duration_ms: Date.now() - started,
    });
  };

  const beforeMutation = async (request: RequestOptions) => {
    mutating = true;
    parseArgs(tool, raw);
    const rules = options.rules ?? [];
    const guarded = protectsAnything(rules);
    const known = requestOperation(request);
    const destructive = destroying(tool, request, known.operation);
    const ask = destructive && !asked;
    if (ask && options.unconfirmed !== 'run' && !options.confirm) {
      const { refuse, hint } = options.unconfirmed;
      throw new GuardRefusal('refused', `${tool.name} is destructive: ${refuse}`, refuse, hint);
    }
    // What the request changes is read when a rule could match it, or a question names it.
    const changes: Changes =
      guarded || (ask && options.confirm)
        ? await changesOf(context.client, request, {
            all: guarded,
            signal: context.signal,
            match: known.match,
          })
        : {
            ...(known.operation ? { operation: known.operation } : {}),
            ...(known.read ? { read: known.read } : {}),
            others: [],
          };
    if (guarded && !changes.operation) throw unknownRefusal(tool, request);
    const here = changes.target;
    if (here && !target) target = here;
    if (!entry.target && changes.read) {
      entry.target = { path: changes.read.path, ...(changes.read.part ? { part: changes.read.part } : {}) };
    }
    const refusal = refusalOf(tool, changes, rules);
    if (refusal) throw protectedRefusal(tool, refusal.target, refusal.rule, refusal.copyOf);
    if (ask && options.confirm) {
      asked = true;
      const what = here ? describeTarget(here) : (changes.read?.path ?? 'the account');
      // A generic call's request is the caller's: the question shows it.
      const how = tool.generic ? `, ${request.method} ${request.path.split('?')[0]}` : '';
      const decision = await options.confirm({
        tool: tool.name,
        ...(here ? { target: here } : {}),
        // The question is read by a person: nothing in it may act on their terminal or dialog.
        message: showControls(`${tool.title} (${tool.name}${how}): ${what}?`),
      });
      if (decision !== 'accept') {
        throw new GuardRefusal(
          'declined',
          `${tool.name} was ${decision === 'cancel' ? 'cancelled' : 'declined'}: nothing was sent.`,
          decision,
        );
      }
    }
    // Counted last before the intent: a request refused or declined above is not counted. A
    // DELETE the model does not know counts as a delete too.
    const giveBack = options.quota
      ? await countRequest(
          options.quota,
          tool.name,
          entry.caller as string,
          destructive || (!known.operation && request.method === 'DELETE'),
        )
      : undefined;
    // Written ahead: no request goes unless its intent is on the disk.
    try {
      await options.audit?.append({
        phase: 'intent',
        time: new Date().toISOString(),
        call: entry.call as string,
        front_end: entry.front_end,
        caller: entry.caller,
        ...(entry.rpc_id !== undefined ? { rpc_id: entry.rpc_id } : {}),
        tool: tool.name,
        args: entry.args,
        ...(here ? { target: targetSummary(here) } : entry.target ? { target: entry.target } : {}),
        request: { method: request.method, path: request.path },
      });
      if (options.audit) requests.push({ method: request.method, path: request.path });
    } catch (error) {
      if (error instanceof AuditLogError) unrecorded = error;
      // Not sent, so not counted.
      await giveBack?.().catch(() => undefined);
      throw error;
    }
  };

  const client = context.client.forCall({
    beforeMutation,
    afterMutation: (_request, outcome) => {
      if ('response' in outcome) requestId = outcome.response.requestId ?? requestId;
    },
  });
  let result: unknown;
  try {
    result = await runTool(tool, raw, { ...context, client });
  } catch (error) {
    // A question asked in a later round: no call has happened yet, so nothing is recorded.
    if (error instanceof ConfirmationPending) throw error;
    if (unrecorded) {
      throw new AuditLogError(
        `${tool.name} was not sent: ${unrecorded.message}, and nothing is sent unrecorded`,
      );
    }
    if (error instanceof GuardRefusal) {
      await finish(error.outcome, { reason: error.reason });
    } else {
      const report = errorReport(error);
      if (error instanceof ApiError && !requestId) requestId = error.requestId;
      await finish('error', {
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
    await finish('ok');
  } catch (error) {
    if (!(error instanceof AuditLogError)) throw error;
    throw new AuditLogError(
      `${tool.name} was done, but ${error.message}; its intent is recorded, its outcome is not`,
    );
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
 * What a call would do, sending nothing that changes anything: the tool runs with a client hook
 * that lets reads through and stops at the first mutating request.
 */
export async function planCall(
  tool: AnyTool,
  raw: unknown,
  context: ToolContext,
  rules: readonly ProtectRule[] = [],
): Promise<Plan> {
  const plan: Plan = { tool: tool.name, destructive: tool.annotations.destructiveHint, valid: true };
  try {
    parseArgs(tool, raw);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    return { ...plan, valid: false, issues: error.issues };
  }
  if (tool.annotations.readOnlyHint) return { ...plan, note: 'read-only tool: it changes nothing' };
  let held: RequestOptions | undefined;
  try {
    const client = context.client.forCall({
      beforeMutation: (request) => {
        throw new Held(request);
      },
    });
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
  const changes = await changesOf(context.client, held, {
    all: protectsAnything(rules),
    signal: context.signal,
  });
  const { target } = changes;
  plan.destructive = destroying(tool, held, changes.operation);
  if (target) {
    plan.target = {
      description: describeTarget(target),
      kind: target.kind,
      ...(target.id !== undefined ? { id: target.id } : {}),
      ...(target.name !== undefined ? { name: target.name } : {}),
      ...(target.tags ? { tags: target.tags } : {}),
      state: maskSecrets(target.state),
    };
  }
  const refusal = refusalOf(tool, changes, rules);
  if (refusal) plan.refused_by = describeRule(refusal.rule);
  else if (protectsAnything(rules) && !changes.operation) plan.refused_by = 'unknown operation';
  try {
    const price = await priceChange(context.client, held, target, context.signal);
    if (price) plan.price = price;
  } catch (error) {
    plan.price = { error: error instanceof Error ? error.message : String(error) };
  }
  return plan;
}
