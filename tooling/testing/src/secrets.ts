/**
 * The secrets a result holds, by the fields the API description marks (core's SECRET_FIELDS and
 * URI_FIELDS, passed in): each non-empty value of a secret field, and the password inside each
 * URI field. For tests that take them from a `--show-secrets` answer and look for them elsewhere.
 */
export interface FoundSecret {
  /** The field it was in, such as `access_key` or `uri`. */
  field: string;
  value: string;
}

export function secretsIn(
  value: unknown,
  fields: readonly string[],
  uriFields: readonly string[],
  found: FoundSecret[] = [],
): FoundSecret[] {
  if (Array.isArray(value)) {
    for (const item of value) secretsIn(item, fields, uriFields, found);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === 'string' && item !== '' && fields.includes(key))
        found.push({ field: key, value: item });
      else if (typeof item === 'string' && uriFields.includes(key)) {
        const password = /^[a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]+:([^@/?#\s]+)@/i.exec(item)?.[1];
        if (password) found.push({ field: key, value: password });
      } else secretsIn(item, fields, uriFields, found);
    }
  }
  return found;
}

/**
 * The set-up both apps' secret-field tests share: a Kafka cluster (whose users get a private access
 * key), its user `producer`, and a certificate whose private key carries a canary each app names.
 * The app makes them through its own adapter; the test then reads the truth past the app
 * (`truthOf`) and looks for every secret in what the app showed (`leaked`).
 */
export const SECRET_SCENARIO = {
  cluster: { engine: 'kafka', version: '3.8', region: 'nyc3', size: 'db-s-1vcpu-1gb', num_nodes: 3 },
  user: 'producer',
  certificate: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----',
  privateKey: (canary: string) =>
    `-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC-${canary}\n-----END PRIVATE KEY-----\n`,
} as const;

/** A client of the platform that reads past the app under test (the sandbox's own). */
interface Reader {
  request(options: { method: 'GET'; path: string }): Promise<unknown>;
}

/** The secrets the platform holds for the scenario's cluster `id` and its user. */
export async function truthOf(
  reader: Reader,
  id: string,
  fields: readonly string[],
  uriFields: readonly string[],
): Promise<FoundSecret[]> {
  const truth = await Promise.all([
    reader.request({ method: 'GET', path: `/v2/databases/${id}` }),
    reader.request({ method: 'GET', path: `/v2/databases/${id}/users/${SECRET_SCENARIO.user}` }),
  ]);
  return secretsIn(truth, fields, uriFields);
}

/** The fields of the secrets `shown` gives away (none, when every one is hidden). */
export function leaked(shown: string, secrets: readonly FoundSecret[]): string[] {
  return secrets.filter((secret) => shown.includes(secret.value)).map((secret) => secret.field);
}
