#!/usr/bin/env node
/**
 * cloudcall: every cloudcall tool as a command. See `cloudcall --help`.
 */
import packageJson from '../package.json' with { type: 'json' };
import { asksVersion } from './version-flag.js';

const version = packageJson.version;

const argv = process.argv.slice(2);
if (asksVersion(argv)) {
  // Answered before the commands (every tool's definition) are loaded: scripts call this often.
  process.stdout.write(`${version}\n`);
} else {
  // undici parses HTTP with llhttp, compiled to WebAssembly: V8 compiles it at once with its
  // baseline compiler (Liftoff), then optimises every function again in the background, and the
  // process cannot exit until that is done: about 85 ms after the command's work, on every run.
  // A command makes a handful of requests, for which the baseline code is plenty.
  // (node:v8 is imported here, so that --version above loads no builtin at all.)
  (await import('node:v8')).setFlagsFromString('--liftoff-only');
  // `cloudcall vm-list -o tsv | head -1`: a reader that stops early is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
  const controller = new AbortController();
  process.on('SIGINT', () => controller.abort());
  const { runCli } = await import('./program.js');
  process.exitCode = await runCli(
    argv,
    {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      env: process.env,
      isTty: Boolean(process.stdout.isTTY),
      stderrIsTty: Boolean(process.stderr.isTTY),
      stdin: process.stdin,
      // The guard asks (guard.ts is loaded by then: it runs the destructive tool).
      ask: process.stdin.isTTY
        ? async (question, signal) => (await import('./guard.js')).askOnTerminal(question, signal)
        : undefined,
      signal: controller.signal,
    },
    version,
  );
}
