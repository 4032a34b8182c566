/**
 * The guard's flags and the `audit` command, as the command line declares them (help and
 * completion show them): what they do is guard.ts's, loaded by a command that runs.
 */
import { Command, Option } from 'commander';
import type { AuditOptions, AuditVerifyOptions, CliGuardIo } from './guard.js';
import { outputOption } from './output.js';

export interface GuardFlags {
  force?: boolean;
  yes?: boolean;
  dryRun?: boolean;
  protect?: string[];
  policy?: string;
  auditLog?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The guard's flags, accepted before the tool name and after it, like the connection options. */
export function guardOptions(): Option[] {
  return [
    new Option('-f, --force', 'skip the y/N of destructive tools (or --yes)'),
    new Option('--yes', 'same as --force').hideHelp(),
    new Option('--dry-run', 'show the request, target and price; send nothing'),
    new Option(
      '--protect <rule>',
      'refuse every change to resources matching tag:X, name:X or id:X (allow:TOOL lets a tool through)',
    ).argParser(collect),
    new Option('--policy <file>', 'JSON file of protection rules (or CLOUDCALL_POLICY)'),
    new Option('--audit-log <file>', 'log mutating calls here (or CLOUDCALL_AUDIT_LOG)'),
  ];
}

/** `--protect` given both before and after the tool name: every rule counts. */
export function mergeGuardFlags(before: GuardFlags, after: GuardFlags): GuardFlags {
  return before.protect && after.protect ? { protect: [...before.protect, ...after.protect] } : {};
}

/** `cloudcall audit`: reads the audit log, filtered, as a table or JSON; `audit verify` checks its chain. */
export function auditCommand(io: CliGuardIo, setExit: (code: number) => void): Command {
  const verify = new Command('verify')
    .summary("Check the audit log's chain")
    .description(
      "Check that no line of the audit log was changed, removed or inserted: each line names the hash of the line before it, and FILE.head the last one. Give a rotated set's files to check them as one chain (any order). Exits 0 when intact, 1 naming the first line that is not (file:line).",
    )
    .argument('[files...]', 'the log, or its rotated files (default --audit-log or CLOUDCALL_AUDIT_LOG)')
    .addOption(new Option('--audit-log <file>', 'the log to check (default CLOUDCALL_AUDIT_LOG)'))
    .addOption(
      new Option('-o, --output <format>', 'text: FILE:LINE: message lines (default); json').choices([
        'text',
        'json',
      ]),
    )
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride()
    .action(async (files: string[], options: AuditVerifyOptions) => {
      setExit(await (await import('./guard.js')).verifyLog(files, options, io));
    });
  return (
    new Command('audit')
      .summary('Read the audit log')
      .description('Show the audit log of mutating calls (--audit-log or CLOUDCALL_AUDIT_LOG), oldest first.')
      .addOption(new Option('--audit-log <file>', 'the log to read (default CLOUDCALL_AUDIT_LOG)'))
      .addOption(new Option('--since <when>', 'only entries since a duration ago (30m, 1h, 2d) or a date'))
      .addOption(
        new Option('--tool <glob>', 'only these tools (names or globs; repeatable)').argParser(collect),
      )
      .addOption(
        new Option(
          '--outcome <outcome>',
          'only ok, error, refused or declined (repeatable or comma-separated)',
        ).argParser(collect),
      )
      .addOption(outputOption())
      .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
      .exitOverride()
      // `audit verify --audit-log FILE -o json`: options after `verify` are verify's.
      .enablePositionalOptions()
      .action(async (options: AuditOptions) => {
        setExit(await (await import('./guard.js')).showAudit(options, io));
      })
      .addCommand(verify)
  );
}
