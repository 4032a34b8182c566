#!/usr/bin/env node
/**
 * cloudcall: every cloudcall tool as a command. See `cloudcall --help`.
 */
import nodeModule from 'node:module';
import packageJson from '../package.json' with { type: 'json' };
import { codeCacheDirectory, keepCompiledCode } from './code-cache.js';
import { isTerminal, standardOutput } from './standard-output.js';
import { asksVersion } from './version-flag.js';

const version = packageJson.version;

const argv = process.argv.slice(2);
if (asksVersion(argv)) {
  // Answered before the commands (every tool's definition) are loaded: scripts call this often.
  process.stdout.write(`${version}\n`);
} else {
  // Compiling the code a command runs is about a third of its processor time. Node 22.1 and
  // later keep the code V8 compiles in a cache on disk (in os.tmpdir(), or NODE_COMPILE_CACHE), so
  // the next command compiles none of it again; on Node 20, which has no such cache, the CLI
  // keeps V8's code cache for its own files (code-cache.ts). NODE_DISABLE_COMPILE_CACHE turns
  // either off. The build makes this file CommonJS (no top-level await below); an ES module
  // build (`cloudcall-bundle --one-file`, for comparison) has no __dirname and keeps no cache.
  const { enableCompileCache } = nodeModule as { enableCompileCache?: () => unknown };
  if (enableCompileCache) enableCompileCache();
  else if (!process.env.NODE_DISABLE_COMPILE_CACHE && typeof __dirname === 'string') {
    keepCompiledCode(__dirname, codeCacheDirectory(process.env), version);
  }
  const isTty = isTerminal(1);
  // `cloudcall vm-list -o tsv | head -1`: a reader that stops early is not an error.
  const stdout = standardOutput(() => process.exit(process.exitCode ?? 0), { terminal: isTty });
  const controller = new AbortController();
  process.on('SIGINT', () => controller.abort());
  void import('./program.js').then(async ({ runCli }) => {
    process.exitCode = await runCli(
      argv,
      {
        stdout,
        stderr: (text) => process.stderr.write(text),
        env: process.env,
        // Whether each is a terminal, asked of its file descriptor: Node makes process.stderr
        // and process.stdin (a socket for a pipe, with the modules it needs) when first read,
        // which a command that never writes to stderr or reads stdin need not pay for.
        isTty,
        stderrIsTty: isTerminal(2),
        get stdin() {
          return process.stdin;
        },
        // The guard asks (guard.ts is loaded by then: it runs the destructive tool).
        ask: isTerminal(0)
          ? async (question, signal) => (await import('./guard.js')).askOnTerminal(question, signal)
          : undefined,
        signal: controller.signal,
      },
      version,
    );
  });
}
