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
