/**
 * How cloudcall-bundle splits the CLI (tooling/bundle/bundle.mjs reads this file beside an app's
 * package.json). By default each dynamic import() is a chunk, and modules two chunks share are a
 * chunk of their own: a command that runs a tool loaded 23 files, each resolved, read, and its
 * cached code read, one after the other. The group below puts what every tool's command loads
 * once it has read the command line (the tool runner: execute.ts and what only it needs, core's
 * API client and tool contract, zod, the wait package, the table columns) in one chunk.
 *
 * A module listed here that the program needs at start would bring the whole group to every start:
 * start-up.test.ts checks that --help, completion and --version load no zod. Only the modules
 * matched are moved (not what they import), so the program's own modules stay where they were.
 */
export default {
  codeSplittingGroups: [
    {
      name: 'run',
      includeDependenciesRecursively: false,
      test: new RegExp(
        [
          String.raw`node_modules[\\/]\.pnpm[\\/]zod@`,
          String.raw`packages[\\/]wait[\\/]dist[\\/]`,
          String.raw`packages[\\/]core[\\/]dist[\\/](client|retry|rate-limit|tool|depth|pagination|args|duration)\.js$`,
          String.raw`packages[\\/]platform[\\/]dist[\\/]enums\.generated\.js$`,
          String.raw`apps[\\/]cli[\\/]src[\\/](columns|execute|name-lookup|plumbing)\.ts$`,
        ].join('|'),
      ),
    },
  ],
};
