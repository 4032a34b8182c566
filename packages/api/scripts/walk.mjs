// Walks an operation's request schema of the OpenAPI subset: every property it can hold, by where
// it is (`droplet_template.vpc_uuid`, `resources[]`, `forwarding_rules[].certificate_id`), with
// the schema found there. Used by generate.mjs to find the places a request names a resource.

/** A schema with its `$ref`s followed (the subset's refs are all `#/components/schemas/NAME`). */
export function resolve(subset, schema, seen = new Set()) {
  let current = schema;
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    const name = current.$ref.slice('#/components/schemas/'.length);
    if (seen.has(name)) return undefined;
    seen.add(name);
    current = subset.components.schemas[name];
  }
  return current;
}

/**
 * Every property of a request body: `[{ at, field, parent, schema }]`, `at` the path to it (`[]`
 * steps into a list's items, `{}` into a map's values), `parent` the path of the object holding
 * it. A schema met again on the same path (a recursive one) is not walked twice. Read-only fields
 * are walked too: the description marks some a client does send (an app spec's VPC), and a client
 * that sends back what it read (a firewall with its pending changes) names what they name.
 */
export function properties(subset, request, maxDepth = 12) {
  const found = new Map();
  const visit = (schema, at, refs, depth) => {
    if (depth > maxDepth || schema === null || typeof schema !== 'object') return;
    if (typeof schema.$ref === 'string') {
      if (refs.includes(schema.$ref)) return;
      visit(resolve(subset, schema), at, [...refs, schema.$ref], depth + 1);
      return;
    }
    for (const key of ['allOf', 'oneOf', 'anyOf'])
      for (const sub of schema[key] ?? []) visit(sub, at, refs, depth + 1);
    if (schema.items) visit(schema.items, `${at}[]`, refs, depth + 1);
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
      visit(schema.additionalProperties, `${at}{}`, refs, depth + 1);
    for (const [field, sub] of Object.entries(schema.properties ?? {})) {
      const path = at ? `${at}.${field}` : field;
      if (!found.has(path))
        found.set(path, { at: path, field, parent: at, schema: resolve(subset, sub) ?? {} });
      visit(sub, path, refs, depth + 1);
    }
  };
  visit(request, '', [], 0);
  return [...found.values()];
}

/** The JSON types a schema allows (`string`, `integer`, `array`...), through allOf/oneOf/anyOf. */
export function typesOf(subset, schema, depth = 0) {
  const resolved = resolve(subset, schema);
  if (!resolved || typeof resolved !== 'object' || depth > 8) return new Set();
  const types = new Set(resolved.type ? [resolved.type] : []);
  for (const key of ['allOf', 'oneOf', 'anyOf'])
    for (const sub of resolved[key] ?? [])
      for (const type of typesOf(subset, sub, depth + 1)) types.add(type);
  if (!types.size && resolved.properties) types.add('object');
  return types;
}
