#!/usr/bin/env node
/**
 * cloudcall-mcp: the process around start.ts (flags and environment -> API client -> tools ->
 * stdio or Streamable HTTP), with this process's arguments, environment, streams and signals.
 * stdout carries JSON-RPC on stdio, so everything this process says goes to stderr.
 */
import * as nodeModule from 'node:module';
import { StartExit, startServer } from './start.js';

// Node 22.1 and later keep V8's compiled code of each module (main.js and the chunks it loads) on
// disk, so the next start compiles only what changed: start-up and the first call load less.
// Node 20 has no such call and starts as before.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

startServer({
  argv: process.argv.slice(2),
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  exit: (code) => process.exit(code),
  onSignal: (shutdown) => {
    process.on('SIGINT', () => void shutdown());
    process.on('SIGTERM', () => void shutdown());
  },
  entry: import.meta.url,
  ownsProcess: true,
}).catch((error: unknown) => {
  if (error instanceof StartExit) process.exit(error.code);
  process.stderr.write(`[cloudcall-mcp] fatal: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
