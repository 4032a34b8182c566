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
