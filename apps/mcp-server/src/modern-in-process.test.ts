/**
 * The 2026-07-28 path in this process (modern.ts through the SDK's per-request handler, its fetch
 * called directly), with the SDK's v2 client: what modern.test.ts proves through the built server,
 * here where each branch can be driven and counted: calls, protocol errors, confirmation in rounds
 * (accepted, mistyped, declined, a client that cannot be asked) and a wait's progress.
 */
import { randomBytes } from 'node:crypto';
import { sshPublicKey } from '@cloudcall/sandbox';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type InProcessServer, inProcessServer } from './testing/in-process.js';

let servers: InProcessServer[] = [];
afterEach(async () => {
  for (const server of servers) await server.close();
  servers = [];
});

async function start(options: Parameters<typeof inProcessServer>[0] = {}): Promise<InProcessServer> {
  const server = await inProcessServer({ families: 'account,vms', ...options });
  servers.push(server);
  return server;
}

function textOf(result: { content?: unknown }): string {
  const [first] = (result.content ?? []) as { type: string; text?: string }[];
  return first?.type === 'text' ? (first.text ?? '') : '';
}

/** A v2 client that answers a confirmation with `answer(the question)`, and what it was asked. */
async function answering(
  server: InProcessServer,
  answer: (message: string) => { action: 'accept' | 'decline' | 'cancel'; typed?: string },
): Promise<{ client: ModernClient; asked: string[] }> {
  const client = await server.modernClient({ capabilities: { elicitation: { form: {} } } });
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    const message = String((request.params as { message: string }).message);
    asked.push(message);
    const { action, typed } = answer(message);
    return action === 'accept' ? { action, content: { confirm: typed ?? '' } } : { action };
  });
  return { client, asked };
}

async function makeKey(client: ModernClient, name: string): Promise<number> {
  const made = await client.callTool({
    name: 'key-create',
    arguments: { Name: name, PublicKey: sshPublicKey(name) },
  });
  expect(made.isError, textOf(made)).not.toBe(true);
  return (made.structuredContent as { ssh_key: { id: number } }).ssh_key.id;
}

describe('2026-07-28 in process', () => {
  it('lists the tools offered and calls one; an unknown tool is -32602 with a plain message', async () => {
    const server = await start();
    const client = await server.modernClient();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('vm-create');
    expect(tools.map((tool) => tool.name)).not.toContain('db-cluster-list');
    const account = await client.callTool({ name: 'account-get-information', arguments: {} });
    expect(JSON.parse(textOf(account)).account.status).toBe('active');
    const error = await client
      .callTool({ name: 'db-cluster-list', arguments: {} })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: -32602 });
    expect(String((error as Error).message)).not.toMatch(/MCP error -32602: MCP error/);
    // A platform error is the tool's error result, as on the 2025 path.
    const missing = await client.callTool({ name: 'key-get', arguments: { ID: 999_999_999 } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/404/);
  });

  it('confirms a delete in rounds: the right name deletes, a wrong one, a decline and a cancel do not', async () => {
    const server = await start();
    const names = ['right', 'wrong', 'no', 'later'].map(
      (word) => `${word}-${randomBytes(2).toString('hex')}`,
    );
    const answers = [
      { action: 'accept', typed: names[0] },
      { action: 'accept', typed: `${names[1]}x` },
      { action: 'decline' },
      { action: 'cancel' },
    ] as const;
    const { client, asked } = await answering(server, (message) => {
      const at = names.findIndex((name) => message.includes(`type ${name}.`));
      return answers[at] ?? { action: 'decline' };
    });
    const ids = [];
    for (const name of names) ids.push(await makeKey(client, name));
    const results = [];
    for (const id of ids) results.push(await client.callTool({ name: 'key-delete', arguments: { ID: id } }));
    expect(asked).toHaveLength(4);
    expect(results[0]?.isError, textOf(results[0] ?? {})).not.toBe(true);
    expect(textOf(results[1] ?? {})).toMatch(/did not type .* as asked/);
    expect(textOf(results[2] ?? {})).toMatch(/was declined: nothing was sent/);
    expect(textOf(results[3] ?? {})).toMatch(/was cancelled: nothing was sent/);
    const left = await client.callTool({ name: 'key-list', arguments: {} });
    const kept = (JSON.parse(textOf(left)) as { ssh_keys: { id: number }[] }).ssh_keys.map((key) => key.id);
    expect(ids.map((id) => kept.includes(id))).toEqual([false, true, true, true]);
    expect(server.log()).toMatch(/tool key-delete: asked to confirm/);
  });

  it('a client that cannot be asked: --confirm auto runs the call, always-refuse refuses it', async () => {
    for (const [confirm, deleted] of [
      ['auto', true],
      ['always-refuse', false],
    ] as const) {
      const server = await start({ confirm });
      const client = await server.modernClient();
      const id = await makeKey(client, `silent-${confirm}`);
      const result = await client.callTool({ name: 'key-delete', arguments: { ID: id } });
      expect(result.isError === true, textOf(result)).toBe(!deleted);
      const read = await client.callTool({ name: 'key-get', arguments: { ID: id } });
      expect(read.isError === true).toBe(deleted);
    }
  });

  it("a wait's progress reaches the client with a total and the VM's name", async () => {
    let now = Date.now();
    const server = await start({ sandboxNow: () => now });
    const client = await server.modernClient();
    const made = await client.callTool({
      name: 'vm-create',
      arguments: { Name: 'in-process-vm', Region: 'nyc3', Size: 's-1vcpu-1gb', ImageID: 'ubuntu-24-04-x64' },
    });
    expect(made.isError, textOf(made)).not.toBe(true);
    const id = (made.structuredContent as { droplet: { id: number } }).droplet.id;
    const reports: { progress: number; total?: number; message?: string }[] = [];
    const waited = await client.callTool(
      { name: 'wait', arguments: { Kind: 'vm', ID: String(id) } },
      {
        onprogress: (report) => {
          reports.push(report);
          now += 120_000;
          void server.sandbox?.advanceClock(120_000);
        },
      },
    );
    expect(waited.isError, textOf(waited)).not.toBe(true);
    expect(reports.length).toBeGreaterThan(0);
    expect(reports[0]?.message).toContain('in-process-vm');
    expect(reports.every((report) => typeof report.total === 'number')).toBe(true);
  });
});
