/**
 * A tool's command line: a kebab-case flag per argument (the spec's spelling and case variants
 * accepted too), its primary argument also positional, a generated example in its help, and
 * names in place of ids where the table in names.ts says so.
 */
import { Argument, type Command, Option } from 'commander';
import {
  exampleFor,
  nextPathArgument,
  placeholderOf,
  positionalArgument,
  primaryArgument,
  secondArgument,
} from './commands.js';
import {
  aliasesFor,
  type CliDefault,
  type CliSubstitute,
  type CliSwitch,
  DOCTL_SECOND,
  defaultsFor,
  liftFirstRules,
  substitutesFor,
  switchesFor,
} from './doctl.js';
import { kebabName, normalizeFlags } from './flag-names.js';
import { FlagError, type FlagSpec, flagsOf, readFlag } from './flags.js';
import { handles, type NamedArguments, type NamedKind, namedArguments } from './names.js';
import type { ToolEntry } from './tool-entry.js';

export interface ToolCommandLine {
  flags: FlagSpec[];
  primary: FlagSpec | undefined;
  /** Arguments that take a name in place of an id, and the kind of each. */
  named: NamedArguments;
  /** Arguments the CLI fills when they are not given (doctl.ts). */
  defaults: CliDefault[];
  /** Arguments whose absence runs another tool (doctl.ts). */
  substitutes: CliSubstitute[];
  /**
   * The tool's arguments, and the values of the command's other options, as parsed (the flags of
   * a CLI default among them, by their own names). `each` holds one set of arguments per id given
   * first: `vm-delete 1 2` runs the tool twice. `use`: the tool a switch (doctl.ts) runs instead.
   */
  read(command: Command): {
    args: Record<string, unknown>;
    local: Record<string, unknown>;
    each: Record<string, unknown>[];
    use?: string;
  };
  /**
   * How an argument (or a path into one: `ForwardingRules.0.entry_port`) is named in a message:
   * its flag as it was typed (`--PerPage`, `--per-page`), `<id>` when it was given first, or its
   * kebab flag when it was not given at all.
   */
  flagFor(argument: string): string;
}

/** An argument's flag when the command line has nothing better to name it by: `num_nodes` -> `--num-nodes`. */
export function defaultFlagFor(argument: string): string {
  if (argument === '' || argument.startsWith('-')) return argument;
  const [head = '', ...rest] = argument.split('.');
  return `--${kebabName(head)}${rest.length ? ` (at ${rest.join('.')})` : ''}`;
}

/** Adds a tool's flags (and `extra` options, unless a tool flag has their name) to `command`. */
export function addToolFlags(command: Command, tool: ToolEntry, extra: readonly Option[]): ToolCommandLine {
  const schemaFlags = flagsOf(tool.inputSchema);
  const defaults = defaultsFor(tool, schemaFlags);
  const substitutes = substitutesFor(tool);
  const switches = switchesFor(tool);
  const optional = new Set([...defaults, ...substitutes].map((entry) => entry.argument));
  // An argument with a CLI default or a substitute is not required on the command line.
  const flags = schemaFlags.map((flag) => (optional.has(flag.name) ? { ...flag, required: false } : flag));
  const named = namedArguments(tool, flags, primaryArgument(tool, flags));
  let primary = positionalArgument(tool, flags);
  let second = secondArgument(tool, flags);
  // An argument the CLI fills is not given first where doctl gives the next ones
  // (`registry repository delete-tag web v1`, the registry the account's).
  const next = nextArguments(tool, flags, positionalArgument(tool, schemaFlags), optional);
  if (next) [primary, second] = next;
  // doctl's second word where the path does not say it (`apps logs APP web`): optional, given first.
  second ??= primary && flags.find((flag) => flag.name === DOCTL_SECOND[tool.name]);
  const third = nextPathArgument(tool, flags, second);
  // Several ids at once where doctl takes them: `vm-delete 1 2 --force`, `domain-record-delete
  // example.com 11 12 --force` (the last argument given positionally).
  const several = /-delete$/.test(tool.name) ? (third ?? second ?? primary) : undefined;
  const byAttribute = new Map<string, FlagSpec>();
  /** Flags that read their text their own way (doctl's rule strings). */
  const readers = new Map<string, (text: string) => unknown>();
  /** Every flag of an argument: its own and doctl's. */
  const longsOf = new Map<string, string[]>();
  for (const flag of flags) {
    const fallback = defaults.find((entry) => entry.argument === flag.name);
    const instead = substitutes.find((entry) => entry.argument === flag.name);
    const option = new Option(
      `--${kebabName(flag.name)}${valueHint(flag)}`,
      describe(
        flag,
        flag === primary,
        named.get(flag.name),
        fallback ? `default: ${fallback.says}` : instead?.says,
      ),
    );
    byAttribute.set(option.attributeName(), flag);
    longsOf.set(flag.name, [`--${kebabName(flag.name)}`]);
    command.addOption(option);
  }
  for (const alias of aliasesFor(tool, flags)) {
    const { target, read } = alias;
    const long = `--${alias.flag}`;
    const own = command.options.find((option) => option.long === long);
    const attribute = own?.attributeName() ?? new Option(long).attributeName();
    if (own && byAttribute.get(attribute) !== target) continue;
    if (read) {
      readers.set(attribute, (text) => read(text, target.name) ?? readFlag(target, text));
    }
    if (own) continue;
    byAttribute.set(attribute, target);
    longsOf.get(target.name)?.push(long);
    const option = new Option(
      `${long}${alias.says ? ' <value>' : valueHint(target)}`,
      `same as --${kebabName(target.name)}${alias.says ? `: ${alias.says}` : ''}${alias.repeats ? ' (repeatable)' : ''}`,
    ).helpGroup("doctl's spellings:");
    const { repeats } = alias;
    if (repeats) {
      option.argParser((value: string, previous: string | undefined) =>
        previous === undefined ? value : `${previous}${repeats}${value}`,
      );
    }
    command.addOption(option);
  }
  /** The flags of CLI defaults (`--size`, `--count`), by attribute: their default and own name. */
  const shaping = new Map<string, { entry: CliDefault; flag: string }>();
  for (const entry of defaults) {
    for (const { flag, says } of entry.flags ?? []) {
      const option = new Option(`--${flag} <value>`, says).helpGroup("doctl's spellings:");
      if (command.options.some((own) => own.long === option.long)) continue;
      shaping.set(option.attributeName(), { entry, flag });
      command.addOption(option);
    }
  }
  const switched = new Map<string, CliSwitch>();
  for (const entry of switches) {
    const option = new Option(`--${entry.flag} [true|false]`, entry.says).helpGroup("doctl's spellings:");
    if (command.options.some((own) => own.long === option.long)) continue;
    switched.set(option.attributeName(), entry);
    command.addOption(option);
  }
  const others = new Set<string>();
  for (const option of extra) {
    if (byAttribute.has(option.attributeName())) continue;
    others.add(option.attributeName());
    // After the tool's own flags, under a heading of their own.
    command.addOption(option.helpGroup('Global options:'));
  }
  for (const flag of [primary, second, third]) {
    if (!flag) continue;
    const many = flag === several;
    command.addArgument(
      new Argument(
        `[${kebabName(flag.name)}${many ? '...' : ''}]`,
        `same as --${kebabName(flag.name)}${many ? '; several run the tool once each' : ''}`,
      ),
    );
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
    } else if (kind && flag.kind !== 'array') {
      // A name is taken where the id is: the placeholder stands for one.
      samples.set(flag.name, placeholderOf(flag));
    }
  }
  command.addHelpText('after', `\nExample:\n  ${exampleFor(tool, flags, samples)}\n${aliases}`);

  // Before commander reads the flags, each spelling becomes the declared kebab flag; the spelling
  // typed is kept, for messages.
  const typed = new Map<string, string>();
  const parseOptions = command.parseOptions.bind(command);
  command.parseOptions = (words) =>
    parseOptions(
      normalizeFlags(
        words,
        [
          { long: '--help', takesValue: false },
          ...command.options.flatMap((option) =>
            option.long ? [{ long: option.long, takesValue: option.required }] : [],
          ),
        ],
        typed,
      ),
    );
  /** The arguments given without their flag (for messages: `<id>`). */
  let givenPositionally = new Set<FlagSpec>();
  // A name stands where a number (an id) is expected until it is looked up.
  const readArgument = (flag: FlagSpec, text: string | boolean) =>
    named.has(flag.name) && flag.kind === 'number' && typeof text === 'string' && !/^\s*\d+\s*$/.test(text)
      ? text
      : readFlag(flag, text);

  return {
    flags,
    primary,
    named,
    defaults,
    substitutes,
    read(parsed) {
      const args: Record<string, unknown> = {};
      const local: Record<string, unknown> = {};
      let use: string | undefined;
      const shaped: { entry: CliDefault; flag: string }[] = [];
      for (const [attribute, text] of Object.entries(parsed.opts<Record<string, string | boolean>>())) {
        const flag = byAttribute.get(attribute);
        const reader = readers.get(attribute);
        const shapes = shaping.get(attribute);
        const switch_ = switched.get(attribute);
        if (shapes) {
          local[shapes.flag] = String(text);
          shaped.push(shapes);
        } else if (switch_) {
          if (switchOn(switch_.flag, text)) use = switch_.use;
        } else if (flag) {
          const value = reader && typeof text === 'string' ? reader(text) : readArgument(flag, text);
          if (flag.name in args && JSON.stringify(args[flag.name]) !== JSON.stringify(value)) {
            throw new FlagError(flag.name, `given twice, as ${(longsOf.get(flag.name) ?? []).join(' and ')}`);
          }
          args[flag.name] = value;
        } else if (others.has(attribute)) local[attribute] = text;
      }
      liftFirstRules(args, flags);
      // doctl refuses --size and --count beside --node-pool: they shape the pool it makes instead.
      for (const { entry, flag } of shaped) {
        if (args[entry.argument] !== undefined) {
          const longs = longsOf.get(entry.argument) ?? [];
          const own = longs.map((long) => typed.get(long)).find(Boolean) ?? longs[0];
          throw new FlagError(
            flag,
            `cannot go with ${own}: it shapes the default made when ${own} is not given`,
          );
        }
      }
      // What was given without flags: the primary argument, then the second and third (several of
      // the last on a delete tool, each run once).
      const positionals = [primary, second, third].flatMap((flag, at) => {
        const given = parsed.processedArgs[at] as string | string[] | undefined;
        return flag && given !== undefined ? [{ flag, values: ([] as string[]).concat(given) }] : [];
      });
      givenPositionally = new Set(positionals.filter(({ values }) => values.length).map(({ flag }) => flag));
      const fill = (into: Record<string, unknown>, flag: FlagSpec, positional: string) => {
        const value = readArgument(flag, positional);
        if (flag.name in args && args[flag.name] !== value) {
          throw new FlagError(flag.name, `given twice (${positional} and --${kebabName(flag.name)})`);
        }
        into[flag.name] = value;
      };
      const one = { ...args };
      let many: string[] = [];
      for (const { flag, values } of positionals) {
        if (flag === several) many = values;
        else if (values[0] !== undefined) fill(one, flag, values[0]);
      }
      const each = many.map((value) => {
        const copy = { ...one };
        fill(copy, several as FlagSpec, value);
        return copy;
      });
      const chosen = use === undefined ? {} : { use };
      return each.length
        ? { args: each[0] as Record<string, unknown>, local, each, ...chosen }
        : { args: one, local, each: [one], ...chosen };
    },
    flagFor(argument) {
      const [head = '', ...rest] = argument.split('.');
      const flag = flags.find((candidate) => candidate.name === head);
      if (!flag) return defaultFlagFor(argument);
      const longs = longsOf.get(flag.name) ?? [];
      const typedAs = longs.map((long) => typed.get(long)).find((spelled) => spelled !== undefined);
      const long = `--${kebabName(flag.name)}`;
      const shown = typedAs ?? (givenPositionally.has(flag) ? `<${kebabName(flag.name)}>` : long);
      return `${shown}${rest.length ? ` (at ${rest.join('.')})` : ''}`;
    },
  };
}

/**
 * For a tool whose primary argument has a CLI default: the path's next two arguments, to give
 * first instead, when it names more; else the primary still, given first when given at all.
 */
function nextArguments(
  tool: ToolEntry,
  flags: readonly FlagSpec[],
  primary: FlagSpec | undefined,
  optional: ReadonlySet<string>,
): [FlagSpec, FlagSpec | undefined] | undefined {
  if (!primary || !optional.has(primary.name) || !tool.request) return undefined;
  const scalar = (name: string | undefined) =>
    flags.find(
      (flag) => flag.name === name && flag.required && !['array', 'object', 'json'].includes(flag.kind),
    );
  const [, first, then] = [...tool.request.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  const shifted = scalar(first);
  if (shifted) return [shifted, scalar(then)];
  const own = flags.find((flag) => flag.name === primary.name);
  return own ? [own, undefined] : undefined;
}

/** A switch's value: bare or `true` turns it on, `false` leaves it off. */
function switchOn(flag: string, value: string | boolean): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new FlagError(flag, `expected true or false, got ${JSON.stringify(value)}`);
}

function valueHint(flag: FlagSpec): string {
  if (flag.kind === 'boolean') return ' [true|false]';
  if (flag.kind === 'array' || flag.kind === 'object' || flag.kind === 'json') return ' <json>';
  return ' <value>';
}

function describe(
  flag: FlagSpec,
  positional: boolean,
  kind: NamedKind | undefined,
  fallback: string | undefined,
): string {
  const extra = [
    flag.required ? 'required' : undefined,
    fallback,
    kind ? `the ${kind.label}'s ${handles(kind)}` : undefined,
    positional ? 'or give it first, without the flag' : undefined,
    flag.choices ? `one of ${flag.choices.join(', ')}` : undefined,
    flag.defaultValue !== undefined ? `default ${JSON.stringify(flag.defaultValue)}` : undefined,
    flag.kind === 'array' ? 'JSON array, or comma-separated' : undefined,
    flag.kind === 'object' ? 'JSON object' : undefined,
    flag.kind === 'json' ? 'JSON object or array' : undefined,
  ].filter(Boolean);
  return `${flag.description}${extra.length ? ` (${extra.join('; ')})` : ''}`;
}
