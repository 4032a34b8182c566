/**
 * Docker's config file, as `registry login` writes it: found where docker reads it, the registry
 * host's entry merged in, written atomically (a file beside it, renamed over it) with the old
 * file's mode (0600 for a new one: it holds a token). Loaded by that command only.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { InputError } from '@cloudcall/core';

/** The docker config file docker itself reads: `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`. */
export function dockerConfigPath(env: Record<string, string | undefined>): string {
  const dir = env.DOCKER_CONFIG || join(env.HOME || homedir(), '.docker');
  return join(dir, 'config.json');
}

/**
 * Merges the answer of registry-docker-config (`{ auths: { host: { auth } } }`) into the docker
 * config at `path`, atomically; returns the hosts written. A config that is not a JSON object is
 * refused, left as it is.
 */
export async function mergeDockerConfig(path: string, answer: unknown): Promise<string[]> {
  const auths = (answer as { auths?: unknown } | null)?.auths;
  if (typeof auths !== 'object' || auths === null || !Object.keys(auths).length) {
    throw new Error('the platform answered no docker credentials');
  }
  let config: Record<string, unknown> = {};
  let mode = 0o600;
  try {
    const text = await readFile(path, 'utf8');
    mode = (await stat(path)).mode & 0o777;
    const parsed: unknown = text.trim() ? JSON.parse(text) : {};
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new SyntaxError('not an object');
    config = parsed as Record<string, unknown>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new InputError(
        `${path} is not a docker config (a JSON object): ${(error as Error).message}; fix or move it, then log in again`,
        'DOCKER_CONFIG',
      );
    }
  }
  const existing = config.auths;
  config.auths = {
    ...(typeof existing === 'object' && existing !== null && !Array.isArray(existing) ? existing : {}),
    ...auths,
  };
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(config, null, '\t')}\n`, { mode, flag: 'wx' });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return Object.keys(auths);
}
