/**
 * The `completion` command and the hidden `__complete` the scripts call, wired to the program.
 */
import { Argument, Command, type Option } from 'commander';
import { completeWords, completionScript, SHELLS, type Shell } from './completion.js';
import { flagsOf } from './flags.js';
import { groupsOf } from './help.js';
import { plumbingOptions } from './plumbing-options.js';
import type { FamilyEntry, ToolEntry } from './tool-entry.js';

/** The word the completion scripts call the CLI with. */
export const COMPLETE_COMMAND = '__complete';

export function addCompletion(program: Command, write: (text: string) => void): void {
  program.addCommand(
    new Command('completion')
      .summary('print a shell completion script (bash, zsh or fish)')
      .description(
        'Prints a completion script for tools, flags and their values. Load it with\n  source <(cloudcall completion bash)    (or zsh; fish: cloudcall completion fish | source)',
      )
      .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
      .configureOutput(program.configureOutput())
      .exitOverride()
      .action((shell: Shell) => write(completionScript(shell))),
  );
}

/** Answers `cloudcall __complete <words>`: one candidate per line. */
export function completeCommand(
  words: readonly string[],
  program: Command,
  families: readonly FamilyEntry[],
): string {
  const tools = new Map<string, ToolEntry>(
    families.flatMap((family) => family.tools.map((tool) => [tool.name, tool])),
  );
  const candidates = completeWords(words, {
    commands: program.commands.map((command) => ({
      name: command.name(),
      // What may follow the command: its subcommands, or its first argument's choices.
      subcommands: [
        ...command.commands.map((sub) => sub.name()),
        ...(command.registeredArguments[0]?.argChoices ?? []),
      ],
      options: command.options.map((option: Option) => ({
        long: option.long,
        short: option.short,
        required: option.required,
        choices: option.argChoices,
      })),
    })),
    rootOptions: program.options.map((option: Option) => ({
      long: option.long,
      short: option.short,
      required: option.required,
      choices: option.argChoices,
    })),
    groups: groupsOf(families),
    flagsOf: (name) => {
      const tool = tools.get(name);
      return tool ? flagsOf(tool.inputSchema) : undefined;
    },
    toolOptionsOf: (name) => {
      const tool = tools.get(name);
      return tool ? plumbingOptions(tool) : [];
    },
  });
  return candidates.length ? `${candidates.join('\n')}\n` : '';
}
