/**
 * `kubernetes cluster kubeconfig save`: a cluster's kubeconfig merged into the user's kubeconfig
 * file as doctl and kubectl do it. The cluster, context and user of that name are replaced, every
 * other entry is kept, and the current context becomes the cluster's. The file is written whole to
 * a temporary file beside it (mode 0600: it holds tokens) and renamed over it, so a reader never
 * sees half a file and a failure leaves the old one. Loaded only by a command that saves.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { parse, stringify } from 'yaml';

type Named = { name?: unknown };
type Config = Record<string, unknown>;

/** The file kubectl reads first: the first of $KUBECONFIG's paths, else ~/.kube/config. */
export function kubeconfigPath(env: Record<string, string | undefined>): string {
  const first = env.KUBECONFIG?.split(delimiter).find((path) => path.trim() !== '');
  return first ?? join(env.HOME || homedir(), '.kube', 'config');
}

/** `existing` with `added`'s entries of each list in place of those of the same name. */
function merged(existing: Config, added: Config): Config {
  const out: Config = { apiVersion: 'v1', kind: 'Config', preferences: {}, ...existing };
  for (const list of ['clusters', 'contexts', 'users']) {
    const mine = Array.isArray(added[list]) ? (added[list] as Named[]) : [];
    const names = new Set(mine.map((entry) => entry.name));
    const kept = Array.isArray(existing[list])
      ? (existing[list] as Named[]).filter((entry) => !names.has(entry.name))
      : [];
    out[list] = [...kept, ...mine];
  }
  out['current-context'] = added['current-context'];
  return out;
}

/** Merges `config` into the kubeconfig file; what to tell the user (no secret in it). */
export async function saveKubeconfig(
  config: unknown,
  env: Record<string, string | undefined>,
): Promise<string> {
  if (typeof config !== 'object' || config === null || (config as Config).kind !== 'Config') {
    throw new Error('the platform answered no kubeconfig');
  }
  const path = kubeconfigPath(env);
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const existing = text === undefined || text.trim() === '' ? {} : parse(text);
  if (typeof existing !== 'object' || existing === null || Array.isArray(existing)) {
    throw new Error(`${path} is not a kubeconfig (YAML mapping); it was left as it is`);
  }
  const next = merged(existing as Config, config as Config);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, stringify(next), { mode: 0o600, flag: 'wx' });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  const context = String(next['current-context']);
  return `Saved the credentials of ${context} to ${path}; the current context is now ${context}.`;
}
