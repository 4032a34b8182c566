/**
 * Help and the words before the parser: the root help lists families and resources (not every
 * tool), `cloudcall help <family>` lists one family and `help <resource>` one resource, and
 * `<resource> <verb>` words are joined into the tool's name before commander sees them.
 */

import { InputError } from '@cloudcall/core';
import type { Command } from 'commander';
import {
  commandWordIndex,
  type FamilyGroups,
  familiesOverview,
  familyHelp,
  groupTools,
  joinCommandLine,
  type ListedFamily,
} from './commands.js';
import { DOCTL_RESOURCES } from './doctl.js';

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
 * alone: `cloudcall vm`), or undefined when `argv` is not such a request (commander answers
 * `help <tool>` itself).
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
  else if (words.length > 1 && !asked) return undefined;
  // A resource's name may be typed as its words (`db cluster` for db-cluster), or as doctl's.
  const wanted = DOCTL_RESOURCES[words.join('-')] ?? words.join('-');
  // A tool's own help (`cloudcall wait --help`) is its flags: commander's. A command of
  // cloudcall's own that is also a resource (`api`: `cloudcall api PATH`, and the api family's
  // tools) is that command when named alone, and the resource after `help`.
  const command = program.commands.find((each) => each.name() === wanted);
  const own = command && !isTool(families, wanted) ? command : undefined;
  if (command && (asked || (own && !viaHelp))) return undefined;
  const groups = groupsOf(families);
  const also = own
    ? `\nAlso the command "cloudcall ${wanted}": ${own.summary()} ("cloudcall ${wanted} --help").\n`
    : '';
  const family = groups.find((group) => group.family.name === wanted);
  if (family) return `${familyHelp(family)}${also}`;
  for (const group of groups) {
    const tools = group.resources.get(wanted);
    if (tools) return `${familyHelp({ family: group.family, resources: new Map([[wanted, tools]]) })}${also}`;
  }
  return undefined;
}

const HELP_FLAGS = new Set(['--help', '-h']);

function isTool(families: readonly ListedFamily[], name: string): boolean {
  return families.some((family) => family.tools.some((tool) => tool.name === name));
}

/** `argv` with `<resource> <verb>` (or the words of a tool's name) joined into the tool's name. */
export function joinCommandWords(
  argv: readonly string[],
  program: Command,
  families: readonly ListedFamily[],
): string[] {
  const at = commandWordIndex(argv, program.options);
  if (at === -1) return [...argv];
  const names = new Set(program.commands.map((command) => command.name()));
  // `help <tool>` is `<tool> --help`, which shows the tool's flags (added as the tool is run).
  if (argv[at] === 'help' && argv.length === at + 2 && names.has(argv[at + 1] as string)) {
    return [...argv.slice(0, at), argv[at + 1] as string, '--help'];
  }
  // The common case, a tool's own name, needs no grouping.
  if (isTool(families, argv[at] as string)) return [...argv];
  const groups = groupsOf(families);
  const joined = joinCommandLine(argv, at, names, groups);
  // Not joined into a tool: the resource as typed (or as doctl's word for it).
  const resource = joined[at] as string;
  const tools = groups.flatMap((group) => group.resources.get(resource) ?? []);
  if (!names.has(resource) && tools.length) {
    // A resource with a verb it does not have: say which it has.
    const verb = argv[at + 1] ?? '';
    throw new InputError(
      `${resource} has no verb ${JSON.stringify(verb)}; its verbs: ${tools.map((tool) => tool.verb || tool.tool.name).join(', ')} (cloudcall help ${resource})`,
    );
  }
  return joined;
}
