/**
 * Tool snapshots: each tool's tools/list entry, as the server answers it, is committed
 * pretty-printed under __toolsnaps__/<tool>.snap.json, the form a reviewer reads when a tool's
 * name, description, schema or annotations change (the runtime listing is one generated string).
 * A tool's read-only form (what --read-only lists in its place) is `<tool>.read-only.snap.json`.
 * A difference fails here; `UPDATE_TOOLSNAPS=1` (and only that) rewrites the snapshots and removes
 * those of tools no longer listed, as github-mcp-server's toolsnaps do.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTING } from './listing.generated.js';
import { createLegacyServer } from './server.js';
import type { ToolData } from './tool-data.js';

const SNAPS = new URL('../__toolsnaps__/', import.meta.url);
const UPDATE = process.env.UPDATE_TOOLSNAPS === '1' || process.env.UPDATE_TOOLSNAPS === 'true';
const REFRESH =
  'UPDATE_TOOLSNAPS=1 pnpm --filter @cloudcall/mcp-server exec vitest run src/toolsnaps.test.ts (then review and commit __toolsnaps__)';

const snapFile = (name: string) => new URL(`${name}.snap.json`, SNAPS);
const snapText = (tool: Tool) => `${JSON.stringify(tool, null, 2)}\n`;

const READ_ONLY = '.read-only';
/** The snapshots' names: each tool's, then each read-only form's. */
const names = [
  ...LISTING.tools.map((tool) => tool.name),
  ...LISTING.tools.filter((tool) => tool.readOnlyForm).map((tool) => `${tool.name}${READ_ONLY}`),
];

const clients: Client[] = [];
/** Snapshot name -> the tools/list entry. */
const listed = new Map<string, Tool>();

/** The tools/list entries of a server offering `tools`, through the SDK client. */
async function listing(tools: readonly ToolData[]): Promise<Tool[]> {
  const server = createLegacyServer({
    client: () => Promise.reject(new Error('tools/list calls no API')),
    tools,
    families: LISTING.families,
    version: '0.0.0',
    sandbox: false,
    log: () => undefined,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'toolsnaps', version: '0.0.0' });
  clients.push(client);
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return (await client.listTools()).tools;
}

beforeAll(async () => {
  for (const tool of await listing(LISTING.tools)) listed.set(tool.name, tool);
  const forms = LISTING.tools.flatMap((tool) => (tool.readOnlyForm ? [tool.readOnlyForm] : []));
  for (const tool of await listing(forms)) listed.set(`${tool.name}${READ_ONLY}`, tool);
  if (UPDATE) mkdirSync(SNAPS, { recursive: true });
});
afterAll(() => Promise.all(clients.map((client) => client.close())));

describe('tool snapshots (__toolsnaps__)', () => {
  it('cover the tools listed, no more and no fewer', () => {
    expect([...listed.keys()]).toEqual(names);
    const snapped = existsSync(SNAPS)
      ? readdirSync(SNAPS)
          .filter((file) => file.endsWith('.snap.json'))
          .map((file) => file.slice(0, -'.snap.json'.length))
      : [];
    const orphans = snapped.filter((name) => !listed.has(name));
    if (UPDATE) for (const name of orphans) rmSync(snapFile(name));
    else expect(orphans, `snapshots of tools no longer listed: ${REFRESH}`).toEqual([]);
  });

  it.each(names)('%s', (name) => {
    const tool = listed.get(name);
    expect(tool, `${name} is not in tools/list`).toBeDefined();
    const text = snapText(tool as Tool);
    if (UPDATE) {
      if (!existsSync(snapFile(name)) || readFileSync(snapFile(name), 'utf8') !== text)
        writeFileSync(snapFile(name), text);
      return;
    }
    expect(existsSync(snapFile(name)), `${name} has no snapshot: ${REFRESH}`).toBe(true);
    const committed = readFileSync(snapFile(name), 'utf8');
    expect(JSON.parse(committed), `${name}'s tools/list entry changed: ${REFRESH}`).toEqual(tool);
    expect(committed, `${name}'s snapshot is not as written: ${REFRESH}`).toBe(text);
  });
});
