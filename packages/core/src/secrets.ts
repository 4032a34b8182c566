/**
 * Secrets in results. The platform returns database passwords (in `password` fields and inside
 * connection URIs) with clusters and users, a Kafka user's private `access_key`, cluster
 * credentials, API keys and tokens; the apps
 * hide them unless the person running them asks to see them, so they do not end up in a
 * terminal's scrollback or a model's context. Which fields are secret comes from the API
 * description (`secret-fields.generated.ts`); credentials inside any URI are hidden wherever
 * they appear.
 */
import { SECRET_FIELDS, SECRET_UNLESS } from './secret-fields.generated.js';

export { SECRET_FIELDS, SECRET_UNLESS, URI_FIELDS } from './secret-fields.generated.js';

export const HIDDEN = '[hidden: run with --show-secrets to see it]';

const SECRET_KEYS: ReadonlySet<string> = new Set(SECRET_FIELDS);
const URI_CREDENTIALS = /^([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]+):([^@/?#\s]+)@/i;

/**
 * A copy of `value` with secret fields and the passwords inside URIs replaced by a notice. The
 * fields in `reveal` are left as they are: those a tool's answer exists to hand over (its
 * `reveals`, such as a new Spaces key's `secret_key`).
 */
export function maskSecrets(value: unknown, reveal?: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => maskSecrets(item, reveal));
  if (value === null || typeof value !== 'object') {
    // Only a string with both `://` and `@` can hold a URI's password: most have neither.
    return typeof value === 'string' && value.includes('@') && value.includes('://')
      ? value.replace(URI_CREDENTIALS, `$1:${HIDDEN}@`)
      : value;
  }
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    out[key] =
      SECRET_KEYS.has(key) &&
      typeof item === 'string' &&
      item !== '' &&
      !named(key, value) &&
      !reveal?.includes(key)
        ? HIDDEN
        : maskSecrets(item, reveal);
  }
  return out;
}

/** Whether a secret field's object shows it is a name there (`key` beside a `value`). */
function named(key: string, object: object): boolean {
  const unless = Object.hasOwn(SECRET_UNLESS, key) ? SECRET_UNLESS[key] : undefined;
  return unless?.some((sibling) => Object.hasOwn(object, sibling)) ?? false;
}
