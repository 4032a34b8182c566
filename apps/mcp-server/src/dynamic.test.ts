/**
 * --tool-mode dynamic, through the official SDK client (over stdio to the built server first, then
 * in process over the SDK's in-memory transport): the first tool list is the two toolset tools and
 * the api family's three (which reach every operation); toolset-list shows families and tools;
 * toolset-enable adds them and the client hears notifications/tools/list_changed; selection and
 * read-only still apply.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { call, refusedCall } from './testing/client.js';
import { inProcessServer } from './testing/in-process.js';
import { killAll, stdioClient } from './testing/main.js';

// Servers started through ./testing/main.js that a test left running.
afterAll(killAll);

/** Resolves on the next tools/list_changed notification. */
function nextListChanged(client: Client): Promise<void> {
  return new Promise((resolve) =>
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
  );
}

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);

describe('--tool-mode dynamic', () => {
  it('starts with the toolset and api tools, enables a family and tells the client the list changed', async () => {
    const { client, close } = await stdioClient(['--sandbox', '--tool-mode', 'dynamic']);
    try {
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
      expect(await names(client)).toEqual([
        'toolset-list',
        'toolset-enable',
        'api-search',
        'api-describe',
        'api-call',
      ]);
      expect(client.getInstructions()).toMatch(/toolset-enable/);
      // Listed from the start, so enabled; the api tools answer at once.
      const api = await call(client, 'toolset-list', { Family: 'api' });
      expect(api.structured).toMatchObject({
        families: [
          {
            name: 'api',
            tools: [
              { name: 'api-search', enabled: true },
              { name: 'api-describe', enabled: true },
              { name: 'api-call', destructive: true, enabled: true },
            ],
          },
        ],
      });
      const already = await call(client, 'toolset-enable', { Families: ['api'] });
      expect(already.structured).toEqual({
        enabled: [],
        already_enabled: ['api-search', 'api-describe', 'api-call'],
      });
      const account = await call(client, 'api-call', { Method: 'GET', Path: '/v2/account' });
      expect(account.structured).toMatchObject({ account: { status: 'active' } });

      const catalog = await call(client, 'toolset-list', { Family: 'images' });
      const family = (
        catalog.structured as {
          families: { name: string; tools: { name: string; summary: string; enabled: boolean }[] }[];
        }
      ).families;
      expect(family.map((f) => f.name)).toEqual(['images']);
      expect(family[0]?.tools).toContainEqual({
        name: 'image-list',
        summary: expect.any(String),
        read_only: true,
        enabled: false,
      });

      const changed = nextListChanged(client);
      const enabled = await call(client, 'toolset-enable', { Families: ['images'] });
      expect(enabled.isError).toBe(false);
      await changed;
      const listed = await names(client);
      expect(listed).toContain('image-list');
      expect(listed).toContain('size-list');
      expect(listed).not.toContain('vm-create');

      const sizes = await call(client, 'size-list', { PerPage: 2 });
      expect(sizes.json).toMatchObject({ sizes: expect.any(Array) });

      // Enabling named tools by glob adds to the list.
      const again = nextListChanged(client);
      await call(client, 'toolset-enable', { Tools: ['key-*'] });
      await again;
      expect(await names(client)).toContain('key-create');
      const after = await call(client, 'toolset-list', { Family: 'images' });
      expect(JSON.stringify(after.structured)).toContain(
        '"name":"image-list","summary":"List images","read_only":true,"enabled":true',
      );
    } finally {
      await close();
    }
  });

  it('keeps read-only and selection: hidden tools are neither listed nor enabled', async () => {
    const { client, close } = await inProcessServer({
      toolMode: 'dynamic',
      readOnly: true,
      excludeTools: 'size-*',
    });
    try {
      const catalog = JSON.stringify((await call(client, 'toolset-list')).structured);
      expect(catalog).toContain('"image-list"');
      expect(catalog).not.toContain('"image-delete"');
      expect(catalog).not.toContain('"size-list"');

      const refused = await call(client, 'toolset-enable', { Tools: ['image-delete'] });
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/image-delete is not available: hidden by --read-only/);

      const changed = nextListChanged(client);
      await call(client, 'toolset-enable', { Families: ['images'] });
      await changed;
      const listed = await names(client);
      expect(listed).toContain('image-get');
      // The api tools from the start, api-call in its read-only form.
      const apiCall = (await client.listTools()).tools.find((tool) => tool.name === 'api-call');
      expect(apiCall?.inputSchema.properties?.Method).toMatchObject({ enum: ['GET', 'HEAD'] });
      expect(listed).not.toContain('image-delete');
      expect(listed).not.toContain('size-list');

      const called = await refusedCall(client, 'image-delete', { ID: 1 });
      expect(called).toMatchObject({ code: -32602, message: expect.stringMatching(/hidden by --read-only/) });
    } finally {
      await close();
    }
  });

  it('refuses bad toolset arguments as invalid arguments', async () => {
    const { client, close } = await inProcessServer({ toolMode: 'dynamic' });
    try {
      const unknown = await call(client, 'toolset-enable', { Families: ['nope'] });
      expect(unknown.isError).toBe(true);
      expect(unknown.structured).toMatchObject({ error_id: 'invalid_arguments' });
      const empty = await call(client, 'toolset-enable', {});
      expect(empty.text).toMatch(/give Families, Tools or both/);
      const typo = await call(client, 'toolset-enable', { Tools: ['vm-gett'] });
      expect(typo.text).toMatch(/vm-gett matches no tool/);
    } finally {
      await close();
    }
  });
});
