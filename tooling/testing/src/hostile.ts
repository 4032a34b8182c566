/**
 * Values that would change which resource a request names if they filled a path segment as they
 * are: empty, dot segments (plain, percent-encoded once and twice), slashes and backslashes (plain
 * and encoded), control characters and a lone surrogate. Every suite that checks path arguments
 * uses this one list.
 */
export const PATH_HOSTILE: readonly string[] = [
  '',
  '.',
  '..',
  '%2e',
  '%2e%2e',
  '%2E.',
  '%252e%252e',
  '..%2f',
  '..%2Fdroplets',
  '../..',
  'a/b',
  '%2F',
  'a\\b',
  'a\nb',
  'a\r\nb',
  'a\u0000b',
  'a\u007fb',
  '\ud800',
];

/**
 * Each argument of a tool's request path (`{ID}` in `/v2/images/{ID}`), given each PATH_HOSTILE
 * value in turn, with the rest of its case's arguments: what was not refused naming that argument,
 * one line each (`image-get ID="..": what it did`). `run` runs a tool and gives its error (or its
 * result); `refuses` says whether that outcome refused the argument. `takes` names the values an
 * argument rightly takes (`a/b`, a repository whose "/" is sent as %2F): those are not tried.
 */
export async function unrefusedPathValues(
  cases: Iterable<readonly [string, Record<string, unknown>, ...unknown[]]>,
  pathOf: (tool: string) => string | undefined,
  run: (tool: string, args: Record<string, unknown>) => Promise<unknown>,
  refuses: (outcome: unknown, argument: string) => boolean,
  takes: (tool: string, argument: string, value: string) => boolean = () => false,
): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, args] of cases) {
    for (const [, argument = ''] of (pathOf(name) ?? '').matchAll(/\{(\w+)\}/g)) {
      for (const value of PATH_HOSTILE) {
        if (takes(name, argument, value)) continue;
        const outcome = await run(name, { ...args, [argument]: value });
        if (!refuses(outcome, argument))
          problems.push(`${name} ${argument}=${JSON.stringify(value)}: ${String(outcome)}`);
      }
    }
  }
  return problems;
}
