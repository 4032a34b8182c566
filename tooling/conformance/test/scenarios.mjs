/**
 * Runs scenarios of the official conformance suite one after another in this one Node 22 process,
 * as the suite's own `server` command does when it runs a whole suite: each line read on stdin,
 * `{"suite","args"}`, is answered by one line on stdout, `{"code","output"}`: what
 * `conformance ARGS...` would have exited with and printed, where `suite` is the path of that
 * version's `dist/index.js` (the stable line for revision 2025-11-25, the 0.2.0 line for
 * 2026-07-28: both in this process).
 *
 * The suite is a command-line program that exports nothing, so each scenario evaluates its entry
 * afresh (a new instance of that module, with that command line; the libraries it imports load
 * once, which is what a process per scenario paid for each time), and its `process.exit` marks
 * the scenario's end.
 * Usage: node scenarios.mjs
 */
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';

const reply = process.stdout.write.bind(process.stdout);
let runs = 0;

/** One command line of the suite: its exit code and everything it printed. */
async function run(suite, args) {
  // The suite prints through the console: what it prints while a scenario runs is that scenario's.
  const saved = { argv: process.argv, exit: process.exit, console: { ...console } };
  let output = '';
  const print = (...values) => {
    output += `${format(...values)}\n`;
  };
  let exited;
  const done = new Promise((resolve) => {
    exited = resolve;
  });
  process.argv = [process.execPath, 'conformance', ...args];
  process.exit = (code) => exited(code ?? 0);
  Object.assign(console, { log: print, error: print });
  try {
    await import(`${pathToFileURL(suite).href}?run=${++runs}`);
    return { code: await done, output };
  } finally {
    Object.assign(process, { argv: saved.argv, exit: saved.exit });
    Object.assign(console, saved.console);
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { suite, args } = JSON.parse(line);
  let answer;
  try {
    answer = await run(suite, args);
  } catch (error) {
    answer = { code: 1, output: `the scenario could not run: ${error?.stack ?? error}` };
  }
  reply(`${JSON.stringify(answer)}\n`);
}
