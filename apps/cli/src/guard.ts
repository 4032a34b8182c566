/**
 * The CLI's side of the guard rails (the logic is @cloudcall/guard's): the y/N prompt on a
 * terminal, the refusal off one, dry-run plans, and what the `audit` command shows. The flags and
 * the command are declared in guard-flags.ts; this is loaded by a command that runs.
 */
import { createInterface } from 'node:readline';
import type { AnyTool, ToolContext } from '@cloudcall/core';
import { showControls } from '@cloudcall/core/internal';
import {
  type AuditEntry,
  type AuditLog,
  AuditLogError,
  type AuditVerification,
  type Decision,
  GuardRefusal,
  type GuardToolContext,
  guardedRun,
  openAuditLog,
  type Plan,
  type ProtectRule,
  parseOutcomes,
  parseSince,
  planCall,
  protectionRules,
  readAudit,
  verifyAudit,
} from '@cloudcall/guard';
import type { GuardFlags } from './guard-flags.js';
import { formatFor, type OutputFormat } from './output.js';

/** Exit code of a call the guard stopped (nothing was sent), and of bad guard settings. */
const REFUSED = 2;

export interface CliGuardIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  isTty: boolean;
  /** Asks a question on the terminal and resolves with the answer (none on Ctrl+C); absent off a terminal. */
  ask?: ((question: string, signal?: AbortSignal) => Promise<string | undefined>) | undefined;
  /** Aborted on Ctrl+C. */
  signal?: AbortSignal | undefined;
}

export interface CliGuard {
  /** Runs the tool through the guard: its result, or the exit code when it printed its own end. */
  run(tool: AnyTool, args: unknown, context: ToolContext): Promise<{ result: unknown } | { exit: number }>;
  close(): void;
}

/** A y/N question on the terminal (stdin and stderr): resolves undefined on Ctrl+C or end of input. */
export function askOnTerminal(question: string, signal?: AbortSignal): Promise<string | undefined> {
  // Ctrl+C already pressed (while the target was read, say): nobody is waiting for an answer.
  if (signal?.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    let answer: string | undefined;
    // Ctrl+C arrives as readline's SIGINT once it reads the terminal raw, or as a signal before.
    const stop = () => rl.close();
    rl.on('SIGINT', stop);
    process.once('SIGINT', stop);
    signal?.addEventListener('abort', stop, { once: true });
    rl.on('close', () => {
      process.removeListener('SIGINT', stop);
      signal?.removeEventListener('abort', stop);
      if (answer === undefined) process.stderr.write('\n');
      resolve(answer);
    });
    rl.question(question, (text) => {
      answer = text;
      rl.close();
    });
  });
}

/**
 * Reads the guard's settings (flags, then CLOUDCALL_ variables): a policy file that is malformed
 * or an audit log that cannot be opened stops here, before anything is sent. Returns the exit
 * code when it printed why it stopped.
 */
export function startGuard(
  flags: GuardFlags,
  io: CliGuardIo,
  output: OutputFormat | undefined,
): CliGuard | number {
  let rules: ProtectRule[];
  let audit: AuditLog | undefined;
  try {
    rules = protectionRules({
      flags: flags.protect,
      env: io.env.CLOUDCALL_PROTECT,
      policy: flags.policy ?? (io.env.CLOUDCALL_POLICY || undefined),
    });
    const auditPath = flags.auditLog ?? (io.env.CLOUDCALL_AUDIT_LOG || undefined);
    if (auditPath && !flags.dryRun) audit = openAuditLog(auditPath);
  } catch (error) {
    // A bad rule, a malformed policy file (PolicyError) or a log that cannot be opened (AuditLogError).
    if (!(error instanceof Error)) throw error;
    io.stderr(`cloudcall: ${error.message}\n`);
    return REFUSED;
  }
  const force = Boolean(flags.force || flags.yes);
  const confirm =
    !force && io.ask
      ? async ({ message }: { message: string }): Promise<Decision> => {
          const answer = await (io.ask as NonNullable<CliGuardIo['ask']>)(`${message} [y/N] `, io.signal);
          if (answer === undefined) return 'cancel';
          return /^y(es)?$/i.test(answer.trim()) ? 'accept' : 'decline';
        }
      : undefined;

  return {
    async run(tool, args, context) {
      if (flags.dryRun) {
        const plan = await planCall(tool, args, context, rules);
        io.stdout(
          output === 'json' || (!output && !io.isTty) ? await formatFor(plan, 'json', io) : planText(plan),
        );
        return { exit: plan.valid ? 0 : REFUSED };
      }
      try {
        const result = await guardedRun(tool, args, context, {
          frontEnd: 'cli',
          caller: (context as GuardToolContext).caller,
          rules,
          audit,
          confirm,
          unconfirmed: force
            ? 'run'
            : {
                refuse:
                  'not on a terminal, so nobody can confirm it; add --force (or --yes) to run it. Nothing was sent.',
              },
        });
        return { result };
      } catch (error) {
        if (error instanceof GuardRefusal) {
          io.stderr(`cloudcall: ${error.message}\n`);
          // Ctrl+C at the prompt is a cancel, like Ctrl+C anywhere else (exit 130, docs/cli.md).
          return { exit: error.reason === 'cancel' ? 130 : REFUSED };
        }
        if (error instanceof AuditLogError) {
          io.stderr(`cloudcall: ${error.message}\n`);
          return { exit: 1 };
        }
        throw error;
      }
    },
    close() {
      audit?.close();
    },
  };
}

/** A plan as a person reads it. */
function planText(plan: Plan): string {
  const lines = [`Plan for ${plan.tool}${plan.destructive ? ' (DESTRUCTIVE)' : ''}: nothing was sent.`];
  if (!plan.valid) {
    lines.push('Arguments: invalid');
    for (const issue of plan.issues ?? []) lines.push(`  ${issue.argument || 'arguments'}: ${issue.message}`);
    return `${lines.map(showControls).join('\n')}\n`;
  }
  lines.push('Arguments: valid');
  if (plan.note) lines.push(`Note: ${plan.note}`);
  if (plan.request) {
    const query = new URLSearchParams(
      Object.entries(plan.request.query ?? {}).map(([key, value]): [string, string] => [key, String(value)]),
    ).toString();
    lines.push(`Request: ${plan.request.method} ${plan.request.path}${query ? `?${query}` : ''}`);
    // JSON's own lines, each shown as a line: no line of JSON holds a raw line break.
    if (plan.request.body !== undefined) {
      lines.push(...`Body: ${JSON.stringify(plan.request.body, null, 2)}`.split('\n'));
    }
  }
  if (plan.target) {
    lines.push(`Target: ${plan.target.description}, now:`);
    // The scalar fields (status, size, region...); --output json shows the whole resource.
    const state = plan.target.state as Record<string, unknown> | null;
    for (const [key, value] of Object.entries(state ?? {})) {
      if (value !== null && typeof value !== 'object' && value !== '') lines.push(`  ${key}: ${value}`);
    }
  }
  if (plan.refused_by) lines.push(`Would be refused: protected by rule ${plan.refused_by}`);
  if (plan.price && 'error' in plan.price) lines.push(`Price: unknown (${plan.price.error})`);
  else if (plan.price) {
    const { monthly_before, monthly_after, monthly_delta, basis, source } = plan.price;
    const sign = monthly_delta >= 0 ? '+' : '-';
    lines.push(
      `Monthly price: $${monthly_before} -> $${monthly_after} (${sign}$${Math.abs(monthly_delta)}) for ${basis}; from ${source}`,
    );
  }
  // Values come from the API and the caller: their control characters are shown escaped.
  return `${lines.map(showControls).join('\n')}\n`;
}

/** What `cloudcall audit` was asked (guard-flags.ts declares the command). */
export interface AuditOptions {
  auditLog?: string;
  since?: string;
  tool?: string[];
  outcome?: string[];
  output?: OutputFormat;
}

/** `cloudcall audit`: reads the audit log, filtered, as a table or JSON; the exit code. */
export async function showAudit(options: AuditOptions, io: CliGuardIo): Promise<number> {
  const path = options.auditLog ?? (io.env.CLOUDCALL_AUDIT_LOG || undefined);
  if (!path) {
    io.stderr('cloudcall: audit: give the log with --audit-log FILE or CLOUDCALL_AUDIT_LOG\n');
    return REFUSED;
  }
  let entries: AuditEntry[];
  try {
    const read = await readAudit(path, {
      ...(options.since ? { since: parseSince(options.since) } : {}),
      ...(options.tool ? { tools: options.tool } : {}),
      ...(options.outcome ? { outcomes: parseOutcomes(options.outcome) } : {}),
    });
    entries = read.entries;
    if (read.torn) {
      io.stderr(
        `cloudcall: audit: ${read.torn} torn line${read.torn === 1 ? '' : 's'} (cut short by a crash or a full disk) set apart; cloudcall audit verify names ${read.torn === 1 ? 'it' : 'them'}\n`,
      );
    }
  } catch (error) {
    io.stderr(`cloudcall: audit: ${(error as Error).message}\n`);
    return REFUSED;
  }
  const format = options.output ?? (io.isTty ? 'table' : 'json');
  const shown =
    format === 'json'
      ? { entries }
      : {
          entries: entries.map((entry) => ({
            time: entry.time,
            front_end: entry.front_end,
            tool: entry.tool,
            target: entry.target
              ? String(entry.target.name ?? entry.target.id ?? entry.target.path ?? '')
              : '',
            outcome: entry.status ? `${entry.outcome} ${entry.status}` : entry.outcome,
            reason: entry.reason ?? entry.error_id ?? '',
            request_id: entry.request_id ?? '',
            ms: entry.duration_ms,
          })),
        };
  io.stdout(await formatFor(shown, format, io));
  return 0;
}

/** What `cloudcall audit verify` was asked. */
export interface AuditVerifyOptions {
  auditLog?: string;
  output?: 'text' | 'json';
}

/**
 * `cloudcall audit verify [FILE...]`: checks the chain of the log (or of a rotated set of its
 * files). Prints each problem and note as `FILE:LINE: message`, then a summary; the exit code is 0
 * when intact, 1 when a line was changed, removed or inserted, 2 when there is nothing to check.
 */
export async function verifyLog(
  files: string[],
  options: AuditVerifyOptions,
  io: CliGuardIo,
): Promise<number> {
  const path = options.auditLog ?? (io.env.CLOUDCALL_AUDIT_LOG || undefined);
  const paths = files.length ? files : path ? [path] : [];
  if (!paths.length) {
    io.stderr('cloudcall: audit verify: give the log (FILE, --audit-log FILE or CLOUDCALL_AUDIT_LOG)\n');
    return REFUSED;
  }
  let verification: AuditVerification;
  try {
    verification = await verifyAudit(paths);
  } catch (error) {
    io.stderr(`cloudcall: audit verify: ${(error as Error).message}\n`);
    return REFUSED;
  }
  if (options.output === 'json') {
    io.stdout(await formatFor(verification, 'json', io));
  } else {
    const lines = [
      ...verification.problems.map(({ file, line, message }) => `${file}:${line}: ${message}`),
      ...verification.notes.map(({ file, line, message }) => `${file}:${line}: note: ${message}`),
    ];
    const count = verification.files.reduce((sum, file) => sum + file.lines, 0);
    const set = verification.files.length > 1 ? ` in ${verification.files.length} files` : '';
    const last = verification.last
      ? `; last line seq ${verification.last.seq}, sha256 ${verification.last.sha256}`
      : '';
    const first = verification.problems[0];
    lines.push(
      first
        ? `audit log NOT intact: ${verification.problems.length} problem${verification.problems.length === 1 ? '' : 's'}; the first at ${first.file} line ${first.line}: ${first.message}`
        : `audit log intact: ${count} line${count === 1 ? '' : 's'}${set}${last}`,
    );
    io.stdout(`${lines.join('\n')}\n`);
  }
  return verification.intact ? 0 : 1;
}
