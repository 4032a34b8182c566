/**
 * The stdio server's helper threads at a lower priority than the thread that answers calls. A
 * cold server's V8 compiles the call path with its optimising compiler on worker threads while the
 * calls run, and collects garbage beside them; on a machine whose cores are busy (the host, the
 * model's client, other servers) the thread that answers a call then waits its turn behind that
 * work, and the first thousand calls' slowest are mostly such waits (docs/benchmark.md, tenth
 * pass). Browsers run the same V8 workers at a background priority for the same reason.
 *
 * Linux only, where a thread has a priority of its own: `setpriority(PRIO_PROCESS, tid)` (Node's
 * os.setPriority) changes that thread alone. Every thread of the process but the main one is
 * lowered, which at start are V8's platform workers, Node's delayed-task thread and libuv's pool
 * (file reads); threads made later take the main thread's priority. Raising a nice value needs no
 * privilege; a thread that is gone by then is skipped.
 */
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How far below the main thread (in nice steps) the helper threads run. */
export const HELPER_NICE_STEP = 10;

/** Lowers every thread of this process but the main one by `step`; returns how many it lowered. */
export function lowerHelperThreads(step = HELPER_NICE_STEP): number {
  if (process.platform !== 'linux') return 0;
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return 0;
  }
  let lowered = 0;
  for (const task of tasks) {
    const tid = Number(task);
    // The main thread's id is the process's.
    if (!Number.isSafeInteger(tid) || tid === process.pid) continue;
    try {
      setPriority(tid, Math.min(19, getPriority(tid) + step));
      lowered++;
    } catch {
      // Ended meanwhile, or a limit this process may not change: left as it is.
    }
  }
  return lowered;
}
