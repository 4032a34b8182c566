/**
 * Tool snapshots: each tool's tools/list entry, as the server answers it, is committed
 * pretty-printed under __toolsnaps__/<tool>.snap.json, the form a reviewer reads when a tool's
 * name, description, schema or annotations change (the runtime listing is one generated string).
 * A difference fails here; `UPDATE_TOOLSNAPS=1` (and only that) rewrites the snapshots and removes
 * those of tools no longer listed, as github-mcp-server's toolsnaps do.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTING } from './listing.generated.js';
import { createMcpServer } from './server.js';

const SNAPS = new URL('../__toolsnaps__/', import.meta.url);
const UPDATE = process.env.UPDATE_TOOLSNAPS === '1' || process.env.UPDATE_TOOLSNAPS === 'true';
const REFRESH =
  'UPDATE_TOOLSNAPS=1 pnpm --filter @cloudcall/mcp-server exec vitest run src/toolsnaps.test.ts (then review and commit __toolsnaps__)';

const snapFile = (name: string) => new URL(`${name}.snap.json`, SNAPS);
const snapText = (tool: Tool) => `${JSON.stringify(tool, null, 2)}\n`;

let client: Client;
let listed: Map<string, Tool>;

beforeAll(async () => {
  const server = createMcpServer({
    client: () => Promise.reject(new Error('tools/list calls no API')),
    tools: LISTING.tools,
    families: LISTING.families,
    version: '0.0.0',
    sandbox: false,
    log: () => undefined,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'toolsnaps', version: '0.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  const { tools } = await client.listTools();
  listed = new Map(tools.map((tool) => [tool.name, tool]));
  if (UPDATE) mkdirSync(SNAPS, { recursive: true });
});
afterAll(() => client.close());

describe('tool snapshots (__toolsnaps__)', () => {
  it('cover the tools listed, no more and no fewer', () => {
    expect([...listed.keys()]).toEqual(LISTING.tools.map((tool) => tool.name));
    const snapped = existsSync(SNAPS)
      ? readdirSync(SNAPS)
          .filter((file) => file.endsWith('.snap.json'))
          .map((file) => file.slice(0, -'.snap.json'.length))
      : [];
    const orphans = snapped.filter((name) => !listed.has(name));
    if (UPDATE) for (const name of orphans) rmSync(snapFile(name));
    else expect(orphans, `snapshots of tools no longer listed: ${REFRESH}`).toEqual([]);
  });

  it.each(LISTING.tools.map((tool) => tool.name))('%s', (name) => {
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
