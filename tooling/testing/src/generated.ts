/**
 * Staleness of a committed generated file, as CI sees it: runs its generator with --check (which
 * writes nothing) and gives back what the generator said when the file is stale ('' when fresh),
 * so a failing test prints the file and the command that refreshes it.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export function staleness(script: URL): string {
  const run = spawnSync(process.execPath, [fileURLToPath(script), '--check'], { encoding: 'utf8' });
  if (run.error) throw run.error;
  return run.status === 0 ? '' : `${run.stderr}(exit ${run.status})`;
}
