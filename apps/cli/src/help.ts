/**
 * Help and the words before the parser: the root help lists families and resources (not every
 * tool), `cloudcall help <family>` lists one family and `help <resource>` one resource, and
 * `<resource> <verb>` words are joined into the tool's name before commander sees them.
 */

import type { Command } from 'commander';
import {
  CommandWordError,
  commandWordIndex,
  type FamilyGroups,
  familiesOverview,
  familyHelp,
  groupTools,
  type ListedFamily,
  resolveCommandLine,
  resourceWords,
} from './commands.js';
import { DOCTL_GROUP } from './doctl.js';

const grouped = new WeakMap<readonly ListedFamily[], FamilyGroups[]>();

/** The families' tools by resource, worked out once per list of families. */
export function groupsOf(families: readonly ListedFamily[]): FamilyGroups[] {
  const known = grouped.get(families);
  if (known) return known;
  const groups = groupTools(families);
  grouped.set(families, groups);
  return groups;
}

/** What the root help adds after its options: families and resources, examples. */
export function rootHelpText(families: readonly ListedFamily[]): string {
  return `
Families and their resources ("cloudcall help <family>" lists the tools):
${familiesOverview(groupsOf(families))}

Examples:
  cloudcall vm list                          # same as: cloudcall vm-list
  cloudcall vm-get web-1 -o wide             # an id or, for VMs, VPCs..., a name
  cloudcall vm-list --format ID,Name,networks.v4.0.ip_address --no-header
  cloudcall db-cluster-list -o json --query 'databases[].name'

Run "cloudcall <tool> --help" for a tool's flags and an example; "cloudcall completion bash"
prints a completion script.
`;
}

/**
 * The text of `cloudcall help <family>` or `help <resource>` (or of a family or resource named
 * alone: `cloudcall vm`, `cloudcall domain records`), or undefined when `argv` is not such a
 * request (commander answers `help <tool>` itself).
 */
export function helpFor(
  argv: readonly string[],
  families: readonly ListedFamily[],
  program: Command,
): string | undefined {
  // Global options before the words (`cloudcall --sandbox help vms`) do not change the help.
  const at = commandWordIndex(argv, program.options);
  if (at === -1) return undefined;
  let words = argv.slice(at);
  // `cloudcall vm --help`, `cloudcall db cluster -h`: a family or resource's help, as `help vm` is.
  const asked = words.length > 1 && HELP_FLAGS.has(words.at(-1) as string);
  if (asked) words = words.slice(0, -1);
  const viaHelp = words[0] === 'help' && words.length > 1;
  if (viaHelp) words = words.slice(1);
  // doctl's group: `compute droplet --help` is `droplet --help` (and `compute` alone, the root help).
  if (words[0] === DOCTL_GROUP) words = words.slice(1);
  if (!words.length) return undefined;
  const groups = groupsOf(families);
  // A resource may be typed as its words (`db cluster` for db-cluster), as doctl's, or in the plural.
  const { resource, length } = resourceWords(words, groups);
  const named = resource !== undefined && length === words.length;
  if (words.length > 1 && !asked && !viaHelp && !named) return undefined;
  const wanted = words.join('-');
  // A tool's own help (`cloudcall wait --help`) is its flags: commander's. A command of
  // cloudcall's own that is also a resource (`api`: `cloudcall api PATH`, and the api family's
  // tools) is that command when named alone, and the resource after `help`.
  const command = program.commands.find((each) => each.name() === wanted);
  const own = command && !isTool(families, wanted) ? command : undefined;
  if (command && (asked || (own && !viaHelp))) return undefined;
  const also = own
    ? `\nAlso the command "cloudcall ${wanted}": ${own.summary()} ("cloudcall ${wanted} --help").\n`
    : '';
  const family = groups.find((group) => group.family.name === wanted);
  if (family) return `${familyHelp(family)}${also}`;
  if (!named) return undefined;
  for (const group of groups) {
    const tools = group.resources.get(resource);
    if (tools)
      return `${familyHelp({ family: group.family, resources: new Map([[resource, tools]]) })}${also}`;
  }
  return undefined;
}

const HELP_FLAGS = new Set(['--help', '-h']);

function isTool(families: readonly ListedFamily[], name: string): boolean {
  return families.some((family) => family.tools.some((tool) => tool.name === name));
}

/**
 * `argv` with `<resource> <verb>` (or the words of a tool's name, or doctl's) joined into the
 * tool's name; `help <words>` as `<tool> --help`. Words that name nothing are refused here, naming
 * the word that is wrong and the nearest right ones.
 */
export function joinCommandWords(
  argv: readonly string[],
  program: Command,
  families: readonly ListedFamily[],
): string[] {
  const at = commandWordIndex(argv, program.options);
  if (at === -1) return [...argv];
  const before = argv.slice(0, at);
  // The common case, a tool's own name, needs no grouping.
  if (isTool(families, argv[at] as string)) return [...argv];
  const names = new Set(program.commands.map((command) => command.name()));
  const groups = groupsOf(families);
  // `help <tool>`, `help <resource> <verb>`: the tool's help, which shows its flags (added as the
  // tool is run). Families and resources were answered before (helpFor).
  if (argv[at] === 'help' && argv.length > at + 1) {
    if (argv[at + 1] === 'help') return [...before, '--help'];
    const { words, problem } = resolveCommandLine(argv.slice(at + 1), 0, names, groups);
    if (problem || !names.has(words[0] as string)) {
      throw new CommandWordError(
        problem ?? {
          message: `unknown command ${JSON.stringify(words[0])}`,
          hint: 'cloudcall --help lists the families and their resources',
        },
      );
    }
    return [...before, ...words, '--help'];
  }
  // doctl's group alone: the root help.
  if (argv[at] === DOCTL_GROUP && !argv.slice(at + 1).some((word) => !word.startsWith('-'))) {
    return [...before, '--help'];
  }
  const { words, problem } = resolveCommandLine(argv, at, names, groups);
  if (problem) throw new CommandWordError(problem);
  return words;
}
