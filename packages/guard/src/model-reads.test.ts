/**
 * What the guard reads of a request from the operation model, against a stand-in API on loopback
 * that answers what each case needs and records every request: the resources a VM is destroyed
 * with, a backup's VM, a part a PUT makes, a request the model does not know. Each refusal names
 * what it protects, and the stand-in sees nothing that changes anything.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiCallTool } from '@cloudcall/api';
import {
  type AnyTool,
  type ApiClient,
  annotations,
  createClient,
  defineTool,
  returns,
} from '@cloudcall/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GuardRefusal, guardedRun, parseRule } from './index.js';

/** What the stand-in answers a GET with, by path; anything else is a 404, a change a 204. */
let reads: Record<string, unknown> = {};
const seen: string[] = [];
let server: Server;
let client: ApiClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    const url = new URL(req.url ?? '/', 'http://stand-in');
    seen.push(`${req.method} ${url.pathname}${url.search}`);
    if (req.method !== 'GET') {
      res.writeHead(204).end();
      return;
    }
    const body = reads[url.pathname];
    if (body === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ id: 'not_found', message: 'The resource you were accessing could not be found.' }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = createClient({
    token: 'stand-in',
    baseUrl: `http://127.0.0.1:${port}`,
    retry: { maxAttempts: 1 },
  });
});
afterAll(async () => {
  await client.close();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen.length = 0;
  reads = {};
});

const changes = () => seen.filter((line) => !line.startsWith('GET '));
const run = (args: unknown, rules: string[], tool: AnyTool = apiCallTool) =>
  guardedRun(
    tool,
    args,
    { client },
    { frontEnd: 'mcp', rules: rules.map((rule) => parseRule(rule, '--protect')), unconfirmed: 'run' },
  );

describe('a VM destroyed with its associated resources', () => {
  it('is refused when one of them is protected, each read by its kind', async () => {
    reads = {
      '/v2/droplets/7': { droplet: { id: 7, name: 'web-7', tags: [] } },
      '/v2/droplets/7/destroy_with_associated_resources': {
        reserved_ips: [{ id: '203.0.113.9', name: '203.0.113.9' }],
        snapshots: [],
        volumes: [{ id: 'vol-1', name: 'db-data' }],
        volume_snapshots: [],
      },
      '/v2/reserved_ips/203.0.113.9': { reserved_ip: { ip: '203.0.113.9' } },
      '/v2/volumes/vol-1': { volume: { id: 'vol-1', name: 'db-data', tags: ['prod'] } },
    };
    const call = run(
      { Method: 'DELETE', Path: '/v2/droplets/7/destroy_with_associated_resources/dangerous' },
      ['tag:prod'],
    );
    await expect(call).rejects.toThrow(GuardRefusal);
    await expect(call).rejects.toThrow(
      'api-call refused: volume db-data (id vol-1; tags prod) is protected by rule tag:prod (--protect). Nothing was sent.',
    );
    expect(seen).toContain('GET /v2/volumes/vol-1');
    expect(changes()).toEqual([]);
    // Nothing protected among them: the delete goes.
    reads['/v2/volumes/vol-1'] = { volume: { id: 'vol-1', name: 'db-data', tags: [] } };
    await run({ Method: 'DELETE', Path: '/v2/droplets/7/destroy_with_associated_resources/dangerous' }, [
      'tag:prod',
    ]);
    expect(changes()).toEqual(['DELETE /v2/droplets/7/destroy_with_associated_resources/dangerous']);
  });
});

describe('a backup of a protected VM', () => {
  it('is found among the VMs backups, and a VM made from it is refused', async () => {
    reads = {
      '/v2/images/901': { image: { id: 901, name: 'nightly', type: 'backup', tags: [] } },
      '/v2/droplets': {
        droplets: [
          { id: 5, name: 'web-5', backup_ids: [] },
          { id: 6, name: 'db-main', backup_ids: [900, 901], tags: [] },
        ],
        links: {},
        meta: { total: 2 },
      },
      '/v2/droplets/6': { droplet: { id: 6, name: 'db-main', tags: [] } },
    };
    const body = { name: 'clone', size: 's-1vcpu-1gb', image: 901, region: 'nyc3' };
    await expect(run({ Method: 'POST', Path: '/v2/droplets', Body: body }, ['name:db-main'])).rejects.toThrow(
      'api-call refused: image nightly (id 901) is a copy of droplet db-main (id 6), which is protected by rule name:db-main (--protect). Nothing was sent.',
    );
    expect(changes()).toEqual([]);
    // A public image is nobody's copy: no snapshot is looked up for it.
    reads['/v2/images/123'] = { image: { id: 123, name: 'ubuntu', type: 'base', public: true } };
    await run({ Method: 'POST', Path: '/v2/droplets', Body: { ...body, image: 123 } }, ['name:db-main']);
    expect(seen).not.toContain('GET /v2/snapshots/123');
    expect(changes()).toEqual(['POST /v2/droplets']);
  });
});

describe('the parts a path names', () => {
  it('are read too, and a PUT may make the last one', async () => {
    reads = {
      '/v2/databases/9cc10173-e9ea-4176-9dbc-a4cee4c4ff30': {
        database: { id: '9cc10173-e9ea-4176-9dbc-a4cee4c4ff30', name: 'events', tags: [] },
      },
      '/v2/databases/9cc10173-e9ea-4176-9dbc-a4cee4c4ff30/topics/keep': { topic: { name: 'keep' } },
    };
    // The topic is protected by its name, as the cluster would be.
    await expect(
      run({ Method: 'DELETE', Path: '/v2/databases/9cc10173-e9ea-4176-9dbc-a4cee4c4ff30/topics/keep' }, [
        'name:keep',
      ]),
    ).rejects.toThrow('topic keep is protected by rule name:keep');
    // A topic a PUT makes is not there yet: nothing to protect, and the PUT goes.
    await run(
      {
        Method: 'PUT',
        Path: '/v2/databases/9cc10173-e9ea-4176-9dbc-a4cee4c4ff30/topics/fresh',
        Body: { config: {} },
      },
      ['name:keep'],
    );
    expect(seen).toContain('GET /v2/databases/9cc10173-e9ea-4176-9dbc-a4cee4c4ff30/topics/fresh');
    expect(changes()).toEqual(['PUT /v2/databases/9cc10173-e9ea-4176-9dbc-a4cee4c4ff30/topics/fresh']);
    // A DELETE of a part that is not there is not sent.
    seen.length = 0;
    await expect(
      run({ Method: 'DELETE', Path: '/v2/databases/9cc10173-e9ea-4176-9dbc-a4cee4c4ff30/topics/gone' }, [
        'name:keep',
      ]),
    ).rejects.toThrow(/could not be found/);
    expect(changes()).toEqual([]);
  });
});

describe('a request the model does not know', () => {
  const odd = defineTool({
    name: 'odd-tool',
    family: 'account',
    title: 'Odd tool',
    description: 'Sends a request no operation describes.',
    input: z.strictObject({}),
    annotations: annotations.update,
    handler: (_args, context) =>
      context.client.request({ method: 'POST', path: '/v2/not-an-operation', body: {} }),
    result: returns<unknown>(),
  });

  it('is not sent under protection rules, and is without them', async () => {
    await expect(run({}, ['tag:prod'], odd)).rejects.toThrow(
      "odd-tool refused: POST /v2/not-an-operation is no operation of the platform's API description, so protection cannot tell what it changes. Nothing was sent.",
    );
    expect(seen).toEqual([]);
    await run({}, [], odd);
    expect(changes()).toEqual(['POST /v2/not-an-operation']);
  });
});
