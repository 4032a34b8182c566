/**
 * `kubernetes cluster kubeconfig save` (and `cluster create`'s kubeconfig): a cluster's kubeconfig
 * merged into the user's kubeconfig file as doctl and kubectl do it. The cluster, context and user
 * of that name are replaced, every other entry is kept, and the current context becomes the
 * cluster's when asked (doctl's --set-current-context, on by default). As doctl writes it, the
 * user holds no token that expires: kubectl runs `cloudcall kubernetes cluster kubeconfig
 * exec-credential` for a fresh one each time it needs one (a token is written only when an expiry
 * is asked for). The file is written whole to a temporary file beside it (mode 0600) and renamed
 * over it, so a reader never sees half a file and a failure leaves the old one. Loaded only by a
 * command that saves.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { parse, stringify } from 'yaml';
import { EXEC_API_VERSION } from './exec-credential.js';

type Named = { name?: unknown };
type Config = Record<string, unknown>;

/** The command kubectl runs for a cluster's token: cloudcall's exec-credential, as doctl's. */
export function execCredentialUser(clusterId: string, connection: readonly string[]): Config {
  return {
    exec: {
      apiVersion: EXEC_API_VERSION,
      command: 'cloudcall',
      args: [
        'kubernetes',
        'cluster',
        'kubeconfig',
        'exec-credential',
        '--version=v1beta1',
        ...connection,
        clusterId,
      ],
      // It never prompts: the token comes from the API with cloudcall's own credentials.
      interactiveMode: 'Never',
      provideClusterInfo: false,
    },
  };
}

export interface SaveOptions {
  /** The user's token replaced by exec-credential for this cluster, with these connection flags. */
  exec?: { clusterId: string; connection: readonly string[] };
  /** Make the cluster's context the current one (doctl's default). */
  setCurrentContext: boolean;
}

/** The file kubectl reads first: the first of $KUBECONFIG's paths, else ~/.kube/config. */
export function kubeconfigPath(env: Record<string, string | undefined>): string {
  const first = env.KUBECONFIG?.split(delimiter).find((path) => path.trim() !== '');
  return first ?? join(env.HOME || homedir(), '.kube', 'config');
}

/** `existing` with `added`'s entries of each list in place of those of the same name. */
function merged(existing: Config, added: Config, setCurrentContext: boolean): Config {
  const out: Config = { apiVersion: 'v1', kind: 'Config', preferences: {}, ...existing };
  for (const list of ['clusters', 'contexts', 'users']) {
    const mine = Array.isArray(added[list]) ? (added[list] as Named[]) : [];
    const names = new Set(mine.map((entry) => entry.name));
    const kept = Array.isArray(existing[list])
      ? (existing[list] as Named[]).filter((entry) => !names.has(entry.name))
      : [];
    out[list] = [...kept, ...mine];
  }
  if (setCurrentContext) out['current-context'] = added['current-context'];
  return out;
}

/** Merges `config` into the kubeconfig file; what to tell the user (no secret in it). */
export async function saveKubeconfig(
  config: unknown,
  env: Record<string, string | undefined>,
  options: SaveOptions,
): Promise<string> {
  if (typeof config !== 'object' || config === null || (config as Config).kind !== 'Config') {
    throw new Error('the platform answered no kubeconfig');
  }
  const added = { ...(config as Config) };
  const { exec } = options;
  if (exec && Array.isArray(added.users)) {
    // A token user becomes exec-credential's; any other (an SSO exec) is kept as it is.
    added.users = (added.users as { name?: unknown; user?: { token?: unknown } }[]).map((entry) =>
      typeof entry.user?.token === 'string'
        ? { name: entry.name, user: execCredentialUser(exec.clusterId, exec.connection) }
        : entry,
    );
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
  const next = merged(existing as Config, added, options.setCurrentContext);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, stringify(next), { mode: 0o600, flag: 'wx' });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  const context = String(added['current-context']);
  const current = next['current-context'];
  const now =
    current === context
      ? `the current context is now ${context}`
      : current === undefined || current === ''
        ? 'no context is current'
        : `the current context is still ${String(current)}`;
  const what = exec
    ? `${context} to ${path} (kubectl gets each token from cloudcall's exec-credential)`
    : `the credentials of ${context} to ${path}`;
  return `Saved ${what}; ${now}.`;
}
