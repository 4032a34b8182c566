/**
 * The tool definitions against the spec's machine-readable tables (test/spec-tools.json, made
 * from the spec by tooling/scripts/spec-data.mjs):
 * names, families, argument names, required-ness, types and defaults, and annotations by rule.
 */
import { readFileSync } from 'node:fs';
import { inputJsonSchema } from '@cloudcall/core/internal';
import { describe, expect, it } from 'vitest';
import { families, selectFamilies, toolsOf } from './index.js';

interface SpecArg {
  name: string;
  type: string;
  required: boolean;
  default?: unknown;
}
interface SpecTool {
  name: string;
  family: string;
  args: SpecArg[];
}

const spec = JSON.parse(readFileSync(new URL('../test/spec-tools.json', import.meta.url), 'utf8')) as {
  tools: SpecTool[];
};
const specByName = new Map(spec.tools.map((tool) => [tool.name, tool]));
const tools = toolsOf(families);

type Prop = { type?: string | string[]; anyOf?: Prop[]; default?: unknown };
const typesOf = (p: Prop): string[] =>
  p.type ? ([] as string[]).concat(p.type) : (p.anyOf ?? []).flatMap(typesOf);

const accepted: Record<string, string[]> = {
  string: ['string'],
  number: ['number', 'integer'],
  integer: ['integer', 'number'],
  boolean: ['boolean'],
  object: ['object'],
  'integer-as-string': ['string'],
  'bool-as-string': ['string'],
};

/** Tools that may lose data, remove or replace a whole set, by the spec's words and the issues' rules. */
const DESTRUCTIVE =
  /(^|-)(delete|release|unassign|untag|remove|detach|power-off|shutdown|power-cycle|rebuild|restore|resize|upgrade-major-version|stop-online-migration)(-|$)|^load-balancer-update$|^db-cluster-update-firewall-rules$|^app-update$|^kubernetes-cluster-(upgrade|node-pool-update)$|^registry-garbage-collection-start$/;
const READ_ONLY = /(^|-)(get|list|search|describe)(-|$)|^vm-action$|^wait$/;
/**
 * The generic call may send any method: it is listed as destructive (the guard decides each
 * request from the operation model, and asks only for one that destroys).
 */
const GENERIC = /^api-call$/;
/** Tools that answer from the built-in operation model, not the platform. */
const CLOSED_WORLD = /^api-(search|describe)$/;

/** Tools cloudcall adds beyond the spec's (its names and arguments are cloudcall's own). */

describe('tool definitions match the spec', () => {
  it('marks exactly the tools the spec does not name as beyond it', () => {
    expect(tools.filter((tool) => tool.beyondSpec && specByName.has(tool.name)).map((t) => t.name)).toEqual(
      [],
    );
    expect(tools.filter((tool) => !tool.beyondSpec && !specByName.has(tool.name)).map((t) => t.name)).toEqual(
      [],
    );
  });

  const specTools = tools.filter((tool) => !tool.beyondSpec);
  it.each(specTools.map((tool) => [tool.name, tool] as const))('%s', (name, tool) => {
    const expected = specByName.get(name);
    expect(expected, `${name} is not a spec tool`).toBeDefined();
    if (!expected) return;
    expect(tool.family).toBe(expected.family);
    const schema = inputJsonSchema(tool) as { properties?: Record<string, Prop>; required?: string[] };
    const required = new Set(schema.required ?? []);
    for (const arg of expected.args) {
      const prop = schema.properties?.[arg.name];
      expect(prop, `${name}: argument ${arg.name}`).toBeDefined();
      if (!prop) continue;
      expect(required.has(arg.name), `${name}: ${arg.name} required`).toBe(arg.required);
      const want = arg.type.startsWith('array') ? ['array'] : (accepted[arg.type] ?? []);
      expect(
        typesOf(prop).some((t) => want.includes(t)),
        `${name}: ${arg.name} type ${arg.type}`,
      ).toBe(true);
      if (arg.default !== undefined)
        expect(prop.default, `${name}: ${arg.name} default`).toEqual(arg.default);
    }
    // Terse, since the listing is in an agent's context every turn, but never empty.
    expect(tool.description.length, `${name}: description`).toBeGreaterThanOrEqual(10);
  });

  it('every spec tool of a family with tools is present', () => {
    const served = new Set(tools.map((t) => t.name));
    const familiesWithTools = new Set(tools.map((t) => t.family));
    const missing = spec.tools.filter((t) => familiesWithTools.has(t.family as never) && !served.has(t.name));
    expect(missing.map((t) => t.name)).toEqual([]);
  });
});

describe('annotations follow the rules', () => {
  it.each(tools.map((tool) => [tool.name, tool] as const))('%s', (name, tool) => {
    expect(tool.annotations.destructiveHint, `${name} destructive`).toBe(
      DESTRUCTIVE.test(name) || GENERIC.test(name),
    );
    expect(tool.annotations.readOnlyHint, `${name} read-only`).toBe(
      READ_ONLY.test(name) && !DESTRUCTIVE.test(name),
    );
    expect(Boolean(tool.generic), `${name} generic`).toBe(GENERIC.test(name));
    if (tool.annotations.readOnlyHint) expect(tool.annotations.idempotentHint).toBe(true);
    expect(tool.annotations.openWorldHint).toBe(!CLOSED_WORLD.test(name));
  });
});

describe('selectFamilies', () => {
  it('selects by name, all by default, and names unknown families', () => {
    expect(selectFamilies().map((f) => f.name)).toEqual([
      'account',
      'databases',
      'networking',
      'vms',
      'images',
      'api',
    ]);
    expect(selectFamilies('vms, account').map((f) => f.name)).toEqual(['account', 'vms']);
    expect(() => selectFamilies('account,dns')).toThrow(/unknown family dns; choose from account, databases/);
  });
});

describe('documentation', () => {
  it('docs/tools.md carries the current generated tools table (run `pnpm docs:tools` after changing tools)', async () => {
    const { withToolsTable } = await import('./markdown.js');
    const page = readFileSync(new URL('../../../docs/tools.md', import.meta.url), 'utf8');
    expect(page).toBe(withToolsTable(page, families));
  });

  it('the README carries the current host snippets (run `pnpm docs:tools` after changing them)', async () => {
    const { withHostsSection } = await import('./hosts.js');
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(readme).toBe(withHostsSection(readme));
  });
});
