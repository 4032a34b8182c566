/**
 * A tool's command line: a kebab-case flag per argument (the spec's spelling and case variants
 * accepted too), its primary argument also positional, a generated example in its help, and
 * names in place of ids where the table in names.ts says so.
 */
import { type AnyTool, inputJsonSchema } from '@cloudcall/core';
import { Argument, type Command, Option } from 'commander';
import { exampleFor, primaryArgument } from './commands.js';
import { kebabName, normalizeFlags } from './flag-names.js';
import { FlagError, type FlagSpec, flagsOf, type JsonSchema, readFlag } from './flags.js';
import { handles, type NamedArguments, type NamedKind, namedArguments } from './names.js';

export interface ToolCommandLine {
  flags: FlagSpec[];
  primary: FlagSpec | undefined;
  /** Arguments that take a name in place of an id, and the kind of each. */
  named: NamedArguments;
  /** The tool's arguments, and the values of the command's other options, as parsed. */
  read(command: Command): { args: Record<string, unknown>; local: Record<string, unknown> };
}

/** Adds a tool's flags (and `extra` options, unless a tool flag has their name) to `command`. */
export function addToolFlags(command: Command, tool: AnyTool, extra: readonly Option[]): ToolCommandLine {
  const flags = flagsOf(inputJsonSchema(tool) as JsonSchema);
  const primary = primaryArgument(tool, flags);
  const named = namedArguments(tool, flags, primary);
  const byAttribute = new Map<string, FlagSpec>();
  for (const flag of flags) {
    const option = new Option(
      `--${kebabName(flag.name)}${valueHint(flag)}`,
      describe(flag, flag === primary, named.get(flag.name)),
    );
    byAttribute.set(option.attributeName(), flag);
    command.addOption(option);
  }
  const others = new Set<string>();
  for (const option of extra) {
    if (byAttribute.has(option.attributeName())) continue;
    others.add(option.attributeName());
    // After the tool's own flags, under a heading of their own.
    command.addOption(option.helpGroup('Global options:'));
  }
  if (primary) {
    command.addArgument(new Argument(`[${kebabName(primary.name)}]`, `same as --${kebabName(primary.name)}`));
  }
  const specName = flags.find((flag) => kebabName(flag.name) !== flag.name)?.name;
  const aliases = specName
    ? `\nThe spec's argument names work as flags too, in any case (--${specName}).\n`
    : '';
  // A slug in the example where a public image is used (vm-create, rebuild-vm), not where images
  // are managed (image-delete: public ones cannot be) or a snapshot is meant (restore-vm).
  const samples = new Map<string, string>();
  for (const flag of flags) {
    const kind = named.get(flag.name);
    if (
      kind?.handle &&
      !tool.request?.path.startsWith(`${kind.collection}/`) &&
      flag.description.toLowerCase().includes(kind.label)
    ) {
      samples.set(flag.name, kind.handle.example);
    }
  }
  command.addHelpText('after', `\nExample:\n  ${exampleFor(tool, flags, samples)}\n${aliases}`);

  // Before commander reads the flags, each spelling becomes the declared kebab flag.
  const parseOptions = command.parseOptions.bind(command);
  command.parseOptions = (words) =>
    parseOptions(
      normalizeFlags(words, [
        { long: '--help', takesValue: false },
        ...command.options.flatMap((option) =>
          option.long ? [{ long: option.long, takesValue: option.required }] : [],
        ),
      ]),
    );

  return {
    flags,
    primary,
    named,
    read(parsed) {
      const args: Record<string, unknown> = {};
      const local: Record<string, unknown> = {};
      for (const [attribute, text] of Object.entries(parsed.opts<Record<string, string | boolean>>())) {
        const flag = byAttribute.get(attribute);
        if (flag) args[flag.name] = readFlag(flag, text);
        else if (others.has(attribute)) local[attribute] = text;
      }
      const positional = parsed.processedArgs[0] as string | undefined;
      if (primary && positional !== undefined) {
        const value = readFlag(primary, positional);
        if (primary.name in args && args[primary.name] !== value) {
          throw new FlagError(primary.name, `given twice (${positional} and --${kebabName(primary.name)})`);
        }
        args[primary.name] = value;
      }
      return { args, local };
    },
  };
}

function valueHint(flag: FlagSpec): string {
  if (flag.kind === 'boolean') return ' [true|false]';
  if (flag.kind === 'array' || flag.kind === 'object') return ' <json>';
  return ' <value>';
}

function describe(flag: FlagSpec, positional: boolean, kind: NamedKind | undefined): string {
  const extra = [
    flag.required ? 'required' : undefined,
    kind ? `the ${kind.label}'s ${handles(kind)}` : undefined,
    positional ? 'or give it first, without the flag' : undefined,
    flag.choices ? `one of ${flag.choices.join(', ')}` : undefined,
    flag.defaultValue !== undefined ? `default ${JSON.stringify(flag.defaultValue)}` : undefined,
    flag.kind === 'array' ? 'JSON array, or comma-separated' : undefined,
    flag.kind === 'object' ? 'JSON object' : undefined,
  ].filter(Boolean);
  return `${flag.description}${extra.length ? ` (${extra.join('; ')})` : ''}`;
}
