/**
 * The guard's own tools, for front-ends whose callers cannot pass flags (the MCP server): `plan`
 * (a dry run of any tool) and `audit-list` (the audit log). Both read only. They need what the
 * front-end was started with, passed as the context's `guard` session.
 */
import {
  type AnyTool,
  annotations,
  defineTool,
  InputError,
  returns,
  type ToolContext,
} from '@cloudcall/core';
import { closest } from '@cloudcall/core/internal';
import { z } from 'zod';
import { type AuditEntry, OUTCOMES, parseSince, readAudit } from './audit.js';
import { MAX_RPC_ID, type Plan, planCall } from './guard.js';
import type { ProtectRule } from './policy.js';

/** What the guard's tools read of the front-end that runs them. */
export interface GuardSession {
  /** The tools a plan may be made for: the ones this front-end offers. */
  tools: ReadonlyMap<string, AnyTool>;
  rules: readonly ProtectRule[];
  /** The audit log's path, when there is one. */
  auditLog?: string | undefined;
}

export interface GuardToolContext extends ToolContext {
  guard?: GuardSession;
  /** Who is calling (the id their audit lines carry); see `GuardOptions.caller`. */
  caller?: string;
  /**
   * Which audit lines `audit-list` shows this caller: `all` (the default: whoever runs the
   * front-end) or `own`, only the lines with its own caller id (a team service's callers).
   */
  auditScope?: 'all' | 'own';
}

function sessionOf(context: ToolContext): GuardSession {
  const session = (context as GuardToolContext).guard;
  if (!session)
    throw new Error('this tool runs only inside a cloudcall front-end that passes its guard session');
  return session;
}

export const planTool = defineTool({
  name: 'plan',
  family: 'account',
  title: 'Plan a call',
  description: 'Dry run of a tool: request, target, price change. Sends nothing.',
  details:
    'Validates the arguments and shows the exact request the tool would send (secrets masked), the current state of the resource it would act on, whether a protection rule would refuse it, and for VM, database and load-balancer creates and resizes and reserved IPs the monthly price before and after.',
  beyondSpec: true,
  input: z.strictObject({
    Tool: z.string().min(1).max(100).describe('Tool name'),
    Arguments: z.record(z.string(), z.unknown()).optional().describe("The tool's arguments"),
  }),
  annotations: annotations.read,
  handler: async (args, context): Promise<Plan> => {
    const session = sessionOf(context);
    const tool = session.tools.get(args.Tool);
    if (!tool) {
      const near = closest(args.Tool, [...session.tools.keys()]);
      throw new InputError(
        `no tool ${args.Tool} is offered${near.length ? `; did you mean ${near.join(', ')}?` : ''}`,
        'Tool',
      );
    }
    return planCall(tool, args.Arguments ?? {}, context, session.rules);
  },
  result: returns<Plan>(),
});

/**
 * How far back one `audit-list` call reads: its memory and time stay bounded whatever the log's
 * size (the whole log is `cloudcall audit`'s, on the machine).
 */
export const AUDIT_LIST_MAX_BYTES = 32 * 1024 * 1024;

/** What `audit-list` returns. */
export interface AuditList {
  entries: AuditEntry[];
  /** Older lines were not read: the limit was reached, or the last 32 MiB were. */
  more: boolean;
  /** Lines read that were torn (a crash, a full disk); `cloudcall audit verify` names them. */
  torn?: number;
}

export const auditListTool = defineTool({
  name: 'audit-list',
  family: 'account',
  title: 'List audit log',
  description: 'Latest mutating calls from the audit log, oldest first.',
  details:
    "Reads the audit log this server writes (--audit-log) from its end: one entry per mutating call with time, front-end, caller, tool, masked and shortened arguments, target, outcome, the requests it sent, request id and duration. A call whose intent was written but no outcome is `unknown`: it may have run. RequestID finds the calls of one MCP request by its JSON-RPC id, so a client whose answer was lost (a 502) learns whether it ran. Reads at most the log's last 32 MiB (`more` says when older lines were left).",
  beyondSpec: true,
  input: z.strictObject({
    Since: z.string().max(40).optional().describe('30m, 1h, 2d or a date'),
    Tool: z.string().max(100).optional().describe('Tool name or glob'),
    Outcome: z.enum(OUTCOMES as [string, ...string[]]).optional(),
    RequestID: z
      .union([z.string().max(MAX_RPC_ID), z.number()])
      .optional()
      .describe('JSON-RPC id of a tools/call'),
    Limit: z.number().int().min(1).max(1000).default(100).describe('Latest N entries'),
  }),
  annotations: annotations.read,
  handler: async (args, context): Promise<AuditList> => {
    const { auditLog } = sessionOf(context);
    const { caller, auditScope = 'all' } = context as GuardToolContext;
    // A caller limited to its own lines but with no id would see everyone's: it sees nothing.
    if (auditScope === 'own' && !caller)
      throw new Error('audit-list: this caller has no identity, so it may read no audit lines');
    if (!auditLog)
      throw new InputError('this server keeps no audit log (start it with --audit-log FILE)', 'arguments');
    let since: number | undefined;
    try {
      since = args.Since === undefined ? undefined : parseSince(args.Since);
    } catch (error) {
      throw new InputError((error as Error).message.replace('--since', 'Since'), 'Since');
    }
    const { entries, more, torn } = await readAudit(auditLog, {
      ...(auditScope === 'own' ? { caller: caller as string } : {}),
      ...(since !== undefined ? { since } : {}),
      ...(args.Tool ? { tools: [args.Tool] } : {}),
      ...(args.Outcome ? { outcomes: [args.Outcome as AuditEntry['outcome']] } : {}),
      ...(args.RequestID !== undefined ? { rpcId: args.RequestID } : {}),
      limit: args.Limit,
      maxBytes: AUDIT_LIST_MAX_BYTES,
    });
    return { entries, more, ...(torn ? { torn } : {}) };
  },
  result: returns<AuditList>(),
});

/** The guard's tools, as their front-ends list them. */
export const guardTools = [planTool, auditListTool] as const;
