/**
 * Functions (serverless) state of the sandbox world: namespaces, their scheduled triggers and their
 * access keys. Functions themselves are deployed through a namespace's own API host (OpenWhisk), not
 * through the API v2, so the sandbox holds none: a trigger names its function by name only.
 *
 * A trigger's runs are derived from its cron expression and the times it was enabled when read
 * (`routes/functions-cron.ts`), never run by a timer.
 */

export interface StoredNamespace {
  /** `fn-` and the UUID: what paths name the namespace by. */
  namespace: string;
  uuid: string;
  label: string;
  region: string;
  api_host: string;
  /** Given with the namespace's UUID to authenticate to the namespace's API host (doctl does). */
  key: string;
  created_ms: number;
  updated_ms: number;
}

export interface StoredTrigger {
  /** The namespace's `fn-` id. */
  namespace: string;
  name: string;
  function: string;
  type: 'SCHEDULED';
  is_enabled: boolean;
  cron: string;
  body: Record<string, unknown> | null;
  created_ms: number;
  updated_ms: number;
  /** Since when the trigger has run on its current schedule (enabled, same cron); null when disabled. */
  running_since_ms: number | null;
  /** The last run before `running_since_ms` (an earlier schedule's), if any. */
  last_run_ms: number | null;
}

export interface StoredAccessKey {
  /** `dof_v1_` and 32 hexadecimal digits. */
  id: string;
  namespace: string;
  name: string;
  /** Only its hash would be kept by a real service; the sandbox never shows it again either. */
  created_ms: number;
  updated_ms: number;
  expires_ms: number | null;
}

export interface FunctionsState {
  functionNamespaces: StoredNamespace[];
  functionTriggers: StoredTrigger[];
  functionAccessKeys: StoredAccessKey[];
}

export function seedFunctionsState(): FunctionsState {
  return { functionNamespaces: [], functionTriggers: [], functionAccessKeys: [] };
}
