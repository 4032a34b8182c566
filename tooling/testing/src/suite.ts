/**
 * A check over a whole test file, whatever order its tests ran in: "called every tool" holds once
 * every test has run, so it runs after them (afterAll), and only when all of them ran and passed.
 * A run of some of them (`-t`) or a run where one failed (which says why) leaves it out.
 *
 *   afterAll(({}, suite) => afterEveryTest(suite, () => expect(missing()).toEqual([])));
 */

/** The parts of a Vitest suite (the argument of `afterAll`) this reads. */
export interface SuiteTasks {
  tasks: readonly SuiteTask[];
}
interface SuiteTask {
  type: string;
  mode: string;
  result?: { state?: string };
  tasks?: readonly SuiteTask[];
}

/** Whether every test in `suite` (and its inner suites) ran and passed. */
export function everyTestPassed(suite: SuiteTasks): boolean {
  return suite.tasks.every((task) =>
    task.tasks
      ? everyTestPassed({ tasks: task.tasks })
      : task.mode === 'run' && task.result?.state === 'pass',
  );
}

/** Runs `check` when every test of `suite` ran and passed; its failure fails the file. */
export async function afterEveryTest(suite: SuiteTasks, check: () => unknown): Promise<void> {
  if (everyTestPassed(suite)) await check();
}
