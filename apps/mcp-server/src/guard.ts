/**
 * The MCP server's side of the guard rails (the logic is @cloudcall/guard's): `--confirm`,
 * `--protect`, `--policy`, `--audit-log`, `--quota` and `--redis`, confirmation through
 * `elicitation/create` when the client can answer it, and guard refusals as `isError` results.
 */
import type { AnyTool, ToolContext } from '@cloudcall/core';
import { type ErrorReport, showControls } from '@cloudcall/core/internal';
import type { AuditLog, ConfirmQuestion, Decision, ProtectRule, Quota } from '@cloudcall/guard';
import type { RedisConnection } from '@cloudcall/guard/redis';
import type { ConfirmState, SpentNonces, StateSeal } from './request-state.js';

export type ConfirmMode = 'auto' | 'never' | 'always-refuse';
export const CONFIRM_MODES: readonly ConfirmMode[] = ['auto', 'never', 'always-refuse'];

export interface ServerGuard {
  confirm: ConfirmMode;
  rules: readonly ProtectRule[];
  audit?: AuditLog | undefined;
  auditPath?: string | undefined;
  /** `--quota`, counted in this process or in Redis (`--redis`). */
  quota?: Quota | undefined;
  /** `--redis`: the connection every replica shares (quota counts, spent confirmation answers). */
  redis?: RedisConnection | undefined;
}

export interface GuardLog {
  info?: (line: string) => void;
  warn?: (line: string) => void;
}

export interface GuardFlags {
  confirm?: string | undefined;
  protect?: string | string[] | undefined;
  policy?: string | undefined;
  'audit-log'?: string | undefined;
  quota?: string | undefined;
  redis?: string | undefined;
}

/**
 * The guard's settings from the flags (each also a CLOUDCALL_ variable). The guard package loads
 * only when a rule, a log or a quota is asked for, and the Redis client only with --redis, so a
 * plain start stays as light as before. Throws an Error whose message says what to fix: a
 * malformed policy file (file, line, problem), an audit log that cannot be opened, an unknown
 * --confirm, a malformed --quota or --redis, --redis without --quota. `log.info` gets the quotas
 * at start, `log.warn` Redis going away and coming back.
 */
export async function startGuard(flags: GuardFlags, log: GuardLog = {}): Promise<ServerGuard> {
  const confirm = (flags.confirm ?? 'auto') as ConfirmMode;
  if (!CONFIRM_MODES.includes(confirm)) {
    throw new Error(`--confirm must be ${CONFIRM_MODES.join(', ')}, not ${flags.confirm}`);
  }
  // CLOUDCALL_PROTECT arrives as one string (every flag has its variable), --protect as a list.
  const { protect } = flags;
  const redis = flags.redis === undefined ? undefined : await connectRedis(flags.redis, log);
  if (!protect?.length && !flags.policy && !flags['audit-log'] && flags.quota === undefined)
    return { confirm, rules: [], ...(redis ? { redis } : {}) };
  const guard = await import('@cloudcall/guard');
  const rules = guard.protectionRules({
    flags: typeof protect === 'string' ? undefined : protect,
    env: typeof protect === 'string' ? protect : undefined,
    policy: flags.policy,
  });
  const quota = flags.quota === undefined ? undefined : await startQuota(guard, flags.quota, redis, log);
  const auditPath = flags['audit-log'];
  return {
    confirm,
    rules,
    ...(auditPath ? { audit: guard.openAuditLog(auditPath), auditPath } : {}),
    ...(quota ? { quota } : {}),
    ...(redis ? { redis } : {}),
  };
}

/** The Redis connection at `url`, made in the background; `log.warn` hears it go and come back. */
async function connectRedis(url: string, log: GuardLog): Promise<RedisConnection> {
  const { redisConnection } = await import('@cloudcall/guard/redis');
  return redisConnection({
    url,
    onState: (state, detail) =>
      log.warn?.(
        state === 'down'
          ? `what replicas share cannot be kept: ${detail}; requests that change something are refused until it answers`
          : `what replicas share is kept again in ${detail}`,
      ),
  });
}

/** --quota's limits and their counter: Redis's with --redis, else this process's. */
async function startQuota(
  guard: typeof import('@cloudcall/guard'),
  text: string,
  redis: RedisConnection | undefined,
  log: GuardLog,
): Promise<Quota> {
  const limits = guard.parseQuota(text);
  const counter =
    redis === undefined
      ? guard.memoryCounter()
      : (await import('@cloudcall/guard/redis')).redisCounter({ connection: redis });
  log.info?.(
    `quotas per caller: ${limits.map(guard.describeLimit).join(', ')}, counted in ${counter.where}${redis === undefined ? ' (each process counts its own)' : ''}`,
  );
  return { limits, counter };
}

/**
 * Runs a tool through the guard. A destructive call asks the client with `elicitation/create`
 * when it declared form elicitation (unless `--confirm never` or `always-refuse`), and runs only
 * when the answer is `accept` with the resource's name typed as asked: a model answering for
 * itself cannot accept by sending `{}` or `true`. Otherwise `--confirm` decides: `auto` and
 * `never` run it (MCP hosts confirm tool calls with their user), `always-refuse` refuses it,
 * whatever the client declares. Without sessions (`--stateless`) nobody can be asked, whatever
 * the client declares, so `auto` refuses it too, saying how to confirm (`sessionless`). A client
 * that declared only URL elicitation cannot answer a form, so it counts as one without
 * elicitation. The guard's own tools (`plan`, `audit-list`) get the session they read.
 * Returns the guard's own promise (no async wrapper around it: one turn of the event loop less
 * for every call).
 */
export function runGuarded(
  guardModule: typeof import('@cloudcall/guard'),
  tool: AnyTool,
  args: unknown,
  context: ToolContext,
  setup: {
    /** The session's server; without one (stateless HTTP) the client cannot be asked. */
    server: AskingServer | undefined;
    guard: ServerGuard;
    offered: ReadonlyMap<string, AnyTool>;
    requestId: string | number;
    /** Who is calling, as audit lines name them; undefined: the guard's default, the local user. */
    caller: string | undefined;
    /** Which audit lines `audit-list` shows this caller. */
    auditScope: 'all' | 'own';
    /**
     * No session to ask on (--stateless): a question sent in a request's answer would be answered
     * in another request, perhaps to another replica, which knows nothing of it.
     */
    sessionless?: boolean | undefined;
    /**
     * The request's own way of asking (protocol revision 2026-07-28): the question goes back as
     * the call's answer and the client calls again with the answer and the question's state.
     */
    rounds?: ConfirmRounds | undefined;
  },
): Promise<unknown> {
  const { server, guard, rounds } = setup;
  const canAsk =
    guard.confirm === 'auto' &&
    (rounds
      ? rounds.canAsk
      : !setup.sessionless && answersForms(server?.getClientCapabilities()?.elicitation));
  const confirm = !canAsk
    ? undefined
    : async ({ tool: name, target, message }: ConfirmQuestion): Promise<Decision> => {
        const expected = String(target?.name ?? target?.id ?? name);
        // A name's control characters are shown escaped (`\n`, `\u202e`): what the person sees is
        // what they type, and the name as it is will do too.
        const shown = showControls(expected);
        const refuse = (why = `the answer did not type ${shown} as asked`) =>
          new guardModule.GuardRefusal(
            'declined',
            `${name} was not confirmed: ${why}. Nothing was sent.`,
            'confirmation not typed',
            'The person must type the name shown in the question; do not retry unless they ask for it.',
          );
        const form = confirmForm(message, shown, target);
        const typedRight = (typed: unknown) =>
          typeof typed === 'string' && (typed.trim() === shown || typed.trim() === expected);
        if (rounds)
          return confirmInRounds(
            guardModule,
            rounds,
            form,
            { tool: name, expected, caller: setup.caller ?? '' },
            refuse,
            typedRight,
          );
        const answer = await (server as AskingServer)
          .elicitInput(form, {
            relatedRequestId: setup.requestId,
            ...(context.signal ? { signal: context.signal } : {}),
          })
          .catch((error: unknown) => {
            // An accept whose content is not the form asked for (`{}`, `{ confirm: true }`): the
            // SDK checks it against the schema; that is a wrong answer, not a server fault.
            if ((error as { code?: unknown }).code === INVALID_PARAMS) throw refuse();
            throw error;
          });
        if (answer.action !== 'accept') return answer.action;
        if (typedRight(answer.content?.confirm)) return 'accept';
        throw refuse();
      };
  return guardModule.guardedRun(
    tool,
    args,
    {
      ...context,
      guard: { tools: setup.offered, rules: guard.rules, auditLog: guard.auditPath },
      caller: setup.caller,
      auditScope: setup.auditScope,
    } as ToolContext,
    {
      frontEnd: 'mcp',
      caller: setup.caller,
      // On the audit lines: how a client whose answer was lost finds the call with audit-list.
      rpcId: setup.requestId,
      rules: guard.rules,
      audit: guard.audit,
      quota: guard.quota,
      confirm,
      unconfirmed:
        guard.confirm === 'always-refuse'
          ? {
              refuse:
                'this server refuses destructive tools (--confirm always-refuse), whatever its client declares. Nothing was sent.',
              hint: 'Ask the person running this server to make this change, or to start it with another --confirm.',
            }
          : guard.confirm === 'auto' && setup.sessionless
            ? STATELESS_REFUSAL
            : 'run',
    },
  );
}

/** What a modern request brings to a confirmation: whether it can be asked, and this round's answer. */
export interface ConfirmRounds {
  /** The request declared form elicitation in its own capabilities. */
  canAsk: boolean;
  /** The question's state as the client echoed it; undefined in the first round. */
  state: string | undefined;
  /** This round's answers by key, as the client sent them (untrusted). */
  responses: Record<string, unknown> | undefined;
  seal: StateSeal;
  spent: SpentNonces;
  /** The digest of this call's arguments (argumentsDigest). */
  args: string;
}

/**
 * What a call needs of its session's SDK server (v2's low-level `Server`, over stdio and HTTP):
 * the client's declared capabilities, a question sent on the session, a notification.
 */
export interface AskingServer {
  /** A notification on the session (a fast call's progress), sent with the call's request id. */
  notification(
    notification: { method: string; params?: Record<string, unknown> },
    options: { relatedRequestId: string | number },
  ): Promise<void>;
  getClientCapabilities(): { elicitation?: Record<string, unknown> | undefined } | undefined;
  elicitInput(
    form: ReturnType<typeof confirmForm>,
    options: { relatedRequestId: string | number; signal?: AbortSignal },
  ): Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> | undefined }>;
}

/** The question a confirmation asks, as an elicitation form. */
export interface ConfirmForm {
  mode: 'form';
  message: string;
  requestedSchema: {
    type: 'object';
    properties: { confirm: { type: 'string'; title: string; description: string } };
    required: ['confirm'];
  };
}

function confirmForm(message: string, shown: string, target: ConfirmQuestion['target']): ConfirmForm {
  return {
    mode: 'form',
    message: `Confirm a destructive call. ${message} To run it, type ${shown}.`,
    requestedSchema: {
      type: 'object',
      properties: {
        confirm: {
          type: 'string',
          title: `Type ${shown} to confirm`,
          description: `The ${target?.name !== undefined ? 'name' : target?.id !== undefined ? 'id' : 'tool name'} exactly as shown: ${shown}`,
        },
      },
      required: ['confirm'],
    },
  };
}

/** The question pending in a modern round: the form, and its sealed state. */
export interface PendingQuestion {
  form: ConfirmForm;
  requestState: string;
}

/**
 * Confirmation over rounds. The first round asks: the question and its sealed state go back as
 * the call's answer (ConfirmationPending). The next round opens the state and accepts the answer
 * only for the call that was asked about (the same caller, tool and arguments, and the resource
 * still the one named), once (its nonce is spent), before it expires.
 */
async function confirmInRounds(
  guardModule: typeof import('@cloudcall/guard'),
  rounds: ConfirmRounds,
  form: ConfirmForm,
  call: { tool: string; expected: string; caller: string },
  refuse: (why?: string) => Error,
  typedRight: (typed: unknown) => boolean,
): Promise<Decision> {
  if (rounds.state === undefined) {
    const question: PendingQuestion = {
      form,
      requestState: rounds.seal.seal({
        caller: call.caller,
        tool: call.tool,
        args: rounds.args,
        expected: call.expected,
      }),
    };
    throw new guardModule.ConfirmationPending(question);
  }
  let state: ConfirmState;
  try {
    state = rounds.seal.open(rounds.state);
  } catch (error) {
    throw refuse(`${(error as Error).message}; call again to be asked again`);
  }
  if (state.tool !== call.tool || state.args !== rounds.args) {
    throw refuse('the answer was given for another call (another tool or other arguments)');
  }
  if (state.caller !== call.caller) throw refuse('the answer was given to another caller');
  if (state.expected !== call.expected) {
    throw refuse(
      `the resource is not the one the question named (${showControls(state.expected)}); call again to be asked again`,
    );
  }
  if (!(await rounds.spent.spend(state.nonce, state.expires)))
    throw refuse('this answer has been used already');
  const answer = rounds.responses?.confirm as
    | { action?: unknown; content?: { confirm?: unknown } }
    | undefined;
  if (answer?.action === 'decline' || answer?.action === 'cancel') return answer.action;
  if (answer?.action !== 'accept') throw refuse('no answer to the question came with the call');
  if (typedRight(answer.content?.confirm)) return 'accept';
  throw refuse();
}

/**
 * `--confirm auto` without sessions: nobody can be asked, and a destructive call nobody confirmed
 * does not run. How to confirm one: the CLI, which asks on a terminal; or, for a service whose
 * clients confirm every tool call with their user, the operator's explicit `--confirm never`.
 */
const STATELESS_REFUSAL = {
  refuse:
    'this server has no sessions (--stateless), so it cannot ask you to confirm, and with --confirm auto it runs no destructive call unconfirmed. Nothing was sent.',
  hint: 'To confirm it, make this change with the cloudcall CLI (it asks on a terminal, or takes --force), or ask the person running this server to start it with --confirm never if its clients confirm every tool call with their user.',
};

/**
 * JSON-RPC's Invalid params (the SDK's ErrorCode.InvalidParams), spelled out: importing the SDK's
 * types here would load them (and zod) at every start, as main imports this module.
 */
const INVALID_PARAMS = -32602;

/**
 * Whether a client's elicitation capability covers forms: `form` declared, or the empty object
 * of clients from before URL mode (which meant forms). URL mode alone cannot answer a form.
 */
export function answersForms(elicitation: Record<string, unknown> | undefined): boolean {
  if (!elicitation) return false;
  return elicitation.form !== undefined || Object.keys(elicitation).length === 0;
}

/** A guard refusal or audit failure as the error result's facts; undefined for other errors. */
export function guardReport(
  guardModule: typeof import('@cloudcall/guard'),
  error: unknown,
): ErrorReport | undefined {
  if (error instanceof guardModule.QuotaExceeded) {
    return {
      message: error.message,
      error_id: 'quota_exceeded',
      retryable: true,
      retry_after_seconds: error.retryAfterSeconds,
      ...(error.hint ? { hint: error.hint } : {}),
    };
  }
  if (error instanceof guardModule.QuotaUnavailable) {
    return {
      message: error.message,
      error_id: 'quota_unavailable',
      retryable: true,
      ...(error.hint ? { hint: error.hint } : {}),
    };
  }
  if (error instanceof guardModule.GuardRefusal) {
    return {
      message: error.message,
      error_id: error.outcome === 'declined' ? 'declined' : 'refused',
      retryable: false,
      hint:
        error.hint ??
        (error.outcome === 'declined'
          ? 'The user declined; do not retry unless they ask for it.'
          : 'The person running this server chose this rule.'),
    };
  }
  if (error instanceof guardModule.AuditLogError) {
    return { message: error.message, error_id: 'audit_log_failed', retryable: false };
  }
  return undefined;
}
