/**
 * Test helpers: the CLI in this process (`runCli` with the arguments, environment and output of
 * a process run with its output piped), or the built CLI as a process, the way a person at a
 * terminal would run it.
 *
 *   const cli = cliRunner();                      // in process, its own config directory
 *   const { code, stdout, stderr, json } = await cli.run(['--sandbox', 'vm-list']);
 *   const vm = await cli.ok('vm-get', '--ID', id); // --sandbox, expecting exit 0: the JSON
 *   const run = cli.start([...]); await run.until(/: new \(/); ...; await run.exit;
 *
 * `cliRunner(env, { process: true })` runs `node dist/main.js` instead, for what only a process
 * does: signals (Ctrl-C), the entry's own start-up, pipes closed early, terminals (`onTerminal`).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type Sandbox, startSandbox } from '@cloudcall/sandbox';
import { afterAll, beforeAll, expect, onTestFinished } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { runCli as runProgram } from '../program.js';

/** A small VM of the sandbox's catalog: `vm-create --name NAME ...VM_FLAGS`. */
export const VM_FLAGS = ['--size', 's-1vcpu-1gb', '--image-id', '161928327', '--region', 'nyc3'];

export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (the CLI prints JSON when piped). */
  json: unknown;
}

/**
 * Removes a runner's home once it is done with: after the test (or its beforeEach) that made it,
 * or after the file's tests for one made as the file is collected. Left behind, they were
 * thousands a run.
 */
function removeAfterwards(home: string): void {
  const remove = () => rmSync(home, { recursive: true, force: true });
  try {
    onTestFinished(remove);
  } catch {
    afterAll(remove);
  }
}

/**
 * A CLI bound to its own config directory, so its sandbox state is private to one test file;
 * in this process unless `process` is set.
 */
export function cliRunner(extraEnv: Record<string, string> = {}, options: { process?: boolean } = {}) {
  const home = mkdtempSync(join(tmpdir(), 'cloudcall-cli-'));
  removeAfterwards(home);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    ...extraEnv,
  };
  const statePath = join(home, 'config', 'cloudcall', 'sandbox.json');
  const starting = options.process ? startCli : startInProcess;
  const running = (args: string[], runEnv: Record<string, string>, input?: string) => {
    const run = starting(args, runEnv);
    run.child.stdin.end(input);
    return run.exit;
  };
  return {
    home,
    /** The environment each run gets (for a process started with `startCli`). */
    env,
    statePath,
    run: (args: string[], more: Record<string, string> = {}, input?: string) =>
      running(args, { ...env, ...more }, input),
    start: (args: string[], more: Record<string, string> = {}) => starting(args, { ...env, ...more }),
    /** A command against the sandbox kept in this runner's config directory. */
    sandbox: (...args: string[]) => running(['--sandbox', ...args], env),
    /** The sandbox's state file, as text; made first (by a read-only command) when none is yet. */
    async stateText(): Promise<string> {
      if (!existsSync(statePath)) {
        const made = await running(['--sandbox', 'region-list'], env);
        expect(made.code, made.stderr).toBe(0);
      }
      return readFileSync(statePath, 'utf8');
    },
    /** Like `sandbox`, expecting exit 0: the JSON printed. */
    async ok(...args: string[]): Promise<Json> {
      const result = await running(['--sandbox', ...args], env);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      return result.json as Json;
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: command output is checked field by field.
export type Json = any;

/**
 * Starts the CLI and hands back the process with its output so far, for tests that act while it
 * runs (move the sandbox clock, send Ctrl-C); `exit` resolves as `runCli` does.
 */
export function startCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  const exit = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, ...output, json: parsed(output.stdout) }));
  });
  /** Resolves once stdout or stderr matches, as output arrives (no fixed sleep). */
  const until = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (pattern.test(output.stdout) || pattern.test(output.stderr)) {
          child.stdout.off('data', check);
          child.stderr.off('data', check);
          resolve();
        }
      };
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      child.on('close', () => reject(new Error(`exited before printing ${pattern}: ${output.stderr}`)));
      check();
    });
  return { child, output, exit, until };
}

/**
 * `startCli` in this process: `runCli` as the entry (main.ts) calls it with stdout and stdin
 * piped; `child.stdin` takes the input, `child.kill()` is Ctrl-C (the entry aborts on SIGINT).
 */
export function startInProcess(args: string[], env: Record<string, string>) {
  const output = { stdout: '', stderr: '' };
  const watchers = new Set<() => void>();
  const wrote = () => {
    for (const watcher of [...watchers]) watcher();
  };
  const interrupt = new AbortController();
  let input = '';
  let inputEnded: () => void = () => undefined;
  const stdinDone = new Promise<void>((resolve) => {
    inputEnded = resolve;
  });
  // Read as a pipe: the text written, then its end.
  const stdin = Readable.from(
    (async function* () {
      await stdinDone;
      if (input) yield input;
    })(),
  );
  const exit = (async (): Promise<Run> => {
    let code: number;
    try {
      code = await runProgram(
        args,
        {
          stdout: (text) => {
            output.stdout += text;
            wrote();
          },
          stderr: (text) => {
            output.stderr += text;
            wrote();
          },
          env,
          isTty: false,
          stderrIsTty: false,
          stdin,
          signal: interrupt.signal,
        },
        packageJson.version,
      );
    } catch (error) {
      // What the process would do with an error nothing caught: say it, exit 1.
      output.stderr += `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`;
      code = 1;
    }
    const result = { code, ...output, json: parsed(output.stdout) };
    wrote();
    return result;
  })();
  let ended = false;
  void exit.then(() => {
    ended = true;
    wrote();
  });
  /** Resolves once stdout or stderr matches, as output arrives (no fixed sleep). */
  const until = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (pattern.test(output.stdout) || pattern.test(output.stderr)) {
          watchers.delete(check);
          resolve();
        } else if (ended) {
          watchers.delete(check);
          reject(new Error(`exited before printing ${pattern}: ${output.stderr}`));
        }
      };
      watchers.add(check);
      check();
    });
  const child = {
    stdin: {
      end: (text?: string) => {
        input += text ?? '';
        inputEnded();
      },
    },
    kill: (_signal?: NodeJS.Signals) => interrupt.abort(),
  };
  return { child, output, exit, until };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Runs the CLI to its end; `input` is written to its stdin (closed at once without it). */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<Run> {
  const run = startCli(args, env);
  run.child.stdin.end(input);
  return run.exit;
}

/** What a terminal showed (`\r\n` made `\n`) and the exit code. */
export interface TerminalRun {
  code: number | null;
  text: string;
}

/**
 * Runs the built CLI on a real pseudo-terminal (util-linux `script`), as a person at a terminal
 * would. `keys` are typed once `prompt` has appeared: typed earlier, a Ctrl+C would reach the
 * process before it asks anything, and text could reach the terminal before input is hidden.
 */
export function onTerminal(
  args: string[],
  options: { env: Record<string, string>; prompt?: string; keys?: string },
): Promise<TerminalRun> {
  const command = [process.execPath, MAIN, ...args].join(' ');
  const terminal = spawn('script', ['-qec', command, '/dev/null'], {
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let text = '';
  let typed = options.keys === undefined;
  terminal.stdout.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    if (!typed && text.includes(options.prompt ?? '')) {
      typed = true;
      terminal.stdin.write(options.keys ?? '');
    }
  });
  return new Promise((resolve, reject) => {
    terminal.on('error', (error) =>
      reject(new Error(`util-linux script is needed to make a terminal: ${error}`)),
    );
    terminal.on('close', (code) => resolve({ code, text: text.replace(/\r\n/g, '\n') }));
  });
}

/**
 * A second sandbox on `cli`'s state file, open for the tests of the file that asks for it (to move
 * its clock, or read its world): the function gives it once the file's first test has begun.
 */
export function sandboxBeside(cli: { statePath: string; stateText(): Promise<string> }): () => Sandbox {
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    await cli.stateText();
    sandbox = await startSandbox({ statePath: cli.statePath });
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  return () => {
    if (!sandbox) throw new Error('the sandbox beside the CLI opens once the tests begin');
    return sandbox;
  };
}
