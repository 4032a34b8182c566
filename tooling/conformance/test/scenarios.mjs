/**
 * Runs scenarios of the official conformance suite one after another in this one Node 22 process,
 * as the suite's own `server` command does when it runs a whole suite: each line read on stdin,
 * `{"url","scenario"}`, is answered by one line on stdout, `{"code","output"}`: what
 * `conformance server --url URL --scenario NAME` would have exited with and printed.
 *
 * The suite is a command-line program that exports nothing, so each scenario evaluates its entry
 * afresh (a new instance of that module, with that command line; the libraries it imports load
 * once, which is what a process per scenario paid for each time), and its `process.exit` marks
 * the scenario's end.
 * Usage: node scenarios.mjs <the suite's dist/index.js>
 */
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';

const entry = pathToFileURL(process.argv[2] ?? '').href;
const reply = process.stdout.write.bind(process.stdout);
let runs = 0;

/** One scenario, as the suite's command line runs it: its exit code and everything it printed. */
async function run(url, scenario) {
  // The suite prints through the console: what it prints while a scenario runs is that scenario's.
  const saved = { argv: process.argv, exit: process.exit, console: { ...console } };
  let output = '';
  const print = (...args) => {
    output += `${format(...args)}\n`;
  };
  let exited;
  const done = new Promise((resolve) => {
    exited = resolve;
  });
  process.argv = [process.execPath, 'conformance', 'server', '--url', url, '--scenario', scenario];
  process.exit = (code) => exited(code ?? 0);
  Object.assign(console, { log: print, error: print });
  try {
    await import(`${entry}?run=${++runs}`);
    return { code: await done, output };
  } finally {
    Object.assign(process, { argv: saved.argv, exit: saved.exit });
    Object.assign(console, saved.console);
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { url, scenario } = JSON.parse(line);
  let answer;
  try {
    answer = await run(url, scenario);
  } catch (error) {
    answer = { code: 1, output: `the scenario could not run: ${error?.stack ?? error}` };
  }
  reply(`${JSON.stringify(answer)}\n`);
}
