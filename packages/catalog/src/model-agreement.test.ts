/**
 * The named tools and the operation model agree: every changing tool of the catalog with a
 * request mapping sends, with plausible arguments, a request whose method and path the model
 * finds, and the model says it destroys exactly when the tool's annotations do. The guard reads
 * the model for api-call and the annotations for a named tool: a disagreement would protect the
 * same request twice differently.
 */
import { destroys, findOperation, requestIssues } from '@cloudcall/api';
import { type AnyTool, parseArgs } from '@cloudcall/core';
import { buildRequest, inputJsonSchema } from '@cloudcall/core/internal';
import { TOOL_EXAMPLES } from '@cloudcall/testing/arbitrary';
import { describe, expect, it } from 'vitest';
import { families, toolsOf } from './index.js';

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
}

/** Text values tried in turn for a string with a pattern: the first it takes is used. */
const TEXTS = [
  'web-1',
  '5a4981aa-9653-4bd1-bef5-d6bff52042e4',
  'nyc3',
  's-1vcpu-1gb',
  'example.com',
  '192.0.2.1',
  '10.10.0.0/16',
  '2001:db8::1',
  'admin',
  '7',
  'db',
];

/** A plausible value of a tool argument's JSON Schema (the schema MCP hosts see). */
function plausible(schema: Schema): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf) return plausible(schema.anyOf[0] as Schema);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return Math.min(Math.max(7, schema.minimum ?? (schema.exclusiveMinimum ?? 0) + 1), schema.maximum ?? 7);
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => plausible(schema.items ?? {}));
    case 'object':
      return Object.fromEntries(
        (schema.required ?? []).map((name) => [name, plausible(schema.properties?.[name] ?? {})]),
      );
  }
  const fits = (text: string) =>
    text.length >= (schema.minLength ?? 0) &&
    text.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY) &&
    (!schema.pattern || new RegExp(schema.pattern).test(text));
  if (schema.format === 'uuid') return TEXTS[1];
  if (schema.format === 'ipv4') return '192.0.2.1';
  if (schema.format === 'ipv6') return '2001:db8::1';
  return TEXTS.find(fits) ?? 'web-1';
}

const UUID_2 = '7f3c1b0e-2d4a-4c5b-9e6f-0a1b2c3d4e5f';

/** Arguments a tool's own refinements need beyond its schema (one of several, a format, a pair). */
const ARGUMENTS: Record<string, Record<string, unknown>> = {
  'project-update': { Name: 'web' },
  'project-update-default': { Name: 'web' },
  'project-assign-resources': {
    Resources: ['do:droplet:7', 'do:volume:5a4981aa-9653-4bd1-bef5-d6bff52042e4'],
  },
  'db-cluster-resize': { size: 'db-s-1vcpu-1gb', num_nodes: 1 },
  'db-cluster-set-maintenance-window': { day: 'monday', hour: '14:00' },
  'domain-record-create': { Type: 'A', Data: '192.0.2.1' },
  'domain-record-edit': { Type: 'A', Data: '192.0.2.1' },
  'load-balancer-update': { Region: 'nyc3' },
  'vpc-peering-create': { Vpc2: UUID_2 },
  'volume-create': { Region: 'nyc3' },
  'kubernetes-cluster-update': { Name: 'web' },
  'kubernetes-cluster-upgrade': { Version: '1.33.1-do.0' },
  'kubernetes-cluster-node-pool-update': { Name: 'web', Count: 3 },
  'registry-repository-delete-manifest': { Digest: `sha256:${'0'.repeat(64)}` },
};

/**
 * The tool's example arguments (the shared ones of @cloudcall/testing), or each required argument
 * (and each path argument) made up, with what its refinements need.
 */
function argumentsOf(tool: AnyTool): Record<string, unknown> {
  const schema = inputJsonSchema(tool) as Schema;
  const inPath = [...(tool.request?.path.matchAll(/\{(\w+)\}/g) ?? [])].map((match) => match[1] as string);
  const names = new Set([...(schema.required ?? []), ...inPath]);
  const madeUp = Object.fromEntries(
    [...names].map((name) => [name, plausible(schema.properties?.[name] ?? {})]),
  );
  return { ...(TOOL_EXAMPLES[tool.name] ?? madeUp), ...ARGUMENTS[tool.name] };
}

/**
 * Named tools whose request (with the arguments above) the description's schema refuses: api-call
 * would refuse the same request. Each with what is refused and why the tool sends it anyway.
 */
const SCHEMA_CONFLICTS: Record<string, { issues: RegExp; why: string }> = {
  'monitoring-uptime-create': {
    issues: /^Body: must have required property 'method'$/,
    why: "the description requires a check's `method` and describes no such field; the platform does not ask for it (digitalocean/openapi#775)",
  },
  'load-balancer-create': {
    issues:
      /^Body: must have required property 'droplet_ids'; Body: must have required property 'tag'; Body: must match exactly one schema in oneOf$/,
    why: 'the description takes a balancer with its VMs or its tag (a oneOf); the tool makes one with neither, VMs added later (load-balancer-add-vms)',
  },
  'load-balancer-update': {
    issues:
      /^Body: must have required property 'forwarding_rules'; Body: must have required property 'droplet_ids'; Body: must have required property 'tag'; Body: must match exactly one schema in oneOf$/,
    why: "the tool keeps a balancer's rules when ForwardingRules is not given (its details say so), and drops its VMs; the description's PUT requires rules, and VMs or a tag",
  },
  'enable-private-net-vm': {
    issues: /^Body\.type: must be equal to one of the allowed values: (?!.*enable_private_networking)/,
    why: "the spec's tool sends the action enable_private_networking, which the description's VM actions no longer list",
  },
  'enable-private-net-vms-tag': {
    issues: /^Body\.type: must be equal to one of the allowed values: (?!.*enable_private_networking)/,
    why: "the spec's tool sends the action enable_private_networking, which the description's VM actions no longer list",
  },
};

const changing = toolsOf(families).filter((tool) => tool.request && !tool.annotations.readOnlyHint);

describe('the named tools and the operation model', () => {
  it('has changing tools with request mappings to check, and conflicts of those only', () => {
    expect(changing.length).toBeGreaterThan(100);
    const names = new Set(changing.map((tool) => tool.name));
    expect(Object.keys(SCHEMA_CONFLICTS).filter((name) => !names.has(name))).toEqual([]);
  });

  it.each(changing.map((tool) => [tool.name, tool] as const))('%s', (name, tool) => {
    const mapping = tool.request;
    if (!mapping) throw new Error(`${name} has no request mapping`);
    const request = buildRequest(mapping, parseArgs(tool, argumentsOf(tool)));
    const match = findOperation(request.method, request.path);
    expect(match, `${request.method} ${request.path} is no operation of the model`).toBeDefined();
    if (!match) return;
    // The path matches the operation whose template is the tool's own (not a literal sibling).
    expect(match.operation.path.replace(/\{\w+\}/g, '{}')).toBe(mapping.path.replace(/\{\w+\}/g, '{}'));
    expect(destroys(match.operation, request.body), `${name} (${match.operation.id}) destroys`).toBe(
      tool.annotations.destructiveHint,
    );
    // What the tool sends, the operation's validation takes (api-call would send it too).
    // A mapping with no body fields gives an empty body; a request of an operation without one sends none.
    const issues = requestIssues(match.operation, {
      params: match.params,
      query: request.query,
      body: match.operation.body ? request.body : undefined,
    });
    if (!match.operation.body)
      expect(request.body ?? {}, `${name} sends a body to ${match.operation.id}`).toEqual({});
    const refused = issues.map((issue) => `${issue.argument}: ${issue.message}`).join('; ');
    const conflict = SCHEMA_CONFLICTS[name];
    if (conflict) expect(refused, conflict.why).toMatch(conflict.issues);
    else expect(refused).toBe('');
  });
});
