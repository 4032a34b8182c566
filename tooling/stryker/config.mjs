/**
 * The shared Stryker (mutation testing) settings; each package's `stryker.config.mjs` names the
 * files to mutate. Run by `pnpm mutation` (run.mjs beside this file), never by `pnpm test`: it
 * runs a package's tests once per mutant, which takes minutes.
 *
 * One test process (`concurrency: 1`): the machines have two cores, shared. Only the tests that
 * cover a mutant run for it (`perTest`). Results are kept in `reports/stryker-incremental.json`
 * (not committed): a second run tests again only the mutants whose code or tests changed.
 */

/** @param {{ mutate: string[], ignoreStatic?: boolean, vitestConfig?: string }} options */
export function strykerConfig({ mutate, ignoreStatic = false, vitestConfig = 'vitest.config.ts' }) {
  /** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
  const config = {
    packageManager: 'pnpm',
    plugins: ['@stryker-mutator/vitest-runner'],
    testRunner: 'vitest',
    vitest: { configFile: vitestConfig },
    coverageAnalysis: 'perTest',
    mutate,
    // A static mutant (in a module-level constant) needs the whole suite run again, in a fresh
    // module graph; where that suite takes a minute, such mutants are left out (and counted as
    // ignored).
    ignoreStatic,
    concurrency: 1,
    incremental: true,
    incrementalFile: 'reports/stryker-incremental.json',
    // The copy the mutants run in sits at the depth of packages/<name>, so that a test's path
    // to the repository's files (`../../../docs/library.md`) finds them from the copy too.
    tempDirName: '../../.stryker-tmp',
    reporters: ['clear-text', 'progress', 'json', 'html'],
    jsonReporter: { fileName: 'reports/mutation/mutation.json' },
    htmlReporter: { fileName: 'reports/mutation/mutation.html' },
    clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
    thresholds: { high: 80, low: 60, break: null },
    // Some tests use real time (a response timeout, a server that answers slowly).
    timeoutMS: 5_000,
    cleanTempDir: true,
  };
  return config;
}
