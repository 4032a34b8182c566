/**
 * Shell completion. `cloudcall completion bash|zsh|fish` prints a small script that asks the CLI
 * itself for candidates (`cloudcall __complete <words so far>`), the way cobra-based tools such
 * as doctl and gh do: the candidates (tools, resources and verbs, flags, enum values) come from
 * the installed version's definitions, so the script never goes stale.
 */
import {
  commandWordIndex,
  doctlVerbs,
  type FamilyGroups,
  joinCommandLine,
  type OptionShape,
} from './commands.js';
import { DOCTL_GROUP, DOCTL_RESOURCES } from './doctl.js';
import { kebabName } from './flag-names.js';
import type { FlagSpec } from './flags.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export function completionScript(shell: Shell, program = 'cloudcall'): string {
  const fn = `_${program.replace(/\W/g, '_')}`;
  switch (shell) {
    case 'bash':
      return `# ${program} completion for bash. Load it with: source <(${program} completion bash)
${fn}_complete() {
  local IFS=$'\\n'
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  COMPREPLY=($(compgen -W "$(${program} __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)" -- "$cur"))
}
complete -o default -F ${fn}_complete ${program}
`;
    case 'zsh':
      return `#compdef ${program}
# ${program} completion for zsh. Load it with: source <(${program} completion zsh)
${fn}() {
  local -a candidates
  candidates=("\${(@f)$(${program} __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  compadd -a candidates
}
if [ "$funcstack[1]" = "${fn}" ]; then
  ${fn} "$@"
else
  compdef ${fn} ${program}
fi
`;
    case 'fish':
      return `# ${program} completion for fish. Load it with: ${program} completion fish | source
complete -c ${program} -f -a '(${program} __complete (commandline -opc)[2..-1] (commandline -ct))'
`;
  }
}

export interface CompletionSource {
  /** Commands of the root: every tool, and cloudcall's own (help, completion...) with their options. */
  commands: readonly {
    name: string;
    subcommands: readonly string[];
    options?: readonly (OptionShape & { choices?: readonly string[] | undefined })[];
  }[];
  rootOptions: readonly (OptionShape & { choices?: readonly string[] | undefined })[];
  groups: readonly FamilyGroups[];
  /** A tool's flags; undefined for a name that is not a tool. */
  flagsOf: (tool: string) => FlagSpec[] | undefined;
  /** The options a tool's command adds to its flags (`--all`, `--wait`, `--timeout`). */
  toolOptionsOf?: (tool: string) => readonly OptionShape[];
}

/**
 * Candidates for the last of `words` (the words after the program name; the last is the one
 * being completed, possibly empty). The shell filters them by what is typed.
 */
export function completeWords(words: readonly string[], source: CompletionSource): string[] {
  const before = words.slice(0, -1);
  const current = words.at(-1) ?? '';
  const names = new Set(source.commands.map((command) => command.name));
  const previous = before.at(-1);
  const at = commandWordIndex(before, source.rootOptions);
  const rootFlag = (word: string | undefined) =>
    word?.startsWith('-')
      ? source.rootOptions.find((option) => option.long === word || option.short === word)
      : undefined;
  const longs = (options: readonly OptionShape[]) =>
    options.map((option) => option.long).filter((long): long is string => Boolean(long));

  if (at === -1) {
    const option = rootFlag(previous);
    if (option?.required) return [...(option.choices ?? [])];
    if (current.startsWith('-')) return longs(source.rootOptions);
    const resources = source.groups.flatMap(({ resources }) => [...resources.keys()]);
    return [...new Set([...names, ...resources])];
  }

  const joined = joinCommandLine(before, at, names, source.groups);
  const command = joined[at] as string;
  const rest = joined.slice(at + 1);
  // doctl's group: what may follow it (`compute droplet`), as after the program's name.
  if (command === DOCTL_GROUP && !rest.length) {
    const resources = source.groups.flatMap(({ resources }) => [...resources.keys()]);
    return [...new Set([...resources, ...Object.keys(DOCTL_RESOURCES)])];
  }
  if (command === 'help')
    return rest.length ? [] : [...source.groups.map(({ family }) => family.name), ...names];
  const flags = source.flagsOf(command);
  if (!flags) {
    // A resource word: its verbs.
    const verbs = [
      ...source.groups.flatMap(({ resources }) => (resources.get(command) ?? []).map(({ verb }) => verb)),
      ...doctlVerbs(command),
    ];
    const own = source.commands.find((candidate) => candidate.name === command);
    if (own) {
      // A command that takes arguments and options (`api PATH -X DELETE`), not subcommands.
      const option = own.options?.find(
        (candidate) => candidate.long === previous || candidate.short === previous,
      );
      if (option?.required) return [...(option.choices ?? [])];
      if (current.startsWith('-') && !own.subcommands.length) return longs(own.options ?? []);
      // Its subcommands, and the verbs of the resource of the same name (`api search`).
      return rest.length ? [] : [...own.subcommands, ...verbs];
    }
    return rest.length ? [] : verbs;
  }
  const flag = flags.find((candidate) => `--${kebabName(candidate.name)}` === previous);
  if (flag?.kind === 'boolean') return ['true', 'false'];
  if (flag) return [...(flag.choices ?? [])];
  const option = rootFlag(previous);
  if (option?.required) return [...(option.choices ?? [])];
  const own = source.toolOptionsOf?.(command) ?? [];
  // `--timeout 5m`: a value of its own, nothing to offer.
  if (own.some((candidate) => candidate.required && candidate.long === previous)) return [];
  const used = new Set(rest);
  const connection = longs(source.rootOptions).filter((long) => long !== '--version');
  return [...flags.map((candidate) => `--${kebabName(candidate.name)}`), ...longs(own), ...connection].filter(
    (candidate) => !used.has(candidate),
  );
}
