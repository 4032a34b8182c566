/**
 * `cloudcall sandbox serve|status|reset` as processes, the served sandbox driven by a third-party
 * client of the platform API (dots-wrapper) through its base-URL option; and one sandbox shared by
 * both apps: what an agent creates through `cloudcall-mcp --sandbox`, `cloudcall --sandbox` sees.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sshPublicKey } from '@cloudcall/sandbox';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createApiClient } from 'dots-wrapper';
import { describe, expect, it } from 'vitest';
import { EXIT } from './program.js';
import { cliRunner } from './testing/run.js';

const MCP_MAIN = fileURLToPath(new URL('../../mcp-server/dist/main.js', import.meta.url));

const countOf = (json: unknown, resource: string) =>
  (json as { resources: { resource: string; count: number }[] }).resources.find(
    (r) => r.resource === resource,
  )?.count;

describe('cloudcall sandbox', () => {
  it('serves the sandbox to a third-party client, then counts and resets what it holds', async () => {
    // A process: a server that runs until Ctrl-C (the smoke test of the built CLI serving); the
    // commands that talk to it, in this process.
    const cli = cliRunner({}, { process: true });
    const inline = cliRunner();
    const state = join(cli.home, 'served.json');
    const server = cli.start(['sandbox', 'serve', '--port', '0', '--state', state]);
    await server.until(/Ctrl-C stops it/);
    const url = server.output.stdout.trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.output.stderr).toContain(`doctl --api-url ${url} --access-token sandbox-token`);
    expect(server.output.stderr).toContain(`api_endpoint = "${url}"`);
    expect(server.output.stderr).toContain(`cloudcall --api-url ${url} -t sandbox-token vm-list`);
    expect(server.output.stderr).toContain(`State: ${state}`);

    // dots-wrapper's endpoint is the API root, with its /v2.
    const dots = createApiClient({ token: 'any-token', endpoint: `${url}/v2` });
    const created = await dots.droplet.createDroplet({
      name: 'from-dots',
      region: 'nyc3',
      size: 's-1vcpu-1gb',
      image: 'ubuntu-24-04-x64',
    });
    expect(created.data.droplet).toMatchObject({ name: 'from-dots', status: 'new' });
    const listed = await dots.droplet.listDroplets({});
    expect(listed.data.droplets.map((vm) => vm.name)).toEqual(['from-dots']);

    // The CLI sees what dots-wrapper created, through the served API.
    const viaCli = await inline.run(['--api-url', url, '-t', 'sandbox-token', 'vm-list']);
    expect(viaCli.code, viaCli.stderr).toBe(EXIT.ok);
    expect(JSON.stringify(viaCli.json)).toContain('"from-dots"');

    const status = await inline.run(['sandbox', 'status', '--state', state]);
    expect(status.code, status.stderr).toBe(EXIT.ok);
    expect(countOf(status.json, 'droplets')).toBe(1);

    const port = new URL(url).port;
    const taken = await inline.run(['sandbox', 'serve', '--port', port, '--state', ':memory:']);
    expect(taken.code).toBe(EXIT.input);
    expect(taken.stderr).toContain(`--port: port ${port} is in use`);

    server.child.kill('SIGINT');
    const stopped = await server.exit;
    expect(stopped.code).toBe(EXIT.ok);
    expect(stopped.stderr).toContain('cloudcall: sandbox stopped.');

    expect((await inline.run(['sandbox', 'reset', '--state', state])).code).toBe(EXIT.ok);
    const after = await inline.run(['sandbox', 'status', '--state', state]);
    expect(countOf(after.json, 'droplets')).toBe(0);
  });

  it('refuses a port that is not one', async () => {
    const result = await cliRunner().run(['sandbox', 'serve', '--port', 'http']);
    expect(result.code).toBe(EXIT.input);
    expect(result.stderr).toContain('--port: must be a port number, not http');
  });
});

describe('one sandbox for both apps', () => {
  it('shows the CLI what the MCP server created, on the default state file; :memory: keeps a run apart', async () => {
    const cli = cliRunner();
    const env = { PATH: process.env.PATH ?? '', HOME: cli.home, XDG_CONFIG_HOME: join(cli.home, 'config') };
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_MAIN, '--sandbox', '--families', 'account'],
      env,
      stderr: 'pipe',
    });
    // A client of the current protocol revision (the SDK's v2 line).
    const client = new Client(
      { name: 'cloudcall-cli-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(transport);
    try {
      const result = await client.callTool({
        name: 'key-create',
        arguments: { Name: 'made-by-an-agent', PublicKey: sshPublicKey('agent') },
      });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const shared = await cli.run(['--sandbox', 'key-list']);
    expect(shared.code, shared.stderr).toBe(EXIT.ok);
    expect(JSON.stringify(shared.json)).toContain('"made-by-an-agent"');
    const apart = await cli.run(['--sandbox', '--sandbox-state', ':memory:', 'key-list']);
    expect(apart.code, apart.stderr).toBe(EXIT.ok);
    expect(JSON.stringify(apart.json)).not.toContain('"made-by-an-agent"');
  });
});
