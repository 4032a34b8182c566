/**
 * The MCP server's side of the guard rails (the logic is @cloudcall/guard's): `--confirm`,
 * `--protect`, `--policy` and `--audit-log`, confirmation through `elicitation/create` when the
 * client can answer it, and guard refusals as `isError` results.
 */
import type { AnyTool, ErrorReport, ToolContext } from '@cloudcall/core';
import type { AuditLog, Decision, ProtectRule } from '@cloudcall/guard';
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
 * when it declared that it can answer (unless `--confirm never`); otherwise `--confirm` decides:
 * `auto` and `never` run it (MCP hosts confirm tool calls with their user), `always-refuse`
 * refuses it. The guard's own tools (`plan`, `audit-list`) get the session they read.
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
  },
): Promise<unknown> {
  const { server, guard } = setup;
  const canAsk = guard.confirm !== 'never' && Boolean(server?.getClientCapabilities()?.elicitation);
  const confirm = canAsk
    ? async ({ message }: { message: string }): Promise<Decision> => {
        const answer = await (server as Server).elicitInput(
          {
            mode: 'form',
            message: `Confirm a destructive call. ${message}`,
            requestedSchema: {
              type: 'object',
              properties: {
                confirm: { type: 'boolean', title: 'Run it', description: 'True to run the call' },
              },
            },
          },
          { relatedRequestId: setup.requestId, ...(context.signal ? { signal: context.signal } : {}) },
        );
        if (answer.action !== 'accept') return answer.action;
        return answer.content?.confirm === false ? 'decline' : 'accept';
      }
    : undefined;
  return guardModule.guardedRun(
    tool,
    args,
    {
      ...context,
      guard: { tools: setup.offered, rules: guard.rules, auditLog: guard.auditPath },
    } as ToolContext,
    {
      frontEnd: 'mcp',
      rules: guard.rules,
      audit: guard.audit,
      confirm,
      unconfirmed:
        guard.confirm === 'always-refuse'
          ? {
              refuse:
                'this server refuses destructive tools its client cannot confirm (--confirm always-refuse). Nothing was sent.',
              hint: 'Use a client that supports elicitation, or ask the person running this server.',
            }
          : 'run',
    },
  );
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
