/**
 * Flag spellings. Every argument's flag is its name in kebab case (`PublicKey` -> `--public-key`,
 * `num_nodes` -> `--num-nodes`, `ID` -> `--id`), as doctl and gh users type them. The spec's own
 * names and any case or separator variant (`--PublicKey`, `--public_key`, `--ID`) still work:
 * before the tool's flags are parsed, each spelling is rewritten to the kebab flag it means.
 */
import { closest } from '@cloudcall/catalog/select';

/** `LoadBalancerID` -> `load-balancer-id`, `per_page` -> `per-page`, `IPv6` -> `ipv6`, `VmIDs` -> `vm-ids`. */
export function kebabName(name: string): string {
  return (
    name
      // "IPv4"/"IPv6" are one word, not "I" + "Pv6".
      .replace(/IPv([46])/g, 'Ipv$1')
      // "VmIDs" is "vm-ids", not "vm-i-ds".
      .replace(/IDs(?![a-z])/g, 'Ids')
      .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
      .replace(/_/g, '-')
      .toLowerCase()
  );
}

/** What two spellings of one flag have in common: lower case, without `-` or `_`. */
export function looseKey(flag: string): string {
  return flag.replace(/^-+/, '').replace(/[-_]/g, '').toLowerCase();
}

/** A flag the user wrote that matches no flag of the command, with the closest ones. */
export class UnknownFlagError extends Error {
  constructor(
    readonly flag: string,
    readonly suggestions: string[],
  ) {
    super(`unknown flag ${flag}${suggestions.length ? ` (did you mean ${suggestions.join(' or ')}?)` : ''}`);
  }
}

export interface KnownFlag {
  /** The flag as the command declares it: `--public-key`. */
  long: string;
  /** Whether the next word is its value (when not given as `--flag=value`). */
  takesValue: boolean;
}

/**
 * Rewrites each `--Spelling` in `words` to the declared flag it means (compared by
 * {@link looseKey}); a flag that means none throws an {@link UnknownFlagError} naming the
 * closest. Values (the word after a flag that takes one) and everything after `--` are left
 * alone; short flags (`-o`) are left to the parser.
 */
export function normalizeFlags(
  words: readonly string[],
  known: readonly KnownFlag[],
  /** Filled with each declared flag and its spelling as typed (`--public-key` -> `--PublicKey`). */
  typed?: Map<string, string>,
): string[] {
  const byKey = new Map(known.map((flag) => [looseKey(flag.long), flag]));
  const out: string[] = [];
  for (let index = 0; index < words.length; index++) {
    const word = words[index] as string;
    if (word === '--') {
      out.push(...words.slice(index));
      break;
    }
    if (!word.startsWith('--')) {
      out.push(word);
      continue;
    }
    const equals = word.indexOf('=');
    const spelled = equals === -1 ? word : word.slice(0, equals);
    const flag = byKey.get(looseKey(spelled));
    if (!flag) {
      const near = closest(
        looseKey(spelled),
        known.map((candidate) => looseKey(candidate.long)),
      ).map((key) => byKey.get(key)?.long as string);
      throw new UnknownFlagError(spelled, near);
    }
    typed?.set(flag.long, spelled);
    out.push(equals === -1 ? flag.long : `${flag.long}${word.slice(equals)}`);
    if (equals === -1 && flag.takesValue && index + 1 < words.length) {
      index++;
      out.push(words[index] as string);
    }
  }
  return out;
}
