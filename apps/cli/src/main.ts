#!/usr/bin/env node
/**
 * cloudcall: every cloudcall tool as a command. See `cloudcall --help`.
 */
import { createRequire } from 'node:module';
import { runCli } from './program.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

const controller = new AbortController();
process.on('SIGINT', () => controller.abort());

const code = await runCli(
  process.argv.slice(2),
  {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    isTty: Boolean(process.stdout.isTTY),
    stderrIsTty: Boolean(process.stderr.isTTY),
    signal: controller.signal,
  },
  version,
);
process.exitCode = code;
