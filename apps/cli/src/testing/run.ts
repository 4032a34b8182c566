/**
 * Test helper: runs the built CLI as a process, the way a person at a terminal would.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (the CLI prints JSON when piped). */
  json: unknown;
}

/** A CLI bound to its own config directory, so its sandbox state is private to one test file. */
export function cliRunner(extraEnv: Record<string, string> = {}) {
  const home = mkdtempSync(join(tmpdir(), 'cloudcall-cli-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    ...extraEnv,
  };
  return {
    home,
    statePath: join(home, 'config', 'cloudcall', 'sandbox.json'),
    run: (args: string[], more: Record<string, string> = {}) => runCli(args, { ...env, ...more }),
    /** A command against the sandbox kept in this runner's config directory. */
    sandbox: (...args: string[]) => runCli(['--sandbox', ...args], env),
    /** Like `sandbox`, expecting exit 0: the JSON printed. */
    async ok(...args: string[]): Promise<Json> {
      const result = await runCli(['--sandbox', ...args], env);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      return result.json as Json;
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: command output is checked field by field.
export type Json = any;

export function runCli(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code: code ?? -1, stdout, stderr, json });
    });
  });
}
