/**
 * The tool list's weight, as an agent host receives it from tools/list over a real transport: the
 * 142 spec tools in at most 50,000 bytes (JSON of the result), with every argument described and
 * the spec's enums listed; the api family's three tools in at most 4 KB together, in every
 * listing that has them; dynamic mode's first list in at most 4 KB for the toolset tools and 4 KB
 * for the api tools listed beside them. A failure prints the bytes and the ten largest tools, so
 * whoever grew the list sees where.
 */
import { readFileSync } from 'node:fs';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { LISTING } from './listing.generated.js';
import { killAll, stdioClient } from './testing/main.js';

// Servers started through ./testing/main.js that a test left running.
afterAll(killAll);

const BUDGET = 50_000;
const DYNAMIC_BUDGET = 4_096;
const API_BUDGET = 4_096;
const API_TOOLS = ['api-search', 'api-describe', 'api-call'];
const TOOLSET_TOOLS = ['toolset-list', 'toolset-enable'];

interface SpecTool {
  name: string;
  args: { name: string; enum?: string[] }[];
}
const spec = JSON.parse(
  readFileSync(new URL('../../../packages/catalog/test/spec-tools.json', import.meta.url), 'utf8'),
) as { tools: SpecTool[] };
const specNames = new Set(spec.tools.map((tool) => tool.name));

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
/** The bytes of the named tools' entries together, as each is listed. */
const bytesOf = (tools: Tool[], names: readonly string[]) =>
  tools.filter((tool) => names.includes(tool.name)).reduce((sum, tool) => sum + bytes(tool), 0);

async function listed(args: string[]): Promise<Tool[]> {
  const { client, close } = await stdioClient(['--sandbox', '--quiet', ...args]);
  try {
    return (await client.listTools()).tools;
  } finally {
    await close();
  }
}

function report(tools: Tool[]): string {
  const largest = tools
    .map((tool) => [tool.name, bytes(tool)] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10);
  return `tools/list is ${bytes({ tools })} bytes for ${tools.length} tools; largest: ${largest
    .map(([name, size]) => `${name} ${size}`)
    .join(', ')}`;
}

describe('the tool list budget', () => {
  it(`lists the spec's tools in at most ${BUDGET} bytes, every argument described`, async () => {
    const tools = (await listed([])).filter((tool) => specNames.has(tool.name));
    expect(tools).toHaveLength(spec.tools.length);
    const summary = report(tools);
    process.stderr.write(`${summary}\n`);
    expect(bytes({ tools }), summary).toBeLessThanOrEqual(BUDGET);
    for (const tool of tools) {
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThanOrEqual(10);
      // No title twice: the listing carries none; hosts show the name.
      expect(tool.annotations?.title, tool.name).toBeUndefined();
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
      for (const [name, schema] of Object.entries(properties)) {
        expect(schema.description?.trim(), `${tool.name} ${name}`).toBeTruthy();
      }
      expect(JSON.stringify(tool)).not.toContain(String(Number.MAX_SAFE_INTEGER));
    }
  });

  it('lists every enum the spec gives', async () => {
    const byName = new Map((await listed([])).map((tool) => [tool.name, tool]));
    for (const tool of spec.tools) {
      for (const arg of tool.args.filter((a) => a.enum)) {
        const property = (
          byName.get(tool.name)?.inputSchema.properties as Record<string, { enum?: string[] }>
        )?.[arg.name];
        expect(property?.enum, `${tool.name} ${arg.name}`).toEqual(expect.arrayContaining(arg.enum ?? []));
      }
    }
  });

  it('is smaller read-only; in dynamic mode, the toolset and api tools in at most 4 KB each', async () => {
    const all = await listed([]);
    const readOnly = await listed(['--read-only']);
    const dynamic = await listed(['--tool-mode', 'dynamic']);
    process.stderr.write(
      `tools/list bytes: default ${bytes({ tools: all })} (${all.length} tools), --read-only ${bytes({ tools: readOnly })} (${readOnly.length}), dynamic ${bytes({ tools: dynamic })} (${dynamic.length}: toolset tools ${bytesOf(dynamic, TOOLSET_TOOLS)}, api tools ${bytesOf(dynamic, API_TOOLS)})\n`,
    );
    expect(readOnly.length).toBeLessThan(all.length);
    expect(readOnly.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    expect(dynamic.map((tool) => tool.name)).toEqual([...TOOLSET_TOOLS, ...API_TOOLS]);
    expect(bytesOf(dynamic, TOOLSET_TOOLS), report(dynamic)).toBeLessThanOrEqual(DYNAMIC_BUDGET);
    expect(bytesOf(dynamic, API_TOOLS), report(dynamic)).toBeLessThanOrEqual(API_BUDGET);
  });

  it.each([
    ['default', []],
    ['--read-only', ['--read-only']],
    ['dynamic', ['--tool-mode', 'dynamic']],
    ['dynamic, --read-only', ['--tool-mode', 'dynamic', '--read-only']],
  ])(`lists the three api tools in at most ${API_BUDGET} bytes together (%s)`, async (_, args) => {
    const tools = await listed(args);
    const api = tools.filter((tool) => API_TOOLS.includes(tool.name));
    expect(api.map((tool) => tool.name)).toEqual(API_TOOLS);
    process.stderr.write(`api tools (${args.join(' ') || 'default'}): ${bytesOf(api, API_TOOLS)} bytes\n`);
    expect(bytesOf(api, API_TOOLS), report(api)).toBeLessThanOrEqual(API_BUDGET);
  });

  it('leaves the families offered on request out of the default listing, and names the flag that brings one', async () => {
    const onRequest = LISTING.families.filter((family) => family.onRequest).map((family) => family.name);
    // The five families beyond the spec's: a family added on request joins this list.
    expect(onRequest.sort()).toEqual(['apps', 'kubernetes', 'monitoring', 'registry', 'spaces']);
    const familyOf = new Map(LISTING.tools.map((tool) => [tool.name, tool.family]));
    const byDefault = await listed([]);
    const everything = await listed(['--families', 'all']);
    expect(byDefault.filter((tool) => onRequest.includes(familyOf.get(tool.name) ?? 'api'))).toEqual([]);
    expect(everything.map((tool) => tool.name).sort()).toEqual(LISTING.tools.map((tool) => tool.name).sort());
    // The default listing's text is the start of every entry's text, as the server answers it.
    expect(byDefault.map((tool) => tool.name)).toEqual(
      LISTING.tools.slice(0, LISTING.defaults.count).map((tool) => tool.name),
    );
    const weights = [`default ${bytes({ tools: byDefault })} (${byDefault.length} tools)`];
    weights.push(`--families all ${bytes({ tools: everything })} (${everything.length})`);
    for (const family of onRequest) {
      const tools = everything.filter((tool) => familyOf.get(tool.name) === family);
      expect(tools.length, family).toBeGreaterThan(0);
      weights.push(
        `${family} ${bytesOf(
          tools,
          tools.map((tool) => tool.name),
        )} (${tools.length})`,
      );
    }
    process.stderr.write(`tools/list bytes by profile: ${weights.join(', ')}\n`);

    // A call to one of them on the default listing says how to get it.
    const { client, close } = await stdioClient(['--sandbox', '--quiet']);
    try {
      // -32602, as for any tool not offered, naming why and the flag.
      await expect(client.callTool({ name: 'kubernetes-cluster-list', arguments: {} })).rejects.toThrow(
        'kubernetes-cluster-list is not available: its family, kubernetes, is offered on request: add it to --families (CLOUDCALL_FAMILIES), or give --families all',
      );
    } finally {
      await close();
    }
  });
});
