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
 * lowered with the first call: V8's platform workers, Node's delayed-task thread, and libuv's pool
 * if a file or DNS job has started it by then; threads made later take the main thread's
 * priority. Raising a nice value needs no privilege; a thread that is gone by then is skipped.
 *
 * Node's own threads from before the server ran (V8's workers and Node's delayed-task thread, not
 * libuv's pool, which starts with the first file or DNS job) also go to the idle class
 * (SCHED_IDLE): they run only on a core nothing else wants. Lower nice values alone still let a
 * compile that holds a core run on for its time slice once the answering thread wakes; at idle
 * it gives the core up at once. Node has no call for a thread's scheduling class, so util-linux's
 * `chrt` sets it, in one shell run beside the server; where there is no `chrt` the threads keep
 * the nice values above. libuv's pool never goes idle: a call may wait for its file writes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How far below the main thread (in nice steps) the helper threads run. */
export const HELPER_NICE_STEP = 10;

/** The ids of this process's threads, main included (Linux; elsewhere none). */
export function threadIds(): number[] {
  if (process.platform !== 'linux') return [];
  try {
    return readdirSync('/proc/self/task')
      .map(Number)
      .filter((tid) => Number.isSafeInteger(tid));
  } catch {
    return [];
  }
}

/**
 * Lowers every thread of this process but the main one by `step`, and puts those of
 * `idleThreads` (threadIds() taken before the server started) in the idle class; returns how many
 * it lowered.
 */
export function lowerHelperThreads(idleThreads: readonly number[] = [], step = HELPER_NICE_STEP): number {
  let lowered = 0;
  const idle: string[] = [];
  for (const tid of threadIds()) {
    // The main thread's id is the process's.
    if (tid === process.pid) continue;
    try {
      setPriority(tid, Math.min(19, getPriority(tid) + step));
      lowered++;
    } catch {
      // Ended meanwhile, or a limit this process may not change: left as it is.
    }
    if (idleThreads.includes(tid)) idle.push(String(tid));
  }
  if (idle.length > 0) toIdleClass(idle);
  return lowered;
}

/**
 * `chrt -i -p 0 TID` for each thread (or process), in one shell run beside this one that stops
 * at the first refusal; returns at once, with the shell's process (undefined when it could not be
 * started). A shell that cannot run is no error: the nice values stand.
 */
export function toIdleClass(tids: string[], shell = '/bin/sh'): ChildProcess | undefined {
  try {
    const run = spawn(shell, ['-c', 'for tid do chrt -i -p 0 "$tid" || exit 1; done', 'sh', ...tids], {
      stdio: 'ignore',
    });
    run.on('error', () => undefined);
    run.unref();
    return run;
  } catch {
    return undefined;
  }
}
