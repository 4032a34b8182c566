/**
 * The stdio server's helper threads run below the thread that answers calls (Linux): read from
 * /proc for the built server, over stdio with a real MCP client, and over HTTP (which keeps every
 * thread as it is).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { call, MAIN, serverEnv } from './testing/client.js';
import { killAll, startHttp } from './testing/process.js';
import { httpClient } from './testing/service.js';
import { HELPER_NICE_STEP, lowerHelperThreads, threadIds, toIdleClass } from './thread-priority.js';

afterEach(killAll);

/** SCHED_OTHER and SCHED_IDLE, as /proc gives a thread's scheduling class. */
const OTHER = 0;
const IDLE = 5;

/**
 * Each thread of a process: its id, nice value, start (in clock ticks since boot) and scheduling
 * class (fields 19, 22 and 41 of /proc/PID/task/TID/stat).
 */
function threads(pid: number): { tid: number; nice: number; start: number; policy: number }[] {
  return readdirSync(`/proc/${pid}/task`).map((task) => {
    const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      tid: Number(task),
      nice: Number(fields[16]),
      start: Number(fields[19]),
      policy: Number(fields[38]),
    };
  });
}

/** A real client over stdio, `node dist/main.js --sandbox` started by `command` (node, or nice). */
async function stdio(command: string[]): Promise<{ client: Client; pid: () => number }> {
  const [first, ...rest] = command as [string, ...string[]];
  const transport = new StdioClientTransport({
    command: first,
    args: [...rest, process.execPath, MAIN, '--sandbox'],
    env: serverEnv(),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'cloudcall-test', version: '1.0.0' });
  await client.connect(transport);
  const server = transport.pid;
  if (server === null) throw new Error('no server process');
  // Under nice, the server is nice's own process (nice execs node): the same pid.
  return { client, pid: () => server };
}

describe.runIf(process.platform === 'linux')('the stdio server on Linux', () => {
  it("runs its helper threads (V8 workers, libuv pool) below the thread that answers calls, V8's at idle", async () => {
    const { client, pid } = await stdio(['env']);
    try {
      const answer = await client.callTool({ name: 'key-list', arguments: {} });
      expect(answer.isError).toBeFalsy();
      const all = threads(pid());
      const main = all.find((thread) => thread.tid === pid());
      expect(main?.nice).toBe(0);
      expect(main?.policy).toBe(OTHER);
      // V8's four platform workers at least; threads made after the first call keep the main
      // thread's priority.
      expect(all.filter((thread) => thread.nice === HELPER_NICE_STEP).length).toBeGreaterThanOrEqual(4);
      expect(all.filter((thread) => thread.nice !== 0 && thread.nice !== HELPER_NICE_STEP)).toEqual([]);
      // Node's own threads from its start (V8's workers among them) go to the idle class, through
      // chrt beside the server; libuv's pool, made later for the sandbox's file work, does not.
      await expect
        .poll(() => threads(pid()).filter((thread) => thread.policy === IDLE).length)
        .toBeGreaterThanOrEqual(4);
      const now = threads(pid());
      const idle = now.filter((thread) => thread.policy === IDLE);
      expect(idle.every((thread) => thread.nice === HELPER_NICE_STEP)).toBe(true);
      const later = now.filter((thread) => thread.tid !== pid() && thread.policy === OTHER);
      expect(later.length).toBeGreaterThan(0);
      // Started no later than those (thread ids wrap around, so their start is compared).
      expect(Math.max(...idle.map((thread) => thread.start))).toBeLessThanOrEqual(
        Math.min(...later.map((thread) => thread.start)),
      );
      // And it goes on answering.
      expect((await client.callTool({ name: 'key-list', arguments: {} })).isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('lowers them from where the server was started: under `nice -n 3`, the helpers run at 13', async () => {
    const { client, pid } = await stdio(['nice', '-n', '3']);
    try {
      await client.callTool({ name: 'key-list', arguments: {} });
      const all = threads(pid());
      expect(all.find((thread) => thread.tid === pid())?.nice).toBe(3);
      expect(all.filter((thread) => thread.nice === 3 + HELPER_NICE_STEP).length).toBeGreaterThanOrEqual(4);
    } finally {
      await client.close();
    }
  });

  it('leaves every thread of an HTTP server as it is: a service answers many callers at once', async () => {
    const { url, child } = await startHttp([
      '--transport',
      'http',
      '--port',
      '0',
      '--sandbox',
      '--stateless',
    ]);
    const client = await httpClient(url);
    try {
      expect((await call(client, 'key-list')).isError).toBe(false);
    } finally {
      await client.close();
    }
    expect(
      threads(child.pid as number).filter((thread) => thread.nice !== 0 || thread.policy !== OTHER),
    ).toEqual([]);
  });
});

describe.runIf(process.platform === 'linux')('the thread functions, in this process', () => {
  it("list this process's threads, the main one among them", () => {
    const ids = threadIds();
    expect(ids).toContain(process.pid);
    expect(new Set(ids)).toEqual(new Set(readdirSync('/proc/self/task').map(Number)));
  });

  it('lower every thread but the main one, by the step given (none here)', () => {
    const before = threads(process.pid);
    expect(lowerHelperThreads([], 0)).toBe(before.length - 1);
    // A step of 0 leaves each nice value as it was, and no thread is made idle.
    expect(threads(process.pid).filter((thread) => thread.policy === IDLE)).toEqual([]);
  });

  it('put a process in the idle class through chrt, without waiting for it', async () => {
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = sleeper.pid as number;
      expect(threads(pid)[0]?.policy).toBe(OTHER);
      toIdleClass([String(pid)]);
      await expect.poll(() => threads(pid)[0]?.policy).toBe(IDLE);
    } finally {
      sleeper.kill();
    }
  });

  it('let a shell that cannot be started go: no throw, no unhandled error', async () => {
    const shell = toIdleClass([String(process.pid)], '/nonexistent/sh');
    expect(shell).toBeDefined();
    const [error] = (await once(shell as ChildProcess, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ENOENT');
    // This process, the one the shell would have changed, is as it was.
    expect(threads(process.pid).find((thread) => thread.tid === process.pid)?.policy).toBe(OTHER);
  });
});
