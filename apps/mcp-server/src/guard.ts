/**
 * The MCP server's side of the guard rails (the logic is @cloudcall/guard's): `--confirm`,
 * `--protect`, `--policy` and `--audit-log`, confirmation through `elicitation/create` when the
 * client can answer it, and guard refusals as `isError` results.
 */
import type { AnyTool, ToolContext } from '@cloudcall/core';
import type { ErrorReport } from '@cloudcall/core/internal';
import type { AuditLog, ConfirmQuestion, Decision, ProtectRule } from '@cloudcall/guard';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

export type ConfirmMode = 'auto' | 'never' | 'always-refuse';
export const CONFIRM_MODES: readonly ConfirmMode[] = ['auto', 'never', 'always-refuse'];

export interface ServerGuard {
  confirm: ConfirmMode;
  rules: readonly ProtectRule[];
  audit?: AuditLog | undefined;
  auditPath?: string | undefined;
}

export interface GuardFlags {
  confirm?: string | undefined;
  protect?: string | string[] | undefined;
  policy?: string | undefined;
  'audit-log'?: string | undefined;
}

/**
 * The guard's settings from the flags (each also a CLOUDCALL_ variable). The guard package loads
 * only when a rule or a log is asked for, so a plain start stays as light as before. Throws an
 * Error whose message says what to fix: a malformed policy file (file, line, problem), an audit
 * log that cannot be opened, an unknown --confirm.
 */
export async function startGuard(flags: GuardFlags): Promise<ServerGuard> {
  const confirm = (flags.confirm ?? 'auto') as ConfirmMode;
  if (!CONFIRM_MODES.includes(confirm)) {
    throw new Error(`--confirm must be ${CONFIRM_MODES.join(', ')}, not ${flags.confirm}`);
  }
  // CLOUDCALL_PROTECT arrives as one string (every flag has its variable), --protect as a list.
  const { protect } = flags;
  if (!protect?.length && !flags.policy && !flags['audit-log']) return { confirm, rules: [] };
  const { openAuditLog, protectionRules } = await import('@cloudcall/guard');
  const rules = protectionRules({
    flags: typeof protect === 'string' ? undefined : protect,
    env: typeof protect === 'string' ? protect : undefined,
    policy: flags.policy,
  });
  const auditPath = flags['audit-log'];
  return { confirm, rules, ...(auditPath ? { audit: openAuditLog(auditPath), auditPath } : {}) };
}

/**
 * Runs a tool through the guard. A destructive call asks the client with `elicitation/create`
 * when it declared form elicitation (unless `--confirm never` or `always-refuse`), and runs only
 * when the answer is `accept` with the resource's name typed as asked: a model answering for
 * itself cannot accept by sending `{}` or `true`. Otherwise `--confirm` decides: `auto` and
 * `never` run it (MCP hosts confirm tool calls with their user), `always-refuse` refuses it,
 * whatever the client declares. A client that declared only URL elicitation cannot answer a
 * form, so it counts as one without elicitation. The guard's own tools (`plan`, `audit-list`)
 * get the session they read.
 */
export async function runGuarded(
  guardModule: typeof import('@cloudcall/guard'),
  tool: AnyTool,
  args: unknown,
  context: ToolContext,
  setup: {
    /** The session's server; without one (stateless HTTP) the client cannot be asked. */
    server: Server | undefined;
    guard: ServerGuard;
    offered: ReadonlyMap<string, AnyTool>;
    requestId: string | number;
    /** Who is calling, as audit lines name them; undefined: the guard's default, the local user. */
    caller: string | undefined;
    /** Which audit lines `audit-list` shows this caller. */
    auditScope: 'all' | 'own';
  },
): Promise<unknown> {
  const { server, guard } = setup;
  const canAsk = guard.confirm === 'auto' && answersForms(server?.getClientCapabilities()?.elicitation);
  const confirm = canAsk
    ? async ({ tool: name, target, message }: ConfirmQuestion): Promise<Decision> => {
        const expected = String(target?.name ?? target?.id ?? name);
        const refuse = () =>
          new guardModule.GuardRefusal(
            'declined',
            `${name} was not confirmed: the answer did not type ${expected} as asked. Nothing was sent.`,
            'confirmation not typed',
            'The person must type the name shown in the question; do not retry unless they ask for it.',
          );
        const answer = await (server as Server)
          .elicitInput(
            {
              mode: 'form',
              message: `Confirm a destructive call. ${message} To run it, type ${expected}.`,
              requestedSchema: {
                type: 'object',
                properties: {
                  confirm: {
                    type: 'string',
                    title: `Type ${expected} to confirm`,
                    description: `The ${target?.name !== undefined ? 'name' : target?.id !== undefined ? 'id' : 'tool name'} exactly as shown: ${expected}`,
                  },
                },
                required: ['confirm'],
              },
            },
            { relatedRequestId: setup.requestId, ...(context.signal ? { signal: context.signal } : {}) },
          )
          .catch((error: unknown) => {
            // An accept whose content is not the form asked for (`{}`, `{ confirm: true }`): the
            // SDK checks it against the schema; that is a wrong answer, not a server fault.
            if ((error as { code?: unknown }).code === INVALID_PARAMS) throw refuse();
            throw error;
          });
        if (answer.action !== 'accept') return answer.action;
        const typed = answer.content?.confirm;
        if (typeof typed === 'string' && typed.trim() === expected) return 'accept';
        throw refuse();
      }
    : undefined;
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
      confirm,
      unconfirmed:
        guard.confirm === 'always-refuse'
          ? {
              refuse:
                'this server refuses destructive tools (--confirm always-refuse), whatever its client declares. Nothing was sent.',
              hint: 'Ask the person running this server to make this change, or to start it with another --confirm.',
            }
          : 'run',
    },
  );
}

/**
 * JSON-RPC's Invalid params (the SDK's ErrorCode.InvalidParams), spelled out: importing the SDK's
 * types here would load them (and zod) at every start, as main imports this module.
 */
const INVALID_PARAMS = -32602;

/**
 * Whether a client's elicitation capability covers forms: `form` declared, or the empty object
 * of clients from before URL mode (which meant forms). URL mode alone cannot answer a form.
 */
function answersForms(elicitation: Record<string, unknown> | undefined): boolean {
  if (!elicitation) return false;
  return elicitation.form !== undefined || Object.keys(elicitation).length === 0;
}

/** A guard refusal or audit failure as the error result's facts; undefined for other errors. */
export function guardReport(
  guardModule: typeof import('@cloudcall/guard'),
  error: unknown,
): ErrorReport | undefined {
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
