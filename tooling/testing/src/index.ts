/**
 * Test support shared by the suites: free loopback ports, a real redis-server (to migrate from, to
 * keep quota counts in), and a stand-in API that echoes the caller's token back.
 * Loopback only: nothing here listens on or connects to any other address.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { accepts, freePort } from './net.mjs';

export { type AuditLogShape, writeAuditLog } from './audit.js';
export { ECHO_PATHS, ECHO_TOKEN, type EchoingApi, secretRuns, startEchoingApi } from './echo.js';
export { staleness } from './generated.js';
export { PATH_HOSTILE, unrefusedPathValues } from './hostile.js';
export { type FoundSecret, leaked, SECRET_SCENARIO, secretsIn, truthOf } from './secrets.js';
export { afterEveryTest, everyTestPassed, type SuiteTasks } from './suite.js';
export { freePort };

export interface RedisServer {
  port: number;
  /** redis://127.0.0.1:PORT */
  url: string;
  /** Stops answering without closing a connection (SIGSTOP), as a hung server; `resume` undoes it. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

/**
 * Starts a real redis-server on loopback, without persistence, and resolves once it accepts
 * connections, on a free port or on `port` (to start one again where its clients look for it).
 * Throws a clear error when redis-server is not installed (`.ci/run` installs it).
 */
export async function startRedisServer(options: { port?: number } = {}): Promise<RedisServer> {
  if (spawnSync('redis-server', ['--version']).error) {
    throw new Error(
      'redis-server is not installed (apt-get install redis-server; .ci/run installs it); the tests need it',
    );
  }
  const port = options.port ?? (await freePort());
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let attempt = 1; !(await accepts(port)); attempt++) {
    if (attempt === 50) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not listen on ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        // A paused server ends only once it runs again.
        child.kill('SIGCONT');
        child.kill('SIGTERM');
      }),
  };
}
