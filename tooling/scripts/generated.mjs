// Writes a generated file, or with --check compares the committed copy and fails when it is stale,
// naming the command that refreshes it. Nothing regenerates a committed file on its own (not the
// build, not the tests): `pnpm generate` does, on request, and the tests run the --check.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** `target`'s path from the repository root, as the messages name it. */
export function shown(target) {
  return relative(root, fileURLToPath(target));
}

/**
 * With --check on the command line: exit code 1 and a line on stderr when `target` is not `source`.
 * Otherwise: write `source` to `target` when it differs (an unchanged file keeps its time stamp,
 * so the build's inputs stay as they were).
 */
export function emit(target, source, refresh = 'pnpm generate') {
  let current;
  try {
    current = readFileSync(target, 'utf8');
  } catch {}
  if (process.argv.includes('--check')) {
    if (current !== source) {
      process.stderr.write(`${shown(target)} is stale: run ${refresh} (and commit it)\n`);
      process.exitCode = 1;
    }
  } else if (current !== source) {
    writeFileSync(target, source);
    process.stderr.write(`${shown(target)} regenerated\n`);
  }
}
