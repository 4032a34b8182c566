/**
 * The databases family as a library: the wire format of its requests (read by a recording HTTP
 * server on loopback), the online-migration HTTP operation against the sandbox, and the raw PUT.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { ApiClient, ClientApiError, InputError } from '@cloudcall/core';
import { connectSandbox, type SandboxConnection } from '@cloudcall/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasesApi, startOnlineMigration } from './index.js';

interface Recorded {
  method: string;
  url: string;
  authorization: string | undefined;
  body: unknown;
}

/** A loopback server that records each request and answers a fixed JSON body. */
let recorder: Server;
let recorded: Recorded[] = [];
let recorderUrl = '';

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString();
  return text ? JSON.parse(text) : undefined;
}

let connection: SandboxConnection;
const CLUSTER = '9cc10173-e9ea-4176-9dbc-a4cee4c4ff30';

beforeAll(async () => {
  recorder = createServer(async (req, res) => {
    recorded.push({
      method: req.method ?? '',
      url: req.url ?? '',
      authorization: req.headers.authorization,
      body: await body(req),
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    // Config tools read the cluster first: answer as a cluster of every engine they may ask for.
    res.end(JSON.stringify({ database: { engine: 'mysql' }, user: { name: 'u' } }));
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  recorderUrl = `http://127.0.0.1:${(recorder.address() as { port: number }).port}`;
  connection = await connectSandbox();
});

afterAll(async () => {
  recorder.close();
  await connection.close();
});

function recordingApi() {
  recorded = [];
  const client = new ApiClient({ token: 'wire-token', baseUrl: recorderUrl, retry: { maxAttempts: 1 } });
  return { api: databasesApi(client), client };
}

describe('wire format (API-MAP pitfalls)', () => {
  it('firewall rules: only type/value/uuid/cluster_uuid, vm as droplet', async () => {
    const { api } = recordingApi();
    await api.dbClusterUpdateFirewallRules({
      id: CLUSTER,
      rules: [
        { type: 'vm', value: '42' },
        { type: 'ip_addr', value: '192.0.2.1', uuid: 'u-1', created_at: '2024-01-01T00:00:00Z' },
      ],
    });
    expect(recorded).toEqual([
      {
        method: 'PUT',
        url: `/v2/databases/${CLUSTER}/firewall`,
        authorization: 'Bearer wire-token',
        body: {
          rules: [
            { type: 'droplet', value: '42' },
            { type: 'ip_addr', value: '192.0.2.1', uuid: 'u-1' },
          ],
        },
      },
    ]);
  });

  it('lists pass page and per_page whatever JSON type the caller used', async () => {
    const { api } = recordingApi();
    await api.dbClusterList({ page: 2, per_page: '5' });
    await api.dbClusterListBackups({ id: CLUSTER, page: '3' });
    await api.dbClusterListUsers({ id: CLUSTER, per_page: 7 });
    await api.dbClusterListTopics({
      id: CLUSTER,
      page: '1',
      per_page: 4,
      with_projects: 'true',
      usecases: 'a,b',
    });
    await api.dbClusterList({});
    expect(recorded.map((r) => r.url)).toEqual([
      '/v2/databases?page=2&per_page=5',
      `/v2/databases/${CLUSTER}/backups?page=3`,
      `/v2/databases/${CLUSTER}/users?per_page=7`,
      `/v2/databases/${CLUSTER}/topics?page=1&per_page=4&with_projects=true&usecases=a%2Cb`,
      '/v2/databases',
    ]);
  });

  it('resize with nothing to change is an input error and sends nothing', async () => {
    const { api } = recordingApi();
    await expect(api.dbClusterResize({ id: CLUSTER })).rejects.toThrow(InputError);
    await expect(api.dbClusterResize({ id: CLUSTER })).rejects.toThrow(
      /at least one of size, num_nodes, storage_size_mib/,
    );
    expect(recorded).toEqual([]);
    await api.dbClusterResize({ id: CLUSTER, num_nodes: 2 });
    expect(recorded[0]).toMatchObject({ method: 'PUT', body: { num_nodes: 2 } });
  });

  it('MySQL config_json is parsed into config; invalid JSON is an input error with no request', async () => {
    const { api } = recordingApi();
    await expect(api.dbClusterUpdateMysqlConfig({ ID: CLUSTER, config_json: '{nope' })).rejects.toThrow(
      /argument config_json: is not valid JSON/,
    );
    await expect(api.dbClusterUpdateMysqlConfig({ ID: CLUSTER, config_json: '[1]' })).rejects.toThrow(
      /JSON object/,
    );
    expect(recorded).toEqual([]);
    await api.dbClusterUpdateMysqlConfig({ ID: CLUSTER, config_json: '{"wait_timeout":600}' });
    expect(recorded.map((r) => [r.method, r.url, r.body])).toEqual([
      ['GET', `/v2/databases/${CLUSTER}`, undefined],
      ['PATCH', `/v2/databases/${CLUSTER}/config`, { config: { wait_timeout: 600 } }],
    ]);
  });

  it('update-user without settings sends no empty body; create-user maps mysql_auth_plugin', async () => {
    const { api } = recordingApi();
    await api.dbClusterUpdateUser({ id: CLUSTER, user: 'app' });
    await api.dbClusterCreateUser({ id: CLUSTER, name: 'app', mysql_auth_plugin: 'mysql_native_password' });
    expect(recorded.map((r) => [r.method, r.body])).toEqual([
      ['GET', undefined],
      ['POST', { name: 'app', mysql_settings: { auth_plugin: 'mysql_native_password' } }],
    ]);
  });

  it('create: tags comma-separated in, an array out; unset options never sent', async () => {
    const { api } = recordingApi();
    await api.dbClusterCreate({
      name: 'cache',
      engine: 'valkey',
      version: '8',
      region: 'nyc3',
      size: 'db-s-1vcpu-1gb',
      num_nodes: 1,
      tags: 'a, b,,c',
    });
    await api.dbClusterStartOnlineMigration({
      id: CLUSTER,
      source: { host: 'h', port: 1 },
      ignore_dbs: 'x, y',
    });
    await api.dbClusterSetSqlMode({ id: CLUSTER, modes: 'ANSI, TRADITIONAL' });
    expect(recorded.map((r) => r.body)).toEqual([
      {
        name: 'cache',
        engine: 'valkey',
        version: '8',
        region: 'nyc3',
        size: 'db-s-1vcpu-1gb',
        num_nodes: 1,
        tags: ['a', 'b', 'c'],
      },
      { source: { host: 'h', port: 1 }, ignore_dbs: ['x', 'y'] },
      { sql_mode: 'ANSI,TRADITIONAL' },
    ]);
  });
});

describe('the online-migration HTTP operation', () => {
  it('startOnlineMigration PUTs with the bearer token (the sandbox refuses an unreachable source)', async () => {
    const { database } = await databasesApi(connection.client).dbClusterCreate({
      name: 'target',
      engine: 'pg',
      version: '16',
      region: 'nyc3',
      size: 'db-s-1vcpu-1gb',
      num_nodes: 1,
    });
    await connection.sandbox.advanceClock(3_000);
    // A port nothing listens on: bind one, note it, release it.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const error = await startOnlineMigration(connection.client, database.id, {
      source: { host: '127.0.0.1', port },
      disable_ssl: true,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientApiError);
    expect((error as ClientApiError).status).toBe(422);
    expect((error as ClientApiError).apiMessage).toMatch(/could not connect to the source/);

    // Reachable: the sandbox's own port stands in for a PostgreSQL source (TCP reachability only).
    const sandboxPort = connection.sandbox.port;
    const started = await startOnlineMigration(connection.client, database.id, {
      source: { host: '127.0.0.1', port: sandboxPort, dbname: 'app' },
      disable_ssl: true,
    });
    expect(started).toMatchObject({ id: expect.any(String), status: 'running' });

    // The raw PUT, as any HTTP client sends it.
    const url = `${connection.sandbox.url}/v2/databases/${database.id}/online-migration`;
    const put = (headers: Record<string, string>, json: unknown) =>
      fetch(url, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(json),
      });
    const unauthenticated = await put({}, { source: { host: '127.0.0.1', port: sandboxPort } });
    expect(unauthenticated.status).toBe(401);
    const bearer = { authorization: `Bearer ${randomUUID()}` };
    const noSource = await put(bearer, { disable_ssl: true });
    expect(noSource.status).toBe(422);
    expect(await noSource.json()).toMatchObject({
      id: 'unprocessable_entity',
      message: /source is required/,
    });
    await databasesApi(connection.client).dbClusterStopOnlineMigration({
      id: database.id,
      migration_id: started.id,
    });
    const ok = await put(bearer, {
      source: { host: '127.0.0.1', port: sandboxPort },
      disable_ssl: true,
      ignore_dbs: [],
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ status: 'running', id: expect.any(String) });
  });
});
