#!/usr/bin/env node
/**
 * cloudcall: every cloudcall tool as a command. See `cloudcall --help`.
 */
import { createRequire } from 'node:module';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
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
  const [{ runCli }, { askOnTerminal }] = await Promise.all([import('./program.js'), import('./guard.js')]);
  process.exitCode = await runCli(
    argv,
    {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
      env: process.env,
      isTty: Boolean(process.stdout.isTTY),
      stderrIsTty: Boolean(process.stderr.isTTY),
      stdin: process.stdin,
      ask: process.stdin.isTTY ? askOnTerminal : undefined,
      signal: controller.signal,
    },
    version,
  );
}
