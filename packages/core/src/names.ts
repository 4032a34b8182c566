/**
 * Names as people type them: a glob over tool names (tool selection, protection rules, audit
 * filters) and the nearest names to a misspelt one (did you mean ...?).
 */
/**
 * A glob over tool names as a RegExp: `*` is any run of characters, `?` one character, and
 * nothing else is special (tool names are lowercase words joined by `-`).
 */
export function globPattern(glob: string): RegExp {
  const source = glob
    .split('')
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[\\^$.+()[\]{}|]/g, '\\$&')))
    .join('');
  // `s`: `*` and `?` match a line break too, so `name:web*` protects a resource named "web\nx";
  // `u`: `?` is one character, an emoji included.
  return new RegExp(`^${source}$`, 'su');
}

/** Up to three names within a small edit distance of `wanted`, closest first. */
export function closest(wanted: string, names: readonly string[]): string[] {
  const plain = wanted.replace(/[*?]/g, '');
  return names
    .map((name) => ({ name, distance: editDistance(plain, name) }))
    .filter(({ distance }) => distance <= Math.max(2, Math.floor(plain.length / 4)))
    .sort((a, b) => a.distance - b.distance)
    .slice(0, 3)
    .map(({ name }) => name);
}

/** The Levenshtein distance of two names: how many characters to insert, delete or replace. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}
