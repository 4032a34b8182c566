/**
 * Test helper: runs the CLI in this process (runCli with captured output), for tests of parsing,
 * help and messages that need no separate process: the same program as the built command, without
 * a Node start per run.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { runCli } from '../program.js';
import type { Run } from './run.js';

/** A CLI in this process bound to its own config directory (and so its own sandbox state). */
export function inlineRunner() {
  const home = mkdtempSync(join(tmpdir(), 'cloudcall-inline-'));
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, 'config') };
  const run = async (args: string[], more: Record<string, string> = {}): Promise<Run> => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(
      args,
      {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        env: { ...env, ...more },
        isTty: false,
      },
      '0.0.0-test',
    );
    let json: unknown;
    try {
      json = JSON.parse(stdout);
    } catch {
      json = undefined;
    }
    return { code, stdout, stderr, json };
  };
  const statePath = join(home, 'config', 'cloudcall', 'sandbox.json');
  let helper: Sandbox | undefined;
  return {
    home,
    statePath,
    run,
    /** Moves the clock of the sandbox in the state file (actions complete, waits end). */
    async advance(ms: number): Promise<void> {
      helper ??= await startSandbox({ statePath });
      await helper.advanceClock(ms);
    },
    async close(): Promise<void> {
      await helper?.close();
    },
    /** A command against the sandbox kept in this runner's config directory. */
    sandbox: (...args: string[]) => run(['--sandbox', ...args]),
  };
}
